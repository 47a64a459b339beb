#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A scratch source tree: the pristine tree (a git worktree of build/linux)
# with series-ARM applied by git am, for the checks that need the series
# but no arm build (make cross, make asm-audit). Made again every time.
# usage: series-tree.sh ARM DIR
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: series-tree.sh ARM DIR} dir=${2:?usage: series-tree.sh ARM DIR}
series=$TOP/series-$arm
[ -f "$series/series" ] || die "no series-$arm/series"
[ -d "$TREE/.git" ] || die "no $TREE (run: make tree)"
git -C "$TREE" worktree remove -f "$dir" 2>/dev/null || rm -rf "$dir"
git -C "$TREE" worktree prune
mkdir -p "$(dirname "$dir")"
git -C "$TREE" worktree add -q --detach "$dir" pristine || die "cannot make a worktree in $dir"
for p in $(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series"); do
	git -C "$dir" -c user.name=modvlab -c user.email=modvlab@localhost \
		am -q "$series/$p" >/dev/null 2>&1 || die "series-$arm: $p does not apply"
done
