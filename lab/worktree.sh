#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The one way to make a source tree: a git worktree of the base's pristine
# tree (build/BASE/linux, tag "pristine") with ARM's series applied by git
# am (its folder: python3 -m core.tables series ARM), tagged arm/ARM, then
# with --probe the lab's probe patch (lab/bases.tsv's probe folder).
# Incremental: the patches' hash is kept in ID_FILE, and nothing is done
# while it matches; after a change ID_FILE's config.id beside it goes too.
# --fresh makes the worktree again from nothing (make cross, asm-audit).
# usage: worktree.sh [--probe] [--fresh] SRC ID_FILE ARM     (log: SRC.am.log)
set -eu
. "$(dirname "$0")/common.sh"

probe= fresh=
while :; do
	case ${1:-} in
	--probe) probe=1; shift ;;
	--fresh) fresh=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] || die "usage: worktree.sh [--probe] [--fresh] SRC ID_FILE ARM"
src=$1 idf=$2 arm=$3
git -C "$TREE" rev-parse -q --verify pristine >/dev/null 2>&1 || die "no tree $TREE (make tree)"
series=$(table series "$arm") || die "no arm $arm in workload/arms.tsv"
patches=
if [ "$series" != - ]; then
	[ -f "$series/series" ] || die "no $series/series for arm $arm (base $BASE_BASE)"
	patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$series/series" | sed "s|^|$series/|")
fi
probes=
[ -z "$probe" ] || probes=$(ls "$TOP/$BASE_PROBE"/*.patch) || die "no probe patch in $BASE_PROBE"
# shellcheck disable=SC2086
id=$(cat /dev/null $patches $probes | sha256sum | cut -c1-16)
log=$src.am.log
mkdir -p "$(dirname "$src")" "$(dirname "$idf")"
if [ -n "$fresh" ]; then
	git -C "$TREE" worktree remove -f "$src" 2>/dev/null || rm -rf "$src"
	rm -f "$idf"
fi
if [ ! -e "$src/.git" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" pristine >"$log" 2>&1 ||
		die "cannot create worktree $src (log: $log)"
	rm -f "$idf"
fi
[ "$(cat "$idf" 2>/dev/null)" = "$id" ] && exit 0
step AM "$arm: $(echo $patches | wc -w) patches${probe:+ + probe}"
gs() { git -C "$src" -c user.name=modvlab -c user.email=modvlab@localhost "$@"; }
gs am --abort >/dev/null 2>&1 || true
gs reset -q --hard pristine
gs clean -fdq
if [ -n "$patches" ]; then
	# shellcheck disable=SC2086
	gs am -q $patches >"$log" 2>&1 ||
		die "$series does not apply: $(grep -m1 -e error -e 'Patch failed' "$log") (log: $log)"
fi
git -C "$src" tag -f "arm/$arm" >/dev/null	# the arm without the lab probe
if [ -n "$probes" ]; then
	# shellcheck disable=SC2086
	gs am -q $probes >>"$log" 2>&1 || die "$BASE_PROBE does not apply on $arm (log: $log)"
fi
echo "$id" > "$idf"
rm -f "$(dirname "$idf")/config.id"
done_step
