#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvm-guest: limit-factor 2
# Hardening, property 1: no file of the driver ever reaches the container.
# While the main thread drives every fd-carrying path through the mediated
# nodes (100,000 calls, 25,000 on the debug kernel; NVM_FDS_CALLS overrides),
# scanner threads dup() and fstat every fd number and open every /proc/self/fd link naming the driver,
# and a second process calls pidfd_getfd() on every fd number (nvfds.c).
# The driver's record says what each fd field resolved to: a backing file
# every time, never a file of anyone else, never nothing.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
calls=100000
[ "$NVM_KERNEL" != debug ] || calls=25000
CALLS=${NVM_FDS_CALLS:-$calls}
# Stop calling before the harness's per-test limit, so that the counts print.
if [ "$NVM_KERNEL" = debug ]; then LIMIT=570; else LIMIT=330; fi
RX=$NVM_STANDIN_DIR/received

if ! load_standin version=595.45.04 num_gpus=2; then
	fail hard-fds-setup "cannot load the stand-in driver"
	nvm_end
fi
if ! load_nvmediate > "$T/load.txt" 2>&1; then
	fail hard-fds-setup "nvmediate: $(tr '\n' ' ' < "$T/load.txt")"
	nvm_end
fi
wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm
# Every fd-carrying path: UVM_ALLOC_DEVICE_P2P is in no capability.
echo "uvm 0x4e" > /sys/kernel/nvmediate/sets/default/allow
echo clear > "$RX"
calls_clear

start=$(date +%s)
nvfds --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm --calls "$CALLS" \
	--seconds $LIMIT --scanners 2 > "$T/fds.txt" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
cat "$RX" > "$T/rx.txt"
counts=$(grep '^calls=' "$T/fds.txt")
echo "  nvfds ($took s): $counts"
# Violations by kind (numbers folded), for the log.
grep '^VIOLATION' "$T/fds.txt" | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -n 8 |
	sed 's/^/  /'

# Calls the driver received on the fd-carrying paths, from its own record.
rxsum() {	# rxsum FAMILY A...: the summed counts of those entries
	fam=$1
	shift
	for a in "$@"; do
		awk -v f="$fam" -v a="$a" '$1 == f && $2 == a { n += $5 } END { print n + 0 }' "$T/rx.txt"
	done | awk '{ n += $1 } END { print n + 0 }'
}
esc=$(rxsum esc 0xc9 0x27 0x4e 0xd3)
dev=$(rxsum class 0x80)
uvmc=$(rxsum uvm 0x4b 0x25 0x19 0x1b 0x4e)
forwarded=$((esc + dev + uvmc))
fd_ok=$(rxsum fd 0x1 0x2 0x3)
fd_bad=$(rxsum fd 0x0)
fd_foreign=$(rxsum fd 0x4)
echo "  driver received: $forwarded fd-carrying calls (escapes $esc, device allocations $dev, UVM $uvmc); fd fields resolved to a backing file $fd_ok, to nothing $fd_bad, to another file $fd_foreign"

if [ $rc -ne 0 ] || ! grep -q '^calls=' "$T/fds.txt"; then
	fail hard-fds-no-driver-file "nvfds status $rc: $(grep -v '^calls=' "$T/fds.txt" | head -n 5 | tr '\n' ';') $counts"
else
	pass hard-fds-no-driver-file
fi
check hard-fds-forwarded "the driver received $forwarded fd-carrying calls, want at least $CALLS" \
	[ "$forwarded" -ge "$CALLS" ]
check hard-fds-resolved "fd fields resolved: $fd_ok to backing files, $fd_bad to nothing, $fd_foreign to other files" \
	[ "$fd_bad" = 0 -a "$fd_foreign" = 0 -a "$fd_ok" -gt 0 ]
leaks=$(state_leaks)
check hard-fds-no-leak "stand-in state after the run: $leaks" [ -z "$leaks" ]
nvm_end
