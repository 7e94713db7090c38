#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /demo.sh of the guest (make demo): load the stand-in driver and nvmediate,
# run a session through the mediated nodes, then show what the driver
# received and what nvmediate refused.  Run by /init with nvm_mode=demo.

say() {
	echo
	echo "=== $*"
}

echo "NVMDEMO BEGIN"
say "Loading the stand-in nvidia driver and nvmediate"
loaded=yes
for m in nvidia nvidia_uvm nvmediate; do
	if modprobe "$m"; then
		echo "loaded $m"
	else
		echo "could not load $m"
		loaded=no
	fi
done
ls -l /dev/nvidia* /dev/nvproxy* 2>/dev/null

say "nvsession --mediated --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm"
echo "nvmguest: demo session begin" > /dev/kmsg
/bin/nvsession --mediated --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm
status=$?
echo "(nvsession exit status $status)"

say "What the stand-in driver received (/sys/kernel/debug/nvidia-standin/calls)"
calls=/sys/kernel/debug/nvidia-standin/calls
if [ -r $calls ]; then
	cat $calls > /tmp/calls
	cat /tmp/calls
	ncalls=$(grep -c . /tmp/calls)
else
	echo "(no $calls)"
	ncalls=0
fi

say "What nvmediate said during the session (kernel log; one 'refused' line per refusal)"
dmesg | sed -n '/nvmguest: demo session begin/,$p' | grep 'nvmediate:' | sed 's/^\[[ 0-9.]*\] //'

# The counters count every call exactly (the log lines are ratelimited):
# nvmediate's own answers are the refused calls (an errno) and the answered
# ones (the driver's status written into the payload); each has a
# "nvmediate: refused" line in the log.
nrefused=0
nanswered=0
for f in /sys/class/nvmediate/stats/*_refused; do
	[ -r "$f" ] && nrefused=$((nrefused + $(cat "$f")))
done
for f in /sys/class/nvmediate/stats/*_answered; do
	[ -r "$f" ] && nanswered=$((nanswered + $(cat "$f")))
done
nlogged=$(dmesg | sed -n '/nvmguest: demo session begin/,$p' | grep -c 'nvmediate: refused ')

# Audit mode forwards what the policy would refuse and logs each one as an
# "audit" line: the same session again with audit=1.
say "The same session with audit=1: what would have been refused, forwarded and logged"
echo "nvmguest: demo audit begin" > /dev/kmsg
if rmmod nvmediate && modprobe nvmediate audit=1; then
	/bin/nvsession --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm > /dev/null 2>&1
	dmesg | sed -n '/nvmguest: demo audit begin/,$p' | grep 'nvmediate: audit pid=' |
		sed 's/^\[[ 0-9.]*\] //' > /tmp/audited
	cat /tmp/audited
else
	echo "(could not reload nvmediate with audit=1)"
	: > /tmp/audited
fi
naudited=$(grep -c . /tmp/audited)

say "Summary"
echo "modules loaded:         $loaded"
echo "nvsession exit status:  $status"
echo "calls the driver saw:   $ncalls"
echo "calls nvmediate kept from the driver: $((nrefused + nanswered)) ($nrefused refused with an errno, $nanswered answered in the payload; its counters, /sys/class/nvmediate/stats; $nlogged 'refused' lines logged)"
echo "audit lines (audit=1):   $naudited"
if [ "$loaded" = yes ] && [ "$status" -eq 0 ]; then
	echo "NVMDEMO RESULT ok"
	echo "The session ran through the mediated nodes: every call the driver saw was"
	echo "checked by nvmediate first; the refused ones above never reached it, and the"
	echo "session got nvmediate's answer instead (see its transcript)."
else
	echo "The session did not complete: see the messages above."
	echo "NVMDEMO RESULT failed"
fi
echo "NVMDEMO END"
