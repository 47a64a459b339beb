# SPDX-License-Identifier: GPL-2.0
"""Detector dwarf: libabigail's abidiff (Debian's abigail-tools) over the
DWARF of G0's and Gn's vmlinux (the detector-only build of detect/build.sh),
restricted to the exports of G0's Module.symvers.

Mode (why): abidiff builds the ABI corpus of the whole vmlinux, where a
type only declared at an export site can be resolved to its definition
elsewhere in the binary; --redundant lists an export again when its change
was already reported through another function, so the restriction to
exports is done here, on the report, not by abidiff. Not
--drop-private-types (it drops types whose definition is not in public
headers) and not --harmless. detect.dwarf_kmi is the other mode, the one a
kernel ABI tool runs: abidiff itself restricted to the exports
(--kmi-whitelist)."""
import os
import re
import resource
import shutil
import subprocess
import sys
import time

from detect import symvers
from detect.common import DetectError, cli, need

ABIDIFF = "abidiff"
# the exit status is a bit field (abidiff(1)): 1 error, 2 usage error,
# 4 ABI change, 8 incompatible ABI change
ABIDIFF_ERROR, ABIDIFF_USAGE = 1, 2
MODE_ARGS = ["--redundant", "--no-added-syms"]
TIMEOUT = 1800

# one reported entity: "  [C] 'function int f(int)' at f.c:2:1 has ...",
# "  [D] 'function int g(int)'    {g}", "  [D] g" (a symbol without DWARF)
ENTRY = re.compile(r"^\s+\[([ADC])\] (?:'(?P<sig>[^']*)'(?P<rest>.*)|(?P<sym>\S+)\s*)$")
ELF_NAME = re.compile(r"\{([^,}\s]+)")
FUNC_NAME = re.compile(r"([A-Za-z_]\w*)\s*\((?!\*)")
VAR_NAME = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*$")


def entry_name(sig, rest):
    """The symbol an entry is about: its ELF name in {...}, else from the
    C declaration (function: the identifier before its parameter list)."""
    m = ELF_NAME.search(rest or "")
    if m:
        return m.group(1)
    if sig.startswith("function "):
        m = FUNC_NAME.search(sig[len("function "):])
    else:
        m = VAR_NAME.search(sig.split(" was changed")[0])
    return m.group(1) if m else None


def parse_report(text):
    """{symbol: kind} for each changed ("C") or removed ("D") function or
    variable of an abidiff report; added ones ("A") break nothing built
    against the old binary."""
    out = {}
    for line in text.splitlines():
        m = ENTRY.match(line)
        if not m or m.group(1) == "A":
            continue
        name = m.group("sym") or entry_name(m.group("sig"), m.group("rest"))
        if name:
            out.setdefault(name, m.group(1))
    return out


def run_abidiff(args, save=None):
    """Run abidiff; (report text, rc, cpu s, max RSS MB). DetectError when
    it is missing, fails or hangs."""
    if not shutil.which(ABIDIFF):
        raise DetectError("abidiff not found (Debian package abigail-tools: make detect-deps)")
    t0 = time.monotonic()
    with subprocess.Popen([ABIDIFF] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace") as p:
        try:
            text, _ = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            raise DetectError(f"abidiff timed out after {TIMEOUT}s: {' '.join(args)}") from None
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = p.returncode
    if save:
        with open(save, "w", encoding="utf-8") as f:
            f.write(f"$ {ABIDIFF} {' '.join(args)}\n{text}# exit {rc}\n")
    if rc < 0 or rc & (ABIDIFF_ERROR | ABIDIFF_USAGE):
        first = (text.strip().splitlines() or ["no output"])[0]
        raise DetectError(f"abidiff failed (exit {rc}): {first}")
    return text, rc, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, time.monotonic() - t0


def detect(g0, gn, gen=None, extra=None, mode="whole vmlinux, --redundant, "
           "restricted to Module.symvers exports after the diff"):
    exports = symvers.parse(os.path.join(g0, "Module.symvers"))
    old, new = need(os.path.join(g0, "vmlinux")), need(os.path.join(gn, "vmlinux"))
    args = (extra if extra is not None else MODE_ARGS) + [old, new]
    save = os.environ.get("MODVLAB_DETECT_SAVE")
    text, rc, cpu, rss, wall = run_abidiff(args, save)
    changed = parse_report(text)
    flagged = sorted(s for s in changed if s in exports)
    return {"bump": bool(flagged), "flagged": flagged, "mode": mode,
            "abidiff": {"cmd": [ABIDIFF] + args, "rc": rc, "cpu_s": round(cpu, 2),
                        "maxrss_mb": round(rss, 1), "wall_s": round(wall, 2),
                        "entries": len(changed)}}


if __name__ == "__main__":
    sys.exit(cli(detect))
