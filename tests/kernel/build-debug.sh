#!/bin/sh
# Build the debug guest kernel (KASAN, UBSAN, lockdep, kmemleak, KUnit) from
# Debian's linux-source-6.1 into $1 (default build/linux-debug).  Skips the
# build when the tree is already built from the same config fragment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/linux-debug}
src=${LINUX_SOURCE_TAR:-$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null | head -n1)}
[ -n "$src" ] || { echo "build-debug: linux-source-6.1 is not installed" >&2; exit 1; }
stamp="$out/.nvm-config-stamp"
want=$(cat "$here/debug.config" "$src" 2>/dev/null | cksum | cut -d' ' -f1; ls -l "$src" | cksum)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/Module.symvers" ]; then
	echo "build-debug: $out is up to date"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
tar -xf "$src" -C "$out" --strip-components=1
cd "$out"
make -s ARCH=x86_64 tinyconfig
./scripts/kconfig/merge_config.sh -m .config "$here/debug.config" >/dev/null
make -s olddefconfig
# Every option of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*) grep -qx "$line" .config || { echo "build-debug: $line not set" >&2; bad=1; } ;; esac
done < "$here/debug.config"
[ $bad -eq 0 ] || exit 1
# modules: writes Module.symvers, which out-of-tree modules link against.
make -s -j"$(nproc)" bzImage modules_prepare modules
echo "$want" > .nvm-config-stamp
