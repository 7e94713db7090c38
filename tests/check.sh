#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test of nvmediate, in order, on a Debian 12 machine.
#
# Each step is one test (pass/fail) unless it has cases of its own (the
# guests, the host's KUnit run, the tool tests), whose cases are counted
# instead.  A failed step
# does not stop the rest.  One line per step with its time; the output of a
# failed step is kept in build/check/<step>.log and its last lines shown.
# A step still running after a minute says so, with its last line of output,
# once a minute.  The NVIDIA builds, the tool tests, DKMS and the package
# test run in the background beside steps that do not need them, at the
# lowest CPU priority, and are reported when they are waited for.  The
# kernels: Debian 12's (stock), Debian 12's backported 6.12, Debian 11's
# 5.10 and the newest of sid (tests/qemu/lib.sh), each built with W=1,
# sparse and DKMS and booted; before the count, one line per
# kernel sums up what passed on it.  The last line is `N passed, N failed`;
# the exit status is non-zero iff something failed.
#
# Environment: NVM_QEMU, NVM_QEMU_TIMEOUT, NVM_TEST_TIMEOUT, NVM_TESTS, NVM_VERBOSE
# (see tests/qemu/run-guest.sh).
set -uo pipefail
. "$(dirname "$0")/qemu/lib.sh"
cd "$NVM_ROOT" || exit 1

logs=$NVM_BUILD/check
mkdir -p "$logs"
passed=0
failed=0
declare -A status	# step name -> 0 when it passed
declare -A guest_line	# kernel kind -> what its guest passed
declare -A real_line	# kernel kind -> the real NVIDIA releases built for it
# The kernels besides the stock one (tests/qemu/lib.sh), and all built for.
fetched_kinds="stock-6.12 stock-5.10 stock-sid"
built_kinds="stock $fetched_kinds"
check_start=$(date +%s)
# nvmediate's own builds use every CPU (make sparse reuses make w1's
# objects: the Makefile gives both the same flags).
jobs=$(nproc)

since() {
	local s=$(( $(date +%s) - $1 ))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# ticker PID NAME LOG T0: while PID runs, a line a minute with its last output.
ticker() {
	local pid=$1 name=$2 log=$3 t0=$4 n last
	while kill -0 "$pid" 2>/dev/null; do
		for n in $(seq 60); do
			kill -0 "$pid" 2>/dev/null || return 0
			sleep 1
		done
		last=$(tail -n 1 "$log" 2>/dev/null | tr -d '\r' | cut -c1-100)
		printf '  ... %s, %s: %s\n' "$name" "$(since "$t0")" "${last:-(no output yet)}"
	done
}

# wait_ticking PID NAME LOG T0: wait for PID, with the ticker; its status.
wait_ticking() {
	local tpid rc
	ticker "$1" "$2" "$3" "$4" &
	tpid=$!
	wait "$1"
	rc=$?
	kill "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	return $rc
}

# run_logged NAME LOG CMD...: run CMD, its output in LOG, with the ticker.
run_logged() {
	local name=$1 log=$2
	shift 2
	"$@" > "$log" 2>&1 < /dev/null &
	wait_ticking $! "$name" "$log" "$(date +%s)"
}

# bg_start NAME CMD...: run CMD beside the foreground steps, its output in
# build/check/NAME.log, at the lowest CPU priority, so that it takes mostly
# the time the guests leave idle (the guests still run slower beside it:
# their timed tests allow for that).
declare -A bg_pid bg_t0
bg_start() {
	local name=$1
	shift
	bg_t0[$name]=$(date +%s)
	# (renice, not nice: CMD may be one of this script's functions)
	( renice -n 19 -p "$BASHPID" > /dev/null; "$@" ) > "$logs/$name.log" 2>&1 < /dev/null &
	bg_pid[$name]=$!
}

# bg_wait NAME: wait for it (a line a minute meanwhile); its exit status.
bg_wait() {
	wait_ticking "${bg_pid[$1]}" "$1" "$logs/$1.log" "${bg_t0[$1]}"
}

# tally NAME DESCRIPTION RC T0: count one test and print its line.
tally() {
	status[$1]=$3
	if [ "$3" -eq 0 ]; then
		passed=$((passed + 1))
		printf '%-13s %-46s ok    %s\n' "$1" "$2" "$(since "$4")"
	else
		failed=$((failed + 1))
		printf '%-13s %-46s FAIL  %s\n' "$1" "$2" "$(since "$4")"
	fi
}

# step NAME DESCRIPTION CMD...: run CMD as one test, its output in the log.
step() {
	local name=$1 desc=$2 t0 rc
	shift 2
	t0=$(date +%s)
	run_logged "$name" "$logs/$name.log" "$@"
	rc=$?
	step_done "$name" "$desc" $rc "$t0"
}

# bg_step NAME DESCRIPTION: wait for bg_start NAME and count it as one test.
bg_step() {
	local rc
	bg_wait "$1"
	rc=$?
	step_done "$1" "$2" $rc "${bg_t0[$1]}"
}

# step_done NAME DESCRIPTION RC T0: tally a step, its output's end if it failed.
step_done() {
	tally "$1" "$2" "$3" "$4"
	if [ "$3" -ne 0 ]; then
		tail -n 25 "$logs/$1.log" | sed 's/^/      | /'
		echo "      (whole output: ${logs#"$NVM_ROOT"/}/$1.log)"
	fi
}

# skip NAME DESCRIPTION WHY: a step that cannot run counts as one failure.
skip() {
	failed=$((failed + 1))
	status[$1]=1
	printf '%-13s %-46s FAIL  (%s)\n' "$1" "$2" "$3"
}

# cases NAME DESCRIPTION PASSED FAILED T0: report a step with its own cases.
cases() {
	passed=$((passed + $3))
	failed=$((failed + $4))
	status[$1]=$4
	printf '%-13s %-46s %s  %s\n' "$1" "$2" "$3 passed, $4 failed" "$(since "$5")"
}

kver=$(nvm_stock_release 2>/dev/null)
kdir=$(nvm_kdir stock 2>/dev/null)

# The install steps build against the installed Debian headers.
have_headers() {
	[ -n "$kver" ] && [ -d "$kdir" ] || { echo "no /usr/src/linux-headers-*-amd64"; return 1; }
}

# kernel_check KIND: get a fetched kind's kernel, then build nvmediate with
# W=1 and under sparse, and the stand-in, against its headers.
kernel_check() {
	local kind=$1 kd
	nvm_get_kernel "$kind" || return 1
	kd=$(nvm_kdir "$kind")
	echo "== $kind: $(nvm_release "$kind"), W=1"
	nvm_kmake "$kind" -j"$jobs" w1 KDIR="$kd" &&
	tests/kernel/symcheck.sh &&
	echo "== $kind: sparse" &&
	nvm_kmake "$kind" -j"$jobs" sparse KDIR="$kd" &&
	echo "== $kind: stand-in" &&
	nvm_kmake "$kind" -j"$jobs" standin KDIR="$kd"
}

# dkms_kind KIND: tests/kernel/dkms-check.sh against the kind's headers, in
# its build root when it has one (DKMS runs the kernel's compiler and kbuild
# programs).
dkms_kind() {
	local kind=$1 kv kd root
	kv=$(nvm_release "$kind")
	kd=$(nvm_kdir "$kind")
	[ -n "$kv" ] && [ -d "$kd" ] || { echo "no $kind headers at $kd"; return 1; }
	root=$(nvm_build_root "$kind")
	if [ -n "$root" ]; then
		nvm_in_root "$root" /bin/bash tests/kernel/dkms-check.sh "$kv" "$kd"
	else
		tests/kernel/dkms-check.sh "$kv" "$kd"
	fi
}

# dkms_all: DKMS against every kernel's headers; fails if one fails.
dkms_all() {
	local kind rc=0 line=
	for kind in $built_kinds; do
		echo "== $kind"
		if dkms_kind "$kind"; then
			line="$line$kind ok\n"
		else
			line="$line$kind FAIL\n"
			rc=1
		fi
	done
	printf "%b" "$line" > "$logs/dkms.kinds"
	return $rc
}

install_check() {
	have_headers || return 1
	local staging rc=0
	staging=$(mktemp -d /tmp/nvm-install.XXXXXX)
	# make install runs depmod itself: modprobe finds the module only then.
	{
		make install KDIR="$kdir" INSTALL_MOD_PATH="$staging" DESTDIR="$staging" &&
		modprobe -d "$staging" -S "$kver" --show-depends nvmediate &&
		# the installed tool names calls from the installed ABI data
		"$staging/usr/local/bin/nvproxyctl" explain 0x2a --version 595.45.04 --family escape |
			grep -q 'name: *NV_ESC_RM_CONTROL' && echo "nvproxyctl finds its ABI data" &&
		grep -qx nvmediate "$staging/etc/modules-load.d/nvmediate.conf" &&
		grep -q "^ExecStart=/usr/local/bin/nvproxyctl cdi " \
			"$staging/etc/systemd/system/nvmediate-cdi.service" &&
		[ -f "$staging/etc/udev/rules.d/71-nvmediate-cdi.rules" ] && echo "refresh unit, rule, modules-load.d" &&
		grep -q '^\.SS status$' "$staging/usr/local/share/man/man8/nvproxyctl.8" &&
		echo "the manual page, made from nvproxyctl's --help" &&
		# make uninstall leaves the options file alone, and no other file
		make uninstall KDIR="$kdir" INSTALL_MOD_PATH="$staging" DESTDIR="$staging" &&
		! modprobe -d "$staging" -S "$kver" --show-depends nvmediate 2>/dev/null &&
		[ "$(cd "$staging" && find . -type f ! -path './lib/modules/*' | sort | xargs echo)" = \
			"./etc/modprobe.d/nvmediate.conf" ] && echo "make uninstall: the options file left, nothing else"
	} || rc=1
	rm -rf "$staging"
	return $rc
}

# guest KIND PREREQ [TESTS]: boot a guest, count its cases; TESTS: the guest
# scripts to run (NVM_TESTS, default all).
guest() {
	local kind=$1 prereq=$2 tests=${3:-} t0 p=0 f=1 desc
	# (a separate line: the words of one `local` are expanded before any is set)
	desc="boot the $kind kernel, run the tests"
	[ -z "$tests" ] || desc="boot the $kind kernel, run tests $tests"
	[ -z "${NVM_TESTS:-}" ] || tests=$NVM_TESTS
	if [ "${status[$prereq]}" -ne 0 ]; then
		skip "guest-$kind" "$desc" "no $kind kernel"
		guest_line[$kind]="guest not run"
		return
	fi
	t0=$(date +%s)
	NVM_TESTS=$tests run_logged "guest-$kind" "$logs/guest-$kind.log" tests/qemu/run-guest.sh "$kind"
	[ -f "$NVM_BUILD/$kind/result" ] && read -r _ p _ f < "$NVM_BUILD/$kind/result"
	cases "guest-$kind" "$desc" "$p" "$f" "$t0"
	guest_line[$kind]="guest ${tests:+($tests) }$p passed, $f failed"
	grep -E '^  (FAIL|skip) |^     |^  [a-z]+: (kunit|findings)' "$logs/guest-$kind.log" |
		cut -c1-200 | sed 's/^/    /'
}

# real_driver KIND RELEASES: NVIDIA's modules for the kind's guest.  Without
# NVIDIA's source nothing is built and the guests say so; that is reported
# here as a line, not counted: the source is an input make check cannot
# fetch (NVM_NVIDIA_SRC, tests/nvidia/build.sh).
# Built in the background (bg_start) beside the guests that do not load
# them; real_driver waits and reports.
NVM_REAL_DEBUG=${NVM_REAL_DEBUG:-580.142}
# Debian's NVIDIA packages (tests/nvidia/debian.sh): both kernel modules and
# the user space, for the stock guest's 97-nvidia-user.sh and 95-real.sh.
NVM_DEB_RELEASES=${NVM_DEB_RELEASES:-535.261.03 550.163.01}
# NVIDIA's source is built for the stock guest at every release found
# whose branch Debian's packages above do not bring (one build per branch:
# the packages' RM core comes prebuilt, the source's takes ten minutes).
nvm_real_stock_releases() {
	local rel d covered
	for rel in $(tests/nvidia/build.sh --list); do
		covered=
		for d in $NVM_DEB_RELEASES; do
			[ "${d%%.*}" = "${rel%%.*}" ] && covered=1
		done
		[ -n "$covered" ] || echo "$rel"
	done | xargs echo
}
real_driver_start() {
	# shellcheck disable=SC2086
	bg_start "nvidia-$1" tests/nvidia/build.sh "$1" $2
}
real_driver() {
	local kind=$1 t0=${bg_t0[nvidia-$1]} rc
	bg_wait "nvidia-$kind"
	rc=$?
	if [ $rc -eq 2 ]; then
		printf '%-13s %-46s none  (%s)\n' "nvidia-$kind" "NVIDIA's open modules for the $kind guest" \
			"no NVIDIA source: $(tail -n 1 "$logs/nvidia-$kind.log" | cut -c1-60)"
		real_line[$kind]="real driver: no source"
		return
	fi
	tally "nvidia-$kind" "NVIDIA's open modules for the $kind guest" $rc "$t0"
	sed 's/^/    /' "$logs/nvidia-$kind.log" | grep -E '^    (nvidia [^ ]* [^ ]*: (ok|FAIL)|   \|)'
	real_line[$kind]="real driver $(sed -n 's/^nvidia \([^ ]*\) [^ ]*: ok.*/\1/p' "$logs/nvidia-$kind.log" | xargs echo)"
}

# unit_check: make unit, the KUnit suites that need no running kernel, on
# this machine (tests/unit/): seconds, first of the tests.  Its cases are
# counted as a guest's KUnit cases are; a run that ends early (a sanitizer's
# finding) or exits non-zero after its count (a leak) fails too.
unit_check() {
	local t0 line p f rc desc="make unit: KUnit suites on this machine"
	t0=$(date +%s)
	run_logged unit "$logs/unit.log" make -s --no-print-directory unit
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/unit.log" | tail -n 1)
	if [ -z "$line" ]; then
		skip unit "$desc" "printed no 'N passed, N failed' line (status $rc)"
		tail -n 25 "$logs/unit.log" | sed 's/^/      | /'
		return
	fi
	read -r p _ f _ <<< "$line"
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "      | make unit exited with status $rc after its count:"
		tail -n 15 "$logs/unit.log" | sed 's/^/      | /'
	fi
	cases unit "$desc" "$p" "$f" "$t0"
	[ "$f" -eq 0 ] || grep -E '^    (not ok|# .*FAILED at)' "$logs/unit.log" | head -n 20 |
		sed 's/^/      | /'
}

tools_check() {
	local t0=${bg_t0[tools]} line p f rc
	bg_wait tools
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/tools.log" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		printf '%-13s %-46s FAIL  %s\n' tools "tests/tools/run.sh" "$(since "$t0")"
		echo "      | printed no 'N passed, N failed' line (status $rc)"
		tail -n 15 "$logs/tools.log" | sed 's/^/      | /'
		return
	fi
	read -r p _ f _ <<< "$line"
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "      | tests/tools/run.sh exited with status $rc"
	fi
	cases tools "tests/tools/run.sh" "$p" "$f" "$t0"
	[ "$f" -eq 0 ] || grep -E '^not ok' "$logs/tools.log" | head -n 20 | sed 's/^/      | /'
}

# The Debian packages in a clean chroot (tests/deb/run.sh), counted by case.
deb_check() {
	local t0=${bg_t0[deb]} line p f
	bg_wait deb
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/deb.log" | tail -n 1)
	if [ -z "$line" ]; then
		skip deb "Debian packages in a clean chroot" "tests/deb/run.sh printed no count"
		tail -n 15 "$logs/deb.log" | sed 's/^/      | /'
		return
	fi
	read -r p _ f _ <<< "$line"
	cases deb "Debian packages in a clean chroot" "$p" "$f" "$t0"
	[ "$f" -eq 0 ] || grep -E '^not ok' -A 6 "$logs/deb.log" | head -n 30 | sed 's/^/      | /'
}

# demo_check: make demo succeeds, and its summary's count of the calls
# nvmediate kept from the driver is the count of its log's refusal lines.
demo_check() {
	local out=$logs/demo.out n m
	tests/demo.sh > "$out" 2>&1 || { tail -n 20 "$out"; return 1; }
	n=$(sed -n 's/^calls nvmediate kept from the driver: \([0-9]*\) .*/\1/p' "$out")
	m=$(sed -n "s/.*; \([0-9]*\) 'refused' lines logged)\$/\1/p" "$out")
	echo "make demo: $n calls kept from the driver, $m refusal lines"
	[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$m" ]
}

# prefetch: what waits on the archive and the disk more than on the CPUs
# (the other kernels' packages and build roots, the guests' QEMU, the
# package test's chroot),
# started beside the builds; the steps that need each wait for it (each
# takes its own lock) and report it, so this job's own outcome is not counted.
prefetch() {
	local kind
	for kind in $fetched_kinds; do
		echo "== prefetch $kind"
		tests/kernel/fetch-kernel.sh "$kind"
	done
	echo "== prefetch the guests' QEMU"
	tests/qemu/fetch-qemu.sh
	echo "== prefetch the package test's chroot"
	tests/deb/chroot.sh "$NVM_BUILD/deb"
	echo "== prefetch done"
}

echo "nvmediate check: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, stock kernel ${kver:-?}"
step deps "install build and test packages" .ci/deps.sh
prefetch > "$logs/prefetch.log" 2>&1 < /dev/null &
prefetch_pid=$!
kver=$(nvm_stock_release 2>/dev/null)
kdir=$(nvm_kdir stock 2>/dev/null)
unit_check
step w1 "nvmediate.ko, W=1 -Werror, $kver" make -j"$jobs" w1 KDIR="$kdir"
step imports "nvmediate.ko imports no Debian-only export" tests/kernel/symcheck.sh
step sparse "nvmediate.ko under sparse" make -j"$jobs" sparse KDIR="$kdir"
step standin "stand-in nvidia driver" make -j"$jobs" standin KDIR="$kdir"
step debug-kernel "debug kernel (KASAN, lockdep, kmemleak, KUnit)" tests/kernel/build-debug.sh "$NVM_BUILD/linux-debug"
step stock-kernel "Debian's stock kernel image" tests/kernel/fetch-stock.sh
# The other Debian kernels: fetched (with a build root where needed), then
# the same three builds against their headers.
for kind in $fetched_kinds; do
	step "kernel-${kind#stock-}" "Debian ${kind#stock-} ($(nvm_kind_suites "$kind" | cut -d' ' -f1)): W=1, sparse, stand-in" \
		kernel_check "$kind"
done
# The trees no guest boots (the debug kernel's without Debian's exports, an
# early 5.10, 7.3, RHEL 9- and 5.15.y-like overlays), the probes on every
# tree, the imports and DKMS's kernel range: in the tree itself, beside the
# guests, done before the next in-tree build (dkms, install).
bg_start trees tests/kernel/trees.sh
# NVIDIA's real driver (tests/nvidia/build.sh) for the stock guest, every
# release whose source is found, and for the debug guest the newest of the
# production branch: built before their guests, which load them, one after
# the other (two builds at once, or one beside a kernel build, took longer
# in all than one after the other: the two CPUs were never idle).
# CPU-bound builds and host-side tests run beside the guests that do not
# need them (bg_start): a guest under TCG leaves part of the two CPUs idle.
real_driver_start stock "$(nvm_real_stock_releases)"
bg_start nvidia-deb tests/nvidia/debian.sh stock $NVM_DEB_RELEASES
guest stock-6.12 kernel-6.12
# 5.10 and sid: the stand-in, the session and the bounce (time); sid, the
# newest kernel and the one sealed kernel beside 6.12, also the sealed
# area's own tests.
guest stock-5.10 kernel-5.10 '10-*,20-*,47-*,65-*'
guest stock-sid kernel-sid '10-*,20-*,47-*,65-*,66-*'
real_driver stock
bg_step nvidia-deb "Debian's NVIDIA packages for the stock guest"
sed 's/^/    /' "$logs/nvidia-deb.log" | grep -E '^    nvidia-deb [^ ]* [^ ]*( stock)?: (ok|FAIL)'
real_line[stock]="${real_line[stock]:-real driver}, Debian's $(sed -n 's/^nvidia-deb \([^ ]*\) \([^ ]*\) stock: ok.*/ \1 \2/p' \
	"$logs/nvidia-deb.log" | xargs echo | sed 's/ \([0-9]\)/, \1/g')"
real_driver_start debug "$NVM_REAL_DEBUG"
guest stock stock-kernel
real_driver debug
step demo "make demo: exit status, summary against its log" demo_check
bg_step trees "other trees: W=1, probes, imports, DKMS range"
grep -E '^(not )?ok:' "$logs/trees.log" | sed 's/^/    /'
bg_start tools bash tests/tools/run.sh
bg_start deb tests/deb/run.sh
bg_start dkms dkms_all
guest debug debug-kernel
tools_check
bg_step dkms "dkms add/build/install/remove, $(echo $built_kinds | wc -w) kernels"
step install "make install into a staging tree" install_check
deb_check
wait "$prefetch_pid" 2>/dev/null

# One line per kernel: what was built and run on it.
echo "kernels:"
for kind in $built_kinds debug; do
	case $kind in
	stock) build=$(( status[w1] + status[sparse] + status[standin] )) ;;
	debug) build=${status[debug-kernel]} ;;
	*) build=${status[kernel-${kind#stock-}]} ;;
	esac
	[ "$build" -eq 0 ] && build=ok || build=FAIL
	d=$(awk -v k="$kind" '$1 == k { print $2 }' "$logs/dkms.kinds" 2>/dev/null)
	[ "$kind" = debug ] && d= || d=", dkms ${d:-not run}"
	r=${real_line[$kind]:-}
	printf '  %-11s %-22s build %s, %s%s%s\n' "$kind" "$(nvm_release "$kind" 2>/dev/null)" \
		"$build" "${guest_line[$kind]:-guest not run}" "$d" "${r:+, $r}"
done

# The CPU time of everything it ran (the guests' QEMU included): against
# the wall time, how busy the CPUs were; the check is CPU-bound where that
# is close to their number.
# (times reports this shell's own children: not in a command substitution,
# whose subshell has none.)
times > "$logs/times"
cpu=$(tail -n 1 "$logs/times" | awk '{ t = 0
	for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
	printf "%d", t }')
wall=$(( $(date +%s) - check_start ))
echo "total time $(since "$check_start"), CPU time $((cpu / 60))m$(printf %02d $((cpu % 60)))s" \
	"(on average $(awk -v c="$cpu" -v w="$wall" 'BEGIN { printf "%.2f", w ? c / w : 0 }') of $jobs CPUs busy)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
