#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hardening, property 3: 1,000,000 random calls on every mediated node
# (nvfuzz.c: two processes, seeds printed; NVM_FUZZ_SEED and NVM_FUZZ_CALLS
# override), then every call the stand-in received is held against the ABI
# descriptor of its version (nvabicheck.c over the stand-in's record of
# received calls).  No kernel report may appear (the harness judges the
# whole log; this script also looks at the log of its own run), and the
# driver's state is back to zero once the fuzzers are gone.  On the debug
# kernel (KASAN, lockdep: a million calls take 330 s there) 50,000 calls: it
# is there for the sanitizers' reports on every path, which a smaller count
# still walks.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
calls=1000000
[ "$NVM_KERNEL" != debug ] || calls=50000
CALLS=${NVM_FUZZ_CALLS:-$calls}
SEED=${NVM_FUZZ_SEED:-$(( $(date +%s) % 1000000 * 2 + 1 ))}
RX=$NVM_STANDIN_DIR/received

fuzz_at() {	# fuzz_at VERSION CALLS: fuzz with the stand-in at VERSION, check
	v=$1
	n=$2
	unload_all
	if ! load_standin version="$v" num_gpus=2; then
		fail "hard-fuzz-$v" "cannot load the stand-in driver at $v"
		return
	fi
	if ! load_nvmediate > "$T/load.txt" 2>&1; then
		fail "hard-fuzz-$v" "nvmediate: $(tr '\n' ' ' < "$T/load.txt")"
		return
	fi
	wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm
	echo clear > "$RX"
	dmesg -c > /dev/null
	start=$(date +%s)
	half=$((n / 2))
	nvfuzz --calls $half --seed "$SEED" > "$T/f1.txt" 2>&1 &
	p1=$!
	nvfuzz --calls $((n - half)) --seed $((SEED + 1)) > "$T/f2.txt" 2>&1
	rc2=$?
	wait $p1
	rc1=$?
	took=$(( $(date +%s) - start ))
	cat "$RX" > "$T/rx.txt"
	done1=$(sed -n 's/^calls=\([0-9]*\).*/\1/p' "$T/f1.txt")
	done2=$(sed -n 's/^calls=\([0-9]*\).*/\1/p' "$T/f2.txt")
	total=$(( ${done1:-0} + ${done2:-0} ))
	echo "  $v, seeds $SEED $((SEED + 1)), $took s:"
	sed 's/^/    /' "$T/f1.txt" "$T/f2.txt"
	nvabicheck "$v" < "$T/rx.txt" > "$T/check.txt" 2>&1
	rc=$?
	sed 's/^/    /' "$T/check.txt" | tail -n 12
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail "hard-fuzz-run-$v" "nvfuzz: $(tail -n 2 "$T/f1.txt" "$T/f2.txt" | tr '\n' ' ')"
	else
		check "hard-fuzz-run-$v" "$total calls made, want $n (seeds $SEED $((SEED + 1)))" [ "$total" -ge "$n" ]
	fi
	check "hard-fuzz-received-$v" "the driver received calls the validator must refuse: $(grep -m 5 '^BAD\|^checked\|nvabicheck' "$T/check.txt" | tr '\n' ';')" [ $rc -eq 0 ]
	dmesg > "$T/dmesg.txt"
	reports=$(grep -E 'BUG:|WARNING:|KASAN|UBSAN|Call Trace|general protection|lockdep|circular locking' "$T/dmesg.txt" | head -n 3 | tr '\n' ';')
	check "hard-fuzz-kernel-clean-$v" "kernel log during the fuzz: $reports" [ -z "$reports" ]
	leaks=$(state_leaks)
	check "hard-fuzz-no-leak-$v" "stand-in state after the fuzz: $leaks" [ -z "$leaks" ]
}

fuzz_at 595.45.04 "$CALLS"
# An older layout (NVOS21 with paramsSize, 535's sizes), fewer calls.
fuzz_at 535.288.01 $((CALLS / 10))
nvm_end
