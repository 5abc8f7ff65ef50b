#!/bin/sh
# Install the Debian packages perfbot needs to build and test, if missing.
# Run as root on Debian 12 (what `make` does first); a no-op when all are there.
# clang and libclang-rt-14-dev (libFuzzer, ASan, UBSan runtimes; only a
# Recommends of clang) build the fuzz targets of `make check`.
# The kernel tests (issue 15, docs/kernel.md) need a kernel build toolchain
# (flex, bison, bc, libelf-dev, libssl-dev for the x86 build's objtool and
# certificate tools, cpio, xz-utils to unpack linux-source-6.1's tarball),
# ccache for incremental rebuilds, qemu-system-x86 and busybox-static for
# the guest, kexec-tools for boot: kexec.
# The fleet (issue 16, docs/fleet.md): libpq-dev for the PostgreSQL store;
# postgresql-15 for the tests' throw-away clusters (tests/pg/cluster.sh).
# The pages (issue 17's page tests, docs/report-html.md "How the pages are
# checked"): chromium renders them headless (tests/e2e/browser-lib.sh).
set -eu

PACKAGES="gcc make cmake ninja-build pkg-config libjansson-dev libcmocka-dev
libyaml-dev libsqlite3-dev
clang libclang-rt-14-dev
procps util-linux git python3 bc coreutils sqlite3
qemu-system-x86 busybox-static flex bison libelf-dev libssl-dev cpio ccache
kexec-tools linux-source-6.1 xz-utils
libpq-dev postgresql-15
chromium"

missing=
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "perfbot: missing Debian packages:$missing" >&2
	echo "perfbot: install them as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "perfbot: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # word splitting is the point
apt-get install -y -qq --no-install-recommends $missing >/dev/null
