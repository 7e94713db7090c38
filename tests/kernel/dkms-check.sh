#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS add, build, install and remove against one kernel's headers:
#
#   tests/kernel/dkms-check.sh KVER KDIR
#
# In private DKMS trees under /tmp: nothing of the machine's own DKMS state
# is touched, and removing the folder removes every trace.  Checks the
# module's version (VERSION) and vermagic (KVER).  Run from the top of the
# tree, by tests/check.sh, on the machine or in a kernel's build root.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KVER KDIR" >&2; exit 2; }
kver=$1
kdir=$2
cd "$(dirname "$0")/../.." || exit 1
[ -f dkms.conf ] || { echo "no dkms.conf at the top of the tree"; exit 1; }
rc=0
tmp=$(mktemp -d /tmp/nvm-dkms.XXXXXX)
# Private DKMS trees: nothing of the machine's own DKMS state is touched,
# and removing $tmp removes every trace.
opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms" --installtree "$tmp/lib/modules")
# DKMS signs with /var/lib/dkms/mok.key, creating it if absent: a key of its
# own here, so the machine is left as it was found.
mok_signing_key=$tmp/mok.key
mok_certificate=$tmp/mok.pub
export mok_signing_key mok_certificate
# DKMS 2.x (Debian 11's) prepares the kernel tree it is given with
# --kernelsourcedir (make oldconfig, make prepare-all), which fails on a
# headers package and is not wanted on a prepared one; 3.x dropped both
# the preparation and the flags that turn it off.
build_opts=(--kernelsourcedir "$kdir")
case "$(dkms --version 2>/dev/null)" in
*dkms[-:]2.*) build_opts+=(--no-prepare-kernel --no-clean-kernel) ;;
esac
before=$(ls -A /var/lib/dkms 2>/dev/null)
mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/lib/modules/$kver"
# The files tools/dkms-install.sh puts in /usr/src: keep the two lists equal.
mkdir -p "$tmp/tree"
cp -r Kbuild Makefile VERSION dkms.conf kmod uapi abi "$tmp/tree/"
read -r name pver < <(cd "$tmp/tree" && . ./dkms.conf && echo "$PACKAGE_NAME $PACKAGE_VERSION")
ver=$(cat VERSION)
{
	[ "$pver" = "$ver" ] && echo "dkms.conf PACKAGE_VERSION $pver = VERSION" &&
	echo "== dkms add/build/install $name/$pver for $kver"
	dkms add "${opts[@]}" "$tmp/tree" &&
	dkms build "${opts[@]}" -m "$name" -v "$pver" -k "$kver" "${build_opts[@]}" &&
	ko=$(find "$tmp/dkms/$name/$pver/$kver" -name 'nvmediate.ko*' | head -n 1) &&
	[ -n "$ko" ] && echo "built $ko" &&
	[ "$(modinfo -F version "$ko")" = "$ver" ] && echo "modinfo version $ver" &&
	modinfo -F vermagic "$ko" | grep -q "^$kver " && echo "vermagic $kver" &&
	dkms install "${opts[@]}" -m "$name" -v "$pver" -k "$kver" "${build_opts[@]}" --no-depmod &&
	installed=$(find "$tmp/lib/modules/$kver" -name 'nvmediate.ko*' | head -n 1) &&
	[ -n "$installed" ] && echo "installed $installed" &&
	depmod -b "$tmp" "$kver" &&
	modprobe -d "$tmp" -S "$kver" --show-depends nvmediate &&
	dkms remove "${opts[@]}" -m "$name" -v "$pver" --all --no-depmod &&
	! find "$tmp/lib/modules" -name 'nvmediate.ko*' | grep -q . &&
	[ -z "$(dkms status "${opts[@]}")" ] && echo "removed" &&
	[ "$(ls -A /var/lib/dkms 2>/dev/null)" = "$before" ] && echo "/var/lib/dkms unchanged"
} || rc=1
if [ $rc -ne 0 ]; then
	echo "version file: $ver, dkms.conf: $name $pver"
	log=$tmp/dkms/$name/$pver/build/make.log
	[ ! -f "$log" ] || { echo "-- tail of DKMS's make.log"; tail -n 30 "$log"; }
fi
rm -rf "$tmp"
exit $rc
