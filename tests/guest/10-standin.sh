#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stand-in driver alone, through its own nodes: the nodes and version
# files it makes, a whole session, and the driver's answers to requests it
# must refuse -- both what user space saw and what the driver recorded.
. "$(dirname "$0")/lib.sh"
nvm_begin

V=595.45.04
T=$NVM_TMP

# --- load, nodes, version files ---
if ! load_standin version=$V num_gpus=2; then
	fail standin-load "modprobe nvidia version=$V num_gpus=2 / nvidia-uvm failed"
	nvm_end
fi
pass standin-load

node_is() {	# node_is PATH MAJOR MINOR: a character device, mode 0666
	[ -c "$1" ] && [ "$(stat -c '%t %T %a' "$1")" = "$(printf '%x %x 666' "$2" "$3")" ]
}
nodes_ok() {
	uvm_major=$(sed -n 's/^ *\([0-9]*\) nvidia-uvm$/\1/p' /proc/devices)
	node_is /dev/nvidiactl 195 255 && node_is /dev/nvidia0 195 0 &&
	node_is /dev/nvidia1 195 1 && [ ! -e /dev/nvidia2 ] &&
	[ -n "$uvm_major" ] && node_is /dev/nvidia-uvm "$uvm_major" 0
}
check standin-nodes "nodes missing or wrong: $(ls -l /dev/nvidia* 2>&1 | tr '\n' ';')" nodes_ok

version_files_say() {	# version_files_say V
	head -n 1 /proc/driver/nvidia/version | grep -q "^NVRM version: .*  $1  " &&
	[ "$(cat /sys/module/nvidia/version)" = "$1" ]
}
check standin-version-files "/proc: '$(head -n 1 /proc/driver/nvidia/version)' sysfs: '$(cat /sys/module/nvidia/version)'" \
	version_files_say $V

# --- a whole session through the raw nodes ---
calls_clear
if nvsession > "$T/raw.txt" 2>&1; then
	pass standin-session
else
	fail standin-session "nvsession failed: $(failures "$T/raw.txt")"
fi
calls_save "$T/raw.calls"
pid=$(sed -n 's/^pid=//p' "$T/raw.txt")
tgids=$(calls_tgids "$T/raw.calls" ioctl)
check standin-session-tgid "ioctls recorded under tgid '$tgids', session pid $pid" \
	[ "$tgids" = "$pid " ]
# What the driver received: the session's steps, with their answers.
check standin-session-recorded "call log lacks expected lines ($(wc -l < "$T/raw.calls") lines)" sh -c "
	f=$T/raw.calls
	grep -q 'file=ctl op=ioctl nr=0x2b size=32 ret=0 status=0x0 .* class=0x0\$' \$f &&
	grep -q 'file=gpu0 op=ioctl nr=0xc9 size=4 ret=0 .* fdfile=ctl ' \$f &&
	grep -q 'file=ctl op=ioctl nr=0x2b size=48 ret=0 status=0x0 .* class=0x80 psize=56 ' \$f &&
	grep -q 'file=ctl op=ioctl nr=0x2a size=32 ret=0 status=0x56 .* cmd=0x2080dead psize=0\$' \$f &&
	grep -q 'file=ctl op=ioctl nr=0xd3 size=16 inner=0x2a isize=32 .* ret=0 status=0x0 .* cmd=0x201 psize=128 psum=' \$f &&
	grep -q 'file=gpu0 op=ioctl nr=0x27 size=56 ret=0 status=0x0 .* fdfile=ctl ' \$f &&
	grep -q 'file=ctl op=ioctl nr=0x4e size=56 ret=0 status=0x0 .* fdfile=ctl ' \$f &&
	grep -q 'file=ctl op=mmap len=65536 pgoff=0x0 ret=0 vmfile=ctl' \$f &&
	grep -q 'file=ctl op=mmap len=4096 pgoff=0x1 ret=-22 vmfile=ctl' \$f &&
	grep -q 'file=ctl op=poll mask=0x3' \$f &&
	grep -q 'file=uvm op=ioctl nr=0x4b size=8 ret=0 status=0x0 .* fdfile=uvm ' \$f &&
	grep 'file=uvm op=ioctl nr=0x25 size=40 ret=0 status=0x0 ' \$f | grep -qv fdfile= &&
	grep -q 'file=uvm op=mmap len=65536 .* ret=0 vmfile=uvm' \$f &&
	[ \$(grep -c ' op=open ret=0' \$f) = 6 ] && [ \$(grep -c ' op=release' \$f) = 6 ]"
leaks=$(state_leaks)
check standin-session-no-leak "state after the session: $leaks" [ -z "$leaks" ]

# --fork: files opened by the parent, the session run by a child.
calls_clear
if nvsession --fork > "$T/fork.txt" 2>&1; then
	pass standin-session-fork
else
	fail standin-session-fork "$(failures "$T/fork.txt")"
fi
calls_save "$T/fork.calls"
child=$(sed -n 's/^pid=//p' "$T/fork.txt")
parent=$(sed -n 's/^parent=//p' "$T/fork.txt")
check standin-session-fork-tgid "opens by '$(calls_tgids "$T/fork.calls" open)' (parent $parent), ioctls by '$(calls_tgids "$T/fork.calls" ioctl)' (child $child)" \
	[ "$(calls_tgids "$T/fork.calls" open)|$(calls_tgids "$T/fork.calls" ioctl)" = "$parent |$child " ]

# Many sessions at once on the raw nodes: the driver's own locking.
calls_clear
nvsession --procs 8 --threads 4 --loops 2 > "$T/many.txt" 2> "$T/many.err"
rc=$?
check standin-concurrent "$(tail -n 1 "$T/many.txt"); $(grep -m 5 FAIL "$T/many.err" | tr '\n' ';')" \
	sh -c "[ $rc -eq 0 ] && grep -q '^sessions=64 passed=64 failed=0 .* transcripts=identical' '$T/many.txt'"
leaks=$(state_leaks)
check standin-concurrent-no-leak "state after 64 sessions: $leaks" [ -z "$leaks" ]

# Fault injection: every open fails with -fail_open while it is set.
echo 5 > /sys/module/nvidia/parameters/fail_open
out=$(openclose --path /dev/nvidiactl --count 3 --expect EIO)
rc=$?
echo 0 > /sys/module/nvidia/parameters/fail_open
check standin-fail-open "$out" [ $rc -eq 0 ]

# --- refusals: nvsession checks the answers, the log what was received ---
refuse() {	# refuse CASE [LOG-PATTERN]
	calls_clear
	if nvsession --case "$1" > "$T/case.txt" 2>&1; then
		calls_save "$T/case.calls"
		if [ -n "$2" ] && ! grep -q -- "$2" "$T/case.calls"; then
			fail "standin-refuse-$1" "no log line like '$2'"
			return
		fi
		pass "standin-refuse-$1"
	else
		fail "standin-refuse-$1" "$(grep -v '^pid=' "$T/case.txt" | tr '\n' ';')"
	fi
}
refuse device-without-gpu-file 'nr=0x2b size=32 ret=0 status=0x1b .* class=0x80 psize=56'
refuse device-with-gpu-file 'nr=0x2b size=32 ret=0 status=0x0 .* class=0x80'
refuse register-fd-foreign 'file=gpu0 op=ioctl nr=0xc9 size=4 ret=-22 .* fdfile=foreign '
refuse register-fd-badf 'file=gpu0 op=ioctl nr=0xc9 size=4 ret=-22 .* fdfile=badf '
refuse register-fd-gpu 'file=gpu0 op=ioctl nr=0xc9 size=4 ret=-22 .* fdfile=gpu0 '
refuse mm-init-foreign 'file=uvm op=ioctl nr=0x4b size=8 ret=0 status=0x1f .* fdfile=foreign '
refuse mm-init-same-fd 'file=uvm op=ioctl nr=0x4b size=8 ret=0 status=0x17 .* fdfile=uvm '
refuse mm-init-ctl 'file=uvm op=ioctl nr=0x4b size=8 ret=0 status=0x1f .* fdfile=ctl '
refuse uvm-before-init 'file=uvm op=ioctl nr=0x25 size=40 ret=0 status=0x16'
refuse uvm-unknown 'file=uvm op=ioctl nr=0xc8 size=0 ret=-38'
refuse map-memory-foreign 'file=ctl op=ioctl nr=0x4e size=56 ret=0 status=0x1f .* fdfile=foreign '
refuse map-memory-twice 'nr=0x4e size=56 ret=0 status=0x63 .* fdfile=ctl '
refuse map-memory-other-process 'nr=0x4e size=56 ret=0 status=0x23 .* fdfile=ctl '
refuse mmap-without-context 'file=ctl op=mmap len=4096 pgoff=0x0 ret=-22'
refuse ctl-escape-on-gpu 'file=gpu0 op=ioctl nr=0x2a size=32 ret=-22'
refuse alloc-memory-on-ctl 'file=ctl op=ioctl nr=0x27 size=56 ret=-22'
refuse version-mismatch 'file=ctl op=ioctl nr=0xd2 size=72 ret=-22'
refuse wrong-size 'file=ctl op=ioctl nr=0x2a size=31 ret=-22$'
refuse xfer-oversize 'nr=0xd3 size=16 inner=0x2a isize=16385 .* ret=-22'
refuse client-other-file 'nr=0x2a size=32 ret=0 status=0x23 .* cmd=0x201'

leaks=$(state_leaks)
check standin-refusals-no-leak "state after the refusals: $leaks" [ -z "$leaks" ]

# --- versions: the parameter drives what the driver does ---
unload_all
if modprobe nvidia version=garbage 2>/dev/null; then
	fail standin-version-garbage "version=garbage was accepted"
else
	check standin-version-garbage "no message in the kernel log" \
		sh -c "dmesg | grep -q 'version=\"garbage\" is not a driver version'"
fi
unload_all

for v in 550.54.14 535.183.01 525.60.13 550.100; do
	if ! load_standin version=$v; then
		fail "standin-version-$v" "modprobe nvidia version=$v failed"
		continue
	fi
	opt=
	# Before 530.30.02 CHECK_VERSION_STR '2' is an override, not a query.
	case $v in 525.*) opt="--version $v" ;; esac
	# shellcheck disable=SC2086
	if ! version_files_say $v; then
		fail "standin-version-$v" "version files: '$(head -n 1 /proc/driver/nvidia/version)' / '$(cat /sys/module/nvidia/version)'"
	elif ! nvsession $opt > "$T/v.txt" 2>&1; then
		fail "standin-version-$v" "session: $(failures "$T/v.txt")"
	elif ! nvsession --case device-without-gpu-file $opt > "$T/v.txt" 2>&1; then
		fail "standin-version-$v" "device check: $(tr '\n' ';' < "$T/v.txt")"
	else
		pass "standin-version-$v"
	fi
	unload_all
done

nvm_end
