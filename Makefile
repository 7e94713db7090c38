# SPDX-License-Identifier: GPL-2.0
# nvmediate top-level Makefile.  `make help` lists the targets.

# The running kernel's build directory, else the headers linux-headers-amd64
# depends on (tools/kdir.sh); `make KDIR=...` wins.
KDIR ?= $(shell $(CURDIR)/tools/kdir.sh)
PWD := $(CURDIR)
VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# The manual pages' date: the version's, not the build's.
MAN_DATE ?= $(shell date -u -r VERSION +%Y-%m-%d)
CC ?= gcc

.PHONY: all modules install clean distclean sparse w1 tools standin unit kunit e2e check \
	demo bench dkms-install help install-headers install-tools uninstall man

all: modules

help:
	@echo "make [KDIR=<kernel build dir>]   build nvmediate.ko"
	@echo "make install                     modules_install + depmod, and install-tools"
	@echo "make install-tools               nvproxyctl, its manual page and ABI data, the CDI"
	@echo "                                 refresh unit and udev rule, modules-load.d and"
	@echo "                                 modprobe.d files (PREFIX=/usr/local, DESTDIR=)"
	@echo "make man                         the manual pages, from the tools' --help texts:"
	@echo "                                 tools/man/nvproxyctl.8 (and nvabi.1 when it is built)"
	@echo "make uninstall                   remove what make install installed (not the"
	@echo "                                 modprobe.d file: your options)"
	@echo "make dkms-install                add, build and install with DKMS"
	@echo "make sparse                      build under sparse (C=2), findings are errors"
	@echo "make w1                          build with W=1, warnings are errors"
	@echo "make tools                       build the user-space tools (tools/nvabi/nvabi)"
	@echo "make standin                     build the stand-in nvidia driver (tests only)"
	@echo "make demo                        boot a guest and show mediation at work"
	@echo "make bench                       measure mediation in a guest (not part of check; ~5 min)"
	@echo "make unit                        the KUnit suites that need no running kernel, on"
	@echo "                                 this machine, in seconds (UNIT=suite[.case] picks)"
	@echo "make kunit                       the KUnit suites, in the debug guest kernel"
	@echo "make e2e                         the guest tests, in the stock and the debug kernel"
	@echo "make distclean                   also remove build/ (guest kernels, ~10 min to rebuild)"
	@echo "make check                       run every test; last line: N passed, N failed"

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# The release of the kernel in KDIR, for depmod.
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h)

# Built for KDIR's kernel, which need not be the running one: said when not.
install: modules install-tools
	@[ "$(KVER)" = "$$(uname -r)" ] || \
		echo "make install: for kernel $(KVER) (KDIR=$(KDIR)), not the running $$(uname -r)"
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)

# What install put there, for KDIR's kernel; modprobe.d keeps your options.
uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/$(or $(INSTALL_MOD_DIR),extra)/nvmediate.ko*
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)
	rm -f $(DESTDIR)$(BINDIR)/nvproxyctl $(DESTDIR)$(MANDIR)/man8/nvproxyctl.8 \
		$(DESTDIR)/etc/modules-load.d/nvmediate.conf \
		$(DESTDIR)/etc/udev/rules.d/71-nvmediate-cdi.rules \
		$(DESTDIR)/etc/systemd/system/nvmediate-cdi.service
	rm -rf $(DESTDIR)$(PREFIX)/share/nvmediate
	@[ ! -e $(DESTDIR)/etc/modprobe.d/nvmediate.conf ] || \
		echo "make uninstall: $(DESTDIR)/etc/modprobe.d/nvmediate.conf kept (your options): remove it by hand"

# nvproxyctl finds the command names in ../share/nvmediate/abi next to itself.
# The modprobe.d file is not replaced when it exists (it holds your options).
# Made from the tools' own --help texts (tools/man/mkman.sh); nvabi's only
# when it is built (it needs libclang).
man:
	$(MAKE) -C tools/nvproxyctl
	tools/man/mkman.sh tools/nvproxyctl/nvproxyctl 8 $(MAN_DATE) \
		"inspect and configure nvmediate, the mediated NVIDIA device nodes" \
		> tools/man/nvproxyctl.8
	[ ! -x tools/nvabi/nvabi ] || tools/man/mkman.sh tools/nvabi/nvabi 1 $(MAN_DATE) \
		"extract, range and generate the NVIDIA driver's ioctl ABI for nvmediate" \
		> tools/man/nvabi.1

install-tools: man
	install -D -m 0755 tools/nvproxyctl/nvproxyctl $(DESTDIR)$(BINDIR)/nvproxyctl
	install -D -m 0644 tools/man/nvproxyctl.8 $(DESTDIR)$(MANDIR)/man8/nvproxyctl.8
	install -d $(DESTDIR)$(PREFIX)/share/nvmediate/abi/releases
	install -m 0644 abi/releases/*.abi $(DESTDIR)$(PREFIX)/share/nvmediate/abi/releases/
	install -D -m 0644 etc/modules-load.d/nvmediate.conf \
		$(DESTDIR)/etc/modules-load.d/nvmediate.conf
	test -e $(DESTDIR)/etc/modprobe.d/nvmediate.conf || \
		install -D -m 0644 etc/nvmediate.conf $(DESTDIR)/etc/modprobe.d/nvmediate.conf
	install -D -m 0644 udev/71-nvmediate-cdi.rules \
		$(DESTDIR)/etc/udev/rules.d/71-nvmediate-cdi.rules
	install -d $(DESTDIR)/etc/systemd/system
	sed 's|@BINDIR@|$(BINDIR)|' etc/systemd/nvmediate-cdi.service \
		> $(DESTDIR)/etc/systemd/system/nvmediate-cdi.service

install-headers:
	install -D -m 0644 uapi/nvmediate.h $(DESTDIR)/usr/include/linux/nvmediate.h

# sparse builds with w1's flags: after w1, kbuild (which rebuilds an object
# whose command line changed) compiles nothing again, and C=2 still runs
# the checker on every file.
W1_FLAGS := W=1 KCFLAGS=-Werror

sparse:
	$(MAKE) -C $(KDIR) M=$(PWD) $(W1_FLAGS) C=2 CHECK=sparse CF=-Wsparse-error modules

w1:
	$(MAKE) -C $(KDIR) M=$(PWD) $(W1_FLAGS) modules

tools:
	$(MAKE) -C tools/nvabi
	$(MAKE) -C tools/nvproxyctl

standin:
	$(MAKE) -C $(KDIR) M=$(PWD)/tests/standin modules

dkms-install:
	./tools/dkms-install.sh

demo:
	tests/demo.sh

# Per-call cost, thread scaling, memory per file, module size (BENCHMARKS.md);
# the table also goes to build/bench/results.md.
bench:
	tests/bench/run.sh

# The KUnit suites that need no running kernel, built with their units
# against tools/nvproxyctl/kshim/ and run here (tests/unit/): KTAP, then
# "N passed, N failed".  UNIT=suite or UNIT=suite.case (shell patterns)
# runs those alone.
unit:
	@$(MAKE) -s --no-print-directory -C tests/unit run UNIT='$(UNIT)'

# KUnit suites alone: the debug guest runs them at boot (no guest tests).
kunit:
	NVM_TESTS=none tests/qemu/run-guest.sh debug

# The guest tests on both kernels.
e2e:
	tests/qemu/run-guest.sh stock
	tests/qemu/run-guest.sh debug

check:
	tests/check.sh


# kbuild's own clean (make -C KDIR M=... clean) deletes objects anywhere
# below M, build/ included: the debug kernel's tree and NVIDIA's.  This one
# deletes what kbuild writes, everywhere but build/.
KBUILD_OUTPUTS := -name '*.[aios]' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name '*.order' -o -name Module.symvers -o -name '.*.d' \
	-o -name '*.dwo' -o -name '*.su' -o -name '*.symtypes' -o -name '.tmp_*'
clean:
	find . \( -path ./build -o -path ./.git \) -prune -o -type f \( $(KBUILD_OUTPUTS) \) \
		-print | xargs -r rm -f
	rm -rf .nvmconf
	$(MAKE) -C tools/nvabi clean
	$(MAKE) -C tools/nvproxyctl clean
	$(MAKE) -C tests/unit clean

# Also the guest kernels and everything built for the guests (build/).
distclean: clean
	rm -rf build
