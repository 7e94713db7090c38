#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The symbols that Debian's kernels export to modules and upstream's do not:
# the EXPORT_SYMBOL lines that Debian's own patches (debian/patches/debian/
# of the `linux` source package, such as "Export symbols needed by binder")
# add, read from the newest source package of each suite given.
#
#   tests/kernel/debian-exports.sh SUITE...     e.g. bookworm bullseye sid
#
# Prints one symbol a line (sorted, the union over the suites).  Only the
# source package's debian/ tarball is downloaded (about 2 MB a suite), with
# a private apt configuration (build/kernels/apt/src-SUITE); the list of
# each suite is cached in build/kernels/debian-exports/SUITE.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -ge 1 ] || nvm_die "usage: $0 SUITE..."
cache=$NVM_KERNELS/debian-exports
mkdir -p "$cache"
for suite in "$@"; do
	[ -s "$cache/$suite" ] && continue
	dir=$NVM_KERNELS/apt/src-$suite
	NVM_APT_TYPE=deb-src nvm_private_apt "$dir" "$suite" ||
		nvm_die "cannot read the sources of $suite"
	uri=$(apt-get "${nvm_aptopts[@]}" source --print-uris linux 2>/dev/null |
		grep -o "'[^']*\.debian\.tar\.xz'" | tr -d "'" | head -n 1)
	[ -n "$uri" ] || nvm_die "no linux source package in $suite"
	tmp=$(mktemp -d)
	/usr/lib/apt/apt-helper download-file "$uri" "$tmp/debian.tar.xz" >> "$dir/apt.log" 2>&1 ||
		{ rm -rf "$tmp"; nvm_die "cannot download $uri"; }
	tar -xJf "$tmp/debian.tar.xz" -C "$tmp" --wildcards 'debian/patches/debian/*'
	cat "$tmp"/debian/patches/debian/*.patch |
		sed -n 's/^+EXPORT_SYMBOL\(_GPL\)\?(\([A-Za-z0-9_]*\));.*/\2/p' | sort -u > "$cache/$suite.tmp"
	rm -rf "$tmp"
	[ -s "$cache/$suite.tmp" ] || nvm_die "no exports found in the patches of $suite's linux"
	mv "$cache/$suite.tmp" "$cache/$suite"
done
for suite in "$@"; do
	cat "$cache/$suite"
done | sort -u
