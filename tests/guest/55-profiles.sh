#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Capability profiles and node sets (docs/policy.md): the default profile
# admits the CUDA-like session at three driver majors; a set with a
# restricted profile refuses what it does not admit, with the documented
# answer and nothing reaching the driver; sets created by the module
# parameter and at run time, removed, and not removed while a file is open;
# an audit run on a set that admits nothing, turned into a profile by
# nvproxyctl and applied to a fresh enforcing set, admits that workload with
# no refusal and refuses a call the workload did not make.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
SYS=/sys/kernel/nvmediate
SETS="cu:compute+utility,lim:graphics,learn:none"

setup() {	# setup STANDIN_VERSION [NVMEDIATE PARAMS]
	v=$1
	shift
	unload_all
	if ! load_standin version="$v" num_gpus=2; then
		fail "profiles-setup-$v" "cannot load the stand-in driver at $v"
		return 1
	fi
	if ! load_nvmediate "$@" > "$T/load.txt" 2>&1; then
		fail "profiles-setup-$v" "nvmediate: $(tr '\n' ' ' < "$T/load.txt")"
		return 1
	fi
	wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm
}

ioctls() {	# the ioctl lines of the call log
	grep -c ' op=ioctl ' "$NVM_STANDIN_DIR/calls"
}

nodes() {	# nodes SET: the nvsession arguments for the set's nodes
	if [ "$1" = default ]; then
		echo "--ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm"
	else
		echo "--ctl /dev/nvmediate/$1/nvidiactl --gpu /dev/nvmediate/$1/nvidia0 --uvm /dev/nvmediate/$1/nvidia-uvm"
	fi
}

# refused NAME WANT NVRAW-ARGS...: the answer is WANT and the driver saw no ioctl
refused() {
	name=$1
	want=$2
	shift 2
	calls_clear
	got=$(nvraw "$@" 2>&1)
	n=$(ioctls)
	if [ "$got" != "$want" ]; then
		fail "profiles-$name" "nvraw $*: '$got', want '$want'"
	elif [ "$n" != 0 ]; then
		fail "profiles-$name" "refused, but the driver received $n ioctl(s)"
	else
		pass "profiles-$name"
	fi
}

# forwarded NAME NVRAW-ARGS...: the driver received exactly one ioctl
forwarded() {
	name=$1
	shift
	calls_clear
	got=$(nvraw "$@" 2>&1)
	n=$(ioctls)
	check "profiles-$name" "nvraw $*: '$got', the driver received $n ioctl(s), want 1" [ "$n" = 1 ]
}

session() {	# session NAME SET [nvsession options]: the session passes
	name=$1
	set=$2
	shift 2
	# shellcheck disable=SC2046
	if nvsession "$@" $(nodes "$set") > "$T/s.txt" 2>&1; then
		pass "profiles-$name"
	else
		fail "profiles-$name" "$(failures "$T/s.txt")"
	fi
}

# --- the default profile (compute + utility) admits the session, three majors ---
for v in 535.288.01 550.163.01 595.45.04; do
	setup $v sets="$SETS" || continue
	session "session-default-$v" default --mediated
	session "session-set-$v" cu --mediated
done

# --- the sets of the module parameter and their profiles ---
if setup 595.45.04 sets="$SETS"; then
	ok=1
	for s in cu lim learn; do
		for n in nvidiactl nvidia0 nvidia1 nvidia-uvm; do
			wait_node /dev/nvmediate/$s/$n || ok=0
		done
	done
	check profiles-param-nodes "missing nodes: $(ls -R /dev/nvmediate 2>&1 | tr '\n' ' ')" [ $ok = 1 ]
	got="$(cat $SYS/sets/default/caps)/$(cat $SYS/sets/cu/caps)/$(cat $SYS/sets/lim/caps)/$(cat $SYS/sets/learn/caps)"
	check profiles-param-caps "caps: $got" [ "$got" = "compute utility/compute utility/graphics/none" ]

	# --- a restricted profile (graphics only), at 595.45.04 layouts ---
	L=/dev/nvmediate/lim
	refused ctrl "ret=0 status=0x56" $L/nvidiactl 0x2a 32 8=0x201 16=buf:128 24=128 st=28
	refused ctrl-xfer "ret=0 status=0x56" --xfer $L/nvidiactl 0x2a 32 8=0x201 16=buf:128 24=128 st=28
	refused alloc "ret=-EPERM" $L/nvidiactl 0x2b 48 12=0x79 16=buf:24
	refused alloc-root-client "ret=-EPERM" $L/nvidiactl 0x2b 48 12=0x0
	refused esc "ret=-EPERM" $L/nvidiactl 0xd6 8
	refused uvm "ret=-EPERM" --uvm $L/nvidia-uvm 0x30000001 16
	# the shape is checked first
	refused shape-first "ret=0 status=0x1f" $L/nvidiactl 0x2a 32 8=0x201 16=buf:128 24=124 st=28
	# the same calls on a compute + utility set reach the driver
	forwarded ctrl-other-set /dev/nvmediate/cu/nvidiactl 0x2a 32 8=0x201 16=buf:128 24=128 st=28
	forwarded esc-other-set /dev/nvmediate/cu/nvidiactl 0xd6 8
	# an allow entry admits its call alone; a capability write takes effect
	echo "ctrl 0x201" > $SYS/sets/lim/allow
	forwarded allow-entry $L/nvidiactl 0x2a 32 8=0x201 16=buf:128 24=128 st=28
	refused allow-entry-alone "ret=-EPERM" $L/nvidiactl 0xd6 8
	echo "-ctrl 0x201" > $SYS/sets/lim/allow
	refused allow-entry-removed "ret=0 status=0x56" $L/nvidiactl 0x2a 32 8=0x201 16=buf:128 24=128 st=28
	echo "graphics compute" > $SYS/sets/lim/caps
	forwarded caps-write $L/nvidiactl 0xd6 8
	check profiles-bad-write "a bad capability was accepted" sh -c "! echo bogus > $SYS/sets/lim/caps 2>/dev/null"
	check profiles-bad-write-kept "caps after a bad write: $(cat $SYS/sets/lim/caps)" \
		[ "$(cat $SYS/sets/lim/caps)" = "compute graphics" ]
	# lists longer than a page: 300 allow entries, in two writes, read back whole
	i=0
	while [ $i -lt 300 ]; do
		printf 'ctrl 0x%x\n' $((0x10000000 + i))
		i=$((i + 1))
	done > "$T/many"
	head -n 150 "$T/many" > $SYS/sets/lim/allow
	tail -n 150 "$T/many" > $SYS/sets/lim/allow
	check profiles-long-allow "allow holds $(wc -l < $SYS/sets/lim/allow) lines, bytes: $(wc -c < $SYS/sets/lim/allow)" \
		sh -c "[ \$(wc -l < $SYS/sets/lim/allow) = 300 ] && [ \$(grep -c '^allow ctrl 0x1' $SYS/sets/lim/profile) = 300 ] && tail -n 1 $SYS/sets/lim/allow | grep -qx 'ctrl 0x1000012b'"
	echo clear > $SYS/sets/lim/allow
	check profiles-clear "allow after clear: $(head -n 2 $SYS/sets/lim/allow | tr '\n' ' ')" \
		[ -z "$(cat $SYS/sets/lim/allow)" ]
	# the default set's profile is its own
	forwarded default-unchanged /dev/nvproxy 0xd6 8

	# --- sets at run time ---
	echo "rt compute+utility" > $SYS/create_set
	if wait_node /dev/nvmediate/rt/nvidiactl && wait_node /dev/nvmediate/rt/nvidia-uvm; then
		pass profiles-create
	else
		fail profiles-create "no /dev/nvmediate/rt nodes: $(ls -R /dev/nvmediate | tr '\n' ' ')"
	fi
	forwarded runtime-set /dev/nvmediate/rt/nvidiactl 0xd6 8
	check profiles-create-twice "a second set rt was created" sh -c "! echo rt > $SYS/create_set 2>/dev/null"
	check profiles-create-bad-name "a set named 'Bad/Name' was created" \
		sh -c "! echo Bad/Name > $SYS/create_set 2>/dev/null"
	# "set-NAME" must be a CDI device class: it ends with a letter or digit
	check profiles-create-cdi-name "a set named 'rt-' was created" \
		sh -c "! echo rt- > $SYS/create_set 2>/dev/null && [ ! -e $SYS/sets/rt- ]"
	exec 3<> /dev/nvmediate/rt/nvidiactl
	check profiles-open-files "open_files: $(cat $SYS/sets/rt/open_files)" [ "$(cat $SYS/sets/rt/open_files)" = 1 ]
	if echo rt > $SYS/remove_set 2> "$T/rm.err"; then
		fail profiles-remove-busy "removed while a file is open"
	elif ! grep -qi 'busy' "$T/rm.err"; then
		fail profiles-remove-busy "refused, but not with EBUSY: $(cat "$T/rm.err")"
	else
		pass profiles-remove-busy
	fi
	exec 3>&-
	rt_dev=$(ls -l /dev/nvmediate/rt/nvidiactl | awk '{ print $5 $6 }')
	if echo rt > $SYS/remove_set; then
		i=0
		while [ -e /dev/nvmediate/rt/nvidiactl ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		check profiles-remove "after removal: $(ls /dev/nvmediate/rt $SYS/sets 2>&1 | tr '\n' ' ')" \
			sh -c "[ ! -e /dev/nvmediate/rt/nvidiactl ] && [ ! -e $SYS/sets/rt ]"
	else
		fail profiles-remove "remove_set refused with no file open"
	fi
	check profiles-remove-default "the default set was removed" sh -c "! echo default > $SYS/remove_set 2>/dev/null"
	echo "rt none" > $SYS/create_set
	check profiles-recreate "rt again, caps none: $(cat $SYS/sets/rt/caps 2>&1)" [ "$(cat $SYS/sets/rt/caps)" = none ]
	# A removed set's numbers are not the next set's: a container that kept
	# the old node must not reach the new profile through it.
	wait_node /dev/nvmediate/rt/nvidiactl
	new_dev=$(ls -l /dev/nvmediate/rt/nvidiactl | awk '{ print $5 $6 }')
	check profiles-recreate-numbers "removed rt was $rt_dev, the new rt is $new_dev" \
		sh -c '[ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]' - "$rt_dev" "$new_dev"
	echo rt > $SYS/remove_set

	# --- audit run -> nvproxyctl profile -> apply -> enforce ---
	echo 1 > $SYS/sets/learn/audit
	echo 0 > $SYS/sets/learn/refused
	calls_clear
	# audit forwards what would be refused, so the driver's own answers are
	# expected (no --mediated)
	session audit-run learn
	n=$(ioctls)
	check profiles-audit-forwards "the audit run forwarded only $n ioctl(s)" [ "$n" -gt 20 ]
	check profiles-audit-record "no ctrl-profile entry: $(head -n 3 $SYS/sets/learn/refused | tr '\n' ';')" \
		grep -q '^ctrl 0x201 ctrl-profile [1-9]' $SYS/sets/learn/refused
	check profiles-audit-log "no audit line: $(dmesg | grep 'audit' | tail -n 2 | tr '\n' ';')" \
		sh -c "dmesg | grep -q 'nvmediate: audit pid=[0-9]* comm=nvsession cgroup=[^ ]* node=nvmediate/learn/nvidiactl family=[a-z]* nr=0x[0-9a-f]* name=[^ ]* size=[0-9]* rule=[a-z-]* answer='"
	if nvproxyctl profile --set learn > "$T/app.profile" 2> "$T/profile.err"; then
		pass profiles-nvproxyctl-profile
	else
		fail profiles-nvproxyctl-profile "exit $?: $(tr '\n' ' ' < "$T/profile.err")"
	fi
	# an allow line per call refused by the profile, nothing else
	want=$(grep -c -- '-profile ' $SYS/sets/learn/refused)
	got=$(grep -c '^allow ' "$T/app.profile")
	check profiles-profile-entries "$got allow lines for $want refusals: $(tr '\n' ';' < "$T/app.profile")" \
		sh -c "[ '$want' -gt 5 ] && [ '$got' = '$want' ]"

	echo "app none" > $SYS/create_set
	wait_node /dev/nvmediate/app/nvidia-uvm
	if nvproxyctl apply --set app "$T/app.profile" > "$T/apply.out" 2>&1; then
		pass profiles-nvproxyctl-apply
	else
		fail profiles-nvproxyctl-apply "$(tr '\n' ' ' < "$T/apply.out")"
	fi
	grep '^allow ' "$T/app.profile" | sort > "$T/want.allow"
	grep '^allow ' $SYS/sets/app/profile | sort > "$T/got.allow"
	check profiles-applied "the set's profile differs from the file: $(diff "$T/want.allow" "$T/got.allow" | tr '\n' ' ')" \
		cmp -s "$T/want.allow" "$T/got.allow"
	sed 's/^/# app.profile: /' "$T/app.profile"
	session enforced-run app --mediated
	# one allow entry fewer: the workload no longer passes
	echo "short none" > $SYS/create_set
	wait_node /dev/nvmediate/short/nvidia-uvm
	grep -v '^allow ctrl 0x201$' "$T/app.profile" > "$T/short.profile"
	nvproxyctl apply --set short "$T/short.profile" > /dev/null 2>&1
	# shellcheck disable=SC2046
	if ! grep -q '^allow ctrl 0x201$' "$T/app.profile"; then
		fail profiles-one-fewer "the profile has no 'allow ctrl 0x201' to leave out"
	elif nvsession --mediated $(nodes short) > "$T/short.txt" 2>&1; then
		fail profiles-one-fewer "the session passed without NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS"
	else
		pass profiles-one-fewer
	fi
	# the same profile in audit mode: the session makes no call it refuses
	echo "chk none" > $SYS/create_set
	wait_node /dev/nvmediate/chk/nvidia-uvm
	nvproxyctl apply --set chk "$T/app.profile" > /dev/null 2>&1
	echo 1 > $SYS/sets/chk/audit
	nvsession $(nodes chk) > /dev/null 2>&1
	check profiles-no-refusal "refused by the generated profile: $(grep -- '-profile ' $SYS/sets/chk/refused | tr '\n' ';')" \
		sh -c "grep -q . $SYS/sets/chk/refused && ! grep -q -- '-profile ' $SYS/sets/chk/refused"
	# calls the workload did not make are refused
	refused not-made-ctrl "ret=0 status=0x56" /dev/nvmediate/app/nvidiactl 0x2a 32 8=0x102 16=buf:108 24=108 st=28
	refused not-made-esc "ret=-EPERM" /dev/nvmediate/app/nvidiactl 0xd6 8
	nvproxyctl status > "$T/status.txt" 2>&1
	check profiles-status "nvproxyctl status does not list the sets: $(tail -n 8 "$T/status.txt" | tr '\n' ' ')" \
		sh -c "grep -q '^  app  *nvmediate\|^  app  */dev/nvmediate/app/nvidiactl' '$T/status.txt' && grep -q '^    caps compute graphics;' '$T/status.txt' && grep -q '^    allow ctrl 0x201$' '$T/status.txt'"
	nvproxyctl cdi --set app > "$T/cdi.json" 2>&1
	check profiles-cdi "cdi --set app: $(head -c 300 "$T/cdi.json")" \
		sh -c "grep -q '\"kind\": \"nvmediate.io/set-app\"' '$T/cdi.json' && grep -q '{\"hostPath\": \"/run/nvmediate/app/nvidiactl\", \"containerPath\": \"/dev/nvidiactl\"' '$T/cdi.json' && grep -q ' /run/nvmediate/app nvmediatefs ' /proc/mounts"
	umount /run/nvmediate/app	# a mounted set cannot be removed
fi

# --- a load that fails on its sets= leaves nothing, and lets no file in ---
# The default set's nodes exist before a bad set fails the load, which then
# frees the sets: no open may get a file meanwhile.
if setup 595.45.04; then
	rmmod nvmediate
	rm -f "$T/stop"
	( while [ ! -e "$T/stop" ]; do openclose --path /dev/nvproxy --count 1 --expect ENOENT; done ) \
		> "$T/race.txt" 2>&1 &
	loads=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		modprobe nvmediate sets="good,Bad/Name" 2> /dev/null && loads=$((loads + 1)) && rmmod nvmediate
	done
	touch "$T/stop"
	wait
	check profiles-load-fails "a load with a bad set succeeded $loads times" [ $loads = 0 ]
	check profiles-load-fails-closed "opens that got a file during the failed loads: $(grep -c ' ok=1 ' "$T/race.txt")" \
		sh -c "! grep -q ' ok=1 ' '$T/race.txt'"
	check profiles-load-fails-clean "left after the failed loads: $(ls -d $SYS /dev/nvproxy /dev/nvmediate 2>&1 | grep -v 'No such' | tr '\n' ' ')" \
		sh -c "[ ! -e $SYS ] && [ ! -e /dev/nvproxy ] && [ ! -e /dev/nvmediate/good ] && ! grep -q '^nvmediate ' /proc/modules"
	if load_nvmediate sets=good > "$T/load.txt" 2>&1 && wait_node /dev/nvmediate/good/nvidiactl; then
		pass profiles-load-after-failure
	else
		fail profiles-load-after-failure "$(tr '\n' ' ' < "$T/load.txt")"
	fi
fi

nvm_end
