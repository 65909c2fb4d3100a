# tungro - top-level entry points. `make demo` and `make test` are the two commands of README.md.
#
#   make                  build tungro.ko for the running kernel (/lib/modules/$(uname -r)/build) or KDIR=, with
#                         build checks; never installs packages or builds a kernel
#   make install          modules_install + depmod for that kernel
#   make dkms-install     tungro under DKMS for the running kernel (DKMS_KERNEL=<release>), rebuilt for each new kernel
#   make dkms-remove      every tungro version out of DKMS
#   make dkms-test        dkms build against Debian's 6.12 headers in a private dkms tree (part of make test)
#   make module-test      tungro.ko (and tungro_kunit.ko) for the cached test kernel of ARCH, building it if needed
#   make demo             x86_64 QEMU demo: kernel GRO, tungro offloads and engine on streams, 200 connections, trains
#   make test             host unit tests (ASan/UBSan), lint, module + build checks, QEMU x86_64 guest checks
#                         (test kernel, Debian's 6.1), x86_64 conformance, m68k KUnit and guest checks
#   make host-test        only the host unit tests of the C++ core
#   make lint             checkpatch --strict, pr_fmt, sparse (make C=2), kernel-doc on the kernel C; clang-tidy on
#                         the core
#   make test-debug       KUnit + guest checks on a KASAN/kmemleak x86_64 kernel (KUnit part in make test)
#   make test-kcsan       KUnit + the guest checks that run tungro on both CPUs at once, on a KCSAN x86_64 kernel
#   make soak             1000 insmod/rmmod and 1000 attach/detach cycles under traffic, TCP counters against the
#                         kernel's GRO alone, kmemleak at the end (x86_64 kernel variant with kmemleak only)
#   make test-full        make test + the KASAN guest checks + make test-kcsan + make soak + make fuzz +
#                         make gate-proof + m68k conformance + Debian's 6.12 and 6.1 guests (200 K06 cycles) +
#                         make test-install (by hand)
#   make test-install     a fresh Debian 12 machine in QEMU (its own 6.1 kernel and headers): git clone, make,
#                         make install, modprobe, make dkms-install, as a new user does (image cached)
#   make fuzz             30 minutes of libFuzzer on the core's three harnesses (10M executions each), coverage
#                         of cxxcore/src; then 100,000 random trains in random skb layouts in the KASAN kernel
#                         (one guest per core)
#   make kunit            only the KUnit suites in QEMU for ARCH (parsed with the kernel's kunit.py parse)
#   make bench            per-segment cost of the core vs DPDK librte_gro (Google Benchmark, callgrind)
#   make cross-check      tungro.ko for 9 arches against modules_prepare'd trees, and the layout negative proof
#   make gate-proof       the engine loop's reordering gate fails on tungro.ko built with the detach-order bug
#                         (in make test-full)
#   make kernel           only build (or reuse) the cached test kernel for ARCH
#   make clean
#
# Variables: ARCH=<this machine's, from uname -m> (x86_64, m68k or a Kbuild arch name), KDIR=<prepared tree>,
# CROSS_COMPILE=, TUNGRO_CACHE=<cache dir> (default ${XDG_CACHE_HOME:-$HOME/.cache}/tungro), DEMO_MIB=64 (m68k 32),
# TEST_MIB=4,
# KERNEL=debian (module, demo, guest-test, guest-demo on Debian's own 6.12 amd64 kernel; default: test kernel),
# KERNEL=debian-6.1 (the same on Debian 12's own 6.1 amd64 kernel; module/compat/ adapts the glue).

SHELL := /bin/bash
# Plain `make` builds for the machine it runs on: its `uname -m`, named as Kbuild names the arch (aarch64 is
# arm64, armv7l arm, ppc64le powerpc ...); the QEMU targets support x86_64 and m68k.
ARCH ?= $(shell uname -m | sed -e 's/^aarch64.*/arm64/' -e 's/^arm.*/arm/' -e 's/^i.86$$/x86/' \
	-e 's/^ppc.*/powerpc/' -e 's/^riscv.*/riscv/' -e 's/^s390x$$/s390/' -e 's/^mips.*/mips/')
ifeq ($(ARCH),x86_64)
KARCH := x86
else ifeq ($(ARCH),m68k)
KARCH := m68k
CROSS_COMPILE ?= m68k-linux-gnu-
else
KARCH := $(ARCH)
endif
export ARCH

TOP := $(CURDIR)
# demo: MiB per engine per stream scenario (16 windows each); m68k's TCG is slower
ifeq ($(ARCH),m68k)
DEMO_MIB ?= 32
else
DEMO_MIB ?= 64
endif
TEST_MIB ?= 4
NPROC := $(shell nproc)

# KERNEL=debian or debian-6.1: Debian's own 6.12 or 6.1 amd64 kernel (scripts/debian-kernel.sh, unpacked in the
# cache) instead of the test kernel; the scripts read it as TUNGRO_KERNEL, so every path to a kernel stays one
# code path.
ifdef KERNEL
ifeq ($(filter tungro debian debian-6.1,$(KERNEL)),)
$(error KERNEL=$(KERNEL): unknown (debian, debian-6.1, or tungro/unset for the test kernel))
endif
export TUNGRO_KERNEL := $(KERNEL)
endif

# Plain `make` builds for the kernel you run, as out-of-tree modules do; KDIR= names another prepared tree.
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
BUILD_KDIR = $(or $(KDIR),$(RUNNING_KDIR))

.PHONY: all module module-test install dkms-install dkms-remove dkms-test setup kernel host-test lint guest-demo guest-test demo test cross-check kunit \
	bench conform guest-conform test-debug test-kcsan test-full test-install fuzz soak gate-proof clean

all: module

setup:
	@$(TOP)/scripts/setup-host.sh

kernel: setup
	@$(TOP)/scripts/kernel.sh $(ARCH) >/dev/null

# KERNEL=debian[-6.1] builds in build/x86_64-debian[-6.1]/src (scripts/build-module.sh), apart from other builds.
module:
ifneq ($(filter debian debian-6.1,$(TUNGRO_KERNEL)),)
	@dir=$$($(TOP)/scripts/build-module.sh $(ARCH)) && echo "[tungro] built $$dir/tungro.ko"
else
	@$(TOP)/scripts/check-kdir.sh "$(BUILD_KDIR)" "$(if $(KDIR),KDIR,running)"
	@echo "[tungro] building tungro.ko for $(ARCH) against $(BUILD_KDIR)"
	@$(MAKE) -s -C "$(BUILD_KDIR)" M=$(TOP) ARCH=$(KARCH) CROSS_COMPILE=$(CROSS_COMPILE) -j$(NPROC) modules \
		2>&1 | tee $(TOP)/.build.log; test $${PIPESTATUS[0]} -eq 0
	@if grep -q "valid for C/ObjC but not for C++" $(TOP)/.build.log; then \
		echo "[tungro] error: a kernel C-only flag reached g++; add it to tungro-c-only in Kbuild" >&2; exit 1; fi
	@$(TOP)/scripts/check-cxx-objects.sh $(CROSS_COMPILE)nm $(CROSS_COMPILE)objdump
	@echo "[tungro] built $(TOP)/tungro.ko"
endif

# modules_install puts tungro.ko under /lib/modules/<release>/updates (INSTALL_MOD_DIR: 6.12's default for external
# modules, given because 6.1's is extra); depmod makes modprobe find it. The release is the tree's UTS_RELEASE,
# what uname -r and tungro.ko's vermagic say, where modules_install writes: `make kernelrelease` is not, Debian's
# 6.1 headers answer it with the upstream version (6.1.<n>), and depmod then failed on a directory no kernel has.
# Distribution headers set CONFIG_MODULE_SIG_ALL without the distribution's key (Debian: output/signing_key.pem):
# Kbuild's signing of an external module then fails softly, printing "SSL error ... sign-file:
# ./output/signing_key.pem", and installs it unsigned. Without the key it is not tried (CONFIG_MODULE_SIG_ALL=
# given empty); a tree that has its key (a kernel you built) signs as before.
# A tungro that DKMS installed for the same release (updates/dkms) would be a second copy: modprobe would load
# whichever depmod ranks first. make dkms-install removes make install's copy the same way round (scripts/dkms.sh).
install: module
	@$(TOP)/scripts/check-kdir.sh "$(BUILD_KDIR)" "$(if $(KDIR),KDIR,running)"
	@rel=$$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$$/\1/p' "$(BUILD_KDIR)/include/generated/utsrelease.h"); \
	for f in "$(INSTALL_MOD_PATH)/lib/modules/$$rel/updates/dkms"/tungro.ko*; do \
		[ -f "$$f" ] || continue; \
		echo "[tungro] error: DKMS installed tungro for $$rel ($$f): make dkms-remove first, or keep DKMS's" >&2; \
		exit 1; \
	done
	@key=$$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$$/\1/p' "$(BUILD_KDIR)/.config" 2>/dev/null); nosign=; \
	case "$$key" in \
	""|pkcs11:*) ;; \
	/*) [ -f "$$key" ] || nosign=CONFIG_MODULE_SIG_ALL= ;; \
	*) [ -f "$(BUILD_KDIR)/$$key" ] || [ -f "$(BUILD_KDIR)/source/$$key" ] || nosign=CONFIG_MODULE_SIG_ALL= ;; \
	esac; \
	$(MAKE) -s -C "$(BUILD_KDIR)" M=$(TOP) ARCH=$(KARCH) INSTALL_MOD_DIR=updates $$nosign modules_install
	@rel=$$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$$/\1/p' "$(BUILD_KDIR)/include/generated/utsrelease.h"); \
	if [ -z "$$rel" ]; then echo "[tungro] error: no UTS_RELEASE in $(BUILD_KDIR)/include/generated/utsrelease.h" >&2; \
		exit 1; fi; \
	depmod $(if $(INSTALL_MOD_PATH),-b "$(INSTALL_MOD_PATH)") -a "$$rel" && echo "[tungro] installed for $$rel: modprobe tungro"

# DKMS (dkms.conf): sources to /usr/src/tungro-<version from git>, dkms add + build + install.
dkms-install:
	@$(TOP)/scripts/dkms.sh install $(DKMS_KERNEL)

dkms-remove:
	@$(TOP)/scripts/dkms.sh remove

dkms-test: setup
	@$(TOP)/scripts/dkms-test.sh

# The cached test kernel of ARCH (built on first use): what make test and the QEMU runs use.
module-test: setup
	@dir=$$($(TOP)/scripts/build-module.sh $(ARCH)) && echo "[tungro] built $$dir/tungro.ko"


host-test: setup
	@$(TOP)/scripts/host-test.sh

# What netdev reviewers run (checkpatch --strict, sparse) on the kernel C, clang-tidy on the C++ core.
lint: setup
	@$(TOP)/scripts/lint.sh

# Boots the test kernel of ARCH with the guest agent and tungro.ko (built for ARCH in build/ARCH/src).
guest-demo guest-test guest-conform: guest-%: setup
	@$(TOP)/scripts/guest.sh $(ARCH) $* $(if $(filter demo,$*),$(DEMO_MIB),$(if $(filter conform,$*),0,$(TEST_MIB)))

demo: guest-demo

# Wire conformance: crafted trains over the virtio pair, kernel GRO vs tungro, expected outcomes per engine.
conform: guest-conform

# The 9-arch build matrix, then the negative proof: the 2024 layout mistake must fail the m68k build.
cross-check: setup
	@$(TOP)/scripts/cross-check.sh
	@$(TOP)/scripts/cross-check.sh --selftest

# The core's engine vs DPDK librte_gro on the same trains: wall clock (Google Benchmark), callgrind instructions,
# per-stage cost, one table. Timings are noisy, so make test runs only its output check (in host-test).
bench: setup
	@$(TOP)/scripts/bench.sh

# The same KUnit suites and guest checks on the debug x86_64 kernel: KASAN, kmemleak, UBSAN, lockdep, PROVE_RCU,
# atomic-sleep, debugobjects, DEBUG_NET, fault injection (any report fails the run).
test-debug: setup
	@TUNGRO_VARIANT=debug $(TOP)/scripts/kunit.sh x86_64
	@TUNGRO_VARIANT=debug $(TOP)/scripts/guest.sh x86_64 test $(TEST_MIB)

# KUnit suites and the guest checks that run tungro on both CPUs at once (race mode: the offload streams, K06, the
# engine path with its attach/detach loop, the engine under interrupt moves, the driver unbound under a stream) on
# the KCSAN x86_64 kernel (qemu/config/kcsan.config; KCSAN excludes KASAN). A KCSAN report with a tungro frame
# fails the run, the others are listed (qemu/agent/kreports.c).
test-kcsan: setup
	@TUNGRO_VARIANT=kcsan $(TOP)/scripts/kunit.sh x86_64
	@TUNGRO_VARIANT=kcsan $(TOP)/scripts/guest.sh x86_64 race $(TEST_MIB)

# The soak (issue 10): SOAK_CYCLES insmod/rmmod cycles (K06) under TCP in IPIP, SIT and plain, UDP and ICMP in the
# tunnels, then SOAK_LOOP_CYCLES attach/detach cycles under a stream, each in 20 windows paired with windows of the
# kernel's GRO alone; kmemleak scanned at the end. On the soak variant of the x86_64 test kernel (its config plus
# kmemleak, qemu/config/soak.config): the debug variant's KASAN is ten times slower.
SOAK_CYCLES ?= 1000
SOAK_LOOP_CYCLES ?= 1000
soak: setup
	@TUNGRO_VARIANT=soak TUNGRO_CYCLES=$(SOAK_CYCLES) TUNGRO_LOOP_CYCLES=$(SOAK_LOOP_CYCLES) \
		$(TOP)/scripts/guest.sh x86_64 soak $(TEST_MIB)

# Negative proof of check engine_loop_tcp: the x86_64 engine checks on a tungro.ko built with the bug it was made
# for (scripts/gate-proof.sh); passes only if that check fails there.
gate-proof: setup
	@$(TOP)/scripts/gate-proof.sh

# KUnit suites in QEMU, parsed by the kernel's kunit.py parse.
kunit: setup
	@$(TOP)/scripts/kunit.sh $(ARCH)

# The CI gate: host-test, lint, module-test, dkms-test and cross-check, then KUnit and the guest checks in QEMU,
# in two lanes side by side with each step timed (scripts/test.sh). KUnit runs on the debug kernel too; the guest
# checks on it (7 minutes under KASAN) are in make test-debug and make test-full.
test: setup
	@$(TOP)/scripts/test.sh $(TEST_MIB)
	@echo "[tungro] make test: all passed"

# libFuzzer on the core (scripts/fuzz.sh: TUNGRO_FUZZ_SECONDS, TUNGRO_FUZZ_RUNS), its coverage report, and the
# skb-shape fuzzer in the KASAN kernel with FUZZ_TRAINS random trains (KUnit suite tungro_skb_fuzz), in one
# guest per host core (scripts/skb-fuzz.sh).
FUZZ_TRAINS ?= 100000
fuzz: setup
	@$(TOP)/scripts/fuzz.sh
	@$(TOP)/scripts/skb-fuzz.sh $(FUZZ_TRAINS)

# By hand, and reported: everything of make test, the guest checks on Debian's 6.1 and 6.12 kernels with 200 K06
# cycles (make test runs 50 on every kernel), on the KASAN kernel, make test-kcsan, make soak,
# make fuzz, make gate-proof, and the fresh-machine install check.
test-full: test test-kcsan soak fuzz gate-proof
	@$(TOP)/scripts/guest.sh m68k conform 0
	@TUNGRO_KERNEL=debian-6.1 TUNGRO_CYCLES=200 $(TOP)/scripts/guest.sh x86_64 test $(TEST_MIB)
	@TUNGRO_KERNEL=debian TUNGRO_CYCLES=200 $(TOP)/scripts/guest.sh x86_64 test $(TEST_MIB)
	@TUNGRO_VARIANT=debug $(TOP)/scripts/guest.sh x86_64 test $(TEST_MIB)
	@$(TOP)/scripts/install-test.sh
	@echo "[tungro] make test-full: all passed"

# A fresh Debian 12 machine (debootstrap, cached) booted in QEMU on its own kernel: the README's build, install
# and DKMS commands, as typed, in the guest (scripts/install-test.sh). Out of make test: it builds tungro twice
# under TCG.
test-install: setup
	@$(TOP)/scripts/install-test.sh

clean:
	@kdir=$$(ls -d $${TUNGRO_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/tungro}/linux-*/$(ARCH)-* 2>/dev/null | head -1); \
	if [ -n "$$kdir" ]; then $(MAKE) -s -C "$$kdir" M=$(TOP) ARCH=$(KARCH) clean; fi
	rm -rf $(TOP)/build $(TOP)/.build.log $(TOP)/module/compat/probes.h
