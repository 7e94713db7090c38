#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# containerd for the stock guest (tests/guest/91-containerd.sh): containerd,
# ctr and containerd-shim-runc-v2 from Debian unstable's package, the first
# release whose ctr hands CDI device names to the CDI library (containerd
# 2.x; Debian 12's 1.6 knows no CDI at all, Debian 13's 1.7 only in its CRI
# plugin).  The package is fetched through a private apt configuration
# (nothing is installed on this machine) into DIR/root, a tree mkinitramfs.sh
# copies into the stock guest's initramfs.  Its programs are static but for
# the C library, which the guest has.  Cached: built once per DIR.
#
#   tests/qemu/containerd.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

nvm_sid_binaries containerd "$(realpath -m "${1:?usage: containerd.sh DIR}")" containerd \
	"usr/bin/containerd usr/bin/ctr usr/bin/containerd-shim-runc-v2" ''
