# SPDX-License-Identifier: GPL-2.0
"""A series folder as git format-patch wrote it: its series file, the
patches' subjects, and the form a kernel maintainer expects (checked by
the unit tests for every base, without a tree)."""
import concurrent.futures
import email
import glob
import os
import re
import subprocess

# the subsystem prefix as kernel logs spell it: kbuild:, MIPS:, Documentation/kbuild:
SUBJECT = re.compile(r"^\[RFC PATCH (\d+)/(\d+)\] ([A-Za-z0-9_/.-]+(?:, [A-Za-z0-9_/.-]+)*): (.+)$")
COVER = "0000-cover-letter.patch"


def subject(text):
    """The Subject: header, unfolded (format-patch folds long ones), matched."""
    subj = email.message_from_string(text)["Subject"] or ""
    return SUBJECT.match(" ".join(subj.split()))


def listed(d):
    """The patches the series file of folder d lists, in order, as paths."""
    with open(os.path.join(d, "series")) as f:
        return [os.path.join(d, l.strip()) for l in f
                if l.strip() and not l.startswith("#")]


def checkpatch(tree, patches, args=()):
    """{patch: CompletedProcess} of the tree's own checkpatch.pl on each
    patch, one process per core at a time (each is single-threaded perl, and
    a series takes a minute or more one by one)."""
    def one(p):
        return p, subprocess.run(["perl", "scripts/checkpatch.pl", *args, p], cwd=tree,
                                 capture_output=True, text=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        return dict(ex.map(one, patches))


def problems(d):
    """What keeps folder d from being a series a maintainer can apply: a
    list of "FILE: what" lines, empty when none."""
    out = []
    patches = listed(d)
    on_disk = sorted(glob.glob(os.path.join(d, "[0-9][0-9][0-9][0-9]-*.patch")))
    cover = os.path.join(d, COVER)
    if sorted(patches) != [p for p in on_disk if p != cover]:
        out.append(f"{d}/series: does not list exactly the patches in the folder")
    if not os.path.isfile(cover):
        out.append(f"{cover}: no cover letter")
    else:
        with open(cover) as f:
            text = f.read()
        for placeholder in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
            if placeholder in text:
                out.append(f"{cover}: still says {placeholder}")
    for i, p in enumerate(patches, 1):
        if not os.path.isfile(p):
            out.append(f"{p}: listed, missing")
            continue
        with open(p) as f:
            text = f.read()
        name = os.path.basename(p)
        if not text.startswith("From "):
            out.append(f"{name}: not git format-patch output")
        m = subject(text)
        if not m:
            out.append(f"{name}: subject is not '[RFC PATCH n/m] subsystem: summary'")
            continue
        if (int(m.group(1)), int(m.group(2))) != (i, len(patches)):
            out.append(f"{name}: numbered {m.group(1)}/{m.group(2)}, is {i}/{len(patches)}")
        if len(m.group(3)) + 2 + len(m.group(4)) > 75:
            out.append(f"{name}: summary line longer than 75 characters")
        if not re.search(r"(?m)^Signed-off-by: .+ <.+@.+>$", text):
            out.append(f"{name}: no Signed-off-by")
    return out
