#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Docker for the stock guest (tests/guest/91-containerd.sh): dockerd and the
# docker client from Debian unstable's docker.io and docker-cli (28.x, whose
# --device takes CDI device names), fetched through a private apt
# configuration (nothing is installed on this machine) into DIR/root, a tree
# mkinitramfs.sh copies into the stock guest's initramfs.  dockerd runs on
# the guest's containerd (containerd.sh) and runc (podman.sh); the
# libraries it loads besides the C library are podman's (libsystemd,
# libcap, libgcrypt, liblzma, libzstd, liblz4, libgpg-error), which the
# guest has.  Cached: built once per DIR.
#
#   tests/qemu/docker.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

nvm_sid_binaries docker "$(realpath -m "${1:?usage: docker.sh DIR}")" "docker.io docker-cli" \
	"usr/sbin/dockerd usr/bin/docker" \
	'libsystemd|libcap\.so|libgcrypt|liblzma|libzstd|liblz4|libgpg-error'
