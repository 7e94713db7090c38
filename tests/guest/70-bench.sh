#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark program (make bench) still works: a quick run of nvbench
# through the real and the mediated nodes completes with every call
# succeeding, prints every row, and its calls reach the driver.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
if ! load_standin version=595.45.04 num_gpus=1; then
	fail bench-setup "cannot load the stand-in driver (modprobe nvidia / nvidia-uvm)"
	nvm_end
fi
if ! load_nvmediate > "$T/load.txt" 2>&1; then
	fail bench-setup "nvmediate is not available: $(tr '\n' ' ' < "$T/load.txt")"
	nvm_end
fi

nvbench --quick > "$T/out.txt" 2>&1
rc=$?
check bench-quick-runs "nvbench --quick exited $rc: $(grep -m 5 'fail' "$T/out.txt" | tr '\n' ';')" \
	sh -c "[ $rc -eq 0 ] && grep -q '^NVMBENCH end fails=0$' '$T/out.txt'"

# The clock's own cost is timed (any figure: it may be 0 ns in jiffies).
# Every operation on both sides, each call timed and none failed
# (--quick: 200 iterations for weight 4; weights in nvbench.c).  Times must
# be non-zero unless the kernel counts time in jiffies (the debug kernel
# under TCG has no usable TSC or HPET), where a call takes 0 ns.
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
case $cs in
*jiffies*) ns='[0-9]+' ;;
*) ns='[1-9][0-9]*' ;;
esac
missing=
grep -Eq "^NVMBENCH op=clock side=direct n=200 median_ns=[0-9]+ .* fails=0$" "$T/out.txt" ||
	missing="$missing clock"
for row in getppid:200 write-fault:200 kzero:200 kwrite-fault:200 ctrl-small:200 ctrl-4k:200 alloc-free:100 register-fd:50 uvm:200 \
	open-close:100 mmap-munmap:100; do
	op=${row%%:*}
	n=${row#*:}
	for side in direct mediated; do
		grep -Eq "^NVMBENCH op=$op side=$side n=$n median_ns=$ns p99_ns=$ns .* fails=0$" \
			"$T/out.txt" ||
			missing="$missing $op/$side ($(grep -m 1 "^NVMBENCH op=$op side=$side " "$T/out.txt" | cut -d' ' -f4-6))"
	done
done
for t in 1 2 4 8; do
	for side in direct mediated getppid; do
		grep -Eq "^NVMBENCH scale side=$side threads=$t .* rate=[1-9][0-9]* .* fails=0$" \
			"$T/out.txt" || missing="$missing scale-$t/$side"
	done
done
for side in direct mediated; do
	grep -Eq "^NVMBENCH mem side=$side files=300 .* fails=0$" "$T/out.txt" ||
		missing="$missing mem/$side"
done
check bench-quick-rows "rows missing or failed (clocksource $cs):$missing" [ -z "$missing" ]

# The floor's operation, and the same fault from kernel mode, take one
# minor write fault per call on both sides
# (counted by the thread's own rusage): 200 in 200 calls, or a few more
# (a stray fault), never two a call.
# Its base, the same read into a writable page, takes none.
faults=
bad_faults=
for row in write-fault:200:210 kwrite-fault:200:210 kzero:0:10; do
	op=${row%%:*}
	lo=${row#*:}
	hi=${lo#*:}
	lo=${lo%:*}
	for side in direct mediated; do
		f=$(sed -n "s/^NVMBENCH op=$op side=$side n=200 .* minflt=\([0-9]*\) .*/\1/p" "$T/out.txt")
		faults="$faults $op/$side=${f:-none}"
		[ -n "$f" ] && [ "$f" -ge "$lo" ] && [ "$f" -le "$hi" ] || bad_faults=1
	done
done
check bench-quick-fault-floor "minor faults for 200 calls:$faults" \
	[ -z "$bad_faults" ]

# The driver answered exactly the 4 KB controls nvbench made (3812-byte
# params read), on both sides: 2 x (50 warm-up + 200 timed).
calls_clear
nvbench --quick --only ctrl-4k > "$T/only.txt" 2>&1
rc=$?
calls_save "$T/calls"
n4k=$(grep -c 'op=ioctl nr=0x2a size=32 ret=0 status=0x0 .* cmd=0x2080018d psize=3812 psum=' "$T/calls")
check bench-quick-reached-driver "nvbench --only ctrl-4k exited $rc; the driver saw $n4k successful GET_PIDS controls, want 500" \
	[ "$rc $n4k" = "0 500" ]
leaks=$(state_leaks)
check bench-quick-no-leak "state after nvbench: $leaks" [ -z "$leaks" ]

nvm_end
