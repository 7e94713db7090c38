#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CUDA-like session through the mediated nodes: user space must see the
# same answers as through the real nodes, the driver must receive the same
# calls, made in the caller's own process; also from a forked child and from
# 32 processes x 4 threads at once.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
MED="--mediated --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm"
# Calls nvmediate's validator answers itself (50-validate.sh tests them):
# the driver never sees them (its answers to them: status NOT_SUPPORTED,
# INVALID_CLASS, ILLEGAL_ACTION, INVALID_ARGUMENT, and OUT_OF_RANGE for a
# deprecated control's count over its maximum); user space sees the
# driver's answer but for a kernel-callback event (EPERM), whose line
# differs.
REFUSED_STEPS='^(alloc-kernel-callback) '
# Steps made only on the mediated nodes (nvsession.c, step_backing_closed()).
MEDIATED_STEPS='^backing-'
REFUSED_CALLS=' status=0x(56|22|16|1f|5b) '


if ! load_standin version=595.45.04 num_gpus=2; then
	fail session-setup "cannot load the stand-in driver (modprobe nvidia / nvidia-uvm)"
	nvm_end
fi
if ! load_nvmediate > "$T/load.txt" 2>&1; then
	fail session-setup "nvmediate is not available: $(tr '\n' ' ' < "$T/load.txt")"
	nvm_end
fi
for n in /dev/nvproxy /dev/nvproxy0 /dev/nvproxy-uvm; do
	wait_node "$n" || fail session-setup "no $n after modprobe nvmediate"
done

# --- the same session, directly and mediated ---
calls_clear
nvsession > "$T/direct.txt" 2>&1
direct_rc=$?
calls_save "$T/direct.calls"
STATS=/sys/class/nvmediate/stats
own_counts() {	# own_counts: nvmediate's refusals (errno) and its own answers so far
	r=0
	a=0
	for f in escape ctrl alloc uvm; do
		r=$((r + $(cat "$STATS/${f}_refused") + $(cat "$STATS/${f}_audited")))
		a=$((a + $(cat "$STATS/${f}_answered")))
	done
	echo "$r $a"
}
calls_clear
own0=$(own_counts)
# shellcheck disable=SC2086
nvsession $MED > "$T/med.txt" 2>&1
med_rc=$?
own1=$(own_counts)
calls_save "$T/med.calls"

check session-direct "the session fails on the real nodes: $(failures "$T/direct.txt")" \
	[ $direct_rc -eq 0 ]
check session-mediated "the session fails on the mediated nodes: $(failures "$T/med.txt")" \
	[ $med_rc -eq 0 ]

grep -v '^pid=' "$T/direct.txt" | grep -Ev "$REFUSED_STEPS" | grep -Ev "$MEDIATED_STEPS" > "$T/direct.tr"
grep -v '^pid=' "$T/med.txt" | grep -Ev "$REFUSED_STEPS" | grep -Ev "$MEDIATED_STEPS" > "$T/med.tr"
check session-same-transcript "user space saw different answers: $(diff "$T/direct.tr" "$T/med.tr" | grep '^[-+][^-+]' | head -n 6 | tr '\n' ';')" \
	cmp -s "$T/direct.tr" "$T/med.tr"

calls_norm "$T/direct.calls" | grep -Ev "$REFUSED_CALLS" > "$T/direct.norm"
calls_norm "$T/med.calls" > "$T/med.norm"
check session-same-calls "the driver received different calls: $(diff "$T/direct.norm" "$T/med.norm" | grep '^[-+][^-+]' | head -n 6 | tr '\n' ';')" \
	cmp -s "$T/direct.norm" "$T/med.norm"

# Nothing the driver serves was kept from it: the calls nvmediate refused
# (errno) or answered itself are exactly the calls the driver refuses in the
# direct run (REFUSED_CALLS), and its errno refusals are the steps the
# session expects (REFUSED_STEPS).
want_r=$(grep -Ec "$REFUSED_STEPS" "$T/med.txt")
want_k=$(calls_norm "$T/direct.calls" | grep -Ec "$REFUSED_CALLS")
# shellcheck disable=SC2086
set -- $own0 $own1
check session-no-refusal "nvmediate refused $(($3 - $1)) calls (want $want_r) and answered $(($4 - $2)) itself: $(($3 - $1 + $4 - $2)) kept from the driver, want $want_k (the driver's refusals)" \
	[ "$(($3 - $1)) $(($3 - $1 + $4 - $2))" = "$want_r $want_k" ]

# Through a mapping's /proc/self/map_files link, root reached the backing
# file and could neither watch nor change its inode.
check session-backing-closed "$(grep -E "$MEDIATED_STEPS" "$T/med.txt" | tr '\n' ';')" \
	[ "$(grep -Ec '^backing-(watch|chmod) .* ok$' "$T/med.txt")" = 2 ]

pid=$(sed -n 's/^pid=//p' "$T/med.txt")
in_caller() {	# in_caller CALLS PID: every ioctl, mmap, poll under PID
	for op in ioctl mmap poll; do
		t=$(calls_tgids "$1" $op)
		[ -z "$t" ] || [ "$t" = "$2 " ] || return 1
	done
	[ -n "$(calls_tgids "$1" ioctl)" ]
}
check session-in-caller "calls ran under tgid ioctl='$(calls_tgids "$T/med.calls" ioctl)' mmap='$(calls_tgids "$T/med.calls" mmap)' poll='$(calls_tgids "$T/med.calls" poll)', session pid $pid" \
	in_caller "$T/med.calls" "$pid"
leaks=$(state_leaks)
check session-no-leak "state after the sessions: $leaks" [ -z "$leaks" ]

# --- files opened by a parent, the session run by its child ---
calls_clear
# shellcheck disable=SC2086
if nvsession --fork $MED > "$T/fork.txt" 2>&1; then
	pass session-fork
else
	fail session-fork "$(failures "$T/fork.txt")"
fi
calls_save "$T/fork.calls"
child=$(sed -n 's/^pid=//p' "$T/fork.txt")
check session-fork-in-child "ioctls under '$(calls_tgids "$T/fork.calls" ioctl)', child $child" \
	in_caller "$T/fork.calls" "$child"
grep -v '^p[a-z]*=' "$T/fork.txt" | grep -Ev "$REFUSED_STEPS" | grep -Ev "$MEDIATED_STEPS" > "$T/fork.tr"
check session-fork-same-transcript "$(diff "$T/direct.tr" "$T/fork.tr" | grep '^[-+][^-+]' | head -n 4 | tr '\n' ';')" \
	cmp -s "$T/direct.tr" "$T/fork.tr"

# --- 32 processes x 4 threads, each thread its own session and files ---
calls_clear
# shellcheck disable=SC2086
nvsession --procs 32 --threads 4 $MED > "$T/many.txt" 2> "$T/many.err"
rc=$?
calls_save "$T/many.calls"
check session-concurrent "$(tail -n 1 "$T/many.txt"); $(grep -m 5 FAIL "$T/many.err" | tr '\n' ';')" \
	sh -c "[ $rc -eq 0 ] && grep -q '^sessions=128 passed=128 failed=0 .* transcripts=identical' '$T/many.txt'"
# What the driver received: 128 clients made and freed, 128 GPU registrations.
roots=$(grep -c 'op=ioctl nr=0x2b size=32 ret=0 status=0x0 .* class=0x0$' "$T/many.calls")
frees=$(grep -c 'op=ioctl nr=0x29 size=16 ret=0 status=0x0 ' "$T/many.calls")
regs=$(grep -c 'file=uvm op=ioctl nr=0x25 size=40 ret=0 status=0x0 ' "$T/many.calls")
check session-concurrent-calls "driver saw $roots client allocs, $frees frees, $regs UVM registrations (want 128, 256, 128; $(state_get log_dropped) log lines dropped)" \
	[ "$roots $frees $regs" = "128 256 128" ]
leaks=$(state_leaks)
check session-concurrent-no-leak "state after 128 sessions: $leaks" [ -z "$leaks" ]

# fds of the wrong node: the driver wants its control node at REGISTER_FD's
# ctl_fd and a UVM file at UVM_MM_INITIALIZE's uvmFd; a mediated file of
# another node is left out of the private table, so the driver's own lookup
# finds nothing there (fdfile=badf) and it answers as for a foreign fd.
fdkind() {	# fdkind NAME CASE LOG-LINE
	calls_clear
	if ! nvsession --case "$2" $MED > "$T/kind.txt" 2>&1; then
		fail "fd-kind-$1" "$(grep -v '^pid=' "$T/kind.txt" | tr '\n' ';')"
		return
	fi
	calls_save "$T/kind.calls"
	check "fd-kind-$1" "the driver did not see '$3': $(grep -m1 "$3" "$T/kind.calls" ||
		grep -m1 'nr=0xc9\|nr=0x4b' "$T/kind.calls")" grep -q -- "$3" "$T/kind.calls"
}
# The driver's device allocation looks for a file of the GPU among all the
# caller's: one of GPU 0's mediated files reaches it after 70 of GPU 1's.
calls_clear
if nvsession --case device-many-gpu-files $MED > "$T/many-gpu.txt" 2>&1; then
	pass session-device-many-gpu-files
else
	fail session-device-many-gpu-files "$(grep -v '^pid=' "$T/many-gpu.txt" | tr '\n' ';')"
fi

fdkind gpu-for-ctl register-fd-gpu 'file=gpu0 op=ioctl nr=0xc9 size=4 ret=-22 .* fdfile=badf '
fdkind ctl-for-uvm mm-init-ctl 'file=uvm op=ioctl nr=0x4b size=8 ret=0 status=0x1f .* fdfile=badf '

nvm_end
