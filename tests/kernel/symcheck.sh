#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does a built nvmediate.ko import a symbol that only Debian's kernels
# export (debian-exports.sh: their own patches' exports, which upstream,
# RHEL, Amazon Linux and COS kernels lack)?
#
#   tests/kernel/symcheck.sh [KO]       KO: nvmediate.ko by default
#
# Prints "ok: N imported symbols, none only Debian's" or names them and
# exits 1.
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
ko=${1:-$NVM_ROOT/nvmediate.ko}
[ -f "$ko" ] || { echo "not ok: no $ko"; exit 1; }
debian_only=$("$(dirname "$0")/debian-exports.sh" bullseye bookworm bookworm-backports) ||
	{ echo "not ok: cannot read Debian's own exports"; exit 1; }
bad=$(nm -u "$ko" | awk '{ print $2 }' | grep -xF "$debian_only" | xargs echo)
if [ -n "$bad" ]; then
	echo "not ok: ${ko##*/} imports what only Debian's kernels export: $bad"
	exit 1
fi
echo "ok: $(nm -u "$ko" | wc -l) imported symbols, none only Debian's"
