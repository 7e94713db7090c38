# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers of the QEMU harness: where each guest kernel kind lives.
# Sourced by tests/qemu/*.sh, tests/kernel/fetch-stock.sh, tests/check.sh and
# tests/demo.sh; sets NVM_ROOT (the repository) and NVM_BUILD (its build/).
#
# The kinds of guest kernel:
#   stock       Debian 12's own kernel (6.1), matching the installed
#               linux-headers-amd64; our modules are built against
#               /usr/src/linux-headers-<ver>-amd64.
#   stock-5.10  Debian 11's kernel (bullseye, bullseye-security),
#   stock-6.12  Debian 12's backported kernel (bookworm-backports),
#   stock-sid   the newest kernel of Debian unstable: headers and image
#               fetched by tests/kernel/fetch-kernel.sh into
#               build/kernels/<kind>/tree, never installed on the machine.
#               5.10 and sid build in a root of their release (mmdebstrap)
#               (build/kernels/<kind>/root): their compiler (and for sid the C
#               library of the kbuild programs) is not Debian 12's.
#   debug       tests/kernel/build-debug.sh's tree in build/linux-debug
#               (KASAN, UBSAN, lockdep, kmemleak, KUnit); modules built
#               against that tree.

NVM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/../.." && pwd)
NVM_BUILD=$NVM_ROOT/build
NVM_KERNELS=$NVM_BUILD/kernels

# Every kind, in the order make check runs them.
NVM_KINDS="stock stock-6.12 stock-5.10 stock-sid debug"

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

# The Debian suites a fetched kind comes from (the newest
# linux-headers-amd64 among them wins), and the release of its build root,
# empty when it builds on this machine.
nvm_kind_suites() {
	case $1 in
	stock-5.10) echo "bullseye bullseye-security" ;;
	stock-6.12) echo "bookworm-backports" ;;
	stock-sid) echo "sid" ;;
	*) return 1 ;;
	esac
}
nvm_kind_root_release() {
	case $1 in
	stock-5.10) echo bullseye ;;
	stock-sid) echo sid ;;
	*) echo "" ;;
	esac
}

# nvm_mmdebstrap RELEASE DIR PACKAGES LOG: a minbase root of RELEASE in DIR
# with PACKAGES (comma-separated) from $NVM_DEBIAN_MIRROR, its output in LOG.
# mmdebstrap, not debootstrap: one apt run instead of dpkg per package, half
# the CPU time (bullseye's build root: 45 s against 98 s).  Valid-Until is
# not checked (debootstrap never did): sid's Release file carries one, and
# an archive mirrored at one date outlives it.
nvm_mmdebstrap() {
	mmdebstrap --variant=minbase --aptopt='Acquire::Check-Valid-Until "false"' \
		--include="$3" "$1" "$2" "${NVM_DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
		> "$4" 2>&1
}

# The build root of a kind (its release, made by nvm_mmdebstrap), or nothing.
nvm_build_root() {
	[ -n "$(nvm_kind_root_release "$1")" ] || return 0
	echo "$NVM_KERNELS/$1/root"
}

# The kernel build directory to build modules against.
nvm_kdir() {
	case $1 in
	stock) echo "/usr/src/linux-headers-$(nvm_stock_release)" ;;
	stock-*) echo "$NVM_KERNELS/$1/tree/usr/src/linux-headers-$(nvm_release "$1")" ;;
	debug) echo "$NVM_BUILD/linux-debug" ;;
	*) return 1 ;;
	esac
}

# `uname -r` of the guest kernel.
nvm_release() {
	case $1 in
	stock) nvm_stock_release ;;
	stock-*) cat "$NVM_KERNELS/$1/release" 2>/dev/null ;;
	debug) cat "$NVM_BUILD/linux-debug/include/config/kernel.release" 2>/dev/null ;;
	*) return 1 ;;
	esac
}

# The directory holding the kind's modules.builtin (what is built in).
nvm_builtin_dir() {
	local rel
	case $1 in
	stock) echo "$NVM_BUILD/stock/kernel/lib/modules/$(nvm_stock_release)" ;;
	stock-*)
		rel=$(nvm_release "$1")
		# Debian's packages moved /lib/modules to /usr/lib/modules.
		if [ -d "$NVM_KERNELS/$1/tree/usr/lib/modules/$rel" ]; then
			echo "$NVM_KERNELS/$1/tree/usr/lib/modules/$rel"
		else
			echo "$NVM_KERNELS/$1/tree/lib/modules/$rel"
		fi ;;
	debug) nvm_kdir debug ;;
	*) return 1 ;;
	esac
}

# The bootable kernel image.
nvm_kernel_image() {
	local rel
	case $1 in
	stock) echo "$NVM_BUILD/stock/kernel/boot/vmlinuz-$(nvm_stock_release)" ;;
	stock-*)
		rel=$(nvm_release "$1")
		# In /boot up to 6.12; sid's linux-binary package keeps it beside
		# the modules.
		if [ -f "$NVM_KERNELS/$1/tree/usr/lib/modules/$rel/vmlinuz" ]; then
			echo "$NVM_KERNELS/$1/tree/usr/lib/modules/$rel/vmlinuz"
		else
			echo "$NVM_KERNELS/$1/tree/boot/vmlinuz-$rel"
		fi ;;
	debug) echo "$NVM_BUILD/linux-debug/arch/x86/boot/bzImage" ;;
	*) return 1 ;;
	esac
}

nvm_check_kind() {
	case " $NVM_KINDS " in
	*" $1 "*) ;;
	*) nvm_die "unknown kernel kind '$1' (${NVM_KINDS// /, })" ;;
	esac
}

# Get the kind's kernel: fetch (stock kinds) or build (debug); cached.
nvm_get_kernel() {
	case $1 in
	stock) "$NVM_ROOT/tests/kernel/fetch-stock.sh" ;;
	stock-*) "$NVM_ROOT/tests/kernel/fetch-kernel.sh" "$1" ;;
	debug) "$NVM_ROOT/tests/kernel/build-debug.sh" "$NVM_BUILD/linux-debug" ;;
	esac
}

# nvm_unpacked_headers KDIR: a headers package unpacked away from /usr/src
# builds there.  Its Makefile names the common part (and from 6.13 itself,
# as KBUILD_OUTPUT) by absolute paths in /usr/src: made relative to where
# it was unpacked.
nvm_unpacked_headers() {
	sed -i -e 's|^include /usr/src/\(.*\)$|include $(dir $(lastword $(MAKEFILE_LIST)))../\1|' \
		-e 's|^KBUILD_OUTPUT *= */usr/src/.*$|KBUILD_OUTPUT := $(realpath $(dir $(lastword $(MAKEFILE_LIST))))|' \
		"$1/Makefile"
}

# nvm_kmake KIND ARGS...: make for the kind's kernel, in its build root
# when it has one.  The repository is bind-mounted at its own path inside
# the root (in a private mount namespace: nothing shows outside), so the
# same paths work on both sides; so is /tmp.
nvm_kmake() {
	local kind=$1 root
	shift
	root=$(nvm_build_root "$kind")
	if [ -z "$root" ]; then
		make "$@"
		return
	fi
	nvm_in_root "$root" make "$@"
}

# nvm_in_root ROOT CMD...: run CMD in ROOT, in the current directory.
nvm_in_root() {
	local root=$1
	shift
	[ -x "$root/bin/sh" ] || { echo "no build root at $root" >&2; return 1; }
	mkdir -p "$root$NVM_ROOT" "$root/tmp" "$root/proc"
	unshare -m -- /bin/sh -c '
		root=$1 top=$2 dir=$3
		shift 3
		mount --make-rprivate / &&
		mount --bind "$top" "$root$top" &&
		mount --bind /tmp "$root/tmp" &&
		mount -t proc proc "$root/proc" &&
		exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
	' nvm-root "$root" "$NVM_ROOT" "$PWD" "$@"
}

# nvm_nvidia_kbuild DIR OUT SYSSRC KDIR JOBS: NVIDIA's kernel interface layer
# in DIR (kernel-open/ of NVIDIA's source, or the tree of Debian's dkms
# package) built into nvidia.ko and nvidia-uvm.ko, stripped of their debug
# information into OUT (-g0: the stock kernel's CONFIG_DEBUG_INFO would only
# cost time, a tenth).
nvm_nvidia_kbuild() {
	local ko
	make -C "$1" -j"$5" modules SYSSRC="$3" SYSOUT="$4" NV_KERNEL_MODULES="nvidia nvidia-uvm" \
		KCFLAGS=-g0 || return 1
	for ko in nvidia nvidia-uvm; do
		strip --strip-debug -o "$2/$ko.ko" "$1/$ko.ko" || return 1
	done
}

# nvm_sid_binaries NAME OUT "PKGS" "BINS" LIBS: programs from Debian
# unstable's packages for the stock guest (containerd.sh, docker.sh): PKGS
# downloaded with a private apt configuration (nothing installed on this
# machine) into OUT/debs and unpacked into OUT/x, each of BINS (paths in
# the packages) installed in OUT/root once ldd finds it needs no library
# besides the C library and LIBS (an extended regex of names the guest has,
# or ''), the first package's version in OUT/root/usr/share/NAME/version.
# Cached: done once per OUT.
nvm_sid_binaries() {
	local name=$1 out=$2 pkgs=$3 bins=$4 libs=$5 root=$2/root d b others
	[ -f "$root/.complete" ] && return 0
	nvm_private_apt "$out/apt" sid || nvm_die "cannot read the archive's sid"
	rm -rf "$out/debs" "$out/x" "$root"
	mkdir -p "$out/debs" "$out/x"
	# shellcheck disable=SC2086  # the words of $pkgs
	(cd "$out/debs" && apt-get "${nvm_aptopts[@]}" -q download $pkgs > "$out/download.log" 2>&1) || {
		tail -n 5 "$out/download.log" >&2
		nvm_die "cannot download sid's $pkgs"
	}
	for d in "$out"/debs/*.deb; do
		dpkg-deb -x "$d" "$out/x"
	done
	for b in $bins; do
		others=$(ldd "$out/x/$b" 2>&1 |
			grep -v -E "linux-vdso|libc\.so\.6|ld-linux-x86-64${libs:+|$libs}" || true)
		[ -z "$others" ] || nvm_die "$b needs more than the guest has: $others"
		install -D -m 0755 "$out/x/$b" "$root/$b"
	done
	mkdir -p "$root/usr/share/$name"
	dpkg-deb -f "$(ls "$out"/debs/"${pkgs%% *}"_*.deb)" Version > "$root/usr/share/$name/version"
	touch "$root/.complete"
	echo "$name: $root ($(du -sh "$root" | cut -f1), ${pkgs%% *} $(cat "$root/usr/share/$name/version"))"
}

# nvm_private_apt DIR SUITES...: an apt configuration of its own under DIR
# (sources, lists, cache and an empty status), for Debian's archive at
# $NVM_DEBIAN_MIRROR (default deb.debian.org), that sees only SUITES' main
# (or the components in $NVM_APT_COMPONENTS, e.g. "main contrib non-free")
# and never reads or changes the machine's own sources or state: its
# binary packages, or (NVM_APT_TYPE=deb-src) its source packages only.
# Sets the array nvm_aptopts (pass it to apt-get and apt-cache) and runs
# apt-get update, its output in DIR/apt.log.
nvm_private_apt() {
	local dir=$1 s url mirror=${NVM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	local components=${NVM_APT_COMPONENTS:-main} type=${NVM_APT_TYPE:-deb}
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	mkdir -p "$dir/etc/apt.conf.d" "$dir/etc/preferences.d" "$dir/etc/sources.list.d" \
		"$dir/state/lists/partial" "$dir/cache/archives/partial"
	: > "$dir/state/status"
	: > "$dir/etc/sources.list"
	for s in "$@"; do
		case $s in
		*-security) url=${mirror%/debian}/debian-security ;;
		*) url=$mirror ;;
		esac
		echo "$type [signed-by=$keyring] $url $s $components" >> "$dir/etc/sources.list"
	done
	nvm_aptopts=(-o "Dir::Etc=$dir/etc" -o "Dir::State=$dir/state" -o "Dir::Cache=$dir/cache"
		-o "Dir::State::status=$dir/state/status" -o APT::Architecture=amd64
		-o APT::Architectures=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root
		-o Debug::NoLocking=1)
	apt-get "${nvm_aptopts[@]}" -q update > "$dir/apt.log" 2>&1 || {
		tail -n 5 "$dir/apt.log" >&2
		echo "apt-get update of $* failed (see ${dir#"$NVM_ROOT"/}/apt.log)" >&2
		return 1
	}
}

# nvm_apt_show PKG FIELD: a field of the newest version of PKG, in the
# configuration nvm_private_apt made last.
nvm_apt_show() {
	apt-cache "${nvm_aptopts[@]}" show --no-all-versions "$1" 2>/dev/null |
		sed -n "s/^$2: //p" | head -n 1
}

# nvm_apt_deps PKG PATTERN: the names in PKG's Depends matching PATTERN.
nvm_apt_deps() {
	nvm_apt_show "$1" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep -E "$2" || true
}
