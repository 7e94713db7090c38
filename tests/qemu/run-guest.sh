#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a test guest and judge its console:
#
#   tests/qemu/run-guest.sh KIND
#
# KIND: stock (Debian 12's 6.1), stock-6.12, stock-5.10, stock-sid (other
# Debian releases' kernels, tests/qemu/lib.sh) or debug.
# Gets the kernel (fetch-stock.sh, fetch-kernel.sh, build-debug.sh, all
# cached), builds the
# modules, guest programs and initramfs (mkinitramfs.sh), boots QEMU (TCG)
# under a hard time limit, keeps the console in build/<KIND>/console.log and
# judges it with verdict.sh, which writes build/<KIND>/result.  As it runs it
# prints a line as each guest test script starts and ends.  With
# NVM_MODE=demo the guest runs /demo.sh instead of the tests, the console goes
# to build/<KIND>/demo-console.log and nothing is judged; NVM_MODE=bench
# likewise runs /bench.sh (make bench) into build/<KIND>/bench-console.log.
#
# Environment:
#   NVM_QEMU_TIMEOUT  seconds before QEMU is killed (default: stock 900, debug 2400)
#   NVM_TEST_TIMEOUT  per-test limit inside the guest, seconds (stock 180, debug 300)
#   NVM_TESTS         only run the guest test scripts matching this shell pattern
#                     (several, separated by commas); SCRIPT:CASE only those
#                     cases of SCRIPT (docs/testing.md, "Adding a test")
#   NVM_MODE          test (default), demo or bench
#   NVM_APPEND        more kernel command line
#   NVM_QEMU          the qemu-system-x86_64 to run (default: fetch-qemu.sh's)
#   NVM_VERBOSE=1     show the console while it runs, and every passing case
# Exit status: 0 when every test passed and the kernel log is clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || nvm_die "usage: $0 ${NVM_KINDS// /|}"
kind=$1
nvm_check_kind "$kind"
work=$NVM_BUILD/$kind
mkdir -p "$work"
# One run per kind at a time: runs share build/<kind>.
exec 9> "$work/.lock"
if ! flock -n 9; then
	echo "run-guest: waiting for another $kind run to finish" >&2
	flock 9
fi
mode=${NVM_MODE:-test}
case $mode in
test) console=$work/console.log ;;
demo) console=$work/demo-console.log ;;
bench) console=$work/bench-console.log ;;
*) nvm_die "NVM_MODE must be test, demo or bench" ;;
esac
[ "$mode" != test ] || rm -f "$work/result"
rm -f "$console"

fail_early() {
	echo "  FAIL $kind: $*"
	echo "passed 0 failed 1" > "$work/result"
	echo "$kind: 0 passed, 1 failed"
	exit 1
}

nvm_get_kernel "$kind" >/dev/null || fail_early "cannot get the $kind kernel"
image=$(nvm_kernel_image "$kind")
[ -f "$image" ] || fail_early "no kernel image $image"

initrd=$work/initramfs.cpio.gz
"$NVM_ROOT/tests/qemu/mkinitramfs.sh" "$kind" "$initrd" >&2 || fail_early "cannot make the initramfs"

# KASAN and lockdep under TCG make the debug kernel several times slower.
case $kind in
stock*) limit=${NVM_QEMU_TIMEOUT:-900} per_test=${NVM_TEST_TIMEOUT:-180} ;;
debug) limit=${NVM_QEMU_TIMEOUT:-2400} per_test=${NVM_TEST_TIMEOUT:-300} ;;
esac
append="console=ttyS0 panic=-1 oops=panic loglevel=5 log_buf_len=4M"
append="$append nvm_timeout=$per_test nvm_mode=$mode"
[ -z "${NVM_TESTS:-}" ] || append="$append nvm_tests=$NVM_TESTS"
# make bench times each call with two clock reads.  Under TCG the kernel
# finds the TSC unsynchronized at boot (6.1) or skewed against the HPET a
# minute in (6.12) and switches to the HPET, whose every read is an
# emulated device access of about a microsecond: the figures would then
# hold more clock than call, and change meaning halfway through.  TCG's TSC
# is the host's, one clock for every vCPU: keep it.
[ "$mode" != bench ] || append="$append tsc=reliable"
[ -z "${NVM_APPEND:-}" ] || append="$append $NVM_APPEND"

echo "run-guest: booting $kind ($(nvm_release "$kind")), limit ${limit}s, console in ${console#"$NVM_ROOT"/}" >&2
start=$(date +%s)
# The QEMU: bookworm-backports' (fetch-qemu.sh says why), with its own
# firmware; NVM_QEMU names another.  The guests need no network.
if [ -n "${NVM_QEMU:-}" ]; then
	qemu=("$NVM_QEMU")
else
	bin=$("$NVM_ROOT/tests/qemu/fetch-qemu.sh") || fail_early "cannot get QEMU (tests/qemu/fetch-qemu.sh)"
	share=${bin%/bin/*}/share
	qemu=("$bin" -L "$share/seabios" -L "$share/qemu")
fi
qemu=(timeout -k 10 "$limit" "${qemu[@]}" -accel tcg -smp 2 -m 2G -nographic -no-reboot -nic none
	-kernel "$image" -initrd "$initrd" -append "$append")
set +e
if [ "${NVM_VERBOSE:-0}" = 1 ]; then
	"${qemu[@]}" </dev/null 2>&1 | tee "$console"
	status=${PIPESTATUS[0]}
else
	# The console to its file; what the guest is doing (its tests, one
	# line each as it starts and ends) to stderr as it goes.
	: > "$console"
	"${qemu[@]}" </dev/null > "$console" 2>&1 &
	qpid=$!
	tail -n +1 -F --pid="$qpid" "$console" 2>/dev/null |
		grep -a --line-buffered -E '^NVMGUEST (START|KTAP|TEST)' |
		sed -u "s/\r\$//; s/^NVMGUEST /run-guest: $kind: /" >&2 &
	fpid=$!
	wait "$qpid"
	status=$?
	wait "$fpid"
fi
set -e
echo "run-guest: $kind guest ran $(( $(date +%s) - start ))s (QEMU status $status)" >&2

# Demo and bench runs are read by tests/demo.sh and tests/bench/run.sh, not judged.
[ "$mode" = test ] || exit 0
exec "$NVM_ROOT/tests/qemu/verdict.sh" "$kind" "$console" "$work/build.result" "$status"
