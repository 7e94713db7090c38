#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a guest initramfs for one kernel kind:
#
#   tests/qemu/mkinitramfs.sh KIND OUT      KIND: see tests/qemu/lib.sh
#
# It holds busybox-static (with its applet links), tests/qemu/init.sh as /init,
# demo-guest.sh as /demo.sh and tests/bench/guest.sh as /bench.sh, our
# modules under /lib/modules/<ver>/extra/ with a depmod'ed tree, the guest
# programs (tests/guest/*.c and tests/bench/*.c, static) in /bin and
# tests/guest/*.sh in /tests, and NVIDIA's real modules where
# tests/nvidia/build.sh built them for the kind.  Modules are built against the kind's
# kernel from a copy of the sources in build/<kind>/src, so the two kinds never
# share object files.
#
# A piece that fails to build is left out and reported as a line
# `NVMBUILD FAIL <what>: <reason>` (also kept in build/<kind>/build.result,
# which run-guest.sh counts); the initramfs is still made, so the guest boots
# and shows what else works.  Exit status: 0 when an initramfs was written.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || nvm_die "usage: $0 KIND OUT"
kind=$1
out=$2
nvm_check_kind "$kind"
case $out in /*) ;; *) out=$PWD/$out ;; esac

kdir=$(nvm_kdir "$kind")
rel=$(nvm_release "$kind") || true
[ -n "$rel" ] && [ -d "$kdir" ] || nvm_die "no $kind kernel tree at $kdir (build or fetch it first)"

work=$NVM_BUILD/$kind
src=$work/src
root=$work/root
log=$work/build.log
result=$work/build.result
jobs=${NVM_JOBS:-$(nproc)}
mkdir -p "$work"
: > "$log"
: > "$result"

report() {	# report OK|FAIL what [reason]
	local line="NVMBUILD $1 $2${3:+: $3}"
	echo "$line" >> "$result"
	[ "$1" = OK ] || echo "$line"
}

# Run a build command, its output into build.log; on failure show its tail.
build() {	# build what cmd...
	local what=$1
	shift
	echo "== $what: $*" >> "$log"
	if "$@" >> "$log.part" 2>&1; then
		cat "$log.part" >> "$log"
		rm -f "$log.part"
		report OK "$what"
		return 0
	fi
	cat "$log.part" >> "$log"
	echo "-- $what failed, last lines of ${log#"$NVM_ROOT"/}:"
	tail -n 20 "$log.part" | sed 's/^/   | /'
	rm -f "$log.part"
	report FAIL "$what" "build failed (see ${log#"$NVM_ROOT"/})"
	return 1
}

# Sources: copied by content (-c, no mtimes), so a file only changes in the
# copy when its content changed and make rebuilds exactly what it must.
# What .gitignore names (object files...) is neither copied nor deleted.
mkdir -p "$src"
rsync -rlpc --delete --exclude=/.git --exclude=/build --filter=':- .gitignore' \
	"$NVM_ROOT"/ "$src"/

# Modules: the stand-in first (nvmediate may use its Module.symvers).
mods=$work/modules
rm -rf "$mods"
mkdir -p "$mods"
standin_syms=
if build "standin-$kind" nvm_kmake "$kind" -C "$kdir" M="$src/tests/standin" -j"$jobs" modules; then
	cp "$src"/tests/standin/*.ko "$mods"/
	standin_syms=$src/tests/standin/Module.symvers
fi
# NVM_KUNIT=y: with the KUnit suites in it, where the kernel has
# CONFIG_KUNIT=y (init.sh's run_kunit runs them).  nvmediate.ko alone: a
# module an older tree built may still lie beside it in the copy.
if build "nvmediate-$kind" nvm_kmake "$kind" -C "$kdir" M="$src" -j"$jobs" NVM_KUNIT=y \
		${standin_syms:+KBUILD_EXTRA_SYMBOLS="$standin_syms"} modules; then
	cp "$src"/nvmediate.ko "$mods"/
fi

# Guest programs: each tests/guest/*.c is one program.
bins=$work/bin
rm -rf "$bins"
mkdir -p "$bins"
# -I abi, abi/generated: a program may include the generated ABI tables
# (nvabicheck.c includes nvabi_tables.c itself).
cflags=(-static -O2 -Wall -Wextra -pthread -I"$src/uapi" -I"$src/tests/guest" -I"$src/abi"
	-I"$src/abi/generated")
for c in "$src"/tests/guest/*.c; do
	[ -e "$c" ] || continue
	name=$(basename "$c" .c)
	build "guest-$name" gcc "${cflags[@]}" -o "$bins/$name" "$c" || true
done
# The benchmark program (tests/bench/, make bench), also used by a guest test.
for c in "$src"/tests/bench/*.c; do
	[ -e "$c" ] || continue
	name=$(basename "$c" .c)
	build "guest-$name" gcc "${cflags[@]}" -o "$bins/$name" "$c" || true
done
# nvproxyctl, static, for the guest tests of the tool (no abi/releases in
# the guest: it explains by number only there).
npc_make="make -s --no-print-directory -C $src/tools/nvproxyctl"
# shellcheck disable=SC2046 # word lists from the tool's Makefile
build "guest-nvproxyctl" gcc -static -O2 -std=c11 -Wall -Wextra $($npc_make cppflags) \
	-DNVM_VERSION="\"$(cat "$src/VERSION")\"" -o "$bins/nvproxyctl" $($npc_make sources) || true
# The GPU host check's tools (tests/gpu/, for 96-gpu-tools.sh): the recording
# shim and a program for it to record, dynamic (the guest's C library and
# loader come with build/podman, below).
dyn=$work/dyn
rm -rf "$dyn"
mkdir -p "$dyn"
build "guest-nvtrace" gcc -shared -fPIC -O2 -Wall -Wextra -o "$dyn/nvtrace.so" \
	"$src/tests/gpu/nvtrace.c" || true
build "guest-nvcalls" gcc -O2 -Wall -Wextra -I"$src/tests/guest" -o "$dyn/nvcalls" \
	"$src/tests/gpu/nvcalls.c" || true
build "guest-cudaprobe" gcc -O2 -Wall -Wextra -o "$dyn/cudaprobe" "$src/tests/gpu/cudaprobe.c" \
	-ldl || true

# The tree.
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,etc/nvm,tests} \
	"$root/lib/modules/$rel/extra"
cp /bin/busybox "$root/bin/busybox"
# The host's ldconfig (static), which nvproxyctl's linker-cache hook runs.
install -m 0755 /sbin/ldconfig "$root/sbin/ldconfig"
for applet in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$applet" ] || [ -L "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
install -m 0755 "$NVM_ROOT/tests/qemu/init.sh" "$root/init"
install -m 0755 "$NVM_ROOT/tests/qemu/demo-guest.sh" "$root/demo.sh"
install -m 0755 "$NVM_ROOT/tests/bench/guest.sh" "$root/bench.sh"
echo "$kind" > "$root/etc/nvm/kind"
cp "$bins"/* "$root/bin/" 2>/dev/null || true
cp "$src"/tests/guest/*.sh "$root/tests/" 2>/dev/null || true
# make bench's earlier nvmediate to compare with (tests/bench/run.sh).
if [ -n "${NVM_BENCH_BASE_KO:-}" ]; then
	install -D -m 0644 "$NVM_BENCH_BASE_KO" "$root/bench/nvmediate-base.ko"
	echo "${NVM_BENCH_BASE:-?}" > "$root/bench/base"
fi
[ ! -f "$dyn/nvtrace.so" ] || install -D -m 0755 "$dyn/nvtrace.so" "$root/usr/lib/nvtrace.so"
[ ! -f "$dyn/nvcalls" ] || install -m 0755 "$dyn/nvcalls" "$root/bin/nvcalls"
[ ! -f "$dyn/cudaprobe" ] || install -m 0755 "$dyn/cudaprobe" "$root/bin/cudaprobe"
# The GPU host check itself (tests/gpu/run.sh, bash) with its programs built
# already, for 97-nvidia-user.sh: /usr/share/gpucheck/tests/gpu/.
if [ -f "$dyn/cudaprobe" ] && [ -f "$dyn/nvtrace.so" ]; then
	install -D -m 0755 "$src/tests/gpu/run.sh" "$root/usr/share/gpucheck/tests/gpu/run.sh"
	install -m 0755 "$dyn/cudaprobe" "$dyn/nvtrace.so" "$root/usr/share/gpucheck/tests/gpu/"
	install -D -m 0755 /bin/bash "$root/usr/bin/bash"
	ldd /bin/bash | awk '$3 ~ /^\/lib\/x86_64-linux-gnu\// { print $3 }' | while read -r lib; do
		[ -e "$root$lib" ] || install -D -m 0644 "$(readlink -f "$lib")" "$root$lib"
	done
fi
mkdir -p "$root/usr/share/gpu-fixtures"
cp "$src"/tests/gpu/fixtures/*.trace "$root/usr/share/gpu-fixtures/" 2>/dev/null || true
# podman, runc, crun for 90-podman.sh (Debian's packages, cached in build/podman)
if "$NVM_ROOT/tests/qemu/podman.sh" "$NVM_BUILD/podman" > /dev/null; then
	cp -a "$NVM_BUILD/podman/root/." "$root/"
fi
# containerd for 91-containerd.sh, which runs on the stock guest only: its
# 77 MB would lengthen every other guest's boot for nothing.
if [ "$kind" = stock ] && "$NVM_ROOT/tests/qemu/containerd.sh" "$NVM_BUILD/containerd" > /dev/null; then
	cp -a "$NVM_BUILD/containerd/root/." "$root/"
fi
# Docker (dockerd on that containerd), likewise in the stock guest only.
if [ "$kind" = stock ] && "$NVM_ROOT/tests/qemu/docker.sh" "$NVM_BUILD/docker" > /dev/null; then
	cp -a "$NVM_BUILD/docker/root/." "$root/"
fi
moddir=$root/lib/modules/$rel
cp "$mods"/*.ko "$moddir/extra/" 2>/dev/null || true
(cd "$moddir" && ls extra/*.ko 2>/dev/null || true) > "$moddir/modules.order"
# What the kernel has built in, so that modprobe of a built-in name succeeds.
builtin=$(nvm_builtin_dir "$kind")

# NVIDIA's real modules (tests/nvidia/build.sh), where built for this kind:
# in /lib/nvidia-real/<release>/, apart from the stand-in that has the same
# names, for tests/guest/95-real.sh to insmod; the kernel's modules they
# link against (drm) go into the tree modprobe reads.
copy_kmod() {	# copy_kmod NAME: the kernel's module and its dependencies
	local f dep
	f=$(find "$builtin/kernel" -name "$1.ko*" -print -quit 2>/dev/null || true)
	[ -n "$f" ] || return 0		# built in, or not in this kernel (or none kept)
	[ -e "$moddir/${f#"$builtin"/}" ] && return 0
	mkdir -p "$moddir/$(dirname "${f#"$builtin"/}")"
	cp "$f" "$moddir/${f#"$builtin"/}"
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
		copy_kmod "$dep"
	done
}
# The NV0000 controls the default profile (compute, utility) admits at a
# release, "COMMAND SIZE NAME" with the size from its ABI file, for nvreal
# --sweep; administrator-only and kernel-only controls are in no capability.
nv0000_list() {	# nv0000_list RELEASE
	local cmd caps name entry
	grep '^ctrl 0x[0-9a-f]\{1,4\} ' "$src/abi/capabilities.txt" |
	while read -r _ cmd caps name _; do
		case ",$caps," in *,compute,* | *,utility,* | *,base,*) ;; *) continue ;; esac
		entry=$(grep "^ctrl $(printf '0x%08x' "$cmd") user " "$src/abi/releases/$1.abi") ||
			continue
		echo "$cmd $(echo "$entry" | cut -d' ' -f4) ${name#NV0000_CTRL_CMD_}"
	done
}
real=
for ko in "$NVM_BUILD"/nvidia/*/"$kind"/nvidia.ko; do
	[ -f "$ko" ] && [ -f "${ko%/nvidia.ko}/nvidia-uvm.ko" ] || continue
	r=$(basename "$(dirname "$(dirname "$ko")")")
	mkdir -p "$root/lib/nvidia-real/$r"
	cp "$ko" "${ko%/nvidia.ko}/nvidia-uvm.ko" "$root/lib/nvidia-real/$r/"
	nv0000_list "$r" > "$root/lib/nvidia-real/$r/nv0000.txt"
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		copy_kmod "$dep"
	done
	real="$real $r"
done
# Debian's NVIDIA packages (tests/nvidia/debian.sh), where built for this
# kind: the modules of each flavour in /lib/nvidia-deb/<release>/<flavour>/,
# the user space (libcuda, NVML, nvidia-smi) in /opt/nvidia/<release>/lib
# and bin, for tests/guest/97-nvidia-user.sh.
deb=
src_releases=$("$NVM_ROOT/tests/nvidia/build.sh" --list)
for ko in "$NVM_BUILD"/nvidia-deb/*/*/"$kind"/nvidia.ko; do
	[ -f "$ko" ] && [ -f "${ko%/nvidia.ko}/nvidia-uvm.ko" ] || continue
	fl=$(basename "$(dirname "$(dirname "$ko")")")
	r=$(basename "$(dirname "$(dirname "$(dirname "$ko")")")")
	u=$NVM_BUILD/nvidia-deb/$r/root/usr
	[ -f "$u/lib/x86_64-linux-gnu/libcuda.so.1" ] || continue
	mkdir -p "$root/lib/nvidia-deb/$r/$fl" "$root/opt/nvidia/$r/lib" "$root/opt/nvidia/$r/bin"
	cp "$ko" "${ko%/nvidia.ko}/nvidia-uvm.ko" "$root/lib/nvidia-deb/$r/$fl/"
	cp -a "$u/lib/x86_64-linux-gnu/." "$root/opt/nvidia/$r/lib/"
	cp -a "$u/bin/." "$root/opt/nvidia/$r/bin/"
	# the C library's parts they load that the guest lacks (libdl, librt:
	# this machine's, like the rest of the guest's C library)
	for f in "$u"/bin/* "$u"/lib/x86_64-linux-gnu/*.so.1; do
		LD_LIBRARY_PATH=$u/lib/x86_64-linux-gnu ldd "$f" 2>/dev/null |
			awk '$3 ~ /^\/lib\/x86_64-linux-gnu\// { print $3 }'
	done | sort -u | while read -r lib; do
		[ -e "$root$lib" ] || install -D -m 0644 "$(readlink -f "$lib")" "$root$lib"
	done
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		copy_kmod "$dep"
	done
	deb="$deb $r/$fl"
	# 95-real.sh takes the open flavour in place of NVIDIA's source of the
	# same branch where that was not built (make check builds one of them)
	case " $real " in *" ${r%%.*}."*) continue ;; esac
	[ "$fl" = open ] && echo "$src_releases" | grep -q "^${r%%.*}\." || continue
	mkdir -p "$root/lib/nvidia-real/$r"
	cp "$ko" "${ko%/nvidia.ko}/nvidia-uvm.ko" "$root/lib/nvidia-real/$r/"
	nv0000_list "$r" > "$root/lib/nvidia-real/$r/nv0000.txt"
	real="$real $r"
done
[ -n "$deb" ] || rm -f "$root/tests/97-nvidia-user.sh"
# Without them the real-driver test has nothing to run (its kind was not
# built for, or NVIDIA's source is absent: make check says so).
[ -n "$real" ] || rm -f "$root/tests/95-real.sh"
# FUSE, where the kernel has it as a module: 66-bounce-v2.sh serves a file
# system of its own (tests/guest/fusehold.c).
copy_kmod fuse
for f in modules.builtin modules.builtin.modinfo; do
	if [ -f "$builtin/$f" ]; then cp "$builtin/$f" "$moddir/"; else : > "$moddir/$f"; fi
done
depmod -b "$root" "$rel"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner=0:0 --quiet) \
	| gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: ${out#"$NVM_ROOT"/} ($kind $rel: $(cd "$mods" && ls -- *.ko 2>/dev/null | xargs echo)" \
	"$(ls "$bins" | wc -l) programs, $(ls "$root/tests" | wc -l) test scripts${real:+, NVIDIA$real}${deb:+, Debian NVIDIA$deb})"
