#!/bin/sh
# Build the debug guest kernel (KASAN, UBSAN, lockdep, kmemleak, KUnit) into
# $1 (default build/linux-debug) from Debian's linux-source-6.12, the source
# of the stock-6.12 kind (bookworm-backports), downloaded with that kind's
# private apt configuration (tests/kernel/fetch-kernel.sh --source);
# LINUX_SOURCE_TAR names another tarball.  Skips the build when the tree is
# already built from the same source and config fragment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/linux-debug}
if [ -n "${LINUX_SOURCE_TAR:-}" ]; then
	src=$LINUX_SOURCE_TAR
else
	echo "build-debug: getting linux-source-6.12 (fetch-kernel.sh --source stock-6.12)"
	src=$("$here/fetch-kernel.sh" --source stock-6.12 | tail -n 1)
fi
[ -f "$src" ] || { echo "build-debug: no kernel source tarball ($src)" >&2; exit 1; }
# Upstream's exports only: the symbols Debian's own patches export
# (debian-exports.sh) are not, so that the module's KUnit and guest tests
# prove it builds and loads without them.
exports=$("$here/debian-exports.sh" bookworm-backports) || exit 1
stamp="$out/.nvm-config-stamp"
want=$(cat "$here/debug.config" "$src" 2>/dev/null | cksum | cut -d' ' -f1; ls -l "$src" | cksum
	echo $exports)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/Module.symvers" ]; then
	echo "build-debug: $out is up to date"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
echo "build-debug: unpacking ${src##*/} and configuring"
tar -xf "$src" -C "$out" --strip-components=1
cd "$out"
pat="^EXPORT_SYMBOL(_GPL)?\\(($(echo $exports | tr ' ' '|'))\\);"
files=$(grep -rlE --include='*.c' "$pat" . || true)
[ -n "$files" ] || { echo "build-debug: none of Debian's exports ($exports) found" >&2; exit 1; }
echo "build-debug: removing Debian's own exports ($(echo $exports)) from $(echo $files)"
# shellcheck disable=SC2086
sed -i -E "/$pat/d" $files
make -s ARCH=x86_64 tinyconfig
./scripts/kconfig/merge_config.sh -m .config "$here/debug.config" >/dev/null
make -s olddefconfig
# Every option of the fragment must have survived olddefconfig, the ones
# it leaves out included.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*) grep -qx "$line" .config || { echo "build-debug: $line not set" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#"# "}
		opt=${opt%" is not set"}
		! grep -q "^$opt=" .config || { echo "build-debug: $opt is set, the fragment leaves it out" >&2; bad=1; } ;;
	esac
done < "$here/debug.config"
[ $bad -eq 0 ] || exit 1
# modules: writes Module.symvers, which out-of-tree modules link against.
# A line a minute while it builds (about 1,300 objects; 12-13 minutes on two
# cores).
echo "build-debug: building $(make -s kernelrelease) from ${src##*/}"
make -s -j"$(nproc)" bzImage modules_prepare modules &
pid=$!
while kill -0 $pid 2>/dev/null; do
	for _ in $(seq 60); do
		kill -0 $pid 2>/dev/null || break 2
		sleep 1
	done
	echo "build-debug: $(find . -name '*.o' -newer .config | wc -l) objects built"
done
wait $pid
echo "$want" > .nvm-config-stamp
