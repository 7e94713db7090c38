#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages, as users install DKMS modules: build nvmediate-dkms
# and nvproxyctl from debian/ (dpkg-buildpackage), install both in a clean
# Debian 12 chroot (tests/deb/chroot.sh, cached in build/deb), where DKMS
# builds the module for the chroot's kernel headers; check what is there,
# purge both and check that nothing is left.  Needs root (chroot) and
# debhelper, dh-dkms, mmdebstrap (.ci/deps.sh).  Last line:
# "N passed, N failed".
set -u
. "$(dirname "$0")/../qemu/lib.sh"
cd "$NVM_ROOT" || exit 1
out=$NVM_BUILD/deb
root=$out/root
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
nok() { fail=$((fail + 1)); echo "not ok - $1"; [ -z "${2:-}" ] || tail -n 15 "$2" | sed 's/^/#   /'; }
check() { local d=$1; shift; if "$@" > "$out/check.log" 2>&1; then ok "$d"; else nok "$d" "$out/check.log"; fi; }
finish() {
	mountpoint -q "$root/proc" && umount "$root/proc"
	rm -rf "$root"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
mkdir -p "$out"
ver=$(cat VERSION)

# One version everywhere: VERSION, dkms.conf, debian/changelog.
check "debian/changelog's version is VERSION ($ver)" \
	test "$(dpkg-parsechangelog -S Version 2> /dev/null)" = "$ver"
check "dkms.conf's PACKAGE_VERSION is VERSION" grep -qx "PACKAGE_VERSION=\"$ver\"" dkms.conf

# Build from a copy of the tree (what git tracks and what is new), not in it.
rm -rf "$out/src" "$out"/*.deb
mkdir -p "$out/src"
git ls-files -z -co --exclude-standard | rsync -a --from0 --files-from=- ./ "$out/src/"
if (cd "$out/src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 &&
   [ -f "$out/nvmediate-dkms_${ver}_all.deb" ] && [ -f "$out/nvproxyctl_${ver}_amd64.deb" ]; then
	ok "dpkg-buildpackage builds nvmediate-dkms and nvproxyctl"
else
	nok "dpkg-buildpackage builds nvmediate-dkms and nvproxyctl" "$out/build.log"
	finish
fi
check "nvmediate-dkms holds the module's sources for DKMS" \
	sh -c "dpkg-deb -c '$out/nvmediate-dkms_${ver}_all.deb' | grep -q './usr/src/nvmediate-$ver/dkms.conf'"

# A clean chroot, extracted afresh from the cached one.
if ! tests/deb/chroot.sh "$out" > "$out/chroot.log" 2>&1; then
	nok "a Debian 12 chroot (mmdebstrap)" "$out/chroot.log"
	finish
fi
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$out/bookworm.tar"
mount -t proc proc "$root/proc"
kver=$(ls "$root/lib/modules" | head -n 1)
cp "$out/nvmediate-dkms_${ver}_all.deb" "$out/nvproxyctl_${ver}_amd64.deb" "$root/tmp/"
if chroot "$root" dpkg -i "/tmp/nvmediate-dkms_${ver}_all.deb" "/tmp/nvproxyctl_${ver}_amd64.deb" \
	> "$out/install.log" 2>&1; then
	ok "dpkg -i both packages in the chroot"
else
	nok "dpkg -i both packages in the chroot" "$out/install.log"
fi
ko=$root/lib/modules/$kver/updates/dkms/nvmediate.ko
check "DKMS built and installed nvmediate.ko for the chroot's $kver" test -f "$ko"
check "... at version $ver" test "$(modinfo -F version "$ko" 2> /dev/null)" = "$ver"
check "... built for $kver" sh -c "modinfo -F vermagic '$ko' | grep -q '^$kver '"
check "dkms status: installed" sh -c "chroot '$root' dkms status | grep -q 'nvmediate/$ver, $kver, x86_64: installed'"
check "modprobe finds it (depmod ran)" chroot "$root" modprobe -S "$kver" --show-depends nvmediate
check "nvproxyctl --version" sh -c "chroot '$root' nvproxyctl --version | grep -qx 'nvproxyctl $ver'"
check "nvproxyctl finds its ABI data" \
	sh -c "chroot '$root' nvproxyctl explain 0x2a --version 595.45.04 --family escape | grep -q 'NV_ESC_RM_CONTROL'"
for f in usr/lib/modules-load.d/nvmediate.conf etc/modprobe.d/nvmediate.conf \
	 lib/systemd/system/nvmediate-cdi.service usr/lib/udev/rules.d/71-nvmediate-cdi.rules \
	 usr/share/man/man8/nvproxyctl.8.gz; do
	check "installed /$f" test -f "$root/$f"
done
check "the unit runs /usr/bin/nvproxyctl cdi" \
	grep -q '^ExecStart=/usr/bin/nvproxyctl cdi ' "$root/lib/systemd/system/nvmediate-cdi.service"

if chroot "$root" dpkg --purge nvproxyctl nvmediate-dkms > "$out/purge.log" 2>&1; then
	ok "dpkg --purge both"
else
	nok "dpkg --purge both" "$out/purge.log"
fi
check "the module is gone" test ! -e "$ko"
check "DKMS holds nothing of it" sh -c "[ -z \"\$(chroot '$root' dkms status)\" ] && [ ! -e '$root/var/lib/dkms/nvmediate' ]"
check "its sources are gone" test ! -e "$root/usr/src/nvmediate-$ver"
check "nvproxyctl and its data are gone" sh -c "[ ! -e '$root/usr/bin/nvproxyctl' ] && [ ! -e '$root/usr/share/nvmediate' ]"
check "modprobe.d and modules-load.d files are gone" \
	sh -c "[ ! -e '$root/etc/modprobe.d/nvmediate.conf' ] && [ ! -e '$root/usr/lib/modules-load.d/nvmediate.conf' ]"
finish
