#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hardening, property 4 (continued from 83-hard-faults.sh, apart for the
# per-test time limit of the debug guest): 10,000 processes (2,500 on the
# debug kernel; NVM_FAULT_PROCS overrides) open the three mediated nodes, make an fd-carrying call and
# exit; one in ten is SIGKILLed in the middle of its calls or of a blocking
# poll() (nvfault.c).  Afterwards the stand-in's state is back to zero (no
# driver file left open) and the module reference counts are back at idle.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
procs=10000
[ "$NVM_KERNEL" != debug ] || procs=2500
PROCS=${NVM_FAULT_PROCS:-$procs}

if ! fault_setup; then
	fail hard-procs-setup "cannot load the stand-in driver or nvmediate: $(cat "$T/load.txt" 2>/dev/null)"
	nvm_end
fi
IDLE=$(refcnts)

# --- many processes, some killed mid-call ---
start=$(date +%s)
got=$(nvfault procs "$PROCS" 10)
echo "  $got in $(( $(date +%s) - start )) s"
check hard-procs "$got (want procs=$PROCS, failed=0)" \
	sh -c "echo '$got' | grep -q '^procs=$PROCS .* failed=0\$'"
idle hard-procs-idle

nvm_end
