#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: boot the stock guest in bench mode, run nvbench there through
# the stand-in driver's own nodes and through nvmediate's, and print the
# results as Markdown tables (also written to build/bench/results.md):
# per-call latency of each operation direct and mediated, the added cost in
# null-syscall (getppid) units, thread scaling, memory per open file, and
# the size of nvmediate.ko against the targets of the benchmark issue.
# Then the per-call operations again, in the same guest, through an earlier
# nvmediate built from git (NVM_BENCH_BASE) and through this one, in turns:
# what the changes since cost, side by side.
#
#   tests/bench/run.sh                     (make bench)
#
# Environment:
#   NVM_BENCH_ARGS    more nvbench arguments, e.g. "--iters 4000" (nvbench.c)
#   NVM_QEMU_TIMEOUT  seconds before QEMU is killed (default 900)
#   NVM_BENCH_BASE    the earlier commit to compare with (default 53d97a3,
#                     the last before opens shared the backing inode and
#                     calls were counted per process); "none": no comparison
#   NVM_BENCH_REPORT_ONLY=1  no guest run: tabulate the last one again
#                     (build/<kernel>/bench-console.log)
#   NVM_BENCH_KERNEL  the guest kernel (default stock; e.g. stock-6.12, the
#                     newest tested, where the bounce area is sealed); other
#                     than stock, the results go to build/bench-<kernel>/
# Exit status: 0 when the guest finished and every call succeeded; the
# targets being missed does not fail it (the table says so).
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$NVM_ROOT"

kind=${NVM_BENCH_KERNEL:-stock}
out=$NVM_BUILD/bench
[ "$kind" = stock ] || out=$NVM_BUILD/bench-$kind
mkdir -p "$out"
args=${NVM_BENCH_ARGS:-}
append=${NVM_APPEND:-}
[ -z "$args" ] || append="$append nvm_bench=$(echo "$args" | tr ' ' ',')"

# base_module: nvmediate.ko of NVM_BENCH_BASE for the guest kernel, its
# path on stdout ("" with a note on stderr when it cannot be built).
base=${NVM_BENCH_BASE:-53d97a3}
base_module() {
	local dir=$out/base kdir
	[ "$base" != none ] || return 0
	if ! git -C "$NVM_ROOT" cat-file -e "$base^{commit}" 2>/dev/null; then
		echo "bench: commit $base is not in this clone: no comparison" >&2
		return 0
	fi
	kdir=$(nvm_kdir "$kind") || return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	git -C "$NVM_ROOT" archive "$base" | tar -x -C "$dir" &&
		nvm_kmake "$kind" -C "$kdir" M="$dir" -j"$(nproc)" modules > "$out/base-build.log" 2>&1 ||
		{ echo "bench: building $base failed (${out#"$NVM_ROOT"/}/base-build.log): no comparison" >&2; return 0; }
	echo "$dir/nvmediate.ko"
}

start=$(date +%s)
if [ -z "${NVM_BENCH_REPORT_ONLY:-}" ]; then
	base_ko=$(base_module)
	NVM_MODE=bench NVM_QEMU_TIMEOUT=${NVM_QEMU_TIMEOUT:-900} NVM_APPEND="$append" \
		NVM_BENCH_BASE_KO="$base_ko" NVM_BENCH_BASE="$base" tests/qemu/run-guest.sh "$kind"
fi
took=$(( $(date +%s) - start ))
log=$NVM_BUILD/$kind/bench-console.log
tr -d '\r' < "$log" | grep '^NVMBENCH ' > "$out/raw.txt" || true
sed -n 's/^NVMBUILD FAIL /build failed: /p' "$NVM_BUILD/$kind/build.result"

# Sizes of the allocated sections of an object, by kind: text (code),
# rodata (read-only data), data (writable, .bss included).
sizes() {	# sizes FILE -> "text rodata data"
	objdump -h "$1" | awk '
	function hex(s,   i, c, v) {
		v = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
			v = v * 16 + c
		}
		return v
	}
	$1 ~ /^[0-9]+$/ { size = hex($3); next }
	size != "" {
		if ($0 ~ /ALLOC/) {
			if ($0 ~ /CODE/) t += size
			else if ($0 ~ /READONLY/) r += size
			else d += size
		}
		size = ""
	}
	END { printf "%d %d %d\n", t, r, d }'
}
ko=$NVM_BUILD/$kind/src/nvmediate.ko
tables=$NVM_BUILD/$kind/src/abi/generated/nvabi_tables.o
modsize="0 0 0"
tabsize="0 0 0"
[ -f "$ko" ] && modsize=$(sizes "$ko")
[ -f "$tables" ] && tabsize=$(sizes "$tables")

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
qemu=${NVM_QEMU:-$("$NVM_ROOT/tests/qemu/fetch-qemu.sh")}
host="$cpu, $(nproc) cores, $("$qemu" --version | head -n 1 | sed 's/ (.*//'), TCG, -smp 2 -m 2G"
guest=$(sed -n 's/^NVMBENCH begin kernel=\([^ ]*\).*/\1/p' "$out/raw.txt")

awk -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v host="$host" -v guest="${guest:-?}" -v kind="$kind" \
    -v took="$took" -v args="${args:-(defaults)}" -v modsize="$modsize" -v tabsize="$tabsize" '
function kb(b) { return sprintf("%.1f KiB", b / 1024) }
# The key=value fields of the line from field @from on, into @a.
function kvs(a, from,   i, kv) { for (i = from; i <= NF; i++) { split($i, kv, "="); a[kv[1]] = kv[2] } }
# Means over the rounds of variant @var of the "cmp" lines for operation @o,
# each round against its own getppid (less its own clock): RN rounds, RD / RM direct / mediated
# median ns, RU added units, RF added faults, RL the write fault of the round in
# units.
function rounds(var, o,   r, d, m, u, c) {
	RN = 0; RD = 0; RM = 0; RU = 0; RF = 0; RL = 0
	for (r in cround) {
		d = var SUBSEP r SUBSEP o SUBSEP "direct"; m = var SUBSEP r SUBSEP o SUBSEP "mediated"
		c = (var, r, "clock", "direct") in cmed ? cmed[var, r, "clock", "direct"] : 0
		u = cmed[var, r, "getppid", "direct"] - c
		if (!(d in cmed) || !(m in cmed) || u <= 0)
			continue
		RN++; RD += cmed[d]; RM += cmed[m]; RU += (cmed[m] - cmed[d]) / u
		RL += (cmed[var, r, "write-fault", "direct"] - c) / u
		RF += (cn[m] > 0 ? cflt[m] / cn[m] : 0) - (cn[d] > 0 ? cflt[d] / cn[d] : 0)
	}
	if (RN) { RD /= RN; RM /= RN; RU /= RN; RF /= RN; RL /= RN }
	return RN
}
# Does getppid, scaling @g x one thread at @t threads, show a machine that
# scales there: at least 0.9 x the threads, or x the CPUs where there are
# fewer?  Where it does not, no thread figure is judged.
function machine_scales(g, t,   tc) {
	tc = infokv["cpus"] > 0 && infokv["cpus"] < t ? infokv["cpus"] : t
	return g >= 0.9 * tc
}
# The thread scaling of variants @a and @b of the "cmpscale" lines, side
# by side (labels @la, @lb): calls/s of the mediated control, its scaling
# and its ratio to direct, with the scaling of getppid.  Each figure is
# the mean over the rounds in which getppid itself scaled at that thread
# count (machine_scales()), each round against its own one thread: in the
# other rounds the machine, not the module, set the figure.
function scaletab(a, b, la, lb,   t, v, var, r, k, g, n, sm_, sx_, sr_, nr_, na_, gs, gn) {
	printf "| threads | getppid (control) x 1 thread; rounds counted | %s: mediated (x 1 thread) | %s: mediated / direct | %s: mediated (x 1 thread) | %s: mediated / direct |\n", la, la, lb, lb
	print "|---|---|---|---|---|---|"
	for (t = 1; t <= 8; t *= 2) {
		gs = 0; gn = 0
		for (v = 0; v < 2; v++) {
			var = v ? b : a
			sm_[v] = 0; sx_[v] = 0; sr_[v] = 0; nr_[v] = 0; na_[v] = 0
			for (r in csround) {
				k = var SUBSEP r
				if (!crate[k, "getppid", 1] || !crate[k, "mediated", 1] || !crate[k, "direct", t] ||
				    !crate[k, "mediated", t])
					continue
				g = crate[k, "getppid", t] / crate[k, "getppid", 1]
				gs += g; gn++; na_[v]++
				if (!machine_scales(g, t))
					continue
				nr_[v]++
				sm_[v] += crate[k, "mediated", t]
				sx_[v] += crate[k, "mediated", t] / crate[k, "mediated", 1]
				sr_[v] += crate[k, "mediated", t] / crate[k, "direct", t]
			}
		}
		if (!gn)
			continue
		printf "| %d | %.2f; %d of %d, %d of %d |", t, gs / gn, nr_[0], na_[0], nr_[1], na_[1]
		for (v = 0; v < 2; v++) {
			n = nr_[v]
			if (n)
				printf " %.0f (%.2f) | %.2f |", sm_[v] / n, sx_[v] / n, sr_[v] / n
			else
				printf " - | - |"
		}
		printf "\n"
	}
}
$2 ~ /^op=/ {
	kvs(f, 2)
	k = f["op"] SUBSEP f["side"]
	med[k] = f["median_ns"]; p99[k] = f["p99_ns"]; n[k] = f["n"]; fails[k] = f["fails"]
	minflt[k] = f["minflt"]
	if (!(f["op"] in seen)) { seen[f["op"]] = 1; order[++nops] = f["op"] }
	next
}
$2 == "cmp" {
	delete g
	kvs(g, 3)
	k = g["variant"] SUBSEP g["round"] SUBSEP g["op"] SUBSEP g["side"]
	cmed[k] = g["median_ns"]; cn[k] = g["n"]; cflt[k] = g["minflt"]
	cround[g["round"]] = 1
	if (!(g["op"] in cseen)) { cseen[g["op"]] = 1; corder[++ncops] = g["op"] }
	next
}
$2 == "cmpmem" {
	delete g
	kvs(g, 3)
	k = g["variant"] SUBSEP g["round"] SUBSEP g["side"]
	cslab[k] = g["slab_kb"]; cfiles[k] = g["files"]
	next
}
$2 == "cmpscale" {
	delete g
	kvs(g, 3)
	crate[g["variant"], g["round"], g["side"], g["threads"]] = g["rate"]
	csround[g["round"]] = 1
	csvar[g["variant"]] = 1
	next
}
$2 == "splitinfo" {
	kvs(sinfo, 3)
	next
}
$2 == "cmpinfo" {
	kvs(cinfo, 3)
	next
}
$2 ~ /^scale/ {
	kvs(f, 3)
	rate[f["side"], f["threads"]] = f["rate"]
	rmin[f["side"], f["threads"]] = f["min"]; rmax[f["side"], f["threads"]] = f["max"]
	reps = f["reps"]; ms = f["ms"]
	next
}
$2 ~ /^mem/ {
	kvs(f, 3)
	mfiles[f["side"]] = f["files"]; slab[f["side"]] = f["slab_kb"]
	sunr[f["side"]] = f["sunreclaim_kb"]
	next
}
$2 == "clocksource" {
	delete g
	kvs(g, 3)
	clocks[g["at"]] = g["name"]
	next
}
$2 ~ /^module/ { split($3, kv, "="); coresize = kv[2]; next }
$2 ~ /^trace$/ {
	kvs(f, 3)
	trace[++ntrace] = sprintf("| %s | `%s` | %d | %d |", f["op"], f["fn"], f["calls"], f["median_ns"])
	tmed[f["op"], f["fn"]] = f["median_ns"]
	tmean[f["op"], f["fn"]] = f["mean_ns"]
	if ((f["op"] == "scale-2" || f["op"] == "scale-8") && !(f["fn"] in tfnseen)) {
		tfnseen[f["fn"]] = 1
		tfnscale[++ntfnscale] = f["fn"]
	}
	next
}
$2 ~ /^info/ { info = $0; sub(/^NVMBENCH info /, "", info); kvs(infokv, 3); next }
$2 ~ /^end/ { split($3, kv, "="); endfails = kv[2]; next }
$2 ~ /^fail/ { nfail++; if (nfail <= 5) failure[nfail] = $0; next }
END {
	# Every figure includes two clock reads: the unit and the floor are
	# taken without them (the added costs, differences, hold none).
	hasclk = ("clock", "direct") in med
	clk = hasclk ? med["clock", "direct"] : 0
	unit = med["getppid", "direct"] - clk
	# Targets: at most tf[] write faults and tu[] units more than direct.
	tf["ctrl-small"] = 1; tu["ctrl-small"] = 1
	tf["ctrl-4k"] = 1; tu["ctrl-4k"] = 1
	tf["register-fd"] = 1; tu["register-fd"] = 3
	tf["alloc-free"] = 2; tu["alloc-free"] = 2
	tf["open-close"] = 0; tu["open-close"] = 3
	tf["uvm"] = 0; tu["uvm"] = 1
	tf["mmap-munmap"] = 0; tu["mmap-munmap"] = 1
	desc["clock"] = "the clock: two reads, nothing between (in every figure; taken out of the unit and the floor)"
	desc["getppid"] = "getppid (the unit, less the clock; same call both sides)"
	desc["write-fault"] = "a minor write fault on a present read-only page, nothing allocated (the floor; same both sides)"
	desc["kzero"] = "a byte read from /dev/zero into the floor\047s page, made read-only and writable again (the base of the next row; same both sides)"
	desc["kwrite-fault"] = "the same read into the floor\047s read-only page: the fault from kernel mode (same both sides)"
	desc["ctrl-small"] = "RM_CONTROL, 32 B params (GPU_GET_ID_INFO_V2)"
	desc["ctrl-4k"] = "RM_CONTROL, 3812 B params (GPU_GET_PIDS)"
	desc["alloc-free"] = "RM_ALLOC + RM_FREE (a client)"
	desc["register-fd"] = "REGISTER_FD (carries an fd)"
	desc["uvm"] = "UVM_PAGEABLE_MEM_ACCESS"
	desc["open-close"] = "open + close of the control node"
	desc["mmap-munmap"] = "mmap + munmap of 64 KiB RM memory"
	print "# nvmediate benchmark"
	print ""
	print "- date: " date
	print "- host: " host
	print "- guest kernel: " guest
	print "- nvbench: " info " (arguments: " args ")"
	print "- make bench took " took " s"
	print ""
	# The floor: one write fault, in units (the median on the direct side).
	fault = unit > 0 ? (med["write-fault", "direct"] - clk) / unit : 0
	print "## Per call (median / p99, ns; added cost in getppid units = (mediated - direct median) / (getppid - clock median))"
	print ""
	if (hasclk)
		printf "Each call is timed with two reads of the clock (clocksource %s at the start, %s at the end). " \
			"The clock\047s own cost, %d ns, is in every figure; the unit is getppid\047s median less it: %d ns.%s\n\n", \
			clocks["begin"], clocks["end"], clk, unit, \
			(clocks["begin"] != clocks["end"] ? " **The kernel changed its clock during the run: the phases are not comparable.**" : "")
	else
		print "This run did not time the clock: the unit and the floor include two clock reads.\n"
	printf "One minor write fault on a present read-only page, which allocates nothing (the floor of a bounced call), costs %.2f units here. " \
		"Faults: the minor faults per call the calling thread took (its rusage), mediated minus " \
		"direct; added cost as faults + units = those faults at %.2f units each + the rest.\n", fault, fault
	if (("kwrite-fault", "direct") in med && ("kzero", "direct") in med && unit > 0)
		printf "\nThe driver\047s write back faults from kernel mode, which x86 handles under the mmap_lock: " \
			"that fault, measured as a read from /dev/zero into the floor\047s page less the same read " \
			"into it made writable again, costs %.2f units (%d ns), against %.2f from user mode. Each timed fault " \
			"follows an untimed one of its kind on another page, which brings the fault\047s path back into the " \
			"TLB after the flush that made the pages read-only (a sealed area\047s call finds it there).\n", \
			(med["kwrite-fault", "direct"] - med["kzero", "direct"]) / unit, \
			med["kwrite-fault", "direct"] - med["kzero", "direct"], fault
	wf = "write-fault" SUBSEP "direct"
	if (n[wf] > 0 && (minflt[wf] / n[wf] < 0.95 || minflt[wf] / n[wf] > 1.05))
		printf "\n**The floor took %.2f minor faults per call, not one: its cost is not a fault\047s, and the split below is not meaningful.**\n", \
			minflt[wf] / n[wf]
	print ""
	print "| operation | calls per side | direct | mediated | added (units) | added faults + units | ratio | target | met |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nops; i++) {
		o = order[i]; d = o SUBSEP "direct"; m = o SUBSEP "mediated"
		added = unit > 0 ? (med[m] - med[d]) / unit : 0
		df = (n[m] > 0 ? minflt[m] / n[m] : 0) - (n[d] > 0 ? minflt[d] / n[d] : 0)
		rest = added - df * fault
		fu = sprintf("%.2f faults + %.2f units", df, rest)
		ratio = med[d] > 0 ? med[m] / med[d] : 0
		tg = "-"; met = "-"
		if (o in tu) {
			tg = sprintf("<= %d faults + %d units", tf[o], tu[o])
			# A fault count within 0.05 of the target is the target.
			met = df <= tf[o] + 0.05 && rest <= tu[o] ? "yes" : \
				sprintf("no (%s%s)", df > tf[o] + 0.05 ? sprintf("+%.2f faults ", df - tf[o]) : "", \
					rest > tu[o] ? sprintf("+%.2f units", rest - tu[o]) : "")
		}
		printf "| %s | %s | %s / %s | %s / %s | %.2f | %s | %.2f | %s | %s |\n", \
			(o in desc ? desc[o] : o), n[d], med[d], p99[d], med[m], p99[m], \
			added, fu, ratio, tg, met
	}
	if (sinfo["iters"] != "") {
		print ""
		print "## The bounce\047s own share: this nvmediate with the payload bounce off and on"
		print ""
		printf "The per-call operations again (%s calls per side of the cheap ones) with `bounce=0` (the driver reads " \
			"the caller\047s memory: checks and forwarding only) and `bounce=1`, in turns: off, on, on, off. " \
			"Each figure is the mean over the rounds of that round\047s own figure (units of its own getppid); " \
			"the floor is that round\047s write fault. What the bounce adds above its faults is what the target of " \
			"1 unit (2 for RM_ALLOC + RM_FREE) leaves room for, with the checks and forwarding besides. The " \
			"operations that take no bounce show the noise.\n", sinfo["iters"]
		print ""
		print "| operation | bounce off: added (units) | bounce on: added (units) | the bounce: faults | the bounce: units above its faults |"
		print "|---|---|---|---|---|"
		for (i = 1; i <= ncops; i++) {
			o = corder[i]
			if (o == "getppid" || o == "write-fault" || !rounds("bounce0", o))
				continue
			off = RU; offf = RF; offl = RL
			if (!rounds("bounce1", o))
				continue
			printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", (o in desc ? desc[o] : o), off, RU, RF - offf, \
				RU - off - (RF - offf) * (offl + RL) / 2
		}
		if (("bounce0" in csvar) && ("bounce1" in csvar)) {
			print ""
			print "Thread scaling of the small RM_CONTROL with the bounce off and on, each thread its own file and client (calls/s, median of 3 runs of 500 ms, mean over the rounds in which getppid scaled at least 0.9 x the threads or CPUs; the second column counts them for each side):"
			print ""
			scaletab("bounce0", "bounce1", "bounce off", "bounce on")
		}
	}
	if (cinfo["base"] != "") {
		print ""
		printf "## Before and after: commit %s against this one, in the same guest\n", cinfo["base"]
		print ""
		printf "The per-call operations again (%s calls per side of the cheap ones), through nvmediate.ko built " \
			"from commit %s and through this one, loaded in turns: base, this, this, base (%d rounds). Each figure is " \
			"the mean over the rounds of that round\047s own figure (added units against its own getppid).\n", \
			cinfo["iters"], cinfo["base"], cinfo["rounds"] != "" ? cinfo["rounds"] : 2
		print ""
		print "| operation | before: direct / mediated median (ns) | before: added (units) | before: added faults | now: direct / mediated median (ns) | now: added (units) | now: added faults | now - before (units) |"
		print "|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= ncops; i++) {
			o = corder[i]
			if (!rounds("base", o))
				continue
			bd = RD; bm = RM; bu = RU; bf = RF
			if (!rounds("current", o))
				continue
			printf "| %s | %d / %d | %.2f | %.2f | %d / %d | %.2f | %.2f | %+.2f |\n", \
				(o in desc ? desc[o] : o), bd, bm, bu, bf, RD, RM, RU, RF, RU - bu
		}
		for (v = 0; v < 2; v++) {
			var = v ? "current" : "base"
			nr = 0; sb = 0; cnf = 0
			for (r in cround) {
				d = var SUBSEP r SUBSEP "direct"; m = var SUBSEP r SUBSEP "mediated"
				if (!(d in cslab) || !(m in cslab) || cfiles[m] <= 0)
					continue
				nr++; cnf = cfiles[m]
				sb += (cslab[m] - cslab[d]) * 1024 / cfiles[m]
			}
			mb[v] = nr ? sb / nr : -1; mf = cnf
		}
		if (mb[0] >= 0 && mb[1] >= 0)
			printf "\nSlab per open mediated file more than per direct one (%d files held open, mean of the rounds): before %.0f B, now %.0f B; target at most 512 B: %s.\n", \
				mf, mb[0], mb[1], mb[1] <= 512 ? "met" : "not met"
		if (("base" in csvar) && ("current" in csvar)) {
			print ""
			print "Thread scaling of the small RM_CONTROL, each thread its own file and client (calls/s, median of 3 runs of 500 ms, mean over the rounds in which getppid scaled at least 0.9 x the threads or CPUs; the second column counts them for each side):"
			print ""
			scaletab("base", "current", "before", "now")
		}
	}
	print ""
	printf "## Thread scaling: small RM_CONTROL, each thread its own file and client (calls/s, median of %s runs of %s ms)\n", reps, ms
	print ""
	print "| threads | direct | x 1 thread | mediated | x 1 thread | mediated / direct | getppid (control) | x 1 thread | target | met |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	for (t = 1; t <= 8; t *= 2) {
		d1 = rate["direct", 1]; m1 = rate["mediated", 1]; g1 = rate["getppid", 1]
		sd = d1 > 0 ? rate["direct", t] / d1 : 0
		sm = m1 > 0 ? rate["mediated", t] / m1 : 0
		sg = g1 > 0 ? rate["getppid", t] / g1 : 0
		md = rate["direct", t] > 0 ? rate["mediated", t] / rate["direct", t] : 0
		# The mediated/direct ratio within 10% of its 1-thread value
		# wherever getppid itself scales (machine_scales()).
		md1 = d1 > 0 ? m1 / d1 : 0
		tg = t == 1 ? "-" : sprintf("mediated / direct >= %.2f", 0.9 * md1)
		if (t == 1)
			met = "-"
		else if (!machine_scales(sg, t))
			met = sprintf("- (getppid scales %.2f x only)", sg)
		else
			met = md >= 0.9 * md1 ? "yes" : sprintf("no (%.2f)", md)
		printf "| %d | %d | %.2f | %d | %.2f | %.2f | %d | %.2f | %s | %s |\n", t, \
			rate["direct", t], sd, rate["mediated", t], sm, md, rate["getppid", t], sg, tg, met
	}
	print ""
	print "## Memory per open file (control node, all held open at once; /proc/meminfo deltas)"
	print ""
	print "| side | files | Slab increase | per file | of it unreclaimable (SUnreclaim) | per file |"
	print "|---|---|---|---|---|---|"
	for (s = 0; s < 2; s++) {
		side = s ? "mediated" : "direct"
		nf = mfiles[side] > 0 ? mfiles[side] : 1
		printf "| %s | %d | %d KiB | %d B | %d KiB | %d B |\n", side, mfiles[side], slab[side], \
			slab[side] * 1024 / nf, sunr[side], sunr[side] * 1024 / nf
	}
	nf = mfiles["mediated"] > 0 ? mfiles["mediated"] : 1
	printf "| mediated - direct | | %d KiB | %d B | %d KiB | %d B |\n", \
		slab["mediated"] - slab["direct"], (slab["mediated"] - slab["direct"]) * 1024 / nf, \
		sunr["mediated"] - sunr["direct"], (sunr["mediated"] - sunr["direct"]) * 1024 / nf
	per = (slab["mediated"] - slab["direct"]) * 1024 / nf
	printf "\nTarget: at most 512 B more slab per open mediated file: %s (%d B).\n", \
		per <= 512 ? "met" : "not met", per
	print ""
	print "## Module size (nvmediate.ko built for the guest kernel, every range compiled in)"
	print ""
	split(modsize, ms_, " "); split(tabsize, ts_, " ")
	print "| object | text | rodata | data | allocated in all | target | met |"
	print "|---|---|---|---|---|---|---|"
	printf "| nvmediate.ko | %s | %s | %s | %s | - | - |\n", kb(ms_[1]), kb(ms_[2]), kb(ms_[3]), \
		kb(ms_[1] + ms_[2] + ms_[3])
	tot = ts_[1] + ts_[2] + ts_[3]
	met = tot <= 512 * 1024 ? "yes" : "no"
	printf "| of which the descriptor tables (abi/generated/nvabi_tables.o) | %s | %s | %s | %s | <= 512 KiB | %s |\n", \
		kb(ts_[1]), kb(ts_[2]), kb(ts_[3]), kb(tot), met
	if (coresize != "")
		printf "\nLoaded in the guest: /sys/module/nvmediate/coresize = %s (%s).\n", coresize, kb(coresize)
	if (ntrace) {
		print ""
		print "## Where the time goes: the same operations under the function_graph tracer"
		print ""
		print "Median inclusive time of each traced function (nvmediate\047s steps, the stand-in\047s entry points,"
		print "the kernel\047s steps of the bounce: insertion, write fault, unmap and TLB flush), both sides together"
		print "for the functions both sides call. The tracer adds its own cost to every traced call and to each"
		print "traced caller around it (`vmf_insert_pfn` only calls `vmf_insert_pfn_prot`: their difference is"
		print "that cost per level), so these are several times the untraced figures above: compare shares."
		print ""
		print "| operation | function | calls | median (ns) |"
		print "|---|---|---|---|"
		for (i = 1; i <= ntrace; i++)
			print trace[i]
		if (ntfnscale) {
			print ""
			print "The small control from one thread, from two at once and from eight (each its own file and client;"
			print "eight share the two CPUs; the traced functions of 200 ms of each, in the same guest), side by side:"
			print "what more threads make dearer. The mean shows what only some calls pay (a wait, a batch)."
			print "A function that calls traced ones many times carries the tracer\047s cost of each: `apply_to_page_range`"
			print "calls `vmalloc_to_pfn` once per page it maps, one page for a call, up to 64 for a batch, so its median"
			print "says more about how many of its calls were batches than about its cost."
			print ""
			print "| function | 1 thread: median / mean (ns) | 2 threads | 8 threads | median: 2 / 1 | 8 / 1 | mean: 2 / 1 | 8 / 1 |"
			print "|---|---|---|---|---|---|---|---|"
			for (i = 1; i <= ntfnscale; i++) {
				fn = tfnscale[i]
				if (!(("scale-1", fn) in tmed) || tmed["scale-1", fn] <= 0 || tmean["scale-1", fn] <= 0)
					continue
				printf "| `%s` | %d / %d | %d / %d | %d / %d | %.2f | %.2f | %.2f | %.2f |\n", fn, \
					tmed["scale-1", fn], tmean["scale-1", fn], tmed["scale-2", fn], tmean["scale-2", fn], \
					tmed["scale-8", fn], tmean["scale-8", fn], \
					tmed["scale-2", fn] / tmed["scale-1", fn], tmed["scale-8", fn] / tmed["scale-1", fn], \
					tmean["scale-2", fn] / tmean["scale-1", fn], tmean["scale-8", fn] / tmean["scale-1", fn]
			}
		}
	}
	print ""
	if (endfails == "")
		print "**nvbench did not finish** (see build/" kind "/bench-console.log)."
	else
		printf "Failed calls: %d.\n", endfails
	for (i = 1; i <= nfail && i <= 5; i++)
		print "    " failure[i]
}' "$out/raw.txt" > "$out/results.md"
cat "$out/results.md"
grep -q '^NVMBENCH end fails=0$' "$out/raw.txt"
