#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run one arm's workload in a guest: plan, initramfs, boot (with timeout).
# usage: run.sh ARM [BOOT]
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: run.sh ARM [BOOT]} boot=${2:-G0}
[ -f "$ARMS_DIR/$arm/obj/arch/x86/boot/bzImage" ] || die "arm $arm is not built (make $arm)"
step BOOT "$arm $boot (${ACCEL:-tcg})"
python3 "$TOP/qemu/plan.py" "$arm" "$boot"
sh "$TOP/qemu/initramfs.sh" "$arm" "$boot"
rc=0
sh "$TOP/qemu/boot.sh" "$arm" "$boot" || rc=$?
done_step
exit $rc
