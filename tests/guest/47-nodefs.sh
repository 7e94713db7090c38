#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvmediatefs (kmod/nodefs.c): a set's mediated nodes under the driver's
# names.  Mounted, it holds nvidiactl, nvidia-uvm and nvidia0..N-1; a
# process of the initial pid namespace sees nvmediate's own numbers there
# (those of /dev/nvproxy*), a process in another pid namespace (a container)
# the driver's (those of the stand-in's /dev/nvidiactl, /dev/nvidia0 and
# /dev/nvidia-uvm), unless it has CAP_SYS_ADMIN; an open of either reaches
# nvmediate and the driver through it; the mode and owner of the nodes and
# of the directory cannot be changed but to what they are; /proc/mounts
# names the set;
# a set's mount keeps the set from being removed and nvmediate from being
# unloaded; a mount of a set that does not exist is refused; mount options
# set the nodes' mode and owner.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
D=$T/nd
SETS=/sys/kernel/nvmediate
unload_all
if ! load_standin num_gpus=2 || ! load_nvmediate num_gpus=2 > "$T/load.txt" 2>&1 ||
   ! wait_node /dev/nvproxy0 || ! wait_node /dev/nvproxy-uvm; then
	fail nodefs-setup "cannot load the stand-in and nvmediate: $(cat "$T/load.txt")"
	nvm_end
fi
mkdir -p "$D" "$T/nl"

if mount -t nvmediatefs -o set=default nvmediate "$D" 2> "$T/mount.txt"; then
	pass nodefs-mount
else
	fail nodefs-mount "$(cat "$T/mount.txt")"
	nvm_end
fi
check nodefs-names "lists: $(ls "$D" | tr '\n' ' ')" \
	test "$(ls "$D" | sort | tr '\n' ' ')" = "nvidia-uvm nvidia0 nvidia1 nvidiactl "

nums() {	# nums DIR: the numbers of DIR's nvidiactl, nvidia0, nvidia1, nvidia-uvm
	for n in nvidiactl nvidia0 nvidia1 nvidia-uvm; do stat -c '%t:%T' "$1/$n"; done | tr '\n' ' '
}
host=$(nums "$D")
own=$(ctr_nums /dev/nvproxy /dev/nvproxy0 /dev/nvproxy1 /dev/nvproxy-uvm)
drv=$(ctr_nums /dev/nvidiactl /dev/nvidia0 /dev/nvidia1 /dev/nvidia-uvm)
check nodefs-host-numbers "the initial pid namespace sees $host, want nvmediate's $own" \
	test "$host" = "$own"
# Another pid namespace, without CAP_SYS_ADMIN (root of a user namespace,
# as in a rootless container; a rootful one has no CAP_SYS_ADMIN either).
# shellcheck disable=SC2016  # expanded by the inner sh
inside=$(unshare -r -p -f sh -c 'for n in nvidiactl nvidia0 nvidia1 nvidia-uvm; do
	stat -c "%t:%T" "$1/$n"; done | tr "\n" " "' ns "$D")
check nodefs-pidns-numbers "another pid namespace sees '$inside', want the driver's $drv" \
	test "$inside" = "$drv"
# fstat of an open file tells the same (libcuda may stat the path or the fd)
inside=$(unshare -r -p -f sh -c 'exec 3<"$1/nvidiactl" && stat -L -c "%t:%T" /proc/self/fd/3' ns "$D")
check nodefs-pidns-fstat "an open file seen from another pid namespace: '$inside'" \
	test "$inside" = "$(stat -c '%t:%T' /dev/nvidiactl)"
# CAP_SYS_ADMIN of the initial user namespace sees the truth in any pid
# namespace (a runtime in a privileged container makes devices of it)
inside=$(unshare -p -f sh -c 'for n in nvidiactl nvidia0 nvidia1 nvidia-uvm; do
	stat -c "%t:%T" "$1/$n"; done | tr "\n" " "' ns "$D")
check nodefs-pidns-admin-numbers "CAP_SYS_ADMIN in another pid namespace sees '$inside', want nvmediate's $own" \
	test "$inside" = "$own"

# An open and an ioctl reach the driver through nvmediate, in both views.
want=$(nvraw /dev/nvproxy 0xd6 8 2>&1)
for where in host pidns; do
	calls_clear
	before=$(ctr_fwd)
	if [ $where = host ]; then
		got=$(nvraw "$D/nvidiactl" 0xd6 8 2>&1)
	else
		got=$(unshare -r -p -f nvraw "$D/nvidiactl" 0xd6 8 2>&1)
	fi
	n=$(grep -c ' op=ioctl ' "$NVM_STANDIN_DIR/calls")
	moved=$(($(ctr_fwd) - before))
	check "nodefs-call-$where" "nvraw: '$got' (want '$want'), driver received $n, nvmediate forwarded $moved" \
		test "$got" = "$want" -a "$n" = 1 -a "$moved" = 1
done

# Mode and owner: what they are, and only that.
check nodefs-mode "mode and owner $(stat -c '%a %u %g' "$D/nvidiactl"), want 666 0 0" \
	test "$(stat -c '%a %u %g' "$D/nvidiactl")" = "666 0 0"
check nodefs-options "/proc/mounts says $(grep " $D " /proc/mounts)" \
	grep -q " $D nvmediatefs rw,.*set=default,mode=0666 " /proc/mounts
check nodefs-dir-chmod "chmod 700 of the directory succeeds" sh -c "! chmod 700 '$D' 2>/dev/null"
check nodefs-chmod-same "chmod 666 (no change) fails" chmod 666 "$D/nvidiactl"
check nodefs-chown-same "chown 0:0 (no change) fails" chown 0:0 "$D/nvidiactl"
check nodefs-chmod-other "chmod 600 succeeds" sh -c "! chmod 600 '$D/nvidiactl' 2>/dev/null"
check nodefs-chown-other "chown 1000 succeeds" sh -c "! chown 1000 '$D/nvidia0' 2>/dev/null"
check nodefs-mode-kept "mode and owner now $(stat -c '%a %u %g' "$D/nvidiactl")" \
	test "$(stat -c '%a %u %g' "$D/nvidiactl") $(stat -c '%u' "$D/nvidia0")" = "666 0 0 0"

# A mount of another set, with mode and owner of its own.
echo "learn compute" > $SETS/create_set
wait_node /dev/nvmediate/learn/nvidiactl
if mount -t nvmediatefs -o set=learn,mode=0660,uid=1000,gid=44 none "$T/nl" 2> "$T/mount.txt"; then
	check nodefs-set-numbers "set learn's nodes are $(nums "$T/nl"), its /dev nodes $(ctr_nums /dev/nvmediate/learn/nvidiactl /dev/nvmediate/learn/nvidia0)" \
		test "$(nums "$T/nl" | cut -d' ' -f1-2) " = \
		"$(ctr_nums /dev/nvmediate/learn/nvidiactl /dev/nvmediate/learn/nvidia0)"
	check nodefs-set-options "mode and owner $(stat -c '%a %u %g' "$T/nl/nvidia1")" \
		test "$(stat -c '%a %u %g' "$T/nl/nvidia1")" = "660 1000 44"
	check nodefs-set-busy "remove_set of a mounted set succeeds" \
		sh -c "! echo learn > $SETS/remove_set 2>/dev/null"
	umount "$T/nl"
	check nodefs-set-removed "remove_set after umount fails" sh -c "echo learn > $SETS/remove_set"
else
	fail nodefs-set-mount "$(cat "$T/mount.txt")"
fi
check nodefs-no-set "a mount of a set that does not exist succeeds" \
	sh -c "! mount -t nvmediatefs -o set=nosuch none '$T/nl' 2>/dev/null"
check nodefs-bad-mode "mode=4755 is taken" \
	sh -c "! mount -t nvmediatefs -o mode=4755 none '$T/nl' 2>/dev/null"

# The mount holds nvmediate; without it nvmediate unloads.
check nodefs-rmmod-busy "rmmod nvmediate succeeds under a mount" sh -c '! rmmod nvmediate 2>/dev/null'
umount "$D"
check nodefs-rmmod "rmmod nvmediate fails after umount" rmmod nvmediate

nvm_end
