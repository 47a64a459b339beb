# SPDX-License-Identifier: GPL-2.0
# Shared shell helpers: paths, kbuild-style progress lines, one-line errors.

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
B=${B:-$TOP/build}
TREE=$B/linux                  # git repo; its work tree is the pristine source
ARMS_DIR=$B/arms
CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/modvlab/ccache}
export CCACHE_DIR
# Hits across clones and worktrees: paths under $B are hashed relative.
export CCACHE_BASEDIR=$B CCACHE_NOHASHDIR=1
# Reproducible kernel builds (and so ccache hits on init/version.c too).
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=modvlab KBUILD_BUILD_HOST=modvlab KBUILD_BUILD_VERSION=1
# Set but empty: no "+" appended to the release for a git tree (setlocalversion).
export LOCALVERSION=
JOBS=${JOBS:-$(nproc)}

# py MODULE ARGS: one of the lab's Python modules (compare.*, plan)
py() { (cd "$TOP" && python3 -m "$@"); }
# table ARGS: the lab's data tables and limits (core/tables.py's CLI)
table() { py core.tables "$@"; }

die() { printf 'modvlab: error: %s\n' "$*" >&2; exit 1; }

# step TAG WHAT: print "  TAG  WHAT" and remember when it started
step() { _tag=$1; shift; _what=$*; _t0=$(date +%s); printf '  %-7s%s\n' "$_tag" "$_what"; }
# done_step: print the elapsed time of the last step (for the timing table)
done_step() {
	_dt=$(( $(date +%s) - _t0 ))
	printf '  %-7s%s (%ds)\n' "$_tag" "$_what" "$_dt"
	mkdir -p "$B" && printf '%s\t%s\t%s\n' "$_tag" "$_what" "$_dt" >> "$B/steps.tsv"
}
