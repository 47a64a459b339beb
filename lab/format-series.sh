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
# To/Cc as the tree's get_maintainer.pl names them (file patterns only:
# the lab's trees carry no history): people To, lists Cc, the cover letter
# to everyone any patch names
gm() { (cd "$wt" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
	--no-rolestats --no-multiline "$@" 2>/dev/null) || true; }
for p in "$tmp"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-*) continue ;; esac
	gm --no-l "$p" >"$p.to"
	gm --no-m --no-r "$p" >"$p.cc"
done
python3 - "$tmp" <<'PY'
import glob, os, sys
tmp = sys.argv[1]
def names(path):
    out = []
    for part in (open(path).read().replace("\n", ",").split(",") if os.path.exists(path) else []):
        if part.strip() and part.strip() not in out:
            out.append(part.strip())
    return out
def fold(key, vals):
    return key + ": " + ",\n ".join(vals) + "\n" if vals else ""
patches = sorted(glob.glob(os.path.join(tmp, "[0-9][0-9][0-9][0-9]-*.patch")))
every = {"to": [], "cc": []}
for p in patches[1:]:
    for k in every:
        every[k] += [n for n in names(p + "." + k) if n not in every[k]]
for p in patches:
    k = (every["to"], every["cc"]) if os.path.basename(p).startswith("0000-") \
        else (names(p + ".to"), names(p + ".cc"))
    text = open(p).read()
    end = text.index("\n\n") + 1
    open(p, "w").write(text[:end] + fold("To", k[0]) + fold("Cc", k[1]) + text[end:])
PY
rm -f "$tmp"/*.to "$tmp"/*.cc
mkdir -p "$dir"
rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$dir/"
ls "$tmp" | grep -v '^0000-' | while read -r p; do
	grep -qxF "$p" "$dir/series" 2>/dev/null || echo "modvlab: note: $p is not listed in $dir/series" >&2
done
