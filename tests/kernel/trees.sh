#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# nvmediate against the kernel trees that no guest boots, and what every
# tree's build says about the kernels GPU hosts run (docs/testing.md,
# "Kernels"):
#   - W=1 and sparse against the debug kernel (built
#     without Debian's own exports), Debian 11's early 5.10.0-30, trixie-
#     backports' 7.3, and the RHEL 9- and 5.15.y-like overlays
#     (overlay.sh);
#   - probes.sh on those and on the booted kinds' trees (built before by
#     make check's kernel steps);
#   - no imported symbol that only Debian's patches export
#     (debian-exports.sh), in every nvmediate.ko built;
#   - dkms.conf's BUILD_EXCLUSIVE_KERNEL admits the kernels of every family
#     from 5.10 on and nothing older.
# One "ok:"/"not ok:" line per check; exit status non-zero iff one failed.
# Builds in the tree itself: not beside another in-tree build.
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$NVM_ROOT" || exit 1
jobs=$(nproc)
rc=0
say() { echo "$@"; }
fail() { echo "not ok: $*"; rc=1; }

# symcheck NAME: nvmediate.ko, just built, imports nothing only Debian exports.
symcheck() {
	local out
	out=$(tests/kernel/symcheck.sh) && say "${out/ok:/ok: $1:}" || fail "$1: ${out#not ok: }"
}

# build NAME ROOT KDIR [SPARSE] [MAKEARGS...]: W=1 (and sparse) in ROOT's
# build root (a kind's, or "" for this machine).
build() {
	local name=$1 root=$2 kdir=$3 sparse=$4 run=()
	shift 4
	[ -z "$root" ] || run=(nvm_in_root "$(nvm_build_root "$root")")
	if ! "${run[@]}" make -j"$jobs" w1 KDIR="$kdir" "$@" > "$NVM_BUILD/trees-$name.log" 2>&1; then
		fail "$name: W=1 build (build/trees-$name.log):"
		tail -n 15 "$NVM_BUILD/trees-$name.log" | sed 's/^/      /'
		return 1
	fi
	symcheck "$name"
	if [ -n "$sparse" ] && ! "${run[@]}" make -j"$jobs" sparse KDIR="$kdir" "$@" \
			> "$NVM_BUILD/trees-$name-sparse.log" 2>&1; then
		fail "$name: sparse (build/trees-$name-sparse.log):"
		tail -n 15 "$NVM_BUILD/trees-$name-sparse.log" | sed 's/^/      /'
		return 1
	fi
	say "ok: $name: W=1${sparse:+ and sparse} clean"
}

probe_args=()
# The booted kinds: built, and their imports checked, by make check's
# kernel steps.
for kind in stock stock-5.10 stock-6.12 stock-sid; do
	kd=$(nvm_kdir "$kind") && [ -d "$kd" ] || { fail "$kind: no headers"; continue; }
	probe_args+=("$kd")
done
build debug "" "$NVM_BUILD/linux-debug" sparse && probe_args+=("$NVM_BUILD/linux-debug")
if kd=$(tests/kernel/fetch-headers.sh 5.10.0-30 | tail -n 1); then
	build 5.10.0-30 stock-5.10 "$kd" sparse && probe_args+=("$kd")
else
	fail "5.10.0-30: cannot fetch the headers"
fi
# 7.3 was built with gcc-14; sid's build root has a newer one.
if kd=$(tests/kernel/fetch-headers.sh 7.3 | tail -n 1); then
	cc=$(ls "$(nvm_build_root stock-sid)"/usr/bin/ | grep -E '^gcc-[0-9]+$' | sort -V | tail -n 1)
	build 7.3 stock-sid "$kd" sparse CC="$cc" && probe_args+=("$kd")
else
	fail "7.3: cannot fetch the headers"
fi
for o in rhel9 5.15y; do
	if kd=$(tests/kernel/overlay.sh "$o" | tail -n 1); then
		build "overlay-$o" stock-5.10 "$kd" sparse &&
			probe_args+=("$kd@$(tests/kernel/overlay.sh --flips "$o" | tr ' ' ,)")
	else
		fail "overlay-$o: cannot make it"
	fi
done
tests/kernel/probes.sh "${probe_args[@]}" || rc=1

# dkms.conf: every family's kernels from 5.10 on, nothing older.
excl=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' dkms.conf)
bad=
for k in 5.10.0-30-amd64 5.14.0-570.12.1.el9_6.x86_64 5.15.0-113-generic 6.1.0-57-amd64 \
	6.1.134-152.225.amzn2023.x86_64 6.8.0-45-generic 6.6.56+ 6.12.95+deb12-amd64 7.3.4+deb13-amd64 \
	10.0.1; do
	echo "$k" | grep -qE "$excl" || bad="$bad admits-not:$k"
done
for k in 5.4.0-200-generic 4.18.0-553.el8_10.x86_64 5.9.16 3.10.0-1160.el7.x86_64; do
	! echo "$k" | grep -qE "$excl" || bad="$bad admits:$k"
done
[ -z "$bad" ] && say "ok: dkms.conf admits 5.10 and later, nothing older" ||
	fail "dkms.conf BUILD_EXCLUSIVE_KERNEL=$excl:$bad"
cmp -s <(grep -v '^#' dkms.conf) <(grep -v '^#' debian/nvmediate-dkms.dkms) ||
	fail "dkms.conf and debian/nvmediate-dkms.dkms differ"
exit $rc
