#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lifetimes: 10,000 open/close cycles on each mediated node (1,000 on debug
# kernels) leave nothing behind; nvmediate cannot be unloaded while a
# mediated file is open; it loads without nvidia, its nodes answer ENXIO
# until nvidia is loaded, and work afterwards.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
# Growth allowed over the cycles, in kB.  On debug kernels KASAN's quarantine
# keeps freed objects a while and every cycle costs some 8 ms under TCG:
# fewer cycles (NVM_CYCLES overrides), loose bounds, and kmemleak, which the
# harness runs after the tests, is the real check there.
if [ "$NVM_KERNEL" = debug ]; then
	CYCLES=${NVM_CYCLES:-1000}
	MEM_BOUND=65536
	SLAB_BOUND=65536
else
	CYCLES=${NVM_CYCLES:-10000}
	MEM_BOUND=4096
	SLAB_BOUND=2048
fi

if ! load_standin version=595.45.04 num_gpus=2; then
	fail lifecycle-setup "cannot load the stand-in driver (modprobe nvidia / nvidia-uvm)"
	nvm_end
fi
if ! load_nvmediate > "$T/load.txt" 2>&1; then
	fail lifecycle-setup "nvmediate is not available: $(tr '\n' ' ' < "$T/load.txt")"
	nvm_end
fi

# --- open/close cycles ---
# Pages on the per-CPU free lists are free, but MemFree and MemAvailable
# leave them out, and the allocator moves megabytes in and out of them as
# slab pages come and go: the available memory measured here counts them.
PAGE_KB=$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps 2>/dev/null)
[ -n "$PAGE_KB" ] || PAGE_KB=4	# no smaps (CONFIG_PROC_PAGE_MONITOR off): x86-64's
pcp_kb() {
	awk -v kb="$PAGE_KB" '$1 == "count:" { n += $2 } END { print n * kb }' /proc/zoneinfo
}
avail_kb() {
	echo $(($(meminfo_kb MemAvailable) + $(pcp_kb)))
}

cycles() {	# cycles NODE KIND: KIND is the stand-in's file= name
	node=$1
	kind=$2
	name=lifecycle-openclose-${node#/dev/}
	if ! wait_node "$node"; then
		fail "$name" "no $node"
		return
	fi
	# Warm up caches, then measure.
	openclose --path "$node" --count 200 > /dev/null
	calls_clear
	mem0=$(avail_kb)
	pcp0=$(pcp_kb)
	slab0=$(meminfo_kb Slab)
	out=$(openclose --path "$node" --count $CYCLES)
	rc=$?
	# Inodes, dentries and files are freed after an RCU grace period, and
	# the rest of the guest moves MemAvailable too: sample for up to 5 s
	# until both are within bounds.  A leak stays; a deferred free goes.
	tries=0
	while :; do
		memgrow=$((mem0 - $(avail_kb)))
		slabgrow=$(($(meminfo_kb Slab) - slab0))
		if [ $memgrow -le $MEM_BOUND ] && [ $slabgrow -le $SLAB_BOUND ]; then
			break
		fi
		tries=$((tries + 1))
		[ $tries -ge 10 ] && break
		sleep 0.5
	done
	calls_save "$T/cycles.calls"
	opens=$(grep -c "file=$kind op=open ret=0 ino=[0-9]* gen=[0-9]*\$" "$T/cycles.calls")
	releases=$(grep -c "file=$kind op=release\$" "$T/cycles.calls")
	leaks=$(state_leaks)
	if [ $rc -ne 0 ]; then
		fail "$name" "$out"
	elif [ "$opens $releases" != "$CYCLES $CYCLES" ]; then
		fail "$name" "the driver saw $opens opens, $releases releases for $CYCLES cycles"
	elif [ -n "$leaks" ]; then
		fail "$name" "stand-in state after the cycles: $leaks"
	elif [ $memgrow -gt $MEM_BOUND ] || [ $slabgrow -gt $SLAB_BOUND ]; then
		fail "$name" "available memory fell ${memgrow} kB (bound $MEM_BOUND; per-CPU free lists $(($(pcp_kb) - pcp0)) kB of it), Slab grew ${slabgrow} kB (bound $SLAB_BOUND)"
	else
		pass "$name"
		echo "  $node: $out; available memory fell $memgrow kB (per-CPU free lists $(($(pcp_kb) - pcp0)) kB), Slab grew $slabgrow kB (after $tries waits)"
	fi
}
cycles /dev/nvproxy ctl
cycles /dev/nvproxy0 gpu0
cycles /dev/nvproxy-uvm uvm

# --- one backing inode per node while a mediated file of it is open ---
# The driver sees every open of a node come through one inode, as it does
# for its own /dev node: nothing is made per open.  Once no file of the
# node is open, the next open gets a new one.
shared() {	# shared NODE KIND
	node=$1
	kind=$2
	name=lifecycle-shared-inode-${node#/dev/}
	calls_clear
	hold_open "$node"
	openclose --path "$node" --count 20 > /dev/null
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	openclose --path "$node" --count 1 > /dev/null
	calls_save "$T/shared.calls"
	# Inodes told apart by generation; their number is the same for every
	# inode of a node, so that /proc/PID/maps of a mapped backing file does
	# not tell whether someone else held the node open in between.
	inos=$(sed -n "s/.*file=$kind op=open ret=0 ino=\([0-9]*\) gen=\([0-9]*\)\$/\1:\2/p" \
		"$T/shared.calls")
	held=$(echo "$inos" | head -n 21 | sort -u | tr '\n' ' ')
	last=$(echo "$inos" | sed -n 22p)
	if [ "$(echo "$inos" | wc -l)" != 22 ]; then
		fail "$name" "the driver saw $(echo "$inos" | wc -l) opens, want 22"
	elif [ "$(echo $held | wc -w)" != 1 ]; then
		fail "$name" "21 opens while one file was held came through inodes $held"
	elif [ "$last" = "$held" ] || [ "$last " = "$held" ]; then
		fail "$name" "the open after every file was closed came through the same inode $last"
	elif [ "${last%:*}" != "${held%%:*}" ]; then
		fail "$name" "the new inode's number ${last%:*} differs from the first's ${held%%:*}"
	else
		pass "$name"
	fi
}
shared /dev/nvproxy ctl
shared /dev/nvproxy-uvm uvm

# --- rmmod while a mediated file is open ---
if ! hold_open /dev/nvproxy; then
	fail lifecycle-rmmod-busy "could not hold /dev/nvproxy open"
elif rmmod nvmediate 2> "$T/rmmod.err"; then
	fail lifecycle-rmmod-busy "rmmod nvmediate succeeded with /dev/nvproxy open"
else
	check lifecycle-rmmod-busy "nvmediate gone after a failed rmmod" is_loaded nvmediate
fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null
if rmmod nvmediate 2> "$T/rmmod.err"; then
	check lifecycle-rmmod-after-close "nvmediate still listed" sh -c '! grep -q "^nvmediate " /proc/modules'
else
	fail lifecycle-rmmod-after-close "rmmod nvmediate after close: $(cat "$T/rmmod.err")"
fi

# --- nvmediate without nvidia: ENXIO, then nvidia arrives ---
unload_all
if ! load_nvmediate > "$T/load.txt" 2>&1; then
	fail lifecycle-without-nvidia "modprobe nvmediate without nvidia: $(tr '\n' ' ' < "$T/load.txt")"
	nvm_end
fi
if is_loaded nvidia; then
	fail lifecycle-without-nvidia "loading nvmediate loaded nvidia too"
else
	out=$(openclose --path /dev/nvproxy --count 3 --expect ENXIO)
	rc=$?
	check lifecycle-without-nvidia "open of /dev/nvproxy without nvidia: $out (want ENXIO)" \
		[ $rc -eq 0 ]
fi
if load_standin version=595.45.04 num_gpus=2; then
	out=$(openclose --path /dev/nvproxy --count 3)
	rc=$?
	if [ $rc -ne 0 ]; then
		fail lifecycle-nvidia-arrives "open after modprobe nvidia: $out"
	else
		wait_node /dev/nvproxy0
		wait_node /dev/nvproxy-uvm
		if nvsession --mediated --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm \
				> "$T/late.txt" 2>&1; then
			pass lifecycle-nvidia-arrives
		else
			fail lifecycle-nvidia-arrives "session after modprobe nvidia: $(failures "$T/late.txt")"
		fi
	fi
else
	fail lifecycle-nvidia-arrives "modprobe nvidia after nvmediate failed"
fi
leaks=$(state_leaks)
check lifecycle-no-leak "stand-in state at the end: $leaks" [ -z "$leaks" ]

nvm_end
