#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fnlen.sh [-n MAX] FILE...: no function of the C files is longer than MAX
# lines (80 unless told), counted from the line after its opening brace to
# the line before its closing one.
#
# The files are in kernel style: a function's braces stand alone in the
# first column, and nothing else's does (an initializer's "{" follows "=").
# Prints each function over the bound, "file:line: name: N lines", and
# exits 1; exits 0 when there is none.
set -u
max=80
if [ "${1:-}" = -n ]; then
	max=${2:?usage: fnlen.sh [-n MAX] FILE...}
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: fnlen.sh [-n MAX] FILE..." >&2; exit 2; }
awk -v max="$max" '
FNR == 1 { sig = ""; start = 0 }
/^[A-Za-z_][A-Za-z0-9_ *]*[ *]?[A-Za-z_][A-Za-z0-9_]*\(/ && !start {
	sig = $0
	sub(/\(.*/, "", sig)
	n = split(sig, w, /[ *]+/)
	sig = w[n]
}
/^\{/ && !start { start = FNR; name = sig }
/^\}/ && start {
	len = FNR - start - 1
	if (len > max) {
		printf "%s:%d: %s: %d lines\n", FILENAME, start, name, len
		bad = 1
	}
	start = 0
}
END { exit bad }
' "$@"
