#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run one arm's workload: plan every boot (python3 -m plan), then for each an
# initramfs and a QEMU boot with a timeout. A boot that fails does not stop
# the others. Exit 0 if all finished, 3 if some did not (listed in
# boot/unfinished, for python3 -m compare robust --unfinished to judge), 1 on an error.
# usage: run.sh ARM          env: GENS, ACCEL, TIMEOUT
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: run.sh ARM}
[ -f "$ARMS_DIR/$arm/kernels/G0/$IMAGE" ] || die "arm $arm is not built (make $arm)"
boots=$(py plan "$arm") || die "planning $arm failed"
rm -f "$ARMS_DIR/$arm/boot/failed" "$ARMS_DIR/$arm/boot/unfinished"
# one boot; after one that did not finish (oops, hang, garbage), the cases
# it never reached run again in a fresh boot (qemu/resume.py), at most 8 times
boot_one() { # BOOT KERNEL TIMEOUT
	# the plan's timeout, else TIMEOUT, else qemu/boot.sh's default
	[ "$3" = - ] && set -- "$1" "$2" "${TIMEOUT:-}"
	step BOOT "$arm $1 (${ACCEL:-tcg})"
	sh "$TOP/qemu/initramfs.sh" "$arm" "$1"
	KERNEL=$2 TIMEOUT=$3 sh "$TOP/qemu/boot.sh" "$arm" "$1" ||
		echo "$1" >> "$ARMS_DIR/$arm/boot/failed"
	done_step
}
echo "$boots" | while read -r boot kernel timeout; do
	[ -n "$boot" ] || continue
	boot_one "$boot" "$kernel" "$timeout"
	tries=0
	while [ $tries -lt 8 ] && next=$(py qemu.resume "$arm" "$boot") && [ -n "$next" ]; do
		set -- $next
		echo "modvlab: $arm $boot did not finish: the rest of its cases resume in $1" >&2
		echo "$boot" >> "$ARMS_DIR/$arm/boot/failed"
		boot=$1
		boot_one "$1" "$2" "$3"
		tries=$((tries + 1))
	done
done
[ ! -s "$ARMS_DIR/$arm/boot/failed" ] || { mv "$ARMS_DIR/$arm/boot/failed" "$ARMS_DIR/$arm/boot/unfinished"; exit 3; }
