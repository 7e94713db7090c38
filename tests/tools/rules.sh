#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The refusal rules' names have one source, kmod/rules.h's NVM_RULES list:
#   1. each name there is explained in docs/errors.md (as `name`), once
#      in the list;
#   2. no source of the module (kmod/*.c, kmod/*.h) nor of nvproxyctl
#      spells one of them out as a string literal: they use NVM_RULE(ID)
#      or the constants;
#   3. the module has no other literal that looks like a rule (lower-case
#      words joined by '-'), but for the names below that are not rules.
# Comment lines are not looked at.
#   rules.sh ROOT    exit 1, naming what is wrong
set -eu
root=${1:?usage: rules.sh ROOT}
h="$root/kmod/rules.h"

# Hyphenated literals of the module that are not rules: node names.
not_rules='nvidia-uvm nvproxy-uvm'

names=$(sed -n 's/^[[:space:]]*X([A-Z0-9_]*,[[:space:]]*"\([^"]*\)").*/\1/p' "$h")
[ -n "$names" ] || { echo "kmod/rules.h: no X(ID, \"name\") in NVM_RULES"; exit 1; }
bad=0
dup=$(printf '%s\n' $names | sort | uniq -d | tr '\n' ' ')
if [ -n "$dup" ]; then
	echo "kmod/rules.h: names listed twice: $dup"
	bad=1
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/rules.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

# The code lines of the sources, comment lines left out, as FILE:LINE:TEXT.
for f in "$root"/kmod/*.c "$root"/kmod/*.h "$root"/tools/nvproxyctl/*.c \
	 "$root"/tools/nvproxyctl/*.h; do
	[ "$f" = "$h" ] || grep -Hn '' "$f" || :
done | sed "s|^$root/||" | grep -v -E '^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)' >"$T/code"

for n in $names; do
	if ! grep -qF "\`$n\`" "$root/docs/errors.md"; then
		echo "docs/errors.md: rule $n is not explained (no \`$n\`)"
		bad=1
	fi
	if grep -F "\"$n\"" "$T/code" >"$T/hits"; then
		sed "s|^\([^:]*:[0-9]*\):.*|\1: rule $n spelled out: NVM_RULE()|" "$T/hits"
		bad=1
	fi
done

grep '^kmod/' "$T/code" | grep -o -E '^[^:]*:[0-9]+:|"[a-z][a-z0-9]*(-[a-z0-9]+)+"' |
	while IFS= read -r w; do
		case $w in
		\"*) w=${w#\"}; w=${w%\"} ;;
		*) at=$w; continue ;;
		esac
		case " $not_rules $(echo $names) " in
		*" $w "*) ;;
		*) echo "$at \"$w\" looks like a rule that kmod/rules.h does not list" ;;
		esac
	done >"$T/like"
if [ -s "$T/like" ]; then
	cat "$T/like"
	bad=1
fi
exit $bad
