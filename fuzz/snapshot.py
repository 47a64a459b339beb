# SPDX-License-Identifier: GPL-2.0
"""A booted fuzz guest saved once and restored for every run of an arm.

Most fuzz runs end in an oops after a few dozen inputs (module code that a
mutation made jump to garbage), and a TCG boot costs ~1.6 s of the ~3 s such
a run takes. So the guest boots once with /fuzz.args "wait": the driver
prints "# fuzz: waiting" and reads its arguments from the console. The host
migrates it to a file there (QMP "migrate" to exec:cat), and every later run
is QEMU started with -incoming from that file and the arguments written to
the console: the guest goes on from the read, with the seeds already in its
memory. qemu/boot.sh starts QEMU both times (QEMU_EXTRA, SERIAL_IN), so the
logs, status files, timeouts and Ctrl-C handling are those of every boot.

Any failure (no QMP, migration refused, restore failed) raises
SnapshotError; fuzz/run.py then boots as before.
"""
import json
import os
import socket
import time

from .guest import spawn, stop


class SnapshotError(Exception):
    pass


class Qmp:
    """The QEMU machine protocol on a unix socket: one command at a time."""

    def __init__(self, path, deadline):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise SnapshotError(f"no QMP socket at {path}")
                time.sleep(0.02)
        self.sock.settimeout(max(1.0, deadline - time.monotonic()))
        self.buf = b""
        self._read()                      # the greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SnapshotError("QEMU closed its QMP socket")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            r = self._read()
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise SnapshotError(f"QMP {name}: {r['error'].get('desc', r['error'])}")
            # an event: skip it

    def close(self):
        self.sock.close()


def _wait_for(log, text, proc, deadline):
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with open(log, "rb") as f:
                if text in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def _wait_migrated(qmp, deadline):
    while time.monotonic() < deadline:
        st = qmp.cmd("query-migrate").get("status")
        if st == "completed":
            return
        if st in ("failed", "cancelled"):
            raise SnapshotError(f"migration {st}")
        time.sleep(0.05)
    raise SnapshotError("migration did not complete")


class Snapshot:
    """save(env, boot_dir, name) once; start(env, boot_dir, name, args) per run.

    env is the environment qemu/boot.sh gets (B, KERNEL, TIMEOUT, MEM, APPEND)
    with an initramfs whose /fuzz.args is "wait"."""

    def __init__(self, arm, state):
        self.arm, self.state = arm, state

    def _boot(self, env, name, extra, serial_in=None):
        env = dict(env, QEMU_EXTRA=extra)
        if serial_in:
            env["SERIAL_IN"] = serial_in
        return spawn(self.arm, name, env)

    def save(self, env, boot_dir, name, timeout=120):
        sock = os.path.join(boot_dir, name + ".qmp")
        log = os.path.join(boot_dir, name + ".log")
        for p in (sock, log):
            if os.path.exists(p):
                os.unlink(p)
        p = self._boot(env, name, f"-qmp unix:{sock},server=on,wait=off")
        deadline = time.monotonic() + timeout
        qmp = None
        try:
            if not _wait_for(log, b"# fuzz: waiting", p, deadline):
                raise SnapshotError(f"the guest never waited for its arguments (log: {log})")
            qmp = Qmp(sock, deadline)
            tmp = self.state + ".tmp"
            qmp.cmd("migrate", uri=f"exec:cat > '{tmp}'")
            _wait_migrated(qmp, deadline)
            os.replace(tmp, self.state)
            try:
                qmp.cmd("quit")
            except (SnapshotError, OSError):
                pass                      # it quit before it answered
        finally:
            if qmp:
                qmp.close()
            stop(p)

    def start(self, env, boot_dir, name, args, timeout=60):
        """A restored guest running `args`; returns (Popen of boot.sh, fifo fd)."""
        sock = os.path.join(boot_dir, name + ".qmp")
        fifo = os.path.join(boot_dir, name + ".in")
        for p in (sock, fifo):
            if os.path.exists(p):
                os.unlink(p)
        os.mkfifo(fifo)
        # read-write: never blocks, and boot.sh's reading open finds a writer
        fd = os.open(fifo, os.O_RDWR)
        p = self._boot(env, name, f"-qmp unix:{sock},server=on,wait=off -incoming defer", fifo)
        deadline = time.monotonic() + timeout
        qmp = None
        try:
            qmp = Qmp(sock, deadline)
            qmp.cmd("migrate-incoming", uri=f"exec:cat '{self.state}'")
            while qmp.cmd("query-status").get("status") != "running":
                if time.monotonic() > deadline or p.poll() is not None:
                    raise SnapshotError("the restored guest did not run")
                time.sleep(0.02)
            os.write(fd, args.encode() + b"\n")
        except (SnapshotError, OSError) as e:
            os.close(fd)
            stop(p)
            raise SnapshotError(f"restore of {self.state}: {e}") from e
        finally:
            if qmp:
                qmp.close()
            os.unlink(fifo)
        return p, fd

