#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Do kmod/conftest.sh's probes choose, on each kernel tree, what that tree
# has?  For every KDIR given, after nvmediate was built against it (its
# probes' answers are then in .nvmconf/), each answer is compared with the
# releases that conftest.sh --list says have the interface, corrected by the
# backports listed below, which were read in the trees themselves.  A probe
# that answers otherwise is a failure: either the probe is wrong or the tree
# holds a backport that is not listed yet (read the tree, then list it).
#
#   tests/kernel/probes.sh KDIR[@PROBE=ANSWER,...]...
#
# A tree made to flip probes (tests/kernel/overlay.sh) names the answers it
# must give after @; the others must answer as for its release.
# Prints one line per tree and, for a failure, the probe, its answer and
# the expected one.  The W=1 build against the tree (make check's kernel
# steps) proves the chosen branches compile.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

# Backports: "PROBE SERIES ANSWER", read in Debian's trees.
backports="
inode_set_ctime_current 5.10 1
inode_set_ctime_current 6.1 1
"

# vercmp A B: A < B for dotted versions (A and B: major.minor).
ver_lt() {
	[ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]
}

# expected SINCE SERIES: 1 if SERIES is in the range SINCE (A, ..B, A..B).
expected() {
	local lo=${1%%..*} hi=
	case $1 in *..*) hi=${1#*..} ;; esac
	if [ -n "$lo" ] && ver_lt "$2" "$lo"; then echo 0; return; fi
	if [ -n "$hi" ] && ! ver_lt "$2" "$hi"; then echo 0; return; fi
	echo 1
}

list=$(sh kmod/conftest.sh --list) || exit 1
rc=0
for arg in "$@"; do
	kdir=${arg%%@*}
	flips=
	[ "$kdir" = "$arg" ] || flips=$(echo "${arg#*@}" | tr ',' ' ')
	rel=$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h" 2>/dev/null)
	if [ -z "$rel" ]; then
		echo "not ok: $kdir: no kernel release"
		rc=1
		continue
	fi
	series=$(echo "$rel" | cut -d. -f1,2)
	# As Kbuild names it: the release and the tree's path.
	conf=.nvmconf/$rel-$(echo "$(realpath "$kdir")" | cksum | cut -d' ' -f1)/nvm_conf.h
	if [ ! -f "$conf" ]; then
		echo "not ok: $rel: no $conf (build nvmediate against $kdir first)"
		rc=1
		continue
	fi
	bad=
	n=0
	while IFS=$'\t' read -r name since; do
		want=$(expected "$since" "$series")
		bp=$(echo "$backports" | awk -v p="$name" -v s="$series" '$1 == p && $2 == s { print $3 }')
		[ -z "$bp" ] || want=$bp
		for f in $flips; do
			[ "${f%%=*}" != "$name" ] || want=${f#*=}
		done
		got=$(sed -n "s/^#define NVM_HAVE_$(echo "$name" | tr a-z A-Z) //p" "$conf")
		n=$((n + 1))
		[ "$got" = "$want" ] || bad="$bad $name=${got:-missing}(want $want)"
	done <<< "$list"
	if [ -n "$bad" ]; then
		echo "not ok: $rel: $n probes,$bad"
		rc=1
	else
		echo "ok: $rel${flips:+ (flipped: $(echo $flips | wc -w))}: $n probes as expected ($(grep -c ' 1$' "$conf") interfaces present)"
	fi
done
exit $rc
