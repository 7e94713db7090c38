#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read a guest's serial console log and decide:
#
#   tests/qemu/verdict.sh KIND CONSOLE_LOG [BUILD_RESULT] [QEMU_STATUS]
#
# Counts `NVMTEST PASS/FAIL` lines, KUnit test cases from the KTAP section
# (a case `# SKIP`ped counts neither way and is listed), `NVMBUILD FAIL`
# lines of BUILD_RESULT, and adds one failure, with the lines that caused it,
# for each kind of kernel trouble in the log: KASAN, UBSAN, lockdep, hung
# task or stall, kmemleak leak, Oops, general protection fault, WARNING, BUG,
# and a Call Trace that none of those explains (an Oops, BUG, GPF, WARNING or
# Call Trace between the kernel log lines "nvm-expect-oops begin" and
# "nvm-expect-oops end", which a test writes around an oops it causes on
# purpose, is not counted; the rest is); and one for a guest that
# never printed NVMGUEST DONE (panic, hang, QEMU_STATUS 124: time limit).
# A guest that ran no test at all fails too.
#
# Prints the failures and a summary line; writes the test scripts' results
# as KTAP to build/<KIND>/tests.ktap (a subtest per script, a case per
# NVMTEST line; results before the first script, such as guest-two-cpus,
# under "guest"), and build/<KIND>/result:
#   passed N failed M
#   kunit_passed N kunit_failed N kunit_skipped N tests_passed N tests_failed N
#   findings N done 0|1          (kernel trouble, no DONE, no tests)
#   build_failed N
# Exit status: 0 when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || nvm_die "usage: $0 KIND CONSOLE_LOG [BUILD_RESULT] [QEMU_STATUS]"
kind=$1
log=$2
build_result=${3:-/dev/null}
[ -e "$build_result" ] || build_result=/dev/null
qemu_status=${4:-0}
result=$NVM_BUILD/$kind/result
mkdir -p "$(dirname "$result")"

awk -v kind="$kind" -v qemu_status="$qemu_status" -v result="$result" \
	-v verbose="${NVM_VERBOSE:-0}" '
function report(msg) { print "  FAIL " kind ": " msg }
# Print up to n lines from line i on (up to a marker line if to_marker),
# leaving out register dumps and lines printed before: one crash often makes
# several findings with the same trace.
function show(i, n, to_marker,   j) {
	if (i in printed) {
		print "     = " lines[i] "  (above)"
		return
	}
	for (j = i; n > 0 && j <= nlines; j++) {
		if (to_marker && lines[j] ~ /^NVMGUEST /)
			break
		if (lines[j] ~ regs || (j in printed))
			continue
		printed[j] = 1
		print "     | " lines[j]
		n--
	}
}
BEGIN {
	# Checked in this order; a line counts for the first that matches.
	ncat = split("kasan ubsan lockdep hang kmemleak oops gpf warning bug trace", cats, " ")
	re["kasan"] = "BUG: KASAN|KASAN: |kasan: bad access"
	what["kasan"] = "KASAN report"
	re["ubsan"] = "UBSAN: "
	what["ubsan"] = "UBSAN report"
	re["lockdep"] = "possible circular locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|possible recursive locking|bad unlock balance|lock held when returning to user space|held lock freed|possible irq lock inversion|lockdep bug"
	what["lockdep"] = "lockdep report"
	re["hang"] = "INFO: task .* blocked for more than|detected stalls? on CPU|rcu_.*self-detected stall|soft lockup|hard LOCKUP|Workqueue lockup|workqueue lockup"
	what["hang"] = "hung task or stall"
	re["kmemleak"] = "unreferenced object 0x"
	what["kmemleak"] = "kmemleak reports leaks"
	re["oops"] = "Oops: "
	what["oops"] = "kernel Oops"
	re["gpf"] = "general protection fault"
	what["gpf"] = "general protection fault"
	re["warning"] = "WARNING:"
	what["warning"] = "kernel WARNING"
	re["bug"] = "BUG:"
	what["bug"] = "kernel BUG"
	re["trace"] = "Call Trace:"
	what["trace"] = "unexplained Call Trace"
	regs = "(Code: |RSP: [0-9a-f]+:|R[A-Z0-9][A-Z0-9]: [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]|\\] (FS|CS|CR2): )"
	# Expected with an unsigned out-of-tree module: not trouble.
	harmless = "loading out-of-tree module taints kernel|module verification failed|Skipping BTF generation"
}
{
	sub(/\r+$/, "")
	lines[++nlines] = $0
	line = $0
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
}
/^NVMGUEST START / { started = 1; next }
/^NVMGUEST DONE/ { done = 1; next }
/^NVMGUEST KTAP BEGIN/ { in_ktap = 1; ktap_seen = 1; next }
/^NVMGUEST KTAP END/ { in_ktap = 0; next }
/^NVMGUEST KMEMLEAK BEGIN/ { in_leak = 1; next }
/^NVMGUEST KMEMLEAK END/ { in_leak = 0; next }
# An oops a test causes on purpose (99-driver-oops.sh), announced in the
# kernel log: the live console and the dmesg dump both have the markers.
# No "next": on the console a marker can share its line with the
# NVMTEST line, which must still count.
line ~ /nvm-expect-oops begin/ { in_oops = 1 }
line ~ /nvm-expect-oops end/ { in_oops = 0 }
/^NVMTEST PASS / {
	tests_passed++
	if (verbose) print "  pass " kind ": " substr($0, 14)
	next
}
/^NVMTEST FAIL / {
	tests_failed++
	report(substr($0, 14))
	next
}
/^NVMGUEST / { next }
in_ktap {
	# Case level: one indent (4 spaces) under the top-level plan.
	if (match(line, /^    # Subtest: /)) {
		suite = substr(line, RLENGTH + 1)
		suite_failed_cases = 0
		next
	}
	if (line ~ /^    (not )?ok [0-9]+ /) {
		name = line
		sub(/^    (not )?ok [0-9]+ (- )?/, "", name)
		if (name ~ /# SKIP/) {
			kunit_skipped++
			print "  skip " kind ": kunit " suite "." name
		} else if (line ~ /^    ok /) {
			kunit_passed++
			if (verbose) print "  pass " kind ": kunit " suite "." name
		} else {
			kunit_failed++
			suite_failed_cases++
			report("kunit " suite "." name)
		}
		next
	}
	if (line ~ /^not ok [0-9]+ / && line !~ /# SKIP/ && suite_failed_cases == 0) {
		# A suite that failed without a failing case: its init failed.
		kunit_failed++
		report("kunit suite " suite " failed as a whole: " line)
	}
	if (line ~ /^(not )?ok [0-9]+ /)
		suites++
	next
}
{
	if (line ~ harmless)
		next
	for (c = 1; c <= ncat; c++) {
		cat = cats[c]
		if (in_leak && cat != "kmemleak")
			continue
		if (in_oops && cat ~ /^(oops|gpf|warning|bug|trace)$/)
			continue
		if (line ~ re[cat]) {
			if (!(cat in first))
				first[cat] = nlines
			hits[cat]++
			break
		}
	}
}
END {
	# The findings in the order they first appeared.
	n = 0
	for (c = 1; c <= ncat; c++) {
		cat = cats[c]
		if (!(cat in first) || (cat == "trace" && n > 0))
			continue
		for (k = ++n; k > 1 && first[found[k - 1]] > first[cat]; k--)
			found[k] = found[k - 1]
		found[k] = cat
	}
	for (k = 1; k <= n; k++) {
		cat = found[k]
		findings++
		report(what[cat] " (" hits[cat] " line" (hits[cat] > 1 ? "s" : "") ", first:)")
		show(first[cat], 20, 1)
	}
	if (!done) {
		findings++
		if (qemu_status == 124)
			report("guest did not finish: QEMU hit its time limit")
		else if (!started)
			report("guest never reached /init (QEMU status " qemu_status ")")
		else
			report("guest did not finish (panic or crash; QEMU status " qemu_status ")")
		print "     last lines of the console:"
		show(nlines > 15 ? nlines - 14 : 1, 15, 0)
	}
	if (ktap_seen && kunit_passed + kunit_failed + kunit_skipped == 0 && suites == 0) {
		kunit_failed++
		report("kunit: no KUnit results in the kernel log")
	}
	if (started && tests_passed + tests_failed + kunit_passed + kunit_failed == 0) {
		findings++
		report("the guest ran no tests")
	}
	passed = tests_passed + kunit_passed
	failed = tests_failed + kunit_failed + findings
	printf "passed %d failed %d\n", passed, failed > result
	printf "kunit_passed %d kunit_failed %d kunit_skipped %d tests_passed %d tests_failed %d\n",
		kunit_passed, kunit_failed, kunit_skipped, tests_passed, tests_failed > result
	printf "findings %d done %d\n", findings, done > result
}
' "$log"

# The scripts' results as KTAP (Documentation/dev-tools/ktap.rst): a
# subtest per script, then one, "guest", for the results outside them.
awk '
function add(res) {
	k = cur == "" ? "guest" : cur
	if (!(k in n)) {
		order[++nscripts] = k
		n[k] = 0
	}
	line[k, ++n[k]] = res " " n[k] " " $3
}
/^NVMGUEST TEST [^ ]+$/ { cur = $3; next }
/^NVMGUEST TEST [^ ]+ took / { cur = ""; next }
/^NVMTEST PASS / { add("ok"); next }
/^NVMTEST FAIL / {
	why = $0
	sub(/^NVMTEST FAIL [^ ]+ ?/, "", why)
	sub(/:$/, "", $3)
	add("not ok")
	line[k, n[k]] = line[k, n[k]] " # " why
	bad[k] = 1
	next
}
END {
	# "guest" last: its results come from before and after the scripts.
	if ("guest" in n) {
		for (i = 1; order[i] != "guest"; i++)
			;
		for (; i < nscripts; i++)
			order[i] = order[i + 1]
		order[nscripts] = "guest"
	}
	print "KTAP version 1"
	print "1.." nscripts
	for (i = 1; i <= nscripts; i++) {
		k = order[i]
		printf "    KTAP version 1\n    # Subtest: %s\n    1..%d\n", k, n[k]
		for (j = 1; j <= n[k]; j++)
			print "    " line[k, j]
		printf "%s %d %s\n", (k in bad) ? "not ok" : "ok", i, k
	}
}
' "$log" >"$NVM_BUILD/$kind/tests.ktap"

# Build failures of the pieces that went into the guest.
build_failed=0
while IFS= read -r line; do
	case $line in
	"NVMBUILD FAIL "*) echo "  FAIL $kind: build ${line#NVMBUILD FAIL }"; build_failed=$((build_failed + 1)) ;;
	esac
done < "$build_result"

read -r _ passed _ failed < "$result"
failed=$((failed + build_failed))
sed -i "1s/.*/passed $passed failed $failed/" "$result"
echo "build_failed $build_failed" >> "$result"
sed -n 2,3p "$result" | sed "s/^/  $kind: /"
echo "$kind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
