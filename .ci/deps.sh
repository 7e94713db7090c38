#!/bin/sh
# Install what `make check` needs on a fresh Debian 12 machine (run as root).
set -eu
PKGS="build-essential linux-headers-amd64 sparse kmod dkms qemu-system-x86 busybox-static
cpio xz-utils bc flex bison libelf-dev libssl-dev rsync libclang-14-dev git
python3 python3-jsonschema python3-yaml python3-grpcio debhelper dh-dkms mmdebstrap gpg dwarves groff-base"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-unsafe-io $missing >/dev/null
