# SPDX-License-Identifier: GPL-2.0
# Shared shell helpers: paths, kbuild-style progress lines, one-line errors.

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}

# py MODULE ARGS: one of the lab's Python modules (core.*, plan, compare, ...)
py() { (cd "$TOP" && python3 -m "$@"); }
# table ARGS: the lab's data tables and limits (core/tables.py's CLI)
table() { py core.tables "$@"; }
die() { printf 'modvlab: error: %s\n' "$*" >&2; exit 1; }

# The selected base and architecture (BASE=, ARCH=; lab/bases.tsv and
# lab/arches.tsv): BASE_<FIELD>, ARCH_<FIELD>, BASE_BUILD (build/BASE)
_tables=$(table shell) || exit 1   # core.tables said why, in one line
eval "$_tables"
B=${B:-$BASE_BUILD}
TREE=$B/linux                  # git repo; its work tree is the pristine source
ARMS_DIR=$B/arms
# what every make of a kernel tree is given for the architecture, its
# compiler (ccache'd), and the image target and file
_cross=; [ "$ARCH_CROSS" = - ] || _cross=$ARCH_CROSS
KARGS="ARCH=$ARCH_KARCH${_cross:+ CROSS_COMPILE=$_cross}"
KCC="ccache ${_cross}gcc"
IMAGE=$(basename "$ARCH_IMAGE")
# the config fragments every build of this base and architecture starts
# from, in merge order (an arm's or variant's own fragments follow)
lab_fragments() {
	printf '%s\n' "$TOP/qemu/config/lab.config"
	[ "$ARCH_CONFIG" = - ] || printf '%s\n' "$TOP/$ARCH_CONFIG"
	[ "$BASE_CONFIG" = - ] || printf '%s\n' "$TOP/$BASE_CONFIG"
}
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


# step TAG WHAT: print "  TAG  WHAT" and remember when it started
step() { _tag=$1; shift; _what=$*; _t0=$(date +%s); printf '  %-7s%s\n' "$_tag" "$_what"; }
# done_step: print the elapsed time of the last step (for the timing table)
done_step() {
	_dt=$(( $(date +%s) - _t0 ))
	printf '  %-7s%s (%ds)\n' "$_tag" "$_what" "$_dt"
	mkdir -p "$B" && printf '%s\t%s\t%s\n' "$_tag" "$_what" "$_dt" >> "$B/steps.tsv"
}
