# SPDX-License-Identifier: GPL-2.0
"""Parser of one guest console log: the loader's KTAP output among kernel printk noise.

The contract is the output of guest/modvlab-load.c:

    KTAP version 1
    # modvlab: release=RELEASE version=#1 SMP ... taint=0x0
    1..N
    # case NAME: module=PATH flags=- deps=0
    # dmesg NAME: kernel log line
    ok|not ok N NAME # RESULT errno=E taint=0x0 taint_before=0x0 ns=1 repeat=1 unload=0
    # modvlab: end cases=N taint=0x0

Any other line (printk output, stamped or not) is ignored, except that splat
lines (classify.SPLATS) are collected wherever they are. A log that does not
reach "# modvlab: end" with all N results is never complete.
"""
import dataclasses
import enum
import re

from .classify import is_splat, strip_stamp


class Status(enum.Enum):
    """How far one boot's output got."""
    OK = "complete"                 # end line seen, one result per planned case
    CRASHED = "crashed"             # results missing and the log has a splat
    TIMEOUT = "timeout"             # results missing and the runner timed the boot out
    TRUNCATED = "truncated"         # results missing, no splat, no timeout
    NO_RESULTS = "no-results"       # no KTAP header, no plan, or not a single result
    NO_TESTS = "no-results"         # (alias of NO_RESULTS, kunit_parser's name)
    PARSE_FAILURE = "parse-failure"  # all there, but self-contradictory (dup/out-of-plan results)


@dataclasses.dataclass
class Line:
    """One console line: 1-based line number and text (no line ending)."""
    n: int
    text: str


@dataclasses.dataclass
class Result:
    """One "ok N NAME # RESULT key=value..." line."""
    line: Line
    ok: bool
    n: int
    name: str
    token: str                      # loaded, refused, setup-failed, plan-error
    kv: dict
    text: str = ""                  # directive words that are not key=value

    @property
    def errno(self):
        return self.kv.get("errno", "0")

    def _int(self, key, base=10):
        try:
            return int(self.kv[key], base)
        except (KeyError, ValueError):
            return None

    @property
    def taint(self):
        return self._int("taint", 16)

    @property
    def taint_before(self):
        return self._int("taint_before", 16)

    @property
    def ns(self):
        return self._int("ns")

    @property
    def repeat(self):
        return self._int("repeat")

    @property
    def unload(self):
        return self.kv.get("unload")


@dataclasses.dataclass
class Attempt:
    """One case as the log shows it: its header, kernel log lines and result."""
    n: int
    name: str
    header: Line = None             # the "# case" line; None if the loader printed none
    fields: dict = dataclasses.field(default_factory=dict)  # module=, flags=, deps=
    dmesg: list = dataclasses.field(default_factory=list)   # Line(n, message) of "# dmesg"
    console: list = dataclasses.field(default_factory=list)  # other lines while it ran
    result: Result = None

    @property
    def started(self):
        return self.header is not None or self.result is not None


@dataclasses.dataclass
class Run:
    """The parse of one log."""
    status: Status = Status.NO_RESULTS
    detail: str = ""
    header: Line = None             # "KTAP version 1"
    info: dict = dataclasses.field(default_factory=dict)  # the "# modvlab:" banner
    planned: int = None             # N of "1..N"
    attempts: dict = dataclasses.field(default_factory=dict)  # n -> Attempt, log order
    end: Line = None                # "# modvlab: end"
    end_info: dict = dataclasses.field(default_factory=dict)
    splats: list = dataclasses.field(default_factory=list)   # Line of every splat
    notes: list = dataclasses.field(default_factory=list)    # other "# modvlab:" lines
    problems: list = dataclasses.field(default_factory=list)  # contradictions, with line numbers

    @property
    def results(self):
        return [a.result for a in self.attempts.values() if a.result]

    def splat_after(self, lineno):
        """The first splat line at or after a line number, or None."""
        return next((s for s in self.splats if s.n >= lineno), None)


def read_lines(data):
    """Numbered lines of a log given as bytes or str; \\r\\n and stray \\r tolerated."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    return [Line(i, t.replace("\r", "").replace("\0", ""))
            for i, t in enumerate(data.split("\n"), 1)]


def read_log(path):
    with open(path, "rb") as f:
        return read_lines(f.read())


def _kv(text):
    """key=value words of a text -> (dict, the other words joined)."""
    kv, rest = {}, []
    for word in text.split():
        k, eq, v = word.partition("=")
        if eq and k:
            kv[k] = v
        else:
            rest.append(word)
    return kv, " ".join(rest)


# Each kind of line: its regex, then the function that handles it. Leading
# blanks are allowed; anything else before the token (a printk stamp) makes
# the line noise. A handler returns the attempt that is now under way.

KTAP_HEADER = re.compile(r"^\s*KTAP version (\d+)\s*$")


def _on_header(run, line, m, current):
    if run.header is not None:
        run.problems.append(f"line {line.n}: second KTAP header (first at line {run.header.n})")
    else:
        run.header = line
    return current


PLAN = re.compile(r"^\s*1\.\.(\d+)\s*$")


def _on_plan(run, line, m, current):
    if run.planned is not None:
        run.problems.append(f"line {line.n}: second plan line")
    else:
        run.planned = int(m.group(1))
    return current


END = re.compile(r"^\s*# modvlab: end\b(.*)$")


def _on_end(run, line, m, current):
    run.end = line
    run.end_info, _ = _kv(m.group(1))
    return None


# "# modvlab: release=RELEASE version=#1 SMP PREEMPT_DYNAMIC ... taint=0x0"
# (version has spaces); any other "# modvlab: text" is a note from the guest.
BANNER = re.compile(r"^\s*# modvlab: (.*)$")
BANNER_RELEASE = re.compile(r"\brelease=(\S*)")
BANNER_VERSION = re.compile(r"\bversion=(.*?)(?: taint=|$)")
BANNER_TAINT = re.compile(r"\btaint=(\S+)")


def _on_banner(run, line, m, current):
    text = m.group(1)
    rel = BANNER_RELEASE.search(text)
    if rel is None:
        run.notes.append(Line(line.n, text))
        return current
    ver, tnt = BANNER_VERSION.search(text), BANNER_TAINT.search(text)
    run.info.update({"release": rel.group(1), "version": ver and ver.group(1),
                     "taint": tnt and tnt.group(1), "line": line.n})
    return current


CASE = re.compile(r"^\s*# case (\S+): ?(.*)$")


def _on_case(run, line, m, current):
    name = m.group(1)
    if current is not None and current.result is None:
        run.problems.append(f"line {line.n}: case {name} starts before case "
                            f"{current.name} has a result")
    n = max(run.attempts, default=0) + 1
    fields, _ = _kv(m.group(2))
    att = Attempt(n=n, name=name, header=line, fields=fields)
    run.attempts[n] = att
    return att


DMESG = re.compile(r"^\s*# dmesg (\S+): ?(.*)$")


def _on_dmesg(run, line, m, current):
    name, msg = m.group(1), m.group(2)
    target = current if current is not None and current.name == name else None
    if target is None:  # drained after its result: the latest attempt of that name
        target = next((a for a in reversed(run.attempts.values()) if a.name == name), None)
    if target is not None:
        target.dmesg.append(Line(line.n, msg))
    if is_splat(msg):
        run.splats.append(Line(line.n, msg))
    return current


RESULT = re.compile(r"^\s*(ok|not ok) (\d+) (\S+)(?: # ?(\S+)(.*))?\s*$")


def _on_result(run, line, m, current):
    ok, n, name, token, rest = (m.group(1) == "ok", int(m.group(2)), m.group(3),
                                m.group(4), m.group(5))
    kv, text = _kv(rest or "")
    res = Result(line=line, ok=ok, n=n, name=name, token=token or "", kv=kv, text=text)
    if current is not None and current.result is None and current.name == name:
        att = current
        if att.n != n:
            run.problems.append(f"line {line.n}: result {n} {name} numbered {att.n} by its header")
            del run.attempts[att.n]
            att.n = n
    else:
        att = Attempt(n=n, name=name)   # plan-error lines come without a header
    if n in run.attempts and run.attempts[n] is not att:
        prev = run.attempts[n]
        if prev.result is not None:
            run.problems.append(f"line {line.n}: duplicate result {n} ({prev.name}, {name})")
            return att
        if prev.name != name:
            run.problems.append(f"line {line.n}: result {n} is {name}, its header said {prev.name}")
    if run.planned is not None and not 1 <= n <= run.planned:
        run.problems.append(f"line {line.n}: result {n} outside the plan 1..{run.planned}")
    if ok != (res.token == "loaded"):
        run.problems.append(f"line {line.n}: '{m.group(1)}' with result '{res.token}'")
    att.result = res
    run.attempts[n] = att
    return att


# In this order: END before BANNER, since both start "# modvlab: ".
LINE_KINDS = [(KTAP_HEADER, _on_header), (PLAN, _on_plan), (END, _on_end),
              (BANNER, _on_banner), (CASE, _on_case), (DMESG, _on_dmesg),
              (RESULT, _on_result)]


def _on_noise(run, line, current):
    """Any other line: printk output. Kept only as evidence of a splat or of a running case."""
    if is_splat(line.text):
        run.splats.append(Line(line.n, strip_stamp(line.text)))
    if current is not None and current.result is None:
        current.console.append(line)


# A printk that reaches the console while the guest writes a line lands
# inside it: "not ok 12 u47-poly130[    2.89] dummy: ...", and the rest of
# the guest's line ("5_generic # setup-failed ...") comes on the next line.
SPLICED = re.compile(r"^(?P<head>\s*(?:ok|not ok|#) .*?)(?P<printk>(?:<\d+>)?\[\s*\d+\.\d+\] .*)$")


def _guest_line(text):
    return any(regex.match(text) for regex, _ in LINE_KINDS)


def unsplice(lines):
    """Numbered lines with each guest line a printk split put back together.

    Joined only when the next line does not start a line of its own and the
    two halves make a guest line; the printk stays, as a line of its own
    (a splat is still collected).
    """
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = SPLICED.match(line.text)
        if m and i + 1 < len(lines):
            rest = lines[i + 1].text
            joined = m["head"] + rest
            if (not _guest_line(rest) and strip_stamp(rest) == rest
                    and _guest_line(joined)):
                out += [Line(line.n, joined), Line(line.n, m["printk"])]
                i += 2
                continue
        out.append(line)
        i += 1
    return out


def parse(lines, boot_status=None):
    """Parse numbered lines (read_lines()) into a Run.

    boot_status: the runner's verdict on the boot ("exited", "timeout",
    "qemu-error"), used only to tell a timeout from a crash.
    """
    run = Run()
    current = None  # the attempt whose "# case" header came last
    for line in unsplice(lines):
        for regex, handler in LINE_KINDS:
            if m := regex.match(line.text):
                current = handler(run, line, m, current)
                break
        else:
            _on_noise(run, line, current)
    run.status, run.detail = _status(run, boot_status)
    return run


def _status(run, boot_status):
    got = len(run.results)
    if run.header is None and not got:
        what = "no KTAP header"
    elif run.planned is None:
        what = f"no plan line, {got} results"
    else:
        what = f"{got}/{run.planned} results"
    if run.end is not None:
        cases = run.end_info.get("cases")
        if run.planned is None:
            run.problems.append(f"line {run.end.n}: end line, but the log has no plan line")
        elif cases is not None and cases != str(run.planned):
            run.problems.append(f"line {run.end.n}: end says cases={cases}, plan says {run.planned}")
    missing = run.end is None or (run.planned is not None and got < run.planned)
    if missing:
        if run.end is None:
            what += ", no end line"
        if run.splats:
            s = run.splats[0]
            return Status.CRASHED, f"{what}; line {s.n}: {s.text}"
        if boot_status == "timeout":
            return Status.TIMEOUT, f"{what}; the boot timed out"
        if not got:
            said = "; ".join(f"line {n.n}: {n.text}" for n in run.notes[-2:])
            return Status.NO_RESULTS, what + (f"; the guest said {said}" if said else "")
        return Status.TRUNCATED, what
    if run.problems:
        return Status.PARSE_FAILURE, f"{what}; {run.problems[0]}"
    return Status.OK, what
