#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch a Debian kernel's headers that no guest boots, only for building
# nvmediate against them (tests/kernel/probes.sh):
#
#   tests/kernel/fetch-headers.sh NAME      NAME: 5.10.0-30 or 7.3
#
# 5.10.0-30: an early point release of Debian 11's kernel, still in the
# archive's pool, beside the newest that the stock-5.10 kind boots: helpers
# that a later stable release gained must not be needed.  7.3: the newest
# kernel of trixie-backports, newer than sid's when it was added.
# The headers, their common part and kbuild are downloaded with a private
# apt configuration (build/kernels/apt/hdr-NAME) and unpacked into
# build/kernels/hdr-NAME/tree; a build root of a booted kind serves them
# (tests/kernel/probes.sh).  Cached like fetch-kernel.sh.  The last line
# printed is the headers' directory.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -eq 1 ] || nvm_die "usage: $0 5.10.0-30|7.3"
name=$1
case $name in
5.10.0-30) suites="bullseye bullseye-security"; headers=linux-headers-5.10.0-30-amd64 ;;
7.3) suites=trixie-backports; headers= ;;
*) nvm_die "unknown headers $name: 5.10.0-30 or 7.3" ;;
esac
top=$NVM_KERNELS/hdr-$name
tree=$top/tree
mkdir -p "$top"
exec 8> "$top/.lock"
flock 8
if [ -f "$top/ready" ]; then
	echo "$tree/usr/src/linux-headers-$(cat "$top/release")"
	exit 0
fi

# shellcheck disable=SC2086
nvm_private_apt "$NVM_KERNELS/apt/hdr-$name" $suites || nvm_die "cannot read the archive's $suites"
[ -n "$headers" ] || headers=$(nvm_apt_deps linux-headers-amd64 '^linux-headers-.*-amd64$' | head -n 1)
[ -n "$(nvm_apt_show "$headers" Version)" ] || nvm_die "no $headers in $suites"
rel=${headers#linux-headers-}
pkgs="$headers $(nvm_apt_deps "$headers" '^linux-(headers|kbuild)-')"
rm -rf "$top/deb" "$tree"
mkdir -p "$top/deb" "$tree"
for p in $pkgs; do
	(cd "$top/deb" && apt-get "${nvm_aptopts[@]}" -q download "$p=$(nvm_apt_show "$p" Version)") \
		>> "$NVM_KERNELS/apt/hdr-$name/apt.log" 2>&1 || nvm_die "cannot download $p"
	dpkg-deb -x "$top/deb/${p}_"*.deb "$tree"
done
kdir=$tree/usr/src/linux-headers-$rel
[ -f "$kdir/Makefile" ] || nvm_die "$headers holds no Makefile"
nvm_unpacked_headers "$kdir"
rm -rf "$top/deb"
echo "$rel" > "$top/release"
touch "$top/ready"
echo "$kdir"
