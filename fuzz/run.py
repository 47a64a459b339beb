#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make fuzz: the module fuzzer on every arm, in QEMU guests.

Per arm: the good modules build/arms/ARM/mods/main/*.ko are the seeds, the
arm's G0 kernel boots with guest/fuzz/modvlab-fuzz.c as /init, which generates and
loads inputs FIRST.. of the seed (thousands per boot, none in the initramfs).
On an oops or a hang the console's last "F n" names the input: it is a crash,
the next boot resumes after it. Each distinct crash signature (first splat
line + faulting function) is minimized on the host (fewest changed bytes vs
its seed module that still crash, one boot per ddmin round) and written to
build/fuzz/findings/ with a ready line for workload/robust.tsv.

Results: build/fuzz/fuzz.json (report.json "fuzzing"), read by
compare/sections/fuzzing.py.

usage: run.py [--seed S] [--inputs N] [--arms "keep remove"] [--arms-dir DIR]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
from core import corpus, tables

from . import cause, minimize, seeds, signature, snapshot
# one guest (guest.py) and the results file (results.py); the names the
# tests and other tools use from here
from .guest import (Boot, boot, build_driver, crashes_of, initramfs,  # noqa: F401
                   stop_all, watch)
from .results import (count_crashes, cross_outcomes, outcomes, reclassify,  # noqa: F401
                     restores_of)

B = tables.build_dir()
HEALTH = os.environ.get("FUZZ_HEALTH_MODULE", "mod-provider.ko")
# make fuzz --valid: how many of make valid's modules seed each arm
VALID_SEEDS = int(os.environ.get("FUZZ_VALID_SEEDS", "16"))   # the guest driver takes 16


# --- an arm ------------------------------------------------------------------

class Arm:
    def __init__(self, name, arms_dir, out, bins, seed, valid=None):
        """valid: make valid's run folder; NAME is then ARM-valid (ARM-valid.ARCH
        on another architecture than the default), its kernel and seeds that
        run's (fuzz/seeds.py)."""
        self.name, self.out, self.bins, self.seed = name, out, bins, seed
        if valid:
            arm = name.partition("-valid")[0]
            self.kernel = os.path.join(valid, "arms", arm, "obj", tables.arch()["image"])
            if not os.path.isfile(self.kernel):
                raise FileNotFoundError(f"arm {arm} has no make valid build ({self.kernel})")
            self.seeds, self.health = seeds.paths(valid, arm, VALID_SEEDS)
        else:
            a = os.path.join(arms_dir, name)
            self.kernel = os.path.join(a, "kernels", "G0", tables.image_name())
            mods = os.path.join(a, "mods", "main")
            if not os.path.isfile(self.kernel):
                raise FileNotFoundError(f"arm {name} is not built ({self.kernel})")
            self.seeds = sorted(os.path.join(mods, f) for f in os.listdir(mods)
                                if f.endswith(".ko"))
            self.health = os.path.join(mods, HEALTH)
        if not os.path.isfile(self.health):
            raise FileNotFoundError(f"arm {name}: no {self.health}")
        # the mutator (guest/fuzz/mutate.c) parses ELF64 little-endian seeds
        with open(self.health, "rb") as f:
            ident = f.read(6)
        if ident != b"\x7fELF\x02\x01":
            raise FileNotFoundError(f"arm {name}: its modules are not ELF64 little-endian, "
                                    "the only ones the mutator reads")
        self.sanitizer = "-" in name and not valid
        self.mem = "1G" if self.sanitizer else "512M" if valid else "256M"
        # seconds of console silence that mean a hang: a guest prints a line
        # per input, ~50 a second even with KASAN, and a module whose init
        # never returns (its code calls the wrong function) is module content
        # that cost 120 s each on the KASAN arms (4 of 20,000 inputs)
        self.stall = int(os.environ.get("FUZZ_STALL", "0")) or 30
        self.nboot = self.nrestore = 0
        with open(bins["guest"], "rb") as f:
            self.init = f.read()
        # this run's boots only: numbers restart at 1, so a longer earlier
        # run's files would otherwise stay beside them
        d = os.path.join(out, "boots", "arms", name, "boot")
        if os.path.isdir(d):
            shutil.rmtree(d)
        # one boot saved per arm and run, restored for every fuzz run
        self.snap = None
        if os.environ.get("FUZZ_SNAPSHOT", "1") != "0":
            self.snap = snapshot.Snapshot(name, os.path.join(d, "snap.state"))
            self.snap.initrd = os.path.join(d, "snap.cpio.gz")
            for p in (self.snap.state, self.snap.initrd):
                if os.path.exists(p):
                    os.unlink(p)

    def guest_files(self):
        """The saved guest's files: the seed modules and the health check."""
        files = {f"/s{i}.ko": open(p, "rb").read() for i, p in enumerate(self.seeds)}
        files["/h.ko"] = open(self.health, "rb").read()
        return files

    def guest_paths(self):
        """Those files as the driver's arguments: HEALTH.ko SEED.ko..."""
        return "/h.ko " + " ".join(f"/s{i}.ko" for i in range(len(self.seeds)))

    def write(self, index, path):
        """Input index regenerated on the host; returns the seed module it derives from."""
        r = subprocess.run([self.bins["host"], "write", str(self.seed), str(index), path,
                            *self.seeds], capture_output=True, text=True, check=True)
        return self.seeds[int(r.stdout.strip())]

    def run(self, first, count, health_every, rate):
        self.nboot += 1
        files = self.guest_files()
        args = f"run {self.seed} {first} {count} {health_every} {self.guest_paths()}"
        timeout = 90 + count / rate * (4 if self.sanitizer else 1)
        if self.snap:
            try:
                b = boot(self.name, f"fuzz-{self.nboot}", self.kernel, self.init, args, files,
                         timeout, self.mem, self.out, self.stall, self.snap)
                self.nrestore += 1
                return b
            except (snapshot.SnapshotError, OSError) as e:
                print(f"modvlab: fuzz: {self.name}: no snapshot ({e}); booting every run",
                      file=sys.stderr)
                self.snap = None
        return boot(self.name, f"fuzz-{self.nboot}", self.kernel, self.init, args, files,
                    timeout, self.mem, self.out, self.stall)

    def try_files(self, blobs, origin=None):
        """One guest loads these inputs in order; returns the Boot.

        origin (n, seed, data): each blob is minimize.build(seed, data, some
        positions), data being input n. The saved guest is then restored and
        makes them itself from the position lists (cands; a KASAN boot costs
        ~8 s, a restore ~1 s); otherwise, or if that fails, a boot carries
        the files."""
        self.nboot += 1
        if self.snap and origin and os.path.exists(self.snap.state):
            b = self.try_cands(blobs, *origin)
            if b is not None:
                return b
        files = {f"/in/{i}.ko": b for i, b in enumerate(blobs)}
        files["/h.ko"] = open(self.health, "rb").read()
        args = "files 0 /h.ko " + " ".join(f"/in/{i}.ko" for i in range(len(blobs)))
        return boot(self.name, f"min-{self.nboot}", self.kernel, self.init, args, files,
                    120 + 5 * len(blobs), self.mem, self.out, self.stall)


    def try_cands(self, blobs, n, seed, data):
        lines = [minimize.spec(minimize.changed(seed, b)) for b in blobs]
        # a console line (N_TTY) holds 4095 bytes; the FIFO takes 64 KiB at once
        if (any(len(l) > 4000 for l in lines) or sum(map(len, lines)) > 60000
                or any(minimize.build(seed, data, minimize.changed(seed, b)) != b
                       for b in blobs)):
            return None
        args = (f"cands {self.seed} {n} 0 {self.guest_paths()}\n"
                + "".join(l + "\n" for l in lines) + ".")
        try:
            return boot(self.name, f"min-{self.nboot}", self.kernel, self.init, args,
                        self.guest_files(),
                        120 + 5 * len(blobs), self.mem, self.out, self.stall, self.snap)
        except (snapshot.SnapshotError, OSError) as e:
            print(f"modvlab: fuzz: {self.name}: minimizing by boots ({e})", file=sys.stderr)
            return None


def fuzz_arm(arm, inputs, chunk, health_every, rate, max_boots, log):
    """Run inputs 0..inputs-1; returns the arm's results and its crashes {n: lines}."""
    crashes, nxt, guest_ms, timed_inputs, done = {}, 0, 0, 0, 0
    t0 = time.time()
    while nxt < inputs and arm.nboot < max_boots:
        count = min(chunk, inputs - nxt)
        b = arm.run(nxt, count, health_every, rate)
        if not b.started:
            raise RuntimeError(f"{arm.name}: boot {arm.nboot} ran no input (see "
                               f"{arm.out}/boots/arms/{arm.name}/boot/fuzz-{arm.nboot}.log)")
        crashes.update(crashes_of(b))
        for n in b.unhealthy:
            crashes.setdefault(n, ["health check failed after this input"])
        if b.end:
            guest_ms += b.end["ms"]
            timed_inputs += b.end["inputs"]
            nxt += b.end["inputs"]
        else:
            guest_ms += b.timing[1]
            timed_inputs += b.timing[0]
            nxt = b.started[-1] + 1
        done = nxt
        log(f"  FUZZ   {arm.name}: {done}/{inputs} inputs, {len(crashes)} crash(es), "
            f"boot {arm.nboot}")
    wall = time.time() - t0
    return {"inputs": done, "requested": inputs, "health_every": health_every,
            "boots": arm.nboot, "restores": arm.nrestore,
            "wall_s": round(wall, 1),
            "inputs_per_s": round(timed_inputs / (guest_ms / 1000), 1) if guest_ms else 0.0,
            "inputs_per_s_wall": round(done / wall, 1) if wall else 0.0}, crashes


def oracle_for(arm, sig, origin=None):
    """oracle(candidates) -> the first that crashes with signature sig (minimize)."""
    def oracle(blobs):
        b = arm.try_files(blobs, origin)
        for n in sorted(crashes_of(b)):
            s = signature.crash(crashes_of(b)[n])
            if s[:2] == sig[:2]:
                return n
        return None
    return oracle


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "unknown"


def finding(arm, n, sig, out, rounds_max, minimize_on):
    """Minimize input n of arm; write its file and its robust.tsv line."""
    fdir = os.path.join(out, "findings")
    os.makedirs(fdir, exist_ok=True)
    raw = os.path.join(fdir, f"{arm.name}-{n}.raw.ko")
    seed_path = arm.write(n, raw)
    with open(raw, "rb") as f:
        data = f.read()
    with open(seed_path, "rb") as f:
        seed = f.read()
    positions, rounds, small = minimize.changed(seed, data), 0, data
    if minimize_on:
        small, positions, rounds = minimize.minimize(seed, data, oracle_for(arm, sig, (n, seed, data)),
                                                     rounds_max)
    # a loader signature whose minimized input changes only module content
    # (code bytes, relocation addends) is the module's code misbehaving
    in_module = sig[2]
    if minimize_on:
        what = cause.content_only(seed, small, positions)
        in_module = f"content: {what}" if what else cause.CARRIED if small == seed else None
    split = None
    if minimize_on and not in_module:
        split = split_test(arm, seed, small, positions, sig, (n, seed, data))
        if split:
            in_module = split["in_module"]
    name = f"fuzz-{slug(sig[1])}-{arm.name}-{n}"
    path = os.path.abspath(os.path.join(fdir, name + ".ko"))
    with open(path, "wb") as f:
        f.write(small)
    col = corpus.column(arm.name)
    cols = ["oops" if c == col else "-" for c in corpus.ARM_COLUMNS]
    note = (f"found by make fuzz on {arm.name} (seed {arm.seed}, input {n}, from "
            f"{os.path.basename(seed_path)}): '{sig[0]}' in {sig[1]}; minimized to "
            f"{len(positions)} changed byte(s)"
            + (f" at {', '.join(hex(p) for p in positions[:8])}" if positions else "")
            + (f", cut to {len(small)} bytes" if len(small) < len(seed) else ""))
    line = "\t".join([name, f"file:fuzz/{name}.ko", "-", *cols, note])
    return {"title": sig[0], "function": sig[1], "in_module": in_module,
            "input": os.path.relpath(path, B) if path.startswith(B) else path,
            "index": n, "seed_module": os.path.basename(seed_path),
            "changed_bytes": len(positions), "minimize_boots": rounds, "robust_line": line,
            **({"split": split} if split else {})}


def split_test(arm, seed, small, positions, sig, origin=None):
    """Module content, shown by one boot, for an input ddmin could not shrink.

    Some crashes happen at a site that moves with unrelated bytes (module
    code calling through a garbage pointer): dropping any byte changes the
    faulting function, so ddmin keeps bytes that do not matter. Split the
    changed bytes into module content (fuzz/cause.py) and the rest, and load
    the rest alone, then the content alone, in one boot: if the rest loads
    without a report and the content alone crashes with the same first line,
    the crash is the content's. Returns {"in_module", "content_alone"} or None.
    """
    if len(small) != len(seed):
        return None
    try:
        kinds = {p: cause.where(seed, small, p) for p in positions}
    except (cause.ElfError, ValueError, IndexError):
        return None
    content = [p for p in positions if kinds[p]]
    rest = [p for p in positions if not kinds[p]]
    if not content or not rest:
        return None
    b = arm.try_files([minimize.build(seed, small, rest), minimize.build(seed, small, content)],
                      origin)
    crashes = crashes_of(b)
    if 0 in crashes or 0 in b.unhealthy or 1 not in crashes:
        return None
    s = signature.crash(crashes[1])
    if s[0] != sig[0]:
        return None
    what = cause.content_only(seed, minimize.build(seed, small, content), content)
    return {"in_module": f"content: {what} (alone it crashes in {s[1]}; "
                         f"the other {len(rest)} byte(s) load cleanly)",
            "content_alone": s[1], "other_bytes": [hex(p) for p in rest]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "1")))
    ap.add_argument("--inputs", type=int, default=int(os.environ.get("FUZZ_INPUTS", "20000")))
    ap.add_argument("--arms", default=os.environ.get("ARMS", "nomodv base keep remove"))
    ap.add_argument("--arms-dir", default=os.environ.get("FUZZ_ARMS_DIR", os.path.join(B, "arms")))
    ap.add_argument("--out", default=os.path.join(B, "fuzz"))
    ap.add_argument("--chunk", type=int, default=int(os.environ.get("FUZZ_CHUNK", "2000")),
                    help="inputs per boot at most")
    # every 8th input: a corrupted kernel is still caught within a few
    # inputs, and the check (a good module loaded and unloaded) no longer
    # takes a fifth of the guest's time (measured: +27% inputs/s vs every 4th)
    ap.add_argument("--health-every", type=int, default=int(os.environ.get("FUZZ_HEALTH", "8")))
    ap.add_argument("--rate", type=float, default=20.0,
                    help="inputs/s assumed for a boot's timeout (a hang costs this)")
    ap.add_argument("--max-boots", type=int, default=int(os.environ.get("FUZZ_MAX_BOOTS", "0")),
                    help="per arm: bounds an arm whose loader crashes often (a pristine kernel);"
                    " 0: one boot per 40 inputs, at least 150")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count() or 1)),
                    help="arms fuzzed at once (one TCG guest each)")
    ap.add_argument("--minimize-rounds", type=int,
                    default=int(os.environ.get("FUZZ_MIN_ROUNDS", "10")))
    ap.add_argument("--no-kasan", action="store_true", help="skip ARM-kasan variants")
    ap.add_argument("--valid", metavar="SET",
                    help="seed from make valid's SET modules, on its kernels (arms ARM-valid)")
    ap.add_argument("--json", help="results file (default OUT/fuzz.json)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the other arms already in the results file (a run in parts)")
    ap.add_argument("--reclassify", action="store_true",
                    help="only re-apply signature.py's module-content rules to the results file")
    args = ap.parse_args(argv)
    log = lambda s: print(s, flush=True)
    if args.reclassify:
        return reclassify(args.json or os.path.join(args.out, "fuzz.json"), args.arms_dir)
    bins = build_driver(args.out)
    arms = args.arms.split()
    valid = None
    if args.valid:
        valid = os.path.join(B, "valid", f"{tables.arch()['name']}-{args.valid}")
        if not os.path.isfile(os.path.join(valid, "valid.json")):
            print(f"modvlab: error: fuzz: no make valid run {valid} (make valid "
                  f"VALID_SET={args.valid})", file=sys.stderr)
            return 1
        with open(os.path.join(valid, "valid.json")) as f:
            built = json.load(f)["arms"]
        # another architecture's arms are named for it: their seeds are
        # other modules, their results sit beside the default's
        a0 = tables.arches()[0]["name"]
        tag = "" if tables.arch()["name"] == a0 else "." + tables.arch()["name"]
        arms = [a + "-valid" + tag for a in arms if a in built]
        args.merge = True       # beside the workload-seeded arms of the same seed
    elif not args.no_kasan:
        arms += [a + "-kasan" for a in args.arms.split()
                 if os.path.isfile(os.path.join(args.arms_dir, a + "-kasan", "kernels", "G0",
                                                tables.image_name()))]
    results = {"seed": args.seed, "inputs_per_arm": args.inputs, "jobs": args.jobs, "arms": {}}
    jpath = args.json or os.path.join(args.out, "fuzz.json")
    if args.merge and os.path.isfile(jpath):
        with open(jpath) as f:
            old = json.load(f)
        if old.get("seed") == args.seed:
            results["arms"] = {a: r for a, r in old.get("arms", {}).items() if a not in arms}
    max_boots = args.max_boots or max(150, args.inputs // 40)

    def one(name):
        """(name, results, crashes) of one arm; its own guests, its own boot numbers."""
        arm = Arm(name, args.arms_dir, args.out, bins, args.seed, valid)
        res, crashes = fuzz_arm(arm, args.inputs, args.chunk, args.health_every,
                                args.rate, max_boots, log)
        sigs = {}
        for n in sorted(crashes):
            s = signature.crash(crashes[n])
            sigs.setdefault(signature.key(s), (s, []))[1].append(n)
        res["signatures"] = []
        for s, ns in sigs.values():
            log(f"  FUZZ   {name}: {len(ns)} x {s[0]} in {s[1]}"
                + (f" (module content: {s[2]}); input {ns[0]}" if s[2]
                   else f"; minimizing input {ns[0]}"))
            f = finding(arm, ns[0], s, args.out, args.minimize_rounds, not s[2])
            f["inputs"] = ns[:50]
            f["count"] = len(ns)
            res["signatures"].append(f)
        count_crashes(res)
        return res

    def terminated(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, terminated)     # as Ctrl-C: stop the guests
    try:
        return run_arms(args, arms, one, results, jpath, log)
    except KeyboardInterrupt:
        stop_all()
        print("modvlab: fuzz: interrupted; the guests are stopped, results so far in "
              f"{jpath}", file=sys.stderr)
        # the other arms' threads would run on: leave without waiting for them
        os._exit(130)


def run_arms(args, arms, one, results, jpath, log):
    rc = 0
    # one TCG guest per core: arms are independent (own boots, own findings)
    pool = concurrent.futures.ThreadPoolExecutor(max(1, args.jobs))
    try:
        # the slowest first (a sanitizer guest runs at half speed), so that
        # no long arm starts last while the other core idles
        futures = {pool.submit(one, name): name
                   for name in sorted(arms, key=lambda a: "-" not in a)}
        for fut in concurrent.futures.as_completed(futures):
            name = futures[fut]
            try:
                results["arms"][name] = fut.result()
            except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
                print(f"modvlab: error: fuzz: {name}: {e}", file=sys.stderr)
                results["arms"][name] = {"error": str(e)}
                rc = 1
            with open(jpath, "w") as f:
                json.dump(results, f, indent=1)
                f.write("\n")
    finally:
        # not waiting: on Ctrl-C, main() stops the guests and leaves
        pool.shutdown(wait=False, cancel_futures=True)
    # arms in the order asked for, whatever order they finished in
    results["arms"] = {a: results["arms"][a] for a in arms if a in results["arms"]} | {
        a: r for a, r in results["arms"].items() if a not in arms}
    cross_outcomes(results, args.out)
    with open(jpath, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    lines = [s["robust_line"] for a in results["arms"].values() for s in a.get("signatures", [])]
    with open(os.path.join(args.out, "robust-lines.tsv"), "w") as f:
        f.write("# ready lines for workload/robust.tsv (copy the .ko beside them to workload/fuzz/)\n")
        f.writelines(l + "\n" for l in lines)
    for name, a in results["arms"].items():
        for s in a.get("signatures", []):
            if s.get("robust_line") and not s.get("in_module"):
                print(f"fuzz: {name}: {s['title']} in {s['function']}: {s['input']}")
    for name, a in results["arms"].items():
        if "error" in a:
            continue
        log(f"fuzz: {name}: {a['inputs']} inputs, {a['inputs_per_s']} inputs/s in the guest "
            f"({a['inputs_per_s_wall']}/s with boots), {a['crashes']} crash(es), "
            f"{len(a['signatures'])} signature(s)")
    log(f"fuzz: wrote {jpath}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
