# SPDX-License-Identifier: GPL-2.0
"""Crash signatures of the fuzzer: the first splat line of a kernel bug report,
normalized (no addresses, CPU/PID or offsets), plus the faulting function.

The splat denylist is core/classify.py's SPLATS (one list for the lab)."""
import os
import re
import sys

from core import classify

# "RIP: 0010:load_module+0x1a2b/0x2c40" (the module in brackets if it is one)
# (arm64's die() prints "pc : __apply_alternatives+0x84/0x1d0" for the same)
RIP = re.compile(r"(?:\bRIP: [0-9a-f]{4}:|\bpc : )([A-Za-z0-9_.]+)\+0x([0-9a-f]+)/0x[0-9a-f]+"
                 r"(?: \[(\S+)\])?")
# No kernel function is this long: a RIP this far past its symbol is not in it
# (kallsyms stretches the last text symbol over whatever follows, e.g. a
# module whose symbols are gone), so it is a jump to garbage like "RIP: 0x...".
FAR = 0x10000
# a call trace frame: " ? asm_user_init+0x39/0x1000 [mod_asm_user]"
FRAME = re.compile(r"^\s*(?:\? )?([A-Za-z0-9_.]+)\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[(\S+)\])?\s*$")
# "WARNING: CPU: 0 PID: 1 at fs/sysfs/dir.c:32 sysfs_warn_dup+0x5e/0x70"
WARN_AT = re.compile(r"\bat (\S+:\d+) ([A-Za-z0-9_.]+)\+0x")
# "BUG: KASAN: slab-out-of-bounds in find_sec+0x21/0x80"
IN_FUNC = re.compile(r"\bin ([A-Za-z0-9_.]+)\+0x[0-9a-f]+/0x[0-9a-f]+")
# "UBSAN: array-index-out-of-bounds in kernel/module/main.c:1234:56"
IN_FILE = re.compile(r"\bin (\S+\.[ch]):\d+(?::\d+)?")
_NOISE = [
    (re.compile(r"\baddress\b.*$"), "address"),      # the address and error code vary
    (re.compile(r"CPU: \d+ PID: \d+ (?:Comm: \S+ )?"), ""),
    (re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+"), ""),
    (re.compile(r"\b(?:0x)?[0-9a-f]{8,16}\b"), "ADDR"),
    (re.compile(r"\[#\d+\]"), ""),
    (re.compile(r"\s+"), " "),
]


# Where a fault or warning means the module's content is wrong, not its ELF
# structure: the kernel's checks of the code it patches at the sites the
# module's own (in-range, well-formed) relocations point to. A module built
# with such code would do the same; no loader check on the file can tell.
CONTENT = {"ftrace_verify_code", "apply_returns", "apply_retpolines", "apply_alternatives",
           "apply_paravirt", "__insn_get_emulate_prefix", "insn_get_prefixes", "insn_decode",
           "text_poke_early",
           # IBT: a site .ibt_endbr_seal lists that is not an ENDBR instruction
           # (the code at an in-range site, as for the return and retpoline lists)
           "apply_seal_endbr", "poison_endbr",
           # a return through the default thunk, which newer kernels warn about: a
           # return site the module's .return_sites does not list (a module
           # built without objtool's list returns there the same way)
           "__warn_thunk",
           # a jump to garbage through mod->init or mod->exit, which the loader has
           # checked point into the module: into its bytes at a wrong offset
           "? from do_one_initcall", "? from do_init_module", "? from __x64_sys_delete_module"}


def message(line):
    """The kernel message of a console line or of a driver "S <n> text" line."""
    line = classify.strip_stamp(line.strip())
    m = re.match(r"^S \d+ (.*)$", line)
    return classify.strip_stamp(m.group(1)) if m else line


def normalize(title):
    for pat, rep in _NOISE:
        title = pat.sub(rep, title)
    return title.strip(" :,")


def signature(lines):
    """(title, function, in_module) of the first bug report in lines, or None.

    in_module names the module when the fault is in a module's own code (its
    init ran with a corrupted body), or is "content" for the kernel's checks
    of the code it patches (CONTENT), not the loader's."""
    msgs = [message(l) for l in lines]
    first = next((i for i, m in enumerate(msgs) if classify.is_splat(m)), None)
    if first is None:
        return None
    title = msgs[first]
    func, in_module = None, None
    m = WARN_AT.search(title) or IN_FUNC.search(title)
    if m:
        func = m.group(m.lastindex)
    for msg in msgs[first:]:
        r = RIP.search(msg)
        if r and int(r.group(2), 16) < FAR:
            func = func or r.group(1)
            in_module = r.group(3)
            break
        if r:
            break
    if not in_module:
        # a fault while a module's own function is on the stack: its code ran
        for msg in msgs[first:]:
            fr = FRAME.match(msg)
            if fr and fr.group(2):
                in_module = fr.group(2)
                break
    if not func:
        # RIP not in any symbol (a jump to garbage): the first frame of the trace
        for msg in msgs[first:]:
            fr = FRAME.match(msg)
            if fr:
                func, in_module = "? from " + fr.group(1), in_module or fr.group(2)
                break
    if not func:
        m = IN_FILE.search(title)
        func = m.group(1) if m else "?"
    func, in_module = content(func, in_module)
    return normalize(title), func, in_module


def content(func, in_module):
    """(function without gcc's clone suffix, in_module or "content")."""
    func = re.sub(r"\.(?:constprop|isra|part|cold)(?:\.\d+)*$", "", func)
    if not in_module and func in CONTENT:
        in_module = "content"
    return func, in_module


def key(sig):
    return f"{sig[0]} | {sig[1]}"


def crash(lines):
    """The signature of one crash's lines (fuzz/guest.py crashes_of): a guest
    that died or hung with no kernel report, or a failed health check, gets
    one of its own."""
    return signature(lines) or (
        "no kernel bug report: the guest stopped" if not lines[:1] or
        not lines[0].startswith("health") else "health check failed", "?", None)
