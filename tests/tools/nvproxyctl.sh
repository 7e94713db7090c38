#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Tests of tools/nvproxyctl. Need a C compiler and python3; no module, no root,
# no GPU: explain runs against the committed tables, status, stats and cdi
# against an empty root and a fake /sys and /dev (NVPROXYCTL_ROOT); cdi's
# output is validated against tests/tools/cdi-schema.json (python3-jsonschema).
#
# tests/tools/run.sh sources this file (NVPROXYCTL_FROM_RUN=1) and calls
# nvproxyctl_tests, which counts with run.sh's own ok/nok; run alone
#   sh tests/tools/nvproxyctl.sh
# it prints its own "N passed, N failed" last.

# hook_tests: nvproxyctl hook update-ldcache run as a runtime runs it, for a
# "container" (a process in a mount namespace of its own, a library
# bind-mounted into its root and proc mounted there); as root only.
hook_tests() {
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		echo "  (hook: needs root and unshare; not run)"
		return
	fi
	H="$T/hook"
	R="$H/rootfs"
	rm -rf "$H"
	mkdir -p "$R/etc/ld.so.conf.d" "$R/opt/nv/lib" "$R/proc" "$H/bundle" "$H/outside"
	echo "{\"root\": {\"path\": \"$R\"}}" >"$H/bundle/config.json"
	echo 'int nvm_fake(void) { return 1; }' >"$H/fake.c"
	cc -shared -fPIC -Wl,-soname,libnvmfake.so.1 -o "$H/libnvmfake.so.1.0" "$H/fake.c"
	: >"$R/opt/nv/lib/libnvmfake.so.1.0"
	# hook_run DESC WANT: the hook for a container set up by $H/setup.sh
	hook_run() {
		unshare -m --propagation private sh "$H/setup.sh" &
		_i=0
		while [ ! -f "$H/pid" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
		_p=$(cat "$H/pid" 2>/dev/null)
		npc_rc "$1" "$2" sh -c "echo '{\"ociVersion\": \"1.2.0\", \"id\": \"c\", \"status\": \"creating\", \"pid\": $_p, \"bundle\": \"$H/bundle\"}' |
			$NPC hook update-ldcache /opt/nv/lib"
		kill "$_p" 2>/dev/null
		wait
		rm -f "$H/pid"
	}
	# the container: its library, its proc, and with "evil" in $H/mode an
	# /etc that is a link through that proc to a directory outside the
	# root (the root of a process whose root is the host's, as the
	# container's init is before pivot_root)
	cat >"$H/setup.sh" <<-EOF
	mount --bind "$H/libnvmfake.so.1.0" "$R/opt/nv/lib/libnvmfake.so.1.0"
	mount -t proc proc "$R/proc"
	if [ -f "$H/evil" ]; then rm -rf "$R/etc"; ln -s "/proc/\$\$/root$H/outside" "$R/etc"; fi
	if [ -f "$H/blank" ]; then mount -t tmpfs none "$R/e f"; fi
	sleep 60 & echo \$! >"$H/pid.tmp"; mv "$H/pid.tmp" "$H/pid"; wait
	EOF
	# a library that is a link to a device node the image holds (here
	# /dev/null's numbers): ldconfig, the host's root, would open it
	mkdir -p "$R/devs"
	mknod "$R/devs/null" c 1 3
	ln -s /devs/null "$R/opt/nv/lib/libdev.so.1"
	hook_run "hook update-ldcache: exit 0" 0
	if ldconfig -r "$R" /opt/nv/lib 2>&1 | grep -q 'libdev.so.1 is empty'; then
		if grep -q 'libdev.so.1' "$T/out"; then
			nok "... ldconfig opened none of the image's devices (nodev)" "$T/out"
		else
			ok "... ldconfig opened none of the image's devices (nodev)"
		fi
	else
		echo "  (hook: $R is on a nodev file system; the device case shows nothing here)"
	fi
	rm -f "$R/etc/ld.so.cache" "$R/opt/nv/lib/libnvmfake.so.1"
	hook_run "hook update-ldcache: exit 0" 0
	if ldconfig -C "$R/etc/ld.so.cache" -p 2>&1 | grep -q 'libnvmfake.so.1 .*=> /opt/nv/lib/libnvmfake.so.1$'; then
		ok "... the container's linker cache has the library"
	else
		ldconfig -C "$R/etc/ld.so.cache" -p >>"$T/out" 2>&1
		nok "... the container's linker cache has the library" "$T/out"
	fi
	# As runc runs it: from the container's init, in its mount and pid
	# namespaces, the state naming the init by its pid there (1), while
	# /proc is still the host's (where 1 is the host's init).
	rm -f "$R/etc/ld.so.cache" "$R/opt/nv/lib/libnvmfake.so.1"
	cat >"$H/inside.sh" <<-EOF
	mount --bind "$H/libnvmfake.so.1.0" "$R/opt/nv/lib/libnvmfake.so.1.0"
	echo "{\"pid\": \$\$, \"bundle\": \"$H/bundle\"}" | $NPC hook update-ldcache /opt/nv/lib
	EOF
	npc_rc "hook update-ldcache run from the container's init: exit 0" 0 \
		unshare -m -p -f --propagation private sh "$H/inside.sh"
	if ldconfig -C "$R/etc/ld.so.cache" -p 2>&1 | grep -q 'libnvmfake.so.1 .*=> /opt/nv/lib/libnvmfake.so.1$'; then
		ok "... the library seen through the init's mounts"
	else
		ldconfig -C "$R/etc/ld.so.cache" -p >>"$T/out" 2>&1
		nok "... the library seen through the init's mounts" "$T/out"
	fi
	if [ -L "$R/opt/nv/lib/libnvmfake.so.1" ] && grep -qx /opt/nv/lib "$R/etc/ld.so.conf.d/00-nvmediate.conf"; then
		ok "... its SONAME link made, its directory in ld.so.conf.d"
	else
		ls -la "$R/opt/nv/lib" "$R/etc/ld.so.conf.d" >>"$T/out" 2>&1
		nok "... its SONAME link made, its directory in ld.so.conf.d" "$T/out"
	fi
	# A FIFO where the hook writes its configuration: not waited for.
	mkfifo "$R/etc/ld.so.conf.d/00-nvmediate.conf.fifo"
	rm -f "$R/etc/ld.so.conf.d/00-nvmediate.conf"
	mv "$R/etc/ld.so.conf.d/00-nvmediate.conf.fifo" "$R/etc/ld.so.conf.d/00-nvmediate.conf"
	hook_run "hook update-ldcache, its configuration file a FIFO: exit 0, at once" 0
	rm -f "$R/etc/ld.so.conf.d/00-nvmediate.conf"
	# A mount point below the root whose name the kernel escapes (a blank):
	# acted on by name, it could be another's; refused.
	mkdir -p "$R/e f"
	: >"$H/blank"
	hook_run "hook update-ldcache, a mount at a name with a blank: exit 1" 1
	has "... says why" "$T/out" "cannot detach the proc mounts"
	rm -f "$H/blank"
	# An image whose /etc leads, through the container's proc, to the host's
	# files (the container's init still has the host's root then): nothing
	# is written there, and the container does not start.
	: >"$H/evil"
	hook_run "hook update-ldcache, /etc a link through proc: exit 1" 1
	if [ -z "$(ls -A "$H/outside")" ]; then ok "... nothing written outside the container's root"
	else ls -la "$H/outside" >>"$T/out"; nok "... nothing written outside the container's root" "$T/out"; fi
}

nvproxyctl_tests() {
	NPC="$root/tools/nvproxyctl/nvproxyctl"
	V=595.45.04
	PY=${PYTHON:-python3}

	# ---- build ------------------------------------------------------------------
	if make -C "$root/tools/nvproxyctl" >"$T/npc-build.log" 2>&1 && [ -x "$NPC" ]; then
		ok "nvproxyctl builds (-Wall -Wextra -Werror)"
	else
		nok "nvproxyctl builds (-Wall -Wextra -Werror)" "$T/npc-build.log"
		return
	fi

	# npc_rc DESC WANT CMD... : passes when CMD exits WANT (output in $T/out)
	npc_rc() {
		_d=$1
		_w=$2
		shift 2
		"$@" >"$T/out" 2>&1
		_r=$?
		if [ "$_r" -eq "$_w" ]; then ok "$_d"; else nok "$_d (exit $_r, not $_w)" "$T/out"; fi
	}
	# npc_py DESC FILE PYTHON-CODE : passes when the code (j = the parsed JSON) runs
	npc_py() {
		if "$PY" -c "import json,sys
j = json.load(open(sys.argv[1]))
$3" "$2" >"$T/py.out" 2>&1; then
			ok "$1"
		else
			cat "$2" >>"$T/py.out"
			nok "$1" "$T/py.out"
		fi
	}

	E="$T/npc-empty"	# a root with no /sys/module/nvmediate and no /dev/nvproxy*
	mkdir -p "$E/sys" "$E/dev"

	# ---- help and usage -------------------------------------------------------
	npc_rc "--help exits 0" 0 "$NPC" --help
	has "--help lists the exit codes" "$T/out" "3 nvmediate not loaded"
	has "--help lists stats" "$T/out" "stats     calls forwarded, refused"
	for c in status stats explain cdi; do
		npc_rc "$c --help exits 0" 0 "$NPC" "$c" --help
		has "$c --help: usage line" "$T/out" "usage: nvproxyctl $c"
	done
	npc_rc "no command: exit 2" 2 "$NPC"
	npc_rc "unknown command: exit 2" 2 "$NPC" frobnicate
	has "... and names it" "$T/out" "unknown command 'frobnicate'"
	npc_rc "explain without a number: exit 2" 2 "$NPC" explain --version $V
	npc_rc "explain, unknown family: exit 2" 2 "$NPC" explain 0x2a --version $V --family foo
	npc_rc "explain, not a number: exit 2" 2 "$NPC" explain zz --version $V
	npc_rc "explain, not a version: exit 2" 2 "$NPC" explain 0x2a --version 5x5
	npc_rc "status, unknown option: exit 2" 2 "$NPC" status --bogus
	npc_rc "stats, unknown option: exit 2" 2 "$NPC" stats --bogus
	npc_rc "cdi --gpus 0: exit 2" 2 "$NPC" cdi --gpus 0
	# one argument parser for every command (common.c)
	npc_rc "explain, a second number: exit 2" 2 "$NPC" explain 0x2a 0x2b --version $V
	has "... and names it" "$T/out" "explain: unexpected argument '0x2b'"
	npc_rc "cdi --output without a value: exit 2" 2 "$NPC" cdi --output
	has "... and says so" "$T/out" "cdi: --output needs a value"
	npc_rc "a flag given a value: exit 2" 2 "$NPC" stats --json=1
	npc_rc "explain --version=V" 0 "$NPC" explain 0x2a --version=$V --family=escape
	npc_rc "profile --caps=X takes the value" 2 "$NPC" profile --caps=bogus --log /dev/null
	has "... and checks it" "$T/out" "unknown capability in 'bogus'"

	# ---- explain against the committed tables ----------------------------------
	X="env NVPROXYCTL_ROOT=$E $NPC"
	npc_rc "explain NV_ESC_RM_CONTROL at $V" 0 $X explain 0x2a --version $V --family escape
	has "... size 32" "$T/out" "size:      32"
	has "... on the control node" "$T/out" "node:      control (/dev/nvidiactl)"
	has "... named from abi/releases" "$T/out" "name:      NV_ESC_RM_CONTROL"
	has "... params type" "$T/out" "params:    NVOS54_PARAMETERS"
	has "... holds pointers" "$T/out" "pointers:  yes"
	has "... admitted" "$T/out" "admitted:  yes"
	has "... default policy when not loaded" "$T/out" "defaults: nvmediate not loaded"
	$X explain 42 --version $V --family escape --json >"$T/j" 2>&1
	npc_py "explain --json: escape 42 size 32, exact, user" "$T/j" '
e = j["entries"]
assert j["number"] == 42 and j["tier"] == "exact" and j["version"] == "595.45.04", j
assert len(e) == 1 and e[0]["family"] == "escape", e
assert e[0]["size"] == 32 and e[0]["size_check"] == "exact" and e[0]["node"] == "control"
assert e[0]["privilege"] == "user" and e[0]["admitted"] == "yes" and e[0]["pointers"] is True
assert e[0]["name"] == "NV_ESC_RM_CONTROL"'
	# A deprecated control: converted before the method tables, which list
	# it too at 535; decided as its V2 control.
	npc_rc "explain a deprecated control (BUS_GET_INFO at 535)" 0 $X explain 0x20801802 \
		--version 535.288.01 --family control
	has "... the V2 control it becomes" "$T/out" "becomes:   control 0x20801823"
	has "... its list" "$T/out" "list:      pointer at byte 8, count at byte 0, 8 bytes each, at most 52, copied in and out"
	has "... the V2 control's capabilities" "$T/out" "caps:      compute utility video"
	$X explain 0x101 --version $V --family control --json >"$T/j" 2>&1
	npc_py "explain --json: GET_BUILD_VERSION, custom, becomes 0x13e, admitted" "$T/j" '
e = j["entries"]
assert len(e) == 1 and e[0]["size"] == 40 and e[0]["admitted"] == "yes", e
assert e[0]["deprecated"] == {"becomes": 0x13e, "custom": True}, e
assert e[0]["capabilities"] == "compute utility", e'
	npc_rc "explain 0x2a in every family: escape and UVM" 0 $X explain 0x2a --version $V
	has "... the escape" "$T/out" "escape 0x2a:"
	has "... the UVM command" "$T/out" "uvm 0x2a:"
	npc_rc "escape with an fd field (0x27)" 0 $X explain 0x27 --version $V --family escape
	has "... fd offset, and the node the driver looks it up as" "$T/out" \
		"fds:       yes, at offsets 48(4 bytes, looked up as either)"
	has "... GPU node" "$T/out" "node:      gpu (/dev/nvidiaN)"
	npc_rc "MIG GPU instance subscription class 0xc637" 0 $X explain 0xc637 --version $V --family class
	has "... its capDescriptor is looked up as a capability node" "$T/out" \
		"fds:       yes, at offsets 0(8 bytes, looked up as cap)"
	$X explain 0xd08 --version $V --family control --json >"$T/j" 2>&1
	npc_py "explain --json: SUBSCRIBE_TO_IMEX_CHANNEL's devDescriptor is an IMEX channel" "$T/j" '
e = j["entries"][0]
assert e["fd_offsets"] == [0] and e["fd_nodes"] == ["imex"], e
assert e["capabilities"] == "fabric-imex", e'
	for c in 0xc637 0xc638 0xc640 0xc639; do
		$X explain $c --version $V --family class --json >"$T/j.$c" 2>&1
	done
	npc_py "explain --json: the MIG subscriptions and monitor session are mig's, the config session no capability's" "$T/j.0xc637" '
for c, want in ((0xc637, "mig"), (0xc638, "mig"), (0xc640, "mig"), (0xc639, "none")):
    e = json.load(open(sys.argv[1][:-6] + hex(c)))["entries"][0]
    assert e["capabilities"] == want and e["fd_nodes"] == ["cap"], (hex(c), e)'
	$X explain 0x27 --version $V --family escape --json >"$T/j" 2>&1
	npc_py "explain --json: an fd the driver looks up on either node" "$T/j" '
e = j["entries"][0]
assert e["fd_offsets"] == [48] and e["fd_nodes"] == ["either"], e'
	npc_rc "administrator-only escape (0x5f)" 0 $X explain 0x5f --version $V --family escape
	has "... refused: esc-root" "$T/out" "admitted:  no: administrator-only: EPERM (esc-root)"

	npc_rc "root-only RM control 0x109" 0 $X explain 0x109 --version $V --family control
	has "... privilege root" "$T/out" "privilege: root"
	has "... size 40" "$T/out" "size:      40"
	has "... params type" "$T/out" "NV0000_CTRL_SYSTEM_GET_LOCK_TIMES_PARAMS"
	has "... refused: ctrl-root" "$T/out" "admitted:  no: administrator-only: EPERM (ctrl-root) unless allow_root=Y"
	$X explain 0x109 --version $V --family control --json >"$T/j" 2>&1
	npc_py "explain --json: control 0x109 is root, refused" "$T/j" '
e = j["entries"][0]
assert e["family"] == "control" and e["number"] == 0x109 and e["size"] == 40
assert e["privilege"] == "root" and e["admitted"] == "no" and "ctrl-root" in e["reason"]
assert j["policy"] == {"allow_root": False, "allow_finn": False, "allow_gss": False, "source": "defaults"}'
	npc_rc "user RM control 0x20800102" 0 $X explain 0x20800102 --version $V
	has "... admitted, with its params size" "$T/out" "admitted:  yes: any caller; paramsSize must be 564"
	npc_rc "kernel-only RM control 0x107" 0 $X explain 0x107 --version $V --family control
	has "... refused: kernel-only" "$T/out" "EPERM (kernel-only)"
	has "... size not recorded" "$T/out" "size:      not recorded"
	npc_rc "GSS-legacy RM control 0x2080a7d7" 0 $X explain 0x2080a7d7 --version $V
	has "... refused: ctrl-gss-legacy" "$T/out" "EPERM (ctrl-gss-legacy) unless allow_gss=Y"

	npc_rc "class NV01_MEMORY_SYSTEM 0x3e" 0 $X explain 0x3e --version $V --family class
	has "... size 128" "$T/out" "size:      128 (class params)"
	has "... named" "$T/out" "name:      NV01_MEMORY_SYSTEM"
	has "... params required" "$T/out" "params:    required"
	has "... admitted, params not NULL" "$T/out" "admitted:  yes: any caller; pAllocParms must not be NULL"
	$X explain 0x3e --version $V --family class --json >"$T/j" 2>&1
	npc_py "explain --json: class 0x3e" "$T/j" '
e = j["entries"]
assert len(e) == 1 and e[0]["family"] == "class" and e[0]["size"] == 128
assert e[0]["params"] == "required" and e[0]["admitted"] == "yes" and e[0]["name"] == "NV01_MEMORY_SYSTEM"'
	npc_rc "root-client class NV01_ROOT 0x0" 0 $X explain 0 --version $V --family class
	has "... admitted whatever the tables say" "$T/out" "admitted:  yes: root-client class"
	npc_rc "kernel-callback class 0x78" 0 $X explain 0x78 --version $V --family class
	has "... refused: class-kernel-callback" "$T/out" "EPERM (class-kernel-callback)"

	npc_rc "UVM_REGISTER_GPU 0x25" 0 $X explain 0x25 --version $V --family uvm
	has "... size 40" "$T/out" "size:      40"
	has "... on the UVM node" "$T/out" "node:      uvm (/dev/nvidia-uvm)"
	has "... named" "$T/out" "name:      UVM_REGISTER_GPU"
	$X explain 37 --version $V --family uvm --json >"$T/j" 2>&1
	npc_py "explain --json: UVM 37" "$T/j" '
e = j["entries"][0]
assert e["family"] == "uvm" and e["size"] == 40 and e["node"] == "uvm" and e["admitted"] == "yes"'
	npc_rc "UVM tools command 0x38" 0 $X explain 0x38 --version $V --family uvm
	has "... refused: uvm-node, ENOSYS from 570.86.15 (the module's own answer)" "$T/out" "ENOSYS (uvm-node)"
	npc_rc "UVM tools command 0x38 at 535.288.01" 0 $X explain 0x38 --version 535.288.01 --family uvm
	has "... refused: uvm-node, EINVAL before 570.86.15" "$T/out" "EINVAL (uvm-node)"
	npc_rc "capabilities of NV_ESC_RM_CONTROL" 0 $X explain 0x2a --version $V --family escape
	has "... every profile's" "$T/out" "caps:      every profile (base)"
	$X explain 0x109 --version $V --family control --json >"$T/j" 2>&1
	npc_py "explain --json: the rule and capabilities of the module's decision" "$T/j" '
e = j["entries"][0]
assert e["rule"] == "ctrl-root" and e["capabilities"] == "none", e'

	npc_rc "unknown number: exit 4" 4 $X explain 0x12345678 --version $V
	has "... says so" "$T/out" "0x12345678 is not an escape, RM control command, class or UVM command in driver 595.45.04's ABI"
	npc_rc "0x2a is no RM control: exit 4" 4 $X explain 0x2a --version $V --family control
	has "... says so" "$T/out" "is not an RM control command"
	npc_rc "version outside every range: exit 5" 5 $X explain 0x2a --version 400.1
	has "... says so" "$T/out" "outside every known ABI range"
	npc_rc "interpolated version" 0 $X explain 0x2a --version 535.171.05
	has "... tier and range" "$T/out" "(interpolated, range 535.161.07..535.179"
	npc_rc "ABI differs by version: NV_ESC_RM_CONTROL at 515.43.04" 0 $X explain 0x2a --version 515.43.04 --family escape
	has "... still 32 bytes" "$T/out" "size:      32"
	# a tool with no abi/ beside it: numbers only
	mkdir -p "$T/lone/bin"
	cp "$NPC" "$T/lone/bin/nvproxyctl"
	npc_rc "no abi/ directory found: number only" 0 env NVPROXYCTL_ROOT="$T/empty" "$T/lone/bin/nvproxyctl" \
		explain 0x2a --version $V --family escape
	if grep -q "name:" "$T/out"; then nok "... no name without abi/releases" "$T/out"; else ok "... no name without abi/releases"; fi
	npc_rc "explain without --version, nvmediate not loaded: exit 3" 3 $X explain 0x2a
	has "... says so" "$T/out" "nvmediate is not loaded"

	# ---- a fake loaded module ---------------------------------------------------
	F="$T/npc-fake"
	mkdir -p "$F/sys/module/nvmediate/parameters" "$F/sys/class/nvmediate" "$F/dev"
	echo 0.1.0 >"$F/sys/module/nvmediate/version"
	echo 535.171.05 >"$F/sys/class/nvmediate/driver_version"
	echo interpolated >"$F/sys/class/nvmediate/tier"
	echo 535.161.07..535.179 >"$F/sys/class/nvmediate/range"
	echo proc >"$F/sys/class/nvmediate/version_source"
	echo 79 >"$F/sys/class/nvmediate/ranges"
	P="$F/sys/module/nvmediate/parameters"
	echo 8 >"$P/num_gpus"
	echo /dev/nvidia-uvm >"$P/uvm_path"
	: >"$P/force_version"
	for p in accept_outside allow_finn allow_gss audit; do echo N >"$P/$p"; done
	echo Y >"$P/allow_root"
	echo 1 >"$P/bounce"
	mkdir -p "$F/proc/self"
	printf '%s\n' '30 25 0:44 / /run/nvmediate/default rw,nosuid,noexec,relatime shared:1 - nvmediatefs nvmediate rw,set=default,mode=0666' \
		'31 25 0:45 / /run/nvmediate/learn rw,relatime shared:2 - nvmediatefs nvmediate rw,set=learn,mode=0660,gid=44' \
		'32 25 0:46 / /tmp rw - tmpfs tmpfs rw' >"$F/proc/self/mountinfo"
	# character devices anyone can point at: their numbers are /dev/null's
	for n in nvproxy nvproxy-uvm nvproxy0 nvproxy1 nvproxy2; do ln -s /dev/null "$F/dev/$n"; done
	nmaj=$(( $(stat -L -c %t /dev/null | sed 's/^/0x/') ))
	nmin=$(( $(stat -L -c %T /dev/null | sed 's/^/0x/') ))
	Y="env NVPROXYCTL_ROOT=$F $NPC"

	# ---- releases -----------------------------------------------------------------
	# The branches the tables serve newer versions of, from nvabi show (the
	# tool that generated them): one that is served, one that is not.
	npc_rc "releases without nvmediate" 0 $X releases
	has "... the count" "$T/out" "$(ls "$root/abi/releases" | wc -l) releases in "
	has "... a branch whose successors are served" "$T/out" "580.142      served (successor)"
	has "... a branch too young for it" "$T/out" "595.45.04    refused (outside)"
	npc_rc "releases --ranges --json" 0 $X releases --ranges --json
	npc_py "... every range, and no loaded module" "$T/out" "
assert len(j['range_list']) == j['ranges'] and j['loaded'] is None, j['loaded']
b = {x['major']: x for x in j['branches']}
assert b[580]['successor'] and not b[595]['successor'] and b[580]['newest'] == '580.142', b[580]
"
	n=$(ls "$root/abi/releases" | wc -l)
	echo "$n $(ls "$root/abi/releases" | sed 's/\.abi$//' | sort -V | head -n 1) $(ls "$root/abi/releases" | sed 's/\.abi$//' | sort -V | tail -n 1)" \
		>"$F/sys/class/nvmediate/releases"
	npc_rc "releases: a loaded module with the same tables" 0 $Y releases
	has "... says so" "$T/out" "the loaded nvmediate knows the same releases"
	echo "12 515.43.04 535.288.01" >"$F/sys/class/nvmediate/releases"
	npc_rc "releases: a loaded module built from other tables: exit 1" 1 $Y releases
	has "... says what to do" "$T/out" "rebuild and reinstall both"
	rm "$F/sys/class/nvmediate/releases"

	# ---- stats --------------------------------------------------------------------
	npc_rc "stats without nvmediate: exit 3" 3 $X stats
	has "... a clear message" "$T/out" "nvmediate is not loaded"
	npc_rc "stats of a module without counters: exit 1" 1 $Y stats
	has "... says which files" "$T/out" "/sys/class/nvmediate/stats/"
	mkdir -p "$F/sys/class/nvmediate/stats"
	i=1
	for f in escape ctrl alloc uvm open mmap poll; do
		for v in forwarded refused answered audited; do
			echo $i >"$F/sys/class/nvmediate/stats/${f}_$v"	# every counter distinct
			i=$((i + 1))
		done
	done
	npc_rc "stats" 0 $Y stats
	has "... header" "$T/out" "family      forwarded      refused     answered      audited"
	has "... a family's row" "$T/out" "ctrl                5            6            7            8"
	has "... the last family" "$T/out" "poll               25           26           27           28"
	has "... ioctl totals (escape+ctrl+alloc+uvm)" "$T/out" "ioctls             28           32           36           40"
	$Y stats --json >"$T/j" 2>&1
	npc_py "stats --json: every counter where sysfs has it" "$T/j" "
fams = ['escape', 'ctrl', 'alloc', 'uvm', 'open', 'mmap', 'poll']
verds = ['forwarded', 'refused', 'answered', 'audited']
c = j['counters']
assert list(c) == fams, list(c)
for fi, f in enumerate(fams):
    assert list(c[f]) == verds, c[f]
    for vi, v in enumerate(verds):
        assert c[f][v] == fi * 4 + vi + 1, (f, v, c[f][v])
assert j['ioctls'] == {'forwarded': 28, 'refused': 32, 'answered': 36, 'audited': 40}, j['ioctls']
assert 'procs' not in j"
	npc_rc "stats --procs without debugfs: exit 1" 1 $Y stats --procs
	has "... says what is needed" "$T/out" "root and a mounted debugfs are needed"
	mkdir -p "$F/sys/kernel/debug/nvmediate"
	{
		printf 'pid=42 comm=python3 files=2'
		for f in escape ctrl alloc uvm open mmap poll; do
			for v in forwarded refused answered audited; do
				case ${f}_$v in
				ctrl_forwarded) printf ' %s=%s' "${f}_$v" 17 ;;
				open_forwarded) printf ' %s=%s' "${f}_$v" 2 ;;
				*) printf ' %s=0' "${f}_$v" ;;
				esac
			done
		done
		printf '\n'
	} >"$F/sys/kernel/debug/nvmediate/procs"
	npc_rc "stats --procs" 0 $Y stats --procs
	has "... a process, its nonzero counts" "$T/out" "  pid=42 comm=python3 files=2 ctrl_forwarded=17 open_forwarded=2"
	$Y stats --procs --json >"$T/j" 2>&1
	npc_py "stats --procs --json" "$T/j" "
p = j['procs']
assert len(p) == 1 and p[0]['pid'] == 42 and p[0]['comm'] == 'python3' and p[0]['files'] == 2, p
assert p[0]['ctrl_forwarded'] == 17 and p[0]['open_forwarded'] == 2 and p[0]['poll_audited'] == 0, p
assert len(p[0]) == 3 + 28, len(p[0])"

	npc_rc "explain --abi of a directory with no releases/: exit 1" 1 $Y explain 0x2a --family escape --abi "$T/none"
	has "... and says so" "$T/out" "is no ABI data directory"
	npc_rc "explain: version from sysfs" 0 $Y explain 0x2a --family escape
	has "... the running version" "$T/out" "in driver 535.171.05 (interpolated"
	npc_rc "explain: policy from sysfs (allow_root=Y)" 0 $Y explain 0x13d --family control
	has "... root-only admitted for CAP_SYS_ADMIN" "$T/out" "admitted:  root: administrator-only: forwarded for callers with CAP_SYS_ADMIN"
	has "... policy source" "$T/out" "from /sys/module/nvmediate/parameters"

	# ---- status -------------------------------------------------------------------
	npc_rc "status without nvmediate: exit 3" 3 $X status
	has "... a clear message" "$T/out" "nvmediate is not loaded"
	npc_rc "status --json without nvmediate: exit 3" 3 $X status --json
	$X status --json >"$T/j" 2>/dev/null
	npc_py "... and says so as JSON" "$T/j" "
assert j == {'loaded': False}, j"
	npc_rc "status of a loaded module" 0 $Y status
	has "... module version" "$T/out" "nvmediate 0.1.0"
	has "... driver version" "$T/out" "driver version:  535.171.05"
	has "... tier" "$T/out" "tier:            interpolated"
	has "... range" "$T/out" "range:           535.161.07..535.179"
	has "... source" "$T/out" "version source:  proc"
	has "... ranges" "$T/out" "ranges known:    79"
	has "... a parameter" "$T/out" "allow_root       Y"
	has "... bounce, writable at run time" "$T/out" "bounce           1"
	has "... the nvmediatefs mounts" "$T/out" "/run/nvmediate/learn  rw,set=learn,mode=0660,gid=44"
	has "... the control node and its numbers" "$T/out" "/dev/nvproxy       $(printf '%3u:%-3u' "$nmaj" "$nmin")  mediates /dev/nvidiactl"
	has "... a GPU node" "$T/out" "mediates /dev/nvidia2"
	has "... the policy" "$T/out" "policy (every node): enforce; allow_root=Y allow_finn=N allow_gss=N"
	has "... the call totals" "$T/out" "ioctls:            28 forwarded, 32 refused, 36 answered, 40 audited; 18 opens refused"
	$Y status --json >"$T/j" 2>&1
	npc_py "status --json" "$T/j" "
assert j['loaded'] is True and j['module_version'] == '0.1.0'
assert j['driver_version'] == '535.171.05' and j['tier'] == 'interpolated'
assert j['range'] == '535.161.07..535.179' and j['version_source'] == 'proc' and j['ranges'] == 79
p = j['parameters']
assert p['allow_root'] == 'Y' and p['allow_gss'] == 'N' and p['num_gpus'] == '8' and p['force_version'] == '' and p['bounce'] == '1'
assert j['nvmediatefs'] == [{'path': '/run/nvmediate/default', 'options': 'rw,set=default,mode=0666'}, {'path': '/run/nvmediate/learn', 'options': 'rw,set=learn,mode=0660,gid=44'}], j['nvmediatefs']
assert j['gpu_nodes'] == 3
paths = [n['path'] for n in j['nodes']]
assert paths == ['/dev/nvproxy', '/dev/nvproxy-uvm', '/dev/nvproxy0', '/dev/nvproxy1', '/dev/nvproxy2'], paths
assert all(n['present'] and n['major'] == $nmaj and n['minor'] == $nmin for n in j['nodes'])"
	$Y status --json >"$T/j" 2>&1
	npc_py "status --json: policy and call totals" "$T/j" "
assert j['policy'] == {'nodes': 'all', 'mode': 'enforce', 'allow_root': True, 'allow_finn': False, 'allow_gss': False}, j['policy']
assert j['calls'] == {'forwarded': 28, 'refused': 32, 'answered': 36, 'audited': 40, 'open_refused': 18}, j['calls']"
	echo Y >"$P/audit"
	$Y status --json >"$T/j" 2>&1
	npc_py "status --json: audit mode" "$T/j" "
assert j['policy']['mode'] == 'audit', j['policy']"
	echo N >"$P/audit"

	# ---- cdi ------------------------------------------------------------------------
	# cdi_ok DESC FILE GPUS [SET]: the spec's structure; GPUS "0:UUID 1:" (index:uuid)
	cdi_ok() {
		npc_py "$1" "$2" "
import jsonschema
schema = json.load(open('$root/tests/tools/cdi-schema.json'))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.Draft7Validator(schema).validate(j)
gpus = [g.split(':', 1) for g in '$3'.split()]
st = '${4:-}'
host = (lambda w: {'c': '/dev/nvproxy', 'u': '/dev/nvproxy-uvm'}.get(w, '/dev/nvproxy' + w)) if not st else \\
       (lambda w: '/dev/nvmediate/%s/' % st + {'c': 'nvidiactl', 'u': 'nvidia-uvm'}.get(w, 'nvidia' + w))
# nvmediatefs, mounted at /run/nvmediate/SET: the node at the driver's numbers
twin = lambda w: '/run/nvmediate/%s/' % (st or 'default') + {'c': 'nvidiactl', 'u': 'nvidia-uvm'}.get(w, 'nvidia' + w)
# 0.5.0: index names start with a digit; nothing needs more
assert j['cdiVersion'] == '0.5.0', j['cdiVersion']
assert j['kind'] == ('nvmediate.io/set-' + st if st else 'nvmediate.io/gpu'), j['kind']
want = []
for k, u in gpus:
    want += [k] + ([u] if u else [])
assert [d['name'] for d in j['devices']] == want + ['all'], [d['name'] for d in j['devices']]
def edits(e, nodes, top=False):
    # a device node at the mediated node's own path, no numbers, no raw node;
    # a bind mount of its nvmediatefs twin onto the driver's name; and, for
    # every device, NVIDIA's runtime told to add nothing
    if top:
        assert e.get('env') == ['NVIDIA_VISIBLE_DEVICES=void'], e
        e = {k: v for k, v in e.items() if k != 'env'}
    assert [x['path'] for x in e['deviceNodes']] == [host(w) for w, c in nodes], e
    for x in e['deviceNodes']:
        assert set(x) == {'path', 'type'} and x['type'] == 'c', x
    assert [(m['hostPath'], m['containerPath'], m['options']) for m in e['mounts']] == \\
        [(twin(w), c, ['bind']) for w, c in nodes], e['mounts']
    assert set(e) == {'deviceNodes', 'mounts'}, e
edits(j['containerEdits'], [('c', '/dev/nvidiactl'), ('u', '/dev/nvidia-uvm')], True)
for d in j['devices'][:-1]:
    k = d['name'] if d['name'].isdigit() else [g[0] for g in gpus if g[1] == d['name']][0]
    edits(d['containerEdits'], [(k, '/dev/nvidia' + k)])
edits(j['devices'][-1]['containerEdits'], [(k, '/dev/nvidia' + k) for k, u in gpus])
assert '/dev/nvidia' not in json.dumps([x['path'] for d in j['devices'] for x in d['containerEdits']['deviceNodes']])"
	}
	npc_rc "cdi --gpus 2, no nodes on the host" 0 $X cdi --gpus 2
	has "... says it names no driver file" "$T/out" "the nvidia module's version is not known"
	$X cdi --gpus 2 >"$T/cdi1" 2>/dev/null
	cdi_ok "cdi --gpus 2: structure, by index only" "$T/cdi1" "0: 1:"
	npc_rc "cdi --output FILE" 0 $X cdi --gpus 4 --output "$T/cdi.json"
	cdi_ok "cdi --output: the file holds the spec" "$T/cdi.json" "0: 1: 2: 3:"
	npc_rc "cdi without nodes and without --gpus: exit 3" 3 $X cdi
	has "... says why" "$T/out" "no /dev/nvproxyN node found"
	npc_rc "cdi with nodes but no driver: exit 3" 3 $Y cdi
	has "... says why" "$T/out" "the nvidia driver is not loaded"
	# the driver's GPUs (nv-procfs.c's format): minors 0, 2, 5 (no node), 1 excluded
	G="$F/proc/driver/nvidia/gpus"
	for k in 0 1 2 5; do
		mkdir -p "$G/0000:0$((k + 1)):00.0"
		printf 'Model: \t\t NVIDIA X\nIRQ:   \t\t 30\nGPU UUID: \t GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae0%d\nVideo BIOS: \t ??.??\nBus Type: \t PCIe\nDevice Minor: \t %d\nGPU Excluded:\t %s\n' \
			"$k" "$k" "$([ $k = 1 ] && echo Yes || echo No)" >"$G/0000:0$((k + 1)):00.0/information"
	done
	npc_rc "cdi with nodes and the driver's GPUs" 0 $Y cdi
	has "... says which GPU has no node" "$T/out" "GPU 5 (GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae05) has no mediated node"
	$Y cdi >"$T/cdi2" 2>/dev/null
	cdi_ok "cdi: the driver's GPUs with a node, by index and UUID, excluded left out" "$T/cdi2" \
		"0:GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae00 2:GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae02"
	npc_rc "cdi, unwritable output: exit 1" 1 $X cdi --gpus 1 --output "$T/none/x/spec.json"

	# The driver's user space (driverfiles.c): a host whose linker
	# configuration names /opt/nv/lib (Debian's files relocated there) and
	# whose /usr/lib has one more library, of the loaded release and of
	# another; nvidia-smi in /opt/nv/bin.
	D="$T/npc-driver"
	mkdir -p "$D/sys/module/nvidia" "$D/etc/ld.so.conf.d" "$D/opt/nv/lib" "$D/opt/nv/bin" \
		"$D/usr/lib/x86_64-linux-gnu" "$D/usr/bin" "$D/dev"
	echo 550.163.01 >"$D/sys/module/nvidia/version"
	echo "include /etc/ld.so.conf.d/*.conf" >"$D/etc/ld.so.conf"
	printf '# the driver\n  /opt/nv/lib  \n' >"$D/etc/ld.so.conf.d/nv.conf"
	for l in libcuda.so libnvidia-ml.so; do
		: >"$D/opt/nv/lib/$l.550.163.01"
		: >"$D/opt/nv/lib/$l.535.261.03"
		ln -sf "$l.550.163.01" "$D/opt/nv/lib/$l.1"
	done
	: >"$D/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.163.01"
	: >"$D/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.163.01"
	: >"$D/opt/nv/bin/nvidia-smi"
	: >"$D/usr/bin/nvidia-debugdump"
	Z="env NVPROXYCTL_ROOT=$D $NPC"
	npc_rc "cdi: the driver's files of the loaded release" 0 $Z cdi --gpus 1 --bin-dirs /opt/nv/bin
	cp "$T/out" "$T/files.json"
	npc_py "... libraries where the linker looks, programs in /usr/bin, the ldcache hook, void; schema" "$T/files.json" "
import jsonschema, os
jsonschema.Draft7Validator(json.load(open('$root/tests/tools/cdi-schema.json'))).validate(j)
e = j['containerEdits']
D = '$D'
files = [(m['hostPath'], m['containerPath']) for m in e['mounts'] if m['options'] != ['bind']]
assert files == [
    (D + '/opt/nv/lib/libcuda.so.550.163.01', '/opt/nv/lib/libcuda.so.550.163.01'),
    (D + '/opt/nv/lib/libnvidia-ml.so.550.163.01', '/opt/nv/lib/libnvidia-ml.so.550.163.01'),
    (D + '/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.163.01', '/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.163.01'),
    (D + '/opt/nv/bin/nvidia-smi', '/usr/bin/nvidia-smi'),
    (D + '/usr/bin/nvidia-debugdump', '/usr/bin/nvidia-debugdump')], files
assert all(m['options'] == ['ro', 'nosuid', 'nodev', 'bind'] for m in e['mounts'] if m['options'] != ['bind'])
assert e['hooks'] == [{'hookName': 'createContainer', 'path': os.path.realpath('$NPC'), 'timeout': 90,
    'args': ['nvproxyctl', 'hook', 'update-ldcache', '/opt/nv/lib', '/usr/lib/x86_64-linux-gnu']}], e['hooks']
assert e['env'] == ['NVIDIA_VISIBLE_DEVICES=void'], e['env']
assert all(set(d['containerEdits']) == {'deviceNodes', 'mounts'} for d in j['devices'])"
	npc_rc "cdi --driver-version 535.261.03: that release's files" 0 $Z cdi --gpus 1 --driver-version 535.261.03
	has "... its libcuda" "$T/out" "/opt/nv/lib/libcuda.so.535.261.03"
	npc_rc "cdi, no libcuda of the loaded release: the nodes only" 0 $Z cdi --gpus 1 --driver-version 560.1.2
	has "... and says where it looked" "$T/out" "no libcuda.so.560.1.2 below '$D' in /opt/nv/lib /lib/x86_64-linux-gnu"
	if grep -q '"hooks"\|libnvidia-ml' "$T/out"; then nok "... naming no driver file" "$T/out"; else ok "... naming no driver file"; fi
	npc_rc "cdi --no-driver-files" 0 $Z cdi --gpus 1 --no-driver-files
	if grep -q 'hooks\|libcuda' "$T/out" || ! grep -q 'NVIDIA_VISIBLE_DEVICES=void' "$T/out"; then
		nok "... names no driver file, still sets void" "$T/out"
	else
		ok "... names no driver file, still sets void"
	fi
	npc_rc "cdi --lib-dirs: looked in first" 0 $Z cdi --gpus 1 --lib-dirs /nowhere:/usr/lib/x86_64-linux-gnu
	has "... a library found there before the linker's configuration" "$T/out" "\"hostPath\": \"$D/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.163.01\""
	npc_rc "cdi --driver-root, not absolute: exit 2" 2 $Z cdi --gpus 1 --driver-root run/nvidia/driver
	npc_rc "cdi --driver-root DIR" 0 $X cdi --gpus 1 --driver-root "$D" --driver-version 550.163.01
	has "... the files below DIR, at their paths in it" "$T/out" "\"hostPath\": \"$D/opt/nv/lib/libcuda.so.550.163.01\", \"containerPath\": \"/opt/nv/lib/libcuda.so.550.163.01\""
	npc_rc "cdi --from with --lib-dirs: exit 2" 2 $Z cdi --from "$root/tests/tools/nvidia-ctk.yaml" --lib-dirs /x
	npc_rc "hook without a name: exit 2" 2 "$NPC" hook
	npc_rc "hook update-ldcache, a relative directory: exit 2" 2 "$NPC" hook update-ldcache lib
	npc_rc "hook update-ldcache, no state: exit 1" 1 sh -c "echo '{}' | $NPC hook update-ldcache /opt/nv/lib"
	has "... says why" "$T/out" "the state names no pid"
	hook_tests
	npc_rc "--version exits 0" 0 "$NPC" --version
	has "... prints VERSION" "$T/out" "nvproxyctl $(cat "$root/VERSION")"

	# ---- node sets: profile, apply, status, cdi --set (docs/policy.md) -------------
	for c in profile apply; do
		npc_rc "$c --help exits 0" 0 "$NPC" "$c" --help
		has "$c --help: usage line" "$T/out" "usage: nvproxyctl $c"
		has "$c --help: exit codes" "$T/out" "6 no such set"
	done
	S="$F/sys/kernel/nvmediate/sets"
	for set in default learn prod; do
		mkdir -p "$S/$set"
		echo "compute utility" >"$S/$set/caps"
		for k in audit allow_root allow_finn allow_gss open_files; do echo 0 >"$S/$set/$k"; done
		: >"$S/$set/allow"
		: >"$S/$set/refused"
	done
	echo 1 >"$S/learn/audit"
	# the record of an audit run: profile refusals, knob refusals, shape refusals
	cat >"$S/learn/refused" <<-EOT
	ctrl 0x20800a01 ctrl-profile 3
	alloc 0x80 alloc-profile 1
	ctrl 0xff0001 ctrl-unknown 2
	uvm 0x30000001 uvm-profile 1
	esc 0xd6 esc-profile 4
	ctrl 0x2080a083 ctrl-gss-legacy 1
	ctrl 0x201 ctrl-profile 9
	EOT
	npc_rc "profile --set learn" 0 $Y profile --set learn
	cp "$T/out" "$T/p.all"
	$Y profile --set learn >"$T/p" 2>/dev/null
	# exactly one allow line per call a profile refused, sorted by family and number
	grep -v '^#' "$T/p" >"$T/p.body"
	cat >"$T/p.want" <<-EOT
	caps none
	audit 0
	allow_root 0
	allow_finn 0
	allow_gss 1
	allow esc 0xd6
	allow ctrl 0x201
	allow ctrl 0x20800a01
	allow alloc 0x80
	allow uvm 0x30000001
	EOT
	if cmp -s "$T/p.want" "$T/p.body"; then ok "profile: the calls the run made, no more"; else
		diff "$T/p.want" "$T/p.body" >"$T/p.diff"; nok "profile: the calls the run made, no more" "$T/p.diff"; fi
	has "profile: shape refusals listed, not admitted" "$T/p" "#   ctrl 0xff0001 ctrl-unknown (2)"
	has "profile: ... and said on stderr" "$T/p.all" "refusals no profile admits"
	npc_rc "profile --caps compute+utility" 0 $Y profile --set learn --caps compute+utility
	has "... the caps line" "$T/out" "caps compute utility"
	npc_rc "profile --caps bogus: exit 2" 2 $Y profile --set learn --caps bogus
	has "... naming the words, mig among them" "$T/out" "fabric-imex rdma mig, none, all"
	npc_rc "profile --caps all" 0 $Y profile --set learn --caps all
	has "... every capability, mig the eighth" "$T/out" \
		"caps compute utility graphics video profiling fabric-imex rdma mig"
	npc_rc "profile of a set that does not exist: exit 6" 6 $Y profile --set nosuch
	npc_rc "profile, nvmediate not loaded: exit 3" 3 $X profile --set learn
	npc_rc "profile, not a set name: exit 2" 2 $Y profile --set Bad/Name
	echo "ctrl 0x1 ctrl-profile" >"$S/prod/refused"
	npc_rc "profile, a record line that does not parse: exit 1" 1 $Y profile --set prod
	: >"$S/prod/refused"

	# from log lines: only nvmediate's audit lines, only the set's nodes with --set
	cat >"$T/log" <<-'EOT'
	[   21.1] nvmediate: driver 595.45.04 (from module): known release
	[   21.2] nvmediate: audit pid=360 comm=app cgroup=/a node=nvmediate/learn/nvidiactl family=ctrl nr=0x201 name=NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS size=32 rule=ctrl-profile answer=status:0x56
	[   21.3] nvmediate: audit pid=360 comm=app cgroup=/a node=nvmediate/learn/nvidia-uvm family=uvm nr=0x30000001 name=UVM_INITIALIZE size=0 rule=uvm-profile answer=-1
	[   21.4] nvmediate: audit pid=361 comm=other cgroup=/b node=nvproxy family=escape nr=0xd6 name=NV_ESC_SYS_PARAMS size=8 rule=esc-profile answer=-1
	[   21.5] nvmediate: audit pid=360 comm=app cgroup=/a node=nvmediate/learn/nvidiactl family=ctrl nr=0x201 name=NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS size=32 rule=ctrl-profile answer=status:0x56
	EOT
	npc_rc "profile --log FILE --set learn" 0 "$NPC" profile --log "$T/log" --set learn
	grep '^allow ' "$T/out" >"$T/l.allow"
	printf 'allow ctrl 0x201\nallow uvm 0x30000001\n' >"$T/l.want"
	if cmp -s "$T/l.want" "$T/l.allow"; then ok "profile --log: the set's lines, deduplicated"; else
		nok "profile --log: the set's lines, deduplicated" "$T/out"; fi
	"$NPC" profile --log - <"$T/log" >"$T/out" 2>&1
	has "profile --log - (stdin), every set" "$T/out" "allow esc 0xd6"
	npc_rc "profile --log of a missing file: exit 1" 1 "$NPC" profile --log "$T/nosuch"
	echo "nvmediate: audit pid=1 family=ctrl" >"$T/badlog"
	npc_rc "profile --log, an audit line without its fields: exit 1" 1 "$NPC" profile --log "$T/badlog"

	# apply: the allow list is replaced, then the knobs; audit written last
	npc_rc "apply --set prod FILE" 0 $Y apply --set prod "$T/p"
	printf 'clear\nesc 0xd6\nctrl 0x201\nctrl 0x20800a01\nalloc 0x80\nuvm 0x30000001\n' >"$T/a.want"
	if cmp -s "$T/a.want" "$S/prod/allow"; then ok "apply: one write of the allow list, starting with clear"; else
		nok "apply: one write of the allow list, starting with clear" "$S/prod/allow"; fi
	has "apply: caps" "$S/prod/caps" "none"
	has "apply: allow_gss" "$S/prod/allow_gss" "1"
	has "apply: audit" "$S/prod/audit" "0"
	$Y apply --set learn - <"$T/p" >"$T/out" 2>&1
	has "apply from stdin" "$S/learn/audit" "0"
	printf 'caps compute\nallow ctrl zz\n' >"$T/bad.p"
	echo untouched >"$S/prod/caps"
	npc_rc "apply, a line that does not parse: exit 2" 2 $Y apply --set prod "$T/bad.p"
	has "... nothing written" "$S/prod/caps" "untouched"
	npc_rc "apply without --set: exit 2" 2 $Y apply "$T/p"
	npc_rc "apply to a set that does not exist: exit 6" 6 $Y apply --set nosuch "$T/p"
	npc_rc "apply, nvmediate not loaded: exit 3" 3 $X apply --set prod "$T/p"
	# many entries: several writes, each under a page
	{ echo "caps none"; i=0; while [ $i -lt 400 ]; do printf 'allow ctrl 0x%x\n' $((0x20800000 + i)); i=$((i + 1)); done; } >"$T/big.p"
	npc_rc "apply, 400 entries" 0 $Y apply --set prod "$T/big.p"
	has "... the last write holds the last entries" "$S/prod/allow" "ctrl 0x2080018f"
	sz=$(wc -c <"$S/prod/allow")
	if [ "$sz" -lt 4096 ]; then ok "... each write under a page ($sz bytes)"; else nok "apply: a write of $sz bytes"; fi

	# apply: the capability nodes and IMEX channels a profile lists
	printf 'caps compute\nnvidia_cap 237:12\nnvidia_cap 237:13\nimex_channel 236:1\n' >"$T/nodes.p"
	echo kept >"$S/prod/imex_channels"
	npc_rc "apply, nvidia_cap and imex_channel lines" 0 $Y apply --set prod "$T/nodes.p"
	if [ "$(tr '\n' ' ' <"$S/prod/nvidia_caps")" = "237:12 237:13 " ] &&
	   [ "$(tr '\n' ' ' <"$S/prod/imex_channels")" = "236:1 " ]; then
		ok "... written to nvidia_caps and imex_channels"
	else
		nok "apply: nvidia_caps '$(cat "$S/prod/nvidia_caps")', imex_channels '$(cat "$S/prod/imex_channels")'"
	fi
	echo kept >"$S/prod/nvidia_caps"
	npc_rc "apply, no node lines" 0 $Y apply --set prod "$T/p"
	has "... the set's nodes left as they were" "$S/prod/nvidia_caps" "kept"
	printf 'nvidia_cap none\n' >"$T/nodes.p"
	npc_rc "apply, nvidia_cap none" 0 $Y apply --set prod "$T/nodes.p"
	has "... the set's capability nodes emptied" "$S/prod/nvidia_caps" "none"
	for bad in 237 237:-1 4096:1 237:1048576 0:1; do
		printf 'caps none\nnvidia_cap %s\n' "$bad" >"$T/nodes.p"
		echo kept >"$S/prod/caps"
		npc_rc "apply, nvidia_cap $bad: exit 2" 2 $Y apply --set prod "$T/nodes.p"
		has "... nothing written" "$S/prod/caps" "kept"
	done
	i=0; : >"$T/nodes.p"; while [ $i -lt 65 ]; do echo "imex_channel 236:$i" >>"$T/nodes.p"; i=$((i + 1)); done
	npc_rc "apply, 65 nodes: exit 2" 2 $Y apply --set prod "$T/nodes.p"
	rm -f "$S/prod/nvidia_caps" "$S/prod/imex_channels"

	# status lists the sets
	echo "ctrl 0x201" >"$S/learn/allow"
	printf '237:12\n237:13\n' >"$S/learn/nvidia_caps"
	npc_rc "status with sets" 0 $Y status
	has "... the default set" "$T/out" "  default      /dev/nvproxy ..."
	has "... a set's nodes" "$T/out" "  learn        /dev/nvmediate/learn/nvidiactl ..."
	has "... its allow entries" "$T/out" "    allow ctrl 0x201"
	has "... its capability nodes" "$T/out" "    nvidia_cap 237:13"
	$Y status --json >"$T/j" 2>&1
	npc_py "status --json: sets" "$T/j" "
s = {x['name']: x for x in j['sets']}
assert [x['name'] for x in j['sets']] == ['default', 'learn', 'prod'], j['sets']
assert s['learn']['control_node'] == '/dev/nvmediate/learn/nvidiactl'
assert s['learn']['caps'] == 'none' and s['learn']['audit'] is False and s['learn']['allow_gss'] is True
assert s['learn']['allow'] == ['ctrl 0x201'] and s['learn']['open_files'] == 0
assert s['learn']['nvidia_caps'] == ['237:12', '237:13'] and s['learn']['imex_channels'] == []
assert s['default']['control_node'] == '/dev/nvproxy'"
	rm -f "$S/learn/nvidia_caps"

	# cdi --set: the set's nodes under the names CUDA expects
	mkdir -p "$F/dev/nvmediate/learn"
	for n in nvidiactl nvidia-uvm nvidia0 nvidia1; do ln -s /dev/null "$F/dev/nvmediate/learn/$n"; done
	npc_rc "cdi --set learn" 0 $Y cdi --set learn
	$Y cdi --set learn >"$T/cdi3" 2>/dev/null
	cdi_ok "cdi --set learn: kind, the set's nodes, GPU 2 (no node in the set) left out" "$T/cdi3" \
		"0:GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae00" learn
	npc_rc "cdi --set default is the default spec" 0 $Y cdi --set default
	has "... kind" "$T/out" '"kind": "nvmediate.io/gpu"'
	npc_rc "cdi --set without its nodes: exit 3" 3 $Y cdi --set prod
	npc_rc "cdi --set of a set nvmediate does not have: exit 6" 6 $Y cdi --set nosuch
	has "... and says so" "$T/out" "cdi: no node set 'nosuch'"
	npc_rc "cdi --set, not a set name: exit 2" 2 $Y cdi --set Bad/Name
	npc_rc "cdi --set, a name that makes no CDI class (ends in '-'): exit 2" 2 $Y cdi --set learn-
	npc_rc "profile --set, ends in '_': exit 2" 2 $Y profile --set learn_
	# cdi --from: a spec of nvidia-ctk's shape (tests/tools/nvidia-ctk.yaml); the fake
	# host has /dev/nvproxy0..2, so GPU 3 is not mediated
	CTK="$root/tests/tools/nvidia-ctk.yaml"
	$Y cdi --from "$CTK" >"$T/from.json" 2>"$T/from.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --from a YAML spec"; else nok "cdi --from a YAML spec (exit $_r)" "$T/from.err"; fi
	for w in "dropped /dev/nvidia-modeset" "dropped /dev/nvidia-uvm-tools" "dropped /dev/dri/card1" \
		 "dropped /dev/dri/renderD128" "dropped /dev/nvidia3: GPU 3 has no mediated node" \
		 "dropped the device '3'" "its argument '/dev/dri' names a path under /dev"; do
		has "cdi --from says: $w" "$T/from.err" "$w"
	done
	npc_py "cdi --from: nvidia-ctk's mounts, hooks, env kept; nodes mediated; schema" "$T/from.json" "
import yaml, jsonschema
jsonschema.Draft7Validator(json.load(open('$root/tests/tools/cdi-schema.json'))).validate(j)
src = yaml.safe_load(open('$CTK'))
assert j['cdiVersion'] == '0.5.0' and j['kind'] == 'nvmediate.io/gpu', (j['cdiVersion'], j['kind'])
e, s = j['containerEdits'], src['containerEdits']
assert e['env'] == s['env'] and e['hooks'] == s['hooks'], e
assert e['mounts'][:len(s['mounts'])] == s['mounts'], e['mounts']
# the toolkit's nodes: modeset and uvm-tools dropped, uvm and ctl mediated
assert e['deviceNodes'] == [{'path': '/dev/nvproxy-uvm', 'type': 'c'}, {'path': '/dev/nvproxy', 'type': 'c'}], e['deviceNodes']
assert e['mounts'][len(s['mounts']):] == [
    {'hostPath': '/run/nvmediate/default/nvidia-uvm', 'containerPath': '/dev/nvidia-uvm', 'options': ['bind']},
    {'hostPath': '/run/nvmediate/default/nvidiactl', 'containerPath': '/dev/nvidiactl', 'options': ['bind']}], e['mounts']
names = [d['name'] for d in j['devices']]
assert names == ['0', 'GPU-4f1c2d3e-aaaa-bbbb-cccc-0123456789ab', '1', 'GPU-9e8d7c6b-dddd-eeee-ffff-ba9876543210', 'all'], names
gpus = {'0': [0], 'GPU-4f1c2d3e-aaaa-bbbb-cccc-0123456789ab': [0], '1': [1], 'GPU-9e8d7c6b-dddd-eeee-ffff-ba9876543210': [1], 'all': [0, 1]}
for d in j['devices']:
    de = d['containerEdits']
    assert de['deviceNodes'] == [{'path': '/dev/nvproxy%d' % k, 'type': 'c'} for k in gpus[d['name']]], d
    assert de['mounts'] == [{'hostPath': '/run/nvmediate/default/nvidia%d' % k, 'containerPath': '/dev/nvidia%d' % k, 'options': ['bind']} for k in gpus[d['name']]], d
    assert de.get('hooks', []) == [], d     # both of device 0's act on /dev/dri
assert '\"/dev/nvidia' not in json.dumps([x for d in j['devices'] for x in d['containerEdits']['deviceNodes']] + e['deviceNodes'])"
	# the same spec as JSON gives the same result; the YAML reader agrees with PyYAML
	"$PY" -c "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], 'w'))" \
		"$CTK" "$T/ctk.json"
	$Y cdi --from "$T/ctk.json" >"$T/from2.json" 2>/dev/null
	if cmp -s "$T/from.json" "$T/from2.json"; then ok "cdi --from: JSON and YAML input give the same spec"
	else diff "$T/from.json" "$T/from2.json" >"$T/py.out"; nok "cdi --from: JSON and YAML input give the same spec" "$T/py.out"; fi
	$Y cdi --from - --set learn <"$CTK" >"$T/from3.json" 2>/dev/null
	npc_py "cdi --from - --set learn: the set's nodes" "$T/from3.json" "
assert j['kind'] == 'nvmediate.io/set-learn'
assert [d['name'] for d in j['devices']] == ['0', 'GPU-4f1c2d3e-aaaa-bbbb-cccc-0123456789ab', '1', 'GPU-9e8d7c6b-dddd-eeee-ffff-ba9876543210', 'all']
assert j['devices'][4]['containerEdits']['mounts'][1] == {'hostPath': '/run/nvmediate/learn/nvidia1', 'containerPath': '/dev/nvidia1', 'options': ['bind']}"
	# annotations need 0.6.0; a field this tool does not know keeps the input's version
	sed 's/^kind: nvidia.com\/gpu/kind: nvidia.com\/gpu\nannotations:\n  a: b/' "$CTK" >"$T/ann.yaml"
	$Y cdi --from "$T/ann.yaml" >"$T/out" 2>/dev/null
	has "cdi --from: annotations need cdiVersion 0.6.0" "$T/out" '"cdiVersion": "0.6.0"'
	sed 's/^cdiVersion: 0.5.0/cdiVersion: 0.9.0\nfutureField: 1/' "$CTK" >"$T/fut.yaml"
	$Y cdi --from "$T/fut.yaml" >"$T/out" 2>/dev/null
	has "cdi --from: an unknown field keeps the input's cdiVersion" "$T/out" '"cdiVersion": "0.9.0"'
	printf 'cdiVersion: 0.5.0\nkind: &k nvidia.com/gpu\ndevices: []\n' >"$T/anchor.yaml"
	npc_rc "cdi --from, YAML with an anchor: exit 2" 2 $Y cdi --from "$T/anchor.yaml"
	has "... names the line" "$T/out" "line 2:"
	printf '{"cdiVersion": "0.5.0", "kind": "x/y", "devices": [}\n' >"$T/bad.json"
	npc_rc "cdi --from, bad JSON: exit 2" 2 $Y cdi --from "$T/bad.json"
	printf 'a: 1\n' >"$T/nospec.yaml"
	npc_rc "cdi --from, not a CDI spec: exit 2" 2 $Y cdi --from "$T/nospec.yaml"
	npc_rc "cdi --from without mediated nodes: exit 3" 3 $X cdi --from "$CTK"
	npc_rc "cdi --from with --gpus: exit 2" 2 $Y cdi --from "$CTK" --gpus 2
	# ---- MIG instances and IMEX channels (cdi, cdi --from, cdi --imex-channels) ----
	# A copy of the fake host with the driver's capabilities tree
	# (nv-caps.c's files: gpu<MINOR>/mig/gi<G>[/ci<C>]/access), its majors in
	# /proc/devices and its parameters; MIG instances 0:1:0 (access nodes 12,
	# 13), 0:2:0 (21, 22), 2:3:0 (30, 31), 2:3:1 (30, 32, whose file says the
	# node is the administrator's to make), 5:1:0 (GPU 5 has no mediated node);
	# nodes 12, 13, 21, 22 on the host (links to /dev/null), 30-32 not.
	M="$T/npc-mig"
	cp -a "$F" "$M"
	W="env NVPROXYCTL_ROOT=$M $NPC"
	printf 'Character devices:\n  1 mem\n195 nvidia\n237 nvidia-caps\n238 nvidia-caps-imex-channels\n239 nvidia-uvm\n\nBlock devices:\n  8 sd\n' >"$M/proc/devices"
	printf 'ModifyDeviceFiles: 1\nDeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\nImexChannelCount: 2048\n' >"$M/proc/driver/nvidia/params"
	NC="$M/proc/driver/nvidia/capabilities"
	capf() {	# capf FILE MINOR MODE MODIFY
		mkdir -p "$(dirname "$NC/$1")"
		printf 'DeviceFileMinor: %s\nDeviceFileMode: %s\nDeviceFileModify: %s\n' "$2" "$3" "$4" >"$NC/$1"
	}
	capf mig/config 1 256 1
	capf mig/monitor 2 292 1
	capf gpu0/mig/gi1/access 12 292 1
	capf gpu0/mig/gi1/ci0/access 13 292 1
	capf gpu0/mig/gi2/access 21 292 1
	capf gpu0/mig/gi2/ci0/access 22 292 1
	mkdir -p "$NC/gpu1/mig" "$NC/gpu2/mig/gi3"
	capf gpu2/mig/gi3/access 30 292 1
	capf gpu2/mig/gi3/ci0/access 31 292 1
	capf gpu2/mig/gi3/ci1/access 32 292 0
	capf gpu5/mig/gi1/access 50 292 1
	capf gpu5/mig/gi1/ci0/access 51 292 1
	mkdir -p "$M/dev/nvidia-caps" "$M/dev/nvidia-caps-imex-channels"
	for m in 12 13 21 22; do ln -s /dev/null "$M/dev/nvidia-caps/nvidia-cap$m"; done
	ln -s /dev/null "$M/dev/nvidia-caps-imex-channels/channel0"
	ln -s /dev/null "$M/dev/nvidia-caps-imex-channels/channel2"
	MS="$M/sys/kernel/nvmediate/sets"
	: >"$M/sys/kernel/nvmediate/create_set"
	# mig-0-1-0 and mig-0-2-0 are there (the second without mig); the others
	# are not (a fake set is there when its caps are)
	for s in mig-0-1-0 mig-0-2-0 mig-2-3-0 mig-2-3-1; do
		mkdir -p "$MS/$s" "$M/dev/nvmediate/$s"
		for n in nvidiactl nvidia-uvm nvidia0 nvidia2; do ln -s /dev/null "$M/dev/nvmediate/$s/$n"; done
	done
	echo "compute utility mig" >"$MS/mig-0-1-0/caps"
	echo "compute utility" >"$MS/mig-0-2-0/caps"
	# Making the missing nodes takes root and mknod; without, cdi says so.
	MK=0
	if [ "$(id -u)" = 0 ] && mknod "$T/mknod-probe" c 1 3 2>/dev/null; then MK=1; rm -f "$T/mknod-probe"; fi
	U0=GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae00
	U2=GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae02
	$W cdi --no-driver-files >"$T/mig1.json" 2>"$T/mig1.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi on a host with MIG instances"; else nok "cdi on a host with MIG instances (exit $_r)" "$T/mig1.err"; fi
	npc_py "... a device G:GI:CI per instance of a listed GPU, its own set's nodes and its two access nodes; all without them; schema" "$T/mig1.json" "
import jsonschema
jsonschema.Draft7Validator(json.load(open('$root/tests/tools/cdi-schema.json'))).validate(j)
assert j['cdiVersion'] == '0.5.0' and j['kind'] == 'nvmediate.io/gpu'
mig = ['0:1:0', '0:2:0'] + (['2:3:0'] if $MK else [])
names = [d['name'] for d in j['devices']]
assert names == ['0', '$U0', '2', '$U2'] + mig + ['all'], names
# the spec's own edits reach every device: with MIG devices, no node there
assert j['containerEdits'] == {'env': ['NVIDIA_VISIBLE_DEVICES=void']}, j['containerEdits']
def nodes(st, gpus):
    h = lambda w: ('/dev/nvproxy' + w) if st == 'default' else ('/dev/nvmediate/%s/' % st + {'': 'nvidiactl', '-uvm': 'nvidia-uvm'}.get(w, 'nvidia' + w))
    t = lambda w: '/run/nvmediate/%s/' % st + {'': 'nvidiactl', '-uvm': 'nvidia-uvm'}.get(w, 'nvidia' + w)
    c = lambda w: {'': '/dev/nvidiactl', '-uvm': '/dev/nvidia-uvm'}.get(w, '/dev/nvidia' + w)
    ws = ['', '-uvm'] + [str(k) for k in gpus]
    return [{'path': h(w), 'type': 'c'} for w in ws], [{'hostPath': t(w), 'containerPath': c(w), 'options': ['bind']} for w in ws]
want = {'0': ('default', [0], []), '$U0': ('default', [0], []), '2': ('default', [2], []), '$U2': ('default', [2], []),
        'all': ('default', [0, 2], []), '0:1:0': ('mig-0-1-0', [0], [12, 13]), '0:2:0': ('mig-0-2-0', [0], [21, 22]),
        '2:3:0': ('mig-2-3-0', [2], [30, 31])}
for d in j['devices']:
    st, gpus, caps = want[d['name']]
    dn, mn = nodes(st, gpus)
    e = d['containerEdits']
    assert e['deviceNodes'] == dn + [{'path': '/dev/nvidia-caps/nvidia-cap%d' % m, 'type': 'c'} for m in caps], (d['name'], e['deviceNodes'])
    assert e['mounts'] == mn, (d['name'], e['mounts'])
    assert set(e) == {'deviceNodes', 'mounts'}, e"
	has "... nvidia_caps of an instance's set: its GPU instance's and compute instance's access nodes" "$MS/mig-0-1-0/nvidia_caps" "237:12 237:13"
	has "... of another" "$MS/mig-0-2-0/nvidia_caps" "237:21 237:22"
	has "... a set that is there keeps its caps" "$MS/mig-0-2-0/caps" "compute utility"
	has "... and is said to lack mig" "$T/mig1.err" "node set 'mig-0-2-0' is there with caps 'compute utility', kept: without 'mig'"
	has "... an instance whose node the driver leaves to the administrator is left out" "$T/mig1.err" "MIG instance 2:3:1 left out"
	if grep -q '5:1:0' "$T/mig1.json"; then nok "... no instance of a GPU without a mediated node" "$T/mig1.json"
	else ok "... no instance of a GPU without a mediated node"; fi
	if [ $MK = 1 ]; then
		printf 'mig-2-3-0 compute+utility+mig\n' >"$T/cs.want"
		if cmp -s "$T/cs.want" "$M/sys/kernel/nvmediate/create_set"; then ok "... create_set: the set of the instance not there, with compute+utility+mig"
		else nok "... create_set: the set of the instance not there, with compute+utility+mig" "$M/sys/kernel/nvmediate/create_set"; fi
		has "... its nvidia_caps" "$MS/mig-2-3-0/nvidia_caps" "237:30 237:31"
		has "... a missing access node made, as nvidia-modprobe makes it" "$T/mig1.err" "made /dev/nvidia-caps/nvidia-cap30 (c 237:30, mode 0444), as 'nvidia-modprobe -f /proc/driver/nvidia/capabilities/gpu2/mig/gi3/access' does"
		if [ "$(stat -c '%F %t:%T %a %u:%g' "$M/dev/nvidia-caps/nvidia-cap31")" = "character special file ed:1f 444 0:0" ]; then
			ok "... the node: c 237:31, the mode its file says, root's"
		else stat "$M/dev/nvidia-caps/nvidia-cap31" >"$T/out" 2>&1; nok "... the node: c 237:31, the mode its file says, root's" "$T/out"; fi
		has "... DeviceFileModify 0: not made, said" "$T/mig1.err" "/dev/nvidia-caps/nvidia-cap32 is missing, and the driver leaves its nodes to the administrator (DeviceFileModify 0)"
	else
		has "... without root, the missing node is said" "$T/mig1.err" "/dev/nvidia-caps/nvidia-cap30 is missing (c 237:30): run as root to have it made, or 'nvidia-modprobe -f /proc/driver/nvidia/capabilities/gpu2/mig/gi3/access'"
	fi
	# no nvidia-caps major: no MIG device, said; --gpus asks the driver nothing
	cp "$M/proc/devices" "$T/devices.save"
	grep -v nvidia-caps "$T/devices.save" >"$M/proc/devices"
	npc_rc "cdi, no nvidia-caps major: exit 0" 0 $W cdi --no-driver-files
	has "... says why there is no MIG device" "$T/out" "/proc/devices has no 'nvidia-caps'"
	if grep -q '"0:1:0"' "$T/out"; then nok "... and names none" "$T/out"; else ok "... and names none"; fi
	cp "$T/devices.save" "$M/proc/devices"
	$W cdi --gpus 3 --no-driver-files >"$T/out" 2>&1
	if grep -q '"0:1:0"' "$T/out"; then nok "cdi --gpus: no MIG device" "$T/out"; else ok "cdi --gpus: no MIG device"; fi

	# MIG UUID names: the driver's answers stand-in (NVPROXYCTL_MIG_UUIDS, a
	# test hook; the fake host asks the driver nothing without it): a device
	# by its UUID after each G:GI:CI device, with the same edits; an answer
	# that is no MIG UUID, an instance without one, a name twice: left out, said
	UA=MIG-b0b1b2b3-b4b5-b6b7-b8b9-babbbc000100
	UB=MIG-b0b1b2b3-b4b5-b6b7-b8b9-babbbc020300
	: >"$M/sys/kernel/nvmediate/create_set"
	NVPROXYCTL_MIG_UUIDS="0:1:0=$UA, 0:2:0=MIG-b0b1b2b3-b4b5-b6b7-b8b9-babbbc0002xx 2:3:0=$UB" \
		$W cdi --no-driver-files >"$T/uuid1.json" 2>"$T/uuid1.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi, MIG UUIDs from the driver"; else nok "cdi, MIG UUIDs from the driver (exit $_r)" "$T/uuid1.err"; fi
	npc_py "... a MIG device also by its UUID, after its G:GI:CI one, with the same edits; schema" "$T/uuid1.json" "
import jsonschema
jsonschema.Draft7Validator(json.load(open('$root/tests/tools/cdi-schema.json'))).validate(j)
names = [d['name'] for d in j['devices']]
mig = ['0:1:0', '$UA', '0:2:0'] + (['2:3:0', '$UB'] if $MK else [])
assert names == ['0', '$U0', '2', '$U2'] + mig + ['all'], names
e = {d['name']: d['containerEdits'] for d in j['devices']}
assert e['$UA'] == e['0:1:0'] and e['$UA']['deviceNodes'][-2:] == [{'path': '/dev/nvidia-caps/nvidia-cap%d' % m, 'type': 'c'} for m in (12, 13)], e['$UA']
if $MK:
    assert e['$UB'] == e['2:3:0'], e['$UB']
assert j['containerEdits'] == {'env': ['NVIDIA_VISIBLE_DEVICES=void']}, j['containerEdits']"
	has "... an answer that is no MIG UUID: the name left out, said" "$T/uuid1.err" \
		"cdi: MIG device 0:2:0 is not named by its UUID too: the answer 'MIG-b0b1b2b3-b4b5-b6b7-b8b9-babbbc0002xx' is not a MIG UUID"
	if [ "$(grep -c 'UUID' "$T/uuid1.err")" = 1 ]; then ok "... in one line"; else nok "... in one line" "$T/uuid1.err"; fi
	NVPROXYCTL_MIG_UUIDS="0:1:0=$UA" $W cdi --no-driver-files >"$T/out" 2>"$T/uuid2.err"
	has "... an instance without an answer: said" "$T/uuid2.err" \
		"cdi: MIG device 0:2:0 is not named by its UUID too: NVPROXYCTL_MIG_UUIDS names none"
	NVPROXYCTL_MIG_UUIDS="0:1:0=$UA,0:2:0=$UA" $W cdi --no-driver-files >"$T/out" 2>"$T/uuid3.err"
	has "... a UUID two instances have: the second left out, said" "$T/uuid3.err" \
		"cdi: MIG device 0:2:0 is not named by its UUID too: another device has the name $UA"
	if [ "$(grep -c "\"$UA\"" "$T/out")" = 1 ]; then ok "... named once"; else nok "... named once" "$T/out"; fi
	NVPROXYCTL_MIG_UUIDS="0:1:0=$UA" $W cdi --no-driver-files --no-driver-query >"$T/out" 2>"$T/uuid4.err"
	if grep -q 'MIG-' "$T/out" "$T/uuid4.err"; then nok "cdi --no-driver-query: no UUID name, nothing said" "$T/out"
	else ok "cdi --no-driver-query: no UUID name, nothing said"; fi
	NVPROXYCTL_MIG_UUIDS="0:1:0=$UA" $W cdi --gpus 3 --no-driver-files >"$T/out" 2>&1
	if grep -q 'MIG-' "$T/out"; then nok "cdi --gpus: no UUID name" "$T/out"; else ok "cdi --gpus: no UUID name"; fi

	# --imex-channels: the channels' nodes to every device of the spec's set,
	# and the set given them (imex_channels, fabric-imex); channel 3 missing
	if [ $MK = 1 ]; then
		$W cdi --no-driver-files --imex-channels 0,3 >"$T/imex1.json" 2>"$T/imex1.err"
		_r=$?
		if [ $_r -eq 0 ]; then ok "cdi --imex-channels 0,3"; else nok "cdi --imex-channels 0,3 (exit $_r)" "$T/imex1.err"; fi
		npc_py "... every device of the spec's set has both channels' nodes, no MIG device" "$T/imex1.json" "
ch = [{'path': '/dev/nvidia-caps-imex-channels/channel%d' % c, 'type': 'c'} for c in (0, 3)]
for d in j['devices']:
    n = d['containerEdits']['deviceNodes']
    if ':' in d['name']:
        assert not [x for x in n if 'imex' in x['path']], d
    else:
        assert n[-2:] == ch, d"
		has "... imex_channels of the default set" "$MS/default/imex_channels" "238:0 238:3"
		has "... fabric-imex added to its caps" "$MS/default/caps" "compute utility fabric-imex"
		if [ "$(stat -c '%F %t:%T %a' "$M/dev/nvidia-caps-imex-channels/channel3")" = "character special file ee:3 666" ]; then
			ok "... the missing channel's node made: c 238:3, the driver's DeviceFileMode"
		else stat "$M/dev/nvidia-caps-imex-channels/channel3" >"$T/out" 2>&1; nok "... the missing channel's node made" "$T/out"; fi
		npc_rc "cdi --imex-channels all" 0 $W cdi --no-driver-files --imex-channels all
		has "... the channels whose nodes are there" "$MS/default/imex_channels" "238:0 238:2 238:3"
		has "... the list they replace is said" "$T/out" "node set 'default': imex_channels were '238:0 238:3', now '238:0 238:2 238:3'"
	else
		npc_rc "cdi --imex-channels 0,3, channel 3's node missing, not root: exit 1" 1 $W cdi --no-driver-files --imex-channels 0,3
		has "... says so" "$T/out" "/dev/nvidia-caps-imex-channels/channel3 is missing (c 238:3): run as root to have it made, or 'nvidia-modprobe -i 3:1'"
		npc_rc "cdi --imex-channels all" 0 $W cdi --no-driver-files --imex-channels all
		has "... the channels whose nodes are there" "$MS/default/imex_channels" "238:0 238:2"
		has "... fabric-imex added to its caps" "$MS/default/caps" "compute utility fabric-imex"
	fi
	npc_rc "cdi --imex-channels --set learn" 0 $W cdi --no-driver-files --set learn --imex-channels 2
	has "... that set's imex_channels" "$MS/learn/imex_channels" "238:2"
	npc_rc "cdi --imex-channels 0,x: exit 2" 2 $W cdi --imex-channels 0,x
	npc_rc "cdi --imex-channels past the driver's count: exit 1" 1 $W cdi --imex-channels 2048
	has "... says so" "$T/out" "the driver has channels 0 to 2047 (NVreg_ImexChannelCount 2048), not 2048"
	npc_rc "cdi --imex-channels, 65 channels: exit 2" 2 $W cdi --imex-channels "$(seq -s, 0 64)"
	grep -v imex "$T/devices.save" >"$M/proc/devices"
	npc_rc "cdi --imex-channels, the driver has none: exit 1" 1 $W cdi --imex-channels 0
	has "... says so" "$T/out" "the nvidia driver has no IMEX channels"
	cp "$T/devices.save" "$M/proc/devices"

	# --mig-monitor, --mig-config: the capability's node to every device of
	# the spec's set (not the MIG devices), added to that set's nvidia_caps
	# (which keep the node they list), mig to its caps; --mig-config also the
	# allow entry of the config session, which no capability admits
	echo "compute utility" >"$MS/default/caps"
	echo "237:40" >"$MS/default/nvidia_caps"
	printf 'esc 0xd6\n' >"$MS/default/allow"
	: >"$MS/default/imex_channels"
	if [ $MK = 0 ]; then
		npc_rc "cdi --mig-monitor, its node missing, not root: exit 1" 1 $W cdi --no-driver-files --mig-monitor
		has "... says so" "$T/out" "/dev/nvidia-caps/nvidia-cap2 is missing (c 237:2): run as root to have it made, or 'nvidia-modprobe -f /proc/driver/nvidia/capabilities/mig/monitor'"
		has "... and writes nothing" "$MS/default/nvidia_caps" "237:40"
		ln -s /dev/null "$M/dev/nvidia-caps/nvidia-cap1"
		ln -s /dev/null "$M/dev/nvidia-caps/nvidia-cap2"
	fi
	$W cdi --no-driver-files --mig-monitor >"$T/mon.json" 2>"$T/mon.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --mig-monitor"; else nok "cdi --mig-monitor (exit $_r)" "$T/mon.err"; fi
	npc_py "... the monitor's node last in every device of the spec's set, in no MIG device; schema" "$T/mon.json" "
import jsonschema
jsonschema.Draft7Validator(json.load(open('$root/tests/tools/cdi-schema.json'))).validate(j)
mon = {'path': '/dev/nvidia-caps/nvidia-cap2', 'type': 'c'}
for d in j['devices']:
    n = d['containerEdits']['deviceNodes']
    if ':' in d['name']:
        assert mon not in n, d
    else:
        assert n[-1] == mon and n.count(mon) == 1, d"
	printf '237:40 237:2\n' >"$T/want"
	if cmp -s "$T/want" "$MS/default/nvidia_caps"; then ok "... nvidia_caps: the node they listed, and the monitor's"
	else nok "... nvidia_caps: the node they listed, and the monitor's" "$MS/default/nvidia_caps"; fi
	has "... mig added to the set's caps" "$MS/default/caps" "compute utility mig"
	has "... said" "$T/mon.err" "node set 'default': caps now 'compute utility mig'"
	printf 'esc 0xd6\n' >"$T/want"
	if cmp -s "$T/want" "$MS/default/allow"; then ok "... no allow entry"
	else nok "... no allow entry" "$MS/default/allow"; fi
	if [ $MK = 1 ]; then
		has "... the missing node made, as nvidia-modprobe makes it" "$T/mon.err" "made /dev/nvidia-caps/nvidia-cap2 (c 237:2, mode 0444), as 'nvidia-modprobe -f /proc/driver/nvidia/capabilities/mig/monitor' does"
	fi
	$W cdi --no-driver-files --mig-monitor --mig-config >"$T/cfg.json" 2>"$T/cfg.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --mig-monitor --mig-config"; else nok "cdi --mig-monitor --mig-config (exit $_r)" "$T/cfg.err"; fi
	npc_py "... both nodes in every device of the spec's set" "$T/cfg.json" "
caps = [{'path': '/dev/nvidia-caps/nvidia-cap%d' % m, 'type': 'c'} for m in (2, 1)]
for d in j['devices']:
    n = d['containerEdits']['deviceNodes']
    if ':' in d['name']:
        assert not [x for x in caps if x in n], d
    else:
        assert n[-2:] == caps, d"
	printf '237:40 237:2 237:1\n' >"$T/want"
	if cmp -s "$T/want" "$MS/default/nvidia_caps"; then ok "... nvidia_caps: the config's node added"
	else nok "... nvidia_caps: the config's node added" "$MS/default/nvidia_caps"; fi
	printf 'esc 0xd6\nalloc 0xc639\n' >"$T/want"
	if cmp -s "$T/want" "$MS/default/allow"; then ok "... the allow entry of the config session appended"
	else nok "... the allow entry of the config session appended" "$MS/default/allow"; fi
	has "... said" "$T/cfg.err" "node set 'default': allow entry 'alloc 0xc639' added"
	if [ $MK = 1 ]; then
		if [ "$(stat -c '%F %t:%T %a %u:%g' "$M/dev/nvidia-caps/nvidia-cap1")" = "character special file ed:1 400 0:0" ]; then
			ok "... the config's node made: c 237:1, the mode its file says, root's"
		else stat "$M/dev/nvidia-caps/nvidia-cap1" >"$T/out" 2>&1; nok "... the config's node made: c 237:1, the mode its file says, root's" "$T/out"; fi
	fi
	$W cdi --no-driver-files --mig-config >"$T/out" 2>"$T/cfg2.err"
	if cmp -s "$T/want" "$MS/default/allow" && ! grep -q 'allow entry' "$T/cfg2.err"; then
		ok "... again: the entry the set has not written twice"
	else nok "... again: the entry the set has not written twice" "$MS/default/allow"; fi
	echo "compute utility" >"$MS/learn/caps"
	: >"$MS/learn/nvidia_caps"
	$W cdi --no-driver-files --set learn --mig-config --imex-channels 2 >"$T/out" 2>"$T/cfg3.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --set learn --mig-config --imex-channels 2"; else nok "cdi --set learn --mig-config --imex-channels 2 (exit $_r)" "$T/cfg3.err"; fi
	npc_py "... the config's node and the channel's in each device of the set" "$T/out" "
for d in j['devices']:
    if ':' not in d['name']:
        assert [x['path'] for x in d['containerEdits']['deviceNodes']][-2:] == ['/dev/nvidia-caps/nvidia-cap1', '/dev/nvidia-caps-imex-channels/channel2'], d"
	has "... that set's nvidia_caps" "$MS/learn/nvidia_caps" "237:1"
	has "... its caps" "$MS/learn/caps" "compute utility fabric-imex mig"
	has "... its allow entry" "$MS/learn/allow" "alloc 0xc639"
	has "... not the default set's caps" "$MS/default/caps" "compute utility mig"
	mv "$NC/mig/monitor" "$T/monitor.save"
	npc_rc "cdi --mig-monitor, the driver has no mig/monitor: exit 1" 1 $W cdi --no-driver-files --mig-monitor
	has "... says so" "$T/out" "the driver has no capability mig/monitor"
	mv "$T/monitor.save" "$NC/mig/monitor"
	grep -v nvidia-caps "$T/devices.save" >"$M/proc/devices"
	npc_rc "cdi --mig-monitor, no nvidia-caps major: exit 1" 1 $W cdi --no-driver-files --mig-monitor
	cp "$T/devices.save" "$M/proc/devices"

	# --from a spec of nvidia-ctk's shape on a MIG host (tests/tools/nvidia-ctk-mig.yaml)
	MIGY="$root/tests/tools/nvidia-ctk-mig.yaml"
	: >"$M/sys/kernel/nvmediate/create_set"
	rm -f "$MS"/mig-*/nvidia_caps
	$W cdi --from "$MIGY" >"$T/fmig.json" 2>"$T/fmig.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --from a MIG host's spec"; else nok "cdi --from a MIG host's spec (exit $_r)" "$T/fmig.err"; fi
	npc_py "... MIG devices by the minors of their access nodes, each its set's nodes; all with whole GPUs; schema" "$T/fmig.json" "
import yaml, jsonschema
jsonschema.Draft7Validator(json.load(open('$root/tests/tools/cdi-schema.json'))).validate(j)
src = yaml.safe_load(open('$MIGY'))
assert j['cdiVersion'] == '0.5.0' and j['kind'] == 'nvmediate.io/gpu', (j['cdiVersion'], j['kind'])
names = [d['name'] for d in j['devices']]
mig = 'MIG-5d6e7f80-1111-2222-3333-444455556666'
assert names == ['0', '0:0', '0:1', mig, '2'] + (['2:0'] if $MK else []) + ['all'], names
e, s = j['containerEdits'], src['containerEdits']
# the toolkit's library mounts, hooks, env kept; its nodes moved into the devices of the default set
assert e == {'env': s['env'], 'hooks': s['hooks'], 'mounts': s['mounts']}, e
def mine(st, gpus):
    h = lambda w: ('/dev/nvproxy' + w) if st == 'default' else ('/dev/nvmediate/%s/' % st + {'': 'nvidiactl', '-uvm': 'nvidia-uvm'}.get(w, 'nvidia' + w))
    t = lambda w: '/run/nvmediate/%s/' % st + {'': 'nvidiactl', '-uvm': 'nvidia-uvm'}.get(w, 'nvidia' + w)
    c = lambda w: {'': '/dev/nvidiactl', '-uvm': '/dev/nvidia-uvm'}.get(w, '/dev/nvidia' + w)
    ws = ['', '-uvm'] + [str(k) for k in gpus]
    return [{'path': h(w), 'type': 'c'} for w in ws], [{'hostPath': t(w), 'containerPath': c(w), 'options': ['bind']} for w in ws]
cap = lambda m: {'path': '/dev/nvidia-caps/nvidia-cap%d' % m, 'hostPath': '/dev/nvidia-caps/nvidia-cap%d' % m}
want = {'0': ('default', [0], []), '2': ('default', [2], []), 'all': ('default', [0, 2], []),
        '0:0': ('mig-0-1-0', [0], [12, 13]), mig: ('mig-0-1-0', [0], [12, 13]), '0:1': ('mig-0-2-0', [0], [21, 22]),
        '2:0': ('mig-2-3-0', [2], [30, 31])}
for d in j['devices']:
    st, gpus, caps = want[d['name']]
    dn, mn = mine(st, gpus)
    de = d['containerEdits']
    if st == 'default':
        # the spec's own nodes first, then the device's
        dn = dn[:2] + dn[2:]
    assert de['deviceNodes'] == dn + [cap(m) for m in caps], (d['name'], de['deviceNodes'])
    assert de['mounts'] == mn, (d['name'], de['mounts'])"
	has "... a MIG device whose access nodes are no instance's is dropped, said" "$T/fmig.err" "dropped the device '2:1': a MIG instance, and its capability nodes (minors 40, 41) are no MIG instance's the driver lists"
	has "... all's capability nodes dropped, said" "$T/fmig.err" "dropped the 6 capability nodes of the device 'all': it gives whole GPUs"
	has "... nvidia_caps of the instances' sets" "$MS/mig-0-1-0/nvidia_caps" "237:12 237:13"
	has "... of another" "$MS/mig-0-2-0/nvidia_caps" "237:21 237:22"
	if [ $MK = 1 ]; then
		has "... a set not there made" "$M/sys/kernel/nvmediate/create_set" "mig-2-3-0 compute+utility+mig"
		has "... its nvidia_caps" "$MS/mig-2-3-0/nvidia_caps" "237:30 237:31"
	fi
	# IMEX channels: nvidia-ctk's own spec of them (its class kept), and
	# channels carried by a whole GPU's device and by a MIG instance's
	IMEXY="$root/tests/tools/nvidia-ctk-imex.yaml"
	echo "compute utility" >"$MS/default/caps"
	: >"$MS/default/imex_channels"
	$W cdi --from "$IMEXY" >"$T/fimex.json" 2>"$T/fimex.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --from nvidia-ctk's IMEX channel spec"; else nok "cdi --from nvidia-ctk's IMEX channel spec (exit $_r)" "$T/fimex.err"; fi
	npc_py "... kind nvmediate.io/imex-channel, the channels' nodes kept as they are" "$T/fimex.json" "
import yaml
src = yaml.safe_load(open('$IMEXY'))
assert j['kind'] == 'nvmediate.io/imex-channel', j['kind']
want = src['devices'] if $MK else src['devices'][:1]
assert j['devices'] == want, j['devices']"
	has "... the default set gives them" "$MS/default/imex_channels" "$([ $MK = 1 ] && echo '238:0 238:1' || echo '238:0')"
	has "... with fabric-imex" "$MS/default/caps" "compute utility fabric-imex"
	cat >"$T/both.yaml" <<-'BOTH'
	cdiVersion: 0.5.0
	kind: nvidia.com/gpu
	devices:
	- name: "0"
	  containerEdits:
	    deviceNodes:
	    - path: /dev/nvidia0
	    - path: /dev/nvidia-caps-imex-channels/channel0
	- name: "0:0"
	  containerEdits:
	    deviceNodes:
	    - path: /dev/nvidia0
	    - path: /dev/nvidia-caps/nvidia-cap12
	    - path: /dev/nvidia-caps/nvidia-cap13
	    - path: /dev/nvidia-caps-imex-channels/channel2
	- name: wrong-gpu
	  containerEdits:
	    deviceNodes:
	    - path: /dev/nvidia2
	    - path: /dev/nvidia-caps/nvidia-cap12
	    - path: /dev/nvidia-caps/nvidia-cap13
	- name: "0:5"
	  containerEdits:
	    deviceNodes:
	    - path: /dev/nvidia0
	    - path: /dev/nvidia-caps/nvidia-cap21
	- name: MIG-4f1c2d3e-aaaa-bbbb-cccc-0123456789ab
	  containerEdits:
	    deviceNodes:
	    - path: /dev/nvidia0
	containerEdits:
	  deviceNodes:
	  - path: /dev/nvidiactl
	  - path: /dev/nvidia-caps/nvidia-cap1
	BOTH
	echo "compute utility mig" >"$MS/mig-0-1-0/caps"
	: >"$MS/mig-0-1-0/imex_channels"
	$W cdi --from "$T/both.yaml" >"$T/both.json" 2>"$T/both.err"
	_r=$?
	if [ $_r -eq 0 ]; then ok "cdi --from, channels on a GPU's and a MIG instance's device"; else nok "cdi --from, channels on a GPU's and a MIG instance's device (exit $_r)" "$T/both.err"; fi
	npc_py "... each device keeps its channel" "$T/both.json" "
assert [d['name'] for d in j['devices']] == ['0', '0:0'], j['devices']
n = [[x['path'] for x in d['containerEdits']['deviceNodes']] for d in j['devices']]
assert n[0] == ['/dev/nvproxy', '/dev/nvproxy0', '/dev/nvidia-caps-imex-channels/channel0'], n[0]
assert n[1] == ['/dev/nvmediate/mig-0-1-0/nvidiactl', '/dev/nvmediate/mig-0-1-0/nvidia-uvm', '/dev/nvmediate/mig-0-1-0/nvidia0',
                '/dev/nvidia-caps/nvidia-cap12', '/dev/nvidia-caps/nvidia-cap13', '/dev/nvidia-caps-imex-channels/channel2'], n[1]
assert 'deviceNodes' not in j['containerEdits'], j['containerEdits']"
	has "... the default set gives the GPU device's channel" "$MS/default/imex_channels" "238:0"
	has "... the instance's set its own" "$MS/mig-0-1-0/imex_channels" "238:2"
	has "... with fabric-imex" "$MS/mig-0-1-0/caps" "compute utility mig fabric-imex"
	for w in "dropped /dev/nvidia-caps/nvidia-cap1: a capability node in the spec's own edits would reach every device" \
		 "dropped the device 'wrong-gpu': a MIG instance, and its GPU node /dev/nvidia2 is not that of its MIG instance 0:1:0" \
		 "dropped the device '0:5': a MIG instance, and it names one of its instance's two capability nodes" \
		 "dropped the device 'MIG-4f1c2d3e-aaaa-bbbb-cccc-0123456789ab': a MIG instance, and it names none of its instance's two capability nodes"; do
		has "... says: $w" "$T/both.err" "$w"
	done
	# on a host without the capabilities tree, a MIG device cannot be found
	npc_rc "cdi --from a MIG device, no capabilities tree: dropped" 0 $Y cdi --from "$T/both.yaml"
	has "... says why" "$T/out" "dropped the device '0:0': a MIG instance, and the driver lists no MIG instance"
	cat >"$T/imex.yaml" <<-'IMEX'
	cdiVersion: 0.5.0
	kind: nvidia.com/imex-channel
	devices:
	- name: "0"
	  containerEdits:
	    deviceNodes:
	    - path: /dev/nvidia-caps-imex-channels/channel0
	IMEX
	npc_rc "cdi --from an IMEX channel spec, the driver has no channels: exit 3" 3 $Y cdi --from "$T/imex.yaml"
	has "... says why" "$T/out" "nothing it gives is mediated"

	# the schema is not a test that cannot fail: a misspelt key and a bad kind are errors
	sed 's/"containerPath"/"containerpath"/' "$T/cdi2" >"$T/cdi-bad1"
	sed 's|"nvmediate.io/gpu"|"nvmediate/gpu"|' "$T/cdi2" >"$T/cdi-bad2"
	for b in "$T/cdi-bad1" "$T/cdi-bad2"; do
		if "$PY" -c "import json, sys, jsonschema
jsonschema.Draft7Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))" \
			"$root/tests/tools/cdi-schema.json" "$b" >"$T/py.out" 2>&1; then
			nok "cdi schema rejects $(basename "$b")" "$b"
		else
			ok "cdi schema rejects $(basename "$b")"
		fi
	done
}

if [ -z "${NVPROXYCTL_FROM_RUN:-}" ]; then
	set -u
	here=$(cd "$(dirname "$0")" && pwd)
	root=$(cd "$here/../.." && pwd)
	T=$(mktemp -d "${TMPDIR:-/tmp}/nvproxyctl-test.XXXXXX")
	trap 'rm -rf "$T"' EXIT INT TERM
	pass=0
	fail=0
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
	has() {
		if grep -qF -- "$3" "$2"; then ok "$1"; else nok "$1 (no '$3')" "$2"; fi
	}
	nvproxyctl_tests
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
fi
