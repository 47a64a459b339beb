# SPDX-License-Identifier: GPL-2.0
"""The booted sample: each to-kernel booted once with every earlier upload's
copies of the sample modules (deps from the same upload), then once more with
the refused ones forced (flags m, v; deps forced too), crash-resumed: a boot
that dies keeps the case it was running (crashed) and the rest boot again.
Reuses qemu/initramfs.sh, qemu/boot.sh (B=OUT/lab, one "arm" uN per kernel),
the lab's guest loader and core/ktap.py.

    python3 -m history.boot OUT SAMPLE.tsv ABINUM...   -> OUT/boots.json
"""
import concurrent.futures
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from core import ktap, tables
from core.resume import boot_until_done
from history.matrix import upload_facts, upload_paths
from history.modfacts import modname

TOP = pathlib.Path(__file__).resolve().parent.parent
MAX_RESUMES = 8


IMAGE_KINDS = ("fs", "rofs", "nls")   # hcheck kinds that mount an /m/img/ image


def kind_of(check):
    """The hcheck kind of a check string ("with A,B KIND ..." -> KIND)."""
    w = (check or "-").split()
    return w[2] if w[0] == "with" and len(w) > 2 else w[0]


def read_sample(path):
    """[(module name, check argv string or None)] from the sample table; a bad
    line is a ValueError naming FILE:LINE (core.tables' reader)."""
    rows = tables.read_tsv(str(path), ["module", "check"], keep_line=True)
    for r in rows:
        if not r["module"]:
            raise ValueError(f"{path}:{r['line']}: want 'module<TAB>check'")
        if kind_of(r["check"]) in IMAGE_KINDS and "/m/img/" not in r["check"]:
            # the image is made only when a line names it (a run of this line
            # alone would mount nothing)
            raise ValueError(f"{path}:{r['line']}: check '{r['check']}' mounts an "
                             "image: name it as /m/img/NAME")
    return [(modname(r["module"]), None if r["check"] == "-" else r["check"]) for r in rows]


def resolve(want, facts):
    """The module a softdep name means: the module of that name, else one
    whose alias it is (a generic implementation first: it needs no CPU
    feature), else None."""
    if modname(want) in facts:
        return modname(want)
    hits = sorted((m for m, f in facts.items() if want in f.get("aliases", ())),
                  key=lambda m: ("generic" not in m, m))
    return hits[0] if hits else None


def dep_order(name, facts):
    """name's dependencies, those without deps first (the load order), as
    modprobe loads them: depends= and softdep "pre:" modules. A pre:
    module that itself depends on the module (crypto_algapi's pre:
    cryptomgr) can only follow it, as modprobe loads it: after the module,
    as one of its dependencies' followers, and not at all for the module
    itself (loading that module is the case)."""
    seen, order = set(), []

    def needs(s, x):
        """Does s depend (depends=, transitively) on x?"""
        todo, done = [s], set()
        while todo:
            m = todo.pop()
            if m == x:
                return True
            if m in done or m not in facts:
                continue
            done.add(m)
            todo += facts[m]["depends"]
        return False

    def visit(x):
        if x in seen or x not in facts:
            return
        seen.add(x)
        soft = [d for d in (resolve(s, facts) for s in facts[x].get("softdep", ())) if d]
        for d in facts[x]["depends"] + [d for d in soft if not needs(d, x)]:
            visit(d)
        order.append(x)
        if x != name:
            for d in soft:
                if needs(d, x):
                    visit(d)
    visit(name)
    return [m for m in order if m != name]


def gen_init_cpio(out):
    """The pristine tree's usr/gen_init_cpio, built once into OUT."""
    exe = pathlib.Path(out) / "gen_init_cpio"
    if exe.exists():
        return exe
    src = None
    for cand in [os.environ.get("GEN_INIT_CPIO_C"),
                 pathlib.Path(tables.build_dir()) / "linux/usr/gen_init_cpio.c"]:
        if cand and pathlib.Path(cand).is_file():
            src = pathlib.Path(cand)
            break
    if src is None:
        pkg = tables.base()["package"]
        subprocess.run(["tar", "-xJf", f"/usr/src/{pkg}.tar.xz", "-C", str(out),
                        "--strip-components=2", f"{pkg}/usr/gen_init_cpio.c"], check=True)
        src = pathlib.Path(out) / "gen_init_cpio.c"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(src)], check=True)
    return exe


IMAGES_TSV = TOP / "history/images.tsv"


def read_images(path=IMAGES_TSV):
    """{image name: (package, command)} of the images table."""
    rows = tables.read_tsv(str(path), ["name", "package", "command"], keep_line=True)
    for r in rows:
        if not r["command"]:
            raise ValueError(f"{path}:{r['line']}: want 'name<TAB>package<TAB>command'")
    return {r["name"]: (r["package"], r["command"]) for r in rows}


def images_named(sample):
    """The /m/img/NAME images the sample's checks mount."""
    return sorted({m for _, check in sample if check
                   for m in re.findall(r"/m/img/([\w.-]+)", check)})


def fs_images(out, names):
    """The named filesystem images, made here with their mkfs (no root), once.
    A name the table lacks or a mkfs that fails is an OSError with one line."""
    d = pathlib.Path(out) / "img"
    d.mkdir(parents=True, exist_ok=True)
    src = d / "src"
    src.mkdir(exist_ok=True)
    (src / "hc").write_text("modvlab\n")
    table = read_images()
    for name in names:
        p = d / name
        if p.exists():
            continue
        if name not in table:
            raise OSError(f"image {name}: not in {IMAGES_TSV.relative_to(TOP)}")
        pkg, cmd = table[name]
        cmd = cmd.replace("{img}", shlex.quote(str(p))).replace("{src}", shlex.quote(str(src)))
        r = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True)
        if r.returncode:
            p.unlink(missing_ok=True)
            raise OSError(f"image {name}: '{cmd}' failed (package {pkg}): "
                          f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
    return d


def helpers_named(sample):
    """The to-kernel's own modules the checks use: "with A,B" lists, tcrypt
    for template checks, loop for images (guest/history/init loads it)."""
    names = {"loop"}
    for _, check in sample:
        if not check:
            continue
        w = check.split()
        if w[0] == "with" and len(w) > 1:
            names.update(modname(x) for x in w[1].split(","))
        if "tmpl" in w:
            names.add("tcrypt")
    return sorted(names)


def guest_path(host):
    """/m/u<upload>/<file>.ko for a module unpacked under OUT/up/<upload>/,
    /m/d<upload>-<pkg>/<file>.ko for one built under OUT/dkms/build/<pkg>/<upload>/:
    distinct builds of a module never share a guest path."""
    p = os.path.abspath(host)
    if m := re.search(r"/up/(\d+(?:\.\d+)?)/", p):
        return f"/m/u{m.group(1)}/{os.path.basename(p)}"
    if m := re.search(r"/dkms/build/([^/]+)/(\d+(?:\.\d+)?)/", p):
        return f"/m/d{m.group(2)}-{m.group(1)}/{os.path.basename(p)}"
    raise ValueError(f"{host}: not a module of an upload or of a DKMS build")


def run_boot(out, to, boot, cases, env, helpers=("loop",), images=()):
    """One boot of kernel `to` with cases [(name, flags, ko, deps, check)] -> ktap.Run;
    the to-kernel's own helper modules at /m/k/NAME.ko (a check's "with" list
    gets their dependencies put first), the images at /m/img/."""
    cases = list(cases)
    lab = pathlib.Path(out) / "lab"
    d = lab / "arms" / f"u{to}" / "boot"
    obj = lab / "arms" / f"u{to}" / "obj" / "usr"
    d.mkdir(parents=True, exist_ok=True)
    obj.mkdir(parents=True, exist_ok=True)
    cp = obj / "gen_init_cpio"
    if not cp.exists():
        shutil.copy(gen_init_cpio(out), cp)
    files = {}
    lines = []
    facts = upload_facts(out, to)
    helpers = set(helpers)
    for i, (name, flags, ko, deps, check) in enumerate(cases):
        if check and check.split()[0] == "with":   # the helpers' own dependencies first
            w = check.split()
            mods = []
            for h in (modname(x) for x in w[1].split(",")):
                mods += [d for d in dep_order(h, facts) + [h] if d not in mods]
            helpers.update(mods)
            check = " ".join(["with", ",".join(mods)] + w[2:])
            cases[i] = (name, flags, ko, deps, check)
    for name, flags, ko, deps, check in cases:
        for host in [ko] + deps:
            files[guest_path(host)] = host
        g = guest_path
        lines.append(f"{name}|{flags}|1|{g(ko)}|{','.join(g(x) for x in deps)}"
                     + (f"|/bin/sh /m/hcheck {' '.join(shlex.quote(w) for w in check.split())}"
                        if check else ""))
    up = upload_paths(out, to)
    for h in sorted(helpers):
        if h in facts:
            files[f"/m/k/{h}.ko"] = str(up["root"] / facts[h]["path"])
    files["/m/hcheck"] = str(TOP / "guest/history/hcheck")
    if images:
        img = fs_images(out, images)
        for name in images:
            files[f"/m/img/{name}"] = str(img / name)
    (d / f"{boot}.plan").write_text("\n".join(lines) + "\n")
    (d / f"{boot}.files").write_text("".join(f"{g}\t{os.path.abspath(h)}\n"
                                             for g, h in files.items()))
    e = dict(os.environ, B=str(lab.resolve()), INIT=str(TOP / "guest/history/init"),
             KERNEL=str(up["vmlinuz"].resolve()), MEM="512M",
             TIMEOUT=str(60 + 4 * len(cases)), **env)
    subprocess.run(["sh", str(TOP / "qemu/initramfs.sh"), f"u{to}", boot], env=e, check=True)
    subprocess.run(["sh", str(TOP / "qemu/boot.sh"), f"u{to}", boot], env=e)
    try:
        status = json.loads((d / f"{boot}.json").read_text()).get("status")
    except (OSError, ValueError):
        status = None
    return ktap.parse(ktap.read_log(d / f"{boot}.log"), status)


def outcome(att):
    """(outcome, check, dmesg) of one ktap.Attempt."""
    r = att.result
    if r is None:   # the kernel's first bug report line says why
        splat = next((x.text.split("] ", 1)[-1] for x in att.console
                      if re.search(r"BUG|Oops|general protection|panic", x.text)), None)
        return ("crashed" if att.started else "not-reached", None,
                [x.text for x in att.dmesg] + ([splat] if splat else []))
    res = "loaded" if r.ok else f"{r.token}:{r.kv.get('errno', '?')}"
    return res, r.kv.get("check"), [x.text for x in att.dmesg]


def boot_all(out, to, boot, cases, env, helpers=("loop",), images=()):
    """Boot `to` until every case has an outcome (crash-resumed) -> {name: {...}}."""
    def result(att, run):
        res, check, dmesg = outcome(att)
        return {"outcome": res, "check": check, "dmesg": dmesg}
    return boot_until_done(list(cases), lambda name, todo: run_boot(out, to, name, todo, env,
                                                                    helpers, images),
                           lambda c: c[0], result, boot, {"check": None, "dmesg": []},
                           MAX_RESUMES)[0]


def sources(nums, i):
    """The uploads whose copies boot into upload i: the first (the plot's line)
    and the one before (the update a user makes), never every earlier one."""
    return sorted({nums[0], nums[i - 1]}, key=tables.upload_key)


def case_of(out, n, mod, facts, name, check):
    root = upload_paths(out, n)["root"]
    deps = [str(root / facts[d]["path"]) for d in dep_order(mod, facts)]
    return (name, "-", str(root / facts[mod]["path"]), deps, check)


def main(argv):
    if len(argv) < 4:
        print("usage: python3 -m history.boot OUT SAMPLE.tsv ABINUM...", file=sys.stderr)
        return 2
    out, sample_path, nums = argv[1], argv[2], sorted(argv[3:], key=tables.upload_key)
    try:
        sample = read_sample(sample_path)
        matrix = json.loads((pathlib.Path(out) / "matrix.json").read_text())
        images = images_named(sample)
        fs_images(out, images)
        gen_init_cpio(out)      # once, before the boots run at once
    except (OSError, ValueError) as e:
        print(f"history: {e}", file=sys.stderr)
        return 1
    helpers = helpers_named(sample)
    facts = {n: upload_facts(out, n) for n in nums}

    def one(i, to):
        """Upload i's boots -> ({case: meta}, {module: control}): the normal
        boot, then the refused copies forced in a boot of their own."""
        cases, meta = [], {}
        # the control: the to-kernel's own copy of each module, checked in the
        # same guest; a module whose own copy fails is judged on nothing
        for mod, check in sample:
            if mod in facts[to]:
                cases.append(case_of(out, to, mod, facts[to], f"own-{mod}", check))
        for fr in sources(nums, i):
            for mod, check in sample:
                if mod not in facts[fr]:
                    continue
                name = f"u{fr}-{mod}"
                cases.append(case_of(out, fr, mod, facts[fr], name, check))
                meta[name] = {"from": fr, "to": to, "module": mod, "spec": check,
                              "predicted": matrix["pairs"][f"{fr}->{to}"]["verdicts"][mod]}
        normal = boot_all(out, to, "normal", cases, {}, helpers, images)
        refused = [c for c in cases if c[0] in meta and normal[c[0]]["outcome"] != "loaded"]
        forced = boot_all(out, to, "forced", [(n, "mvd", k, d, c) for n, _, k, d, c in refused],
                          {}, helpers, images) if refused else {}
        own = {c[0][4:]: normal[c[0]] for c in cases if c[0].startswith("own-")}
        for name, m in meta.items():
            m["observed"] = normal[name]
            m["control"] = own.get(m["module"])
            if name in forced:
                m["forced"] = forced[name]
        print(f"history: booted {tables.abiname(to)}: {len(meta)} cases, "
              f"{sum(1 for n in meta if normal[n]['outcome'] == 'loaded')} loaded, "
              f"{len(refused)} forced; control {sum(1 for r in own.values() if ok(r))}/"
              f"{len(own)} own copies pass", file=sys.stderr)
        return meta, {m: {"outcome": r["outcome"], "check": r["check"],
                          "dmesg": telling(r["dmesg"])} for m, r in own.items()}

    boots, controls = {}, {}
    for to, (meta, control) in zip(nums[1:], in_parallel(one, list(enumerate(nums[1:], 1)))):
        controls[to] = control
        for name, m in meta.items():
            boots[name + f"->u{to}"] = m
    (pathlib.Path(out) / "boots.json").write_text(json.dumps(boots, indent=1))
    (pathlib.Path(out) / "controls.json").write_text(json.dumps(controls, indent=1))
    return 0


def in_parallel(fn, args):
    """[fn(*a) for a in args], HIST_JOBS (default: the CPUs) at a time: the
    boots of different kernels share nothing, and a TCG guest keeps one CPU
    busy."""
    jobs = int(os.environ.get("HIST_JOBS") or os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(lambda a: fn(*a), args))


def telling(dmesg):
    """The kernel's lines that say why a control failed: from the first that
    names a failure (three lines), else the last three."""
    i = next((k for k, x in enumerate(dmesg)
              if re.search(r"fail|error|could not|WARNING|BUG|Unknown symbol|disagrees", x)), None)
    return dmesg[i:i + 3] if i is not None else dmesg[-3:]


def ok(r):
    """A control that passed: loaded, and its check (if any) passed."""
    return bool(r) and r["outcome"] == "loaded" and r.get("check") in (None, "pass", "none")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
