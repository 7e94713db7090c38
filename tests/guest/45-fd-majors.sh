#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fd-carrying calls at one release of every major from 515 to 595,
# through the mediated nodes: the stand-in acts as that release (its own
# reading of the driver's RM_ALLOC forms and UVM commands, not nvmediate's
# tables), and its record must show that every fd number it looked up
# resolved to the backing file of the node it wants (REGISTER_FD's ctl_fd,
# RM_ALLOC_MEMORY's and RM_MAP_MEMORY's fd: the control file; from 535,
# UVM_MM_INITIALIZE's uvmFd: a UVM file), that the device allocation in the
# release's NVOS64 form (40 bytes before 535, 48 after) and UVM_REGISTER_GPU
# found the GPU node held, and that the session's answers are the driver's.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
MED="--mediated --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm"
RELEASES="515.105.01 520.61.07 525.147.05 530.41.03 535.288.01 545.29.06 550.163.01
555.58.02 560.35.03 565.77 570.211.01 575.64.05 580.142 590.48.01 595.45.04"
# The debug kernel (KASAN, kmemleak, under TCG: some 5 s a release) takes
# one release of each form: the 40-byte NVOS64 and no uvmFd (515), the first
# 48-byte one with uvmFd (535), the production branch and the newest.  The
# releases differ in nvmediate's tables, which the stock kernels check at
# every release, not in the kernel code the debug kernel watches.
[ "$NVM_KERNEL" != debug ] || RELEASES="515.105.01 535.288.01 580.142 595.45.04"

for v in $RELEASES; do
	unload_all
	if ! load_standin version="$v" num_gpus=1 || ! load_nvmediate > "$T/load.txt" 2>&1; then
		fail "fd-major-$v" "cannot load the stand-in or nvmediate at $v: $(cat "$T/load.txt")"
		continue
	fi
	wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm
	calls_clear
	# shellcheck disable=SC2086
	nvsession --version "$v" $MED > "$T/s.txt" 2>&1
	rc=$?
	calls_save "$T/c.txt"
	major=${v%%.*}
	nvos64=48
	[ "$major" -lt 535 ] && nvos64=40
	want="nr=0xc9 size=4 ret=0 .* fdfile=ctl
nr=0x2b size=$nvos64 ret=0 status=0x0 .* class=0x80
nr=0x27 size=56 ret=0 status=0x0 .* fdfile=ctl
nr=0x4e size=56 ret=0 status=0x0 .* fdfile=ctl
file=uvm op=ioctl nr=0x25 size=40 ret=0 status=0x0 "
	[ "$major" -ge 535 ] && want="$want
file=uvm op=ioctl nr=0x4b size=8 ret=0 status=0x0 .* fdfile=uvm "
	# The deprecated controls, converted by the driver through their list.
	want="$want
nr=0x2a size=32 ret=0 status=0x0 .* cmd=0x101 psize=40 dep=0x13e strings=
nr=0x2a size=32 ret=0 status=0x0 .* cmd=0x20800802 psize=16 dep=0x20800810 count=3 
nr=0x2a size=32 ret=0 status=0x0 .* cmd=0x20801802 psize=16 dep=0x20801823 count=1 "
	missing=$(echo "$want" | while read -r line; do
		grep -q -- "$line" "$T/c.txt" || echo "[$line]"
	done)
	if [ $rc -ne 0 ]; then
		fail "fd-major-$v" "session: $(failures "$T/s.txt")"
	elif [ -n "$missing" ]; then
		fail "fd-major-$v" "the driver did not receive: $missing"
	elif grep -q 'fdfile=\(badf\|foreign\)' "$T/c.txt"; then
		fail "fd-major-$v" "an fd resolved to nothing or a foreign file: $(grep -m1 'fdfile=\(badf\|foreign\)' "$T/c.txt")"
	else
		pass "fd-major-$v"
	fi
done
unload_all
nvm_end
