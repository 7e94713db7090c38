#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The payload bounce fails closed and leaves nothing behind
# (docs/security.md, "The payload bounce"), run as a container runs
# (without CAP_SYS_RAWIO):
#  1. a process that filled its vm.max_map_count gets ENOMEM, never a call
#     forwarded from its own memory: racing threads get no refused value
#     through, and the log names the process and the cause;
#  2. between calls nothing is mapped at 0x1000-0x10000, nor in an area
#     there: no page can be read or written from user space; a sealed area
#     (from 6.10, wherever the kernel put it) keeps the pages its calls
#     used mapped, and a thread writing every page of the area while calls
#     run never changes a payload the driver reads, nor fails a call;
#  3. a driver that reads its payload twice (the stand-in's read_twice)
#     reads the checked bytes both times;
#  4. a call stalled on its own payload (userfaultfd) does not delay a
#     profile write;
#  5. a process holding its own mmap lock does not delay another process's
#     first call;
#  6. an NVOS64's access-rights mask reaches the driver from the bounce
#     area: the caller unmapping it mid-call does not fail the driver's
#     copy (NVIDIA's driver leaks when it does), and the caller gets its
#     own pRightsRequested back;
#  7. a driver that grows the private fd table during a call gets its
#     file closed, never in the caller's table, and the grown table freed;
#  8. the module unloads right after calls that ran with a private fd table;
#  9. what waits for an fd-carrying call, as docs/security.md lists it:
#     another process's open of /proc/PID/maps waits for the call (it
#     does not on the driver's own node), and the calling thread's fd
#     links read during the call give no driver file; but not for a page
#     of the caller's that stalls: the driver reads none during the call;
# 10. an OS descriptor (a memory object the driver makes of the caller's
#     memory, keeping its frame numbers) over any page of the bounce area
#     is refused and never reaches the driver; one over other memory is
#     forwarded;
# 11. a userfaultfd write protection over the area holds no thread in the
#     kernel;
# 12. the lists the driver allocates at the caller's size are bounded per
#     address space as well as per call;
# 13. from 6.10, a new area changed before it is sealed goes with the
#     refused call.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
CTL=/dev/nvproxy
W=$NVM_STANDIN_DIR/watch
P=/sys/module/nvidia/parameters

if ! load_standin version=595.45.04 num_gpus=1 || ! load_nvmediate num_gpus=1 ||
	! wait_node /dev/nvproxy-uvm; then
	fail bounce2-setup "cannot load the stand-in and nvmediate"
	nvm_end
fi

watch_hits() {
	sed -n 's/.* hits=\([0-9]*\)$/\1/p' "$W" | awk '{ n += $1 } END { print n + 0 }'
}

# 1. Fail closed: vm.max_map_count filled before the first call.
maxmap=$(cat /proc/sys/vm/max_map_count)
echo 2000 > /proc/sys/vm/max_map_count
echo clear > "$W"
echo 'ctrl 0x20101 * *' > "$W"
echo 200 > $P/race_delay_us
dmesg -c > /dev/null
out=$(nvflip --field ctrl-cmd --calls 1000 --fill-maps 2>&1)
hits=$(watch_hits)
echo 0 > $P/race_delay_us
echo "$maxmap" > /proc/sys/vm/max_map_count
echo "  map count filled: $out through=$hits"
check bounce2-mapfull-none-through "$hits calls reached the driver with a kernel-only control ($out)" \
	[ "$hits" = 0 ]
# Each call is refused: by the check (EPERM, a flip landed before it) or,
# allowed, for want of a bounce area (ENOMEM); none is forwarded.
refused=$(echo "$out" | sed -n 's/.* refused=\([0-9]*\).*/\1/p')
enomem=$(echo "$out" | sed -n 's/.* enomem=\([0-9]*\).*/\1/p')
check bounce2-mapfull-enomem "want every allowed call answered ENOMEM: $out" \
	[ "$((${refused:-0} + ${enomem:-0}))" = 1000 -a "${enomem:-0}" -gt 0 ]
check bounce2-mapfull-logged "no log line with the process and the cause: $(dmesg | grep nvmediate | head -n 3)" \
	sh -c "dmesg | grep -q 'pid [0-9]* (nvflip): call refused: .*bounce area.*-12'"
n=$(dmesg | grep -c 'pid [0-9]* (nvflip): call refused')
check bounce2-mapfull-ratelimited "$n log lines for 1000 refused calls, want 1 to 10" \
	[ "$n" -ge 1 -a "$n" -le 10 ]
echo clear > "$W"

# 2. Nothing of the calls stays mapped below vm.mmap_min_addr.
out=$(bouncev2 lowpages $CTL 40 2>&1)
echo "  $out"
check bounce2-low-calls "calls failed: $out" sh -c "echo '$out' | grep -q ' calls_failed=0$'"
check bounce2-low-not-writable "pages of 0x1000-0x10000 writable between calls: $out" \
	sh -c "echo '$out' | grep -q ' writable=0 '"
check bounce2-low-not-readable "pages of 0x1000-0x10000 readable between calls: $out" \
	sh -c "echo '$out' | grep -q ' readable=0 '"
check bounce2-area-probed "no bounce area after the calls: $out" \
	sh -c "echo '$out' | grep -Eq ' area_pages=[1-9][0-9]* '"
start=$(echo "$out" | sed -n 's/.* area=\([0-9a-f]*\)-.*/\1/p')
if [ -n "$start" ] && [ $((0x$start)) -lt 65536 ]; then
	check bounce2-area-not-writable "pages of the bounce area writable between calls: $out" \
		sh -c "echo '$out' | grep -q ' area_writable=0 '"
	check bounce2-area-not-readable "pages of the bounce area readable between calls: $out" \
		sh -c "echo '$out' | grep -q ' area_readable=0 '"
fi
# Whatever a thread writes into the area, wherever it lies, while calls
# use it from every CPU (every slot of a sealed area): the driver reads
# each payload twice, 200 us apart.
echo 1 > $P/read_twice
echo 200 > $P/race_delay_us
before=$(state_get reread_differ)
out=$(bouncev2 areawrite $CTL 400 2>&1)
differ=$(($(state_get reread_differ) - before))
echo "  $out differ=$differ"
echo 0 > $P/race_delay_us
echo 0 > $P/read_twice
check bounce2-areawrite "a write into the area reached a payload: $out differ=$differ" \
	sh -c "echo '$out' | grep -q '^areawrite: calls=400 failed=0 writes=[0-9]* faulted=[1-9][0-9]* cpus=$(grep -c '^processor' /proc/cpuinfo)\$' && [ $differ = 0 ]"
# The same from four calling threads at once: a slot's batch then unmaps
# its dirty pages while other calls hold pages of the slot and put them
# back.
echo 1 > $P/read_twice
echo 200 > $P/race_delay_us
before=$(state_get reread_differ)
out=$(bouncev2 areawrite $CTL 400 4 2>&1)
differ=$(($(state_get reread_differ) - before))
echo "  four threads: $out differ=$differ"
echo 0 > $P/race_delay_us
echo 0 > $P/read_twice
check bounce2-areawrite-threads "a write into the area reached a payload of one of four threads: $out differ=$differ" \
	sh -c "echo '$out' | grep -q '^areawrite: calls=400 failed=0 writes=[0-9]* faulted=[1-9][0-9]* cpus=$(grep -c '^processor' /proc/cpuinfo)\$' && [ $differ = 0 ]"

# 3. A driver that reads twice sees the checked bytes twice.
echo 1 > $P/read_twice
echo 200 > $P/race_delay_us
echo 'ctrl 0x20101 * *' > "$W"
before=$(state_get reread_differ)
out=$(nvflip --field ctrl-cmd --calls 500 2>&1)
hits=$(watch_hits)
differ=$(($(state_get reread_differ) - before))
echo "  read twice, mediated: $out through=$hits differ=$differ"
check bounce2-twice-none-through "$hits calls reached the driver with a kernel-only control ($out)" \
	[ "$hits" = 0 ]
check bounce2-twice-same "$differ second reads differed from the first ($out)" [ "$differ" = 0 ]
# The knob itself: the same race straight on the driver's node shows.
before=$(state_get reread_differ)
out=$(nvflip --field ctrl-cmd --ctl /dev/nvidiactl --calls 200 2>&1)
differ=$(($(state_get reread_differ) - before))
echo "  read twice, direct: $out differ=$differ"
check bounce2-twice-knob-works "read_twice saw no difference on the unmediated node ($out)" \
	[ "$differ" -gt 0 ]
echo 0 > $P/race_delay_us
echo 0 > $P/read_twice
echo clear > "$W"

# 4. A stalled payload read holds no lock a profile writer needs.
out=$(bouncev2 stall $CTL /sys/kernel/nvmediate/sets/default/caps 3000 2>&1)
echo "  $out"
ms=$(echo "$out" | sed -n 's/.*write_ms=\([0-9]*\).*/\1/p')
check bounce2-stall-write-fast "a caps write took ${ms:-?} ms while a call stalled 3 s: $out" \
	[ "${ms:-99999}" -lt 1000 ]
check bounce2-stall-call-done "the stalled call: $out" \
	sh -c "echo '$out' | grep -q 'write_ret=0 call_ret=0'"

# 5. Another process's mmap lock does not hold up this one's first call.
echo 3000 > /sys/module/nvidia_uvm/parameters/mmap_lock_ms
out=$(bouncev2 lockwait $CTL /dev/nvproxy-uvm 3000 2>&1)
echo 0 > /sys/module/nvidia_uvm/parameters/mmap_lock_ms
echo "  $out"
ms=$(echo "$out" | sed -n 's/.*first_call_ms=\([0-9]*\).*/\1/p')
check bounce2-lockwait-first-call-fast "first call took ${ms:-?} ms while another process held its mmap lock 3 s: $out" \
	[ "${ms:-99999}" -lt 1000 ]
check bounce2-lockwait-call-ok "first call: $out" sh -c "echo '$out' | grep -q ' ret=0 '"

# 6. The rights mask, unmapped 100 ms into a call the stand-in holds 300 ms
# before each read of the caller's memory (the payload, then the mask):
# the page is gone well before the driver reads the mask (lead_ms, from
# the unmap to the call's return, at least 100).  Through nvmediate the
# driver reads the mask the validator read; on its own node its copy fails.
echo 300000 > $P/race_delay_us
calls_clear
out=$(bouncev2 rights $CTL 100 2>&1)
calls_save "$T/rights.calls"
direct=$(bouncev2 rights /dev/nvidiactl 100 2>&1)
echo 0 > $P/race_delay_us
echo "  rights mask unmapped mid-call: mediated $out; direct $direct"
check bounce2-rights-mask-bounced "$out; the driver received: $(grep -m1 'nr=0x2b size=48' "$T/rights.calls")" \
	sh -c "echo '$out' | grep -q 'ret=0 status=0x0 pointer=same lead_ms=[1-9][0-9][0-9]' &&
		grep -q 'nr=0x2b size=48 .* rights=0x5' '$T/rights.calls'"
check bounce2-rights-knob-works "on the driver's own node the unmapped mask was still read: $direct" \
	sh -c "echo '$direct' | grep -q 'ret=0 status=0x1e pointer=same lead_ms=[1-9][0-9][0-9]'"

# 6b. A list the driver sizes by the params' length alone (DEBUG_READ_MEMORY:
# it allocates that much for the call): the length is 16 when the call is
# made and another thread raises it over nvmediate's 64 MiB bound 100 ms
# in, while the stand-in holds 300 ms before it reads the params.  Through
# nvmediate the driver reads the params the validator checked, from the
# bounce area, and sizes a list of 16 bytes; on its own node it sizes the
# raised one, which shows the race is won.
echo 300000 > $P/race_delay_us
calls_clear
out=$(bouncev2 nomax $CTL 100 2>&1)
calls_save "$T/nomax.calls"
calls_clear
direct=$(bouncev2 nomax /dev/nvidiactl 100 2>&1)
calls_save "$T/nomax-direct.calls"
echo 0 > $P/race_delay_us
sized() {	# sized CALLS: the list sizes the driver took for DEBUG_READ_MEMORY
	grep ' cmd=0x83de0315 ' "$1" | sed -n 's/.* emb=\([0-9]*\).*/\1/p' | tr '\n' ' '
}
echo "  length raised mid-call: mediated $out, driver sized: $(sized "$T/nomax.calls"); direct $direct, driver sized: $(sized "$T/nomax-direct.calls")"
check bounce2-nomax-bounded "$out; the driver sized a list of: $(sized "$T/nomax.calls")" \
	[ "$(sized "$T/nomax.calls")" = "16 " ]
check bounce2-nomax-race-real "on the driver's own node it sized: $(sized "$T/nomax-direct.calls")" \
	[ "$(sized "$T/nomax-direct.calls")" = "67112960 " ]

# The bound is per address space too: four threads each reading 48 MiB at
# once would have the driver allocate 192 MiB, charged to no cgroup; one
# is served, the others are refused (EBUSY) while it runs.  Before, all
# four reached the driver.
nomax_at_once() {	# nomax_at_once MODE N: bouncev2 MODE with the calls held together
	echo 300000 > $P/race_delay_us
	calls_clear
	out=$(bouncev2 "$1" $CTL "$2" 2>&1)
	calls_save "$T/$1.calls"
	echo 0 > $P/race_delay_us
	echo "  $out; the driver sized: $(sized "$T/$1.calls")"
}
nomax_at_once nomaxpar 4
check bounce2-nomax-inflight "four 48 MiB reads at once: $out" \
	sh -c "echo '$out' | grep -q '^nomaxpar: threads=4 served=1 busy=3 other=0$'"
check bounce2-nomax-inflight-driver "the driver sized lists of: $(sized "$T/nomaxpar.calls") (want one, 48 MiB)" \
	[ "$(sized "$T/nomaxpar.calls")" = "50331648 " ]

# And per node set: six processes forked from one, each with an address
# space (and a 64 MiB bound) of its own, each reading 48 MiB at once; the
# set's calls in flight may have 256 MiB: five are served, one refused.
# Before, all six reached the driver.
nomax_at_once nomaxprocs 6
check bounce2-nomax-inflight-set "six processes reading 48 MiB at once: $out" \
	sh -c "echo '$out' | grep -q '^nomaxprocs: procs=6 served=5 busy=1 other=0$'"
check bounce2-nomax-inflight-set-driver "the driver sized lists of: $(sized "$T/nomaxprocs.calls") (want five, 48 MiB each)" \
	[ "$(sized "$T/nomaxprocs.calls" | wc -w)" = 5 ]

# 7. A driver that creates a file during a call made with a private fd
# table, at a number past the table's size: the kernel grows the private
# table; nvmediate closes the driver's file when the call ends (it never
# reaches the caller's table) and frees the grown table (on the debug
# kernel KASAN and kmemleak watch that free).  On the driver's own node the
# file lands in the caller's table, which shows the knob works.
dmesg -c > /dev/null
echo 200 > $P/grow_fd_table
out=$(bouncev2 grow $CTL 200 $NVM_STANDIN_DIR/state 2>&1)
direct=$(bouncev2 grow /dev/nvidiactl 200 $NVM_STANDIN_DIR/state 2>&1)
echo 0 > $P/grow_fd_table
echo "  driver grew the table: mediated $out; direct $direct"
check bounce2-grown-table-closed "$out" sh -c "echo '$out' | grep -qx 'grow: ret=0 high_fd=-1 extra_fds=0'"
check bounce2-grown-table-logged "no log line: $(dmesg | grep nvmediate | head -n 3)" \
	sh -c "dmesg | grep -q 'nvmediate: driver grew a private fd table'"
check bounce2-grown-knob-works "on the driver's own node the file was not in the caller's table: $direct" \
	sh -c "echo '$direct' | grep -qx 'grow: ret=0 high_fd=2[0-9][0-9] extra_fds=1'"
check bounce2-grown-none-left "stand-in files left: $(state_get extra_fds)" [ "$(state_get extra_fds)" = 0 ]

# 9. What waits for an fd-carrying call the driver holds 1.5 s (nvmediate
# holds exec_update_lock for writing meanwhile, docs/security.md).
echo 1500 > $P/ioctl_delay_ms
S=/sys/class/nvmediate/stats
held0=$(cat $S/exec_lock_held_1s)
out=$(bouncev2 waiters $CTL 1500 2>&1)
held1=$(cat $S/exec_lock_held_1s)
direct=$(bouncev2 waiters /dev/nvidiactl 1500 2>&1)
echo 0 > $P/ioctl_delay_ms
echo "  fd-carrying call held 1.5 s: mediated $out; direct $direct"
v() { echo "$1" | sed -n "s/.* $2=\(-*[0-9][0-9]*\).*/\1/p"; }
check bounce2-waiters-call "$out" \
	sh -c "[ '$(v "$out" call_ret)' = 0 ] && [ '$(v "$out" call_ms)' -ge 1400 ]"
check bounce2-waiters-maps-waits "the open of /proc/PID/maps did not wait for the call: $out" \
	sh -c "[ '$(v "$out" maps_ms)' -ge 900 ] && [ '$(v "$out" maps_after_call_ms)' -ge -50 ]"
check bounce2-waiters-maps-direct "on the driver's own node the open of /proc/PID/maps waited: $direct" \
	sh -c "[ '$(v "$direct" call_ret)' = 0 ] && [ '$(v "$direct" maps_ms)' -lt 900 ]"
check bounce2-waiters-no-driver-file "a driver file opened through the calling thread's fd links: $out" \
	[ "$(v "$out" driver_files)" = 0 ]
# An operator sees such holds: counted, with the longest.
check bounce2-waiters-counted "exec_lock_held_1s $held0 before, $held1 after; exec_lock_held_max_ms $(cat $S/exec_lock_held_max_ms)" \
	sh -c "[ $held1 = $((held0 + 1)) ] && [ \$(cat $S/exec_lock_held_max_ms) -ge 1400 ]"

# 9b. But never for as long as the caller likes: during a call made with
# that lock held the driver reads nothing the caller can make it wait for.
# Its class params (a device allocation) and a UVM command's payload are
# handed to it from the bounce area, so a page of the caller's dropped
# under the call and served 1.5 s later by a userfaultfd does not hold the
# lock; an RM_ALLOC_MEMORY the driver reads no fd for (an OS descriptor,
# whose memory it pins; system memory it does not map) runs without the
# private table.
for kind in class uvm osdesc nomap; do
	case $kind in
	uvm) echo 500000 > $P/race_delay_us ;;
	osdesc | nomap) echo 1500 > $P/ioctl_delay_ms ;;
	*) echo 500 > $P/ioctl_delay_ms ;;
	esac
	out=$(bouncev2 lockstall $kind $CTL /dev/nvproxy0 /dev/nvproxy-uvm 1500 2>&1)
	echo 0 > $P/race_delay_us
	echo 0 > $P/ioctl_delay_ms
	echo "  lock and a stalled page, $kind: $out"
	check bounce2-lockstall-$kind "another process's open of /proc/PID/maps waited for the caller's page: $out" \
		sh -c "w='$(v "$out" maps_wait_ms)'; [ -n \"\$w\" ] && [ \"\$w\" -ge 0 ] && [ \"\$w\" -lt 300 ]"
done

# 9c. What is left: the driver's write-back into the bounce area faults,
# and the fault takes the process's own mmap lock, which the process can
# keep (a read of /proc/self/mem at a page of a FUSE file it serves itself
# and withholds, a writer queued behind it).  Measured here, not closed
# (docs/security.md): with nvmediate's call in flight the lock is held
# until the process lets the page go, and a read of /proc/PID/io (which
# waits on exec_update_lock only) waits as long.  /proc/PID/maps waits on
# the mmap lock anyway up to 6.12, with or without nvmediate; sid's kernel
# reads it without that lock, so only nvmediate's hold makes it wait there
# (its open takes exec_update_lock).  The debug kernel has no FUSE;
# Debian's kernels have it, as a module or built in.
fuse_run() {	# fuse_run CTL: fusehold; should it hang, its connection is aborted
	fusehold "$1" /tmp/nvm-fuse 2500 > "$T/fuse.out" 2>&1 &
	_p=$!
	_i=0
	while kill -0 $_p 2> /dev/null && [ $_i -lt 10 ]; do sleep 1; _i=$((_i + 1)); done
	if kill -0 $_p 2> /dev/null; then
		# where its threads wait (wchan takes no lock of theirs)
		echo "fusehold: hung 10 s: $(for _t in /proc/$_p/task/*; do
			echo "${_t##*/}:$(cat "$_t/wchan" 2> /dev/null)"; done | tr '\n' ' ')" >> "$T/fuse.out"
		mount -t fusectl none /sys/fs/fuse/connections 2> /dev/null
		for _a in /sys/fs/fuse/connections/*/abort; do echo 1 > "$_a"; done
		kill -9 $_p
	fi
	wait $_p
	umount -l /tmp/nvm-fuse 2> /dev/null
	tr '\n' ' ' < "$T/fuse.out"
}
if modprobe fuse 2>/dev/null && [ -c /dev/fuse ]; then
	held0=$(cat $S/exec_lock_held_1s)
	echo 500 > $P/ioctl_delay_ms
	out=$(fuse_run $CTL)
	held1=$(cat $S/exec_lock_held_1s)
	direct=$(fuse_run /dev/nvidiactl)
	echo 0 > $P/ioctl_delay_ms
	echo "  FUSE page withheld 2.5 s: mediated $out; direct $direct"
	check bounce2-fusehold-call "the call returned once the page was given: $out" \
		sh -c "[ '$(v "$out" ret)' = 0 ] && [ '$(v "$out" call_ms)' -ge 2300 ]"
	check bounce2-fusehold-io-waits "/proc/PID/io waited for the call: $out" \
		sh -c "[ '$(v "$out" io_wait_ms)' -ge 1400 ]"
	check bounce2-fusehold-counted "exec_lock_held_1s $held0 before, $held1 after" \
		[ "$held1" = $((held0 + 1)) ]
	check bounce2-fusehold-direct "on the driver's own node the call returned and /proc/PID/io did not wait: $direct" \
		sh -c "[ '$(v "$direct" ret)' = 0 ] && [ '$(v "$direct" call_ms)' -lt 1500 ] &&
		       [ '$(v "$direct" io_wait_ms)' -lt 300 ]"
else
	echo "  no FUSE in this kernel: the mmap-lock hold is not measured"
	check bounce2-fusehold-available "Debian's kernels have FUSE as a module" [ "$NVM_KERNEL" = debug ]
fi

# 10. OS descriptors: the driver resolves the range to frame numbers (a
# VM_PFNMAP mapping's from its page-table entries) and keeps them, so one
# over the area would give the GPU the pages later payloads lie in.
dmesg -c > /dev/null
calls_clear
out=$(bouncev2 osdesc $CTL /dev/nvproxy0 2>&1)
calls_save "$T/osdesc.calls"
echo "  $out"
refused="vh_first=EPERM vh_last=EPERM vh_below=EPERM vh_xfer=EPERM am_first=EPERM am_last=EPERM"
# Forwarded: the stand-in answers RM_ALLOC_MEMORY and, not implementing
# VID_HEAP_CONTROL, EINVAL to that.
forwarded="vh_own=EINVAL vh_before=EINVAL vh_after=EINVAL vh_nolimit=EINVAL vh_other=EINVAL am_own=0 am_other=0"
check bounce2-osdesc-area-refused "$out" sh -c "echo '$out' | grep -q '^osdesc: $refused '"
check bounce2-osdesc-other-forwarded "$out" sh -c "echo '$out' | grep -q ' $forwarded remap='"
# Nor can the area be mapped a second time, where the caller chooses,
# through its file reopened from /proc/self/map_files (as root): the
# area's inode refuses every open (EACCES), and nvmediate maps an area's
# file once only.
check bounce2-area-no-second-mapping "$out" sh -c "echo '$out' | grep -Eq ' remap=(EBUSY|ENODEV|EACCES|noaccess|open-ENXIO|open-ENODEV) '"
# What the driver received: the five NVOS32 and two NVOS02 calls that name
# other memory, none of the six over the area.
vh=$(grep -c 'op=ioctl nr=0x4a size=184 ' "$T/osdesc.calls")
am=$(grep -c 'op=ioctl nr=0x27 size=56 ' "$T/osdesc.calls")
xf=$(grep -c 'op=ioctl nr=0xd3 .*inner=0x4a' "$T/osdesc.calls")
check bounce2-osdesc-driver-saw "the driver got $vh VID_HEAP_CONTROL (want 5), $am ALLOC_MEMORY (want 2), $xf XFER (want 0)" \
	[ "$vh $am $xf" = "5 2 0" ]
n=$(dmesg | grep -c 'refused .*rule=osdesc-bounce-area answer=-1$')
# (The refusal log is rate-limited: at least one line.)
check bounce2-osdesc-logged "no refusal line names osdesc-bounce-area: $(dmesg | grep nvmediate | tail -n 2)" \
	[ "$n" -ge 1 ]

# 11. A process write-protects its own area with a userfaultfd (6.7 and
# later let an unprivileged one do so over any mapping, asynchronously):
# the empty slots of the area get markers.  A call that meets one fails
# (EFAULT); none may stay in the kernel.  nvmediate's fault handler used to
# answer such a slot as mapped without mapping it, so the driver's read
# faulted again, forever, in a thread no signal could stop.  Kernels that
# refuse the registration cannot get there.
bouncev2 uffdwp $CTL 40 > "$T/uffdwp.out" 2>&1 &
i=0
while ! grep -q '^uffdwp:' "$T/uffdwp.out" && [ $i -lt 250 ]; do
	sleep 0.1
	i=$((i + 1))
done
out=$(cat "$T/uffdwp.out")
echo "  $out"
if echo "$out" | grep -q 'api=0 register=0 protect=0 '; then
	check bounce2-uffdwp-calls-return "the calls did not all return within 20 s: $out" \
		sh -c "echo '$out' | grep -q ' other=0 done=1$'"
else
	# Only a refusal by the kernel passes here: not a missing area.
	check bounce2-uffdwp-calls-return "no area, or no answer from the kernel: ${out:-no output}" \
		sh -c "echo '$out' | grep -Eq '^uffdwp: api=[0-9]+ register=[0-9]+ protect=[0-9]+ '"
fi

# 13. From 6.10: a thread that changes the new area between its mapping and
# its seal (here a real-time thread on the caller's CPU, which preempts the
# caller as soon as the mapping releases the mmap lock) gets the call
# refused, and no unsealed area stays behind with its memory.
# The debug kernel does not preempt in the kernel (PREEMPT_NONE): nothing
# runs between the mapping and the seal there, so only Debian's kernels
# (PREEMPT_DYNAMIC) must show the race won.
if [ "$(bounce_placement)" = sealed ]; then
	out=$(bouncev2 sealrace $CTL 300 2>&1)
	echo "  seal race: $out"
	r=$(echo "$out" | sed -n 's/.* refused=\([0-9]*\).*/\1/p')
	[ "$NVM_KERNEL" = debug ] ||
		check bounce2-sealrace-won "the race was never won, nothing shown: $out" \
			[ "${r:-0}" -gt 0 ]
	check bounce2-sealrace-none-left "an unsealed area stayed behind a refused call: $out" \
		sh -c "echo '$out' | grep -q ' left=0 other=0$'"
fi

# 8. Unload at once after calls with a private fd table, again and again
# (the module's exit waits for the tables' RCU frees).
round=0
ok=1
while [ $round -lt 10 ]; do
	is_loaded nvmediate || load_nvmediate num_gpus=1 > /dev/null || { ok=0; break; }
	wait_node /dev/nvproxy-uvm || { ok=0; break; }
	nvflip --field uvm-register-fd --calls 20 > /dev/null 2>&1
	rmmod nvmediate || { ok=0; break; }
	round=$((round + 1))
done
check bounce2-unload-after-fdctx "load, fd-carrying calls, unload: stopped in round $round" [ $ok = 1 ]

nvm_end
