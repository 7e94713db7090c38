#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# layers.sh KMOD_DIR: the parts of the module depend on each other one way.
#
# A part is a pair X.c and X.h (trace.h belongs to stats; nvm.h holds the
# types every part shares; compat.h is included everywhere by Kbuild).
#   1. Every function or variable X.c exports is declared in X.h and in no
#      other header; since the kernel builds with implicit declarations as
#      errors, a part that calls into X, or reads its variables, must
#      include X.h.
#   2. The graph of includes between parts has no cycle, and so neither
#      has the graph of calls.
# Prints what is wrong and exits 1; prints the parts bottom-up and exits 0.
set -u
dir=${1:?usage: layers.sh KMOD_DIR}
cd "$dir" || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
bad=0

part() {
	case $1 in
	trace.h) echo stats ;;
	*) echo "${1%.*}" ;;
	esac
}

# 1. Exported symbols, each declared in its own part's header only.
for c in *.c; do
	x=${c%.c}
	# Definitions at file scope that are not static: "type name(" or
	# "type name =" / "type name;" at column 0.
	sed -n -E '/^(static|#|\/|\*| |	|\}|\{)/d
		s/^[A-Za-z_][A-Za-z0-9_ ]*[ *](nvm_[a-z0-9_]+)[[:space:]]*(\(|=|;|\[).*/\1/p' "$c" |
		sort -u >"$T/syms"
	while read -r s; do
		decl=$(grep -l -E "(^|[^a-z0-9_])$s([^a-z0-9_]|$)" *.h 2>/dev/null |
		       grep -v -x -e compat.h -e trace.h | tr '\n' ' ')
		case " $decl" in
		" $x.h ") ;;
		" ")
			echo "$c: $s is exported but declared in no header"
			bad=1 ;;
		*)
			echo "$c: $s is declared in: $decl(only $x.h may declare it)"
			bad=1 ;;
		esac
	done <"$T/syms"
done

# 2. The include graph between parts.
: >"$T/edges"
for f in *.c *.h; do
	[ "$f" = compat.h ] && continue
	from=$(part "$f")
	sed -n -E 's/^#include "([a-z0-9_]+\.h)".*/\1/p' "$f" | while read -r h; do
		[ -f "$h" ] && [ "$h" != compat.h ] || continue
		to=$(part "$h")
		[ "$from" = "$to" ] || echo "$from $to"
	done >>"$T/edges"
done
sort -u "$T/edges" -o "$T/edges"
if ! tsort "$T/edges" >"$T/order" 2>"$T/loop"; then
	echo "the parts include each other in a cycle:"
	sed -n 's/^tsort: //p' "$T/loop" | grep -v 'input contains a loop' | tr '\n' ' '
	echo
	bad=1
fi
[ "$bad" = 0 ] || exit 1
# tsort prints a part before what it depends on: bottom-up is the reverse.
tac "$T/order" | tr '\n' ' '
echo
