#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvm-guest: not-on-debug
# A driver that oopses inside an fd-carrying call (docs/security.md, "No
# raw driver file reaches the container"): the calling thread dies there,
# with nvmediate's private fd table installed and exec_update_lock held
# for writing.  nvmediate's exit hook (on the sched_process_exit
# tracepoint, which the dying thread's do_exit() passes before exit_files())
# must put the thread's own table back and release the lock, so that another process's open of the caller's
# /proc/PID/maps (which takes it) returns at once instead of waiting until
# the whole process is killed, and must close the private table's files.
#
# Last of the guest tests, and not on the debug kernel: after an oops the
# kernel leaks what the dead call held (the syscall's own reference to the
# mediated file, the driver's and nvmediate's per-call memory, which
# kmemleak would report), lockdep is off, and nvmediate cannot be unloaded
# any more (/init does not try).  The oops is announced in the kernel log
# (nvm-expect-oops begin/end), and verdict.sh does not count an Oops, BUG
# or Call Trace between the two; KASAN, UBSAN and the rest still count.
. "$(dirname "$0")/lib.sh"
nvm_begin

P=/sys/module/nvidia/parameters
if ! load_standin version=595.45.04 num_gpus=1 || ! load_nvmediate num_gpus=1 ||
	! wait_node /dev/nvproxy; then
	fail oops-setup "cannot load the stand-in and nvmediate"
	nvm_end
fi

open0=$(state_get open_files)
echo 0 > /proc/sys/kernel/panic_on_oops
: > /tmp/nvm-expected-oops
echo "<2>nvm-expect-oops begin" > /dev/kmsg
echo 1 > $P/oops_register_fd
out=$(bouncev2 oops /dev/nvproxy 2>&1)
echo 0 > $P/oops_register_fd
sleep 1
echo "<2>nvm-expect-oops end" > /dev/kmsg
echo "  driver oopsed inside an fd-carrying call: $out"
open1=$(state_get open_files)

check oops-thread-died "the calling thread did not die in the driver: $out" \
	sh -c "echo '$out' | grep -q 'thread_gone=1 call_returned=0 '"
check oops-oopsed "no BUG from the stand-in in the kernel log" \
	sh -c "dmesg | grep -q 'kernel BUG at .*nvs_rm.c'"
check oops-cleaned-up "nvmediate did not clean up after the dead thread: $(dmesg | grep nvmediate | tail -n 3)" \
	sh -c "dmesg | grep -q 'nvmediate: a thread died inside the driver with a private fd table: cleaning up'"
# exec_update_lock released: the open returned, and fast.
ms=$(echo "$out" | sed -n 's/.* maps_ms=\(-*[0-9]*\).*/\1/p')
check oops-lock-released "another process's open of /proc/PID/maps: ${ms:-?} ms (-1: never returned in 3 s)" \
	sh -c "[ '${ms:--1}' -ge 0 ] && [ '${ms:--1}' -lt 1000 ]"
# The files: before the call the process held two (CTL and the second
# control file); the dead call's own file stays (the kernel leaks the
# syscall's reference with the oops), the private table's is closed.
check oops-private-files-closed "driver files open: $open0 before, $open1 after the process ended (want one left: the file of the dead call itself)" \
	[ "$open1" = $((open0 + 1)) ]

# The same from a process's only thread: with its own table put back,
# exit_files() closes the process's files as at any exit (the kernel took
# no extra reference on the file of the call either), and every driver file
# is closed again.
echo "<2>nvm-expect-oops begin" > /dev/kmsg
echo 1 > $P/oops_register_fd
bouncev2 oops1 /dev/nvproxy > /dev/null 2>&1
echo 0 > $P/oops_register_fd
sleep 1
echo "<2>nvm-expect-oops end" > /dev/kmsg
open2=$(state_get open_files)
check oops-single-thread-files-closed "driver files open: $open1 before, $open2 after (want $open1: all of the process's closed): $(dmesg | grep nvmediate | tail -n 2)" \
	sh -c "[ '$open2' = '$open1' ] &&
		[ \$(dmesg | grep -c 'nvmediate: a thread died inside the driver with a private fd table: cleaning up') = 2 ]"

nvm_end
