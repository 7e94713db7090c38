#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkman.sh PROG SECTION DATE SUMMARY: a manual page for PROG (nvproxyctl or
# nvabi), made from its own --help texts, so that the page says what the
# program says.  "PROG --help" gives SYNOPSIS, DESCRIPTION and the command
# list; each command whose "PROG COMMAND --help" answers gets that as its
# own section.  SUMMARY is the NAME line's.  The page's other sections
# (FILES, SEE ALSO) come from tools/man/PROG.extra, roff already.  Prints
# the page on standard output.
set -eu
usage="usage: mkman.sh PROG SECTION DATE SUMMARY"
prog=${1:?$usage}
section=${2:?$usage}
date=${3:?$usage}
summary=${4:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$prog")
version=$(cat "$here/../../VERSION")

# Text to roff: backslashes doubled, a leading . or ' escaped, no fill.
roff() {
	sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

overview=$("$prog" --help 2>&1 || true)
# The commands: the first word of the overview's indented lines.
commands=$(printf '%s\n' "$overview" | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')

cat <<HEAD
.\\" Made by tools/man/mkman.sh from $name's --help texts; do not edit.
.TH ${name} ${section} "${date}" "nvmediate ${version}" "nvmediate"
.SH NAME
${name} \\- $(printf '%s\n' "$summary" | roff)
.SH SYNOPSIS
.nf
HEAD
printf '%s\n' "$overview" | sed -n '1p' | sed 's/^usage: //' | roff
echo ".fi"
echo ".SH DESCRIPTION"
echo ".nf"
printf '%s\n' "$overview" | sed '1,2d' | roff
echo ".fi"
echo ".SH COMMANDS"
for c in $commands; do
	case $c in help | version) continue ;; esac
	text=$("$prog" "$c" --help 2>&1) || continue
	printf '%s\n' "$text" | grep -q '^usage: ' || continue
	echo ".SS $c"
	echo ".nf"
	printf '%s\n' "$text" | roff
	echo ".fi"
done
if [ -f "$here/$name.extra" ]; then
	cat "$here/$name.extra"
fi
