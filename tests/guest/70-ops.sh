#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What an administrator reads while nvmediate runs (docs/operations.md):
# the counters in /sys/class/nvmediate/stats/ move by exactly the calls
# made, per family and verdict; the tracepoint fires once per call with
# its verdict and number; each refusal is logged on one key=value line
# with every field, the caller's cgroup included; debugfs procs shows a
# process's counts while it holds its files and forgets it after; over a
# CUDA-like session the forwarded counts equal the calls the driver got;
# nvproxyctl stats and status show the same numbers and the stand-in's
# version; audit=1 counts, traces and logs would-be refusals as audited;
# an absent driver is said once, with the remedy.
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
CTL=/dev/nvproxy
UVM=/dev/nvproxy-uvm
VER=595.45.04
STATS=/sys/class/nvmediate/stats
TR=/sys/kernel/tracing
FAMS="escape ctrl alloc uvm open mmap poll"
VERDS="forwarded refused answered audited"

setup() {	# setup [NVMEDIATE PARAMS]
	unload_all
	if ! load_standin version=$VER num_gpus=2; then
		fail ops-setup "cannot load the stand-in driver at $VER"
		return 1
	fi
	if ! load_nvmediate num_gpus=2 "$@" > "$T/load.txt" 2>&1; then
		fail ops-setup "nvmediate $*: $(tr '\n' ' ' < "$T/load.txt")"
		return 1
	fi
	wait_node $UVM
}

snapshot() {	# snapshot FILE: every counter, "family_verdict N" per line
	for f in $FAMS; do
		for v in $VERDS; do
			echo "${f}_$v $(cat $STATS/${f}_$v 2>/dev/null || echo missing)"
		done
	done > "$1"
}

# deltas BEFORE AFTER: the counters that moved, "name=delta", sorted
deltas() {
	awk 'NR == FNR { a[$1] = $2; next }
	     a[$1] == "missing" || $2 == "missing" { print $1 "=missing"; next }
	     a[$1] != $2 { print $1 "=" ($2 - a[$1]) }' "$1" "$2" | sort | tr '\n' ' '
}

trace_on() {
	[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
	[ -d $TR/events/nvmediate ] || return 1
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	echo 1 > $TR/events/nvmediate/enable
	echo 1 > $TR/tracing_on
}

trace_off() {	# trace_off FILE: the events recorded, then tracing off
	echo 0 > $TR/tracing_on
	grep 'nvmediate_' $TR/trace > "$1"
	echo 0 > $TR/events/nvmediate/enable
	echo > $TR/trace
}

# tcount FILE PATTERN...: lines of FILE matching every PATTERN
tcount() {
	file=$1
	shift
	cp "$file" "$T/tc"
	for p in "$@"; do
		grep -e "$p" "$T/tc" > "$T/tc2"
		mv "$T/tc2" "$T/tc"
	done
	wc -l < "$T/tc" | tr -d ' '
}

# --- counters, tracepoints and the log, enforcing ---
if setup; then
	set -- $(stat -c '%t %T' $CTL)
	mknod "$T/nvproxy5" c $((0x$1)) 5	# minor 5 >= num_gpus: ENXIO
	# a cgroup of its own, as a container would have
	cg=
	if [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	   mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; then
		mkdir -p /sys/fs/cgroup/nvmtest-ctr && cg=/nvmtest-ctr
	fi
	dmesg -c > /dev/null 2>&1
	tracing=yes
	trace_on || tracing=no
	snapshot "$T/before"
	# 7 opens forwarded, 1 refused; 10 ioctls:
	nvraw --repeat 3 $CTL 0x2a 32 8=0x102 16=buf:108 24=108 > "$T/o1"	# 3 ctrl forwarded
	nvraw --repeat 2 $CTL 0x2a 31 > "$T/o2"				# 2 escape refused
	nvraw $CTL 0x2a 32 8=0x00ff0001 st=28 > "$T/o3"				# 1 ctrl answered
	nvraw $CTL 0x2b 48 12=0x79 16=buf:24 > "$T/o4"				# 1 alloc forwarded
	nvraw $CTL 0xd6 8 > "$T/o5"						# 1 escape forwarded
	nvraw --uvm $UVM 0x30000001 16 > "$T/o6"				# 1 uvm forwarded
	if [ -n "$cg" ]; then							# 1 uvm refused
		sh -c "echo \$\$ > /sys/fs/cgroup$cg/cgroup.procs && exec nvraw --uvm $UVM 201 16" > "$T/o7"
	else
		nvraw --uvm $UVM 201 16 > "$T/o7"
	fi
	cat "$T/nvproxy5" 2> /dev/null						# 1 open refused
	snapshot "$T/after"
	[ $tracing = yes ] && trace_off "$T/trace"

	want="alloc_forwarded=1 ctrl_answered=1 ctrl_forwarded=3 escape_forwarded=1 escape_refused=2 open_forwarded=7 open_refused=1 uvm_forwarded=1 uvm_refused=1 "
	got=$(deltas "$T/before" "$T/after")
	check ops-counters "counters moved by '$got', want '$want' (calls: $(cat "$T"/o? | tr '\n' ' '))" \
		[ "$got" = "$want" ]

	if [ $tracing = no ]; then
		fail ops-trace "no tracefs or no events/nvmediate"
	else
		n=$(tcount "$T/trace" 'nvmediate_call:')
		nf=$(tcount "$T/trace" 'family=ctrl number=0x102 ' 'verdict=forwarded rule=- ' 'ret=0')
		nr=$(tcount "$T/trace" 'node=ctl ' 'family=escape number=0x2a size=31 ' 'verdict=refused rule=esc-size err=-22 ' 'ret=-22')
		na=$(tcount "$T/trace" 'family=ctrl number=0xff0001 ' 'verdict=answered rule=ctrl-unknown err=0 status=0x56 ret=0')
		nc=$(tcount "$T/trace" 'family=alloc number=0x79 size=48 ' 'verdict=forwarded')
		ne=$(tcount "$T/trace" 'family=escape number=0xd6 size=8 ' 'verdict=forwarded')
		nu=$(tcount "$T/trace" 'node=uvm ' 'family=uvm number=0x30000001 size=16 ' 'verdict=forwarded')
		nx=$(tcount "$T/trace" 'node=uvm ' 'family=uvm number=0xc9 ' 'verdict=refused rule=uvm-unknown err=-38')
		no=$(tcount "$T/trace" 'nvmediate_file:' 'op=open ')
		nof=$(tcount "$T/trace" 'nvmediate_file:' 'op=open ' 'ret=-6')
		nrel=$(tcount "$T/trace" 'nvmediate_file:' 'op=release ')
		got="$n $nf $nr $na $nc $ne $nu $nx $no $nof $nrel"
		check ops-trace "events (calls, ctrl fwd, esc refused, answered, alloc, esc fwd, uvm fwd, uvm refused, opens, opens refused, releases) '$got', want '10 3 2 1 1 1 1 1 8 1 7': $(head -n 12 "$T/trace" | tr '\n' ';')" \
			[ "$got" = "10 3 2 1 1 1 1 1 8 1 7" ]
	fi

	dmesg > "$T/dmesg"
	n=$(tcount "$T/dmesg" 'nvmediate: refused pid=[0-9]* comm=nvraw cgroup=/[^ ]* node=nvproxy family=escape nr=0x2a name=NV_ESC_RM_CONTROL size=31 rule=esc-size answer=-22$')
	na=$(tcount "$T/dmesg" 'nvmediate: refused pid=[0-9]* comm=nvraw cgroup=/[^ ]* node=nvproxy family=ctrl nr=0xff0001 name=- size=0 rule=ctrl-unknown answer=status:0x56$')
	nu=$(tcount "$T/dmesg" "nvmediate: refused pid=[0-9]* comm=nvraw cgroup=${cg:-/} node=nvproxy-uvm family=uvm nr=0xc9 name=- size=0 rule=uvm-unknown answer=-38\$")
	nall=$(tcount "$T/dmesg" 'nvmediate: \(refused\|audit\) ')
	check ops-log "log lines (esc-size, ctrl-unknown, uvm-unknown in cgroup '${cg:-/}', all) '$n $na $nu $nall', want '2 1 1 4': $(grep 'nvmediate: ' "$T/dmesg" | tail -n 5 | tr '\n' ';')" \
		[ "$n $na $nu $nall" = "2 1 1 4" ]
	check ops-log-cgroup "no cgroup v2 hierarchy to run a call in" [ -n "$cg" ]
	[ -n "$cg" ] && rmdir /sys/fs/cgroup$cg 2>/dev/null

	# debugfs procs: a process's counts while it holds its file, gone after
	P=/sys/kernel/debug/nvmediate/procs
	# held_line WANT NVRAW_ARGS...: nvraw holds its node once its output
	# has WANT; pid and its procs line then, and it is let go.
	held_line() {
		want=$1
		shift
		rm -f "$T/go"
		nvraw --hold "$T/go" "$@" > "$T/held" &
		pid=$!
		i=0
		while ! grep -q "$want" "$T/held" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		line=$(grep "^pid=$pid " $P 2>/dev/null)
		touch "$T/go"
		wait $pid
	}
	held_line ret= --repeat 4 $CTL 0x2a 31	# nvraw prints after its calls
	after=$(grep -c "^pid=$pid " $P 2>/dev/null)
	case "$line" in
	"pid=$pid comm=nvraw files=1 escape_forwarded=0 escape_refused=4 escape_answered=0 escape_audited=0 ctrl_forwarded=0 "*"open_forwarded=1 open_refused=0 "*"poll_audited=0")
		if [ "$after" = 0 ] && [ "$(echo "$line" | tr ' ' '\n' | grep -c '=[1-9]')" = 4 ]; then
			pass ops-procs
		else
			fail ops-procs "after close: $after line(s); line: $line"
		fi ;;
	*)
		fail ops-procs "line of pid $pid: '$line'; procs: $(tr '\n' ';' < $P 2>/dev/null)" ;;
	esac
	# ... and the calls of a file it has closed: 3 calls on a file, a second
	# file of the node opened, the first closed (operations.md).
	held_line reopened --reopen --repeat 3 $CTL 0x2a 31
	case "$line" in
	"pid=$pid comm=nvraw files=1 escape_forwarded=0 escape_refused=3 "*"open_forwarded=2 open_refused=0 "*)
		pass ops-procs-closed-files ;;
	*)
		fail ops-procs-closed-files "line of pid $pid after a file closed and another opened: '$line'" ;;
	esac

	# nvproxyctl stats and status: the numbers of sysfs, the stand-in's version
	snapshot "$T/now"
	nvproxyctl stats --json > "$T/stats.json"
	rc=$?
	ok=$rc
	for f in $FAMS; do
		for v in $VERDS; do
			want=$(sed -n "s/^${f}_$v //p" "$T/now")
			grep -q "\"$f\":{[^}]*\"$v\":$want[,}]" "$T/stats.json" || ok="$ok ${f}_$v"
		done
	done
	check ops-nvproxyctl-stats "exit/mismatch '$ok': $(cat "$T/stats.json")" [ "$ok" = 0 ]
	nvproxyctl stats > "$T/stats.txt"
	ctrl=$(sed -n 's/^ctrl  *//p' "$T/stats.txt" | tr -s ' ')
	want="$(cat $STATS/ctrl_forwarded) $(cat $STATS/ctrl_refused) $(cat $STATS/ctrl_answered) $(cat $STATS/ctrl_audited)"
	check ops-nvproxyctl-stats-text "ctrl row '$ctrl', want '$want'" [ "$ctrl" = "$want" ]
	nvproxyctl stats --procs > "$T/procs.txt"
	check ops-nvproxyctl-stats-procs "exit $?: $(tr '\n' ';' < "$T/procs.txt")" \
		grep -q '^processes' "$T/procs.txt"

	nvproxyctl status --json > "$T/status.json"
	rc=$?
	fwd=$(( $(cat $STATS/escape_forwarded) + $(cat $STATS/ctrl_forwarded) + $(cat $STATS/alloc_forwarded) + $(cat $STATS/uvm_forwarded) ))
	ref=$(( $(cat $STATS/escape_refused) + $(cat $STATS/ctrl_refused) + $(cat $STATS/alloc_refused) + $(cat $STATS/uvm_refused) ))
	if [ $rc -eq 0 ] && grep -q "\"driver_version\":\"$VER\",\"tier\":\"exact\",\"range\":\"595.44.02..595.45.04\"" "$T/status.json" &&
	   grep -q '"policy":{"nodes":"all","mode":"enforce","allow_root":false,"allow_finn":false,"allow_gss":false}' "$T/status.json" &&
	   grep -q "\"calls\":{\"forwarded\":$fwd,\"refused\":$ref,\"answered\":1,\"audited\":0,\"open_refused\":1}" "$T/status.json"; then
		pass ops-nvproxyctl-status
	else
		fail ops-nvproxyctl-status "exit $rc, want $VER exact, enforce, $fwd forwarded, $ref refused: $(cat "$T/status.json")"
	fi
fi

# --- a CUDA-like session: the counters are exactly what the driver received ---
if setup; then
	snapshot "$T/before"
	calls_clear
	if ! nvsession --mediated --ctl $CTL --gpu /dev/nvproxy0 --uvm $UVM > "$T/s.txt" 2>&1; then
		fail ops-session-counters "the session failed: $(failures "$T/s.txt")"
	else
		snapshot "$T/after"
		calls_save "$T/s.calls"
		d=$(deltas "$T/before" "$T/after")
		fwd=0
		for f in escape ctrl alloc uvm; do
			n=$(echo "$d" | tr ' ' '\n' | sed -n "s/^${f}_forwarded=//p")
			fwd=$((fwd + ${n:-0}))
		done
		dm=$(echo "$d" | tr ' ' '\n' | sed -n 's/^mmap_forwarded=//p')
		dp=$(echo "$d" | tr ' ' '\n' | sed -n 's/^poll_forwarded=//p')
		do=$(echo "$d" | tr ' ' '\n' | sed -n 's/^open_forwarded=//p')
		got="ioctl=$fwd mmap=${dm:-0} poll=${dp:-0} open=${do:-0}"
		want="ioctl=$(grep -c ' op=ioctl ' "$T/s.calls") mmap=$(grep -c ' op=mmap ' "$T/s.calls") poll=$(grep -c ' op=poll ' "$T/s.calls") open=$(grep -c ' op=open ' "$T/s.calls")"
		if [ "$got" = "$want" ] && [ "$fwd" -gt 10 ] && [ "${dm:-0}" -gt 0 ] && [ "${dp:-0}" -gt 0 ]; then
			pass ops-session-counters
		else
			fail ops-session-counters "counted $got, the driver received $want (deltas: $d)"
		fi
	fi
fi

# --- audit=1: would-be refusals forwarded, counted, traced and logged as audit ---
if setup audit=1; then
	dmesg -c > /dev/null 2>&1
	tracing=yes
	trace_on || tracing=no
	snapshot "$T/before"
	calls_clear
	nvraw --repeat 2 $CTL 0x2a 32 8=0x102 16=buf:108 24=104 > /dev/null	# ctrl-size
	n=$(grep -c ' op=ioctl ' "$NVM_STANDIN_DIR/calls")
	snapshot "$T/after"
	[ $tracing = yes ] && trace_off "$T/trace"
	got=$(deltas "$T/before" "$T/after")
	check ops-audit-counters "counters moved by '$got', $n ioctl(s) reached the driver" \
		[ "$got $n" = "ctrl_audited=2 open_forwarded=1  2" ]
	if [ $tracing = yes ]; then
		n=$(tcount "$T/trace" 'family=ctrl number=0x102 size=104 ' 'verdict=audited rule=ctrl-size err=0 status=0x1f ')
		check ops-audit-trace "audited events: $n, want 2" [ "$n" = 2 ]
	fi
	dmesg > "$T/dmesg"
	n=$(tcount "$T/dmesg" 'nvmediate: audit pid=[0-9]* comm=nvraw cgroup=/[^ ]* node=nvproxy family=ctrl nr=0x102 name=NV0000_CTRL_SYSTEM_GET_CPU_INFO_PARAMS size=104 rule=ctrl-size answer=status:0x1f$')
	check ops-audit-log "audit lines: $n, want 2: $(grep 'nvmediate: ' "$T/dmesg" | tail -n 3 | tr '\n' ';')" [ "$n" = 2 ]
	nvproxyctl status --json > "$T/status.json"
	check ops-nvproxyctl-status-audit "$(cat "$T/status.json")" \
		grep -q '"policy":{"nodes":"all","mode":"audit"' "$T/status.json"
fi

# --- the driver absent: said once, with the remedy; opens refused and counted ---
unload_all
if load_nvmediate num_gpus=2 > "$T/load.txt" 2>&1; then
	dmesg -c > /dev/null 2>&1
	snapshot "$T/before"
	for i in 1 2 3; do cat $CTL 2> /dev/null; done
	snapshot "$T/after"
	got=$(deltas "$T/before" "$T/after")
	n=$(dmesg | grep -c "nvmediate: cannot open the nvidia driver (195:255): .*until it is loaded ('modprobe nvidia')")
	check ops-driver-absent "said $n time(s), want 1; counters moved by '$got': $(dmesg | tail -n 3 | tr '\n' ';')" \
		[ "$n $got" = "1 open_refused=3 " ]
else
	fail ops-driver-absent "nvmediate: $(tr '\n' ' ' < "$T/load.txt")"
fi
nvm_end
