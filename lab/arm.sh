#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prepare and build one arm: worktree of the pristine tree + its series (git am,
# lab/worktree.sh),
# config (tinyconfig + qemu/config fragments, checked), kernel build in O=.
# usage: arm.sh ARM
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: arm.sh ARM}
frag=$TOP/qemu/config/$arm.config
[ -f "$frag" ] || die "unknown arm '$arm' (no qemu/config/$arm.config)"
why=$(table arms skipped | awk -F'\t' -v a="$arm" '$1 == a { print $2 }')
[ -z "$why" ] || die "arm $arm does not run on base $BASE_BASE: $why"
A=$ARMS_DIR/$arm
src=$A/src obj=$A/obj logs=$A/logs
mkdir -p "$obj" "$logs"

[ -d "$src" ] || need_space 3 "arm $arm (a worktree of the tree and its build)"

# --- worktree + series + the lab's probe exports (identical in every arm) ----
sh "$TOP/lab/worktree.sh" --probe "$src" "$A/series.id" "$arm"

# --- config -----------------------------------------------------------------
# shellcheck disable=SC2046
sh "$TOP/lab/configure.sh" "$arm" "$src" "$obj" "$A" $(lab_fragments "$frag")

# --- build ------------------------------------------------------------------
fresh=; [ -f "$obj/vmlinux" ] || fresh=1
step BUILD "$arm${fresh:+ (clean)}"
if ! "$TOP/lab/cputime.py" "$A/build.json" -- \
	make -C "$src" O="$obj" $KARGS -j"$JOBS" CC="$KCC" "$IMAGE" modules \
	>"$logs/build.log" 2>&1; then
	die "build of $arm failed: $(grep -m1 -e 'error:' -e 'Error ' "$logs/build.log") (log: $logs/build.log)"
fi
# G0, the release: kept apart, since generations rebuild obj/ in place
mkdir -p "$A/kernels/G0"
cp "$obj/$ARCH_IMAGE" "$obj/Module.symvers" "$obj/vmlinux" "$A/kernels/G0/"
if [ -n "$fresh" ]; then
	cp "$A/build.json" "$A/build-clean.json"
	cp "$logs/build.log" "$logs/build-clean.log"
fi
done_step
