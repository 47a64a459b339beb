# SPDX-License-Identifier: GPL-2.0
"""Policy: turn one load attempt (result line + dmesg lines) into an outcome, and an outcome into a verdict.

Everything that is a judgement lives here as data (ordered, commented lists of
regexes and a verdict table), so a change of policy is a change of a table.
"""
import re

from . import tables

# --- Splat denylist ---------------------------------------------------------
# A kernel log line matching any of these means the kernel itself went wrong.
# A case whose own dmesg lines contain one is `crashed`, even when the loader
# printed a result after it; a truncated log that contains one is a crash.
# Matched against the message text, with the "[    1.234567] " stamp removed.
SPLATS = [re.compile(p) for p in (
    r"\bOops\b",                      # "Oops: 0002 [#1] PREEMPT SMP NOPTI"
    r"\bBUG:",                        # "BUG: kernel NULL pointer dereference", "BUG: KASAN: ..."
    r"\bkernel BUG at\b",             # BUG_ON(): "kernel BUG at kernel/module/main.c:123!"
    r"^WARNING:",                     # WARN_ON(): "WARNING: CPU: 0 PID: 1 at ..."
    r"\bKASAN\b",                     # any KASAN report
    r"\bKernel panic\b",              # "Kernel panic - not syncing: ..."
    r"\bgeneral protection fault\b",  # "general protection fault, probably for non-canonical address"
    r"\bUBSAN:",                      # "UBSAN: shift-out-of-bounds in ..."
    r"^[a-z][a-z0-9 ]*: [0-9a-f]{4} \[#\d+\]",  # die(): "int3: 0000 [#1]", "invalid opcode: 0000 [#1]"
)]

# "[    1.234567] " printk time stamp (CONFIG_PRINTK_TIME), optionally "<6>" level.
_STAMP = re.compile(r"^(?:<\d+>)?\[\s*\d+\.\d+\]\s?")


def strip_stamp(text):
    """The message of a console line, without its printk time stamp."""
    return _STAMP.sub("", text, count=1)


def is_splat(text):
    """True if a kernel log line (stamped or not) is on the splat denylist."""
    msg = strip_stamp(text)
    return any(p.search(msg) for p in SPLATS)


# --- Refusal reasons --------------------------------------------------------
# For a refused attempt, the first pattern (in this order) that matches any of
# its dmesg lines names the reason; the matching line is kept as evidence.
# Order matters: a CRC failure is followed by "Unknown symbol X (err -22)", and
# the CRC line is the one that says why.
REFUSALS = [(name, re.compile(p)) for name, p in (
    ("crc-mismatch", r"disagrees about version of symbol"),  # check_version(): CRCs differ
    ("crc-missing", r"no symbol version for"),               # Debian fails closed on a missing CRC
    ("vermagic", r"version magic .* should be"),             # check_modinfo(): vermagic string differs
    ("abi-version", r"(?i)\babi version\b"),                 # series-remove's ABI string (future arm)
    # series-remove's layout record: "no struct module layout record", "struct
    # kernel_param layout differs from this kernel's: ops at offset ...",
    # "struct module layout record differs ...", "... record has no contents"
    ("layout", r"\b(no )?struct \w+ layout (differs|record)\b"),
    # verify_namespace_is_imported(): the export is in a namespace the module
    # does not import (MODULE_IMPORT_NS); "Unknown symbol" follows
    ("namespace", r"from namespace \S+, but does not import it"),
    ("unknown-symbol", r"Unknown symbol"),                   # symbol not exported (any more)
    ("already-loaded", r"module is already loaded"),         # a module of that name is live
)]

# When no dmesg line names a reason, the errno does.
ERRNO_REASONS = {
    "EEXIST": "already-loaded",
    "EPERM": "eperm",
}

# The module's own self-test (workload/modules/modvlab.h) failed: its init ran
# and found wrong results, so the kernel let in something incompatible.
SELFTEST_ERRNO = "ENOTRECOVERABLE"
SELFTEST_FAILED = re.compile(r"modvlab: selftest failed")

# Lines worth keeping as the reason of a load that succeeded, best first: the
# kernel let the module in, but said something about it.
NOTABLE_ON_LOAD = [re.compile(p) for p in (
    r"no symbol version for",            # upstream warns once and loads
    r"disagrees about version of symbol",
    r"kernel tainted",                   # forced load: 'no version for "module_layout" found: kernel tainted.'
    r"taints kernel",                    # "loading out-of-tree module taints kernel."
    r"modvlab: selftest ok",             # the self-test ran and passed
)]


# Lines that never explain a refusal (a dependency's self-test, taint notices).
# "ENOEXEC with no dmesg" means no line other than these.
BENIGN = [re.compile(p) for p in (
    r"modvlab: selftest ok",
    r"taints kernel\.?$",
    r"kernel tainted\.?$",
    r"^Disabling lock debugging due to kernel taint",
)]


def _first(patterns, lines):
    """(index of the first pattern that matches, the matching line) or (None, None)."""
    for i, pat in enumerate(patterns):
        for line in lines:
            if pat.search(line):
                return i, line
    return None, None


def refusals():
    """The base's own wording (lab/bases.tsv's messages file) first, then REFUSALS."""
    if _BASE_REFUSALS is None:
        _set_base_refusals()
    return _BASE_REFUSALS + REFUSALS


_BASE_REFUSALS = None


def _set_base_refusals():
    global _BASE_REFUSALS
    _BASE_REFUSALS = [(name, re.compile(p)) for name, p in tables.messages()]


def refusal_reason(errno, dmesg):
    """(reason, evidence line) of a refused finit_module, e.g. ("crc-missing", "...")."""
    pats = refusals()
    i, line = _first([p for _, p in pats], dmesg)
    if i is not None:
        return pats[i][0], line
    errno = errno or "EUNKNOWN"
    said = [d for d in dmesg if not any(p.search(d) for p in BENIGN)]
    evidence = said[0] if said else f"finit_module: {errno}, no kernel log line"
    if errno in ERRNO_REASONS:
        return ERRNO_REASONS[errno], evidence
    if errno == "ENOEXEC" and not said:
        return "bad-elf", evidence  # e.g. __versions stripped on a modversions kernel
    return errno.lower(), evidence


def outcome(token, errno, dmesg, text=""):
    """(outcome, reason) of one attempt that has a result line.

    token: the result word after '#' (loaded, refused, setup-failed, plan-error);
    errno: its symbolic errno ("0" if none); dmesg: the attempt's kernel log
    messages (splat lines included); text: words of the directive that are not
    key=value (the plan-error message).
    """
    dmesg = [strip_stamp(d) for d in dmesg]
    for line in dmesg:
        if is_splat(line):
            return "crashed", line
    if token == "loaded":
        _, line = _first(NOTABLE_ON_LOAD, dmesg)
        return "loaded", line
    if token == "refused":
        if errno == SELFTEST_ERRNO:
            _, line = _first([SELFTEST_FAILED], dmesg)
            if line:
                return "loaded-misbehaved", line
        reason, line = refusal_reason(errno, dmesg)
        return f"refused:{reason}", line
    if token == "setup-failed":
        reason, line = refusal_reason(errno, dmesg)
        return "setup-failed", f"a dependency was refused ({reason}): {line}"
    if token == "plan-error":
        return "plan-error", text or "plan-error"
    return "plan-error", f"unknown result '{token}' from the loader"


def missing_outcome(run_status, splat=None, started=True):
    """(outcome, reason) of a planned attempt that has no result line.

    run_status: the ktap.Status value of the boot ("crashed", "timeout", ...);
    splat: the splat line to blame, if the log has one; started: whether the
    attempt's "# case" header was printed (it was under way when output stopped).
    Missing output is never a pass: it is a crash unless the boot timed out.
    """
    what = "no result" if started else "not reached"
    if splat:
        return "crashed", f"{what}: {strip_stamp(splat)}"
    if run_status == "timeout":
        return "timeout", f"{what}: boot timed out"
    if run_status in ("complete", "parse-failure"):
        return "crashed", f"{what}: no result line for it in the log"
    return "crashed", f"{what}: log truncated"


def module_name(path):
    """The name the kernel gives a module file: "/m/main/mod-asm-user.ko" -> "mod_asm_user"."""
    base = path.rsplit("/", 1)[-1]
    return (base[:-3] if base.endswith(".ko") else base).replace("-", "_")


def judge(run, att):
    """(outcome, reason, log line number of the reason or None, reached) of one case.

    run: a ktap.Run; att: its ktap.Attempt for the case, or None if the log
    never mentions it. reached is False for an attempt the loader never began.
    """
    if att is not None and att.result is not None:
        # the module's own lines first, so that a dependency's line is only
        # the reason when the module itself said nothing that matches
        own = module_name(att.fields.get("module", "")) + ":"
        lines = sorted(att.dmesg, key=lambda ln: not ln.text.startswith(own))
        # console splats while it ran count even if the kmsg drain missed them
        lines += [c for c in att.console if is_splat(c.text)]
        res = att.result
        out, reason = outcome(res.token, res.errno, [ln.text for ln in lines], res.text)
        where = next((ln.n for ln in lines
                      if reason and ln.text and reason.endswith(strip_stamp(ln.text))),
                     res.line.n)
        return out, reason, where, True
    started = att is not None and att.started
    if started:
        splat = run.splat_after(att.header.n)
    else:  # blame what killed the guest: the first splat after the last case began
        last = max((a.header.n for a in run.attempts.values() if a.header), default=0)
        splat = run.splat_after(last) or (run.splats[0] if run.splats else None)
    out, reason = missing_outcome(run.status.value, splat and splat.text, started)
    return out, reason, splat and splat.n, started


# --- Taint ------------------------------------------------------------------
# Letters of /proc/sys/kernel/tainted bits, in bit order (include/linux/panic.h
# the base's taint_flags[]): bit 0 P (proprietary), 1 F (forced load), 2 S, 3 R
# (forced rmmod), 4 M, 5 B, 6 U, 7 D (died), 8 A, 9 W (warning), 10 C, 11 I,
# 12 O (out-of-tree), 13 E (unsigned), 14 L, 15 K (livepatch), 16 X, 17 T, 18 N.
TAINT_LETTERS = "PFSRMBUDAWCIOELKXTN"
TAINT_UNREADABLE = (1 << 64) - 1  # the loader's ~0UL: /proc/sys/kernel/tainted unreadable


def decode_taint(mask):
    """Letters of the set taint bits, e.g. 0x3002 -> "FOE"; 0 -> ""; unknown -> None.

    Bits the kernel has no letter for are appended as "?<bit>".
    """
    if mask is None or mask == TAINT_UNREADABLE:
        return None
    out = [c for bit, c in enumerate(TAINT_LETTERS) if mask >> bit & 1]
    out += [f"?{bit}" for bit in range(len(TAINT_LETTERS), 64) if mask >> bit & 1]
    return "".join(out)


# --- Verdicts ---------------------------------------------------------------
# The four verdicts of the report.json contract, then the two extra keys.
VERDICT_KEYS = ["correct-load", "correct-refusal", "needless-refusal", "unsafe-load",
                "lab-error", "no-verdict"]
CORRECT = {"correct-load", "correct-refusal"}

# (outcome class, expected) -> verdict. The class of "refused:<reason>" is "refused".
VERDICTS = {
    ("loaded", "compatible"): "correct-load",
    ("loaded", "incompatible"): "unsafe-load",
    # A compatible module must never misbehave: the lab is wrong, flag it.
    ("loaded-misbehaved", "compatible"): "lab-error",
    ("loaded-misbehaved", "incompatible"): "unsafe-load",
    ("refused", "compatible"): "needless-refusal",
    ("refused", "incompatible"): "correct-refusal",
    # The kernel broke while loading it: unsafe if it was incompatible; a
    # compatible module that crashes the kernel is a lab problem.
    ("crashed", "compatible"): "lab-error",
    ("crashed", "incompatible"): "unsafe-load",
}
# timeout, setup-failed, plan-error, not-run, does-not-build (the module's own
# build failed against the kernel), or an unknown expectation: no verdict.


def verdict(outcome, expected, reached=True):
    """The verdict of an outcome given the plan's expectation.

    reached=False: the attempt never started (the guest died in an earlier
    case); it is not judged, whatever its outcome says.
    """
    if not reached:
        return "no-verdict"
    cls = outcome.split(":", 1)[0]
    return VERDICTS.get((cls, expected), "no-verdict")
