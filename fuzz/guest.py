# SPDX-License-Identifier: GPL-2.0
"""One fuzz guest, host side: the driver built from guest/fuzz/modvlab-fuzz.c, the
initramfs, a boot (or a restore of fuzz/snapshot.py's saved guest) watched for
hangs, and what its console said (Boot)."""
import gzip
import os
import re
import signal
import subprocess
import sys
import time

from core import tables
from . import signature

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SRC = os.path.join(TOP, "guest", "fuzz", "modvlab-fuzz.c")
# the mutator, shared by the guest driver and the host writer
SOURCES = [SRC, os.path.join(TOP, "guest", "fuzz", "mutate.c"),
           os.path.join(TOP, "guest", "fuzz", "mutate.h")]
PROGRESS = re.compile(r"^F (\d+)\s*$")
LOADED = re.compile(r"^L (\d+) ")
HEALTH_FAIL = re.compile(r"^H (\d+) (\d+)")
SPLAT_LINE = re.compile(r"^S (\d+) ")
TIMING = re.compile(r"^T (\d+) (\d+)\s*$")
END = re.compile(r"^# fuzz end inputs=(\d+) loaded=(\d+) splats=(\d+) unhealthy=(\d+) ms=(\d+)")
# the kernel's die() header ("Oops: 0002 [#1] ...", "general protection
# fault ...: 0000 [#1] ...") or a panic, on the raw console: with oops=panic
# the guest is done, and QEMU exits within a second or two of it
FATAL = re.compile(rb"^\[ *\d+\.\d+\] (.*\[#\d+\] |Kernel panic - not syncing)", re.M)
# seconds a guest may run on after that: an oops while printing an oops (a
# module corrupted its own struct module, and print_modules() faults on the
# list) repeats until the stack is gone and then hangs silently
AFTER_FATAL = int(os.environ.get("FUZZ_AFTER_FATAL", "15"))


def die(msg):
    print(f"modvlab: error: fuzz: {msg}", file=sys.stderr)
    sys.exit(1)


def build_driver(out):
    """The guest /init (static, with the architecture's compiler) and the
    host writer, from the one source."""
    a = tables.arch()
    cross = "" if a["cross"] == "-" else a["cross"]
    os.makedirs(out, exist_ok=True)
    bins = {"guest": os.path.join(out, "modvlab-fuzz" + (f".{a['name']}" if cross else "")),
            "host": os.path.join(out, "modvlab-fuzz-host")}
    for kind, path in bins.items():
        if os.path.exists(path) and os.path.getmtime(path) >= max(map(os.path.getmtime, SOURCES)):
            continue
        cc = cross + "gcc" if kind == "guest" else "gcc"
        cmd = [cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", path, *SOURCES[:2]]
        if kind == "guest":
            cmd.insert(1, "-static")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            die(f"cannot build the {kind} driver: {r.stderr.strip()[:400]}")
    return bins


# --- the initramfs: newc cpio written here, so no root and no tree tool ------

def _cpio_entry(name, mode, data=b"", rdev=(0, 0), ino=[100]):
    ino[0] += 1
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join(f"{v:08x}" for v in (
        ino[0], mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0))
    out = hdr.encode() + name_b
    out += b"\0" * (-len(out) % 4) + data
    return out + b"\0" * (-len(out) % 4)


def initramfs(path, init, args, files):
    """/init, /fuzz.args and files {guest path: bytes}, gzip'd, pinned mtimes."""
    blob = b"".join([
        _cpio_entry("dev", 0o40755), _cpio_entry("proc", 0o40755),
        _cpio_entry("dev/console", 0o20600, rdev=(5, 1)),
        _cpio_entry("in", 0o40755),
        _cpio_entry("init", 0o100755, init),
        _cpio_entry("fuzz.args", 0o100644, args.encode()),
        *(_cpio_entry(g.lstrip("/"), 0o100644, d) for g, d in files.items()),
        _cpio_entry("TRAILER!!!", 0),
    ])
    with open(path, "wb") as f:
        f.write(gzip.compress(blob, 6, mtime=0))


# --- one boot ----------------------------------------------------------------

class Boot:
    """What one guest run said: inputs started, splat lines per input, the end."""

    def __init__(self, lines):
        self.lines = lines
        self.started = []       # input numbers in order
        self.loaded = set()     # inputs that loaded (and were unloaded)
        self.splats = {}        # n -> [lines]
        self.unhealthy = []     # n after which the health check failed
        self.end = None
        self.timing = (0, 0)    # (inputs, ms) at the last T line
        self.tail = []          # console lines after the last F (a dying kernel's)
        for line in lines:
            text = signature.classify.strip_stamp(line.rstrip("\r\n"))
            m = PROGRESS.match(text)
            if m:
                self.started.append(int(m.group(1)))
                self.tail = []
                continue
            m = SPLAT_LINE.match(text)
            if m:
                self.splats.setdefault(int(m.group(1)), []).append(text)
                continue
            m = LOADED.match(text)
            if m:
                self.loaded.add(int(m.group(1)))
                continue
            m = HEALTH_FAIL.match(text)
            if m:
                self.unhealthy.append(int(m.group(1)))
                continue
            m = TIMING.match(text)
            if m:
                self.timing = (int(m.group(1)), int(m.group(2)))
                continue
            m = END.match(text)
            if m:
                self.end = dict(zip(("inputs", "loaded", "splats", "unhealthy", "ms"),
                                    map(int, m.groups())))
            self.tail.append(text)

    @property
    def died(self):
        """The input running when the guest stopped without its end line."""
        return None if self.end or not self.started else self.started[-1]


_TSC = {}


def tsc_append(out):
    """" tsc_early_khz=N" for a TCG guest, measured once per run (200 ms):
    qemu/boot.sh would measure it again for every boot, and a fuzz run
    boots hundreds of times."""
    if os.environ.get("ACCEL", "tcg") != "tcg" or "tsc_early_khz=" in os.environ.get("FUZZ_APPEND", ""):
        return ""
    if "{tsc_khz}" not in tables.arch()["tcg_append"]:
        return ""       # an architecture without a TSC
    if "khz" not in _TSC:
        try:
            _TSC["khz"] = int(subprocess.run(
                ["sh", os.path.join(TOP, "qemu", "tsc-khz.sh")], capture_output=True, text=True,
                check=True, env=dict(os.environ, B=os.path.join(out, "boots"))).stdout.strip())
        except (OSError, ValueError, subprocess.CalledProcessError):
            _TSC["khz"] = None      # boot.sh measures it then
    return f" tsc_early_khz={_TSC['khz']}" if _TSC["khz"] else ""


def boot(arm, name, kernel, init, args, files, timeout, mem, out, stall=30, snap=None):
    """Run one guest; returns its Boot (the log under out/boots/arms/ARM/boot/).
    With snap (fuzz/snapshot.py), the arm's saved guest is restored and
    given args instead: files must then be those it was saved with."""
    d = os.path.join(out, "boots", "arms", arm, "boot")
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ, B=os.path.join(out, "boots"), KERNEL=kernel, TIMEOUT=str(int(timeout)),
               MEM=mem, APPEND=os.environ.get("FUZZ_APPEND", "loglevel=3") + tsc_append(out))
    fd = None
    if snap:
        if not os.path.exists(snap.initrd):
            initramfs(snap.initrd, init, "wait", files)
            snap.save(env, d, os.path.basename(snap.initrd)[:-len(".cpio.gz")])
        # boot.sh wants the initramfs under this boot's name; it is only read
        # at a boot, and this guest is restored past it
        rd = os.path.join(d, name + ".cpio.gz")
        if os.path.exists(rd):
            os.unlink(rd)
        os.link(snap.initrd, rd)
        p, fd = snap.start(env, d, name, args)
    else:
        initramfs(os.path.join(d, name + ".cpio.gz"), init, args, files)
        p = spawn(arm, name, env)
    try:
        return watch(p, os.path.join(d, name + ".log"), stall)
    finally:
        if fd is not None:
            os.close(fd)


# boot.sh processes running now: each in a session of its own (out of reach
# of the terminal's Ctrl-C), so run.py stops them when interrupted
LIVE = set()


def spawn(arm, name, env):
    """qemu/boot.sh ARM NAME, in a session of its own."""
    p = subprocess.Popen(["sh", os.path.join(TOP, "qemu", "boot.sh"), arm, name], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    LIVE.add(p)
    return p


def stop(p):
    """Stop boot.sh p (its trap stops its QEMU), SIGKILL after 15 s."""
    LIVE.discard(p)
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=15)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def stop_all():
    for p in list(LIVE):
        try:
            os.killpg(p.pid, signal.SIGTERM)     # boot.sh's trap stops its QEMU
        except ProcessLookupError:
            pass


def watch(p, log, stall):
    """Wait for boot.sh p; returns the Boot of its log."""
    try:
        return _watch(p, log, stall)
    finally:
        LIVE.discard(p)


def _watch(p, log, stall):
    # A guest whose console says nothing for `stall` seconds has hung (an
    # input's code spins or sleeps forever): stop it then, not at the
    # boot's timeout, which is sized for thousands of inputs.
    size, since, fatal, tail = -1, time.monotonic(), None, b""
    # polled often: most boots end in an oops a second or two in, and a
    # coarse poll would add its half period to every one of them
    while p.poll() is None:
        time.sleep(0.1)
        now = os.path.getsize(log) if os.path.exists(log) else 0
        # counted from the first output on (booting to /init prints nothing)
        if now != size or not now:
            if fatal is None and now > max(size, 0):
                with open(log, "rb") as f:
                    f.seek(max(size, 0))
                    tail = tail[-200:] + f.read(now - max(size, 0))
                if FATAL.search(tail):
                    fatal = time.monotonic()
            size, since = now, time.monotonic()
        if fatal is not None and time.monotonic() - fatal >= AFTER_FATAL:
            stop(p)
            with open(log, "a") as f:
                f.write(f"# modvlab: the guest ran on {AFTER_FATAL} s after its oops "
                        "(an oops while oopsing): stopped\n")
            break
        if time.monotonic() - since >= stall:
            stop(p)
            with open(log, "a") as f:
                f.write(f"# modvlab: no console output for {stall} s: the guest hung\n")
            break
    return read_boot(log) or Boot([])


def read_boot(log):
    """The Boot of a saved console log, None if there is none."""
    try:
        with open(log, errors="replace") as f:
            return Boot(f.readlines())
    except OSError:
        return None


def crashes_of(b):
    """{n: splat lines} of one boot: splats the driver saw, and the input it died on."""
    out = {n: lines for n, lines in b.splats.items()}
    if b.died is not None:
        out[b.died] = out.get(b.died, []) + b.tail
    return out
