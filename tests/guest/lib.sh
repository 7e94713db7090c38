# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Helpers of the guest test scripts (busybox sh), sourced by /tests/NN-*.sh:
#
#   pass NAME                 NVMTEST PASS NAME
#   fail NAME REASON...       NVMTEST FAIL NAME: REASON (and remembers it)
#   check NAME REASON CMD...  pass when CMD succeeds, else fail with REASON
#   want NAME                 whether the case NAME is selected: NVM_CASES
#                             (init.sh, from nvm_tests=SCRIPT:CASE) is empty,
#                             or one of its patterns matches NAME, or the
#                             end of NAME after a "-"; a script skips the
#                             work of a case it does not want, and pass
#                             prints nothing for one (fail always prints)
#   wants NAME...             whether one of the cases NAME is selected
#   load_standin [PARAMS]     modprobe nvidia PARAMS + nvidia-uvm
#   load_nvmediate [PARAMS]   modprobe nvmediate PARAMS; fails clearly when absent
#   unload_all                rmmod nvmediate nvidia_uvm nvidia, those loaded
#   calls_clear               empty the stand-in's call log
#   calls_save FILE           copy the call log to FILE
#   calls_norm FILE           the log without seq=/tgid=; payload digests
#                             (sum=, also of fd-carrying calls: nvmediate
#                             forwards fd numbers unchanged) are kept
#   state_get KEY             one counter of the stand-in's state
#   state_leaks               the nonzero object counters, "" when none
#   meminfo_kb KEY            a /proc/meminfo value in kB
#   failures FILE             an nvsession transcript's failed steps, on one line
#   fault_setup, refcnts, idle NAME  the fault tests' load, module refcounts, idle check
#   bounce_placement          "sealed" on kernels that can seal a mapping
#                             (6.10 and later, 64-bit), else "low"
#   ctr_rootfs DIR PROG...    a container's root: busybox and the static
#                             guest programs PROG
#   ctr_setup, ctr_begin, ctr_verdict  a container given GPU 0 by the CDI spec
#                             (90-podman.sh, 91-containerd.sh): below
#
# Each script loads what it needs and unloads everything before it exits
# (cleanup runs from an EXIT trap set by nvm_begin).

NVM_STANDIN_DIR=/sys/kernel/debug/nvidia-standin
NVM_TMP=${NVM_TMP:-/tmp/nvmtest.$$}
NVM_FAILED=0
NVM_KERNEL=${NVM_KERNEL:-stock}

want() {
	[ -z "${NVM_CASES:-}" ] && return 0
	set -f
	for _w in $(echo "$NVM_CASES" | tr , ' '); do
		case $1 in
		$_w | *-$_w)
			set +f
			return 0
			;;
		esac
	done
	set +f
	return 1
}

wants() {
	for _n in "$@"; do
		! want "$_n" || return 0
	done
	return 1
}

pass() {
	want "$1" || return 0
	echo "NVMTEST PASS $1"
}

fail() {
	name=$1
	shift
	echo "NVMTEST FAIL $name: $*"
	NVM_FAILED=1
}

check() {
	name=$1
	reason=$2
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "$reason"
	fi
}

bounce_placement() {
	set -- $(uname -r | tr '.-' '  ')
	if [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 10 ]; }; then
		echo sealed
	else
		echo low
	fi
}

is_loaded() {
	grep -q "^$1 " /proc/modules
}

unload_all() {
	# a mount of nvmediatefs (nvproxyctl cdi makes one) holds nvmediate
	awk '$3 == "nvmediatefs" { print $2 }' /proc/mounts | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	for m in nvmediate nvidia_uvm nvidia; do
		is_loaded "$m" || continue
		rmmod "$m" 2>/dev/null || echo "note: rmmod $m failed"
	done
}

# The nodes a device class creates can take a moment in devtmpfs.
wait_node() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

load_standin() {
	modprobe nvidia "$@" || return 1
	modprobe nvidia-uvm || return 1
	wait_node /dev/nvidiactl && wait_node /dev/nvidia0 && wait_node /dev/nvidia-uvm
}

load_nvmediate() {	# [module parameters]
	if ! modprobe nvmediate "$@" 2>"$NVM_TMP/modprobe.err"; then
		echo "modprobe nvmediate: $(cat "$NVM_TMP/modprobe.err")"
		return 1
	fi
	wait_node /dev/nvproxy
}

calls_clear() {
	echo clear > "$NVM_STANDIN_DIR/calls"
}

calls_save() {
	cat "$NVM_STANDIN_DIR/calls" > "$1"
}

# hold_open NODE: a background process holds NODE open (fd 4); its pid in
# $holder.  Fails when the open did not happen within 5 s.
hold_open() {
	sleep 600 4<> "$1" &
	holder=$!
	_i=0
	while [ ! -e /proc/$holder/fd/4 ] && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -e /proc/$holder/fd/4 ]
}

calls_norm() {
	sed -e 's/^seq=[0-9]* tgid=[0-9]* //' -e 's/ ino=[0-9]* gen=[0-9]*$//' "$1"
}

state_get() {
	sed -n "s/^$1=//p" "$NVM_STANDIN_DIR/state"
}

# Counters that must be back at zero when nothing is open.
state_leaks() {
	grep -E '^(open_files|clients|objects|os_events|queued_events|memory|memory_pages|mapping_contexts|vmas|uvm_files|uvm_va_spaces|uvm_gpus|uvm_vmas|uvm_pages)=' \
		"$NVM_STANDIN_DIR/state" | grep -v '=0$' | tr '\n' ' '
}

# A container given GPU 0 by nvmediate's CDI spec, whatever made it:
# ctr_setup sets ctr_inside, the command it runs, and what that must show.
# Inside: the device numbers of /dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm
# on one line (the driver's own, as NVIDIA's libraries check: nvmediatefs
# tells them to a container), its uid_map, what a root that replaces
# /dev/nvidiactl with the driver's number (as libcuda does with a node whose
# number is not the driver's) or makes that number elsewhere gets from it
# (lines "replaced ..." and "made ...": an error or nothing, never the
# driver), then an escape on /dev/nvidiactl: 0xd6, 8 bytes, which the default
# profile admits, whose answer must be the one the host's /dev/nvproxy gives.
# ctr_begin before each container; ctr_verdict NAME RC OUT UID after it, OUT
# its output and RC its runner's exit: passes when the nodes show the
# driver's numbers, the runner succeeded, the container's root is host UID
# ("" for any), and the escape reached the driver once, through nvmediate
# (so neither the replaced nor the made node reached it).
ctr_nums() {
	for n in "$@"; do stat -c '%t:%T' "$n"; done | tr '\n' ' '
}

ctr_fwd() {
	cat /sys/class/nvmediate/stats/escape_forwarded
}

# ctr_rootfs DIR PROG...: busybox and the programs PROG in DIR/bin, with the
# files and folders podman mounts over present as in an image (in a user
# namespace the runtime cannot create them in a tree of the host's root).
ctr_rootfs() {
	_r=$1
	shift
	mkdir -p "$_r/bin" "$_r/dev" "$_r/proc" "$_r/sys" "$_r/tmp" "$_r/etc" "$_r/run"
	for _f in etc/hostname etc/hosts etc/resolv.conf run/.containerenv; do
		: > "$_r/$_f"
	done
	cp /bin/busybox "$_r/bin/"
	for _p in "$@"; do
		cp "/bin/$_p" "$_r/bin/"
	done
	for _a in sh stat cat tr rm mknod; do
		ln -sf busybox "$_r/bin/$_a"
	done
}

ctr_setup() {
	ctr_want=$(ctr_nums /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm)
	ctr_inside='for n in /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm; do stat -c %t:%T $n; done | tr "\n" " "; echo; cat /proc/self/uid_map
if rm -f /dev/nvidiactl 2>/dev/null && mknod -m 666 /dev/nvidiactl c 195 255 2>/dev/null; then echo "replaced $(nvraw /dev/nvidiactl 0xd6 8 2>&1)"; fi
if mknod -m 666 /tmp/rawctl c 195 255 2>/dev/null; then echo "made $(nvraw /tmp/rawctl 0xd6 8 2>&1)"; fi
nvraw /dev/nvidiactl 0xd6 8'
	ctr_answer=$(nvraw /dev/nvproxy 0xd6 8 2>&1)
}

ctr_begin() {
	calls_clear
	ctr_before=$(ctr_fwd)
}

ctr_verdict() {
	_got=$(grep -E '^[0-9a-f]+:[0-9a-f]+ ' "$3" | head -n 1)
	_ans=$(grep '^ret=' "$3")
	_uid=$(awk 'NF == 3 && $1 == 0 { print $2; exit }' "$3")
	_n=$(grep -c ' op=ioctl ' "$NVM_STANDIN_DIR/calls")
	_moved=$(($(ctr_fwd) - ctr_before))
	if [ -n "$_got" ] && [ "$_got" != "$ctr_want" ]; then
		fail "$1" "the container's nodes show $_got, not the driver's $ctr_want"
	elif [ "$2" -ne 0 ] || [ -z "$_got" ]; then
		fail "$1" "exit $2: $(tail -n 5 "$3" | tr '\n' ' ')"
	elif [ -n "$4" ] && [ "$_uid" != "$4" ]; then
		fail "$1" "the container's root is host uid '$_uid', not $4"
	elif grep -q '^\(replaced\|made\) ret=0' "$3"; then
		fail "$1" "a node the container made at 195:255 answered: $(grep '^\(replaced\|made\) ' "$3" | tr '\n' ' ')"
	elif [ "$_ans" != "$ctr_answer" ] || [ "$_n" != 1 ] || [ "$_moved" != 1 ]; then
		fail "$1" "nvraw: '$_ans', the driver received $_n ioctl(s), nvmediate forwarded $_moved (want '$ctr_answer', 1, 1)"
	else
		pass "$1"
	fi
}

# podman_as WHO CMD OUT: the podman command line CMD as root, or as $USR
# (rootless, WHO anything else), its output in OUT; its exit status.
podman_as() {
	if [ "$1" = root ]; then
		sh -c "$2" > "$3" 2>&1
	else
		su -s /bin/sh $USR -c "cd /home/$USR && HOME=/home/$USR XDG_RUNTIME_DIR=/run/user/1000 $2" \
			> "$3" 2>&1
	fi
}

# podman_host_setup: what podman needs on the guest host: cgroup v2,
# podman's configuration (no network, no systemd, storage on vfs), a user
# $USR (uid 1000) with subordinate ids for rootless podman.
podman_host_setup() {
	mkdir -p /sys/fs/cgroup /etc/containers /etc/cdi /var/lib/containers /var/tmp \
		/run/containers /home/$USR /run/user/1000
	grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 cgroup2 /sys/fs/cgroup
	mount --make-rshared / 2> /dev/null
	cat > /etc/containers/containers.conf <<- 'EOF'
	[containers]
	netns = "none"
	log_driver = "k8s-file"
	[engine]
	# the guest's root is the initramfs, where pivot_root(2) fails (EINVAL)
	no_pivot_root = true
	cgroup_manager = "cgroupfs"
	events_logger = "file"
	conmon_path = ["/usr/bin/conmon"]
	[engine.runtimes]
	runc = ["/usr/sbin/runc"]
	crun = ["/usr/bin/crun"]
	EOF
	printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' \
		> /etc/containers/storage.conf
	echo '{"default": [{"type": "insecureAcceptAnything"}]}' > /etc/containers/policy.json
	grep -q "^$USR:" /etc/passwd 2> /dev/null || {
		echo "root:x:0:0:root:/root:/bin/sh" >> /etc/passwd
		echo "$USR:x:1000:1000::/home/$USR:/bin/sh" >> /etc/passwd
		echo "root:x:0:" >> /etc/group
		echo "$USR:x:1000:" >> /etc/group
	}
	echo "$USR:100000:65536" > /etc/subuid
	echo "$USR:100000:65536" > /etc/subgid
	mkdir -p /home/$USR/.config/containers
	printf '[storage]\ndriver = "vfs"\nrunroot = "/run/user/1000/containers"\ngraphroot = "/home/%s/.local/share/containers/storage"\n' \
		$USR > /home/$USR/.config/containers/storage.conf
	chown -R 1000:1000 /home/$USR /run/user/1000
	chmod 0700 /run/user/1000
}

meminfo_kb() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}

failures() {
	if grep -q 'FAIL' "$1"; then
		grep 'FAIL' "$1" | head -n 5 | tr '\n' ';'
	else
		tail -n 3 "$1" | tr '\n' ';'
	fi
}

# The tgid values of the log lines of one op (ioctl, mmap, ...).
calls_tgids() {
	sed -n "s/^seq=[0-9]* tgid=\([0-9]*\) file=[^ ]* op=$2 .*/\1/p" "$1" | sort -u | tr '\n' ' '
}

# Fault tests (83, 84): the stand-in at 595.45.04 and nvmediate loaded.
fault_setup() {
	unload_all
	load_standin version=595.45.04 num_gpus=2 && load_nvmediate > "$NVM_TMP/load.txt" 2>&1 &&
		wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm
}

refcnts() {
	echo "nvmediate=$(cat /sys/module/nvmediate/refcnt) nvidia=$(cat /sys/module/nvidia/refcnt) nvidia_uvm=$(cat /sys/module/nvidia_uvm/refcnt)"
}

# idle NAME: nothing left open in the driver, reference counts as $IDLE
idle() {
	leaks=$(state_leaks)
	now=$(refcnts)
	if [ -n "$leaks" ]; then
		fail "$1" "stand-in state: $leaks"
	elif [ "$now" != "$IDLE" ]; then
		fail "$1" "module reference counts $now, idle $IDLE"
	else
		pass "$1"
	fi
}

nvm_cleanup() {
	unload_all
	rm -rf "$NVM_TMP"
}

nvm_begin() {
	mkdir -p "$NVM_TMP"
	trap nvm_cleanup EXIT
	unload_all
}

nvm_end() {
	exit "$NVM_FAILED"
}
