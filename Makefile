# SPDX-License-Identifier: GPL-2.0
#
# fscrypt for btrfs: the kernel patch series and its test harness.
# "make help" lists the targets; docs/testing.md explains them.

ARCHES := x86_64 arm64
# The integration guest's architecture: make integration ARCH=arm64, or
# ARCH=arm64-64k (64 KiB pages, btrfs with 4 KiB sectors: subpage).
ARCH ?= x86_64
CASES ?=
SUITES ?=
KASAN ?= 0
export CASES SUITES KASAN

# arm64-64k: arm64 with 64 KiB pages, for subpage btrfs (integration only);
# s390: big-endian, for KUnit only (make kunit-s390).
BUILDS := $(addprefix build-,$(ARCHES) arm64-64k s390)
KUNITS := $(addprefix kunit-,$(ARCHES) s390)

# Static pattern rules: make never applies implicit rules to .PHONY targets.
.PHONY: help deps tree progs export lint kunit integration test demo shell bench build-each clean distclean \
	$(BUILDS) $(KUNITS)

help:
	@echo "make test         lint + KUnit (x86_64, arm64) + integration: what CI runs"
	@echo "make demo         boot the patched kernel in QEMU on a fresh btrfs image"
	@echo "make deps         install the Debian packages needed (apt-get, as root)"
	@echo "make tree         extract linux-source into build/linux and apply patches/"
	@echo "make export       write build/linux's commits back into patches/ and kunit/"
	@echo "make progs        build btrfs-progs with progs/series in build/btrfs-progs"
	@echo "make lint         checkpatch --strict, SPDX tags, reproducible export"
	@echo "make kunit        KUnit on both architectures (kunit-x86_64, kunit-arm64)"
	@echo "make kunit-s390   KUnit on big-endian s390 (called by CI after make test)"
	@echo "make integration  the integration cases in QEMU (CASES=name,... to pick;"
	@echo "                  ARCH=arm64 or arm64-64k for an arm64 guest: not in make test)"
	@echo "make shell        a shell in the integration guest"
	@echo "make bench        encrypted btrfs against its peers, one QEMU boot (not a test)"
	@echo "make build-each   build every patch, FS_ENCRYPTION=y and =n (not in make test)"

deps:
	@tools/deps

tree: deps
	@tools/prepare-tree

export:
	@tools/export-series

progs: deps
	@tools/progs build

lint: tree
	@tools/lint

$(BUILDS): build-%: tree
	@tools/kernel build $*

$(KUNITS): kunit-%: build-%
	@tools/kernel kunit $*

kunit: $(addprefix kunit-,$(ARCHES))

integration: build-$(ARCH)
	@tools/integration $(ARCH) run

test: lint kunit integration
	@tools/summary

demo: build-x86_64
	@tools/integration x86_64 demo

shell: build-x86_64
	@tools/integration x86_64 shell

# Not part of "make test": a cold run builds two kernels and then every
# patch twice (docs/patch-policy.md gives the time).
build-each: build-x86_64
	@tools/build-each

# Not part of "make test": figures, not a test (docs/performance.md). Its
# guest script runs with tiny sizes in the integration case 90-bench-smoke.
bench: tree
	@tools/bench/bench run

build/tools/fscrypt-ioctl: tools/fscrypt-ioctl.c
	@mkdir -p $(@D)
	gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

build/tools/bench-io: tools/bench/bench-io.c
	@mkdir -p $(@D)
	gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

# Keeps build/linux and the kernel build folders (incremental builds).
clean:
	rm -rf build/integration-* build/tools build/bench

distclean:
	rm -rf build
