#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real container runtimes given the GPU through nvmediate's CDI spec
# (nvproxyctl cdi): podman with runc and with crun, rootful, rootful in a
# user namespace (--uidmap, where runtimes bind-mount device nodes instead of
# making them) and rootless (no device cgroup at all).  In every container,
# /dev/nvidiactl, /dev/nvidia0 and /dev/nvidia-uvm must show the driver's
# device numbers (as NVIDIA's libraries require) and be the mediated nodes:
# an ioctl made on /dev/nvidiactl there must reach the driver through
# nvmediate, the driver receiving exactly that one call and nvmediate's
# forwarded count moving by one, also after the container's root tried to
# put a node of the driver's number in its place or elsewhere (lib.sh).
# The runtimes are Debian 12's (tests/qemu/podman.sh).
# nvm-guest: limit-factor 4
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
R=$T/rootfs
USR=nvmuser

if ! command -v podman > /dev/null; then
	fail podman-present "podman is not in the guest (tests/qemu/podman.sh could not fetch it)"
	nvm_end
fi
if ! load_standin num_gpus=2 || ! load_nvmediate num_gpus=2 > "$T/load.txt" 2>&1 ||
   ! wait_node /dev/nvproxy0 || ! wait_node /dev/nvproxy-uvm; then
	fail podman-setup "cannot load the stand-in and nvmediate: $(cat "$T/load.txt")"
	nvm_end
fi

podman_host_setup

# The container's root: busybox and nvraw, both static.
ctr_rootfs "$R" nvraw
ln -sf /proc/mounts "$R/etc/mtab"
chmod -R a+rX "$T"
# rootless podman writes into the root it is given: the user's own copy
cp -a "$R" "$T/rootfs-user"
chown -R 1000:1000 "$T/rootfs-user"

if nvproxyctl cdi --output /etc/cdi/nvmediate.json > "$T/cdi.txt" 2>&1; then
	pass podman-cdi-spec
else
	fail podman-cdi-spec "$(cat "$T/cdi.txt")"
fi
chmod a+r /etc/cdi/nvmediate.json

ctr_setup

# run NAME WHO RUNTIME [podman options]: WHO is root or the user
run() {
	name=$1
	who=$2
	rt=$3
	shift 3
	ctr_begin
	root=$R
	uid=0
	case " $* " in
	*" --uidmap "*) uid=100000 ;;
	esac
	if [ "$who" != root ]; then
		root=$T/rootfs-user
		uid=1000	# rootless: the container's root is the user
	fi
	cmd="podman --runtime $rt run --rm --device nvmediate.io/gpu=0 $* --rootfs $root /bin/sh -c '$ctr_inside'"
	podman_as "$who" "$cmd" "$T/$name.out"
	ctr_verdict "podman-$name" $? "$T/$name.out" $uid
}

# Rootless podman has no cgroup here (no systemd): crun runs without one
# (--cgroups=disabled), runc is not allowed that and ignores the cgroups it
# cannot make.  The debug kernel (KASAN, lockdep; about ten times slower)
# runs one case: runc in a user namespace.
if [ "$NVM_KERNEL" = debug ]; then
	run runc-uidmap root runc --uidmap 0:100000:65536 --gidmap 0:100000:65536
	nvm_end
fi
for rt in runc crun; do
	run "$rt-rootful" root "$rt"
	run "$rt-uidmap" root "$rt" --uidmap 0:100000:65536 --gidmap 0:100000:65536
done
run runc-rootless $USR runc
run crun-rootless $USR crun --cgroups=disabled

nvm_end
