#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Docker for the stock guest (tests/guest/91-containerd.sh): dockerd and the
# docker client from Debian unstable's docker.io and docker-cli (28.x, whose
# --device takes CDI device names), fetched through a private apt
# configuration (nothing is installed on this machine) into DIR/root, a tree
# mkinitramfs.sh copies into the stock guest's initramfs.  dockerd runs on
# the guest's containerd (containerd.sh) and runc (podman.sh); the
# libraries it loads besides the C library are podman's (libsystemd,
# libcap, libgcrypt, liblzma, libzstd, liblz4, libgpg-error), which the
# guest has.  Cached: built once per DIR.
#
#   tests/qemu/docker.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(realpath -m "${1:?usage: docker.sh DIR}")
root=$out/root
[ -f "$root/.complete" ] && exit 0

nvm_private_apt "$out/apt" sid || nvm_die "cannot read the archive's sid"
rm -rf "$out/debs" "$out/x" "$root"
mkdir -p "$out/debs" "$out/x"
(cd "$out/debs" && apt-get "${nvm_aptopts[@]}" -q download docker.io docker-cli > "$out/download.log" 2>&1) || {
	tail -n 5 "$out/download.log" >&2
	nvm_die "cannot download sid's docker.io and docker-cli"
}
for d in "$out"/debs/*.deb; do
	dpkg-deb -x "$d" "$out/x"
done
known='linux-vdso|libc\.so\.6|ld-linux-x86-64|libsystemd|libcap\.so|libgcrypt|liblzma|libzstd|liblz4|libgpg-error'
for b in usr/sbin/dockerd usr/bin/docker; do
	others=$(ldd "$out/x/$b" 2>&1 | grep -v -E "$known" || true)
	[ -z "$others" ] || nvm_die "$b needs more than the guest has: $others"
	install -D -m 0755 "$out/x/$b" "$root/$b"
done
mkdir -p "$root/usr/share/docker"
dpkg-deb -f "$out"/debs/docker.io_*.deb Version > "$root/usr/share/docker/version"
touch "$root/.complete"
echo "docker.sh: $root ($(du -sh "$root" | cut -f1), docker.io $(cat "$root/usr/share/docker/version"))"
