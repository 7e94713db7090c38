#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A clean Debian 12 chroot for the package test (tests/deb/run.sh), with
# what a user's machine has before installing nvmediate-dkms: dkms,
# build-essential and the headers linux-headers-amd64 depends on.  Made once
# with mmdebstrap (nvm_mmdebstrap, tests/qemu/lib.sh) into DIR/bookworm.tar
# (cached); nothing is installed on this machine.
#
#   tests/deb/chroot.sh DIR
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
out=$(realpath -m "${1:?usage: chroot.sh DIR}")
tar=$out/bookworm.tar
[ -f "$tar" ] && exit 0
mkdir -p "$out"
# One at a time (make check starts one early, in the background).
exec 8> "$out/.lock"
flock 8
[ -f "$tar" ] && exit 0
work=$out/bookworm.tmp
rm -rf "$work"
nvm_mmdebstrap bookworm "$work" \
	dkms,build-essential,linux-headers-amd64,kmod,systemd-standalone-sysusers "$out/debootstrap.log" ||
	{ tail -n 20 "$out/debootstrap.log" >&2; exit 1; }
rm -rf "$work/var/cache/apt/archives"/*.deb
tar -C "$work" -cf "$tar.tmp" .
mv "$tar.tmp" "$tar"
rm -rf "$work"
echo "chroot.sh: $tar ($(du -sh "$tar" | cut -f1))"
