#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Check the Debian packages the lab needs; install the missing ones as root.
# usage: deps.sh [PACKAGE...]   (default: the lab's own for the base and the
# architecture of lab/bases.tsv and lab/arches.tsv, libdw-dev for the dwarf
# arm's gendwarfksyms; detect-dwarf adds
# abigail-tools, the dwarf detector's abidiff)
set -eu
. "$(dirname "$0")/common.sh"

# the base's source from the host's suites; a private one's comes through
# lab/apt.sh when the tree is made (lab/tree.sh)
src=; [ "$BASE_APT" != host ] || src=$BASE_PACKAGE
cc=$ARCH_CC_PKG; [ "$cc" != - ] || cc=
# a cross-built guest loader (qemu/initramfs.sh) links its static libc
xlibc=; [ "$ARCH_CROSS" = - ] || xlibc=libc6-dev-$ARCH_DEBIAN-cross
qemu=${ARCH_QEMU#*:}; [ "$qemu" != - ] || qemu=
PKGS="$src gcc $cc $xlibc binutils make flex bison bc libelf-dev libssl-dev
cpio xz-utils zstd kmod libdw-dev $qemu busybox-static python3 ccache libc6-dev"
[ $# -eq 0 ] || PKGS=$*

missing=
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case $st in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	die "missing packages:$missing; run as root: apt-get update && $cmd"
fi
step DEPS "apt-get install$missing"
log=$B/logs/deps.log
mkdir -p "$B/logs"
if ! { apt-get update && DEBIAN_FRONTEND=noninteractive $cmd; } >"$log" 2>&1; then
	die "apt-get failed for:$missing (log: $log)"
fi
done_step
