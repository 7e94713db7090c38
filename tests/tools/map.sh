#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# map.sh ROOT: docs/design.md's table of the module's parts ("## 8. The
# parts of the module") is the tree's:
#   1. every kmod/*.c and *.h is named in the table, as X.c, or as X.h for a
#      part that has no X.c (trace.h is stats.c's; the .h of a named X.c
#      needs no row), and every file the table names exists;
#   2. every file's first comment starts " * nvmediate: " (its one job);
#   3. a part includes only parts named on an earlier row (or its own).
# Prints what is wrong and exits 1; exits 0 when the table holds.
set -u
root=$(cd "${1:?usage: map.sh ROOT}" && pwd) || exit 2
doc=$root/docs/design.md
cd "$root/kmod" || exit 2
bad=0

# "part row" lines: the table's rows, numbered, each file named on them.
rows=$(awk '
	/^## 8\. The parts of the module/ { on = 1; next }
	on && /^## / { on = 0 }
	on && /^\| `/ {
		n++
		split($0, cell, "|")
		s = cell[2]
		while (match(s, /`[a-z0-9_]+\.[ch]`/)) {
			print substr(s, RSTART + 1, RLENGTH - 2), n
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$doc")
if [ -z "$rows" ]; then
	echo "$doc: no table under '## 8. The parts of the module'"
	exit 1
fi

# The part a file belongs to: X.c for X.c and X.h, stats.c for trace.h;
# X.h for a header without a .c.
part() {
	case $1 in
	trace.h) echo stats.c ;;
	*.h) if [ -e "${1%.h}.c" ]; then echo "${1%.h}.c"; else echo "$1"; fi ;;
	*) echo "$1" ;;
	esac
}

row() {
	echo "$rows" | awk -v f="$1" '$1 == f { print $2; exit }'
}

for f in *.c *.h; do
	p=$(part "$f")
	[ -n "$(row "$p")" ] || { echo "kmod/$f: its part $p is not in $doc's table"; bad=1; }
	# The first comment (after the SPDX line) names its job.
	if ! sed -n 2,3p "$f" | grep -q '^ \* nvmediate: '; then
		echo "kmod/$f: its first comment does not start ' * nvmediate: ' (its job)"
		bad=1
	fi
done
echo "$rows" | while read -r f _; do
	[ -e "$f" ] || { echo "$doc: names kmod/$f, which does not exist"; exit 1; }
done || bad=1

for f in *.c *.h; do
	[ "$f" = compat.h ] && continue
	p=$(part "$f")
	r=$(row "$p")
	[ -n "$r" ] || continue
	for inc in $(sed -n 's/^#include "\([a-z0-9_]*\.h\)"$/\1/p' "$f"); do
		[ -e "$inc" ] || continue
		q=$(part "$inc")
		[ "$q" = "$p" ] && continue
		s=$(row "$q")
		if [ -n "$s" ] && [ "$s" -gt "$r" ]; then
			echo "kmod/$f includes $inc: part $q is on a later row ($s) of $doc's table than $p ($r)"
			bad=1
		fi
	done
done
exit $bad
