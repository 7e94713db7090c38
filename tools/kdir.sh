#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel build directory to build nvmediate against, when KDIR is not
# given: the running kernel's (/lib/modules/$(uname -r)/build), else the
# headers Debian's linux-headers-amd64 depends on (the distribution's
# current kernel), else the newest /usr/src/linux-headers-*-amd64 by
# version order.  Prints nothing when there is none.
#
#   tools/kdir.sh            the directory
#   tools/kdir.sh --default  skip the running kernel (the packaged default)
set -u
if [ "${1:-}" != --default ] && [ -d "/lib/modules/$(uname -r)/build" ]; then
	echo "/lib/modules/$(uname -r)/build"
	exit 0
fi
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	sed -n 's/^\(linux-headers-[^ ,]*\).*/\1/p')
if [ -n "$dep" ] && [ -d "/usr/src/$dep" ]; then
	echo "/usr/src/$dep"
	exit 0
fi
ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1
