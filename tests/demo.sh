#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian's stock kernel in QEMU with the stand-in nvidia
# driver and nvmediate, run a session through the mediated nodes and show
# what the driver received and what nvmediate refused.  Reuses every cached
# build (stock kernel, modules, initramfs); the first run installs what is
# missing and fetches the kernel.
set -euo pipefail
. "$(dirname "$0")/qemu/lib.sh"
cd "$NVM_ROOT"

if [ "$(id -u)" -eq 0 ]; then
	.ci/deps.sh
fi
NVM_MODE=demo NVM_QEMU_TIMEOUT=${NVM_QEMU_TIMEOUT:-300} tests/qemu/run-guest.sh stock
log=$NVM_BUILD/stock/demo-console.log

sed -n 's/\r$//; s/^NVMBUILD FAIL /build failed: /p' "$NVM_BUILD/stock/build.result"
if grep -q '^NVMDEMO END' "$log"; then
	sed -n 's/\r$//; /^NVMDEMO BEGIN/,/^NVMDEMO END/{/^NVMDEMO /d; p}' "$log"
	echo
	echo "(whole console: ${log#"$NVM_ROOT"/})"
	# the session's own verdict: a demo whose session failed fails
	grep -q '^NVMDEMO RESULT ok' "$log" && exit 0
	exit 1
fi
echo "The demo did not finish; last lines of ${log#"$NVM_ROOT"/}:"
tail -n 40 "$log" | tr -d '\r'
exit 1
