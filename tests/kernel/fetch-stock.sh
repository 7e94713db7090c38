#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's stock kernel image matching the installed linux-headers-amd64
# and unpack it into build/stock/kernel/ (boot/vmlinuz-<ver>, lib/modules/<ver>).
# Nothing is installed into /boot.  Skips the work when already unpacked.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

ver=$(nvm_stock_release) || nvm_die "no /usr/src/linux-headers-*-amd64: install linux-headers-amd64"
pkg=linux-image-$ver
dest=$NVM_BUILD/stock/kernel
image=$(nvm_kernel_image stock)

if [ -f "$image" ]; then
	echo "fetch-stock: $image is up to date"
	exit 0
fi

debdir=$NVM_BUILD/stock/deb
mkdir -p "$debdir"
deb=$(ls "$debdir"/"${pkg}"_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
	if ! apt-cache show "$pkg" >/dev/null 2>&1; then
		echo "fetch-stock: $pkg unknown to apt, running apt-get update"
		apt-get update -q >/dev/null
	fi
	# Download into a scratch folder: apt's _apt user must be able to write it.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	chmod 0777 "$tmp"
	(cd "$tmp" && apt-get download -q "$pkg" >/dev/null)
	mv "$tmp"/"${pkg}"_*.deb "$debdir"/
	deb=$(ls "$debdir"/"${pkg}"_*.deb | head -n 1)
fi

rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$deb" "$dest"
[ -f "$image" ] || nvm_die "$deb holds no boot/vmlinuz-$ver"
echo "fetch-stock: unpacked $(basename "$deb") into ${dest#"$NVM_ROOT"/}"
