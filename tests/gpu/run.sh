#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The GPU host check: on a machine with an NVIDIA GPU and its driver (no
# CUDA toolkit needed), run a small CUDA program directly and through
# nvmediate's nodes, and record the ioctls it makes.
#
#   tests/gpu/run.sh            (as root to load nvmediate; see tests/gpu/README.md)
#
# Steps, each said as it runs, within 10 minutes in all:
#   1. build cudaprobe (tests/gpu/cudaprobe.c) and the recording shim
#      nvtrace.so (tests/gpu/nvtrace.c) with gcc, into build/gpu/;
#   2. run cudaprobe directly, untraced and then with nvtrace.so, which
#      writes build/gpu/<driver-version>-cudaprobe.trace (the fixture);
#      nvidia-smi -L directly;
#   3. build nvmediate for the running kernel (/lib/modules/$(uname -r)/build)
#      in build/gpu/src and insmod it, unless it is loaded already (then it is
#      used as it is) or loading is not possible (not root, module loading
#      disabled, signatures enforced), which is said;
#   4. in a private pid and mount namespace (with its own /proc), as in a
#      container, where nvmediatefs's nodes (the mediated nodes showing the
#      driver's device numbers, which NVIDIA's libraries check) are
#      bind-mounted over /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm,
#      run cudaprobe (traced) and nvidia-smi -L again;
#      nvmediate's counters (/sys/class/nvmediate/stats) before and after, and
#      the "nvmediate: refused" lines the kernel logged meanwhile;
#   5. unload nvmediate if this script loaded it, and print one summary.
#
# Environment: NVM_GPU_OUT (default build/gpu), NVM_GPU_LIMIT (seconds for
# the whole run, default 570), NVM_GPU_PREBUILT (a directory holding
# cudaprobe and nvtrace.so built already: no compiler needed),
# NVM_GPU_NOGPU=1 (the driver has no GPU, as in the test guests: cudaprobe
# and nvidia-smi fail at the driver's answer, and each run through
# nvmediate must fail alike, with the same calls and answers).
# Exit status: 0 when everything that could run passed; 1 when something
# failed; 2 when there is nothing to check here (no NVIDIA driver or no
# libcuda.so.1, no gcc).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${NVM_GPU_OUT:-$ROOT/build/gpu}
LIMIT=${NVM_GPU_LIMIT:-570}
START=$SECONDS
STATS=/sys/class/nvmediate/stats

failed=0	# something that ran failed
absent=0	# nothing to check: no driver, no libcuda, no gcc
loaded_here=0
mounted_here=0	# this script mounted nvmediatefs at /run/nvmediate/default
declare -A S	# the summary's values

say() { echo "gpu: $*"; }
rel() { echo "${1#"$ROOT"/}"; }
fail() { failed=1; say "FAIL: $*"; }

# Seconds for the next step: at most $1, never past the whole run's limit.
budget() {
	local left=$((LIMIT - (SECONDS - START)))
	((left > $1)) && left=$1
	echo "$left"
}
out_of_time() { (($(budget 1) < 1)); }

mkdir -p "$OUT" || { echo "gpu: cannot create $OUT" >&2; exit 2; }
LOG=$OUT/run.log
: > "$LOG"

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	((!mounted_here)) || umount "$NODEFS" 2>>"$LOG" || say "could not unmount $NODEFS"
	if ((loaded_here)); then
		if rmmod nvmediate 2>>"$LOG"; then
			say "nvmediate unloaded (this script had loaded it)"
		else
			say "could not unload nvmediate (rmmod: $(tail -n 1 "$LOG")); unload it with: rmmod nvmediate"
		fi
	fi
}
trap cleanup EXIT

# --- what this machine is ---
S[kernel]=$(uname -r)
if [ -r /proc/driver/nvidia/version ]; then
	DRIVER=$(head -n 1 /proc/driver/nvidia/version | grep -oE '(^| )[0-9]+\.[0-9]+(\.[0-9]+)?( |$)' |
		head -n 1 | tr -d ' ')
	S[driver]=${DRIVER:-unknown (cannot read the version from /proc/driver/nvidia/version)}
	DRIVER=${DRIVER:-unknown}
else
	DRIVER=none
	absent=1
	S[driver]="none: no /proc/driver/nvidia/version (the nvidia kernel module is not loaded: install NVIDIA's driver, or modprobe nvidia)"
fi
GPUS=()
for n in /dev/nvidia[0-9]*; do
	[ -c "$n" ] && GPUS+=("${n#/dev/nvidia}")
done
say "kernel ${S[kernel]}, NVIDIA driver ${S[driver]}, GPU nodes: ${#GPUS[@]}${GPUS[*]:+ (/dev/nvidia${GPUS[*]})}"
[ "$(id -u)" = 0 ] && ROOTUSER=1 || ROOTUSER=0

TRACE=$OUT/$DRIVER-cudaprobe.trace
MTRACE=$OUT/$DRIVER-cudaprobe-mediated.trace
SMITRACE=$OUT/$DRIVER-nvidia-smi.trace
S[trace]="none"
S[calls]="none recorded"
S[refusals]="not looked at (no run through nvmediate)"
S[mediated]="not run"
S[smi_direct]="not run"
S[smi_mediated]="not run"
S[loaded]="no"
S[counters]="not read"

# --- 1. build the programs ---
CC=${CC:-gcc}
built=0
NOGPU=${NVM_GPU_NOGPU:-0}
if [ -n "${NVM_GPU_PREBUILT:-}" ]; then
	if cp "$NVM_GPU_PREBUILT/cudaprobe" "$NVM_GPU_PREBUILT/nvtrace.so" "$OUT/" 2>>"$LOG"; then
		built=1
		say "took cudaprobe and nvtrace.so from $NVM_GPU_PREBUILT"
	else
		S[direct]="not run: no cudaprobe or nvtrace.so in NVM_GPU_PREBUILT=$NVM_GPU_PREBUILT"
		fail "${S[direct]}"
	fi
elif ! command -v "$CC" > /dev/null; then
	absent=1
	S[direct]="not run: no C compiler ($CC): install gcc (apt-get install gcc)"
	say "${S[direct]}"
else
	cflags=(-O2 -Wall -Wextra)
	if "$CC" "${cflags[@]}" -o "$OUT/cudaprobe" "$ROOT/tests/gpu/cudaprobe.c" -ldl >>"$LOG" 2>&1 &&
		"$CC" "${cflags[@]}" -shared -fPIC -o "$OUT/nvtrace.so" "$ROOT/tests/gpu/nvtrace.c" \
			-ldl >>"$LOG" 2>&1; then
		built=1
		say "built $(rel "$OUT")/cudaprobe and $(rel "$OUT")/nvtrace.so"
	else
		S[direct]="not run: building cudaprobe or nvtrace.so failed (see $(rel "$LOG"))"
		fail "${S[direct]}"
		tail -n 10 "$LOG" | sed 's/^/  | /'
	fi
fi

# count_calls FILE: the calls in a trace
count_calls() { grep -vc '^#' "$1" 2>/dev/null || true; }

# --- 2. directly ---
probe() {	# probe TAG OUTFILE [RUNNER...]: cudaprobe, its status in $rc
	local tag=$1 file=$2
	shift 2
	say "cudaprobe $tag ..."
	timeout -k 5 "$(budget 120)" "$@" "$OUT/cudaprobe" > "$file" 2>&1
	rc=$?
	sed 's/^/  | /' "$file"
	((rc == 124 || rc == 137)) && echo "  | (killed: it ran past its time limit)"
}
smi() {	# smi TAG OUTFILE [runner...]: nvidia-smi -L, the summary line in $smi_res
	local tag=$1 file=$2 rc
	shift 2
	say "nvidia-smi -L $tag ..."
	timeout -k 5 "$(budget 60)" "$@" nvidia-smi -L > "$file" 2>&1
	rc=$?
	sed 's/^/  | /' "$file"
	if ((rc == 0)) && grep -q '^GPU [0-9]' "$file"; then
		smi_res="ok (exit 0, lists $(grep -c '^GPU [0-9]' "$file") GPU(s))"
	elif ((rc == 0)); then
		smi_res="FAILED (exit 0 but lists no GPU)"
	else
		smi_res="FAILED (exit $rc: $(grep -v '^$' "$file" | head -n 1))"
	fi
}

direct_ok=0
if ((built)); then
	probe direct "$OUT/direct.txt" env
	case $rc in
	0) S[direct]="ok"; direct_ok=1 ;;
	2) absent=1
	   S[direct]="not run: libcuda.so.1 cannot be loaded (NVIDIA's driver with its user-space libraries is needed)" ;;
	*) S[direct]="FAILED: $(grep -m1 'failed\|FAILED' "$OUT/direct.txt" || echo "exit status $rc")"
	   if ((NOGPU)); then
		S[direct]="${S[direct]#FAILED: } (no GPU: the driver's answer)"
	   else
		failed=1
	   fi ;;
	esac
	direct_rc=$rc
	if ((rc != 2)); then
		rm -f "$TRACE"
		probe "directly, recorded by nvtrace.so" "$OUT/direct-traced.txt" \
			env NVTRACE_OUT="$TRACE" LD_PRELOAD="$OUT/nvtrace.so"
		if ((rc != 0 && direct_ok)); then
			fail "cudaprobe passes alone but fails under nvtrace.so: the shim is at fault"
			S[direct]="ok, but FAILED with nvtrace.so (exit $rc)"
		fi
		if [ -s "$TRACE" ]; then
			S[trace]=$(rel "$TRACE")
			S[calls]="$(count_calls "$TRACE") (direct)"
		fi
		if ((rc == 0)) && [ "$DRIVER" != none ] && [ "$(count_calls "$TRACE")" = 0 ]; then
			fail "cudaprobe ran but nvtrace.so recorded no call on an NVIDIA node"
			S[calls]="0: FAILED, the shim saw none of libcuda's ioctls"
		fi
	fi
fi
if ! command -v nvidia-smi > /dev/null; then
	S[smi_direct]="not present (nvidia-smi is not in PATH)"
	S[smi_mediated]="not present"
elif [ "$DRIVER" = none ]; then
	S[smi_direct]="not run: no NVIDIA driver"
else
	smi directly "$OUT/smi-direct.txt" env NVTRACE_OUT="$SMITRACE" LD_PRELOAD="$OUT/nvtrace.so"
	S[smi_direct]=$smi_res
	if ((NOGPU)); then
		S[smi_direct]="${smi_res#FAILED } (no GPU: the driver's answer)"
	else
		[[ $smi_res == ok* ]] || failed=1
	fi
fi

# --- 3. nvmediate: built and loaded, or used as loaded ---
module_loaded() { grep -q '^nvmediate ' /proc/modules 2>/dev/null; }
ngpus=1
for g in "${GPUS[@]}"; do
	((g + 1 > ngpus)) && ngpus=$((g + 1))
done
if module_loaded; then
	S[loaded]="yes (already loaded, used as it is)"
elif out_of_time; then
	S[loaded]="no: out of time before the build"
else
	KDIR=${KDIR:-/lib/modules/$(uname -r)/build}
	why=
	if [ ! -f "$KDIR/Makefile" ]; then
		why="no kernel headers for $(uname -r) at $KDIR (install linux-headers-$(uname -r), or give KDIR=)"
	elif ! command -v make > /dev/null; then
		why="no make (apt-get install make)"
	fi
	if [ -z "$why" ]; then
		say "building nvmediate against $KDIR in $(rel "$OUT")/src ..."
		rm -rf "$OUT/src"
		mkdir -p "$OUT/src/abi"
		cp -a "$ROOT"/Kbuild "$ROOT"/Makefile "$ROOT"/VERSION "$ROOT"/kmod "$ROOT"/uapi "$OUT/src/"
		cp -a "$ROOT"/abi/*.h "$ROOT"/abi/generated "$OUT/src/abi/"
		find "$OUT/src" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) -delete
		if ! timeout -k 5 "$(budget 300)" make -C "$OUT/src" KDIR="$KDIR" -j"$(nproc)" modules \
				> "$OUT/build.log" 2>&1; then
			why="the build failed (last lines below; all in $(rel "$OUT")/build.log)"
			tail -n 15 "$OUT/build.log" | sed 's/^/  | /'
			failed=1
		fi
	fi
	# Allowed to load a module here?
	if [ -z "$why" ]; then
		sig=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null || echo N)
		lockdown=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/security/lockdown 2>/dev/null)
		if [ ! -e /proc/modules ]; then
			why="this kernel ($(uname -r)) cannot load modules (no /proc/modules: built without CONFIG_MODULES)"
		elif ((!ROOTUSER)); then
			why="not root (uid $(id -u)): run sudo tests/gpu/run.sh to load nvmediate"
		elif [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null || echo 0)" = 1 ]; then
			why="module loading is disabled (kernel.modules_disabled=1, until reboot)"
		elif [ "$sig" = Y ] && ! grep -q '~Module signature appended~' "$OUT/src/nvmediate.ko"; then
			why="the kernel loads signed modules only (module.sig_enforce${lockdown:+, lockdown=$lockdown}): sign $(rel "$OUT")/src/nvmediate.ko with an enrolled key or install it with DKMS (README.md: Secure Boot)"
		fi
	fi
	if [ -z "$why" ]; then
		say "insmod nvmediate.ko num_gpus=$ngpus ..."
		if insmod "$OUT/src/nvmediate.ko" num_gpus="$ngpus" > "$OUT/insmod.txt" 2>&1; then
			loaded_here=1
			S[loaded]="yes (built here and loaded by this script, num_gpus=$ngpus)"
		else
			why="insmod failed: $(tr '\n' ' ' < "$OUT/insmod.txt")$(dmesg 2>/dev/null | grep -i nvmediate | tail -n 3 | tr '\n' ' ')"
			failed=1
		fi
	fi
	[ -z "$why" ] || S[loaded]="no: $why"
fi
say "nvmediate loaded: ${S[loaded]}"

# --- 4. through nvmediate ---
# "${NSRUN[@]}" CMD...: CMD in a private user, pid and mount namespace, with
# its own /proc, as in a container: CMD has no CAP_SYS_ADMIN of the host's
# (nvmediatefs tells a caller with it the true numbers) and libcuda names its
# threads through /proc/self/task; nvmediatefs's nodes from the host's
# /run/nvmediate/default (mounted here when root and not mounted yet, as
# nvproxyctl cdi does) are bind-mounted over the driver's.
NODEFS=/run/nvmediate/default
NSRUN=(unshare -r -m -p -f --mount-proc)
# shellcheck disable=SC2016  # expanded by the inner bash
NSRUN+=(-- bash -c '
	set -e
	mount --make-rprivate /
	d=$1
	shift
	mount --bind "$d/nvidiactl" /dev/nvidiactl
	[ ! -e /dev/nvidia-uvm ] || mount --bind "$d/nvidia-uvm" /dev/nvidia-uvm
	for n in /dev/nvidia[0-9]*; do
		[ -c "$n" ] || continue
		mount --bind "$d/${n#/dev/}" "$n"
	done
	exec "$@"' in_ns "$NODEFS")
stats_read() {	# stats_read FILE: every counter as NAME VALUE
	local f
	for f in "$STATS"/*; do
		[ -f "$f" ] && echo "$(basename "$f") $(cat "$f")"
	done > "$1"
}
stat_delta() {	# stat_delta NAME...: the sum of the counters' growth
	local n sum=0 a b
	for n in "$@"; do
		a=$(sed -n "s/^$n //p" "$OUT/stats.before")
		b=$(sed -n "s/^$n //p" "$OUT/stats.after")
		sum=$((sum + ${b:-0} - ${a:-0}))
	done
	echo "$sum"
}

med_why=
if ! module_loaded; then
	med_why="nvmediate is not loaded"
elif ((!direct_ok && !NOGPU)); then
	med_why="cudaprobe does not pass directly"
elif ((!direct_ok)) && [ "${direct_rc:-2}" = 2 ]; then
	med_why="cudaprobe did not run directly"
elif ! grep -q " $NODEFS nvmediatefs " /proc/mounts && ! ((ROOTUSER)); then
	med_why="nvmediatefs is not mounted at $NODEFS: run sudo nvproxyctl cdi once, or this script as root"
elif ! grep -q " $NODEFS nvmediatefs " /proc/mounts; then
	if mkdir -p "$NODEFS" && mount -t nvmediatefs -o set=default nvmediate "$NODEFS" 2>>"$LOG"; then
		mounted_here=1
	else
		med_why="cannot mount nvmediatefs at $NODEFS (see $(rel "$LOG")): is this nvmediate older than nvmediatefs?"
	fi
elif [ ! -c /dev/nvproxy ] || [ ! -c /dev/nvproxy-uvm ]; then
	med_why="no /dev/nvproxy or /dev/nvproxy-uvm (ls -l /dev/nvproxy*)"
elif out_of_time; then
	med_why="out of time"
fi
for g in "${GPUS[@]}"; do
	[ -n "$med_why" ] || [ -c "/dev/nvproxy$g" ] ||
		med_why="no /dev/nvproxy$g for /dev/nvidia$g (nvmediate's num_gpus is too small: reload it with num_gpus=$ngpus)"
done
if [ -z "$med_why" ] && ! "${NSRUN[@]}" true > "$OUT/ns.txt" 2>&1; then
	med_why="cannot make the mount namespace with the mediated nodes (${NSRUN[*]:0:2}: $(tr '\n' ' ' < "$OUT/ns.txt"))"
	((ROOTUSER)) || med_why="$med_why; run as root"
fi
if [ -n "$med_why" ]; then
	S[mediated]="not run: $med_why"
	S[smi_mediated]=${S[smi_mediated]/#not run/not run: $med_why}
	if [[ ${S[smi_direct]} == "not present"* ]]; then S[smi_mediated]="not present"; fi
else
	for f in driver_version tier range; do
		say "nvmediate $f: $(cat "/sys/class/nvmediate/$f" 2>/dev/null || echo '?')"
	done
	dmesg > "$OUT/dmesg.before" 2>/dev/null
	stats_read "$OUT/stats.before"
	rm -f "$MTRACE"
	probe "through nvmediate (mount namespace), recorded" "$OUT/mediated.txt" \
		"${NSRUN[@]}" env NVTRACE_OUT="$MTRACE" LD_PRELOAD="$OUT/nvtrace.so"
	mrc=$rc
	if command -v nvidia-smi > /dev/null; then
		smi "through nvmediate" "$OUT/smi-mediated.txt" "${NSRUN[@]}" \
			env NVTRACE_OUT="${SMITRACE%.trace}-mediated.trace" LD_PRELOAD="$OUT/nvtrace.so"
		S[smi_mediated]=$smi_res
		if ((NOGPU)); then
			if cmp -s "$OUT/smi-direct.txt" "$OUT/smi-mediated.txt"; then
				S[smi_mediated]="the same as directly"
			else
				S[smi_mediated]="FAILED: not as directly ($smi_res)"
				failed=1
			fi
		else
			[[ $smi_res == ok* ]] || failed=1
		fi
	fi
	stats_read "$OUT/stats.after"
	dmesg > "$OUT/dmesg.after" 2>/dev/null
	fwd=$(stat_delta escape_forwarded ctrl_forwarded alloc_forwarded uvm_forwarded)
	opens=$(stat_delta open_forwarded)
	own=$(stat_delta escape_refused ctrl_refused alloc_refused uvm_refused escape_answered \
		ctrl_answered alloc_answered uvm_answered escape_audited ctrl_audited \
		alloc_audited uvm_audited open_refused)
	S[counters]="$fwd ioctls and $opens opens forwarded, $own refused or answered by nvmediate"
	if ((mrc == 0)); then
		S[mediated]="ok"
	elif ((NOGPU)) && ((mrc == direct_rc)) && cmp -s "$OUT/direct.txt" "$OUT/mediated.txt"; then
		S[mediated]="the same as directly"
	else
		S[mediated]="FAILED: $(grep -m1 'failed\|FAILED' "$OUT/mediated.txt" || echo "exit status $mrc")"
		failed=1
	fi
	if ((fwd == 0 || opens == 0)); then
		S[mediated]="${S[mediated]}; but nvmediate's counters did not move: the calls did not go through it"
		failed=1
	fi
	# New refusal lines in the kernel log (ratelimited: the counters are exact).
	grep -h 'nvmediate: \(refused\|audit\) ' "$OUT/dmesg.before" > "$OUT/refused.before" 2>/dev/null
	grep -h 'nvmediate: \(refused\|audit\) ' "$OUT/dmesg.after" > "$OUT/refused.after" 2>/dev/null
	tail -n +"$(($(wc -l < "$OUT/refused.before") + 1))" "$OUT/refused.after" > "$OUT/refusals.txt"
	if ((own > 0)) || [ -s "$OUT/refusals.txt" ]; then
		S[refusals]="$own counted; logged lines in $(rel "$OUT")/refusals.txt:"
		failed=1
	else
		S[refusals]="none (counters and kernel log)"
	fi
	if [ -s "$MTRACE" ]; then
		S[calls]="${S[calls]}, $(count_calls "$MTRACE") (mediated)"
		if [ -s "$TRACE" ]; then
			grep -v '^#' "$TRACE" | sort > "$OUT/direct.sorted"
			grep -v '^#' "$MTRACE" | sort > "$OUT/mediated.sorted"
			if cmp -s "$OUT/direct.sorted" "$OUT/mediated.sorted"; then
				S[calls]="${S[calls]}, the same calls and answers"
			else
				S[calls]="${S[calls]}, $(diff "$OUT/direct.sorted" "$OUT/mediated.sorted" |
					grep -c '^[<>]') lines differ (diff $(rel "$TRACE") $(rel "$MTRACE"))"
				((!NOGPU)) || failed=1
			fi
		fi
	fi
fi

# --- 5. summary ---
fixture="$ROOT/tests/gpu/fixtures/$DRIVER-cudaprobe.trace"
((!NOGPU)) || fixture="$ROOT/tests/gpu/fixtures/$DRIVER-nogpu-cudaprobe.trace"
echo
echo "== nvmediate GPU check: summary =="
printf '%-22s %s\n' "driver" "${S[driver]}" \
	"kernel" "${S[kernel]}" \
	"nvmediate loaded" "${S[loaded]}" \
	"cudaprobe direct" "${S[direct]}" \
	"cudaprobe mediated" "${S[mediated]}" \
	"nvidia-smi direct" "${S[smi_direct]}" \
	"nvidia-smi mediated" "${S[smi_mediated]}" \
	"calls recorded" "${S[calls]}" \
	"nvmediate counters" "${S[counters]}" \
	"refusals" "${S[refusals]}"
[ -s "$OUT/refusals.txt" ] && sed 's/^/    /' "$OUT/refusals.txt" | head -n 20
printf '%-22s %s\n' "trace" "${S[trace]}"
if ((direct_ok || NOGPU)) && [ "$DRIVER" != none ] && [ "$(count_calls "$TRACE")" != 0 ]; then
	printf '%-22s %s\n' "fixture" "to commit it: mkdir -p tests/gpu/fixtures && cp $(rel "$TRACE") $(rel "$fixture")"
fi
if ((failed)); then
	result="FAILED (see the lines above; everything is in $(rel "$OUT")/)"
	status=1
elif ((absent)); then
	result="NOT CHECKED: no NVIDIA driver, libcuda.so.1 or gcc on this machine (above)"
	status=2
else
	result="ok (everything that could run passed)"
	status=0
fi
printf '%-22s %s\n' "result" "$result"
exit "$status"
