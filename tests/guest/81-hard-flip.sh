#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hardening, property 2: what was checked is what the driver uses.  For each
# payload field the validator checks, flipper threads rewrite it in a tight
# loop between an allowed and a refused value while the main thread issues
# the allowed call (nvflip.c); the stand-in counts every received call that
# carries the refused value (debugfs watch).  Any count above zero is a
# refused call that reached the driver.  Then the same with the stand-in's
# race_delay_us widening the window, which must not matter either.
#
# Expected to fail until nvmediate bounces payloads (docs/security.md): the
# driver reads the caller's memory again after the check.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
W=$NVM_STANDIN_DIR/watch
if [ "$NVM_KERNEL" = debug ]; then
	CALLS=${NVM_FLIP_CALLS:-1500}
else
	CALLS=${NVM_FLIP_CALLS:-5000}
fi
MIN_FLIPS=1000000

if ! load_standin version=595.45.04 num_gpus=2; then
	fail hard-flip-setup "cannot load the stand-in driver"
	nvm_end
fi
if ! load_nvmediate > "$T/load.txt" 2>&1; then
	fail hard-flip-setup "nvmediate: $(tr '\n' ' ' < "$T/load.txt")"
	nvm_end
fi
wait_node /dev/nvproxy-uvm

watch_set() {	# watch_set PATTERN...
	echo clear > "$W"
	for p in "$@"; do
		echo "$p" > "$W" || return 1
	done
}

watch_hits() {
	sed -n 's/.* hits=\([0-9]*\)$/\1/p' "$W" | awk '{ n += $1 } END { print n + 0 }'
}

# The watch itself: the refused values sent straight to the driver count.
watch_set 'ctrl 0x20101 * *' 'class 0x78 * *' 'xfer 0x1 * *'
nvraw /dev/nvidiactl 0x2a 32 8=0x20101 > /dev/null
nvraw /dev/nvidiactl 0x2b 48 12=0x78 16=buf:24 > /dev/null
nvraw --xfer /dev/nvidiactl 0x01 4 > /dev/null
n=$(watch_hits)
check hard-flip-watch "three refused values sent to /dev/nvidiactl counted $n hits, want 3" [ "$n" = 3 ]

TOTAL_FLIPS=0
TOTAL_THROUGH=0
SUMMARY=
# flip FIELD PATTERN...: one field; PASS iff the driver never received a
# value the patterns name
flip() {
	field=$1
	shift
	if ! watch_set "$@"; then
		fail "hard-flip-$field" "cannot set the watch $*"
		return
	fi
	# A run in which no flip landed tested nothing (the host did not run
	# the guest's two vCPUs at once): up to three more tries, counted.
	try=0
	while :; do
		out=$(nvflip --field "$field" --calls "$CALLS" 2>&1)
		hits=$(watch_hits)
		try=$((try + 1))
		[ "$try" -lt 4 ] && [ "${field#uvm-}" = "$field" ] && [ "$hits" = 0 ] &&
			echo "$out" | grep -q ' refused=0 ' || break
		echo "  $field${RACE:+ race_delay_us=$RACE}: no flip landed ($out), again"
	done
	flips=$(echo "$out" | sed -n 's/.* flips=\([0-9]*\).*/\1/p')
	[ -n "$flips" ] || flips=0
	TOTAL_FLIPS=$((TOTAL_FLIPS + flips))
	TOTAL_THROUGH=$((TOTAL_THROUGH + hits))
	SUMMARY="$SUMMARY $field${RACE:+(delay)}=$hits"
	echo "  $field${RACE:+ race_delay_us=$RACE}: $out through=$hits"
	refused=$(echo "$out" | sed -n 's/.* refused=\([0-9]*\).*/\1/p')
	if ! echo "$out" | grep -q '^field='; then
		fail "hard-flip-$field$RACE_SUFFIX" "nvflip: $out"
	elif [ "${field#uvm-}" = "$field" ] && [ "$hits" = 0 ] && [ "${refused:-0}" = 0 ]; then
		# Neither the validator nor the driver ever saw the refused
		# value: the flipper never ran while a call did, nothing was
		# tested (one CPU, or a scheduler that never interleaves them).
		# The debug guest kernel (no preemption, under TCG) has not been
		# seen to interleave them; the stock kernel's run is the evidence.
		if [ "$NVM_KERNEL" = debug ]; then
			echo "  note: $field$RACE_SUFFIX inconclusive on this kernel: no flip landed in any of $CALLS calls"
			pass "hard-flip-$field$RACE_SUFFIX"
		else
			fail "hard-flip-$field$RACE_SUFFIX" "inconclusive: no flip landed in any of $CALLS calls ($out)"
		fi
	elif [ "$hits" != 0 ]; then
		fail "hard-flip-$field$RACE_SUFFIX" "$hits of $CALLS calls reached the driver with the refused value ($out)"
	else
		pass "hard-flip-$field$RACE_SUFFIX"
	fi
}

run_all() {
	flip ctrl-cmd 'ctrl 0x20101 * *'
	flip ctrl-psize 'ctrl 0x201 0x40 *'
	flip ctrl-flags 'ctrl * * 0x1'
	flip class-nvos64 'class 0x78 * *'
	flip class-nvos21 'class 0x78 * *'
	flip xfer-cmd 'xfer 0x1 * *'
	flip xfer-size 'xfer 0x2a 0x18 *'
	flip xfer-inner-cmd 'ctrl 0x20101 * *'
	# fd fields: the driver must never resolve a file that is not a
	# backing file, whatever number it reads
	flip uvm-mm-fd 'fd 0x4 * *'
}

RACE=
RACE_SUFFIX=
run_all
# The same with the driver's reads delayed: a bounce makes the delay moot.
RACE=200
RACE_SUFFIX=-delayed
echo $RACE > /sys/module/nvidia/parameters/race_delay_us
CALLS=$((CALLS / 4))
run_all
echo 0 > /sys/module/nvidia/parameters/race_delay_us
echo clear > "$W"

echo "  flips $TOTAL_FLIPS, refused values received by the driver $TOTAL_THROUGH:$SUMMARY"
check hard-flip-count "$TOTAL_FLIPS flips, want at least $MIN_FLIPS" [ "$TOTAL_FLIPS" -ge $MIN_FLIPS ]
leaks=$(state_leaks)
check hard-flip-no-leak "stand-in state after the run: $leaks" [ -z "$leaks" ]
nvm_end
