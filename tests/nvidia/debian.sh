#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Give the guest tests NVIDIA's real user space and kernel modules as Debian
# ships them:
#
#   tests/nvidia/debian.sh KIND RELEASE...
#
# KIND: stock (Debian 12's kernel, tests/qemu/lib.sh; the only kind for now).
# RELEASE: 535.261.03 (bookworm) or 550.163.01 (trixie): the suite comes from
# the table in suite_of below.
#
# For each release, its packages (nvidia-open-kernel-dkms, nvidia-kernel-dkms,
# libcuda1, libnvidia-ml1, nvidia-smi, libnvidia-ptxjitcompiler1) are
# downloaded at exactly that version, never installed, with a private apt
# configuration (build/nvidia-deb/apt/<suite>: the machine's own sources and
# state are never read or changed) into build/nvidia-deb/<release>/deb.
# libcuda1 also depends on libnvidia-pkcs11-openssl3, which no program
# needs to load (no NEEDED entry: libcuda dlopens it for confidential
# computing only), so it is left out; so are the packages that only
# run alternatives or hold configuration (nvidia-alternative, nvidia-support).
#
# Two flavors of nvidia.ko and nvidia-uvm.ko are built for KIND: "open"
# from nvidia-open-kernel-dkms's /usr/src/nvidia-current-open-<release> and
# "proprietary" from nvidia-kernel-dkms's /usr/src/nvidia-current-<release>,
# each in a fresh copy, build/nvidia-deb/<release>/<flavor>/<kind>/src, with
# tests/nvidia/zero-gpus.patch (module parameter nv_zero_gpus=1: load without
# a GPU; applied with fuzz: Debian's nv.c is not NVIDIA's public tree's) and,
# as in tests/nvidia/build.sh, tests/nvidia/pci-resize-exclude-bars.patch
# where the kernel has the argument, the release does not know it and the
# flavor calls pci_resize_resource() (the proprietary one does not).  Both
# packages ship the RM core prebuilt (nvidia/nv-kernel.o_binary).  The
# stripped modules end up in build/nvidia-deb/<release>/<flavor>/<kind>/
# {nvidia,nvidia-uvm}.ko.
#
# The user space (libcuda1, libnvidia-ml1, nvidia-smi,
# libnvidia-ptxjitcompiler1) is unpacked into build/nvidia-deb/<release>/user
# and laid out flat, for mkinitramfs, in build/nvidia-deb/<release>/root:
# the libraries in /usr/lib/x86_64-linux-gnu with the links Debian's packages
# make (libcuda.so.1, libnvidia-ml.so.1, libnvidia-ptxjitcompiler.so.1: the
# links the alternatives system would make to Debian's
# /usr/lib/x86_64-linux-gnu/nvidia/current), nvidia-smi in /usr/bin.  Every
# NEEDED entry of them must be in the tree or be part of this machine's C
# library (the guests copy it), and no GLIBC_ symbol version may be newer
# than this machine's.
#
# Cached: what exists with a stamp (the downloads, each flavor's modules,
# the user space) is not fetched or built again; a changed package or patch
# rebuilds.  One run of the script at a time (a lock), one make at a time.
#
# Output: per release "nvidia-deb RELEASE user: ok (...)" or "... FAIL ...",
# then per flavor "nvidia-deb RELEASE FLAVOR KIND: building (log: ...)" and
# "nvidia-deb RELEASE FLAVOR KIND: ok (built in Ns, version X, SIZE)" or
# "... FAIL, last lines of LOG:" and the log's tail.  Exit status: 0 when
# every release and flavor is ready, 1 otherwise.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../qemu/lib.sh
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -ge 2 ] || nvm_die "usage: $0 stock RELEASE... (RELEASE: 535.261.03, 550.163.01)"
kind=$1
shift
case $kind in
stock) ;;
*) nvm_die "Debian's NVIDIA modules are built for the stock kernel only, not '$kind'" ;;
esac

# suite_of RELEASE: the Debian suite that ships the release.
suite_of() {
	case $1 in
	535.261.03) echo bookworm ;;
	550.163.01) echo trixie ;;
	*) return 1 ;;
	esac
}
for rel in "$@"; do
	suite_of "$rel" > /dev/null || nvm_die "no Debian suite known for release '$rel' (535.261.03, 550.163.01)"
done

patches=$NVM_ROOT/tests/nvidia
jobs=${NVM_JOBS:-$(nproc)}
top=$NVM_BUILD/nvidia-deb
flavors="open proprietary"
userpkgs="libcuda1 libnvidia-ml1 nvidia-smi libnvidia-ptxjitcompiler1"
pkgs="nvidia-open-kernel-dkms nvidia-kernel-dkms $userpkgs"
libdir=usr/lib/x86_64-linux-gnu

kdir=$(nvm_kdir "$kind")
[ -d "$kdir" ] || nvm_die "no $kind kernel tree at $kdir (build or fetch it first)"
# As in build.sh: Debian splits its headers into the -amd64 build output and
# the -common source.
syssrc=$kdir
[ -d "$kdir/include/linux" ] || syssrc=${kdir%-amd64}-common
krel=$(nvm_release "$kind")

mkdir -p "$top"
exec 8> "$top/.lock"
if ! flock -n 8; then
	echo "nvidia-deb: waiting for another run of $(basename "$0")"
	flock 8
fi

# deb_of RELEASE PKG: the downloaded package.
deb_of() {
	local f
	for f in "$top/$1/deb/${2}_$1-"*_amd64.deb; do
		[ -f "$f" ] && echo "$f" && return 0
	done
	return 0
}

# fetch RELEASE: its packages at exactly that version into $top/RELEASE/deb,
# unless all are there.
fetch() {
	local rel=$1 suite dir=$top/$1/deb p ver missing=
	for p in $pkgs; do
		[ -n "$(deb_of "$rel" "$p")" ] || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	suite=$(suite_of "$rel")
	echo "nvidia-deb $rel: apt-get update ($suite main contrib non-free)"
	NVM_APT_COMPONENTS="main contrib non-free" nvm_private_apt "$top/apt/$suite" "$suite" || return 1
	mkdir -p "$dir"
	for p in $missing; do
		# The Debian revision is not part of the release: the newest
		# version of the suite whose upstream part is the release.
		ver=$(apt-cache "${nvm_aptopts[@]}" madison "$p" 2>/dev/null |
			awk -F'|' -v r="$rel-" '{ gsub(/ /, "", $2) } index($2, r) == 1 { print $2 }' |
			sort -V | tail -n 1)
		[ -n "$ver" ] || { echo "nvidia-deb $rel: $p $rel is not in $suite"; return 1; }
		echo "nvidia-deb $rel: downloading $p=$ver"
		(cd "$dir" && apt-get "${nvm_aptopts[@]}" -q download "$p=$ver" >> "$top/apt/$suite/apt.log" 2>&1) || {
			echo "nvidia-deb $rel: cannot download $p=$ver (see ${top#"$NVM_ROOT"/}/apt/$suite/apt.log)"
			return 1
		}
	done
}

# stamp FILE...: a short hash of the files.
stamp() {
	cat "$@" | sha256sum | cut -c1-16
}

# glibc_max FILE: the newest GLIBC_ symbol version FILE needs.
glibc_max() {
	objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -V | tail -n 1
}

# user RELEASE: the user space, unpacked and laid out flat, and checked.
user() {
	local rel=$1 dir=$top/$1 st p f so need have max libc glibc rc=0 bad=
	local debs=()
	for p in $userpkgs; do
		debs+=("$(deb_of "$rel" "$p")")
	done
	st=$(stamp "${debs[@]}" "$0")
	if [ "$(cat "$dir/root.stamp" 2>/dev/null)" != "$st" ]; then
		rm -rf "$dir/user" "$dir/root" "$dir/root.stamp"
		mkdir -p "$dir/user" "$dir/root/$libdir" "$dir/root/usr/bin"
		for f in "${debs[@]}"; do
			dpkg-deb -x "$f" "$dir/user" || return 1
		done
		# The libraries with every link their packages ship beside them
		# (SONAME and development links, all relative), flat.
		for f in "$dir/user/$libdir/nvidia/current"/lib*.so*; do
			cp -a "$f" "$dir/root/$libdir/" || return 1
		done
		cp -a "$dir/user/usr/lib/nvidia/current/nvidia-smi" "$dir/root/usr/bin/nvidia-smi" || return 1
		# A SONAME link the packages did not ship: made here.
		for f in "$dir/root/$libdir"/lib*.so.*; do
			[ -L "$f" ] && continue
			so=$(readelf -d "$f" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
			[ -n "$so" ] && [ ! -e "$dir/root/$libdir/$so" ] && ln -s "${f##*/}" "$dir/root/$libdir/$so"
		done
		echo "$st" > "$dir/root.stamp"
	fi
	# The checks: every NEEDED entry is in the tree or this machine's C
	# library (what the guests have), ldd finds everything, and no symbol
	# version is newer than this machine's glibc.
	libc=$(getconf GNU_LIBC_VERSION | sed 's/^glibc //')
	glibc=$(dpkg -L libc6 | sed -n 's|^.*/\([^/]*\.so[^/]*\)$|\1|p' | sort -u)
	have=""
	for f in "$dir/root/usr/bin/nvidia-smi" "$dir/root/$libdir"/lib*.so.*; do
		[ -L "$f" ] && continue
		for need in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			[ -e "$dir/root/$libdir/$need" ] && continue
			grep -qxF "$need" <<< "$glibc" ||
				bad="$bad ${f##*/} needs $need, not in the tree or glibc;"
		done
		LD_LIBRARY_PATH=$dir/root/$libdir ldd "$f" 2>&1 | grep -q 'not found' &&
			bad="$bad ldd ${f##*/}: $(LD_LIBRARY_PATH=$dir/root/$libdir ldd "$f" 2>&1 |
				grep 'not found' | sed 's/ =>.*//' | tr -d '\t' | tr '\n' ' ');"
		max=$(glibc_max "$f")
		[ "$(printf '%s\n%s\n' "$max" "$libc" | sort -V | tail -n 1)" = "$libc" ] ||
			bad="$bad ${f##*/} needs GLIBC_$max, newer than $libc;"
		have="$have ${f##*/}:GLIBC_$max"
	done
	for so in libcuda.so.1 libnvidia-ml.so.1 libnvidia-ptxjitcompiler.so.1; do
		[ -e "$dir/root/$libdir/$so" ] || bad="$bad no $so;"
	done
	if [ -n "$bad" ]; then
		echo "nvidia-deb $rel user: FAIL:$bad"
		rc=1
	else
		echo "nvidia-deb $rel user: ok ($(du -sh --apparent-size "$dir/root" | cut -f1) in" \
			"${dir#"$NVM_ROOT"/}/root; every NEEDED entry met; newest symbol versions:$have)"
	fi
	return $rc
}

# build FLAVOR RELEASE: the flavor's modules for $kind.
build() {
	local flavor=$1 rel=$2 out=$top/$2/$1/$kind deb src ko t0 pkg
	t0=$(date +%s)
	case $flavor in
	open) pkg=nvidia-open-kernel-dkms src=nvidia-current-open-$rel ;;
	proprietary) pkg=nvidia-kernel-dkms src=nvidia-current-$rel ;;
	esac
	deb=$(deb_of "$rel" "$pkg")
	rm -rf "$out"
	mkdir -p "$out/src"
	echo "== $rel $flavor: unpacking $src from ${deb##*/}"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out/src" --strip-components=4 "./usr/src/$src/" || return 1
	[ -f "$out/src/nvidia/nv-kernel.o_binary" ] || { echo "no nvidia/nv-kernel.o_binary in $src"; return 1; }
	# zero-gpus.patch names kernel-open/nvidia/nv.c: -p2.  Debian's nv.c
	# differs around the second hunk (fuzz); the check after it is what
	# counts.
	echo "== $rel $flavor: applying zero-gpus.patch"
	patch -d "$out/src" -p2 -F2 --no-backup-if-mismatch < "$patches/zero-gpus.patch" || return 1
	[ "$(grep -c 'os_is_nvswitch_present() || nv_zero_gpus' "$out/src/nvidia/nv.c")" = 1 ] ||
		{ echo "zero-gpus.patch did not change nvidia/nv.c's nvswitch check"; return 1; }
	if grep -q 'exclude_bars' "$syssrc/include/linux/pci.h" 2>/dev/null &&
		! grep -q pci_resize_resource_has_exclude_bars_arg "$out/src/conftest.sh"; then
		if grep -q 'pci_resize_resource(' "$out/src/nvidia/nv-pci.c"; then
			echo "== $rel $flavor: applying pci-resize-exclude-bars.patch"
			patch -d "$out/src" -p2 --no-backup-if-mismatch < "$patches/pci-resize-exclude-bars.patch" ||
				return 1
		else
			echo "== $rel $flavor: no pci_resize_resource() call: pci-resize-exclude-bars.patch not needed"
		fi
	fi
	echo "== $rel $flavor: kernel interface for $kind ($krel)"
	nvm_nvidia_kbuild "$out/src" "$out" "$syssrc" "$kdir" "$jobs" || return 1
	echo "nvidia-deb $rel $flavor $kind: built in $(( $(date +%s) - t0 ))s," \
		"version $(modinfo -F version "$out/nvidia.ko"), $(du -ch "$out"/nvidia*.ko | tail -n 1 | cut -f1)"
}

# progress WHAT PID LOG DIR: while PID builds, a line a minute: the
# conftests run and the objects built.
progress() {
	local what=$1 pid=$2 log=$3 dir=$4
	while kill -0 "$pid" 2>/dev/null; do
		for _ in $(seq 60); do
			kill -0 "$pid" 2>/dev/null || return 0
			sleep 1
		done
		echo "$what: $(grep '^== ' "$log" | tail -n 1 | sed 's/^== [^ ]* [^ ]*: //')," \
			"$(grep -c 'CONFTEST:' "$log") conftests, $(find "$dir" -name '*.o' 2>/dev/null | wc -l) objects built"
	done
}

rc=0
for rel in "$@"; do
	if ! fetch "$rel"; then
		echo "nvidia-deb $rel: FAIL: cannot fetch its packages"
		rc=1
		continue
	fi
	user "$rel" || rc=1
	for flavor in $flavors; do
		what="nvidia-deb $rel $flavor $kind"
		out=$top/$rel/$flavor/$kind
		log=$top/$rel/$flavor/build-$kind.log
		case $flavor in
		open) deb=$(deb_of "$rel" nvidia-open-kernel-dkms) ;;
		proprietary) deb=$(deb_of "$rel" nvidia-kernel-dkms) ;;
		esac
		st="$(stamp "$deb" "$patches/zero-gpus.patch" "$patches/pci-resize-exclude-bars.patch") $krel"
		if [ "$(cat "$out.stamp" 2>/dev/null)" = "$st" ] && [ -f "$out/nvidia.ko" ] &&
			[ -f "$out/nvidia-uvm.ko" ]; then
			echo "$what: ok (cached, version $(modinfo -F version "$out/nvidia.ko"))"
			continue
		fi
		rm -f "$out.stamp"
		mkdir -p "$top/$rel/$flavor"
		echo "$what: building (log: ${log#"$NVM_ROOT"/})"
		build "$flavor" "$rel" > "$log" 2>&1 &
		pid=$!
		progress "$what" "$pid" "$log" "$out/src"
		if wait "$pid"; then
			echo "$st" > "$out.stamp"
			echo "$what: ok ($(tail -n 1 "$log" | sed 's/^nvidia-deb [^ ]* [^ ]* [^ ]*: //'))"
		else
			echo "$what: FAIL, last lines of ${log#"$NVM_ROOT"/}:"
			tail -n 15 "$log" | sed 's/^/   | /'
			rm -f "$out/nvidia.ko" "$out/nvidia-uvm.ko"
			rc=1
		fi
	done
done
exit $rc
