#!/bin/sh
# Add, build and install nvmediate with DKMS for a kernel (default: the
# running one).  Usage: tools/dkms-install.sh [kernel-version]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
kver=${1:-$(uname -r)}
dkms remove -m nvmediate -v "$ver" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/nvmediate-$ver"
dkms add "$top"
dkms build -m nvmediate -v "$ver" -k "$kver"
dkms install -m nvmediate -v "$ver" -k "$kver"
