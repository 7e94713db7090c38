#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /bench.sh of the guest (make bench): load the stand-in nvidia driver with
# its call log off and nvmediate, run nvbench, print its lines on the
# console for tests/bench/run.sh.  Run by /init with nvm_mode=bench.
#
# Kernel command line: nvm_bench=ARGS passes ARGS to nvbench, commas for
# spaces (e.g. nvm_bench=--iters,4000).

args=
for arg in $(cat /proc/cmdline); do
	case $arg in
	nvm_bench=*) args=$(echo "${arg#*=}" | tr ',' ' ') ;;
	esac
done

wait_node() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

echo "NVMBENCH begin kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
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
/bin/nvbench $args
rc=$?
echo "NVMBENCH took secs=$(( $(date +%s) - start )) status=$rc"
echo "NVMBENCH standin-after $(grep -E '^(log_lines|log_dropped|open_files|clients)=' /sys/kernel/debug/nvidia-standin/state | tr '\n' ' ')"
