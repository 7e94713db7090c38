#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test of nvmediate, in order, on a Debian 12 machine.
#
# Each step is one test (pass/fail) unless it has cases of its own (the
# guests, the tool tests), whose cases are counted instead.  A failed step
# does not stop the rest.  One line per step with its time; the output of a
# failed step is kept in build/check/<step>.log and its last lines shown.
# The last line is `N passed, N failed`; the exit status is non-zero iff
# something failed.
#
# Environment: NVM_QEMU_TIMEOUT, NVM_TEST_TIMEOUT, NVM_TESTS, NVM_VERBOSE
# (see tests/qemu/run-guest.sh).
set -uo pipefail
. "$(dirname "$0")/qemu/lib.sh"
cd "$NVM_ROOT" || exit 1

logs=$NVM_BUILD/check
mkdir -p "$logs"
passed=0
failed=0
declare -A status	# step name -> 0 when it passed
check_start=$(date +%s)

since() {
	local s=$(( $(date +%s) - $1 ))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# step NAME DESCRIPTION CMD...: run CMD as one test, its output in the log.
step() {
	local name=$1 desc=$2 t0 rc
	shift 2
	t0=$(date +%s)
	"$@" > "$logs/$name.log" 2>&1
	rc=$?
	status[$name]=$rc
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		printf '%-13s %-46s ok    %s\n' "$name" "$desc" "$(since "$t0")"
	else
		failed=$((failed + 1))
		printf '%-13s %-46s FAIL  %s\n' "$name" "$desc" "$(since "$t0")"
		tail -n 25 "$logs/$name.log" | sed 's/^/      | /'
		echo "      (whole output: ${logs#"$NVM_ROOT"/}/$name.log)"
	fi
}

# skip NAME DESCRIPTION WHY: a step that cannot run counts as one failure.
skip() {
	failed=$((failed + 1))
	status[$1]=1
	printf '%-13s %-46s FAIL  (%s)\n' "$1" "$2" "$3"
}

# cases NAME DESCRIPTION PASSED FAILED T0: report a step with its own cases.
cases() {
	passed=$((passed + $3))
	failed=$((failed + $4))
	status[$1]=$4
	printf '%-13s %-46s %s  %s\n' "$1" "$2" "$3 passed, $4 failed" "$(since "$5")"
}

kver=$(nvm_stock_release 2>/dev/null)
kdir=$(nvm_kdir stock 2>/dev/null)

# The install steps build against the installed Debian headers.
have_headers() {
	[ -n "$kver" ] && [ -d "$kdir" ] || { echo "no /usr/src/linux-headers-*-amd64"; return 1; }
}

dkms_check() {
	have_headers || return 1
	[ -f dkms.conf ] || { echo "no dkms.conf at the top of the tree"; return 1; }
	local tmp name pver ver ko installed rc=0
	tmp=$(mktemp -d /tmp/nvm-dkms.XXXXXX)
	# Private DKMS trees: nothing of the machine's own DKMS state is touched,
	# and removing $tmp removes every trace.
	local opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms" --installtree "$tmp/lib/modules")
	# DKMS signs with /var/lib/dkms/mok.key, creating it if absent: a key of
	# its own here, so the machine is left as it was found.
	local mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub before
	export mok_signing_key mok_certificate
	before=$(ls -A /var/lib/dkms 2>/dev/null)
	mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/lib/modules/$kver"
	# The files tools/dkms-install.sh puts in /usr/src: keep the two lists equal.
	mkdir -p "$tmp/tree"
	cp -r Kbuild Makefile VERSION dkms.conf kmod uapi abi "$tmp/tree/"
	read -r name pver < <(cd "$tmp/tree" && . ./dkms.conf && echo "$PACKAGE_NAME $PACKAGE_VERSION")
	ver=$(cat VERSION)
	{
		[ "$pver" = "$ver" ] && echo "dkms.conf PACKAGE_VERSION $pver = VERSION" &&
		echo "== dkms add/build/install $name/$pver for $kver"
		dkms add "${opts[@]}" "$tmp/tree" &&
		dkms build "${opts[@]}" -m "$name" -v "$pver" -k "$kver" --kernelsourcedir "$kdir" &&
		ko=$(find "$tmp/dkms/$name/$pver/$kver" -name 'nvmediate.ko*' | head -n 1) &&
		[ -n "$ko" ] && echo "built $ko" &&
		[ "$(modinfo -F version "$ko")" = "$ver" ] && echo "modinfo version $ver" &&
		modinfo -F vermagic "$ko" | grep -q "^$kver " && echo "vermagic $kver" &&
		dkms install "${opts[@]}" -m "$name" -v "$pver" -k "$kver" --kernelsourcedir "$kdir" --no-depmod &&
		installed=$(find "$tmp/lib/modules/$kver" -name 'nvmediate.ko*' | head -n 1) &&
		[ -n "$installed" ] && echo "installed $installed" &&
		depmod -b "$tmp" "$kver" &&
		modprobe -d "$tmp" -S "$kver" --show-depends nvmediate &&
		dkms remove "${opts[@]}" -m "$name" -v "$pver" --all --no-depmod &&
		! find "$tmp/lib/modules" -name 'nvmediate.ko*' | grep -q . &&
		[ -z "$(dkms status "${opts[@]}")" ] && echo "removed" &&
		[ "$(ls -A /var/lib/dkms 2>/dev/null)" = "$before" ] && echo "/var/lib/dkms unchanged"
	} || rc=1
	[ $rc -eq 0 ] || { echo "version file: $ver, dkms.conf: $name $pver"; }
	rm -rf "$tmp"
	return $rc
}

install_check() {
	have_headers || return 1
	local staging rc=0
	staging=$(mktemp -d /tmp/nvm-install.XXXXXX)
	# make install runs depmod itself: modprobe finds the module only then.
	{
		make install KDIR="$kdir" INSTALL_MOD_PATH="$staging" DESTDIR="$staging" &&
		modprobe -d "$staging" -S "$kver" --show-depends nvmediate &&
		# the installed tool names calls from the installed ABI data
		"$staging/usr/local/bin/nvproxyctl" explain 0x2a --version 595.45.04 --family escape |
			grep -q 'name: *NV_ESC_RM_CONTROL' && echo "nvproxyctl finds its ABI data" &&
		grep -qx nvmediate "$staging/etc/modules-load.d/nvmediate.conf" &&
		grep -q "^ExecStart=/usr/local/bin/nvproxyctl cdi " \
			"$staging/etc/systemd/system/nvmediate-cdi.service" &&
		[ -f "$staging/etc/udev/rules.d/71-nvmediate-cdi.rules" ] && echo "refresh unit, rule, modules-load.d"
	} || rc=1
	rm -rf "$staging"
	return $rc
}

# guest KIND PREREQ: boot a guest, count its cases.
guest() {
	local kind=$1 prereq=$2 t0 p=0 f=1
	if [ "${status[$prereq]}" -ne 0 ]; then
		skip "guest-$kind" "boot the $kind kernel, run the tests" "no $kind kernel"
		return
	fi
	t0=$(date +%s)
	tests/qemu/run-guest.sh "$kind" > "$logs/guest-$kind.log" 2>&1
	[ -f "$NVM_BUILD/$kind/result" ] && read -r _ p _ f < "$NVM_BUILD/$kind/result"
	cases "guest-$kind" "boot the $kind kernel, run the tests" "$p" "$f" "$t0"
	grep -E '^  (FAIL|skip) |^     |^  [a-z]+: (kunit|findings)' "$logs/guest-$kind.log" |
		cut -c1-200 | sed 's/^/    /'
}

tools_check() {
	local t0 line p f rc
	t0=$(date +%s)
	bash tests/tools/run.sh > "$logs/tools.log" 2>&1
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/tools.log" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		printf '%-13s %-46s FAIL  %s\n' tools "tests/tools/run.sh" "$(since "$t0")"
		echo "      | printed no 'N passed, N failed' line (status $rc)"
		tail -n 15 "$logs/tools.log" | sed 's/^/      | /'
		return
	fi
	read -r p _ f _ <<< "$line"
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "      | tests/tools/run.sh exited with status $rc"
	fi
	cases tools "tests/tools/run.sh" "$p" "$f" "$t0"
	[ "$f" -eq 0 ] || grep -E '^not ok' "$logs/tools.log" | head -n 20 | sed 's/^/      | /'
}

# The Debian packages in a clean chroot (tests/deb/run.sh), counted by case.
deb_check() {
	local t0 line p f
	t0=$(date +%s)
	tests/deb/run.sh > "$logs/deb.log" 2>&1
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/deb.log" | tail -n 1)
	if [ -z "$line" ]; then
		skip deb "Debian packages in a clean chroot" "tests/deb/run.sh printed no count"
		tail -n 15 "$logs/deb.log" | sed 's/^/      | /'
		return
	fi
	read -r p _ f _ <<< "$line"
	cases deb "Debian packages in a clean chroot" "$p" "$f" "$t0"
	[ "$f" -eq 0 ] || grep -E '^not ok' -A 6 "$logs/deb.log" | head -n 30 | sed 's/^/      | /'
}

echo "nvmediate check: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, stock kernel ${kver:-?}"
step deps "install build and test packages" .ci/deps.sh
kver=$(nvm_stock_release 2>/dev/null)
kdir=$(nvm_kdir stock 2>/dev/null)
step w1 "nvmediate.ko, W=1 -Werror, $kver" make w1 KDIR="$kdir"
step sparse "nvmediate.ko under sparse" make sparse KDIR="$kdir"
step standin "stand-in nvidia driver" make standin KDIR="$kdir"
step debug-kernel "debug kernel (KASAN, lockdep, kmemleak, KUnit)" tests/kernel/build-debug.sh "$NVM_BUILD/linux-debug"
step stock-kernel "Debian's stock kernel image" tests/kernel/fetch-stock.sh
guest stock stock-kernel
guest debug debug-kernel
if [ -f tests/tools/run.sh ]; then
	tools_check
fi
step dkms "dkms add/build/install/remove" dkms_check
step install "make install into a staging tree" install_check
deb_check

echo "total time $(since "$check_start")"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
