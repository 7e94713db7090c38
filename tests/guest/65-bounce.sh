#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvm-guest: keep-rawio
# The payload bounce (kmod/bounce.c, docs/security.md): run as a container
# runs (norawio), a process gets its area (sealed where the kernel can seal,
# else below vm.mmap_min_addr) and can neither write, move, split, poke nor
# replace it, and every call still works.  Below vm.mmap_min_addr: where the
# area cannot be protected (vm.mmap_min_addr lowered) calls are forwarded
# with one warning (bounce=1) or refused (bounce=2), and a caller with
# CAP_SYS_RAWIO is served without an area (refused with bounce=2); a sealed
# area does not depend on vm.mmap_min_addr, and every caller gets one,
# CAP_SYS_RAWIO or not.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
CTL=/dev/nvproxy

if ! load_standin version=595.45.04 num_gpus=1 || ! load_nvmediate num_gpus=1; then
	fail bounce-setup "cannot load the stand-in and nvmediate"
	nvm_end
fi
min=$(cat /proc/sys/vm/mmap_min_addr)
check bounce-mmap-min-addr "vm.mmap_min_addr is $min, want at least 65536" [ "$min" -ge 65536 ]
placement=$(bounce_placement)
echo "  bounce area placement on $(uname -r): $placement"

# bouncecheck_run NAME ARGS...: run bouncecheck as a container would, its
# checks as this test's, and fail NAME unless it ran them all, none failed.
bouncecheck_run() {
	name=$1
	shift
	norawio bouncecheck "$@" > "$T/$name.txt" 2>&1
	rc=$?
	sed -n 's/^ok \(.*\)/NVMTEST PASS bounce-\1/p; s/^FAIL \([^:]*\): \(.*\)/NVMTEST FAIL bounce-\1: \2/p' "$T/$name.txt"
	grep '^unmap-race:' "$T/$name.txt"
	grep -q '^bouncecheck: [0-9]* ok, 0 failed' "$T/$name.txt" && [ $rc -eq 0 ] ||
		fail "bounce-$name" "bouncecheck $1 exited $rc: $(tail -n 2 "$T/$name.txt" | tr '\n' ';')"
}

dmesg -c > /dev/null
bouncecheck_run check "$placement" $CTL 16 300
check bounce-no-warning "nvmediate warned: $(dmesg | grep nvmediate | head -n 2)" \
	sh -c '! dmesg | grep -q "no payload bounce"'

# The whole CUDA-like session through the bounce.
norawio nvsession --mediated --ctl $CTL --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm > "$T/s.txt" 2>&1
check bounce-session "session: $(failures "$T/s.txt")" [ $? -eq 0 ]

# A caller that may map low memory (host root, which could open the
# driver's nodes anyway) is served without an area below 64 KiB, and
# nothing is logged; with a sealed area, through it.
got=$(nvraw $CTL 0x2b 32 12=0 st=28 2>&1)
check bounce-privileged-call "privileged RM_ALLOC: '$got', want ret=0 status=0x0" \
	[ "$got" = "ret=0 status=0x0" ]
check bounce-privileged-silent "nvmediate warned for a privileged caller" \
	sh -c '! dmesg | grep -q "no payload bounce"'

# vm.mmap_min_addr lowered: an area below it cannot be protected; a sealed
# one can, and every call, a privileged caller's too, goes through it.
echo 4096 > /proc/sys/vm/mmap_min_addr
calls_clear
got=$(norawio nvraw $CTL 0x2b 32 12=0 st=28 2>&1)
check bounce-unprotected-forwarded "bounce=1, mmap_min_addr 4096: '$got', want ret=0 status=0x0" \
	[ "$got" = "ret=0 status=0x0" ]
if [ "$placement" = low ]; then
	check bounce-unprotected-warned "no warning with the remedy in the log" \
		sh -c 'dmesg | grep -q "no payload bounce possible.*Remedy: sysctl vm.mmap_min_addr=65536"'
else
	check bounce-sealed-no-warning "nvmediate warned with a sealed area: $(dmesg | grep nvmediate | head -n 2)" \
		sh -c '! dmesg | grep -q "no payload bounce"'
fi
echo 2 > /sys/module/nvmediate/parameters/bounce
calls_clear
got=$(norawio nvraw $CTL 0x2b 32 12=0 st=28 2>&1)
if [ "$placement" = low ]; then
	check bounce-required-refused "bounce=2, mmap_min_addr 4096: '$got', want ret=-EPERM" \
		[ "$got" = "ret=-EPERM status=0x0" ]
	check bounce-required-not-forwarded "the driver received the refused call" \
		[ "$(grep -c ' op=ioctl ' "$NVM_STANDIN_DIR/calls")" -eq 0 ]
	got=$(nvraw $CTL 0x2b 32 12=0 st=28 2>&1)
	check bounce-required-privileged-refused "bounce=2, CAP_SYS_RAWIO, below 64 KiB: '$got', want ret=-EPERM" \
		[ "$got" = "ret=-EPERM status=0x0" ]
else
	check bounce-sealed-required-served "bounce=2, mmap_min_addr 4096, sealed area: '$got', want ret=0 status=0x0" \
		[ "$got" = "ret=0 status=0x0" ]
	# A caller with CAP_SYS_RAWIO gets a sealed area too: bounce=2 does
	# not refuse it.
	got=$(nvraw $CTL 0x2b 32 12=0 st=28 2>&1)
	check bounce-sealed-privileged-served "bounce=2, CAP_SYS_RAWIO, sealed area: '$got', want ret=0 status=0x0" \
		[ "$got" = "ret=0 status=0x0" ]
fi
echo 1 > /sys/module/nvmediate/parameters/bounce
echo "$min" > /proc/sys/vm/mmap_min_addr

# Below 64 KiB the process may unmap its area while its calls use it: 24
# threads, more than the area has pages, call while it is unmapped 40
# times, each unmap (with 4 MiB of populated memory) spending long between
# removing the area and closing it.  Every call returns, answered or
# refused; a call woken or making a new area in between is refused and
# logged with why, and the kernel reports nothing (checked after every
# test).  Before the fix, a woken call oopsed inserting into no VMA.
if [ "$placement" = low ]; then
	dmesg -c > /dev/null
	# The driver sleeps before it reads each payload, so that calls
	# hold every page and others wait for one.
	echo 300 > /sys/module/nvidia/parameters/race_delay_us
	bouncecheck_run race race $CTL
	echo 0 > /sys/module/nvidia/parameters/race_delay_us
	dmesg | grep nvmediate | grep -v 'call refused: no payload bounce area: \(the area was unmapped\|an older area of this process was unmapped while calls still used it\)' > "$T/race-log.txt"
	check bounce-race-log "nvmediate logged: $(head -n 2 "$T/race-log.txt")" [ ! -s "$T/race-log.txt" ]
fi

# Below 64 KiB, a call's pages are unmapped as soon as the driver returns,
# before nvmediate copies the answer to the caller's payload: a payload on
# a page whose write stalls (a write-protecting userfaultfd, as a FUSE page
# would) no longer holds the driver's written page at 0x1000 writable for
# the process.  Before, during a 2 s stall the process wrote there.
if [ "$placement" = low ]; then
	out=$(norawio bouncev2 lowstall $CTL 2000 2>&1)
	echo "  $out"
	check bounce-stall-stalled "the answer's copy did not stall: $out" \
		sh -c "echo '$out' | grep -q '^lowstall: stalled=1 .* call_ret=0 status=0x0$'"
	check bounce-stall-low-not-writable "pages of 0x1000-0x10000 written during the stall: $out" \
		sh -c "echo '$out' | grep -q ' writes=0 pages=0 '"
fi

# A payload that names the area's first page itself: read there while
# another thread's call holds the page, written back there after the
# call, which may have had that very page.  The page must not come back
# writable once the calls have returned: a later call's payload there
# could then be rewritten while the driver reads it.  (While another
# call holds it after the driver's write-back it is writable by design:
# the check waits until no call is in flight.)
if [ "$placement" = low ]; then
	echo 200 > /sys/module/nvidia/parameters/race_delay_us
	out=$(norawio bouncev2 areapayload $CTL 1000 2>&1)
	echo 0 > /sys/module/nvidia/parameters/race_delay_us
	echo "  $out"
	check bounce-area-payload-not-writable "0x1000 writable after a call whose payload lay there: $out" \
		sh -c "echo '$out' | grep -q '^areapayload: iter=1000 .* writable_after=0$'"
fi

# Threads of one process waiting to make a new area (their old one is
# unmapped while a call still holds it) are woken by their own process's
# areas only: other processes making and freeing areas meanwhile wake none
# of them.  Before, one global wait queue woke every waiting thread of
# every process whenever any area went or was made (50 threads, 10 other
# processes: 890 wakeups on 6.1).
if [ "$placement" = low ]; then
	out=$(norawio bouncev2 parked $CTL 50 10 2>&1)
	echo "  $out"
	check bounce-parked-all "the waiting threads: $out" \
		sh -c "echo '$out' | grep -q '^parked: threads=50 parked=50 rounds=10 .* calls_ok=50$'"
	w=$(echo "$out" | sed -n 's/.* wakeups=\([0-9-]*\) .*/\1/p')
	check bounce-parked-not-woken "waiting threads woken by other processes' areas: $out" \
		sh -c "[ '${w:-9999}' -ge 0 ] && [ '${w:-9999}' -lt 50 ]"
fi

nvm_end
