#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build NVIDIA's own open kernel modules (nvidia.ko, nvidia-uvm.ko) for a
# guest kernel, from NVIDIA's public source, for the real-driver guest tests:
#
#   tests/nvidia/build.sh KIND [RELEASE...]
#   tests/nvidia/build.sh --list        the releases whose source is found
#
# KIND: stock or debug (tests/qemu/lib.sh).  RELEASE: e.g. 580.142; default:
# every release whose source is found.  The source is looked up in
# $NVM_NVIDIA_SRC (default: ../shared/nvidia beside the repository), either
# as open-gpu-kernel-modules-<release>.tar.xz or as an unpacked
# open-gpu-kernel-modules-<release>/ directory.
#
# Each release is unpacked into build/nvidia/<release>/src and gets
# tests/nvidia/zero-gpus.patch (a module parameter nv_zero_gpus=1 that lets it
# load without a GPU); nothing of it leaves build/.  The RM core (src/nvidia,
# built without kernel headers) is built once per release and kept (a
# second build of the release waits for the first); the kernel interface
# layer is built per kind in build/nvidia/<release>/<kind>/, with
# tests/nvidia/pci-resize-exclude-bars.patch where the kernel needs it
# and the release does not know it.  The stripped modules end up in
# build/nvidia/<release>/<kind>/{nvidia,nvidia-uvm}.ko.
#
# Output: for each release "nvidia RELEASE KIND: building (log: ...)", then
# "nvidia RELEASE KIND: ok (...)" or "nvidia RELEASE KIND: FAIL ...".  Exit status: 0 when every release built;
# 2 when no source was found at all.
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -ge 1 ] || nvm_die "usage: $0 stock|debug [RELEASE...] | --list"
kind=$1
shift
srcdir=${NVM_NVIDIA_SRC:-$(cd "$NVM_ROOT/.." && pwd)/shared/nvidia}
patches=$NVM_ROOT/tests/nvidia
jobs=${NVM_JOBS:-$(nproc)}
top=$NVM_BUILD/nvidia

nvm_nvidia_releases() {	# the releases found in $srcdir, oldest first
	local f
	for f in "$srcdir"/open-gpu-kernel-modules-*; do
		[ -e "$f" ] || continue
		f=${f##*/open-gpu-kernel-modules-}
		echo "${f%.tar.xz}"
	done | sort -u -V
}

if [ "$kind" = --list ]; then	# the releases whose source is found
	nvm_nvidia_releases
	exit 0
fi
case $kind in
stock | debug) ;;
*) nvm_die "real-driver modules are built for the stock and debug kernels only, not '$kind'" ;;
esac

if [ $# -eq 0 ]; then
	set -- $(nvm_nvidia_releases)
	if [ $# -eq 0 ]; then
		echo "nvidia: no NVIDIA source in $srcdir (open-gpu-kernel-modules-<release>.tar.xz);" \
			"set NVM_NVIDIA_SRC to the directory that holds it"
		exit 2
	fi
fi

kdir=$(nvm_kdir "$kind")
[ -d "$kdir" ] || nvm_die "no $kind kernel tree at $kdir (build or fetch it first)"
# Debian splits its headers: the -amd64 directory is the build output, the
# -common one the source.  A kernel built in place is both.
syssrc=$kdir
[ -d "$kdir/include/linux" ] || syssrc=${kdir%-amd64}-common

# unpack RELEASE DEST: the pristine source plus the zero-GPU patch, redone
# only when the archive or the patch changed.
unpack() {
	local rel=$1 dest=$2 stamp in
	in=$srcdir/open-gpu-kernel-modules-$rel
	if [ -f "$in.tar.xz" ]; then
		stamp=$(cat "$in.tar.xz" "$patches/zero-gpus.patch" | sha256sum | cut -c1-16)
	elif [ -d "$in" ]; then
		stamp=$( (cd "$in" && find . -type f -newer "$in" -print | wc -l; cat "$patches/zero-gpus.patch") |
			sha256sum | cut -c1-16)
	else
		echo "no source for $rel in $srcdir"
		return 1
	fi
	[ "$(cat "$dest.stamp" 2>/dev/null)" = "$stamp" ] && [ -d "$dest/src/nvidia" ] && return 0
	rm -rf "$dest" "$dest.stamp"
	mkdir -p "$dest"
	if [ -f "$in.tar.xz" ]; then
		tar -xJf "$in.tar.xz" -C "$dest" --strip-components=1 || return 1
	else
		cp -a "$in"/. "$dest"/ || return 1
	fi
	(cd "$dest" && patch -p1 -s < "$patches/zero-gpus.patch") || return 1
	echo "$stamp" > "$dest.stamp"
}

# build_release RELEASE: unpack, RM core, kernel interface layer for KIND.
build_release() {
	local rel=$1 dir=$top/$1 out=$top/$1/$kind ko t0 core
	t0=$(date +%s)
	mkdir -p "$dir"
	# The source and the RM core are shared by the kinds: one build of
	# them at a time (a guest run for one kind may start its build while
	# make check builds the other).
	exec 7> "$dir/.lock"
	if ! flock -n 7; then
		echo "== $rel: waiting for another build of its RM core"
		flock 7
	fi
	unpack "$rel" "$dir/src" || return 1
	echo "== $rel: RM core (src/nvidia)"
	make -C "$dir/src/src/nvidia" -j"$jobs" || return 1
	exec 7>&-
	core=$(ls "$dir"/src/src/nvidia/_out/Linux_x86_64/nv-kernel.o 2>/dev/null) || {
		echo "no nv-kernel.o after building the RM core"
		return 1
	}
	echo "== $rel: kernel interface for $kind ($(nvm_release "$kind"))"
	mkdir -p "$out"
	rsync -rlpc --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude=conftest --exclude=nv-kernel.o_binary \
		"$dir/src/kernel-open"/ "$out/kernel-open"/ || return 1
	# The exclude_bars argument (see the patch): only where the kernel has
	# it and the release cannot tell.
	if grep -q 'exclude_bars' "$syssrc/include/linux/pci.h" 2>/dev/null &&
		! grep -q pci_resize_resource_has_exclude_bars_arg "$out/kernel-open/conftest.sh"; then
		echo "   $rel: applying pci-resize-exclude-bars.patch"
		(cd "$out" && patch -p1 -s < "$patches/pci-resize-exclude-bars.patch") || return 1
	fi
	ln -sf "$core" "$out/kernel-open/nvidia/nv-kernel.o_binary"
	nvm_nvidia_kbuild "$out/kernel-open" "$out" "$syssrc" "$kdir" "$jobs" || return 1
	echo "nvidia $rel $kind: built in $(( $(date +%s) - t0 ))s," \
		"$(modinfo -F version "$out/nvidia.ko"), $(du -ch "$out"/nvidia*.ko | tail -n 1 | cut -f1)"
}

# progress REL PID LOG: while PID builds, a line a minute: the part being
# built and how far it is: the RM core's files compiled (its log names
# each); the kernel layer's conftests (probes of the kernel) and objects
# built (kbuild is quiet: counted on disk).
progress() {
	local rel=$1 pid=$2 log=$3 part n what
	while kill -0 "$pid" 2>/dev/null; do
		for n in $(seq 60); do
			kill -0 "$pid" 2>/dev/null || return 0
			sleep 1
		done
		part=$(grep '^== ' "$log" | tail -n 1 | sed "s/^== $rel: //")
		case $part in
		"kernel interface"*)
			what="$(sed -n '/^== .*kernel interface/,$p' "$log" | grep -c 'CONFTEST:') conftests,"
			what="$what $(find "$top/$rel/$kind/kernel-open" -name '*.o' 2>/dev/null | wc -l) objects built" ;;
		"RM core"*)
			what="$(sed -n '/^== .*RM core/,$p' "$log" | grep -c ' CC ') files compiled" ;;
		*) what="" ;;
		esac
		echo "nvidia $rel $kind: ${part:-unpacking}${what:+, $what}"
	done
}

rc=0
for rel in "$@"; do
	log=$top/$rel/build-$kind.log
	mkdir -p "$top/$rel"
	echo "nvidia $rel $kind: building (log: ${log#"$NVM_ROOT"/})"
	build_release "$rel" > "$log" 2>&1 &
	pid=$!
	progress "$rel" "$pid" "$log"
	if wait "$pid"; then
		echo "nvidia $rel $kind: ok ($(tail -n 1 "$log" | sed 's/^nvidia [^ ]* [^ ]*: //'))"
	else
		echo "nvidia $rel $kind: FAIL, last lines of ${log#"$NVM_ROOT"/}:"
		tail -n 15 "$log" | sed 's/^/   | /'
		rm -f "$top/$rel/$kind/nvidia.ko" "$top/$rel/$kind/nvidia-uvm.ko"
		rc=1
	fi
done
exit $rc
