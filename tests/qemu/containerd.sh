#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# containerd for the stock guest (tests/guest/91-containerd.sh): containerd,
# ctr and containerd-shim-runc-v2 from Debian unstable's package, the first
# release whose ctr hands CDI device names to the CDI library (containerd
# 2.x; Debian 12's 1.6 knows no CDI at all, Debian 13's 1.7 only in its CRI
# plugin).  The package is fetched through a private apt configuration
# (nothing is installed on this machine) into DIR/root, a tree mkinitramfs.sh
# copies into the stock guest's initramfs.  Its programs are static but for
# the C library, which the guest has.  Cached: built once per DIR.
#
#   tests/qemu/containerd.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(realpath -m "${1:?usage: containerd.sh DIR}")
root=$out/root
[ -f "$root/.complete" ] && exit 0

nvm_private_apt "$out/apt" sid || nvm_die "cannot read the archive's sid"
rm -rf "$out/debs" "$out/x" "$root"
mkdir -p "$out/debs" "$out/x"
(cd "$out/debs" && apt-get "${nvm_aptopts[@]}" -q download containerd > "$out/download.log" 2>&1) || {
	tail -n 5 "$out/download.log" >&2
	nvm_die "cannot download sid's containerd"
}
dpkg-deb -x "$out"/debs/containerd_*.deb "$out/x"
for b in containerd ctr containerd-shim-runc-v2; do
	f=$out/x/usr/bin/$b
	others=$(ldd "$f" 2>&1 | grep -v -E 'linux-vdso|libc\.so\.6|ld-linux-x86-64' || true)
	[ -z "$others" ] || nvm_die "$b needs more than the C library: $others"
	install -D -m 0755 "$f" "$root/usr/bin/$b"
done
mkdir -p "$root/usr/share/containerd"
dpkg-deb -f "$out"/debs/containerd_*.deb Version > "$root/usr/share/containerd/version"
touch "$root/.complete"
echo "containerd.sh: $root ($(du -sh "$root" | cut -f1), containerd $(cat "$root/usr/share/containerd/version"))"
