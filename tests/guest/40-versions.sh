#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Version ranges: nvmediate serves the stand-in driver at a known release, at
# an unknown version inside a range proven ABI-identical, at a version newer
# than every known release of a settled branch (the successor tier, counted;
# refused with successor=0), refuses one in a gap or of a new major (until
# told otherwise), and re-detects when the driver is reloaded at another
# version.  Each case checks what open() gave
# user space, what sysfs says, and what the kernel log said, once.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
SYS=/sys/class/nvmediate

sysfs_state() {
	echo "$(cat $SYS/driver_version) $(cat $SYS/tier) $(cat $SYS/range)"
}

# version_case NAME STANDIN_VERSION EXPECT_OPEN "EXPECTED SYSFS STATE" \
#	CTL_SOURCE UVM_SOURCE [nvmediate params]
# The stand-in's nvidia.ko carries the version as MODULE_VERSION; its
# nvidia-uvm.ko has none (like nvidia-uvm before 520), so a UVM open finds
# the version in /proc/driver/nvidia/version instead.
version_case() {
	name=$1 ver=$2 want_open=$3 want_state=$4 want_src=$5 want_src2=$6
	shift 6
	unload_all
	echo "nvmtest: $name" > /dev/kmsg
	if ! load_standin version="$ver" num_gpus=1; then
		fail "$name" "cannot load the stand-in at $ver"
		return
	fi
	if ! load_nvmediate "$@" > "$T/load.txt" 2>&1; then
		fail "$name" "$(cat "$T/load.txt")"
		return
	fi
	out=$(openclose --path /dev/nvproxy --count 3 --expect "$want_open")
	rc=$?
	state=$(sysfs_state)
	src=$(cat $SYS/version_source)
	# A UVM open must decide the same way.
	out2=$(openclose --path /dev/nvproxy-uvm --count 1 --expect "$want_open")
	rc2=$?
	state2=$(sysfs_state)
	src2=$(cat $SYS/version_source)
	dmesg | sed -n "/nvmtest: $name\$/,\$p" | grep 'nvmediate: driver' > "$T/log.txt"
	said=$(wc -l < "$T/log.txt")
	if [ $rc -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail "$name" "open: $out; uvm: $out2 (wanted $want_open)"
	elif [ "$state" != "$want_state" ] || [ "$state2" != "$want_state" ]; then
		fail "$name" "sysfs says '$state' then '$state2', wanted '$want_state'"
	elif [ "$src $src2" != "$want_src $want_src2" ]; then
		fail "$name" "version found in '$src' then '$src2', wanted '$want_src $want_src2'"
	elif [ "$said" -ne 1 ]; then
		fail "$name" "the kernel log said it $said times: $(tr '\n' '|' < "$T/log.txt")"
	else
		pass "$name"
		echo "  $ver: open $want_open; sysfs: $state; log: $(cat "$T/log.txt")"
	fi
}

# 595.45.04 is a release; 550.100 a two-part one.
version_case version-known 595.45.04 OK "595.45.04 exact 595.44.02..595.45.04" module proc
version_case version-two-part 550.100 OK "550.100 exact 550.90.07..550.100" module proc
# 535.171.05 was never published but lies inside 535.161.07..535.179.
version_case version-interpolated 535.171.05 OK \
	"535.171.05 interpolated 535.161.07..535.179" module proc
# 515.45.01 falls between 515.43.04 and 515.48.07, which differ.
version_case version-gap 515.45.01 EPROTONOSUPPORT "515.45.01 outside none" module proc
# Newer than every known release of a branch that has had production
# releases for a while (580): served with that branch's newest ABI, the
# successor tier; refused with successor=0.
version_case version-successor 580.159.03 OK \
	"580.159.03 successor 580.126.09..580.142" module proc
version_case version-successor-refused 580.159.03 EPROTONOSUPPORT \
	"580.159.03 successor none" module proc successor=0
# A new major: refused, then accepted on the administrator's word.
version_case version-new-major 610.43.02 EPROTONOSUPPORT "610.43.02 outside none" module proc
version_case version-new-major-accepted 610.43.02 OK \
	"610.43.02 outside 595.44.02..595.45.04" module proc accept_outside=1
version_case version-forced 595.71.05 OK \
	"570.211.01 exact 570.195.03..570.211.01" force_version force_version \
	force_version=570.211.01

# The refusal says what was found, what is near, and what to do: in the
# log and in sysfs.
if dmesg | grep -q "driver 610.43.02 (from [a-z]*) is outside every known ABI range (nearest lower: 595.44.02..595.45.04, nearest higher: none; no release of its branch is known: a new major is never served as a successor); opens of the mediated nodes fail with EPROTONOSUPPORT. To serve it, add the release to nvmediate ('nvabi add' .*accept_outside=1.*force_version="; then
	pass version-refusal-actionable
else
	fail version-refusal-actionable "the refusal does not name the version, nearest ranges and remedies: $(dmesg | grep 'driver 610.43.02' | tail -n 1)"
fi
check version-successor-logged "no warning names the successor tier and its remedies: $(dmesg | grep 'driver 580.159.03' | head -n 1)" \
	sh -c "dmesg | grep -q \"driver 580.159.03 (from [a-z]*) is newer than every known release of branch 580 (newest known: 580.142); serving it with that release's ABI range 580.126.09..580.142 (tier successor).*nvabi add.*successor=0\""

# Under the successor tier, the calls the served ABI does not know are
# refused (a control it has no entry for: answered NOT_SUPPORTED, as the
# driver answers it) and counted.
unload_all
load_standin version=580.159.03 num_gpus=1 && load_nvmediate > /dev/null
before=$(cat $SYS/stats/successor_unknown)
out=$(nvraw /dev/nvproxy 0x2a 32 8=0x00ff0001 st=28 2>&1)
after=$(cat $SYS/stats/successor_unknown)
check version-successor-counted "call: $out; successor_unknown $before -> $after" \
	sh -c "echo '$out' | grep -q 'ret=0 status=0x56' && [ $after = $((before + 1)) ]"
check version-successor-detail "tier_detail: $(cat $SYS/tier_detail)" \
	sh -c "grep -q '^newer than every known release of branch 580 (newest known: 580.142); serving it' $SYS/tier_detail"
status=$(nvproxyctl status 2>&1)
check version-successor-status "nvproxyctl status: $status" \
	sh -c "echo \"\$0\" | grep -q 'tier:            successor' && echo \"\$0\" | grep -q 'tier detail:     newer than every known release of branch 580' && echo \"\$0\" | grep -q 'refused as unknown under the successor tier: 1'" "$status"

# A bad force_version is refused at load.
unload_all
if modprobe nvmediate force_version=garbage 2>/dev/null; then
	fail version-force-garbage "nvmediate loaded with force_version=garbage"
else
	check version-force-garbage "no message about force_version" \
		sh -c 'dmesg | grep -q "force_version=garbage is not a driver version"'
fi

# What sysfs says follows the driver, before any open: decided when
# nvmediate loads, when the driver's module goes away (none, and why), and
# when it comes back at another version; the next open uses it.
unload_all
load_standin version=595.45.04 num_gpus=1 && load_nvmediate > /dev/null
at_load=$(sysfs_state)
openclose --path /dev/nvproxy --count 1 > /dev/null
before=$(sysfs_state)
rmmod nvidia_uvm nvidia
gone="$(sysfs_state) | $(cat $SYS/tier_detail)"
load_standin version=535.171.05 num_gpus=1
reloaded=$(sysfs_state)
openclose --path /dev/nvproxy --count 1 > "$T/reload.txt"
after=$(sysfs_state)
check version-at-load "at load, before any open: $at_load" \
	[ "$at_load" = "595.45.04 exact 595.44.02..595.45.04" ]
check version-driver-gone "the driver unloaded: $gone" \
	[ "$gone" = "none none none | no driver version: the nvidia driver was unloaded; decided when it is loaded again" ]
check version-driver-reloaded "reloaded at 535.171.05, before any open: $reloaded" \
	[ "$reloaded" = "535.171.05 interpolated 535.161.07..535.179" ]
if [ "$before" = "595.45.04 exact 595.44.02..595.45.04" ] &&
   [ "$after" = "535.171.05 interpolated 535.161.07..535.179" ]; then
	pass version-reload
else
	fail version-reload "before: $before; after: $after; $(cat "$T/reload.txt")"
fi
# nvmediate loaded before the driver: nothing to decide, and said so.
unload_all
load_nvmediate > /dev/null
none="$(sysfs_state) | $(cat $SYS/tier_detail)"
check version-no-driver "no driver loaded: $none" \
	[ "$none" = "none none none | no driver version: the nvidia driver is not loaded; decided when it is" ]

nvm_end
