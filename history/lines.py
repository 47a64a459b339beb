# SPDX-License-Identifier: GPL-2.0
"""Debian's kernel lines, discovered from what the archive serves: every
linux-headers-ABINAME-FLAVOUR of every suite in history/suites.tsv, grouped by
its ABI name with the upload number taken out (X.Y.0-{N}, X.Y.{N}+debNN).
A line is named by its pattern with N for {N}; its uploads are the numbers
the archive serves; lines are ordered by kernel version, then Debian
release, which is the order a user upgrades in.

    python3 -m history.lines list              one line per line: name pattern suites apt kbuild uploads
    python3 -m history.lines select HISTORY    the same, limited to HISTORY's choice
HISTORY is a list of tokens: an ABI name (X.Y.N+debNN with a number: that
upload), a line name (X.Y.N+debNN: every upload), LINE=newest:K, LINE=A,B;
a bare number or newest:K applies to the base's own line; empty: every line.
"""
import os
import re
import subprocess
import sys

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES_TSV = os.path.join(TOP, "history", "suites.tsv")
# an ABI name with an upload number: X.Y.Z-N (older lines) or X.Y.N+debNN,
# or a respin of one (X.Y.N+debNN.R: upload "N.R", core/tables.upload_id);
# anything else is named, not followed
ABI = re.compile(r"^(\d+\.\d+\.(?:\d+-)?)(\d+)(?:(\+deb\d+)(?:\.(\d+))?)?$")


class LineError(Exception):
    """The archive or a HISTORY token the lines cannot be made from."""


def split_abi(abi):
    """(pattern with {N}, upload) of an ABI name, or None."""
    m = ABI.match(abi)
    if not m:
        return None
    n = m.group(2) + (f".{m.group(4)}" if m.group(4) else "")
    return m.group(1) + "{N}" + (m.group(3) or ""), tables.upload_id(n)


def name_of(pattern):
    return pattern.replace("{N}", "N")


def order_key(pattern):
    """Kernel version, then Debian release (+debNN; none sorts first)."""
    pre, _, post = pattern.partition("{N}")
    return ([int(x) for x in re.findall(r"\d+", pre)][:2],
            int(post[4:]) if post.startswith("+deb") else 0)


def read_suites(path=SUITES_TSV):
    rows = tables.read_tsv(path, ["suite", "apt"], keep_line=True)
    for r in rows:
        if r["apt"] not in ("host", "private"):
            raise LineError(f"{path}:{r['line']}: apt is host or private, not {r['apt']!r}")
    return rows


def apt_cache(suite, apt, *args):
    """apt-cache ARGS on the host's lists or on the suite's private ones."""
    cmd = (["apt-cache", *args] if apt == "host"
           else ["sh", os.path.join(TOP, "lab/apt.sh"), suite, "cache", *args])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise LineError(f"{' '.join(cmd[:4])}: "
                        f"{(r.stderr.strip().splitlines() or ['failed'])[-1]}")
    return r.stdout


def served(suite, apt, flavour):
    """The ABI names whose headers the suite serves for the flavour."""
    out = []
    for p in apt_cache(suite, apt, "pkgnames", "linux-headers-").split():
        if p.startswith("linux-headers-") and p.endswith("-" + flavour):
            out.append(p[len("linux-headers-"):-len(flavour) - 1])
    return out


def host_suite(abi, flavour):
    """The suite the host's archive serves an upload from (apt-cache madison)."""
    for line in apt_cache("", "host", "madison", f"linux-headers-{abi}-{flavour}").splitlines():
        parts = [x.strip() for x in line.split("|")]    # pkg | version | URI suite/comp ...
        if len(parts) >= 3 and len(parts[2].split()) >= 2:
            return parts[2].split()[1].split("/")[0]
    return None


def kbuild_of(pattern, abi, suite, apt):
    """The kbuild package an upload's headers need: one per upload on newer
    lines (linux-kbuild-ABINAME), one per line on older ones (linux-kbuild-X.Y)."""
    if apt_cache(suite, apt, "pkgnames", f"linux-kbuild-{abi}").split():
        return "linux-kbuild-{abiname}"
    return "linux-kbuild-" + ".".join(pattern.split(".")[:2])


def discover(suites=None, flavour=None):
    """[{name, pattern, suites, apt, kbuild, uploads}] in upgrade order, and the
    ABI names not followed (irregular names), from what the archive serves."""
    flavour = flavour or tables.flavour()
    lines, skipped, seen_host = {}, [], False
    for s in suites if suites is not None else read_suites():
        if s["apt"] == "host":
            if seen_host:   # the host's lists are one: asked once
                continue
            seen_host = True
        for abi in served(s["suite"], s["apt"], flavour):
            got = split_abi(abi)
            if not got:     # another flavour (-cloud, -rt) or a metapackage: not a line
                if re.match(r"^\d+\.\d+\.\d", abi) and not re.search(r"-[a-z]+$", abi) \
                        and abi not in skipped:
                    skipped.append(abi)
                continue
            pattern, n = got
            ln = lines.setdefault(pattern, {"name": name_of(pattern), "pattern": pattern,
                                            "suites": [], "apt": s["apt"], "uploads": set()})
            if s["suite"] not in ln["suites"]:
                ln["suites"].append(s["suite"])
            ln["uploads"].add(n)
    out = []
    for pattern in sorted(lines, key=order_key):
        ln = lines[pattern]
        ups = sorted(ln["uploads"], key=tables.upload_key)
        first = tables.fill(pattern, ups[0])
        if ln["apt"] == "host":     # the host's lists are one: name the suite that serves it
            got = [host_suite(tables.fill(pattern, n), flavour) for n in (ups[0], ups[-1])]
            ln["suites"] = list(dict.fromkeys(x for x in got if x)) or ln["suites"]
        ln["kbuild"] = kbuild_of(pattern, first, ln["suites"][0], ln["apt"])
        out.append({**ln, "uploads": ups})
    return out, skipped


def select(lines, history, base_pattern):
    """lines limited to HISTORY's tokens (module docstring); a token naming
    nothing served is a LineError."""
    toks = (history or "").split()
    if not toks:
        return lines
    want = {}
    by_name = {ln["name"]: ln for ln in lines}
    base = next((ln for ln in lines if ln["pattern"] == base_pattern), None)
    for t in toks:
        line, sep, sel = t.partition("=")
        if not sep:
            got = split_abi(t)
            if got and got[0] in {ln["pattern"] for ln in lines}:
                ln = next(x for x in lines if x["pattern"] == got[0])
                line, sel = ln["name"], str(got[1])
            elif t in by_name:
                line, sel = t, "all"
            else:
                if base is None:
                    raise LineError(f"HISTORY: {t!r}: the base's line {name_of(base_pattern)} "
                                    "is not served")
                line, sel = base["name"], t
        if line not in by_name:
            raise LineError(f"HISTORY: no line {line!r} (served: "
                            f"{', '.join(by_name) or 'none'})")
        ups = by_name[line]["uploads"]
        if sel == "all":
            pick = ups
        elif sel.startswith("newest:") and sel[7:].isdigit():
            pick = ups[-int(sel[7:]):] if int(sel[7:]) else []
        elif all(tables.UPLOAD.match(x) for x in sel.split(",")):
            pick = [tables.upload_id(x) for x in sel.split(",")]
            bad = [x for x in pick if x not in ups]
            if bad:
                raise LineError(f"HISTORY: {line} has no upload {bad[0]} (served: "
                                f"{' '.join(map(str, ups))})")
        else:
            raise LineError(f"HISTORY: {t!r}: want an ABI name, LINE, LINE=newest:K or "
                            "LINE=N,M")
        want.setdefault(line, set()).update(pick)
    return [{**ln, "uploads": sorted(want[ln["name"]], key=tables.upload_key)}
            for ln in lines if ln["name"] in want]


def main(argv):
    if len(argv) < 2 or argv[1] not in ("list", "select"):
        print(__doc__.strip().splitlines()[-7], file=sys.stderr)
        print("usage: python3 -m history.lines list | select HISTORY", file=sys.stderr)
        return 2
    try:
        lines, skipped = discover()
        if argv[1] == "select":
            lines = select(lines, " ".join(argv[2:]), tables.base()["abiname"])
    except (LineError, ValueError, OSError) as e:
        print(f"history: {e}", file=sys.stderr)
        return 1
    if not lines:
        print("history: the archive serves no kernel line (apt-get update?)", file=sys.stderr)
        return 1
    for a in skipped:
        print(f"history: {a}: not an ABI name of a line (X.Y.Z-N or X.Y.N+debNN[.R]), "
              "not followed", file=sys.stderr)
    for ln in lines:
        print("\t".join([ln["name"], ln["pattern"], ",".join(ln["suites"]), ln["apt"], ln["kbuild"],
                         " ".join(map(str, ln["uploads"]))]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
