#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The QEMU the guests boot in:
#
#   tests/qemu/fetch-qemu.sh
#
# Debian 12's QEMU is 7.2, whose multi-threaded TCG can run a stale
# translation of kernel text that another vCPU is live-patching: the guest
# then dies at boot with "Oops: int3" in a function whose static key was just
# flipped (seen with sid's 7.2 kernel, in hrtick -> sched_clock_cpu).  That is
# a race of QEMU's, fixed in later releases, and no fault of the code under
# test.  So the guests run bookworm-backports' QEMU: its qemu-system-x86,
# qemu-system-common, qemu-system-data and seabios packages are downloaded
# with a private apt configuration (build/qemu/apt; the machine's own sources
# and state are never read or changed) and unpacked with dpkg-deb into
# build/qemu/root; nothing is installed.  The libraries it links come from
# Debian 12 (.ci/deps.sh installs qemu-system-x86, which needs the same).
# Cached: fetched once (remove build/qemu for the archive's newest).
#
# Output: the path of qemu-system-x86_64 on the last line; the firmware
# directories for -L are beside it (run-guest.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

top=$NVM_BUILD/qemu
suite=bookworm-backports
pkgs=(qemu-system-x86 qemu-system-common qemu-system-data seabios)
bin=$top/root/usr/bin/qemu-system-x86_64
say() { echo "fetch-qemu: $*" >&2; }

mkdir -p "$top"
exec 8> "$top/.lock"
flock 8
if [ -f "$top/ready" ]; then
	echo "$bin"
	exit 0
fi

say "apt-get update ($suite)"
nvm_private_apt "$top/apt" "$suite" || nvm_die "cannot read the archive's $suite;" \
	"set NVM_QEMU=qemu-system-x86_64 to boot the guests in the machine's own QEMU"
rm -rf "$top/deb" "$top/root"
mkdir -p "$top/deb" "$top/root"
say "downloading ${pkgs[*]} ($suite)"
(cd "$top/deb" && apt-get "${nvm_aptopts[@]}" -q download "${pkgs[@]}" >> "$top/apt/apt.log" 2>&1) ||
	nvm_die "cannot download ${pkgs[*]} (see build/qemu/apt/apt.log)"
for deb in "$top"/deb/*.deb; do
	dpkg-deb -x "$deb" "$top/root"
done
missing=$(ldd "$bin" | awk '/not found/ { print $1 }' | tr '\n' ' ')
[ -z "$missing" ] || nvm_die "$bin needs libraries this machine lacks: $missing;" \
	"install them (or set NVM_QEMU=qemu-system-x86_64 to use the machine's own QEMU)"
"$bin" --version | head -n 1 > "$top/version" || nvm_die "$bin does not run"
say "$(cat "$top/version")"
rm -rf "$top/deb"
touch "$top/ready"
echo "$bin"
