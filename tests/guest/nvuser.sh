# SPDX-License-Identifier: GPL-2.0
# NVIDIA's own user space in the guests (sourced by 91-containerd.sh and
# 97-nvidia-user.sh, after lib.sh): Debian's NVIDIA modules in
# /lib/nvidia-deb/<release>/<flavour>/ and their user space in
# /opt/nvidia/<release>/ (tests/nvidia/debian.sh, mkinitramfs.sh), run
# directly, in a namespace or a container, and compared.  Callers set T,
# and LIB and BIN (the release's /opt/nvidia/<release>/lib and bin).
DEB=/lib/nvidia-deb
SHIM=/usr/lib/nvtrace.so
STATS=/sys/class/nvmediate/stats
USR=nvmuser

counter_sum() {	# counter_sum SUFFIX: the sum of every family's counter
	cat $STATS/*_"$1" | awk '{ n += $1 } END { print n + 0 }'
}

# deb_load RELEASE FLAVOUR: the driver with no GPU, its nodes as
# nvidia-modprobe makes them, nvmediate, nvmediatefs at /run/nvmediate.
deb_load() {
	unload_all
	rm -f /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm /dev/nvidia-uvm-tools
	modprobe drm 2> /dev/null
	insmod "$DEB/$1/$2/nvidia.ko" nv_zero_gpus=1 > "$T/insmod.txt" 2>&1 &&
	insmod "$DEB/$1/$2/nvidia-uvm.ko" >> "$T/insmod.txt" 2>&1 || return 1
	uvm=$(sed -n 's/^ *\([0-9]*\) nvidia-uvm$/\1/p' /proc/devices)
	mknod -m 666 /dev/nvidiactl c 195 255 && mknod -m 666 /dev/nvidia-uvm c "$uvm" 0 &&
	mknod -m 666 /dev/nvidia-uvm-tools c "$uvm" 1 || return 1
	load_nvmediate num_gpus=1 >> "$T/insmod.txt" 2>&1 || return 1
	wait_node /dev/nvproxy0 && wait_node /dev/nvproxy-uvm || return 1
	mkdir -p /run/nvmediate/default
	mount -t nvmediatefs -o set=default nvmediate /run/nvmediate/default >> "$T/insmod.txt" 2>&1
}

# in_ns root|user CMD...: CMD in a pid and mount namespace (with its own
# /proc, as a container has: libcuda names its threads through
# /proc/self/task/TID) where nvmediatefs's nodes are bound onto the driver's
# names; then, on standard error, whether /dev/nvidiactl there is still
# nvmediatefs's.  For root, in a user namespace too, where root has no
# CAP_SYS_ADMIN of the host's, as in a container (nvmediatefs tells it the
# true numbers otherwise); CMD for the user drops to it with su.
in_ns() {
	userns=-r
	[ "$1" = root ] || userns=
	shift
	# shellcheck disable=SC2016,SC2086  # expanded by the inner sh; $userns
	unshare $userns -m -p -f --mount-proc sh -c '
		mount --make-rprivate / &&
		for n in nvidiactl nvidia0 nvidia-uvm; do
			[ -e /dev/$n ] || : > /dev/$n
			mount --bind /run/nvmediate/default/$n /dev/$n || exit 9
		done
		"$@"
		rc=$?
		fs=$(awk "\$5 == \"/dev/nvidiactl\" { sub(/.* - /, \"\"); print \$1 }" /proc/self/mountinfo | tail -n 1)
		echo "after: /dev/nvidiactl on ${fs:-nothing}, /dev/char: $(ls /dev/char 2>/dev/null | tr "\n" " ")" >&2
		exit $rc' in_ns "$@"
}

# probe TAG WHO direct|ns: cudaprobe and nvidia-smi, traced, into $T/TAG.*,
# as root or as the user (uid 1000).
probe() {
	tag=$1 who=$2 how=$3
	rm -f "$T/$tag".*
	touch "$T/$tag.probe.trace" "$T/$tag.smi.trace"
	chmod 666 "$T/$tag".*.trace
	for w in probe smi; do
		prog=cudaprobe
		[ $w = probe ] || prog=$BIN/nvidia-smi
		cmd="env LD_LIBRARY_PATH=$LIB LD_PRELOAD=$SHIM NVTRACE_OUT=$T/$tag.$w.trace $prog"
		[ "$who" = root ] || cmd="su -s /bin/sh $USR -c '$cmd'"
		if [ "$how" = ns ]; then
			in_ns "$who" sh -c "$cmd" > "$T/$tag.$w" 2> "$T/$tag.$w.err"
		else
			sh -c "$cmd" > "$T/$tag.$w" 2> "$T/$tag.$w.err"
		fi
		echo "exit $?" >> "$T/$tag.$w"
	done
}

# same A B: A's and B's outputs and calls agree (client handles aside).
calls() { grep -v '^#' "$1" | sed 's/ h[A-Za-z]*=0x[0-9a-f]*//g'; }
same() {
	for w in probe smi; do
		calls "$T/$1.$w.trace" > "$T/a" && calls "$T/$2.$w.trace" > "$T/b"
		cmp -s "$T/a" "$T/b" || { echo "$w calls: $(diff "$T/a" "$T/b" | grep '^[-+][^-+]' | head -n 6 | tr '\n' ';')"; return 1; }
		cmp -s "$T/$1.$w" "$T/$2.$w" || { echo "$w output: $(diff "$T/$1.$w" "$T/$2.$w" | grep '^[-+][^-+]' | head -n 4 | tr '\n' ';')"; return 1; }
	done
	return 0
}

# ctk_spec RELEASE: a CDI spec of the form nvidia-ctk cdi generate writes
# for GPU 0 on a Debian host: the driver's nodes, its libraries and
# nvidia-smi bind-mounted read-only, NVIDIA_VISIBLE_DEVICES=void.
ctk_spec() {
	echo "cdiVersion: 0.5.0"
	echo "kind: nvidia.com/gpu"
	echo "devices:"
	echo "- name: \"0\""
	echo "  containerEdits:"
	echo "    deviceNodes:"
	echo "    - path: /dev/nvidia0"
	echo "containerEdits:"
	echo "  env:"
	echo "  - NVIDIA_VISIBLE_DEVICES=void"
	echo "  deviceNodes:"
	echo "  - path: /dev/nvidiactl"
	echo "  - path: /dev/nvidia-uvm"
	echo "  - path: /dev/nvidia-uvm-tools"
	echo "  mounts:"
	for lf in /opt/nvidia/"$1"/lib/*; do
		echo "  - hostPath: $lf"
		echo "    containerPath: /usr/lib/x86_64-linux-gnu/${lf##*/}"
		echo "    options:"
		for o in ro nosuid nodev bind; do echo "    - $o"; done
	done
	echo "  - hostPath: /opt/nvidia/$1/bin/nvidia-smi"
	echo "    containerPath: /usr/bin/nvidia-smi"
	echo "    options:"
	for o in ro nosuid nodev bind; do echo "    - $o"; done
}

# What a container given the GPU runs, printing everything on its standard
# output: cudaprobe's and nvidia-smi's output and exit status (lines
# "probe|" and "smi|"), the calls nvtrace.so recorded ("probeT|", "smiT|"),
# and the filesystem /dev/nvidiactl is on ("fs|").  The image holds
# cudaprobe, nvtrace.so and the C library; the spec brings NVIDIA's.  The
# records go to /dev/shm, a tmpfs of the container's own, so that no run
# finds another's (a root file system may be shared by several containers).
nvu_inside='for w in probe smi; do p=cudaprobe; [ $w = probe ] || p=nvidia-smi;
	LD_PRELOAD=/usr/lib/x86_64-linux-gnu/nvtrace.so NVTRACE_OUT=/dev/shm/$w.trace $p > /dev/shm/$w.out 2> /dev/null;
	echo "exit $?" >> /dev/shm/$w.out; sed "s/^/$w|/" /dev/shm/$w.out; sed "s/^/${w}T|/" /dev/shm/$w.trace; done;
	echo "fs|$(awk "\$5 == \"/dev/nvidiactl\" { sub(/.* - /, \"\"); print \$1 }" /proc/self/mountinfo)"'

# nvu_image_files ROOT: what nvu_inside needs in an image's root.
nvu_image_files() {
	mkdir -p "$1/lib64" "$1/lib/x86_64-linux-gnu" "$1/usr/lib/x86_64-linux-gnu" "$1/bin" "$1/tmp"
	cp /bin/cudaprobe "$1/bin/"
	cp $SHIM "$1/usr/lib/x86_64-linux-gnu/"
	cp -L /lib64/ld-linux-x86-64.so.2 "$1/lib64/"
	for l in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
		cp -L "/lib/x86_64-linux-gnu/$l" "$1/lib/x86_64-linux-gnu/"
	done
	for a in sed awk env; do ln -sf busybox "$1/bin/$a"; done
}

# nvu_split OUT TAG: nvu_inside's output OUT as $T/TAG.probe, .smi, their
# .trace files and $T/TAG.fs, as probe() writes them; OUT itself as
# $T/TAG.out.
nvu_split() {
	[ "$1" = "$T/$2.out" ] || cp "$1" "$T/$2.out"
	for w in probe smi; do
		sed -n "s/^$w|//p" "$1" > "$T/$2.$w"
		sed -n "s/^${w}T|//p" "$1" > "$T/$2.$w.trace"
	done
	sed -n 's/^fs|//p' "$1" > "$T/$2.fs"
}

# nvu_verdict NAME RC TAG F0 O0 [REF]: a container's run TAG against the
# direct run REF (default d-root: as root); F0 and O0 the forwarded and the
# refused + answered counts before it.
nvu_verdict() {
	moved=$(($(counter_sum forwarded) - $4))
	own=$(($(counter_sum refused) + $(counter_sum answered) - $5))
	ncalls=$(($(calls "$T/$3.probe.trace" | wc -l) + $(calls "$T/$3.smi.trace" | wc -l)))
	if [ "$2" -ne 0 ]; then
		fail "$1" "exit $2: $(tail -n 4 "$T/$3.out" | tr '\n' ' ')"
	elif ! why=$(same "${6:-d-root}" "$3"); then
		fail "$1" "$why"
	elif [ "$own" != 0 ] || [ "$ncalls" = 0 ] || [ "$moved" -lt "$ncalls" ]; then
		fail "$1" "$ncalls calls made, nvmediate forwarded $moved and refused or answered $own"
	else
		pass "$1"
	fi
	check "$1-nodes-kept" "the container's /dev/nvidiactl afterwards: on '$(cat "$T/$3.fs")'" \
		test "$(cat "$T/$3.fs")" = nvmediatefs
}
