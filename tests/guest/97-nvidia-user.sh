#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvm-guest: limit-factor 4
# NVIDIA's own user space, unchanged, through nvmediate: Debian's libcuda1,
# libnvidia-ml1 and nvidia-smi with Debian's kernel modules of the same
# release, open and proprietary (tests/nvidia/debian.sh: built from
# nvidia-open-kernel-dkms and nvidia-kernel-dkms, loaded with no GPU through
# the test-only nv_zero_gpus=1), the driver's parameters left at their
# defaults (ModifyDeviceFiles: 1).
#
# For each release and flavour, cudaprobe (tests/gpu/cudaprobe.c: dlopen
# libcuda.so.1, cuInit, ...) and nvidia-smi run, as root and as uid 1000:
#   direct    on the driver's own nodes;
#   mediated  in a pid and mount namespace whose /dev/nvidiactl, /dev/nvidia0
#             and /dev/nvidia-uvm are nvmediatefs's nodes (as nvproxyctl cdi
#             binds them), which show the driver's numbers there;
#   podman    a container given the GPU by CDI (nvproxyctl cdi --from a spec
#             of nvidia-ctk's form, its library mounts kept), runc rootful,
#             crun with --uidmap, crun rootless; and one given it by the spec
#             nvproxyctl cdi writes by itself, with the driver's files it
#             finds on the host and its linker-cache hook.
# Each mediated run must print what the direct run printed, make the same
# calls with the same answers (recorded by nvtrace.so), move nvmediate's
# forwarded counters by the calls it made and its refused and answered
# counters by none; afterwards the namespace's and the container's
# /dev/nvidiactl are still nvmediate's, and no raw node of the driver was
# made there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvuser.sh"
nvm_begin

T=$NVM_TMP

if [ ! -d $DEB ] || [ -z "$(ls $DEB 2>/dev/null)" ]; then
	echo "97-nvidia-user: no Debian NVIDIA packages in this guest (tests/nvidia/debian.sh)"
	nvm_end
fi
if [ ! -x /bin/cudaprobe ] || [ ! -f $SHIM ]; then
	fail nvuser-tools "/bin/cudaprobe or $SHIM is not in the initramfs (they are dynamic: build/podman has the C library)"
	nvm_end
fi
grep -q "^$USR:" /etc/passwd 2> /dev/null || {
	echo "root:x:0:0:root:/root:/bin/sh" >> /etc/passwd
	echo "$USR:x:1000:1000::/tmp:/bin/sh" >> /etc/passwd
	echo "root:x:0:" >> /etc/group
	echo "$USR:x:1000:" >> /etc/group
}

# podman_runs RELEASE FLAVOUR: cudaprobe and nvidia-smi in containers given
# GPU 0 by nvproxyctl cdi --from the spec above: what they print and the
# calls they make must be the direct run's (root's for root in the
# container, the user's for rootless), every call forwarded by nvmediate.
podman_runs() {
	r=$1 f=$2
	R=$T/rootfs
	if [ ! -d "$R" ]; then
		podman_host_setup
		mkdir -p "$R/bin" "$R/dev" "$R/proc" "$R/sys" "$R/etc" "$R/run" "$R/usr/bin"
		: > "$R/etc/hostname"
		: > "$R/etc/hosts"
		: > "$R/etc/resolv.conf"
		: > "$R/run/.containerenv"
		cp /bin/busybox "$R/bin/"
		ln -sf busybox "$R/bin/sh"
		nvu_image_files "$R"
		for l in /opt/nvidia/*/lib/*; do	# mount points, as in an image
			: > "$R/usr/lib/x86_64-linux-gnu/${l##*/}"
		done
		: > "$R/usr/bin/nvidia-smi"
		chmod -R a+rX "$T"
		cp -a "$R" "$T/rootfs-user"
		chown -R 1000:1000 "$T/rootfs-user"
	fi
	ctk_spec "$r" > "$T/ctk.yaml"
	if ! nvproxyctl cdi --from "$T/ctk.yaml" --output /etc/cdi/nvmediate.json > "$T/cdi.txt" 2>&1; then
		fail "nvuser-$r-$f-cdi" "$(tr '\n' ' ' < "$T/cdi.txt")"
		return
	fi
	chmod a+r /etc/cdi/nvmediate.json
	for c in "runc-rootful root runc" "crun-uidmap root crun --uidmap 0:100000:65536 --gidmap 0:100000:65536" \
		"crun-rootless user crun --cgroups=disabled"; do
		# shellcheck disable=SC2086  # the words of $c
		podman_case $c
	done
	# The spec nvproxyctl cdi writes by itself: the driver's libraries of
	# the loaded release found where this host's dynamic linker looks (its
	# configuration names every release's directory), nvidia-smi from the
	# release's programs, and the hook that adds the libraries' directory
	# to the container's linker cache (the host's ldconfig, run in the
	# container's root).  The image has no driver file and no ldconfig, and
	# its programs set no LD_LIBRARY_PATH: libcuda.so.1 is found in
	# /opt/nvidia/RELEASE/lib through the cache alone.  --gpus 1: the
	# driver has no GPU to name.
	[ -f /etc/ld.so.conf ] || echo "include /etc/ld.so.conf.d/*.conf" > /etc/ld.so.conf
	mkdir -p /etc/ld.so.conf.d
	ls -d /opt/nvidia/*/lib > /etc/ld.so.conf.d/nvidia.conf
	if ! nvproxyctl cdi --gpus 1 --bin-dirs "/opt/nvidia/$r/bin" --output /etc/cdi/nvmediate.json > "$T/cdi.txt" 2>&1; then
		fail "nvuser-$r-$f-cdi-own" "$(tr '\n' ' ' < "$T/cdi.txt")"
		return
	fi
	chmod a+r /etc/cdi/nvmediate.json
	check "nvuser-$r-$f-cdi-own-files" "the spec names: $(grep -o '"containerPath": "/[ou][^"]*"' /etc/cdi/nvmediate.json | tr '\n' ' ')" \
		sh -c "grep -q '\"containerPath\": \"/opt/nvidia/$r/lib/libcuda.so.$r\"' /etc/cdi/nvmediate.json &&
		       grep -q '\"containerPath\": \"/usr/bin/nvidia-smi\"' /etc/cdi/nvmediate.json &&
		       grep -q '\"update-ldcache\", \"/opt/nvidia/$r/lib\"' /etc/cdi/nvmediate.json &&
		       grep -q 'NVIDIA_VISIBLE_DEVICES=void' /etc/cdi/nvmediate.json"
	if [ ! -d "$T/rootfs-own" ]; then
		cp -a "$R" "$T/rootfs-own"
		rm -f "$T/rootfs-own/usr/bin/nvidia-smi"
		for l in /opt/nvidia/*/lib/*; do
			rm -f "$T/rootfs-own/usr/lib/x86_64-linux-gnu/${l##*/}"
		done
	fi
	own_root=$T/rootfs-own podman_case runc-own-spec root runc
	check "nvuser-$r-$f-cdi-own-ldcache" "the container's linker cache was not made" \
		test -s "$T/rootfs-own/etc/ld.so.cache"
	rm -f "$T/rootfs-own/etc/ld.so.cache"
}

# podman_case NAME WHO RUNTIME [podman options]: one container of
# podman_runs, given GPU 0 by the spec in /etc/cdi; the direct run of WHO
# is its reference.
podman_case() {
	cn=$1 who=$2
	shift 2
	root=${own_root:-$R}
	[ "$who" = root ] || root=$T/rootfs-user
	f0=$(counter_sum forwarded)
	o0=$(($(counter_sum refused) + $(counter_sum answered)))
	rt=$1
	shift
	podman_as "$who" "podman --runtime $rt run --rm --device nvmediate.io/gpu=0 $* --rootfs $root /bin/sh -c '$nvu_inside'" \
		"$T/p-$who.out"
	rc=$?
	nvu_split "$T/p-$who.out" "p-$who"
	nvu_verdict "nvuser-$r-$f-podman-$cn" $rc "p-$who" "$f0" "$o0" "d-$who"
}

# gpu_check RELEASE: the GPU host check (tests/gpu/run.sh) as a host with
# this driver and no GPU runs it, NVIDIA's open module loaded: its summary,
# its verdict, and its record of cudaprobe's calls against the fixture
# committed for the release (tests/gpu/fixtures/RELEASE-cudaprobe.trace).
gpu_check() {
	g=/usr/share/gpucheck/tests/gpu
	if ! deb_load "$1" open; then
		fail "nvuser-$1-gpu-check" "$(tr '\n' ' ' < "$T/insmod.txt")"
		return
	fi
	rm -rf "$T/gpu"
	PATH=/opt/nvidia/$1/bin:$PATH LD_LIBRARY_PATH=/opt/nvidia/$1/lib NVM_GPU_NOGPU=1 \
		NVM_GPU_PREBUILT=$g NVM_GPU_OUT=$T/gpu bash $g/run.sh > "$T/gpu.txt" 2>&1
	rc=$?
	sed -n '/== nvmediate GPU check: summary ==/,$p' "$T/gpu.txt" | sed 's/^/    /'
	check "nvuser-$1-gpu-check" "tests/gpu/run.sh exit $rc: $(grep '^gpu: FAIL' "$T/gpu.txt" | head -n 3 | tr '\n' ' ')" \
		test $rc = 0
	tr=$T/gpu/$1-cudaprobe.trace
	fx=/usr/share/gpu-fixtures/$1-nogpu-cudaprobe.trace
	if [ -f "$fx" ]; then
		check "nvuser-$1-gpu-fixture" "the calls differ from $fx: $(calls "$fx" | diff - "$tr.calls" 2>/dev/null | grep '^[-+][^-+]' | head -n 4 | tr '\n' ';')" \
			sh -c "grep -v '^#' '$tr' > '$tr.calls'; grep -v '^#' '$fx' | cmp -s - '$tr.calls'"
	else
		fail "nvuser-$1-gpu-fixture" "no fixture $fx: the record below is one (tests/gpu/fixtures/)"
		echo "NVMFIXTURE BEGIN $1-cudaprobe.trace"
		cat "$tr"
		echo "NVMFIXTURE END"
	fi
}

for rel in $(ls $DEB); do
	LIB=/opt/nvidia/$rel/lib
	BIN=/opt/nvidia/$rel/bin
	for fl in $(ls "$DEB/$rel"); do
		tn=nvuser-$rel-$fl
		if ! deb_load "$rel" "$fl"; then
			fail "$tn-load" "$(tr '\n' ' ' < "$T/insmod.txt")"
			continue
		fi
		# the driver's parameters as a host has them
		grep -q '^ModifyDeviceFiles: 1$' /proc/driver/nvidia/params ||
			fail "$tn-params" "ModifyDeviceFiles: $(grep ModifyDeviceFiles /proc/driver/nvidia/params)"
		for who in root user; do
			probe "d-$who" $who direct
			echo "  $rel $fl $who direct: cudaprobe $(grep -v ': ok$' "$T/d-$who.probe" | tr '\n' ' '), nvidia-smi $(head -n 1 "$T/d-$who.smi") ($(tail -n 1 "$T/d-$who.smi")), $(calls "$T/d-$who.probe.trace" | wc -l) + $(calls "$T/d-$who.smi.trace" | wc -l) calls"
			[ "$who" = user ] || calls "$T/d-$who.probe.trace" | sort | uniq -c | sed 's/^ */    /' 
			f0=$(counter_sum forwarded)
			o0=$(($(counter_sum refused) + $(counter_sum answered)))
			probe "m-$who" $who ns
			moved=$(($(counter_sum forwarded) - f0))
			own=$(($(counter_sum refused) + $(counter_sum answered) - o0))
			ncalls=$(($(calls "$T/m-$who.probe.trace" | wc -l) + $(calls "$T/m-$who.smi.trace" | wc -l)))
			if ! why=$(same "d-$who" "m-$who"); then
				fail "$tn-$who-same" "$why"
				for x in d m; do
					echo "    $x: $(tr '\n' ' ' < "$T/$x-$who.probe")"
					calls "$T/$x-$who.probe.trace" | sed "s/^/    $x /"
				done
			elif [ "$own" != 0 ]; then
				fail "$tn-$who-same" "nvmediate refused or answered $own call(s): $(dmesg | grep 'nvmediate: refused' | tail -n 2 | tr '\n' ' ')"
			elif [ "$ncalls" = 0 ] || [ "$moved" -lt "$ncalls" ]; then
				fail "$tn-$who-same" "$ncalls calls made, nvmediate forwarded $moved"
			else
				pass "$tn-$who-same"
			fi
			after=$(grep -h '^after: ' "$T/m-$who.probe.err" "$T/m-$who.smi.err" | sort -u | tr '\n' ' ')
			check "$tn-$who-nodes-kept" "in the namespace afterwards: $after" \
				test "$(grep -h '^after: ' "$T/m-$who.probe.err" "$T/m-$who.smi.err" |
					grep -vc '^after: /dev/nvidiactl on nvmediatefs,')" = 0
		done
		command -v podman > /dev/null && podman_runs "$rel" "$fl"
		# The control: nvmediate's own nodes bound onto the driver's names,
		# as before nvmediatefs, are refused by libcuda (it checks the
		# numbers), so the agreement above is nvmediatefs's doing.
		# shellcheck disable=SC2016  # expanded by the inner sh
		unshare -m sh -c 'mount --make-rprivate / && mount --bind /dev/nvproxy /dev/nvidiactl &&
			mount --bind /dev/nvproxy0 /dev/nvidia0 && mount --bind /dev/nvproxy-uvm /dev/nvidia-uvm &&
			exec su -s /bin/sh '$USR' -c "env LD_LIBRARY_PATH=$1 cudaprobe"' ctl "$LIB" > "$T/c.probe" 2> /dev/null
		echo "exit $?" >> "$T/c.probe"
		check "$tn-control" "libcuda took nvmediate's numbers: $(tr '\n' ' ' < "$T/c.probe")" \
			sh -c "! grep -q '^cudaprobe: cuInit: ok' '$T/c.probe' && ! cmp -s '$T/c.probe' '$T/d-user.probe'"
	done
	gpu_check "$rel"
done
nvm_end
