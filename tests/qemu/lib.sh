# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers of the QEMU harness: where each guest kernel kind lives.
# Sourced by tests/qemu/*.sh, tests/kernel/fetch-stock.sh, tests/check.sh and
# tests/demo.sh; sets NVM_ROOT (the repository) and NVM_BUILD (its build/).
#
# Two kinds of guest kernel:
#   stock  Debian's own kernel, matching the installed linux-headers-amd64;
#          our modules are built against /usr/src/linux-headers-<ver>-amd64.
#   debug  tests/kernel/build-debug.sh's tree in build/linux-debug (KASAN,
#          UBSAN, lockdep, kmemleak, KUnit); modules built against that tree.

NVM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/../.." && pwd)
NVM_BUILD=$NVM_ROOT/build

nvm_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# The version of the Debian kernel headers linux-headers-amd64 depends on
# (tools/kdir.sh --default; else the newest installed), e.g. 6.1.0-57-amd64,
# never that of the running kernel: nothing is installed for that one.
nvm_stock_release() {
	local d
	d=$("$NVM_ROOT/tools/kdir.sh" --default)
	[ -n "$d" ] || return 1
	d=${d##*/linux-headers-}
	echo "$d"
}

# The kernel build directory to build modules against.
nvm_kdir() {
	case $1 in
	stock) echo "/usr/src/linux-headers-$(nvm_stock_release)" ;;
	debug) echo "$NVM_BUILD/linux-debug" ;;
	*) return 1 ;;
	esac
}

# `uname -r` of the guest kernel.
nvm_release() {
	case $1 in
	stock) nvm_stock_release ;;
	debug) cat "$NVM_BUILD/linux-debug/include/config/kernel.release" 2>/dev/null ;;
	*) return 1 ;;
	esac
}

# The bootable kernel image.
nvm_kernel_image() {
	case $1 in
	stock) echo "$NVM_BUILD/stock/kernel/boot/vmlinuz-$(nvm_stock_release)" ;;
	debug) echo "$NVM_BUILD/linux-debug/arch/x86/boot/bzImage" ;;
	*) return 1 ;;
	esac
}

nvm_check_kind() {
	case $1 in
	stock|debug) ;;
	*) nvm_die "unknown kernel kind '$1' (stock or debug)" ;;
	esac
}
