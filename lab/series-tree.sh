#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A scratch source tree: the pristine tree with ARM's series applied (no
# probe), for the checks that need the series but no arm build (make cross,
# make asm-audit). Made again every time (lab/worktree.sh --fresh).
# usage: series-tree.sh ARM DIR
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: series-tree.sh ARM DIR} dir=${2:?usage: series-tree.sh ARM DIR}
[ "$(table series "$arm")" != - ] || die "arm $arm has no series"
exec sh "$TOP/lab/worktree.sh" --fresh "$dir" "$dir.id" "$arm"
