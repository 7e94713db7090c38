#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Container runtimes for the guest (tests/guest/90-podman.sh): podman, conmon,
# runc, crun, newuidmap/newgidmap and every library they load, taken from
# Debian 12's packages (apt-get download; nothing is installed on this
# machine) into DIR/root, a tree mkinitramfs.sh copies into the initramfs.
# Cached: built once per DIR.
#
#   tests/qemu/podman.sh DIR
set -euo pipefail

out=$(realpath -m "${1:?usage: podman.sh DIR}")
root=$out/root
[ -f "$root/.complete" ] && exit 0

pkgs="podman conmon runc crun uidmap libsubid4 libgpgme11 libassuan0 libyajl2 libdevmapper1.02.1
libseccomp2 libselinux1 libudev1 libsystemd0 libcap2 libglib2.0-0 libpcre2-8-0 libaudit1 libcap-ng0
libgcrypt20 liblzma5 libzstd1 liblz4-1 libgpg-error0"
mkdir -p "$out/debs"
# shellcheck disable=SC2086
(cd "$out/debs" && apt-get download -q $pkgs >/dev/null 2>&1) ||
	(cd "$out/debs" && apt-get download $pkgs)
rm -rf "$out/x" "$root"
mkdir -p "$out/x" "$root/lib/x86_64-linux-gnu" "$root/lib64"
for d in "$out"/debs/*.deb; do
	dpkg-deb -x "$d" "$out/x"
done

bins="usr/bin/podman usr/bin/conmon usr/sbin/runc usr/bin/crun usr/bin/newuidmap usr/bin/newgidmap"
libpath=$out/x/lib/x86_64-linux-gnu:$out/x/usr/lib/x86_64-linux-gnu
for b in $bins; do
	install -D -m 0755 "$out/x/$b" "$root/$b"
	# the libraries from the packages above, the C library from this machine's
	LD_LIBRARY_PATH=$libpath ldd "$out/x/$b" | awk '/=> \// { print $3 } /^\t\/lib64/ { print $1 }' |
	while read -r lib; do
		case $lib in
		*/ld-linux-x86-64.so.2) cp -L "$lib" "$root/lib64/ld-linux-x86-64.so.2" ;;
		*) cp -L "$lib" "$root/lib/x86_64-linux-gnu/" ;;
		esac
	done
	if LD_LIBRARY_PATH=$libpath ldd "$out/x/$b" | grep -q 'not found'; then
		echo "podman.sh: $b: a library is missing: $(LD_LIBRARY_PATH=$libpath ldd "$out/x/$b" | grep 'not found')" >&2
		exit 1
	fi
done
chmod 4755 "$root/usr/bin/newuidmap" "$root/usr/bin/newgidmap"
touch "$root/.complete"
echo "podman.sh: ${root} ($(du -sh "$root" | cut -f1))"
