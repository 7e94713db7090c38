#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tracepoints' symbolic names (kmod/trace.h: __print_symbolic needs
# literal pairs) are the words of uapi/nvmediate.h, in the same order; and
# the uapi's two family vocabularies name the same families.
#   words.sh ROOT    exit 1, naming the list, when they differ
set -eu
root=${1:?usage: words.sh ROOT}

# The words of one "#define NAME { "a", "b", ... }" of the uapi header.
uapi() {
	sed -n "/^#define $1[[:space:]]/,/}/p" "$root/uapi/nvmediate.h" | tr -d '\\\n' |
		sed 's/^[^{]*{//; s/}.*//; s/[",[:space:]][",[:space:]]*/ /g; s/^ //; s/ $//'
}
# The pairs of one "#define NAME { ENUM, "a" }, ..." of trace.h, as ENUM=a.
trace() {
	sed -n "/^#define $1[[:space:]]/,/[^\\\\]\$/p" "$root/kmod/trace.h" |
		sed -n 's/.*{ *\([A-Z_]*\), *"\([^"]*\)" *}.*/\1=\2/p' | tr '\n' ' ' | sed 's/ $//'
}
# The members of "enum NAME { ... }" of kmod/nvm.h, but the _COUNT one.
members() {
	sed -n "/^enum $1 {/,/^}/p" "$root/kmod/nvm.h" |
		sed -n 's/^[[:space:]]*\([A-Z_]*\),.*/\1/p' | grep -v '_COUNT$' | tr '\n' ' ' | sed 's/ $//'
}
# "E1=w1 E2=w2 ...": the enum's members paired with the uapi words in order.
want() {
	set -- $(members "$1") -- $(uapi "$2")
	n=0
	for e; do [ "$e" = -- ] && break; n=$((n + 1)); done
	[ $# -eq $((2 * n + 1)) ] || { echo "?"; return; }
	out=""
	i=1
	while [ $i -le $n ]; do
		eval "e=\${$i} w=\${$((i + n + 1))}"
		out="$out${out:+ }$e=$w"
		i=$((i + 1))
	done
	echo "$out"
}
bad=0
for list in nvm_trace_family_names:nvm_family:NVM_STAT_FAMILY_NAMES \
	    nvm_trace_verdict_names:nvm_outcome:NVM_OUTCOME_NAMES; do
	name=${list%%:*}
	rest=${list#*:}
	t=$(trace "$name")
	w=$(want "${rest%%:*}" "${rest#*:}")
	if [ -z "$t" ] || [ "$t" != "$w" ]; then
		echo "kmod/trace.h $name is '$t'; enum ${rest%%:*} and uapi ${rest#*:} give '$w'"
		bad=1
	fi
done
# The two family vocabularies name the same families in the same order:
# the profiles' short words are the counters' words but "esc" for "escape".
short=$(uapi NVM_FAMILY_NAMES)
long=$(set -- $(uapi NVM_STAT_FAMILY_NAMES); n=$(echo "$short" | wc -w); i=0
	for w; do [ $i -lt "$n" ] && printf '%s ' "$w"; i=$((i + 1)); done | sed 's/ $//')
if [ "$(echo "$long" | sed 's/^escape /esc /')" != "$short" ]; then
	echo "uapi NVM_FAMILY_NAMES '$short' and NVM_STAT_FAMILY_NAMES '$long' name other families"
	bad=1
fi
exit $bad
