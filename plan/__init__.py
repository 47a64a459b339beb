# SPDX-License-Identifier: GPL-2.0
"""The planners: which boots an arm runs and which module loads each attempts.

Every case record says what it is, so nothing downstream parses a name:
  kind         release | cross | update | rebuilt | robust | bench | history
  gen          the kernel generation the boot runs (G0 = the release)
  probe        the probe user (workload/probe-cases.tsv), or None
  policy       the distributor's ABI-string policy of the boot, or None
  built_for    the generation the module was built for
  loaded_into  what the module is loaded into: the generation, or the boot
               family of a non-generation boot ("robust", "bench")

release.py plans the release and the generations (always); robust.py and
bench.py add their boots when PLANS names them. `python3 -m plan ARM` writes
build/arms/ARM/plan.json, boot/BOOT.plan and boot/BOOT.files.
"""
import os

from core import tables

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = tables.build_dir()
ARMS = os.path.join(B, "arms")
KINDS = ("release", "cross", "update", "rebuilt", "robust", "bench", "history")


def not_built(ko):
    """The first error line of ko's own build, where workload/build.sh
    recorded it did not build (its set's not-built.tsv), else None."""
    name = os.path.basename(ko)[:-len(".ko")] if ko.endswith(".ko") else None
    try:
        with open(os.path.join(os.path.dirname(ko), "not-built.tsv"), encoding="utf-8") as f:
            for line in f:
                mod, _, why = line.rstrip("\n").partition("\t")
                if name and mod == name:
                    return why or "(no error line)"
    except OSError:
        pass
    return None


class Planner:
    def __init__(self, arm):
        self.arm = arm
        self.boots = {}
        self.cases = []
        self.not_run = []

    def boot(self, boot, kid, policy, timeout=None, gen="G0", loaded_into=None):
        """A boot of kernel kid (build/arms/ARM/kernels/KID) running generation gen."""
        kernel = os.path.join(ARMS, self.arm, "kernels", kid, tables.image_name())
        self.boots[boot] = {"kernel": kernel, "kid": kid, "policy": policy,
                            "timeout": timeout, "gen": gen,
                            "loaded_into": loaded_into or gen, "plan": [], "files": {}}

    def add(self, boot, rec, ko, deps=(), repeat=1):
        """One attempt in a boot: ko (+deps) are host paths; rec has kind."""
        b = self.boots[boot]
        assert rec.get("kind") in KINDS, rec
        rec = dict(rec, boot=boot, arm=self.arm, policy=b["policy"], gen=b["gen"],
                   loaded_into=b["loaded_into"])
        rec.setdefault("probe", None)
        missing = [p for p in (ko, *deps) if not os.path.isfile(p)]
        if missing or not os.path.isfile(b["kernel"]):
            what = missing[0] if missing else b["kernel"]
            why = not_built(what)
            if why:     # a result: the module's own build failed against this kernel
                self.not_run.append(dict(rec, outcome="does-not-build",
                                         reason=f"does not build: {why}"))
            else:
                self.not_run.append(dict(rec, reason=f"not built: {os.path.relpath(what, B)}"))
            return
        guest = lambda p: "/m/" + os.path.relpath(p, ARMS)
        for p in (ko, *deps):
            b["files"][guest(p)] = p
        rec["n"] = len(b["plan"]) + 1
        rec["repeat"] = repeat
        b["plan"].append(f"{rec['case']}|{rec['flags']}|{repeat}|{guest(ko)}|"
                         f"{','.join(guest(d) for d in deps)}")
        self.cases.append(rec)

    def write_boot(self, boot, adir):
        """boot/BOOT.plan (the guest loader's) and boot/BOOT.files (the initramfs's)."""
        b = self.boots[boot]
        os.makedirs(os.path.join(adir, "boot"), exist_ok=True)
        with open(os.path.join(adir, "boot", boot + ".plan"), "w") as f:
            f.write(f"# modvlab plan: arm {self.arm}, boot {boot}\n")
            f.writelines(line + "\n" for line in b["plan"])
        with open(os.path.join(adir, "boot", boot + ".files"), "w") as f:
            f.writelines(f"{g}\t{h}\n" for g, h in sorted(b["files"].items()))
