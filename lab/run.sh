#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run one arm's workload: plan every boot (qemu/plan.py), then for each an
# initramfs and a QEMU boot with a timeout. A boot that fails does not stop
# the others; the exit status says whether all finished.
# usage: run.sh ARM          env: GENS, ACCEL, TIMEOUT
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: run.sh ARM}
[ -f "$ARMS_DIR/$arm/kernels/G0/bzImage" ] || die "arm $arm is not built (make $arm)"
boots=$(python3 "$TOP/qemu/plan.py" "$arm") || die "planning $arm failed"
rm -f "$ARMS_DIR/$arm/boot/failed"
echo "$boots" | while read -r boot kernel; do
	[ -n "$boot" ] || continue
	step BOOT "$arm $boot (${ACCEL:-tcg})"
	sh "$TOP/qemu/initramfs.sh" "$arm" "$boot"
	KERNEL=$kernel sh "$TOP/qemu/boot.sh" "$arm" "$boot" || echo "$boot" >> "$ARMS_DIR/$arm/boot/failed"
	done_step
done
[ ! -s "$ARMS_DIR/$arm/boot/failed" ] || { rm -f "$ARMS_DIR/$arm/boot/failed"; exit 1; }
