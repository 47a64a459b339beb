#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate the arm's series folder (python3 -m core.tables series ARM)
# from a development worktree with git format-patch, keeping the cover
# letter's subject and blurb (everything above the shortlog) from the
# 0000-cover-letter.patch already there.
# usage: format-series.sh ARM WORKTREE
set -eu
. "$(dirname "$0")/common.sh"

arm=${1:?usage: format-series.sh ARM WORKTREE} wt=${2:?usage: format-series.sh ARM WORKTREE}
dir=$(table series "$arm") && [ "$dir" != - ] || die "arm $arm has no series folder in lab/bases.tsv's base $BASE_BASE"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$wt" format-patch -q --cover-letter --subject-prefix='RFC PATCH' \
	-o "$tmp" pristine..HEAD || die "format-patch failed in $wt"
old=$dir/0000-cover-letter.patch
if [ -f "$old" ]; then
	python3 - "$old" "$tmp/0000-cover-letter.patch" <<'PY'
import re, sys
old, new = (open(p).read() for p in sys.argv[1:])
subj = re.search(r"^Subject: \[[^\]]*\] (.*)$", old, re.M).group(1)
# blurb: from the first blank line after the headers to the shortlog
hdr_end = old.index("\n\n") + 2
blurb = old[hdr_end:re.search(r"^\S.* \(\d+\):$", old, re.M).start()]
new = re.sub(r"\*\*\* SUBJECT HERE \*\*\*", lambda m: subj, new)
new = new.replace("*** BLURB HERE ***\n\n", blurb)
open(sys.argv[2], "w").write(new)
PY
fi
mkdir -p "$dir"
rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$dir/"
ls "$tmp" | grep -v '^0000-' | while read -r p; do
	grep -qxF "$p" "$dir/series" 2>/dev/null || echo "modvlab: note: $p is not listed in $dir/series" >&2
done
