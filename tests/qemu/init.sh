#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test guests (busybox sh).  Runs the KUnit suites (debug
# kernels: nvmediate.ko carries them, run_kunit), then /tests/[0-9]*.sh in
# order, unloads our modules, scans for leaks (kmemleak kernels) and prints
# the kernel log, all on the serial console for tests/qemu/run-guest.sh to
# read:
#
#   NVMGUEST START <kind> <release>         first line
#   NVMGUEST KTAP BEGIN ... END              KUnit's KTAP, from the kernel log
#   NVMGUEST TEST <name>                     before each test script
#   NVMTEST PASS <name> / FAIL <name>: why   test results (also from here)
#   NVMGUEST KMEMLEAK BEGIN ... END          what kmemleak reported
#   NVMGUEST DMESG BEGIN ... END             the whole kernel log
#   NVMGUEST DONE                            last line; missing = crash/hang
#
# Kernel command line options (all optional):
#   nvm_mode=demo        run /demo.sh instead of the tests
#   nvm_mode=bench       run /bench.sh (make bench) instead of the tests
#   nvm_timeout=SECS     per-test time limit (default 180)
#   nvm_tests=PATTERN    run only the test scripts whose name matches PATTERN
#                        (or one of several, separated by commas)
#                        (a shell pattern, e.g. 10-*); SCRIPT:CASE runs
#                        only the cases of SCRIPT that CASE names (a
#                        pattern too; lib.sh's want), e.g.
#                        50-validate:ctrl-emb-*

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -d /sys/kernel/tracing ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
fi
hostname nvmguest
# Debian's vm.mmap_min_addr (its kernels are built with 65536; the debug
# kernel's config leaves the kernel's default, 4096): nvmediate's payload
# bounce relies on it (docs/design.md, section 5).
echo 65536 > /proc/sys/vm/mmap_min_addr
ip link set lo up 2>/dev/null

kind=$(cat /etc/nvm/kind)
mode=test
per_test=180
only='*'
for arg in $(cat /proc/cmdline); do
	case $arg in
	nvm_mode=*) mode=${arg#*=} ;;
	nvm_timeout=*) per_test=${arg#*=} ;;
	nvm_tests=*) only=${arg#*=} ;;
	esac
done
export NVM_KERNEL=$kind

kmemleak=/sys/kernel/debug/kmemleak
[ -w $kmemleak ] || kmemleak=

# Our modules, in load order; unloaded in reverse.
OUR_MODULES="nvidia nvidia_uvm nvmediate"

# Print the kernel log after the line holding $1, without timestamps.
log_after() {
	dmesg | sed -n "/$1/,\$p" | sed '1d; s/^\[[ 0-9.]*\] //'
}

# The suites are in nvmediate.ko (built with NVM_KUNIT=y): KUnit runs them
# when the module goes live, and their KTAP goes to the kernel log.  Loaded
# here for them alone, with kunit.filter_glob matching every suite, and
# unloaded; then the filter matches none, so that the tests' own loads of
# nvmediate run no suite.  (The parameter takes what is written as it is:
# no newline.)
run_kunit() {
	glob=/sys/module/kunit/parameters/filter_glob
	echo "nvmguest: kunit begin" > /dev/kmsg
	printf '%s' '*.*' > $glob
	if modprobe nvmediate; then
		echo "NVMGUEST KTAP BEGIN"
		log_after "nvmguest: kunit begin"
		echo "NVMGUEST KTAP END"
		# The files the cases closed may hold the module a moment longer.
		i=0
		until rmmod nvmediate 2>/dev/null; do
			i=$((i + 1))
			if [ $i -ge 10 ]; then
				echo "NVMTEST FAIL kunit: rmmod nvmediate failed"
				break
			fi
			sleep 1
		done
	else
		echo "NVMTEST FAIL kunit: modprobe nvmediate failed"
	fi
	printf '%s' nvm-no-suite > $glob ||
		echo "NVMTEST FAIL kunit: cannot set $glob: every load of nvmediate runs the suites"
}

# selected SCRIPT: whether nvm_tests selects it (several patterns may be
# given, separated by commas).  Sets cases to the case patterns the
# selecting entries give SCRIPT, separated by commas; empty when one of
# them gives none: every case.
selected() {
	[ -e "$1" ] || return 1
	_name=$(basename "$1" .sh)
	_match=1
	_all=
	cases=
	set -f
	for _p in $(echo "$only" | tr , ' '); do
		_c=
		case $_p in *:*) _c=${_p#*:} _p=${_p%%:*} ;; esac
		case $_name in
		$_p)
			_match=0
			if [ -z "$_c" ]; then _all=1; else cases="$cases${cases:+,}$_c"; fi
			;;
		esac
	done
	set +f
	[ -z "$_all" ] || cases=
	return $_match
}

# Run one test script in a session of its own, so that at its time limit the
# whole process group goes (a child left behind would hold tee open).
run_test() {
	t=$1
	name=$(basename "$t" .sh)
	echo "$name" >> /tmp/nvm-ran
	# A script that cannot run on the debug kernel says so:
	# "# nvm-guest: not-on-debug" (it tells why in its comment).
	if [ "$kind" = debug ] && grep -q '^# nvm-guest: not-on-debug' "$t"; then
		echo "NVMGUEST TEST $name not run on the debug kernel (see its comment)"
		return
	fi
	# One that runs on some kinds only: "# nvm-guest: only-on KIND...".
	only_on=$(sed -n 's/^# nvm-guest: only-on //p' "$t" | head -n 1)
	if [ -n "$only_on" ] && ! echo " $only_on " | grep -q " $kind "; then
		echo "NVMGUEST TEST $name not run on $kind (only on $only_on)"
		return
	fi
	echo "NVMGUEST TEST $name"
	[ -z "$cases" ] || echo "nvmguest: only the cases $cases"
	rm -f /tmp/test.pid /tmp/test.done /tmp/test.timedout
	start=$(date +%s)
	# A script may ask for more time: "# nvm-guest: limit-factor N".
	limit=$per_test
	f=$(sed -n 's/^# nvm-guest: limit-factor \([0-9]*\)$/\1/p' "$t" | head -n 1)
	[ -z "$f" ] || limit=$((per_test * f))
	(
		i=0
		while [ $i -lt "$limit" ]; do
			sleep 1
			[ -e /tmp/test.done ] && exit 0
			i=$((i + 1))
		done
		: > /tmp/test.timedout
		kill -TERM -"$(cat /tmp/test.pid)" 2>/dev/null
		for i in 1 2 3 4 5; do
			sleep 1
			[ -e /tmp/test.done ] && exit 0
		done
		kill -KILL -"$(cat /tmp/test.pid)" 2>/dev/null
	) &
	watchdog=$!
	{
		# shellcheck disable=SC2016 # $$ is the new session's shell
		# Without CAP_SYS_RAWIO, like a container (tests/guest/norawio.c),
		# unless the script says it needs it (and then uses norawio itself).
		wrap=norawio
		! grep -q '^# nvm-guest: keep-rawio' "$t" || wrap=
		NVM_CASES=$cases setsid sh -c 'echo $$ > /tmp/test.pid; exec $1 sh "$0"' "$t" "$wrap" 2>&1
		echo $? > /tmp/rc
	} | tee /tmp/out
	: > /tmp/test.done
	wait $watchdog
	rc=$(cat /tmp/rc)
	took=$(( $(date +%s) - start ))
	if [ -e /tmp/test.timedout ]; then
		echo "NVMTEST FAIL $name: timed out after ${limit}s"
	elif [ "$rc" -ne 0 ] && ! grep -q '^NVMTEST FAIL' /tmp/out; then
		echo "NVMTEST FAIL $name: exited with status $rc"
	elif ! grep -qE '^NVMTEST (PASS|FAIL) ' /tmp/out; then
		echo "NVMTEST FAIL $name: printed no NVMTEST result"
	fi
	echo "NVMGUEST TEST $name took ${took}s status $rc"
}

unload_ours() {
	bad=
	for m in $(echo $OUR_MODULES | tr ' ' '\n' | sed -n '1!G;h;$p'); do
		grep -q "^$m " /proc/modules || continue
		rmmod "$m" || bad="$bad $m"
	done
	[ -z "$bad" ] || echo "NVMTEST FAIL unload: rmmod failed for$bad"
}

echo "NVMGUEST START $kind $(uname -r)"
# Every guest has two CPUs (-smp 2): the tests of calls racing each other
# need both, and a kernel that finds only one passes them all the same.
cpus=$(grep -c '^processor' /proc/cpuinfo)
if [ "$cpus" -ge 2 ]; then
	echo "NVMTEST PASS guest-two-cpus"
else
	echo "NVMTEST FAIL guest-two-cpus: the kernel found $cpus CPU of the 2 QEMU gives it"
fi

# Leak suspects from boot are not ours: scan once now and mark them as seen.
if [ -n "$kmemleak" ]; then
	echo scan > $kmemleak
	echo clear > $kmemleak
fi

if [ "$mode" = demo ]; then
	sh /demo.sh
elif [ "$mode" = bench ]; then
	sh /bench.sh
else
	[ "$kind" = debug ] && run_kunit
	# The scripts selected, counted before any runs: a loop that stops
	# early (a script or run_test changing what it iterates on) shows as a
	# failure instead of as fewer tests passing.
	want=0
	for t in /tests/[0-9]*.sh; do
		! selected "$t" || want=$((want + 1))
	done
	: > /tmp/nvm-ran
	for t in /tests/[0-9]*.sh; do
		! selected "$t" || run_test "$t"
	done
	ran=$(wc -l < /tmp/nvm-ran)
	if [ "$ran" -eq "$want" ]; then
		echo "NVMTEST PASS guest-scripts"
	else
		echo "NVMTEST FAIL guest-scripts: $want test scripts selected, $ran reached ($(tr '\n' ' ' < /tmp/nvm-ran))"
	fi
fi
# After an oops a test caused on purpose (99-driver-oops.sh) the kernel
# holds what the dead call held: nvmediate cannot be unloaded.
if [ -e /tmp/nvm-expected-oops ]; then
	echo "NVMGUEST note: modules not unloaded: a test made the driver oops"
else
	unload_ours
fi

if [ -n "$kmemleak" ]; then
	# Objects younger than 5 s are never reported: scan twice, apart.
	echo scan > $kmemleak
	sleep 6
	echo scan > $kmemleak
	echo "NVMGUEST KMEMLEAK BEGIN"
	cat $kmemleak
	echo "NVMGUEST KMEMLEAK END"
fi

echo "NVMGUEST DMESG BEGIN"
dmesg
echo "NVMGUEST DMESG END"
echo "NVMGUEST DONE"
sync
reboot -f
