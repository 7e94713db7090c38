#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# MIG instances and IMEX channels through nvmediate (docs/policy.md, "MIG
# instances and IMEX channels"), against the stand-in's model of them
# (GPU 0 with GPU instances 1 and 2, each with compute instance 0):
#
# - a CUDA-like session on instance 1 (nvmig: client, device, subdevice,
#   the GPU instance's and the compute instance's subscriptions with their
#   capability nodes, memory that needs them, the frees) gives the very
#   same transcript on the driver's nodes and on the nodes of a set given
#   instance 1's capability nodes: the same answers, and the driver's copy
#   of each capability file at the same number of the caller's table,
#   closed again when the subscription goes;
# - through that set, instance 2's capability node, the control node or
#   any file the set was not given, or a closed number, is refused (EPERM)
#   and never reaches the driver; a given node presented for the wrong
#   subscription gets the driver's own answer; the device-profiling
#   subscription (the whole GPU, no capability node) only with profiling;
# - the monitor session with mig/monitor given; the IMEX channel
#   subscription for the channel given, not for another;
# - with podman (runc), given instance 1 by its CDI name (nvproxyctl cdi:
#   a device and a set of its own per instance), a container runs the
#   session; given instance 2's capability node besides, its subscription
#   with it is refused; one that makes instance 2's node itself cannot open
#   it (the device cgroup); a container given an IMEX channel by
#   `cdi --imex-channels` subscribes to it.
# nvm-guest: limit-factor 3
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
SETS=/sys/kernel/nvmediate
CAPS=/proc/driver/nvidia/capabilities
unload_all
if ! load_standin num_gpus=1 mig=0:1:0,0:2:0 || ! load_nvmediate num_gpus=1 > "$T/load.txt" 2>&1 ||
   ! wait_node /dev/nvproxy0; then
	fail mig-setup "cannot load the stand-in and nvmediate: $(cat "$T/load.txt")"
	nvm_end
fi

cap_minor() {	# cap_minor PATH: the capability's minor, from the driver's proc file
	sed -n 's/^DeviceFileMinor: *//p' "$CAPS/$1"
}
CMAJ=$(awk '$2 == "nvidia-caps" { print $1 }' /proc/devices)
XMAJ=$(awk '$2 == "nvidia-caps-imex-channels" { print $1 }' /proc/devices)
GI1=$(cap_minor gpu0/mig/gi1/access)
CI1=$(cap_minor gpu0/mig/gi1/ci0/access)
GI2=$(cap_minor gpu0/mig/gi2/access)
CI2=$(cap_minor gpu0/mig/gi2/ci0/access)
MON=$(cap_minor mig/monitor)
for m in $GI1 $CI1 $GI2 $CI2 $MON; do
	wait_node /dev/nvidia-caps/nvidia-cap$m || fail mig-cap-nodes "no /dev/nvidia-caps/nvidia-cap$m"
done
mkdir -p /dev/nvidia-caps-imex-channels
for c in 1 2; do
	[ -e /dev/nvidia-caps-imex-channels/channel$c ] ||
		mknod -m 666 /dev/nvidia-caps-imex-channels/channel$c c "$XMAJ" $c
done
CAP=/dev/nvidia-caps/nvidia-cap
CH=/dev/nvidia-caps-imex-channels/channel

# A set of its own for instance 1, as nvproxyctl cdi makes it.
S=mig-0-1-0
if echo "$S compute+utility+mig" > $SETS/create_set &&
   echo "$CMAJ:$GI1 $CMAJ:$CI1" > $SETS/sets/$S/nvidia_caps &&
   wait_node /dev/nvmediate/$S/nvidia0; then
	pass mig-set
else
	fail mig-set "cannot make set $S: $(ls $SETS/sets 2>&1)"
fi
check mig-set-lists "nvidia_caps reads '$(tr '\n' ' ' < $SETS/sets/$S/nvidia_caps)'" \
	test "$(tr '\n' ' ' < $SETS/sets/$S/nvidia_caps)" = "$CMAJ:$GI1 $CMAJ:$CI1 "
check mig-set-profile "the profile lacks the nodes: $(cat $SETS/sets/$S/profile)" \
	grep -qx "nvidia_cap $CMAJ:$CI1" $SETS/sets/$S/profile
MED="--ctl /dev/nvmediate/$S/nvidiactl --gpu /dev/nvmediate/$S/nvidia0"

# The transcript without what differs between two runs of one program.
norm() {
	grep -v -e '^pid=' -e '^client=' "$1"
}
# val FILE KEY: one value of an nvmig transcript
val() {
	sed -n "s/^$2=//p" "$1"
}

# --- the session, on the driver's nodes and through the set ---------------
SESS="--mode session --swizzid 1 --ci 0 --gi-cap $CAP$GI1 --ci-cap $CAP$CI1"
calls_clear
nvmig $SESS > "$T/direct.out" 2>&1
calls_save "$T/direct.calls"
calls_clear
fwd0=$(cat /sys/class/nvmediate/stats/forwarded 2>/dev/null)
nvmig $MED $SESS > "$T/med.out" 2>&1
calls_save "$T/med.calls"
if [ "$(val "$T/direct.out" alloc_gi_status)" != 0x0 ] ||
   [ "$(val "$T/direct.out" alloc_ci_status)" != 0x0 ] ||
   [ "$(val "$T/direct.out" alloc_vidmem_status)" != 0x0 ]; then
	fail mig-session-direct "on the driver's nodes: $(grep -e _status= "$T/direct.out" | tr '\n' ' ')"
else
	pass mig-session-direct
fi
if norm "$T/direct.out" > "$T/d" && norm "$T/med.out" > "$T/m" && cmp -s "$T/d" "$T/m"; then
	pass mig-session-same
else
	fail mig-session-same "transcripts differ: $(diff "$T/d" "$T/m" | grep '^[-+][^-+]' | head -n 8 | tr '\n' ' ')"
fi
# The driver's copies: one per subscription while it lives, gone after.
b=$(val "$T/med.out" caps_before)
check mig-dup-gi "caps before $b, after the GPU instance's subscription $(val "$T/med.out" caps_after_alloc_gi) (dup at $(val "$T/med.out" alloc_gi_dup_fd))" \
	test "$(val "$T/med.out" caps_after_alloc_gi)" = $((b + 1)) -a "$(val "$T/med.out" alloc_gi_dup_fd)" -ge 0
check mig-dup-cloexec "the copy's close-on-exec flag: $(val "$T/med.out" alloc_gi_dup_cloexec)" \
	test "$(val "$T/med.out" alloc_gi_dup_cloexec)" = 1
# The program's own two cap files closed, then each free closes a copy.
check mig-dup-freed "caps after closing its own $(val "$T/med.out" caps_after_user_close), after the frees $(val "$T/med.out" caps_after_free_ci) $(val "$T/med.out" caps_after_free_gi)" \
	test "$(val "$T/med.out" caps_after_user_close)" = 2 -a \
	"$(val "$T/med.out" caps_after_free_ci)" = 1 -a "$(val "$T/med.out" caps_after_free_gi)" = 0
# The driver received the same subscriptions, with the caller's numbers.
calls_norm "$T/direct.calls" | grep -E 'swizzid=|execpartitionid=' > "$T/dc"
calls_norm "$T/med.calls" | grep -E 'swizzid=|execpartitionid=' > "$T/mc"
if [ -s "$T/dc" ] && cmp -s "$T/dc" "$T/mc"; then
	pass mig-session-received
else
	fail mig-session-received "the driver received: $(diff "$T/dc" "$T/mc" | head -n 6 | tr '\n' ' ') (direct: $(wc -l < "$T/dc") lines of $(wc -l < "$T/direct.calls"): $(grep -i c637 "$T/direct.calls" | head -n 2))"
fi

# --- another instance's node, and what is not a given node ----------------
WRONG="--mode wrong --swizzid 1 --ci 0 --gi-cap $CAP$GI1 --ci-cap $CAP$CI1 --wrong-cap $CAP$GI2"
nvmig $WRONG > "$T/wd.out" 2>&1
calls_clear
nvmig $MED $WRONG > "$T/wm.out" 2>&1
calls_save "$T/wm.calls"
check mig-wrong-direct "on the driver's nodes instance 2's node answered $(val "$T/wd.out" alloc_gi_wrong_status)" \
	test "$(val "$T/wd.out" alloc_gi_wrong_status)" = 0x1b
for s in alloc_gi_wrong alloc_gi_notcap alloc_gi_badfd alloc_ci_wrong; do
	check "mig-refused-$s" "$s: ret $(val "$T/wm.out" ${s}_ret) status $(val "$T/wm.out" ${s}_status)" \
		test "$(val "$T/wm.out" ${s}_ret)" = -EPERM
done
check mig-refused-unseen "the driver received instance 2's node: $(grep "fdfile=cap$GI2 " "$T/wm.calls" | head -n 2)" \
	test -z "$(grep "fdfile=cap$GI2 " "$T/wm.calls")"
# A given node for the wrong subscription: the driver's answer.  (A closed
# number is refused above: a driver without capability support would take it.)
for s in alloc_ci_gicap alloc_gi alloc_ci; do
	check "mig-driver-$s" "$s: direct $(val "$T/wd.out" ${s}_status), through the set $(val "$T/wm.out" ${s}_status)" \
		test "$(val "$T/wd.out" ${s}_status)" = "$(val "$T/wm.out" ${s}_status)" -a \
		"$(val "$T/wm.out" ${s}_ret)" = 0
done
dmesg | grep 'refused .* family=alloc nr=0xc637 .* rule=fd-node-not-given answer=-1$' > "$T/log" || true
check mig-refused-logged "no log line of the refusal: $(dmesg | grep refused | tail -n 2)" \
	test -s "$T/log"

# --- the device-profiling subscription: the whole GPU -----------------------
PROF="--mode profiling --gi-cap $CAP$GI1"
nvmig $PROF > "$T/pd.out" 2>&1
calls_clear
nvmig $MED $PROF > "$T/pm.out" 2>&1
calls_save "$T/pm.calls"
check mig-profiling-refused "device profiling through the set: $(val "$T/pm.out" alloc_profiling_ret) (directly, as root: $(val "$T/pd.out" alloc_profiling_status))" \
	test "$(val "$T/pm.out" alloc_profiling_ret)" = -EPERM -a "$(val "$T/pd.out" alloc_profiling_status)" = 0x0 -a \
	-z "$(grep 'swizzid=4294967294' "$T/pm.calls")"
echo compute+utility+mig+profiling > $SETS/sets/$S/caps
nvmig $MED $PROF > "$T/pm2.out" 2>&1
check mig-profiling-admitted "with profiling: $(val "$T/pm2.out" alloc_profiling_status)" \
	test "$(val "$T/pm2.out" alloc_profiling_status)" = 0x0
echo compute+utility+mig > $SETS/sets/$S/caps

# --- a thread swaps another instance's node onto the number -------------
# On the driver's own nodes the driver is sometimes handed instance 2's
# node; through the set, the number names one node when nvmediate looks
# and the driver gets that very file: instance 2's never reaches it.
RACE="--mode race --swizzid 1 --gi-cap $CAP$GI1 --wrong-cap $CAP$GI2 --rounds 300"
nvmig $RACE > "$T/rd.out" 2>&1
calls_clear
nvmig $MED $RACE > "$T/rm.out" 2>&1
calls_save "$T/rm.calls"
echo "  race, 300 subscriptions: direct made $(val "$T/rd.out" race_made) denied $(val "$T/rd.out" race_denied);" \
	"through the set made $(val "$T/rm.out" race_made) refused $(val "$T/rm.out" race_refused) denied $(val "$T/rm.out" race_denied) other $(val "$T/rm.out" race_other)"
check mig-race-never-wrong "through the set the driver was handed instance 2's node $(val "$T/rm.out" race_denied) times ($(grep -c "fdfile=cap$GI2 " "$T/rm.calls") in its log)" \
	test "$(val "$T/rm.out" race_denied)" = 0 -a -z "$(grep "fdfile=cap$GI2 " "$T/rm.calls")" -a \
	"$(val "$T/rm.out" race_other)" = 0
check mig-race-made "through the set: made $(val "$T/rm.out" race_made), refused $(val "$T/rm.out" race_refused)" \
	test "$(val "$T/rm.out" race_made)" -gt 0 -a "$(val "$T/rm.out" race_refused)" -gt 0

# --- the monitor session, and the config session no capability admits ----
echo "$CMAJ:$MON" > $SETS/sets/default/nvidia_caps
nvmig --mode monitor --cap $CAP$MON > "$T/mond.out" 2>&1
echo compute+utility+mig > $SETS/sets/default/caps
nvmig --ctl /dev/nvproxy --gpu /dev/nvproxy0 --mode monitor --cap $CAP$MON > "$T/monm.out" 2>&1
# The control node presented as the capability: the driver's refusal on
# its own nodes, nvmediate's before the driver through the set; the rest alike.
check mig-monitor-notcap "the control node as the capability: direct $(val "$T/mond.out" alloc_session_notcap_status), through the set $(val "$T/monm.out" alloc_session_notcap_ret)" \
	test "$(val "$T/mond.out" alloc_session_notcap_status)" = 0x1b -a \
	"$(val "$T/monm.out" alloc_session_notcap_ret)" = -EPERM
if norm "$T/mond.out" | grep -v notcap > "$T/d" && norm "$T/monm.out" | grep -v notcap > "$T/m" &&
   cmp -s "$T/d" "$T/m" &&
   [ "$(val "$T/monm.out" alloc_session_status)" = 0x0 ]; then
	pass mig-monitor-same
else
	fail mig-monitor-same "$(diff "$T/d" "$T/m" | grep '^[-+][^-+]' | head -n 6 | tr '\n' ' ') through the set: $(grep -e _ret= -e _status= "$T/monm.out" | tr '\n' ' ')"
fi
echo none > $SETS/sets/default/nvidia_caps
nvmig --ctl /dev/nvproxy --gpu /dev/nvproxy0 --mode monitor --cap $CAP$MON > "$T/monn.out" 2>&1
check mig-monitor-not-given "mig/monitor not given: $(val "$T/monn.out" alloc_session_ret)" \
	test "$(val "$T/monn.out" alloc_session_ret)" = -EPERM
echo compute+utility > $SETS/sets/default/caps

# --- IMEX channels -------------------------------------------------------
X=imex-a
echo "$X compute+utility+fabric-imex" > $SETS/create_set
echo "$XMAJ:1" > $SETS/sets/$X/imex_channels
wait_node /dev/nvmediate/$X/nvidiactl
IMEX="--mode imex --imex ${CH}1 --imex2 ${CH}2"
nvmig $IMEX > "$T/xd.out" 2>&1
calls_clear
nvmig --ctl /dev/nvmediate/$X/nvidiactl --gpu /dev/nvmediate/$X/nvidia0 $IMEX > "$T/xm.out" 2>&1
calls_save "$T/xm.calls"
check mig-imex-given "channel 1: direct $(val "$T/xd.out" imex_subscribe_status) channel $(val "$T/xd.out" imex_subscribe_channel), through the set $(val "$T/xm.out" imex_subscribe_status) channel $(val "$T/xm.out" imex_subscribe_channel)" \
	test "$(val "$T/xm.out" imex_subscribe_status)" = 0x0 -a \
	"$(val "$T/xm.out" imex_subscribe_channel)" = 1 -a \
	"$(val "$T/xd.out" imex_subscribe_channel)" = 1
check mig-imex-other "channel 2 on a second client: direct $(val "$T/xd.out" imex_client2_status), through the set ret $(val "$T/xm.out" imex_client2_ret)" \
	test "$(val "$T/xd.out" imex_client2_status)" = 0x0 -a \
	"$(val "$T/xm.out" imex_client2_ret)" = -EPERM
check mig-imex-notchannel "a file that is no channel: $(val "$T/xm.out" imex_notchannel_ret)" \
	test "$(val "$T/xm.out" imex_notchannel_ret)" = -EPERM
check mig-imex-unseen "the driver received channel 2: $(grep 'fdfile=imex2 ' "$T/xm.calls" | head -n 2)" \
	test -z "$(grep 'fdfile=imex2 ' "$T/xm.calls")"

# --- containers, by CDI name ---------------------------------------------
if ! command -v podman > /dev/null; then
	fail mig-podman-present "podman is not in the guest (tests/qemu/podman.sh could not fetch it)"
	unload_all
	nvm_end
fi
podman_host_setup
R=$T/rootfs
ctr_rootfs "$R" nvmig
calls_clear
if nvproxyctl cdi --output /etc/cdi/nvmediate.json > "$T/cdi.txt" 2>&1 &&
   grep -q '"name": *"0:1:0"' /etc/cdi/nvmediate.json; then
	pass mig-cdi-spec
else
	fail mig-cdi-spec "$(tr '\n' ' ' < "$T/cdi.txt") devices: $(grep -o '"name": *"[^"]*"' /etc/cdi/nvmediate.json | tr '\n' ' ')"
fi
calls_save "$T/cdi.calls"
check mig-cdi-set "set mig-0-2-0's nvidia_caps: '$(tr '\n' ' ' < $SETS/sets/mig-0-2-0/nvidia_caps 2>&1)'" \
	test "$(tr '\n' ' ' < $SETS/sets/mig-0-2-0/nvidia_caps)" = "$CMAJ:$GI2 $CMAJ:$CI2 "
# The MIG devices by their UUIDs, which cdi asks the driver for on its own
# nodes: instance 1's as the session read it.
U1=$(val "$T/direct.out" ctrl_ci_uuid_uuid)
U2=$(echo "$U1" | sed 's/0100$/0200/')
check mig-cdi-uuid "instance 1's UUID '$U1'; devices: $(grep -o '"name": *"[^"]*"' /etc/cdi/nvmediate.json | tr '\n' ' '); said: $(grep UUID "$T/cdi.txt" | tr '\n' ' ')" \
	sh -c "test -n '$U1' && grep -q '\"name\": *\"$U1\"' /etc/cdi/nvmediate.json &&
		grep -q '\"name\": *\"$U2\"' /etc/cdi/nvmediate.json && ! grep -q UUID '$T/cdi.txt'"
check mig-cdi-uuid-calls "GET_UUID calls $(grep -c 'cmd=0xc6380101 ' "$T/cdi.calls"), answered $(grep 'cmd=0xc6380101 ' "$T/cdi.calls" | grep -c ' status=0x0 '); left: $(state_leaks)" \
	test "$(grep 'cmd=0xc6380101 ' "$T/cdi.calls" | grep -c ' status=0x0 ')" = 2 -a -z "$(state_leaks)"
calls_clear
nvproxyctl cdi --no-driver-query --output "$T/nq.json" > "$T/nq.txt" 2>&1
calls_save "$T/nq.calls"
check mig-cdi-no-query "names: $(grep -o '"name": *"MIG-[^"]*"' "$T/nq.json" | tr '\n' ' '); ioctls: $(grep -c 'op=ioctl' "$T/nq.calls")" \
	test -z "$(grep '"MIG-' "$T/nq.json")" -a "$(grep -c 'op=ioctl' "$T/nq.calls")" = 0
ctr() {	# ctr OUT [podman options] -- nvmig arguments: a runc container given instance 1
	out=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	podman --runtime runc run --rm --device nvmediate.io/gpu=0:1:0 $opts --rootfs "$R" \
		/bin/sh -c "$*" > "$out" 2>&1
}
ctr "$T/c1.out" -- nvmig $SESS
check mig-ctr-session "in the container: $(grep -e _ret=-E -e '_status=0x[1-9a-f]' "$T/c1.out" | head -n 4 | tr '\n' ' ') $(tail -n 2 "$T/c1.out" | tr '\n' ' ')" \
	sh -c "grep -qx 'alloc_gi_status=0x0' '$T/c1.out' && grep -qx 'alloc_ci_status=0x0' '$T/c1.out' &&
		grep -qx 'alloc_vidmem_status=0x0' '$T/c1.out' && grep -qx 'result=done' '$T/c1.out'"
podman --runtime runc run --rm --device "nvmediate.io/gpu=$U1" --rootfs "$R" /bin/sh -c "nvmig $SESS" > "$T/c5.out" 2>&1
check mig-ctr-uuid "given instance 1 by its UUID: $(grep -e _ret=-E -e '_status=0x[1-9a-f]' "$T/c5.out" | head -n 4 | tr '\n' ' ') $(tail -n 2 "$T/c5.out" | tr '\n' ' ')" \
	sh -c "grep -qx 'alloc_ci_status=0x0' '$T/c5.out' && grep -qx 'ctrl_ci_uuid_uuid=$U1' '$T/c5.out' && grep -qx 'result=done' '$T/c5.out'"
ctr "$T/c2.out" --device $CAP$GI2 -- nvmig $WRONG
check mig-ctr-other-instance "given instance 2's node too: open $(val "$T/c2.out" open_wrong_cap_ret), subscription $(val "$T/c2.out" alloc_gi_wrong_ret) $(val "$T/c2.out" alloc_gi_wrong_status); own $(val "$T/c2.out" alloc_gi_status)" \
	test "$(val "$T/c2.out" open_wrong_cap_ret)" = 0 -a "$(val "$T/c2.out" alloc_gi_wrong_ret)" = -EPERM -a \
	"$(val "$T/c2.out" alloc_gi_status)" = 0x0
ctr "$T/c3.out" -- "mknod /tmp/cap c $CMAJ $GI2 && nvmig $(echo "$WRONG" | sed "s|$CAP$GI2|/tmp/cap|")"
check mig-ctr-cgroup "a node of instance 2 made inside: open $(val "$T/c3.out" open_wrong_cap_ret) $(tail -n 1 "$T/c3.out")" \
	test "$(val "$T/c3.out" open_wrong_cap_ret)" = -EPERM
echo compute+utility > $SETS/sets/default/caps
if nvproxyctl cdi --set $X --imex-channels 1 --output /etc/cdi/imex.json > "$T/cdix.txt" 2>&1; then
	podman --runtime runc run --rm --device nvmediate.io/set-$X=0 --rootfs "$R" \
		/bin/nvmig --mode imex --imex ${CH}1 > "$T/c4.out" 2>&1
	check mig-ctr-imex "in the container: $(grep -e '^imex_subscribe' -e '^open_imex' "$T/c4.out" | tr '\n' ' ') $(tail -n 1 "$T/c4.out")" \
		sh -c "grep -qx 'imex_subscribe_status=0x0' '$T/c4.out' && grep -qx 'imex_subscribe_channel=1' '$T/c4.out'"
else
	fail mig-ctr-imex "cdi --imex-channels: $(tr '\n' ' ' < "$T/cdix.txt")"
fi
# The monitor and config sessions in a container, by cdi --mig-monitor
# --mig-config: their nodes passed through, listed in the default set.
CFG=$(cap_minor mig/config)
echo none > $SETS/sets/default/nvidia_caps
if nvproxyctl cdi --mig-monitor --mig-config --output /etc/cdi/nvmediate.json > "$T/cdim.txt" 2>&1; then
	pass mig-cdi-sessions
else
	fail mig-cdi-sessions "$(tr '\n' ' ' < "$T/cdim.txt")"
fi
check mig-cdi-sessions-set "default set: nvidia_caps '$(tr '\n' ' ' < $SETS/sets/default/nvidia_caps)', caps '$(cat $SETS/sets/default/caps)', allow '$(tr '\n' ' ' < $SETS/sets/default/allow)'" \
	sh -c "grep -qx '$CMAJ:$MON' $SETS/sets/default/nvidia_caps && grep -qx '$CMAJ:$CFG' $SETS/sets/default/nvidia_caps &&
		grep -qw mig $SETS/sets/default/caps && grep -qx 'alloc 0xc639' $SETS/sets/default/allow"
for mode in monitor config; do
	if [ $mode = monitor ]; then m=$MON; else m=$CFG; fi
	podman --runtime runc run --rm --device nvmediate.io/gpu=0 --rootfs "$R" \
		/bin/nvmig --mode $mode --cap $CAP$m > "$T/c-$mode.out" 2>&1
	check "mig-ctr-$mode" "in the container: $(grep -e '^alloc_session' -e '^open_cap' "$T/c-$mode.out" | tr '\n' ' ') $(tail -n 1 "$T/c-$mode.out")" \
		test "$(val "$T/c-$mode.out" alloc_session_status)" = 0x0
done
echo none > $SETS/sets/default/nvidia_caps
echo compute+utility > $SETS/sets/default/caps
echo '-alloc 0xc639' > $SETS/sets/default/allow
rm -f /etc/cdi/nvmediate.json /etc/cdi/imex.json

unload_all
nvm_end
