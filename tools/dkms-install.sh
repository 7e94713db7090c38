#!/bin/sh
# Install nvmediate with DKMS for a kernel (default: the running one).
# Copies the module's sources (nothing else) to /usr/src/nvmediate-<version>,
# then runs dkms add, build and install.
# Usage: tools/dkms-install.sh [kernel-version]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
kver=${1:-$(uname -r)}
src=/usr/src/nvmediate-$ver

dkms remove -m nvmediate -v "$ver" --all >/dev/null 2>&1 || true
rm -rf "$src"
mkdir -p "$src"
(cd "$top" && cp -r Kbuild Makefile VERSION dkms.conf kmod uapi "$src"/ &&
	mkdir -p "$src/abi" && cp -r abi/*.h abi/generated "$src/abi/")
dkms add -m nvmediate -v "$ver"
dkms build -m nvmediate -v "$ver" -k "$kver"
dkms install -m nvmediate -v "$ver" -k "$kver"
