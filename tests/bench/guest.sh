#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /bench.sh of the guest (make bench): load the stand-in nvidia driver with
# its call log off and nvmediate, run nvbench, print its lines on the
# console for tests/bench/run.sh.  Run by /init with nvm_mode=bench.
#
# Then, unless nvm_bench_trace=0, where the time of a mediated call goes:
# a few thousand calls of some operations again under the function_graph
# tracer, limited to nvmediate's functions and a few others, averaged per
# function (the tracer's own cost inflates every figure; compare shares);
# and the small control's thread scaling from 1, 2 and 8 threads alike.
#
# Then the bounce's own share of a bounced call: the per-call operations
# and the thread scaling (3 runs of 500 ms) again through this nvmediate
# with the payload bounce off (bounce=0: the driver reads the caller's
# memory, as before the bounce) and on, in turns: off, on, on, off.
#
# Then, when the initramfs has an earlier nvmediate (/bench/nvmediate-base.ko,
# tests/bench/run.sh's NVM_BENCH_BASE), the per-call operations, the
# memory per open file and the thread scaling (3 runs of 500 ms) again
# with that module and with this one, in turns:
# two rounds (or nvm_bench_cmp_rounds), each loading the module afresh,
# the order swapped in every second one (base, this, this, base, ...).
#
# Kernel command line: nvm_bench=ARGS passes ARGS to nvbench, commas for
# spaces (e.g. nvm_bench=--iters,4000); nvm_bench_trace=0 skips the trace,
# nvm_bench_split=0 the bounce split;
# nvm_bench_cmp_iters=N sets the calls of the comparison and of the bounce
# split (default 20000); nvm_bench_cmp_rounds=N the comparison's rounds
# (default 2).

args=
trace=1
split=1
cmp_iters=20000
cmp_rounds=2
for arg in $(cat /proc/cmdline); do
	case $arg in
	nvm_bench=*) args=$(echo "${arg#*=}" | tr ',' ' ') ;;
	nvm_bench_trace=*) trace=${arg#*=} ;;
	nvm_bench_split=*) split=${arg#*=} ;;
	nvm_bench_cmp_iters=*) cmp_iters=${arg#*=} ;;
	nvm_bench_cmp_rounds=*) cmp_rounds=${arg#*=} ;;
	esac
done

# The functions traced: the steps of a mediated call (nvmediate), the
# driver's entry points (the stand-in), and the kernel's steps of the
# bounce: the page's insertion (with x86's PAT lookup), the write fault and
# its pfn_mkwrite, the unmap and its TLB flush (zap_vma_ptes, renamed
# zap_special_vma_range in 7.2).  Each traced call adds the tracer's own
# cost to it and to every traced caller; vmf_insert_pfn, which only calls
# vmf_insert_pfn_prot, shows that cost per level.  Names a kernel lacks
# are skipped.
TRACED="nvm_ioctl nvm_validate nvm_check_readable nvm_bounce_get nvm_bounce_put nvm_fdplan_build nvm_fdctx_create
	nvm_fdctx_enter nvm_fdctx_leave nvm_fdctx_destroy nvm_drv_ioctl nvm_open nvm_drv_open
	nvm_abi_select nvm_release nvm_drv_release nvm_mmap nvs_ioctl nvs_uvm_ioctl nvs_open
	nvs_release nvm_handoff nvm_bounce_written vmalloc_to_pfn vmf_insert_pfn vmf_insert_pfn_prot
	track_pfn_insert lookup_memtype handle_mm_fault nvm_bounce_pfn_mkwrite zap_vma_ptes
	zap_special_vma_range zap_page_range_single flush_tlb_mm_range find_vma apply_to_page_range
	nvm_stats_ioctl native_flush_tlb_multi"

# trace_op OP ITERS: NVMBENCH trace lines, one per traced function called at
# least ITERS/8 times, with its count and median inclusive time.
trace_op() {
	trace_cmd "$1" $(($2 / 8)) /bin/nvbench --only "$1" --iters "$2"
}

# trace_cmd NAME MIN COMMAND...: trace lines "op=NAME" of the traced
# functions that COMMAND (an nvbench run) called at least MIN times, with
# the median and the mean of their inclusive times.
trace_cmd() {
	name=$1
	min=$2
	shift 2
	t=/sys/kernel/tracing
	echo 0 > $t/tracing_on
	echo nop > $t/current_tracer
	echo 16384 > $t/buffer_size_kb
	: > $t/set_ftrace_filter
	for f in $TRACED; do
		echo "$f" >> $t/set_ftrace_filter 2>/dev/null
	done
	echo function_graph > $t/current_tracer
	echo funcgraph-tail > $t/trace_options
	echo > $t/trace
	echo 1 > $t/tracing_on
	/bin/norawio "$@" > /tmp/trace-run.txt 2>&1
	echo 0 > $t/tracing_on
	grep -q '^NVMBENCH end fails=0$' /tmp/trace-run.txt ||
		echo "NVMBENCH fail what=trace-$name $(grep -m 3 fail /tmp/trace-run.txt | tr '\n' ' ')"
	# One "function duration_ns" line per traced call, then per function
	# (in order of first appearance) its count, median and mean.
	awk '
	/ us / {
		d = $0; sub(/ us .*/, "", d); sub(/.*[ !+#*@$]/, "", d)
		name = ""
		# "} /* fn [mod] */" closes a call, "fn [mod]();" is a leaf.
		if (match($0, /\/\* [A-Za-z0-9_.]+( \[[A-Za-z0-9_]+\])? \*\//))
			name = substr($0, RSTART + 3, RLENGTH - 6)
		else if (match($0, /[A-Za-z0-9_.]+( \[[A-Za-z0-9_]+\])?\(\);/))
			name = substr($0, RSTART, RLENGTH - 3)
		sub(/ \[.*/, "", name)
		if (name != "")
			printf "%s %d\n", name, d * 1000
	}' $t/trace > /tmp/trace-calls.txt
	for f in $(awk '!seen[$1]++ { print $1 }' /tmp/trace-calls.txt); do
		grep "^$f " /tmp/trace-calls.txt | sort -n -k 2 > /tmp/trace-fn.txt
		n=$(wc -l < /tmp/trace-fn.txt)
		[ "$n" -ge "$min" ] || continue
		med=$(sed -n "$((n / 2 + 1))s/.* //p" /tmp/trace-fn.txt)
		mean=$(awk '{ s += $2 } END { printf "%d", s / NR }' /tmp/trace-fn.txt)
		echo "NVMBENCH trace op=$name fn=$f calls=$n median_ns=$med mean_ns=$mean"
	done
	echo nop > $t/current_tracer
	echo > $t/set_ftrace_filter
}

wait_node() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

echo "NVMBENCH begin kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
# The clock every call is timed with, at the start and at the end: the
# kernel may change it on its own (tests/bench/run.sh reports both).
clocksource() {
	echo "NVMBENCH clocksource at=$1 name=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
}
clocksource begin
if ! modprobe nvidia version=595.45.04 num_gpus=1 log_calls=0 ||
	! modprobe nvidia-uvm || ! modprobe nvmediate; then
	echo "NVMBENCH fail what=modprobe"
	echo "NVMBENCH end fails=1"
	exit 1
fi
for n in /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm /dev/nvproxy /dev/nvproxy0 /dev/nvproxy-uvm; do
	wait_node "$n" || echo "NVMBENCH fail what=node-$n"
done
echo "NVMBENCH module coresize=$(cat /sys/module/nvmediate/coresize)" \
	"initsize=$(cat /sys/module/nvmediate/initsize)"
echo "NVMBENCH standin $(grep -E '^(log_lines|log_dropped)=' /sys/kernel/debug/nvidia-standin/state | tr '\n' ' ')"
start=$(date +%s)
# shellcheck disable=SC2086 # word splitting of the arguments is intended
# Without CAP_SYS_RAWIO, as a container: the payload bounce in force.
/bin/norawio /bin/nvbench $args
rc=$?
echo "NVMBENCH took secs=$(( $(date +%s) - start )) status=$rc"
if [ "$trace" != 0 ]; then
	if [ -w /sys/kernel/tracing/current_tracer ] &&
		grep -qw function_graph /sys/kernel/tracing/available_tracers; then
		trace_op ctrl-small 2000
		trace_op ctrl-4k 2000
		trace_op uvm 2000
		trace_op register-fd 4000
		trace_op open-close 2000
		trace_op mmap-munmap 2000
		# The small control from 1 thread, from 2 at once and from 8
		# (each its own file and client; 8 share the 2 CPUs): what gets
		# dearer when threads share.
		for n in 1 2 8; do
			trace_cmd "scale-$n" 20 /bin/nvbench --only scale --threads $n \
				--scale-side mediated --reps 1 --scale-ms 200
		done
	else
		echo "NVMBENCH trace unavailable (no function_graph tracer)"
	fi
fi
# split_run BOUNCE ROUND: the per-call operations with bounce=BOUNCE, lines
# tagged "NVMBENCH cmp variant=bounceBOUNCE round=".
split_run() {
	echo "$1" > /sys/module/nvmediate/parameters/bounce ||
		{ echo "NVMBENCH fail what=bounce-$1"; return 1; }
	/bin/norawio /bin/nvbench --only calls --iters "$cmp_iters" |
		sed -n -e "s/^NVMBENCH op=/NVMBENCH cmp variant=bounce$1 round=$2 op=/p" \
			-e "s/^NVMBENCH fail /NVMBENCH fail variant=bounce$1 /p"
	/bin/norawio /bin/nvbench --only scale --reps 3 --scale-ms 500 |
		sed -n -e "s/^NVMBENCH scale /NVMBENCH cmpscale variant=bounce$1 round=$2 /p" \
			-e "s/^NVMBENCH fail /NVMBENCH fail variant=bounce$1 /p"
}
if [ "$split" != 0 ]; then
	echo "NVMBENCH splitinfo iters=$cmp_iters"
	split_run 0 1 && split_run 1 1 && split_run 1 2 && split_run 0 2
	echo 1 > /sys/module/nvmediate/parameters/bounce
fi
# compare_run VARIANT ROUND: load that nvmediate, the per-call operations
# through it, lines tagged "NVMBENCH cmp variant= round=".
compare_run() {
	rmmod nvmediate 2>/dev/null
	if [ "$1" = base ]; then
		insmod /bench/nvmediate-base.ko
	else
		modprobe nvmediate
	fi || { echo "NVMBENCH fail what=load-$1"; return 1; }
	for n in /dev/nvproxy /dev/nvproxy0 /dev/nvproxy-uvm; do
		wait_node "$n" || { echo "NVMBENCH fail what=node-$1-$n"; return 1; }
	done
	/bin/norawio /bin/nvbench --only calls --iters "$cmp_iters" |
		sed -n -e "s/^NVMBENCH op=/NVMBENCH cmp variant=$1 round=$2 op=/p" \
			-e "s/^NVMBENCH fail /NVMBENCH fail variant=$1 /p"
	/bin/norawio /bin/nvbench --only mem |
		sed -n -e "s/^NVMBENCH mem /NVMBENCH cmpmem variant=$1 round=$2 /p" \
			-e "s/^NVMBENCH fail /NVMBENCH fail variant=$1 /p"
	/bin/norawio /bin/nvbench --only scale --reps 3 --scale-ms 500 |
		sed -n -e "s/^NVMBENCH scale /NVMBENCH cmpscale variant=$1 round=$2 /p" \
			-e "s/^NVMBENCH fail /NVMBENCH fail variant=$1 /p"
}
if [ -f /bench/nvmediate-base.ko ]; then
	echo "NVMBENCH cmpinfo base=$(cat /bench/base) iters=$cmp_iters rounds=$cmp_rounds"
	r=1
	while [ "$r" -le "$cmp_rounds" ]; do
		if [ $((r % 2)) = 1 ]; then
			compare_run base "$r" && compare_run current "$r"
		else
			compare_run current "$r" && compare_run base "$r"
		fi || break
		r=$((r + 1))
	done
	rmmod nvmediate 2>/dev/null
	modprobe nvmediate
fi
clocksource end
echo "NVMBENCH standin-after $(grep -E '^(log_lines|log_dropped|open_files|clients)=' /sys/kernel/debug/nvidia-standin/state | tr '\n' ' ')"
