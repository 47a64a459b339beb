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
[ "$BASE_RENAMES" = - ] || [ -r "$TOP/$BASE_RENAMES" ] ||
	die "lab/bases.tsv: base $BASE_BASE: no renames file $BASE_RENAMES"
_cross=; [ "$ARCH_CROSS" = - ] || _cross=$ARCH_CROSS
KARGS="ARCH=$ARCH_KARCH${_cross:+ CROSS_COMPILE=$_cross}"
KCC="ccache ${_cross}gcc"
IMAGE=$(basename "$ARCH_IMAGE")
# lab_fragments [FRAGMENT...]: the config fragments of a build in merge
# order: lab.config, the architecture's, the base's, then FRAGMENT... (an
# arm's, a variant's). With the base's renames (lab/bases.tsv), copies under
# $B/config/ with each OLD option named NEW, for merging and checking alike.
lab_fragments() {
	_a=-; [ "$ARCH_CONFIG" = - ] || _a=$TOP/$ARCH_CONFIG
	_b=-; [ "$BASE_CONFIG" = - ] || _b=$TOP/$BASE_CONFIG
	set -- "$TOP/qemu/config/lab.config" "$_a" "$_b" "$@"
	if [ "$BASE_RENAMES" = - ]; then
		for _f; do [ "$_f" = - ] || printf '%s\n' "$_f"; done
		return
	fi
	mkdir -p "$B/config"
	grep -v -e '^#' -e '^[[:space:]]*$' "$TOP/$BASE_RENAMES" |
		awk '{ printf "s/\\bCONFIG_%s\\b/CONFIG_%s/g\n", $1, $2 }' > "$B/config/renames.sed"
	_i=0
	for _f; do
		[ "$_f" != - ] || continue
		_i=$((_i + 1))
		sed -f "$B/config/renames.sed" "$_f" > "$B/config/$_i-$(basename "$_f")"
		printf '%s\n' "$B/config/$_i-$(basename "$_f")"
	done
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
# need_space GIB WHAT: stop with one line when the build folder's file system
# has less than GIB GiB free (an arm is a ~2 GiB worktree plus its objects; a
# full disk otherwise shows up later as truncated modules or a failed link).
# MODVLAB_MIN_FREE_GIB overrides GIB (0: no check).
need_space() {
	_need=${MODVLAB_MIN_FREE_GIB:-$1}
	[ "$_need" -gt 0 ] 2>/dev/null || return 0
	mkdir -p "$B"
	_free=$(df -Pk "$B" | awk 'NR == 2 { print int($4 / 1048576) }')
	[ -z "$_free" ] || [ "$_free" -ge "$_need" ] ||
		die "$2 needs ${_need} GiB free on $(df -P "$B" | awk 'NR == 2 { print $6 }'), only ${_free} GiB left (free some space, e.g. make clean BASE=$BASE_BASE for another base)"
}
step() { _tag=$1; shift; _what=$*; _t0=$(date +%s); printf '  %-7s%s\n' "$_tag" "$_what"; }
# done_step: print the elapsed time of the last step (for the timing table)
done_step() {
	_dt=$(( $(date +%s) - _t0 ))
	printf '  %-7s%s (%ds)\n' "$_tag" "$_what" "$_dt"
	mkdir -p "$B" && printf '%s\t%s\t%s\n' "$_tag" "$_what" "$_dt" >> "$B/steps.tsv"
}
