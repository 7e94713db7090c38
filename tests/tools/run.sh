#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Tests of tools/nvabi: builds the tool, runs it on synthetic trees
# (fixture.sh) and on the committed abi/ data; and of tools/nvproxyctl
# (nvproxyctl.sh, counted in the same summary). Needs a C compiler and
# libclang-14-dev; git is used when present. No network, no NVIDIA sources.
# The last line is "N passed, N failed"; the exit status is non-zero on failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/fixture.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/nvabi-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
NVABI="$root/tools/nvabi/nvabi"
CC=${CC:-cc}

ok() {
	pass=$((pass + 1))
	echo "ok $((pass + fail)) - $1"
}

nok() {
	fail=$((fail + 1))
	echo "not ok $((pass + fail)) - $1"
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		sed 's/^/#   /' "$2" | head -n 40
	fi
}

# check DESC CMD... : passes when CMD exits 0
check() {
	_d=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok "$_d"; else nok "$_d" "$T/out"; fi
}

# has DESC FILE FIXED-STRING : passes when FILE holds the string
has() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else nok "$1 (no '$3')" "$2"; fi
}

# fails_with DESC PATTERN CMD... : passes when CMD fails and says PATTERN
fails_with() {
	_d=$1
	_p=$2
	shift 2
	if "$@" >"$T/out" 2>&1; then
		nok "$_d (succeeded)" "$T/out"
	elif grep -q -- "$_p" "$T/out"; then
		ok "$_d"
	else
		nok "$_d (no '$_p')" "$T/out"
	fi
}

summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

# ---- module parameters: each documented where an administrator looks --------
bad=""
for prm in $(grep -ho 'module_param\(_named\)\?( *[a-z_]*' "$root"/kmod/*.c | sed 's/.*( *//' | sort -u); do
	grep -q "^# *$prm=" "$root/etc/nvmediate.conf" || bad="$bad $prm(modprobe.d)"
	grep -q "^| \`$prm\` |" "$root/README.md" || bad="$bad $prm(README)"
	grep -q "\"$prm\"" "$root/tools/nvproxyctl/status.c" || bad="$bad $prm(status)"
done
if [ -z "$bad" ]; then
	ok "module parameters: each in etc/nvmediate.conf, README's table and nvproxyctl status"
else
	echo "undocumented:$bad" >"$T/out"
	nok "module parameters: each in etc/nvmediate.conf, README's table and nvproxyctl status" "$T/out"
fi

# ---- udev rules: what the kernel's events carry -----------------------------
# An unbind event carries no DRIVER= (the kernel clears the device's driver
# before it sends KOBJ_UNBIND), so a rule that matches one on DRIVER never
# fires; the CDI refresh must match the device itself.
rules="$root/udev/71-nvmediate-cdi.rules"
if grep -v '^#' "$rules" | grep 'ACTION=="[^"]*unbind' | grep -q 'DRIVER=='; then
	nok "udev: no unbind rule matches on DRIVER (an unbind event has none)" "$rules"
else
	ok "udev: no unbind rule matches on DRIVER (an unbind event has none)"
fi
has "udev: an NVIDIA display controller's unbind refreshes the CDI spec" "$rules" \
	'ACTION=="unbind", SUBSYSTEM=="pci", ATTR{vendor}=="0x10de", ATTR{class}=="0x03*", RUN+="/bin/systemctl --no-block restart nvmediate-cdi.service"'

# ---- nvproxyctl (tests/tools/nvproxyctl.sh; counted here, needs no libclang) ----
NVPROXYCTL_FROM_RUN=1
. "$here/nvproxyctl.sh"
nvproxyctl_tests

# ---- the Kubernetes device plugin, against a kubelet of our own ---------------
# (tests/tools/deviceplugin.py; Debian's python3 with python3-grpcio)
if /usr/bin/python3 -c 'import grpc' 2>/dev/null; then
	mkdir -p "$T/dp"
	timeout 120 /usr/bin/python3 "$here/deviceplugin.py" "$root/tools/k8s/nvmediate-device-plugin" \
		"$T/dp" >"$T/dp.out" 2>&1
	_r=$?
	cat "$T/dp/plugin.log" >>"$T/dp.out" 2>/dev/null
	while IFS= read -r _l; do
		case $_l in
		"ok - "*) ok "device plugin: ${_l#ok - }" ;;
		"not ok - "*) nok "device plugin: ${_l#not ok - }" "$T/dp.out" ;;
		esac
	done <"$T/dp.out"
	[ $_r = 0 ] || grep -q '^not ok - ' "$T/dp.out" || nok "device plugin: the test exited $_r" "$T/dp.out"
else
	nok "device plugin: Debian's python3-grpcio is not installed (.ci/deps.sh installs it)"
fi

# ---- manual pages: made from the tools' --help, clean roff, every command ---
man_check() {	# man_check PROG SECTION: the page, rendered without a warning
	_p=$T/$(basename "$1").$2
	"$root/tools/man/mkman.sh" "$1" "$2" 2026-01-01 "a test" >"$_p" 2>"$T/man.err" &&
		groff -man -Tutf8 -ww -z "$_p" 2>>"$T/man.err" && [ ! -s "$T/man.err" ]
}
if command -v groff >/dev/null; then
	check "man: nvproxyctl.8 renders without a warning" man_check "$root/tools/nvproxyctl/nvproxyctl" 8
	for c in $("$root/tools/nvproxyctl/nvproxyctl" help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' |
		   grep -v -x -e help -e version); do
		has "man: nvproxyctl.8 has the command $c" "$T/nvproxyctl.8" ".SS $c"
	done
	has "man: nvproxyctl.8 says where it reads the driver's state" "$T/nvproxyctl.8" "/sys/class/nvmediate/"
else
	echo "# man: no groff here, pages not checked"
fi

# ---- build ------------------------------------------------------------------
if make -C "$root/tools/nvabi" >"$T/build.log" 2>&1 && [ -x "$NVABI" ]; then
	ok "nvabi builds"
else
	nok "nvabi builds" "$T/build.log"
	summary
fi
"$NVABI" --version >"$T/out" 2>&1 && has "nvabi --version prints VERSION" "$T/out" "nvabi $(cat "$root/VERSION")" ||
	nok "nvabi --version exits 0" "$T/out"

# ---- one release to the next: every kind of change ----------------------------
fixture_tree "$T/a" 100.10.01
fixture_tree "$T/b" 100.20.01 resize relayout addctl dropctl reuse ptr fd early
X="$T/x"
if "$NVABI" extract --abi "$X" "$T/a" "$T/b" >"$T/ext.out" 2>&1; then
	ok "extract two fixture releases"
else
	nok "extract two fixture releases" "$T/ext.out"
fi
has "a progress line per release" "$T/ext.out" "[1/2] 100.10.01:"
A="$X/releases/100.10.01.abi"
has "escape handled in nv.c: array of card info, control node" "$A" "esc 0xc8 ctl user array 16 nv_ioctl_card_info#"
has "escape gated to the GPU node" "$A" "esc 0x27 gpu user exact 56 nv_ioctl_nvos02_parameters_with_fd#"
has "escape accepted on either node" "$A" "esc 0xc9 any user exact 4 nv_ioctl_register_fd#"
has "fd the driver looks up, as its control node" "$A" "fdin nv_ioctl_register_fd ctl_fd ctl"
has "RM_ALLOC accepts NVOS21 and NVOS64" "$A" "esc 0x2b ctl user exact 32,48 NVOS21_PARAMETERS#"
has "size check found through two calls" "$A" "esc 0xd2 ctl user exact 72 nv_ioctl_rm_api_version#"
has "escape handled in osapi.c rm_ioctl" "$A" "@NV_ESC_ALLOC_OS_EVENT @rm_ioctl"
has "unchecked escape keeps the type it reads" "$A" "esc 0xda any user unchecked 8 nv_ioctl_wait_open_complete#"
has "up-front size table" "$X/releases/100.20.01.abi" "esc 0xc8 ctl user array 16 nv_ioctl_card_info#f212234c6ff8 early=array:16"

# Lists RM copies around a control (embedded_param_copy.c)
fixture_tree "$T/e" 100.30.01 ptr emb
fixture_tree "$T/ebad" 100.30.02 ptr embbad
if "$NVABI" extract --abi "$T/xe" "$T/e" >"$T/exe.out" 2>&1; then
	ok "extract a fixture with embedded lists"
else
	nok "extract a fixture with embedded lists" "$T/exe.out"
fi
E="$T/xe/releases/100.30.01.abi"
has "embedded list: pointer, count field, element, copied out only" "$E" "emb 0x20800110 0 16 NV2080_CTRL_FIX_PTR_PARAMS#"
has "... its fields" "$E" "list=data count=count elem=4:NvU32 out @NV2080_CTRL_CMD_FIX_PTR"
has "embedded list a helper picks: custom" "$E" "emb 0x20800111 0 8 NV2080_CTRL_FIX_FD_PARAMS#"
if grep -q "emb 0x20800102" "$E"; then
	nok "a case under an #ifdef the build lacks is not recorded" "$E"
else
	ok "a case under an #ifdef the build lacks is not recorded"
fi
if "$NVABI" extract --abi "$T/xebad" "$T/ebad" >"$T/exebad.out" 2>&1; then
	nok "a case nvabi cannot read stops the extraction" "$T/exebad.out"
else
	has "a case nvabi cannot read stops the extraction" "$T/exebad.out" "case NV2080_CTRL_CMD_FIX_SET is not understood"
fi
has "non-privileged control" "$A" "ctrl 0x20800101 user 8 NV2080_CTRL_FIX_GET_INFO_PARAMS#"
has "privileged control" "$A" "ctrl 0x20800102 root 16 NV2080_CTRL_FIX_SET_PARAMS#"
has "internal control" "$A" "ctrl 0x20800a01 internal @Subdevice"
has "kernel-only control" "$A" "ctrl 0x20800a02 kernel @Subdevice"
has "class with optional params" "$A" "class 0x00000000 user opt 4 NvHandle @NV01_ROOT @RmClientResource"
has "class with required params" "$A" "class 0x0000c06f user req 16 FIX_CHANNEL_ALLOC_PARAMS#"
has "internal class" "$A" "class 0x000000f1 internal @FIX_SECRET"
has "UVM command and its params" "$A" "uvm 0x00000025 uvm 40 UVM_REGISTER_GPU_PARAMS#"
has "UVM tools command" "$A" "uvm 0x00000040 uvm-tools 4 UVM_TOOLS_FLUSH_EVENTS_PARAMS#"
has "UVM command without params" "$A" "uvm 0x30000002 uvm 0 - @UVM_DEINITIALIZE"
L="$X/layouts.txt"
has "fd field marked (capDescriptor)" "$L" "  8 capDescriptor NvS32 4 fd"
has "fd field marked (ctl_fd)" "$L" "  0 ctl_fd int 4 fd"
has "pointer field marked" "$L" "  16 params NvP64 8 ptr"
has "union laid out" "$L" "NV2080_CTRL_FIX_NESTED_PARAMS.u#"
has "bit-field laid out" "$L" "  8.3 more NvU32 :5"
has "header recorded as provenance" "$L" "@src/common/sdk/nvidia/inc/ctrl/ctrl2080fix.h"

"$NVABI" diff --abi "$X" 100.10.01 100.20.01 >"$T/diff.out" 2>&1
[ $? -eq 1 ] && ok "diff exits 1 on changes" || nok "diff exits 1 on changes" "$T/diff.out"
D="$T/diff.out"
has "diff: resized struct" "$D" "control 0x20800101: resized NV2080_CTRL_FIX_GET_INFO_PARAMS 8 -> 16 bytes"
has "diff: same-size relayout" "$D" "escape 0x2b: NVOS21_PARAMETERS changed layout at the same size (32 bytes)"
has "diff: field moved" "$D" "NVOS21_PARAMETERS.status: offset 24 -> 28"
has "diff: added control" "$D" "control 0x20800130: added"
has "diff: removed control" "$D" "control 0x20800103: removed"
has "diff: reused command id" "$D" "control 0x20800120: reused: payload NV2080_CTRL_FIX_INFOROM_PARAMS"
has "diff: renumbered command id" "$D" "control 0x20800121: renumbered to 0x20800120"
has "diff: pointer field gained" "$D" "control 0x20800110: gained pointer field data"
has "diff: fd field gained" "$D" "control 0x20800111: gained fd field memFd"
has "diff: up-front check added" "$D" "escape 0xd3: node any, user, size check exact -> node any, user, size check exact, checked up front (exact 16)"
check "diff of a release with itself is empty" "$NVABI" diff --abi "$X" 100.10.01 100.10.01
has "... and says so" "$T/out" "no changes"

# extracting again gives the same bytes
cp "$A" "$T/a.before"
"$NVABI" extract --abi "$X" "$T/a" >/dev/null 2>&1
check "extraction is deterministic" cmp "$T/a.before" "$A"
# The capabilities of some fixture calls; gen merges them into the entries.
fixture_caps() {
	cat >"$1/capabilities.txt" <<-'EOF'
	esc 0xc8 base NV_ESC_CARD_INFO # why: every session
	ctrl 0x20800101 compute,utility NV2080_CTRL_CMD_FIX_GET_INFO
	alloc 0xc06f graphics FIX_CHANNEL
	uvm 0x25 compute UVM_REGISTER_GPU
	ctrl 0x2080ffff compute NV2080_CTRL_CMD_FIX_FUTURE # none: in no fixture release
	EOF
}
fixture_caps "$X"
check "abi/ of the fixtures checks out" sh -c "'$NVABI' ranges --abi '$X' && '$NVABI' gen --abi '$X' && '$NVABI' check --abi '$X'"
has "gen: an escape's entry carries its capabilities (base)" "$X/generated/nvabi_tables.c" \
	"0xc8, NVABI_NODE_CTL"
grep -E '0xc8, NVABI_NODE_CTL.*, 0x8000, 0 },' "$X/generated/nvabi_tables.c" >"$T/out" 2>&1 &&
	ok "... with the base bit" || nok "... with the base bit" "$X/generated/nvabi_tables.c"
grep -E '\{ 0x20800101, .*, 0x0003, 0 },' "$X/generated/nvabi_tables.c" >"$T/out" 2>&1 &&
	ok "gen: a control's entry: compute (bit 0) + utility (bit 1)" ||
	nok "gen: a control's entry: compute (bit 0) + utility (bit 1)" "$X/generated/nvabi_tables.c"
grep -E '\{ 0x20800102, .*, 0x0000, 0 },' "$X/generated/nvabi_tables.c" >"$T/out" 2>&1 &&
	ok "gen: a control no line names: no capability" ||
	nok "gen: a control no line names: no capability" "$X/generated/nvabi_tables.c"
# the eighth capability, past a byte's bits but the base one
rm -rf "$T/capm" && cp -r "$X" "$T/capm"
echo "uvm 0x40 mig UVM_TOOLS_FLUSH_EVENTS # why: a test of bit 7" >>"$T/capm/capabilities.txt"
if "$NVABI" gen --abi "$T/capm" >"$T/out" 2>&1 &&
	grep -qE '\{ 0x00000040, .*, 0, 0x0080, 0 },' "$T/capm/generated/nvabi_tables.c"; then
	ok "gen: mig is bit 7 of an entry's 16-bit caps"
else
	nok "gen: mig is bit 7 of an entry's 16-bit caps" "$T/out"
fi
# capabilities.txt mistakes: reported with their line, nothing written.
capfail() {
	_d=$1 _p=$2 _l=$3
	rm -rf "$T/capx" && cp -r "$X" "$T/capx" && cp "$T/capx/generated/nvabi_tables.c" "$T/capx.c"
	printf '%s\n' "$_l" >>"$T/capx/capabilities.txt"
	fails_with "gen refuses capabilities.txt with $_d" "capabilities.txt:6: .*$_p" \
		"$NVABI" gen --abi "$T/capx"
	cmp -s "$T/capx.c" "$T/capx/generated/nvabi_tables.c" && ok "... and writes nothing" ||
		nok "... and writes nothing" "$T/out"
}
capfail "a word uapi/nvmediate.h does not name" "unknown capability rdma2" "uvm 0x40 rdma2 UVM_TOOLS_FLUSH_EVENTS"
capfail "an unknown family" "unknown family class" "class 0xc06f compute FIX_CHANNEL"
capfail "a number listed twice" "listed twice" "esc 0xc8 compute NV_ESC_CARD_INFO"
capfail "a call no release has, unexplained" "is in no release's tables: say why" "ctrl 0x20800fff compute FIX_NONE"
capfail "a '# none:' call a release has" "is in the tables now" "ctrl 0x20800102 compute FIX_SET # none: stale"
capfail "a number that is not hex" "not a 32-bit hex number" "ctrl 513 compute FIX"

# a release whose fd scan did not run (its fdin lines missing) does not pass
rm -rf "$T/nofd" && cp -r "$X" "$T/nofd"
grep -v '^fdin ' "$X/releases/100.10.01.abi" >"$T/nofd/releases/100.10.01.abi"
fails_with "check: a release without the fd lookups its escapes need fails" \
	"has nv_ioctl_register_fd but no fd lookup" "$NVABI" check --abi "$T/nofd"
"$NVABI" diff --abi "$X" "$T/nofd/releases/100.10.01.abi" "$A" >"$T/out" 2>&1
has "diff: an fd field the driver starts looking up" "$T/out" \
	"fd lookup nv_ioctl_register_fd.ctl_fd (as ctl): now looked up"
"$NVABI" diff --abi "$X" "$A" "$T/nofd/releases/100.10.01.abi" >"$T/out" 2>&1
has "diff: ... and one it no longer looks up" "$T/out" \
	"fd lookup nv_ioctl_register_fd.ctl_fd (as ctl): no longer looked up"

# fds looked up as nvidia-caps capability nodes and IMEX channels: from the
# fget() in nv-caps.c and nv-caps-imex.c back through os-interface.c and os.c
F="$T/capn"
fixture_tree "$F/t" 100.40.01 fd caps
fixture_tree "$F/bad" 100.40.02 fd capsbad
check "extract a fixture whose driver looks up capability nodes and IMEX channels" \
	"$NVABI" extract --abi "$F/abi" "$F/t"
has "fd looked up as a capability node (osRmCapAcquire's descriptor)" "$F/abi/releases/100.40.01.abi" \
	"fdin FIX_CHANNEL_ALLOC_PARAMS capDescriptor cap"
has "fd looked up as an IMEX channel (osImexChannelGet's descriptor)" "$F/abi/releases/100.40.01.abi" \
	"fdin NV2080_CTRL_FIX_FD_PARAMS memFd imex"
if grep -q 'dupedCapDescriptor' "$F/abi/releases/100.40.01.abi"; then
	nok "the duplicate the driver closes itself is no payload's lookup" "$F/abi/releases/100.40.01.abi"
else
	ok "the duplicate the driver closes itself is no payload's lookup"
fi
fixture_caps "$F/abi"
check "... ranges and gen" sh -c "'$NVABI' ranges --abi '$F/abi' && '$NVABI' gen --abi '$F/abi'"
has "gen: the class's fd field is looked up as a capability node" "$F/abi/generated/nvabi_tables.c" \
	"{ 8, 4, NVABI_NODE_CAP, 0 },"
has "gen: the control's fd field is looked up as an IMEX channel" "$F/abi/generated/nvabi_tables.c" \
	"{ 4, 4, NVABI_NODE_IMEX, 0 },"
fails_with "a descriptor nvabi cannot follow to a payload stops the extraction" \
	"gisubscriptionConstruct_IMPL(): the fd of a cap lookup is an expression near 'fixDescriptorOf'" \
	"$NVABI" extract --abi "$F/abi2" "$F/bad"

# ---- A -> B -> A: three ranges, not one ----------------------------------------
R="$T/rv"
fixture_tree "$R/t1" 200.1.1
fixture_tree "$R/t2" 200.2.1 resize
fixture_tree "$R/t3" 200.3.1
"$NVABI" extract --abi "$R/abi" "$R/t1" "$R/t2" "$R/t3" >"$T/out" 2>&1
"$NVABI" ranges --abi "$R/abi" >"$T/rv.out" 2>&1
has "a reverted change splits the run: 3 ranges" "$T/rv.out" "3 releases, 2 distinct ABIs, 3 ranges"
has "range [200.1.1, 200.1.1]" "$R/abi/ranges.txt" "200.1.1 200.1.1 0 1"
has "range [200.3.1, 200.3.1] shares ABI 0" "$R/abi/ranges.txt" "200.3.1 200.3.1 0 1"

# ---- a beta between two main-line releases, extracted last --------------------
B="$T/beta"
fixture_tree "$B/m1" 300.10.01
fixture_tree "$B/m2" 300.30.01
fixture_tree "$B/m3" 300.40
fixture_tree "$B/beta" 300.20.07 addctl
"$NVABI" extract --abi "$B/abi" "$B/m1" "$B/m2" "$B/m3" >"$T/out" 2>&1
"$NVABI" extract --abi "$B/abi" "$B/beta" >>"$T/out" 2>&1
fixture_caps "$B/abi"
"$NVABI" ranges --abi "$B/abi" >"$T/beta.out" 2>&1
has "beta interleaved by version, not date: 3 ranges" "$T/beta.out" "4 releases, 2 distinct ABIs, 3 ranges"
has "first main-line release alone" "$B/abi/ranges.txt" "300.10.01 300.10.01 0 1"
has "the beta in the middle" "$B/abi/ranges.txt" "300.20.07 300.20.07 1 1"
has "two-part version ordered after 300.30.01" "$B/abi/ranges.txt" "300.30.01 300.40 0 2"
check "gen on the fixtures" "$NVABI" gen --abi "$B/abi"
check "gen --check: regenerating gives no diff" "$NVABI" gen --abi "$B/abi" --check

# show
"$NVABI" show --abi "$B/abi" --version 300.30.01 --json >"$T/s1" 2>&1
has "show: a release is exact" "$T/s1" '"tier":"exact","range":{"first":"300.30.01","last":"300.40"'
has "show: JSON escapes" "$T/s1" '{"nr":200,"size":16,"node":"control","kind":"array"'
has "show: JSON controls" "$T/s1" '{"cmd":545259778,"size":16,"privilege":"root"}'
has "show: JSON classes" "$T/s1" '{"class":49263,"size":16,"privilege":"user","params":"required"}'
has "show: JSON UVM" "$T/s1" '{"cmd":37,"size":40,"node":"uvm"}'
"$NVABI" show --abi "$B/abi" --version 300.35.5 --json >"$T/s2" 2>&1
has "show: inside a range is interpolated" "$T/s2" '"tier":"interpolated","range":{"first":"300.30.01","last":"300.40"'
"$NVABI" show --abi "$B/abi" --version 300.25 --json >"$T/s3" 2>&1
rc=$?
has "show: between two ranges is outside" "$T/s3" '"tier":"outside","range":null'
if [ $rc = 5 ]; then ok "show: outside exits 5"; else nok "show: outside exits 5, not $rc" "$T/s3"; fi
"$NVABI" show --help >"$T/s5" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^usage: nvabi show' "$T/s5"; then ok "show --help: its usage, exit 0"
else nok "show --help: its usage, exit 0 (exit $rc)" "$T/s5"; fi
"$NVABI" show --abi "$B/abi" --bogus >"$T/s5" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q '^usage: nvabi show' "$T/s5"; then ok "show, an unknown option: exit 2 with the usage"
else nok "show, an unknown option: exit 2 with the usage (exit $rc)" "$T/s5"; fi
"$NVABI" show --abi "$B/abi" --version 301.0.1 --json >"$T/s4" 2>&1
has "show: newer than all is outside" "$T/s4" '"tier":"outside","range":null'

# the generated tables, read as the module will, agree with show
lookup_build() {
	$CC -std=gnu11 -Wall -Wextra -Werror -I"$root/abi" -I"$1/generated" \
		"$here/lookup.c" "$1/generated/nvabi_tables.c" -o "$2"
}
if lookup_build "$B/abi" "$T/lookup" >"$T/out" 2>&1; then
	ok "generated tables compile (-Wall -Wextra -Werror)"
	bad=""
	for v in 300.10.01 300.20.07 300.30.01 300.35.5 300.40 300.25 301.0.1 299; do
		"$NVABI" show --abi "$B/abi" --version "$v" --table | sort >"$T/want"
		"$T/lookup" "$v" | sort >"$T/got"
		cmp -s "$T/want" "$T/got" || bad="$bad $v"
	done
	if [ -z "$bad" ]; then ok "tables agree with show"; else nok "tables agree with show:$bad"; fi
else
	nok "generated tables compile (-Wall -Wextra -Werror)" "$T/out"
fi

# ---- a git repository: tags, --all, errors ---------------------------------------
if command -v git >/dev/null 2>&1; then
	G="$T/git"
	git init -q "$G" && (
		cd "$G" || exit 1
		git config user.email t@example.invalid
		git config user.name t
		for rel in 300.10.01:m1 300.30.01:m2 300.20.07:beta; do
			v=${rel%%:*}
			rm -rf ./src ./kernel-open ./version.mk
			cp -r "$B/${rel#*:}/." .
			git add -A && git commit -qm "$v" && git tag "$v"
		done
	) >"$T/out" 2>&1
	if "$NVABI" extract --abi "$G.abi" --git "$G" --all -j2 >"$T/out" 2>&1 &&
		"$NVABI" ranges --abi "$G.abi" >>"$T/out" 2>&1; then
		ok "extract --git --all"
	else
		nok "extract --git --all" "$T/out"
	fi
	has "git tags ordered by version: 3 ranges" "$T/out" "3 releases, 2 distinct ABIs, 3 ranges"
	has "git provenance" "$G.abi/releases/300.20.07.abi" "@source open-gpu-kernel-modules tag 300.20.07"
	fails_with "missing tag" "no tag '9.9.9'" "$NVABI" extract --abi "$T/none" --git "$G" 9.9.9
	fails_with "not a git directory" "not a git directory" "$NVABI" extract --abi "$T/none" --git "$T/a" 1.0
else
	echo "# git not installed: skipping the git tests"
fi

# ---- add: a release from a tarball, a git tag and a tree, byte for byte ----------
. "$here/add.sh"
add_tests

# ---- errors ---------------------------------------------------------------------
fails_with "wrong tree" "does not look like a tree" "$NVABI" extract --abi "$T/none" "$T"
mkdir -p "$T/nover/src/nvidia" "$T/nover/kernel-open" "$T/nover/src/common"
fails_with "tree without version.mk" "no NVIDIA_VERSION" "$NVABI" extract --abi "$T/none" "$T/nover"
fixture_tree "$T/bad" 100.30.01 bad
fails_with "header that does not parse" "does not compile" "$NVABI" extract --abi "$T/none" "$T/bad"
has "... names the header" "$T/out" "src/common/sdk/nvidia/inc/nvos.h:"
fails_with "unknown release in diff" "no release 1.2.3" "$NVABI" diff --abi "$X" 1.2.3 100.10.01
fails_with "not a version" "not a version number" "$NVABI" show --abi "$X" --version abc

# ---- the committed data -----------------------------------------------------------
C="$root/abi"
if [ -d "$C/releases" ]; then
	check "committed abi/: hashes, canonical files, ranges and tables up to date" \
		"$NVABI" check --abi "$C"
	ls "$C/releases" | sed -n 's/\.abi$//p' | sort -V >"$T/rels"
	grep -v '^#' "$C/ranges.txt" >"$T/ranges"
	nrel=$(wc -l <"$T/rels")

	# ranges are sorted, closed and disjoint (versions compared component-wise)
	vkey='function k(v,  a, n, i, s) { n = split(v, a, "."); s = "";
		for (i = 1; i <= 4; i++) s = s sprintf("%07d", i <= n ? a[i] + 1 : 0); return s }'
	bad=$(awk "$vkey"' { f = k($1); l = k($2); if (f > l || (NR > 1 && f <= pl))
		printf " [%s,%s]", $1, $2; pl = l }' "$T/ranges")
	if [ -z "$bad" ]; then ok "ranges never overlap"; else nok "ranges overlap:$bad"; fi
	bad=$(awk "$vkey"' NR == FNR { n++; F[n] = k($1); L[n] = k($2); next }
		{ c = 0; x = k($1); for (i = 1; i <= n; i++) if (F[i] <= x && x <= L[i]) c++;
		  if (c != 1) printf " %s", $1 }' "$T/ranges" "$T/rels")
	if [ -z "$bad" ]; then
		ok "each of the $nrel releases lies in exactly one range"
	else
		nok "releases not in exactly one range:$bad"
	fi

	# every release: exact, in exactly one range, and the tables agree
	if lookup_build "$C" "$T/clookup" >"$T/out" 2>&1; then
		ok "committed tables compile (-Wall -Wextra -Werror)"
	else
		nok "committed tables compile (-Wall -Wextra -Werror)" "$T/out"
	fi
	# show_tier V TIER: nvabi show gives V that tier ($T/want keeps its table)
	show_tier() {
		"$NVABI" show --abi "$C" --version "$1" --table >"$T/want" 2>&1
		[ "$(sed -n 2p "$T/want")" = "tier $2" ]
	}
	# show_same V: the compiled tables' lookup of V says what show said
	show_same() {
		[ -x "$T/clookup" ] || return 0
		"$T/clookup" "$1" | sort >"$T/got"
		sort "$T/want" | cmp -s - "$T/got"
	}
	bad=""
	badt=""
	while read -r v; do
		show_tier "$v" exact || bad="$bad $v"
		show_same "$v" || badt="$badt $v"
	done <"$T/rels"
	if [ -z "$bad" ]; then
		ok "show: all $nrel releases are exact"
	else
		nok "show: releases not exact:$bad"
	fi
	if [ -z "$badt" ]; then
		ok "tables agree with show for all $nrel releases"
	else
		nok "tables disagree with show for:$badt"
	fi

	# a version between two releases of one range is interpolated
	n=0
	bad=""
	while read -r first last abi cnt; do
		[ "$cnt" -ge 2 ] || continue
		# first.patch+1, if no release has that number and it is before the next one
		case $first in
		*.*.*) ;;
		*) continue ;;
		esac
		base=${first%.*}
		patch=${first##*.}
		cand="$base.$(( $(echo "$patch" | sed 's/^0*//;s/^$/0/') + 1 ))"
		grep -qx "$cand" "$T/rels" && continue
		next=$(grep -A1 -x "$first" "$T/rels" | tail -n1)
		[ "$(printf '%s\n%s\n' "$cand" "$next" | sort -V | head -n1)" = "$cand" ] || continue
		"$NVABI" show --abi "$C" --version "$cand" --json >"$T/out" 2>&1
		grep -qF "\"tier\":\"interpolated\",\"range\":{\"first\":\"$first\",\"last\":\"$last\"" \
			"$T/out" || bad="$bad $cand"
		n=$((n + 1))
	done <"$T/ranges"
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
		ok "versions inside $n ranges are interpolated"
	else
		nok "interpolation ($n tried):$bad"
	fi
	"$NVABI" show --abi "$C" --version 9999.0.0 --json >"$T/out" 2>&1
	has "a version newer than all is outside" "$T/out" '"tier":"outside","range":null'

	# successor: a version after a branch's newest release, per nvabi_branches[]
	sed -n '/nvabi_branches\[NVABI_NR_BRANCHES\] = {/,/^};/p' "$C/generated/nvabi_tables.c" |
		sed -n 's/^\t{ \([0-9]*\), [0-9]*, \([01]\), 0 },\t\/\* \(.*\) \*\/$/\1 \2 \3/p' \
		>"$T/branches"
	nb=$(wc -l <"$T/branches")
	bad=""
	while read -r major succ newest; do
		v="$newest.1"
		case $newest in *.*.*) v="${newest%.*}.$((${newest##*.} + 1))" ;; esac
		[ "$succ" = 1 ] && want=successor || want=outside
		show_tier "$v" $want || bad="$bad $v($want)"
		show_same "$v" || bad="$bad $v(tables)"
	done <"$T/branches"
	if [ "$nb" -gt 0 ] && [ -z "$bad" ]; then
		ok "after each of $nb branches' newest release: successor or outside as nvabi_branches[] says, tables agree"
	else
		nok "successor tier ($nb branches):$bad"
	fi
	"$NVABI" show --abi "$C" --version 580.999.1 --json >"$T/out" 2>&1
	has "show: successor names its range and the release it is served as" "$T/out" \
		'"tier":"successor","range":{"first":"580.126.09","last":"580.142","releases":5},"abi":59,"served_as":"580.142"'
	"$NVABI" show --abi "$C" --version 580.1.1 --json >"$T/out" 2>&1
	has "show: older than a branch's first release is outside" "$T/out" '"tier":"outside"'

	# replay: no release the successor rule serves is default-unsafe, and the
	# replay would say so of a looser rule
	check "replay: no release the rule serves is default-unsafe" \
		"$NVABI" replay --abi "$C"
	has "... every release has its row" "$T/out" "595.45.04   outside"
	fails_with "... with 5 distinct minors instead, 550.90.07 would be default-unsafe" \
		"^550.90.07 *successor *550.78 *default-unsafe" "$NVABI" replay --abi "$C" --min-minors 5
	if command -v groff >/dev/null; then
		check "man: nvabi.1 renders without a warning" man_check "$NVABI" 1
		has "man: nvabi.1 has replay's own text" "$T/nvabi.1" ".SS replay"
	fi
	"$NVABI" replay --abi "$C" --markdown >"$T/replay.md" 2>&1
	sed -n '/^| release /,/^$/p' "$T/replay.md" >"$T/replay.rows"
	if sed -n '/^| release /,/^$/p' "$root/docs/abi-replay.md" | cmp -s - "$T/replay.rows"; then
		ok "docs/abi-replay.md holds the replay of the committed data"
	else
		nok "docs/abi-replay.md holds the replay of the committed data (run nvabi replay --markdown)"
	fi

	# every fd field of every release is in the tables at that release's
	# offset, looked up as the node the release's fdin lines say
	if $CC -std=gnu11 -Wall -Wextra -Werror -I"$C" -I"$C/generated" "$here/fdcheck.c" \
		"$C/generated/nvabi_tables.c" -o "$T/fdcheck" >"$T/out" 2>&1 &&
		"$T/fdcheck" "$C" >"$T/out" 2>&1; then
		ok "fd fields: $(tail -n 1 "$T/out")"
	else
		nok "fd fields of every release are the module's" "$T/out"
	fi

	# the default profile against gVisor's compute/utility list: every
	# refusal is one docs/policy.md lists, and every listed one still happens
	NPC="$root/tools/nvproxyctl/nvproxyctl"
	AN="$here/anchor.py"
	if python3 "$AN" "$NPC" "$C" "$here/anchor-compute.tsv" "$root/docs/policy.md" \
		>"$T/anchor" 2>&1; then
		ok "gVisor's compute/utility calls: $(tail -n 1 "$T/anchor")"
	else
		nok "gVisor's compute/utility calls: refusals not in docs/policy.md" "$T/anchor"
	fi
	grep -v '^- `control 0x80028b`' "$root/docs/policy.md" >"$T/policy1.md"
	fails_with "... a refusal docs/policy.md does not list fails" \
		"refused: control 0x80028b .*NOT LISTED" \
		python3 "$AN" "$NPC" "$C" "$here/anchor-compute.tsv" "$T/policy1.md"
	sed 's/^- `control 0x80028b`/- `control 0x201`: admitted\n&/' "$root/docs/policy.md" >"$T/policy2.md"
	fails_with "... a listed call that is admitted fails" \
		"listed but admitted at every version: control 0x201" \
		python3 "$AN" "$NPC" "$C" "$here/anchor-compute.tsv" "$T/policy2.md"
else
	nok "committed abi/releases is missing"
fi

# ---- make clean: kbuild's outputs go, build/ stays --------------------------------
# (kbuild's own clean of an external module deletes objects anywhere below
# it: the debug kernel's and NVIDIA's trees in build/.)
mkdir -p "$T/tree"
if (cd "$root" && git ls-files 2>/dev/null | grep -E '^(Makefile|VERSION|tools/|tests/unit/)' | cpio -pdm "$T/tree" 2>/dev/null) &&
	mkdir -p "$T/tree/kmod" "$T/tree/build/linux-debug/kernel" "$T/tree/build/nvidia/x" &&
	touch "$T/tree/kmod/main.o" "$T/tree/kmod/.main.o.cmd" "$T/tree/nvmediate.ko" "$T/tree/modules.order" \
		"$T/tree/build/linux-debug/kernel/fork.o" "$T/tree/build/nvidia/x/nv.ko" &&
	make -s -C "$T/tree" clean >"$T/out" 2>&1; then
	left=$(cd "$T/tree" && ls kmod/main.o kmod/.main.o.cmd nvmediate.ko modules.order \
		build/linux-debug/kernel/fork.o build/nvidia/x/nv.ko 2>/dev/null | xargs echo)
	if [ "$left" = "build/linux-debug/kernel/fork.o build/nvidia/x/nv.ko" ]; then
		ok "make clean deletes kbuild's outputs and leaves build/ alone"
	else
		echo "left: $left" >>"$T/out"
		nok "make clean deletes kbuild's outputs and leaves build/ alone" "$T/out"
	fi
else
	nok "make clean in a copy of the tree" "$T/out"
fi

# ---- the module's parts depend on each other one way --------------------------
check "kmod: each export declared in its own part's header, no include or call cycle" \
	sh "$here/layers.sh" "$root/kmod"
mkdir -p "$T/layers"
cp "$root"/kmod/*.c "$root"/kmod/*.h "$T/layers/"
echo '#include "node.h"' >>"$T/layers/escape.c"
fails_with "kmod layers: a part below node.c that includes node.h is a cycle" \
	"cycle" sh "$here/layers.sh" "$T/layers"
cp "$root/kmod/escape.c" "$T/layers/escape.c"
echo 'bool nvm_esc_decide(const struct nvm_call *c, struct nvm_verdict *v);' >>"$T/layers/policy.h"
fails_with "kmod layers: escape.c's export declared in policy.h is refused" \
	"nvm_esc_decide is declared in: escape.h policy.h" sh "$here/layers.sh" "$T/layers"
# tools/nvabi: one header, nvabi.h, in a section per file
check "nvabi: each file's exports in its own section of nvabi.h, no call cycle" \
	sh "$here/layers.sh" --header nvabi.h "$root/tools/nvabi"
mkdir -p "$T/nvlayers"
cp "$root"/tools/nvabi/*.c "$root/tools/nvabi/nvabi.h" "$T/nvlayers/"
printf '\nstatic int planted(void)\n{\n\treturn branch_of("1.0") != 0;\n}\n' >>"$T/nvlayers/store.c"
fails_with "nvabi layers: store.c calling ranges.c, which calls store.c, is a cycle" \
	"store.c uses ranges.c: branch_of" sh "$here/layers.sh" --header nvabi.h "$T/nvlayers"
cp "$root/tools/nvabi/store.c" "$T/nvlayers/store.c"
sed 's/^int cmd_add(int argc, char \*\*argv);$/&\nconst char *abi_dir_default(void);/' \
	"$root/tools/nvabi/nvabi.h" >"$T/nvlayers/nvabi.h"
fails_with "nvabi layers: store.c's export declared under main.c is refused" \
	"abi_dir_default is declared in nvabi.h under: main.c store.c" \
	sh "$here/layers.sh" --header nvabi.h "$T/nvlayers"
check "kmod/trace.h's symbolic names are uapi/nvmediate.h's words" sh "$here/words.sh" "$root"
mkdir -p "$T/words/kmod" "$T/words/uapi"
cp "$root/kmod/nvm.h" "$T/words/kmod/"
cp "$root/uapi/nvmediate.h" "$T/words/uapi/"
sed 's/{ NVM_FAM_MMAP, "mmap" }/{ NVM_FAM_MMAP, "map" }/' "$root/kmod/trace.h" >"$T/words/kmod/trace.h"
fails_with "... a tracepoint word that differs is found" "nvm_trace_family_names is" \
	sh "$here/words.sh" "$T/words"
cp "$root/kmod/trace.h" "$T/words/kmod/trace.h"
sed 's/{ "esc", "ctrl", "alloc", "uvm" }/{ "esc", "alloc", "ctrl", "uvm" }/' "$root/uapi/nvmediate.h" \
	>"$T/words/uapi/nvmediate.h"
fails_with "... profiles' family words in another order than the counters' are found" \
	"name other families" sh "$here/words.sh" "$T/words"

# ---- docs/design.md's map of kmod/, and no function over 80 lines --------------
check "docs/design.md section 8 names every kmod/ file, each file says its job, parts in order" \
	sh "$here/map.sh" "$root"
mkdir -p "$T/map/kmod" "$T/map/docs"
cp "$root"/kmod/*.c "$root"/kmod/*.h "$T/map/kmod/"
cp "$root/docs/design.md" "$T/map/docs/"
printf '// SPDX-License-Identifier: GPL-2.0\n/*\n * nvmediate: planted.\n */\n' >"$T/map/kmod/planted.c"
fails_with "... a file the table does not name is found" \
	"kmod/planted.c: its part planted.c is not in" sh "$here/map.sh" "$T/map"
rm "$T/map/kmod/planted.c"
echo '#include "node.h"' >>"$T/map/kmod/version.c"
fails_with "... a part including one on a later row is found" \
	"kmod/version.c includes node.h" sh "$here/map.sh" "$T/map"
cp "$root/kmod/version.c" "$T/map/kmod/version.c"
sed -i '3s/ \* nvmediate: / * /' "$T/map/kmod/ranges.c"
fails_with "... a file whose first comment does not say its job is found" \
	"kmod/ranges.c: its first comment" sh "$here/map.sh" "$T/map"
check "no function over 80 lines in kmod/, tools/nvabi/, tools/nvproxyctl/" \
	sh "$here/fnlen.sh" "$root"/kmod/*.c "$root"/tools/nvabi/*.c "$root"/tools/nvproxyctl/*.c
{
	printf 'static int planted(void)\n{\n'
	i=0
	while [ $i -lt 81 ]; do echo '	;'; i=$((i + 1)); done
	printf '\treturn 0;\n}\n'
} >"$T/long.c"
fails_with "... an 82-line function is found" "long.c:2: planted: 82 lines" \
	sh "$here/fnlen.sh" "$T/long.c"

# ---- the refusal rules' names: one list (kmod/rules.h), each in errors.md -----
check "kmod/rules.h: every rule in docs/errors.md, no rule's name spelled out elsewhere" \
	sh "$here/rules.sh" "$root"
mkdir -p "$T/rules/kmod" "$T/rules/tools/nvproxyctl" "$T/rules/docs"
cp "$root"/kmod/*.c "$root"/kmod/*.h "$T/rules/kmod/"
cp "$root"/tools/nvproxyctl/*.c "$root"/tools/nvproxyctl/*.h "$T/rules/tools/nvproxyctl/"
cp "$root/docs/errors.md" "$T/rules/docs/"
sed -i 's/NVM_RULE(ESC_SIZE)/"esc-size"/' "$T/rules/kmod/escape.c"
fails_with "... a rule's name spelled out in kmod/ is found" \
	'kmod/escape.c:[0-9]*: rule esc-size spelled out' sh "$here/rules.sh" "$T/rules"
cp "$root/kmod/escape.c" "$T/rules/kmod/escape.c"
sed -i 's/NVM_RULE_CTRL_FINN:/NVM_RULE_CTRL_FINN: (void)"ctrl-finn";/' "$T/rules/tools/nvproxyctl/profile.c"
fails_with "... and in nvproxyctl" \
	'tools/nvproxyctl/profile.c:[0-9]*: rule ctrl-finn spelled out' sh "$here/rules.sh" "$T/rules"
cp "$root/tools/nvproxyctl/profile.c" "$T/rules/tools/nvproxyctl/profile.c"
sed -i 's/NVM_RULE(UVM_NODE)/"uvm-tools-node"/' "$T/rules/kmod/uvm.c"
fails_with "... a rule the list lacks is found" \
	'kmod/uvm.c:[0-9]*: "uvm-tools-node" looks like a rule' sh "$here/rules.sh" "$T/rules"
cp "$root/kmod/uvm.c" "$T/rules/kmod/uvm.c"
sed -i 's/`class-params-too-big`/class-params-too-big/' "$T/rules/docs/errors.md"
fails_with "... a rule docs/errors.md does not explain is found" \
	'rule class-params-too-big is not explained' sh "$here/rules.sh" "$T/rules"

summary
