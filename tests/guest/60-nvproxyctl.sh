#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvproxyctl against a loaded nvmediate and the stand-in driver: status and
# explain print the facts of the running driver version, cdi names the
# mediated nodes with their real device numbers, and status says clearly
# when nvmediate is not loaded.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
VER=570.211.01

if ! load_standin version=$VER num_gpus=2 || ! load_nvmediate num_gpus=2 > "$T/load.txt" 2>&1; then
	fail nvproxyctl-setup "cannot load the stand-in and nvmediate: $(cat "$T/load.txt" 2>/dev/null)"
	nvm_end
fi
openclose --path /dev/nvproxy --count 1 > /dev/null	# the first open detects the driver

nvproxyctl status --json > "$T/status.json"
rc=$?
if [ $rc -ne 0 ]; then
	fail nvproxyctl-status "exit status $rc: $(cat "$T/status.json")"
elif grep -q "\"$VER\"" "$T/status.json" && grep -q '"exact"' "$T/status.json" &&
     grep -q '570.195.03' "$T/status.json" && grep -q '/dev/nvproxy-uvm' "$T/status.json"; then
	pass nvproxyctl-status
else
	fail nvproxyctl-status "does not show $VER, exact, its range and the nodes: $(tr '\n' ' ' < "$T/status.json")"
fi

# explain, for the running version (read from sysfs): RM_CONTROL is a
# 32-byte escape on the control node, admitted; a kernel-only control is not.
nvproxyctl explain 0x2a --family escape --json > "$T/explain.json"
rc=$?
if [ $rc -eq 0 ] && grep -q "\"version\":\"$VER\"" "$T/explain.json" &&
   grep -q '"size":32' "$T/explain.json" && grep -q '"admitted":"yes"' "$T/explain.json"; then
	pass nvproxyctl-explain
else
	fail nvproxyctl-explain "exit $rc: $(cat "$T/explain.json")"
fi
nvproxyctl explain 0x107 --family control --json > "$T/explain2.json"
if grep -q '"admitted":"no"' "$T/explain2.json"; then
	pass nvproxyctl-explain-refused
else
	fail nvproxyctl-explain-refused "$(cat "$T/explain2.json")"
fi

# cdi: the GPUs the driver has (the stand-in's two), by index and UUID, each
# as its mediated node, and its nvmediatefs twin bound onto the driver's
# name; no device numbers; the twins mounted at /run/nvmediate/default.
nvproxyctl cdi --output "$T/cdi.json"
rc=$?
u=GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae0
if [ $rc -eq 0 ] && grep -q '"cdiVersion": "0.5.0"' "$T/cdi.json" &&
   grep -q '{"hostPath": "/run/nvmediate/default/nvidiactl", "containerPath": "/dev/nvidiactl", "options": \["bind"\]}' "$T/cdi.json" &&
   grep -q ' /run/nvmediate/default nvmediatefs ' /proc/mounts &&
   grep -q '{"path": "/dev/nvproxy1", "type": "c"}' "$T/cdi.json" &&
   [ "$(grep -o '"name": "[^"]*"' "$T/cdi.json" | tr '\n' ' ')" = "\"name\": \"0\" \"name\": \"${u}0\" \"name\": \"1\" \"name\": \"${u}1\" \"name\": \"all\" " ] &&
   ! grep -q '/dev/nvproxy2\|major\|"path": "/dev/nvidia' "$T/cdi.json"; then
	pass nvproxyctl-cdi
else
	fail nvproxyctl-cdi "exit $rc: $(tr '\n' ' ' < "$T/cdi.json")"
fi

unload_all
nvproxyctl status > "$T/status.txt" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q 'not loaded' "$T/status.txt"; then
	pass nvproxyctl-not-loaded
else
	fail nvproxyctl-not-loaded "exit $rc: $(cat "$T/status.txt")"
fi
nvm_end
