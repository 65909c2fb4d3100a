#!/usr/bin/env bash
# Installs the Debian 12 packages tungro needs, only those missing; quiet when
# nothing is missing. Idempotent. Needs root (apt-get) only when something is missing.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PKGS=(
  # kernel source and what its build needs
  linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod rsync python3
  # pahole: Debian's kernel (scripts/debian-kernel.sh) has BTF for modules, made at tungro.ko's final link
  dwarves
  # make dkms-install, and make test's dkms build against Debian's 6.12 headers (scripts/dkms-test.sh)
  dkms
  # emulators: x86_64 now, m68k for the cross-arch work
  qemu-system-x86 qemu-system-misc
  # cross toolchains: m68k runtime, and the cross-arch build matrix (make cross-check)
  gcc-m68k-linux-gnu g++-m68k-linux-gnu libc6-dev-m68k-cross
  g++-i686-linux-gnu g++-arm-linux-gnueabihf g++-aarch64-linux-gnu g++-powerpc-linux-gnu
  g++-riscv64-linux-gnu g++-s390x-linux-gnu g++-mips-linux-gnu
  # host tests of the C++ core
  g++ cmake libgtest-dev libgmock-dev libbenchmark-dev libpcap-dev pkg-config
  # a fresh clone's host builds of the core from the cache (scripts/lib.sh, host_ccache)
  ccache
  # fuzzing of the core (libFuzzer) and its coverage report (llvm-profdata-14, llvm-cov-14)
  clang-14 libclang-rt-14-dev llvm-14
  # make lint: sparse through Kbuild (make C=2), clang-tidy on the core (checkpatch is the kernel source's)
  sparse clang-tidy-14
  # make bench: DPDK's librte_gro as the reference, callgrind for instructions per segment
  libdpdk-dev valgrind
  # make demo: the chart of the demo's table (PNG, no X)
  gnuplot-nox
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "[setup] installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "[setup] error: need root for apt-get (run as root, or install: ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt_refresh_daily
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "[setup] installed: ${missing[*]}"
