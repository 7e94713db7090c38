#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch another Debian release's kernel for the guests and the builds:
#
#   tests/kernel/fetch-kernel.sh KIND       KIND: stock-5.10, stock-6.12, stock-sid
#   tests/kernel/fetch-kernel.sh --source KIND
#
# The newest linux-headers-amd64 of the kind's suites (tests/qemu/lib.sh)
# names the kernel; its headers, kbuild and image packages are downloaded
# with a private apt configuration (build/kernels/apt/<kind>: the machine's
# own sources and state are never read or changed) into
# build/kernels/<kind>/deb and unpacked with dpkg-deb into
# build/kernels/<kind>/tree.  Nothing is installed into /usr/src, /lib/modules
# or /boot: the stock kind takes the highest /usr/src/linux-headers-*.
# Kinds whose compiler or C library is not Debian 12's also get a build root,
# made with mmdebstrap in build/kernels/<kind>/root with that compiler, make,
# sparse and dkms.  Cached: a kind fetched once is not looked up again
# (remove build/kernels/<kind> for the archive's newest).
# With --source, the kind is fetched as above and its linux-source package
# (the newest of the same major.minor in the kind's suites) is downloaded too;
# the path of the source tarball it holds, build/kernels/<kind>/linux-source.tar.xz,
# is printed on the last line (tests/kernel/build-debug.sh builds from it).
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

want_source=
if [ "${1:-}" = --source ]; then
	want_source=1
	shift
fi
[ $# -eq 1 ] || nvm_die "usage: $0 [--source] stock-5.10|stock-6.12|stock-sid"
kind=$1
suites=$(nvm_kind_suites "$kind") || nvm_die "$kind is not a fetched kind"
top=$NVM_KERNELS/$kind
tree=$top/tree
debdir=$top/deb

say() { echo "fetch-kernel $kind: $*"; }

# One kind at a time per tree (a guest run and make check may race).
mkdir -p "$top"
exec 8> "$top/.lock"
flock 8

if [ -f "$top/ready" ] && { [ -z "$want_source" ] || [ -f "$top/linux-source.tar.xz" ]; }; then
	say "$(nvm_release "$kind") is up to date"
	[ -z "$want_source" ] || echo "$top/linux-source.tar.xz"
	exit 0
fi

# The private apt configuration: only these suites, state under build/.
say "apt-get update ($suites)"
# shellcheck disable=SC2086
nvm_private_apt "$NVM_KERNELS/apt/$kind" $suites || nvm_die "cannot read the archive's $suites"
applog=$NVM_KERNELS/apt/$kind/apt.log


# download PKG: the newest PKG of the suites into $debdir, unless there.
download() {
	local ver
	ver=$(nvm_apt_show "$1" Version)
	[ -n "$ver" ] || nvm_die "$1 is not in $suites"
	ls "$debdir/${1}_"*.deb >/dev/null 2>&1 && return 0
	(cd "$debdir" && apt-get "${nvm_aptopts[@]}" -q download "$1=$ver" >> "$applog" 2>&1) ||
		nvm_die "cannot download $1 (see ${applog#"$NVM_ROOT"/})"
}

# fetch_source: the linux-source package of the kind's kernel, its tarball
# extracted to $top/linux-source.tar.xz.
fetch_source() {
	local pkg deb
	pkg=linux-source-$(cut -d. -f1,2 "$top/release")
	say "downloading $pkg $(nvm_apt_show "$pkg" Version)"
	download "$pkg"
	deb=$(ls "$debdir/${pkg}_"*.deb | head -n 1)
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" > "$top/linux-source.tar.xz.tmp" ||
		nvm_die "$deb holds no usr/src/$pkg.tar.xz"
	mv "$top/linux-source.tar.xz.tmp" "$top/linux-source.tar.xz"
	rm -f "$deb"
	echo "$top/linux-source.tar.xz"
}
if [ -f "$top/ready" ]; then
	fetch_source
	exit 0
fi

headers=$(nvm_apt_deps linux-headers-amd64 '^linux-headers-.*-amd64$' | head -n 1)
[ -n "$headers" ] || nvm_die "no linux-headers-amd64 in $suites"
rel=${headers#linux-headers-}
pkgs="$headers $(nvm_apt_deps "$headers" '^linux-(headers|kbuild)-')"
# The image: up to 6.12 one package; later linux-image-* depends on the
# packages holding the kernel (linux-binary-*) and modules.builtin
# (linux-base-*); the modules themselves are not needed.
image=linux-image-$rel
extra=$(nvm_apt_deps "$image" "^linux-(binary|base)-$(echo "$rel" | sed 's/[.+]/\\&/g')\$")
pkgs="$pkgs ${extra:-$image}"
say "$rel: downloading $(echo $pkgs)"
mkdir -p "$debdir"
for p in $pkgs; do
	download "$p"
done

rm -rf "$tree"
mkdir -p "$tree"
for p in $pkgs; do
	dpkg-deb -x "$(ls "$debdir/${p}_"*.deb | head -n 1)" "$tree"
done
kdir=$tree/usr/src/linux-headers-$rel
[ -f "$kdir/Makefile" ] || nvm_die "$headers holds no Makefile"
nvm_unpacked_headers "$kdir"
echo "$rel" > "$top/release"
image=$(nvm_kernel_image "$kind")
[ -f "$image" ] || nvm_die "no kernel image in the packages of $rel"
say "unpacked $rel into ${tree#"$NVM_ROOT"/}"

# The build root: the release's compiler (the one the headers' Makefile
# names), make, the libraries of the kbuild programs, sparse and dkms.
rootrel=$(nvm_kind_root_release "$kind")
if [ -n "$rootrel" ]; then
	root=$(nvm_build_root "$kind")
	cc=$(sed -n 's/^CC = .*\(gcc-[0-9]*\)$/\1/p' "$kdir/.kernelvariables" 2>/dev/null | head -n 1)
	[ -n "$cc" ] || nvm_die "cannot tell the compiler of $rel"
	kbuild=$(nvm_apt_deps "$headers" '^linux-kbuild-' | head -n 1)
	libs=$(nvm_apt_deps "$kbuild" . | tr '\n' ',')
	include="$cc,make,libc6-dev,${libs}sparse,kmod,dkms"
	if [ ! -x "$root/usr/bin/$cc" ]; then
		rm -rf "$root" "$root.tmp"
		say "mmdebstrap $rootrel into ${root#"$NVM_ROOT"/} with $include (1-5 min)"
		nvm_mmdebstrap "$rootrel" "$root.tmp" "$include" "$top/debootstrap.log" &
		pid=$!
		# A line a minute: what mmdebstrap is doing.
		while kill -0 $pid 2>/dev/null; do
			for _ in $(seq 60); do
				kill -0 $pid 2>/dev/null || break 2
				sleep 1
			done
			say "mmdebstrap: $(tail -n 1 "$top/debootstrap.log")"
		done
		wait $pid || { tail -n 5 "$top/debootstrap.log"
			nvm_die "mmdebstrap failed (see ${top#"$NVM_ROOT"/}/debootstrap.log)"; }
		mv "$root.tmp" "$root"
	fi
	nvm_in_root "$root" "$cc" --version | head -n 1 | sed "s/^/fetch-kernel $kind: build root: /"
fi

touch "$top/ready"
say "$rel ready"
[ -z "$want_source" ] || fetch_source
