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

say "What nvmediate refused (its kernel log lines during the session)"
dmesg | sed -n '/nvmguest: demo session begin/,$p' | grep 'nvmediate:' > /tmp/refused
cat /tmp/refused
nrefused=$(grep -c . /tmp/refused)

say "Summary"
echo "modules loaded:        $loaded"
echo "nvsession exit status: $status"
echo "calls the driver saw:  $ncalls"
echo "nvmediate log lines:   $nrefused"
if [ "$loaded" = yes ] && [ "$status" -eq 0 ]; then
	echo "The session ran through the mediated nodes: every call above reached the driver"
	echo "only after nvmediate checked it; the log lines are the calls it refused."
else
	echo "The session did not complete: see the messages above."
fi
echo "NVMDEMO END"
