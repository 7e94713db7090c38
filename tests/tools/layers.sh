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
#
# layers.sh --header H DIR: the same of a program whose files X.c share the
# one header DIR/H, in sections that each begin with a comment "---- X.c".
# A part is a file X.c.
#   1. Every function or variable X.c exports is declared in H, in X.c's
#      section and no other, and every function or variable that section
#      declares is X.c's.
#   2. The graph of uses between files (X.c names a function or variable
#      another file exports) has no cycle; the cycle found is printed, each
#      step with the names it uses.
# Prints what is wrong and exits 1; prints the parts bottom-up and exits 0.
set -u
hdr=
if [ "${1:-}" = --header ]; then
	hdr=${2:?usage: layers.sh --header H DIR}
	shift 2
fi
dir=${1:?usage: layers.sh KMOD_DIR | layers.sh --header H DIR}
cd "$dir" || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
bad=0

# C text without comments, strings and character constants, line for line.
uncomment() {
	awk '{
		out = ""; n = length($0); i = 1
		while (i <= n) {
			c = substr($0, i, 1); c2 = substr($0, i, 2)
			if (incom) {
				if (c2 == "*/") { incom = 0; i += 2; out = out " " } else i++
				continue
			}
			if (c2 == "/*") { incom = 1; i += 2; continue }
			if (c2 == "//") break
			if (c == "\"" || c == "\047") {
				i++
				while (i <= n) {
					d = substr($0, i, 1)
					if (d == "\\") i += 2
					else { i++; if (d == c) break }
				}
				out = out c c
				continue
			}
			out = out c; i++
		}
		print out
	}' "$@"
}

# The functions and variables a C file defines at file scope and not
# static: "type name(...) {", "type name =", "type name;", "type name[";
# with "proto", the functions it declares there instead: "type name(...);".
defined() {
	uncomment "$1" | grep -v -E '^(static|extern|typedef)[[:space:]]|^(struct|union|enum)[[:space:]]+[A-Za-z0-9_]+[[:space:]]*;' |
		if [ "${2:-}" = proto ]; then grep -E '\);[[:space:]]*$'; else grep -v -E '\);[[:space:]]*$'; fi |
		sed -n -E 's/^[A-Za-z_][A-Za-z0-9_ *]*[ *]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*(\(|=|;|\[).*/\1/p' |
		grep -v -x main | sort -u
}

# The identifiers a C file uses, but members (after . or ->).
idents() {
	uncomment "$1" | sed -E 's/(\.|->)[[:space:]]*[A-Za-z_][A-Za-z0-9_]*//g' |
		tr -c 'A-Za-z0-9_' '\n' | grep -E '^[A-Za-z_]' | sort -u
}

if [ -n "$hdr" ]; then
	[ -f "$hdr" ] || { echo "no header $hdr in $dir"; exit 2; }
	# "section line" for every line of code of the header: the section is
	# the file X.c of the last "---- X.c" comment above it ("-" before one).
	sed -n -E 's,^/\*[[:space:]]*-+[[:space:]]+([a-z0-9_]+\.c).*,\1,p; t; s/.*/-/p' "$hdr" >"$T/sect"
	uncomment "$hdr" | paste -d ' ' "$T/sect" - |
		awk '$1 != "-" { s = $1 } { $1 = ""; print (s == "" ? "-" : s) $0 }' >"$T/hlines"

	# 1. Each export in its own file's section, each declaration there its file's.
	: >"$T/exports"
	for c in *.c; do
		defined "$c" | sed "s/\$/ $c/" >>"$T/exports"
	done
	sort -u "$T/exports" -o "$T/exports"
	awk '{ n[$1]++; f[$1] = f[$1] " " $2 } END { for (s in n) if (n[s] > 1) print s f[s] }' \
		"$T/exports" | sort | while read -r s files; do
		echo "$s is defined in more than one file: $files"
	done >"$T/twice"
	for c in *.c; do
		defined "$c" proto | while read -r s; do
			grep -q -x "$s $c" "$T/exports" ||
				echo "$c: declares $s itself (only $hdr may declare another file's $s)"
		done
	done >>"$T/twice"
	[ -s "$T/twice" ] && { cat "$T/twice"; bad=1; }
	while read -r s c; do
		where=$(awk -v s="$s" '{ l = $0; sub(/^[^ ]* /, "", l);
			if (l ~ ("(^|[^A-Za-z0-9_.>])" s "([^A-Za-z0-9_]|$)")) print $1 }' "$T/hlines" |
			sort -u | tr '\n' ' ')
		case " $where" in
		" $c ") ;;
		" ")
			echo "$c: $s is exported but not declared in $hdr"
			bad=1 ;;
		*)
			echo "$c: $s is declared in $hdr under: $where(only $c's section may declare it)"
			bad=1 ;;
		esac
	done <"$T/exports"
	# the functions and variables the header declares, by section
	awk '{ s = $1; l = $0; sub(/^[^ ]* /, "", l)
		if (l ~ /^extern[[:space:]]/) {
			if (match(l, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(\[[^]]*\])?[[:space:]]*;/)) {
				d = substr(l, RSTART, RLENGTH); sub(/[^A-Za-z0-9_].*/, "", d); print d, s
			}
		} else if (l ~ /^[A-Za-z_]/ && l !~ /^(struct|union|enum|typedef)[[:space:]][^(]*$/ &&
			   match(l, /^[A-Za-z_][A-Za-z0-9_ ]*[ *][A-Za-z_][A-Za-z0-9_]*\(/)) {
			d = substr(l, 1, RLENGTH - 1); sub(/.*[ *]/, "", d); print d, s
		} }' "$T/hlines" | sort -u | while read -r s c; do
		grep -q -x "$s $c" "$T/exports" ||
			echo "$hdr: $s is declared under $c, which does not define it"
	done >"$T/stale"
	[ -s "$T/stale" ] && { cat "$T/stale"; bad=1; }

	# 2. The graph of uses between files.
	: >"$T/edges"
	for c in *.c; do
		echo "$c $c" >>"$T/edges"
		idents "$c" >"$T/ids"
		awk -v c="$c" 'NR == FNR { id[$1] = 1; next } $2 != c && ($1 in id) { print c, $2, $1 }' \
			"$T/ids" "$T/exports" >>"$T/edges"
	done
	if ! cut -d ' ' -f 1,2 "$T/edges" | tsort >"$T/order" 2>"$T/loop"; then
		# tsort names a loop's files in the order they use each other
		sed -n 's/^tsort: //p' "$T/loop" | awk '
			NR == FNR { e[$1 " " $2] = e[$1 " " $2] " " $3; next }
			/input contains a loop/ { if (n) out(); n = 0; next }
			{ f[++n] = $1 }
			END { if (n) out() }
			function out(  i, a, b, t) {
				t = "the files call each other in a cycle:"
				for (i = 1; i <= n; i++) t = t " " f[i] " ->"
				t = t " " f[1]
				for (i = 1; i <= n; i++) {
					a = f[i]; b = f[i % n + 1]
					t = t "\n  " a " uses " b ":" e[a " " b]
				}
				if (!(t in seen)) print t
				seen[t] = 1
			}' "$T/edges" -
		bad=1
	fi
	[ "$bad" = 0 ] || exit 1
	tac "$T/order" | tr '\n' ' '
	echo
	exit 0
fi

part() {
	case $1 in
	trace.h) echo stats ;;
	*) echo "${1%.*}" ;;
	esac
}

# 1. Exported symbols, each declared in its own part's header only (a
# header's comments may name anything).
mkdir "$T/h"
for h in *.h; do
	case $h in compat.h|trace.h) continue ;; esac
	uncomment "$h" >"$T/h/$h"
done
for c in *.c; do
	x=${c%.c}
	# Definitions at file scope that are not static: "type name(" or
	# "type name =" / "type name;" at column 0.
	sed -n -E '/^(static|#|\/|\*| |	|\}|\{)/d
		s/^[A-Za-z_][A-Za-z0-9_ ]*[ *](nvm_[a-z0-9_]+)[[:space:]]*(\(|=|;|\[).*/\1/p' "$c" |
		sort -u >"$T/syms"
	while read -r s; do
		decl=$(cd "$T/h" && grep -l -E "(^|[^a-z0-9_])$s([^a-z0-9_]|$)" *.h 2>/dev/null |
		       tr '\n' ' ')
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
