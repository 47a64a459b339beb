# SPDX-License-Identifier: GPL-2.0
"""make valid's modules from elsewhere: the -dkms packages of make history
(history/dkms.tsv, VALID_DKMS=FILE another table of that form) and a
user's module source (MODULES=DIR), built with M= against one arm's own
build, with the make arguments of its architecture and compiler, into
ARM/obj/extra/NAME/, where valid.boot finds their modules beside the
in-tree ones (so the pass rule covers them). A package that does not build
is a result (ARM/extra.json: its first error line), not an error: the
reference arm's build decides what a series must build and load.

    python3 -m valid.extra V ARM [--modules DIR] -- MAKE-ARG...
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

from core import tables
from history.dkms import downloads, fetch, first_error, read_table

TOP = pathlib.Path(__file__).resolve().parent.parent
BUILD_TIMEOUT = 1800


def download():
    """The command that downloads a package of the base's suite: the host's
    apt, or the lab's private configuration (lab/apt.sh) where the host's
    sources do not reach it (a private suite's packages)."""
    b = tables.base()
    return downloads(b["apt"], [b["suite"]])[0]


def sources(vroot, table, user):
    """[(key, source top, what, subdir, args)]: each package of TABLE once per
    (dir, args), then the user's folder; a package apt cannot give is a
    ValueError naming it."""
    rows, out = [], []
    for r in read_table(table):
        key = (r["package"], r["dir"], r["args"])
        if key not in rows:
            rows.append(key)
    for pkg, subdir, args in rows:
        try:
            top, what = fetch(vroot, pkg, download())
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            raise ValueError(f"{pkg}: {e}") from None
        # a package built twice (other dir or arguments): one folder each
        same = [k for k in rows if k[0] == pkg]
        name = pkg if len(same) == 1 else f"{pkg}-{same.index((pkg, subdir, args)) + 1}"
        out.append((name, top, what.strip(), subdir, args))
    if user:
        u = pathlib.Path(user)
        if not u.is_dir():
            raise ValueError(f"MODULES={user} is not a directory")
        out.append(("user-" + u.name, u.resolve(), f"{u.name} (MODULES={user})", ".", ""))
    return out


def build(adir, name, top, subdir, args, make_args):
    """One M= build into ARM/obj/extra/NAME -> (status, [module files])."""
    obj = (pathlib.Path(adir) / "obj").resolve()
    dst = obj / "extra" / name
    log = pathlib.Path(adir) / "logs" / f"extra-{name}.log"
    # a fresh copy of the source each run: no object of another build survives
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(top, dst, symlinks=True)
    extra = [a.replace("{src}", str(dst)) for a in args.split()]
    src = (pathlib.Path(adir) / "src").resolve()
    cmd = ["make", "-C", str(src), f"O={obj}",
           f"M={(dst / subdir).resolve()}", *make_args, *extra, "modules"]
    with open(log, "w") as lf:
        lf.write(" ".join(cmd) + "\n")
        lf.flush()
        try:
            r = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"build-failed: no end after {BUILD_TIMEOUT} s (log: {log})", []
    kos = sorted(str(p.relative_to(obj)) for p in dst.rglob("*.ko"))
    if r.returncode:
        # a failed package leaves no module behind: the arm did not build it
        for k in kos:
            (obj / k).unlink()
        # the package's and the tree's own file names, not the lab's folders
        err = first_error(log).replace(f"{dst}/", "").replace(f"{src}/", "") \
            .replace(f"extra/{name}/", "")      # kbuild's path from O=, on some trees
        return "build-failed: " + err, []
    return ("built" if kos else "build-failed: no module built"), kos


def main(argv):
    args = argv[1:]
    user = None
    if "--modules" in args:
        i = args.index("--modules")
        user = args[i + 1] if i + 1 < len(args) else ""
        del args[i:i + 2]
    if len(args) < 3 or args[2] != "--":
        print("usage: python3 -m valid.extra V ARM [--modules DIR] -- MAKE-ARG...",
              file=sys.stderr)
        return 2
    vdir, arm, make_args = pathlib.Path(args[0]), args[1], args[3:]
    adir = vdir / "arms" / arm
    table = pathlib.Path(os.environ.get("VALID_DKMS") or TOP / "history/dkms.tsv")
    try:
        srcs = sources(vdir.parent, table, user)
    except (OSError, ValueError) as e:
        print(f"valid: {e}", file=sys.stderr)
        return 1
    shutil.rmtree(adir / "obj" / "extra", ignore_errors=True)
    out = {}
    for name, top, what, subdir, a in srcs:
        status, kos = build(adir, name, top, subdir, a, make_args)
        out[name] = {"source": what, "status": status, "modules": kos}
        print(f"  EXTRA  {arm}: {name}: {status if not kos else f'{len(kos)} module(s)'}",
              file=sys.stderr)
    (adir / "extra.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
