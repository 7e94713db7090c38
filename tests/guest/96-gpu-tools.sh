#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The GPU host check's tools (tests/gpu/) against the stand-in at 580.142:
# the recording shim nvtrace.so records the same calls and answers for a
# program run on the driver's nodes and run in a mount namespace where the
# mediated nodes are bind-mounted over them, and nvmediate's counters show
# that the second run went through it; nvreplay makes the recorded calls
# again through nvmediate and none is refused; nvreplay does tell refused
# calls; each GPU host's fixture (tests/gpu/fixtures/*.trace, in the guest
# /usr/share/gpu-fixtures) is replayed at its driver version with none refused.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
SHIM=/usr/lib/nvtrace.so
STATS=/sys/class/nvmediate/stats
FIXTURES=/usr/share/gpu-fixtures

setup() {	# setup VERSION: the stand-in at VERSION with one GPU, and nvmediate
	unload_all
	load_standin version="$1" num_gpus=1 || { echo "cannot load the stand-in at $1"; return 1; }
	load_nvmediate > "$T/load.txt" 2>&1 || { cat "$T/load.txt"; return 1; }
	wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm
}

counter_sum() {	# counter_sum NAME...: the counters' sum now
	s=0
	for c in "$@"; do
		s=$((s + $(cat "$STATS/$c")))
	done
	echo "$s"
}

if ! setup 580.142 > "$T/setup.txt" 2>&1; then
	fail gpu-tools-setup "$(tr '\n' ' ' < "$T/setup.txt")"
	nvm_end
fi

# --- (a) the shim, directly and through nvmediate ---
if [ ! -x /bin/nvcalls ] || [ ! -f "$SHIM" ]; then
	fail gpu-trace "/bin/nvcalls or $SHIM is not in the initramfs (tests/qemu/mkinitramfs.sh builds them dynamic when build/podman has the C library for the guest: tests/qemu/podman.sh)"
else
	NVTRACE_OUT=$T/direct.trace LD_PRELOAD=$SHIM nvcalls > "$T/direct.txt" 2>&1
	check gpu-trace-direct-run "nvcalls fails on the driver's nodes: $(grep -v ' ok$' "$T/direct.txt" | tr '\n' ';')" \
		grep -q '^nvcalls: ok$' "$T/direct.txt"
	esc0=$(counter_sum escape_forwarded ctrl_forwarded alloc_forwarded)
	uvm0=$(counter_sum uvm_forwarded)
	own0=$(counter_sum escape_refused ctrl_refused alloc_refused uvm_refused \
		escape_answered ctrl_answered alloc_answered uvm_answered)
	# shellcheck disable=SC2016  # expanded by the inner sh
	unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind /dev/nvproxy /dev/nvidiactl &&
		mount --bind /dev/nvproxy0 /dev/nvidia0 &&
		mount --bind /dev/nvproxy-uvm /dev/nvidia-uvm &&
		exec env NVTRACE_OUT="$1" LD_PRELOAD="$2" nvcalls' ns "$T/med.trace" "$SHIM" \
		> "$T/med.txt" 2>&1
	esc1=$(counter_sum escape_forwarded ctrl_forwarded alloc_forwarded)
	uvm1=$(counter_sum uvm_forwarded)
	own1=$(counter_sum escape_refused ctrl_refused alloc_refused uvm_refused \
		escape_answered ctrl_answered alloc_answered uvm_answered)
	check gpu-trace-mediated-run "nvcalls fails in the namespace: $(grep -v ' ok$' "$T/med.txt" | tr '\n' ';')" \
		grep -q '^nvcalls: ok$' "$T/med.txt"
	# What the program saw is the same (the client handle may differ).
	sed 's/ gpu0=0x[0-9a-f]*//' "$T/direct.txt" > "$T/direct.seen"
	sed 's/ gpu0=0x[0-9a-f]*//' "$T/med.txt" > "$T/med.seen"
	check gpu-trace-same-answers "$(diff "$T/direct.seen" "$T/med.seen" | grep '^[-+][^-+]' | head -n 4 | tr '\n' ';')" \
		cmp -s "$T/direct.seen" "$T/med.seen"

	# The records: a header naming the stand-in's version, then the calls.
	check gpu-trace-header "header: $(head -n 1 "$T/direct.trace")" \
		grep -q '^# nvtrace 1 driver=580.142 date=20[0-9-]*T[0-9:]*Z$' "$T/direct.trace"
	cat > "$T/want" <<-EOF
	ctl esc=0xd2 size=72 ret=0
	ctl esc=0xd2 size=72 ret=0
	ctl esc=0xc8 size=2304 ret=0
	ctl esc=0x2b size=32 ret=0 class=0x41 psize=0 status=0x0
	ctl esc=0x2a size=32 ret=0 cmd=0x201 flags=0x0 psize=128 status=0x0
	ctl esc=0xd3 size=16 ret=0 xfer=0x2a xsize=32 cmd=0x201 flags=0x0 psize=128 status=0x0
	gpu0 esc=0xc9 size=4 ret=0
	ctl esc=0x29 size=16 ret=0 status=0x0
	uvm req=0x30000001 ret=0
	EOF
	grep -v '^#' "$T/direct.trace" > "$T/direct.calls"
	grep -v '^#' "$T/med.trace" > "$T/med.calls"
	check gpu-trace-calls "the direct record is not the calls nvcalls made: $(diff "$T/want" "$T/direct.calls" | grep '^[-+][^-+]' | head -n 4 | tr '\n' ';')" \
		cmp -s "$T/want" "$T/direct.calls"
	check gpu-trace-same-calls "the records differ: $(diff "$T/direct.calls" "$T/med.calls" | grep '^[-+][^-+]' | head -n 4 | tr '\n' ';')" \
		cmp -s "$T/direct.calls" "$T/med.calls"
	# Through nvmediate: 8 calls on ctl and gpu0, 1 on uvm, none refused.
	check gpu-trace-forwarded "nvmediate forwarded $((esc1 - esc0)) escape/ctrl/alloc calls and $((uvm1 - uvm0)) UVM calls (want 8 and 1), refused or answered $((own1 - own0))" \
		[ "$((esc1 - esc0)) $((uvm1 - uvm0)) $((own1 - own0))" = "8 1 0" ]

	# --- (b) the record made again through nvmediate ---
	nvreplay "$T/direct.trace" > "$T/replay.txt" 2>&1
	rc=$?
	check gpu-replay-own-trace "exit $rc: $(grep -E 'REFUSED|NOT SEEN|calls=|nvreplay: [a-z]' "$T/replay.txt" | head -n 5 | tr '\n' ';')" \
		sh -c "[ $rc -eq 0 ] && grep -q '^nvreplay: calls=9 forwarded=9 refused=0 unseen=0 skipped=0$' '$T/replay.txt'"
	leaks=$(state_leaks)
	check gpu-replay-no-leak "stand-in state after the replay: $leaks" [ -z "$leaks" ]
fi

# nvreplay tells nvmediate's refusals from the driver's answers: a control
# the descriptor does not have (answered NOT_SUPPORTED), a control of the
# wrong params size (answered), a UVM command nvmediate does not know
# (refused with an errno), and a call on a node it does not mediate.
cat > "$T/bad.trace" <<EOF
# nvtrace 1 driver=580.142 date=2000-01-01T00:00:00Z
ctl esc=0x2a size=32 ret=0 cmd=0x201 flags=0x0 psize=128 status=0x0
ctl esc=0x2a size=32 ret=0 cmd=0xdead01 flags=0x0 psize=8 status=0x0
ctl esc=0x2a size=32 ret=0 cmd=0x201 flags=0x0 psize=12 status=0x0
uvm req=0x7fff0001 ret=0
nvidia-modeset req=0xc0106d00 ret=0
EOF
nvreplay "$T/bad.trace" > "$T/bad.txt" 2>&1
rc=$?
check gpu-replay-tells-refusals "exit $rc: $(grep -E 'line|calls=' "$T/bad.txt" | tr '\n' ';')" \
	sh -c "[ $rc -eq 1 ] && grep -q '^nvreplay: calls=4 forwarded=1 refused=3 unseen=0 skipped=1$' '$T/bad.txt' &&
		grep -q '^line 3 .*REFUSED by nvmediate (ctrl_answered) ret=0 status=0x56' '$T/bad.txt' &&
		grep -q '^line 5 uvm .*REFUSED by nvmediate (uvm_refused)' '$T/bad.txt'"

# --- each GPU host's fixture, at its own driver version ---
n=0
for f in "$FIXTURES"/*.trace; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f" .trace)
	ver=$(sed -n '1s/^# nvtrace 1 driver=\([0-9.]*\) .*/\1/p' "$f")
	if [ -z "$ver" ]; then
		fail "gpu-fixture-$name" "no driver version in its header: $(head -n 1 "$f")"
		continue
	fi
	if ! setup "$ver" > "$T/setup.txt" 2>&1; then
		fail "gpu-fixture-$name" "cannot set up the stand-in at $ver: $(tr '\n' ' ' < "$T/setup.txt")"
		continue
	fi
	nvreplay --quiet "$f" > "$T/fixture.txt" 2>&1
	rc=$?
	check "gpu-fixture-$name" "exit $rc at $ver: $(grep -E 'REFUSED|NOT SEEN|calls=|cannot' "$T/fixture.txt" | head -n 8 | tr '\n' ';')" \
		sh -c "[ $rc -eq 0 ] && grep -q '^nvreplay: calls=[0-9]* forwarded=[0-9]* refused=0 unseen=0 ' '$T/fixture.txt'"
done
[ $n -gt 0 ] || echo "96-gpu-tools: no GPU fixture in tests/gpu/fixtures (none recorded on a GPU host yet): nothing to replay"

nvm_end
