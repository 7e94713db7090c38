#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The validator: every rule's refusal through the mediated nodes, where the
# driver must receive nothing and user space must see the answer of
# docs/errors.md; allowed calls reach the driver byte for byte; the
# CUDA-like session passes at three driver majors; the same call at the
# size of another version is refused; audit=1 forwards and logs.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
CTL=/dev/nvproxy
GPU=/dev/nvproxy0
UVM=/dev/nvproxy-uvm

setup() {	# setup STANDIN_VERSION [NVMEDIATE PARAMS]
	v=$1
	shift
	unload_all
	if ! load_standin version="$v" num_gpus=2; then
		fail "validate-setup-$v" "cannot load the stand-in driver at $v"
		return 1
	fi
	if ! load_nvmediate "$@" > "$T/load.txt" 2>&1; then
		fail "validate-setup-$v" "nvmediate: $(tr '\n' ' ' < "$T/load.txt")"
		return 1
	fi
	wait_node $GPU && wait_node $UVM
}

ioctls() {	# the ioctl lines of the call log
	grep -c ' op=ioctl ' "$NVM_STANDIN_DIR/calls"
}

# refused NAME WANT NVRAW-ARGS...: the answer is WANT and the driver saw no ioctl
refused() {
	name=$1
	want=$2
	shift 2
	want "validate-$name" || return 0
	calls_clear
	got=$(nvraw "$@" 2>&1)
	n=$(ioctls)
	if [ "$got" != "$want" ]; then
		fail "validate-$name" "nvraw $*: '$got', want '$want'"
	elif [ "$n" != 0 ]; then
		fail "validate-$name" "refused, but the driver received $n ioctl(s): $(grep ' op=ioctl ' "$NVM_STANDIN_DIR/calls" | head -n 2 | tr '\n' ';')"
	else
		pass "validate-$name"
	fi
}

# forwarded NAME NVRAW-ARGS...: the driver receives the call exactly as a
# direct call on the real node would make it (same size, same bytes)
forwarded() {
	name=$1
	shift
	want "validate-$name" || return 0
	dargs=
	for a in "$@"; do
		case $a in
		$CTL) a=/dev/nvidiactl ;;
		$GPU) a=/dev/nvidia0 ;;
		$UVM) a=/dev/nvidia-uvm ;;
		esac
		dargs="$dargs $a"
	done
	calls_clear
	# shellcheck disable=SC2086
	direct=$(nvraw $dargs 2>&1)
	calls_save "$T/d.calls"
	calls_clear
	med=$(nvraw "$@" 2>&1)
	calls_save "$T/m.calls"
	grep ' op=ioctl ' "$T/d.calls" | sed 's/^seq=[0-9]* tgid=[0-9]* //' > "$T/d.norm"
	grep ' op=ioctl ' "$T/m.calls" | sed 's/^seq=[0-9]* tgid=[0-9]* //' > "$T/m.norm"
	if [ ! -s "$T/m.norm" ]; then
		fail "validate-$name" "the driver received nothing (nvraw: $med)"
	elif ! cmp -s "$T/d.norm" "$T/m.norm" || [ "$direct" != "$med" ]; then
		fail "validate-$name" "direct '$direct' $(tr '\n' ';' < "$T/d.norm") mediated '$med' $(tr '\n' ';' < "$T/m.norm")"
	else
		pass "validate-$name"
	fi
}

# --- every rule, at 595.45.04 (NVOS54 32 bytes, status at 28; NVOS64 48, status at 40) ---
if setup 595.45.04; then
	refused esc-unknown "ret=-EINVAL" $CTL 0x01 4
	# Not an NVIDIA ioctl: the driver reads only the number (RM_ALLOC here).
	refused esc-not-nvidia "ret=-EINVAL" --type x $CTL 0x2b 48 12=0x79 16=buf:24
	refused esc-size "ret=-EINVAL" $CTL 0x2a 31
	refused esc-size-array "ret=-EINVAL" $CTL 0xc8 73
	refused esc-node "ret=-EINVAL" $GPU 0x2a 32
	refused esc-node-gpu-only "ret=-EINVAL" $CTL 0x27 56
	# A memory list (administrator-only), whose list the driver copies
	# from the caller's memory before it checks the caller's privilege.
	refused alloc-memory-root "ret=-EPERM" $GPU 0x27 56 12=0x81 24=q:0x10000 32=q:0xfff
	refused esc-root "ret=-EPERM" $GPU 0xd8 4
	refused esc-unreadable "ret=-EFAULT" --bad $CTL 0x2a 32
	refused xfer-size "ret=-EINVAL" --xfer $CTL 0x2a 16385
	refused xfer-unknown "ret=-EINVAL" --xfer $CTL 0x01 4
	refused xfer-inner-size "ret=-EINVAL" --xfer $CTL 0x2a 31
	refused xfer-nested "ret=-EINVAL" --xfer $CTL 0xd3 16
	refused xfer-empty "ret=-EINVAL" --xfer $CTL 0x2a 0
	refused ctrl-unknown "ret=0 status=0x56" $CTL 0x2a 32 8=0x00ff0001 st=28
	refused ctrl-unknown-xfer "ret=0 status=0x56" --xfer $CTL 0x2a 32 8=0x00ff0001 st=28
	refused ctrl-flags-irql "ret=0 status=0x1f" $CTL 0x2a 32 8=0x102 12=1 16=buf:108 24=108 st=28
	refused ctrl-flags-bypass "ret=0 status=0x1f" $CTL 0x2a 32 8=0x102 12=2 16=buf:108 24=108 st=28
	refused ctrl-finn "ret=-EPERM" $CTL 0x2a 32 8=0x102 12=4 16=buf:108 24=108
	refused ctrl-gss-unknown "ret=0 status=0x56" $CTL 0x2a 32 8=0x2080c001 st=28
	refused ctrl-params-null "ret=0 status=0x1f" $CTL 0x2a 32 8=0x102 24=108 st=28
	refused ctrl-size-zero-params "ret=0 status=0x1f" $CTL 0x2a 32 8=0x102 16=buf:108 st=28
	refused ctrl-too-big "ret=-E2BIG" $CTL 0x2a 32 8=0x102 16=buf:16 24=0x100001
	refused ctrl-size "ret=0 status=0x1f" $CTL 0x2a 32 8=0x102 16=buf:108 24=104 st=28
	refused ctrl-root "ret=-EPERM" $CTL 0x2a 32 8=0x13c 16=buf:1 24=1
	refused ctrl-kernel-only "ret=-EPERM" $CTL 0x2a 32 8=0x20101
	refused ctrl-params-unreadable "ret=-EFAULT" $CTL 0x2a 32 8=0x102 16=bad 24=108
	# A deprecated control (NV2080_CTRL_CMD_BUS_GET_INFO: V1 params { count,
	# list pointer at 8 }, 8-byte entries, at most 52), checked as the
	# driver converts it: only plain calls, the V1 size, the count, and the
	# list readable (copied in) and writable (copied back).
	refused ctrl-dep-flags "ret=0 status=0x56" $CTL 0x2a 32 8=0x20801802 12=4 16=buf:16 24=16 st=28
	refused ctrl-dep-size "ret=0 status=0x1f" $CTL 0x2a 32 8=0x20801802 16=buf:24 24=24 st=28
	refused ctrl-dep-count "ret=0 status=0x5b" $CTL 0x2a 32 8=0x20801802 16=buf:16 24=16 +0=53 +8=buf:8 st=28
	refused ctrl-dep-list-unreadable "ret=-EFAULT" $CTL 0x2a 32 8=0x20801802 16=buf:16 24=16 +0=2 +8=bad
	refused ctrl-dep-list-unwritable "ret=-EFAULT" $CTL 0x2a 32 8=0x20801802 16=buf:16 24=16 +0=2 +8=ro:16
	# A list the driver copies around the method itself: GPU_GET_CLASSLIST
	# (V1 { numClasses at 0, classList pointer at 8 }, NvU32 entries, in
	# and out), checked as the driver will copy it: a size without a
	# pointer and over 1 MiB answered as it answers them, the list readable
	# and writable.
	refused ctrl-emb-size "ret=0 status=0x1f" $CTL 0x2a 32 8=0x800201 16=buf:16 24=16 +0=4 st=28
	refused ctrl-emb-too-big "ret=0 status=0x1f" $CTL 0x2a 32 8=0x800201 16=buf:16 24=16 +0=262145 +8=buf:8 st=28
	refused ctrl-emb-unreadable "ret=-EFAULT" $CTL 0x2a 32 8=0x800201 16=buf:16 24=16 +0=2 +8=bad
	refused ctrl-emb-unwritable "ret=-EFAULT" $CTL 0x2a 32 8=0x800201 16=buf:16 24=16 +0=2 +8=ro:8
	# DEBUG_READ_MEMORY (length at 4, buffer at 16): no 1 MiB bound in the
	# driver, 64 MiB in nvmediate
	refused ctrl-emb-nomax "ret=-E2BIG" $CTL 0x2a 32 8=0x83de0315 16=buf:24 24=24 +4=0x4000001 +16=buf:8
	forwarded ctrl-emb-list $CTL 0x2a 32 8=0x800201 16=buf:16 24=16 +0=2 +8=buf:8 st=28
	refused class-unknown-nvos64 "ret=0 status=0x22" $CTL 0x2b 48 12=0xbeef st=40
	refused class-unknown-nvos21 "ret=0 status=0x22" $CTL 0x2b 32 12=0xbeef st=28
	refused class-kernel-callback "ret=-EPERM" $CTL 0x2b 48 12=0x78 16=buf:24
	refused class-params-null "ret=-EINVAL" $CTL 0x2b 48 12=0x79
	refused class-params-unreadable "ret=-EFAULT" $CTL 0x2b 48 12=0x79 16=bad
	refused class-rights-unreadable "ret=-EFAULT" $CTL 0x2b 48 12=0x79 16=buf:24 24=bad
	refused alloc-size "ret=-EINVAL" $CTL 0x2b 40 12=0x79 16=buf:24
	refused uvm-unknown "ret=-ENOSYS" --uvm $UVM 201 16
	refused uvm-tools-command "ret=-ENOSYS" --uvm $UVM 0x39 8
	refused uvm-unreadable "ret=-EFAULT" --uvm --bad $UVM 0x30000001 16

	forwarded ctrl-allowed $CTL 0x2a 32 8=0x102 16=buf:108 24=108 st=28
	forwarded ctrl-allowed-xfer --xfer $CTL 0x2a 32 8=0x201 16=buf:128 24=128 st=28
	forwarded class-allowed $CTL 0x2b 48 12=0x79 16=buf:24 st=40
	forwarded esc-allowed $CTL 0xd6 8
	forwarded uvm-allowed --uvm $UVM 0x30000001 16
fi

# --- the same call at the size of another version ---
if setup 535.288.01; then
	# NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO: 104 bytes before 595, 108 from it
	refused version-ctrl-size "ret=0 status=0x1f" $CTL 0x2a 32 8=0x102 16=buf:108 24=108 st=28
	forwarded version-ctrl-size-own $CTL 0x2a 32 8=0x102 16=buf:104 24=104 st=28
	# NV_ESC_RM_UNMAP_MEMORY_DMA: 40 bytes before 550, 48 from it
	refused version-esc-size "ret=-EINVAL" $CTL 0x58 48
	# NV2080_CTRL_CMD_GPUMON_GET_SAMPLES: GSS-legacy (cmd & 0x8000), to 550
	refused ctrl-gss-legacy "ret=-EPERM" $CTL 0x2a 32 8=0x2080a083 16=buf:24 24=24
fi
if setup 550.163.01; then
	refused version-esc-size-550 "ret=-EINVAL" $CTL 0x58 40
fi

# --- the CUDA-like session through the mediated nodes, three majors ---
for v in 535.288.01 550.163.01 595.45.04; do
	want "validate-session-$v" || continue
	setup $v || continue
	calls_clear
	if nvsession --mediated --ctl $CTL --gpu $GPU --uvm $UVM > "$T/s.txt" 2>&1; then
		pass "validate-session-$v"
	else
		fail "validate-session-$v" "$(failures "$T/s.txt")"
	fi
done

# --- an answer that cannot be written into the payload: EFAULT, logged so
# (first after the load: the log's rate limit starts afresh) ---
if wants validate-ctrl-answer-unwritable validate-ctrl-answer-unwritable-log &&
	setup 595.45.04; then
	dmesg -c > /dev/null 2>&1
	refused ctrl-answer-unwritable "ret=-EFAULT" --ro $CTL 0x2a 32 8=0x00ff0001
	check validate-ctrl-answer-unwritable-log "$(dmesg | grep 'nvmediate: refused' | tail -n 1)" \
		sh -c "dmesg | grep -q 'nvmediate: refused pid=[0-9]* comm=nvraw .* nr=0xff0001 .* rule=ctrl-unknown answer=-14$'"
fi

# --- audit=1: what would be refused is forwarded and logged ---
if wants validate-audit-forwards validate-audit-logs validate-audit-rights-unreadable \
	validate-audit-not-nvidia validate-audit-xfer-size validate-audit-xfer-empty &&
	setup 595.45.04 audit=1; then
	dmesg -c > /dev/null 2>&1
	calls_clear
	got=$(nvraw $CTL 0x2a 32 8=0x00ff0001 st=28)
	n=$(ioctls)
	check validate-audit-forwards "audit=1: '$got', $n ioctl(s) reached the driver" [ "$n" = 1 ]
	check validate-audit-logs "no audit line: $(dmesg | tail -n 3 | tr '\n' ';')" \
		sh -c "dmesg | grep -q 'nvmediate: audit pid=[0-9]* comm=nvraw .* family=ctrl nr=0xff0001 .* rule=ctrl-unknown answer=status:0x56'"
	# An unreadable rights mask is refused even so: the driver would leak.
	refused audit-rights-unreadable "ret=-EFAULT" $CTL 0x2b 48 12=0x79 16=buf:24 24=bad
	# Calls nvmediate cannot copy are never forwarded: the driver would
	# read them from the caller's memory (another type's RM_ALLOC with that
	# unreadable mask; XFER's header, whose inner size says nothing is
	# copied).
	refused audit-not-nvidia "ret=-EINVAL" --type x $CTL 0x2b 48 12=0x79 16=buf:24 24=bad
	refused audit-xfer-size "ret=-EINVAL" --xfer $CTL 0x2a 16385
	refused audit-xfer-empty "ret=-EINVAL" --xfer $CTL 0x2a 0
fi

# --- allow_root=1: root's administrator-only calls pass (the profile must
# admit the command too: administrator-only controls are in no capability) ---
if want validate-allow-root && setup 595.45.04 allow_root=1; then
	echo "ctrl 0x13c" > /sys/kernel/nvmediate/sets/default/allow
	calls_clear
	nvraw $CTL 0x2a 32 8=0x13c 16=buf:1 24=1 > /dev/null
	check validate-allow-root "allow_root=1: the driver received $(ioctls) ioctl(s)" [ "$(ioctls)" = 1 ]
fi

nvm_end
