#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvm-guest: limit-factor 3
# NVIDIA's own driver (tests/nvidia/build.sh: the open kernel modules of each
# release found, loaded without a GPU through the test-only nv_zero_gpus=1):
# every call that needs no GPU (nvreal, every NV0000 control the default
# profile admits included) gives the same return, status and payload bytes
# directly, through nvmediate and from the stand-in acting as the same
# release with no GPU; the fd-carrying calls that need no GPU (nvfds
# --no-gpu) are answered alike directly and through nvmediate, and while
# they run through nvmediate no driver file is reachable; the GPU host check's shim records on the driver's nodes and its
# record replays through nvmediate; nvmediate detects the real module's version,
# refuses it when forced outside every range, and follows a reload of the
# driver under it; a control's command flipped to a kernel-only one in
# flight never reaches it; a fuzz run through the mediated nodes and one with
# the same seeds on the driver's own nodes leave no kernel report.  No release
# built: nothing to run, said once (make check reports the build itself).
. "$(dirname "$0")/lib.sh"
nvm_begin

T=$NVM_TMP
SYS=/sys/class/nvmediate
REAL=/lib/nvidia-real

releases=$(ls "$REAL" 2>/dev/null)
if [ -z "$releases" ]; then
	echo "95-real: no real NVIDIA modules in this guest"
	nvm_end
fi

# The driver's device nodes: it registers its character devices but creates
# no nodes itself (nvidia-modprobe does that on a host).
real_nodes() {
	rm -f /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm
	mknod -m 666 /dev/nvidiactl c 195 255 &&
	mknod -m 666 /dev/nvidia0 c 195 0 &&
	mknod -m 666 /dev/nvidia-uvm c "$(sed -n 's/^ *\([0-9]*\) nvidia-uvm$/\1/p' /proc/devices)" 0
}

real_load() {	# real_load RELEASE: the real modules, nodes made
	modprobe drm 2>/dev/null	# nvidia.ko links against it where the kernel has it
	insmod "$REAL/$1/nvidia.ko" nv_zero_gpus=1 > "$T/insmod.txt" 2>&1 &&
	insmod "$REAL/$1/nvidia-uvm.ko" >> "$T/insmod.txt" 2>&1 &&
	real_nodes
}

# diff_line A B: the first few differing lines, on one line.
diff_line() {
	diff "$1" "$2" | grep '^[-+][^-+]' | head -n 8 | tr -s ' ' | tr '\n' ';'
}

# Fuzz calls per run (nvfuzz), the same on both kernels.  The fd-carrying
# calls raced by scanners: fewer on the debug kernel (KASAN and lockdep under
# TCG: some 40 ms a call, most of the test's time there).
FUZZ_CALLS=${NVM_REAL_FUZZ_CALLS:-20000}
FLIP_CALLS=${NVM_FLIP_CALLS:-3000}
if [ "$NVM_KERNEL" = debug ]; then
	FDS_CALLS=${NVM_REAL_FDS_CALLS:-2000}
else
	FDS_CALLS=${NVM_REAL_FDS_CALLS:-10000}
fi
SETS=/sys/kernel/nvmediate/sets
DETECTED=0
FUZZ_SEED=${NVM_FUZZ_SEED:-$(( $(date +%s) % 1000000 * 2 + 1 ))}
STATS=/sys/class/nvmediate/stats
KMEMLEAK=/sys/kernel/debug/kmemleak

forwarded() {	# the calls nvmediate has forwarded, all families
	cat $STATS/*_forwarded | awk '{ n += $1 } END { print n + 0 }'
}

# fuzz RELEASE NAME NVFUZZ-ARGS...: two processes, seeds FUZZ_SEED and +1;
# PASS iff both ran every call and the kernel said nothing.
fuzz() {
	r=$1 name=$2
	shift 2
	dmesg -c > /dev/null
	[ ! -w $KMEMLEAK ] || echo clear > $KMEMLEAK
	# The driver logs most refusals of its own (tens of thousands of
	# lines): kept off the console while the fuzz runs, and out of the
	# kernel log after it, all but the lines that are not the driver's.
	pk=$(cut -f1 /proc/sys/kernel/printk)
	echo 1 > /proc/sys/kernel/printk
	f0=$(forwarded)
	t0=$(date +%s)
	half=$((FUZZ_CALLS / 2))
	nvfuzz --calls $half --seed "$FUZZ_SEED" --slow 1000 "$@" > "$T/f1.txt" 2>&1 &
	p1=$!
	nvfuzz --calls $((FUZZ_CALLS - half)) --seed $((FUZZ_SEED + 1)) --slow 1000 "$@" > "$T/f2.txt" 2>&1
	rc2=$?
	wait $p1
	rc1=$?
	fwd=$(( $(forwarded) - f0 ))
	dmesg -c > "$T/dmesg.txt"
	echo "$pk" > /proc/sys/kernel/printk
	# Whatever is not the driver's goes back into the log for the harness.
	grep -v '\] NVRM: ' "$T/dmesg.txt" | sed 's/^\[ *[0-9.]*\] //' | while IFS= read -r l; do
		echo "$l" > /dev/kmsg
	done
	reports=$(grep -E 'BUG:|WARNING:|KASAN|UBSAN|Call Trace|general protection|lockdep|circular locking' \
		"$T/dmesg.txt" | head -n 3 | tr '\n' ';')
	echo "  $r fuzz $name: seeds $FUZZ_SEED $((FUZZ_SEED + 1)), $(( $(date +%s) - t0 )) s," \
		"nvmediate forwarded $fwd, driver log lines $(grep -c '\] NVRM: ' "$T/dmesg.txt")," \
		"kernel reports: ${reports:-none}"
	sed 's/^/    /' "$T/f1.txt" "$T/f2.txt"
	# Memory the driver lost during the run (kmemleak, debug kernel):
	# none may be lost through nvmediate; what NVIDIA's driver loses on
	# its own nodes is said and cleared, so that the harness's scan at the
	# end judges nvmediate, not the driver's raw node.
	leaks=
	if [ -w $KMEMLEAK ]; then
		echo scan > $KMEMLEAK
		echo scan > $KMEMLEAK
		leaks=$(grep -c '^unreferenced object' $KMEMLEAK)
		echo "  $r fuzz $name: $leaks objects leaked$( [ "$leaks" = 0 ] || echo ", the first:")"
		awk '/^unreferenced object/ { n++ } n == 1' $KMEMLEAK | sed -n '1p; /\[</p' |
			grep -v 'slab_post_alloc_hook\|__kmem_cache_alloc\|__kmalloc' | head -n 10 |
			sed 's/^unreferenced object \(0x[0-9a-f]*\) (size \([0-9]*\)):/a \2-byte object at \1, from:/
			     s/^ *\[<[^>]*>\] */      /; s/^/    /'
		[ "$name" = raw ] && echo clear > $KMEMLEAK
	fi
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail "real-$r-fuzz-$name" "nvfuzz: $(tail -n 2 "$T/f1.txt" "$T/f2.txt" | tr '\n' ' ')"
	else
		check "real-$r-fuzz-$name" "kernel log during the fuzz: $reports" [ -z "$reports" ]
	fi
	if [ "$name" = mediated ] && [ -n "$leaks" ]; then
		check "real-$r-fuzz-$name-no-leak" "$leaks objects leaked in the driver through nvmediate" \
			[ "$leaks" = 0 ]
	fi
}

# mig_real_container RELEASE SESSION MINOR: the same session in a podman
# (runc) container given GPU 0 by the spec of nvproxyctl cdi --mig-monitor
# --mig-config: the capability node passed through by the spec, listed in
# the set by cdi; what it prints as on the driver's nodes (stock kernel).
mig_real_container() {
	[ "$NVM_KERNEL" != debug ] && command -v podman > /dev/null || return 0
	if [ ! -d "$T/rootfs" ]; then
		podman_host_setup
		ctr_rootfs "$T/rootfs" nvmig
	fi
	if ! nvproxyctl cdi --gpus 1 --no-driver-files --mig-monitor --mig-config \
		--output /etc/cdi/nvmediate.json > "$T/cdim.txt" 2>&1; then
		fail "real-$1-mig-$2-container" "cdi: $(tr '\n' ' ' < "$T/cdim.txt")"
		return
	fi
	podman --runtime runc run --rm --device nvmediate.io/gpu=0 --rootfs "$T/rootfs" \
		/bin/nvmig --mode "$2" --cap /dev/nvidia-caps/nvidia-cap"$3" > "$T/capc.out" 2>&1
	grep -v -e '^pid=' -e '^client=' -e notcap "$T/capc.out" > "$T/capc.cmp"
	check "real-$1-mig-$2-container" "in the container: $(diff_line "$T/capd.cmp" "$T/capc.cmp") $(tail -n 1 "$T/capc.out")" \
		cmp -s "$T/capd.cmp" "$T/capc.cmp"
	rm -f /etc/cdi/nvmediate.json
	# cdi mounted the set's nvmediatefs, which would hold nvmediate loaded
	awk '$3 == "nvmediatefs" { print $2 }' /proc/mounts | while read -r mnt; do
		umount "$mnt" 2>/dev/null || umount -l "$mnt"
	done
	echo none > $SETS/default/nvidia_caps
	echo compute+utility > $SETS/default/caps
	echo clear > $SETS/default/allow
}

# mig_real RELEASE: the MIG monitor and config sessions and an IMEX
# channel subscription on NVIDIA's own module, none of which needs a GPU
# (nvmig): with mig/monitor (mig/config) given to the default set
# (nvidia_caps), the session answers as on the driver's nodes, the
# driver's copy of the capability file included; not given, or the
# control node presented as the capability, refused before the driver
# (EPERM).  From 550, a channel
# given (imex_channels) subscribes as on the driver's nodes, another does
# not.  The nodes are made as nvidia-modprobe makes them.
mig_real() {
	r=$1
	cmaj=$(awk '$2 == "nvidia-caps" { print $1 }' /proc/devices)
	if [ -z "$cmaj" ]; then
		fail "real-$r-mig-caps" "no nvidia-caps major in /proc/devices"
		return
	fi
	mkdir -p /dev/nvidia-caps
	for s in monitor config; do
		m=$(sed -n 's/^DeviceFileMinor: *//p' /proc/driver/nvidia/capabilities/mig/$s 2>/dev/null)
		if [ -z "$m" ]; then
			fail "real-$r-mig-$s" "no mig/$s capability"
			continue
		fi
		rm -f /dev/nvidia-caps/nvidia-cap$m
		mknod -m 400 /dev/nvidia-caps/nvidia-cap$m c "$cmaj" "$m"
		CAPARGS="--mode $s --cap /dev/nvidia-caps/nvidia-cap$m"
		nvmig $CAPARGS > "$T/capd.out" 2>&1
		# mig admits the monitor session; the config session is in no
		# capability: an allow entry admits it.
		echo "$cmaj:$m" > $SETS/default/nvidia_caps
		echo compute+utility+mig > $SETS/default/caps
		echo "alloc 0xc639" > $SETS/default/allow
		nvmig --ctl /dev/nvproxy $CAPARGS > "$T/capm.out" 2>&1
		grep -v -e '^pid=' -e '^client=' -e notcap "$T/capd.out" > "$T/capd.cmp"
		grep -v -e '^pid=' -e '^client=' -e notcap "$T/capm.out" > "$T/capm.cmp"
		echo "  $r mig/$s session (direct): $(grep -e _status= -e dup_fd= -e caps_ "$T/capd.out" | tr '\n' ' ')"
		check "real-$r-mig-$s" "through nvmediate: $(diff_line "$T/capd.cmp" "$T/capm.cmp")" \
			sh -c "grep -qx 'alloc_session_status=0x0' '$T/capd.out' &&
				grep -q '^alloc_session_dup_fd=[0-9]' '$T/capd.out' && cmp -s '$T/capd.cmp' '$T/capm.cmp'"
		check "real-$r-mig-$s-notcap" "the control node as the capability: direct $(sed -n 's/^alloc_session_notcap_status=//p' "$T/capd.out"), mediated $(sed -n 's/^alloc_session_notcap_ret=//p' "$T/capm.out")" \
			sh -c "grep -qx 'alloc_session_notcap_status=0x1b' '$T/capd.out' &&
				grep -qx 'alloc_session_notcap_ret=-EPERM' '$T/capm.out'"
		echo none > $SETS/default/nvidia_caps
		nvmig --ctl /dev/nvproxy $CAPARGS > "$T/capn.out" 2>&1
		check "real-$r-mig-$s-not-given" "mig/$s not given: $(grep '^alloc_session_' "$T/capn.out" | tr '\n' ' ')" \
			grep -qx 'alloc_session_ret=-EPERM' "$T/capn.out"
		echo compute+utility > $SETS/default/caps
		echo clear > $SETS/default/allow
		mig_real_container "$r" "$s" "$m"
	done

	[ "${r%%.*}" -ge 550 ] || return
	xmaj=$(awk '$2 == "nvidia-caps-imex-channels" { print $1 }' /proc/devices)
	if [ -z "$xmaj" ]; then
		fail "real-$r-imex" "no nvidia-caps-imex-channels major"
		return
	fi
	mkdir -p /dev/nvidia-caps-imex-channels
	for c in 1 2; do
		rm -f /dev/nvidia-caps-imex-channels/channel$c
		mknod -m 666 /dev/nvidia-caps-imex-channels/channel$c c "$xmaj" $c
	done
	IMEX="--mode imex --imex /dev/nvidia-caps-imex-channels/channel1 --imex2 /dev/nvidia-caps-imex-channels/channel2"
	nvmig $IMEX > "$T/xd.out" 2>&1
	echo "$xmaj:1" > $SETS/default/imex_channels
	echo compute+utility+fabric-imex > $SETS/default/caps
	nvmig --ctl /dev/nvproxy $IMEX > "$T/xm.out" 2>&1
	echo "  $r IMEX (direct): $(grep -e _status= -e _channel= "$T/xd.out" | tr '\n' ' ')"
	check "real-$r-imex-given" "channel 1: direct $(grep -e '^imex_subscribe_' "$T/xd.out" | tr '\n' ' '), mediated $(grep -e '^imex_subscribe_' "$T/xm.out" | tr '\n' ' ')" \
		sh -c "grep -qx 'imex_subscribe_channel=1' '$T/xd.out' &&
			[ \"\$(grep '^imex_subscribe_' '$T/xd.out')\" = \"\$(grep '^imex_subscribe_' '$T/xm.out')\" ]"
	check "real-$r-imex-other" "channel 2 on a second client: direct $(grep -e '^imex_client2_' "$T/xd.out" | tr '\n' ' '), mediated $(grep -e '^imex_client2_' "$T/xm.out" | tr '\n' ' ')" \
		sh -c "grep -qx 'imex_client2_status=0x0' '$T/xd.out' &&
			grep -qx 'imex_client2_ret=-EPERM' '$T/xm.out'"
	echo none > $SETS/default/imex_channels
	echo compute+utility > $SETS/default/caps
	rm -f /dev/nvidia-caps-imex-channels/channel1 /dev/nvidia-caps-imex-channels/channel2
}

for rel in $releases; do
	# The stand-in at the same release with no GPU, for comparison (its
	# nodes come from devtmpfs; those made for the real driver go first).
	unload_all
	rm -f /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm
	if modprobe nvidia version="$rel" num_gpus=0 && modprobe nvidia-uvm &&
		wait_node /dev/nvidiactl && wait_node /dev/nvidia-uvm; then
		[ -e /dev/nvidia0 ] || mknod -m 666 /dev/nvidia0 c 195 0
		nvreal --version "$rel" --sweep "$REAL/$rel/nv0000.txt" > "$T/standin.txt" 2>&1 < /dev/null
	else
		echo "cannot load the stand-in at $rel" > "$T/standin.txt"
	fi
	unload_all
	if ! real_load "$rel"; then
		fail "real-$rel-load" "$(tr '\n' ' ' < "$T/insmod.txt") $(dmesg | grep NVRM | tail -n 3 | tr '\n' ' ')"
		continue
	fi
	pass "real-$rel-load"
	# Where the modules are, for the addresses of a kernel report.
	grep -E '^(nvidia|nvidia_uvm|nvmediate) ' /proc/modules | cut -d' ' -f1,6 | tr '\n' ' ' |
		sed 's/^/  modules: /; s/$/\n/'
	drv=$(sed -n 's/.*Kernel Module for x86_64 *\([0-9.]*\) .*/\1/p' /proc/driver/nvidia/version)
	check "real-$rel-proc-version" "/proc/driver/nvidia/version says '$drv'" [ "$drv" = "$rel" ]

	# Standard input /dev/null: the sweep's zeroed fd fields name it.
	nvreal --version "$rel" --sweep "$REAL/$rel/nv0000.txt" > "$T/direct.txt" 2>&1 < /dev/null
	check "real-$rel-direct" "nvreal failed on the driver's nodes: $(tail -n 2 "$T/direct.txt" | tr '\n' ' ')" \
		grep -q '^alloc-client .* status=0x0 client=c1 ' "$T/direct.txt"

	if ! load_nvmediate > "$T/load.txt" 2>&1; then
		fail "real-$rel-nvmediate" "$(tr '\n' ' ' < "$T/load.txt")"
		continue
	fi
	wait_node /dev/nvproxy-uvm
	nvreal --version "$rel" --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm \
		--sweep "$REAL/$rel/nv0000.txt" > "$T/med.txt" 2>&1 < /dev/null
	check "real-$rel-same-answers" "user space saw different answers: $(diff_line "$T/direct.txt" "$T/med.txt")" \
		cmp -s "$T/direct.txt" "$T/med.txt"
	# A deprecated control the driver converts before its method tables:
	# its strings come back through the V1 params' pointers, mediated too
	# (the line is part of the comparison above).
	dep=$(grep '^ctrl-dep-version ' "$T/med.txt")
	echo "  $rel: SYSTEM_GET_BUILD_VERSION through nvmediate: $dep"
	check "real-$rel-deprecated-control" "mediated: '$dep', want ret=0 status=0x0 driver=$rel" \
		sh -c "echo '$dep' | grep -q ' ret=0 status=0x0 driver=$rel '"
	state="$(cat $SYS/driver_version) $(cat $SYS/tier) $(cat $SYS/version_source)"
	check "real-$rel-detected" "nvmediate detected '$state', wanted '$rel exact module'" \
		[ "$state" = "$rel exact module" ]
	echo "  $rel: $(grep -c . "$T/direct.txt") calls compared; detected: $state"
	# Every NV0000 control the default profile admits, each made once
	# with zeroed params of the size in the release's ABI file: all made,
	# answered alike through nvmediate (above) and by the stand-in
	# (below).  A control answered other than NV_ERR_INVALID_ARGUMENT got
	# past the driver's own check of that size; those answered it may
	# have stopped there (with no GPU their IDs name nothing).
	[ -z "$NVM_REAL_SHOW" ] || sed "s/^/    $rel direct: /" "$T/direct.txt" "$T/standin.txt"
	want=$(grep -c . "$REAL/$rel/nv0000.txt")
	swept=$(grep -c '^sweep-' "$T/direct.txt")
	check "real-$rel-sweep" "$swept of the $want controls made: $(grep -v '^sweep-' "$T/direct.txt" | tail -n 2 | tr '\n' ' ')" \
		[ "$swept" = "$want" ]
	echo "  $rel: $swept NV0000 controls swept, answered (ret/status): $(grep '^sweep-' "$T/direct.txt" |
		sed -n 's/.* ret=\([^ ]*\) status=\([^ ]*\) .*/\1\/\2/p' | sort | uniq -c |
		awk '{ print $2 " x" $1 }' | tr '\n' ' '); size passed by the driver: $(grep '^sweep-' "$T/direct.txt" | grep -vc ' status=0x1f ')"
	# The stand-in cannot know what NVIDIA's build wrote into the build
	# version (title, changelist; the V2 control and the deprecated V1 one
	# that becomes it) nor the RM's CPUID description of the
	# CPU: those payloads count by return and status only.
	for f in direct standin; do
		sed -E '/^(ctrl-build-version|ctrl-dep-version-size|ctrl-dep-version|ctrl-cpu-info|sweep-SYSTEM_GET_BUILD_VERSION_V2|sweep-SYSTEM_GET_CPU_INFO) /s/ sum=[0-9a-f]+$//' \
			"$T/$f.txt" > "$T/$f.cmp"
	done
	check "real-$rel-standin-alike" "the stand-in answers otherwise: $(diff_line "$T/direct.cmp" "$T/standin.cmp")" \
		cmp -s "$T/direct.cmp" "$T/standin.cmp"

	# The GPU host check's tools (tests/gpu/) on the real driver: the shim
	# records nvcalls on the driver's own nodes (8 calls: with no GPU the GPU
	# node does not open, so its REGISTER_FD is not made), the header names the
	# release, and the record made again through nvmediate has no call
	# refused.
	if [ -x /bin/nvcalls ] && [ -f /usr/lib/nvtrace.so ]; then
		rm -f "$T/real.trace"	# the shim appends
		NVTRACE_OUT=$T/real.trace LD_PRELOAD=/usr/lib/nvtrace.so nvcalls > "$T/nvcalls.txt" 2>&1
		n=$(grep -vc '^#' "$T/real.trace" 2>/dev/null)
		nvreplay "$T/real.trace" > "$T/replay.txt" 2>&1
		rc=$?
		check "real-$rel-gpu-tools" "$(head -n 1 "$T/real.trace" 2>&1) $n calls; replay exit $rc: $(grep -E 'REFUSED|NOT SEEN|calls=|nvreplay: [a-z]' "$T/replay.txt" | head -n 4 | tr '\n' ';')" \
			sh -c "grep -q '^# nvtrace 1 driver=$rel ' '$T/real.trace' && [ '$n' = 8 ] && [ $rc -eq 0 ] &&
				grep -q '^nvreplay: calls=$n forwarded=$n refused=0 unseen=0 skipped=0\$' '$T/replay.txt'"
	else
		echo "  $rel: no nvcalls or nvtrace.so in this guest (built only where build/podman has the guest's C library)"
	fi

	# The driver reloaded under a loaded nvmediate: the same answers.
	rmmod nvidia_uvm && rmmod nvidia && real_load "$rel" &&
		nvreal --version "$rel" --ctl /dev/nvproxy --gpu /dev/nvproxy0 --uvm /dev/nvproxy-uvm \
		--sweep "$REAL/$rel/nv0000.txt" > "$T/med2.txt" 2>&1 < /dev/null
	check "real-$rel-driver-reload" "after reloading the driver: $(diff_line "$T/direct.txt" "$T/med2.txt")" \
		cmp -s "$T/direct.txt" "$T/med2.txt"

	# Payload flips: the command of an allowed control rewritten to a
	# kernel-only one while the call is on its way.  NVIDIA's driver keeps
	# no record of what it received; one that got the refused command
	# answers it with another status (nvflip's "other").
	# The detector itself: on the driver's own node flips do land (fewer
	# from 595, which copies the payload in as soon as the call arrives);
	# checked over all releases after the loop.
	out=$(nvflip --field ctrl-cmd --ctl /dev/nvidiactl --calls "$FLIP_CALLS" 2>&1)
	echo "  $rel flip on /dev/nvidiactl: $out"
	DETECTED=$((DETECTED + $(echo "$out" | sed -n 's/.* other=\([0-9]*\).*/\1/p')))
	for field in ctrl-cmd xfer-inner-cmd; do
		out=$(nvflip --field $field --ctl /dev/nvproxy --calls "$FLIP_CALLS" 2>&1)
		echo "  $rel flip $out"
		other=$(echo "$out" | sed -n 's/.* other=\([0-9]*\).*/\1/p')
		refused=$(echo "$out" | sed -n 's/.* refused=\([0-9]*\).*/\1/p')
		if [ -z "$other" ] || [ "$other" != 0 ]; then
			fail "real-$rel-flip-$field" "the driver answered a refused command: $out"
		elif [ "${refused:-0}" = 0 ] && [ "$NVM_KERNEL" != debug ]; then
			fail "real-$rel-flip-$field" "inconclusive: no flip landed ($out)"
		else
			pass "real-$rel-flip-$field"
		fi
	done

	# Fuzz: the same seeds and count through nvmediate, then on the driver's
	# own nodes.  What reached the driver: nvmediate's forwarded counters
	# (all of the raw run's calls reach it); kernel reports of each run.
	fuzz "$rel" mediated --ctl /dev/nvproxy --gpu - --uvm /dev/nvproxy-uvm
	fuzz "$rel" raw --ctl /dev/nvidiactl --gpu - --uvm /dev/nvidia-uvm

	# No file of the driver reachable while the fd-carrying calls that need
	# no GPU run through nvmediate (nvfds --no-gpu: scanner threads and a
	# pidfd_getfd() process); the driver answers every path alike on its
	# own nodes and through nvmediate, so each fd field reached it as the
	# file it names (REGISTER_FD and UVM_MM_INITIALIZE succeed only then).
	echo "uvm 0x4e" > $SETS/default/allow	# UVM_ALLOC_DEVICE_P2P: in no capability
	pk=$(cut -f1 /proc/sys/kernel/printk)
	echo 1 > /proc/sys/kernel/printk
	nvfds --no-gpu --ctl /dev/nvidiactl --uvm /dev/nvidia-uvm --calls 1600 --scanners 0 \
		--no-getfd --answers > "$T/fds-direct.txt" 2>&1
	nvfds --no-gpu --ctl /dev/nvproxy --uvm /dev/nvproxy-uvm --calls 1600 --scanners 0 \
		--no-getfd --answers > "$T/fds-med.txt" 2>&1
	grep '^answer ' "$T/fds-direct.txt" > "$T/fds-direct.cmp"
	grep '^answer ' "$T/fds-med.txt" > "$T/fds-med.cmp"
	echo "  $rel fd paths answered (path ret status count): $(cut -d' ' -f2- "$T/fds-direct.cmp" |
		sed 's/ret=//; s/status=//' | tr '\n' ';')"
	check "real-$rel-fds-same-answers" "$(diff_line "$T/fds-direct.cmp" "$T/fds-med.cmp") $(grep -v '^answer ' "$T/fds-direct.txt" "$T/fds-med.txt" | grep -v calls= | head -n 3 | tr '\n' ' ')" \
		sh -c "[ -s '$T/fds-direct.cmp' ] && cmp -s '$T/fds-direct.cmp' '$T/fds-med.cmp'"
	t0=$(date +%s)
	nvfds --no-gpu --ctl /dev/nvproxy --uvm /dev/nvproxy-uvm --calls "$FDS_CALLS" --scanners 2 \
		--seconds 120 > "$T/fds.txt" 2>&1
	rc=$?
	echo "$pk" > /proc/sys/kernel/printk
	dmesg -c | grep -v '\] NVRM: ' | sed 's/^\[ *[0-9.]*\] //' | while IFS= read -r l; do
		echo "$l" > /dev/kmsg
	done
	echo "  $rel nvfds --no-gpu ($(( $(date +%s) - t0 )) s): $(grep '^calls=' "$T/fds.txt")"
	check "real-$rel-fds-no-driver-file" "nvfds status $rc: $(grep -v '^calls=' "$T/fds.txt" | head -n 5 | tr '\n' ';')" \
		[ $rc -eq 0 ]

	mig_real "$rel"

	# Forced outside every range: refused at open, nothing reaches the driver.
	rmmod nvmediate
	if load_nvmediate force_version=9999.1 > "$T/load.txt" 2>&1; then
		out=$(openclose --path /dev/nvproxy --count 1 --expect EPROTONOSUPPORT 2>&1)
		check "real-$rel-outside-refused" "open with force_version=9999.1: $out" [ $? -eq 0 ]
	else
		fail "real-$rel-outside-refused" "$(tr '\n' ' ' < "$T/load.txt")"
	fi
	unload_all
done
check real-flip-detects "no flip to a kernel-only command reached the driver through its own node" \
	[ "$DETECTED" -gt 0 ]
rm -f /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm
nvm_end
