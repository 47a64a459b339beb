# SPDX-License-Identifier: GPL-2.0
"""Real out-of-tree modules across real updates: every -dkms package the
archive has (--all; else those of history/dkms.tsv) and a user's MODULES=DIR
are built against every upload's unpacked headers by dkms itself (its own
tree under OUT, --kernelsourcedir: no kernel is installed; what a package
Depends on is, as root, as apt would), or with M= for a
folder without dkms.conf, and each build is loaded into its own kernel and
the next upload's (the first upload's builds: every later one; one boot per
kernel), with a check where dkms.tsv gives one.
A build that fails is a result with its first error line; a kernel the
package excludes (BUILD_EXCLUSIVE_*) is "unsupported".

    python3 -m history.dkms OUT DKMS.tsv [--all] [--modules DIR] ABINUM...  -> OUT/dkms.json
"""
import functools
import glob
import hashlib
import json
import os
import re
import pathlib
import shutil
import subprocess
import sys

from core import tables
from history.lines import LineError, apt_cache
from history.boot import boot_all, dep_order, gen_init_cpio, in_parallel, sources
from history.matrix import upload_facts, upload_paths
from history.modfacts import FactsError, modname, module_facts, read_symvers

TOP = pathlib.Path(__file__).resolve().parent.parent


def read_table(path):
    """The -dkms packages table; a bad line is a ValueError naming FILE:LINE."""
    rows = tables.read_tsv(str(path), ["package", "dir", "args", "module", "check"],
                           keep_line=True)
    for r in rows:
        if not all(r[k] for k in ("package", "dir", "args", "module", "check")):
            raise ValueError(f"{path}:{r['line']}: an empty column")
    return [{"package": r["package"], "dir": r["dir"],
             "args": "" if r["args"] == "-" else r["args"], "module": modname(r["module"]),
             "check": None if r["check"] == "-" else r["check"]} for r in rows]


def fetch(out, package, download=("apt-get", "download", "-q")):
    """(source top, 'package version') of a -dkms package, unpacked under
    OUT/dkms/src; DOWNLOAD is the command that puts its .deb in the cwd (the
    host's apt, or lab/apt.sh SUITE download for a private suite)."""
    d = pathlib.Path(out) / "dkms"
    root = d / "src" / package
    stamp = root / ".done"
    if not stamp.exists():
        (d / "debs").mkdir(parents=True, exist_ok=True)
        debs = glob.glob(str(d / "debs" / f"{package}_*.deb"))
        if not debs:
            r = subprocess.run([*download, package], cwd=d / "debs",
                               capture_output=True, text=True)
            if r.returncode:
                raise RuntimeError(f"{' '.join(download)} {package} failed: "
                                   f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
            debs = glob.glob(str(d / "debs" / f"{package}_*.deb"))
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        subprocess.run(["dpkg", "-x", debs[0], str(root)], check=True)
        ver = subprocess.run(["dpkg-deb", "-W", "--showformat=${Package} ${Version}", debs[0]],
                             capture_output=True, text=True, check=True).stdout
        (root / "package").write_text(ver)
        stamp.touch()
    if not (root / "depends").exists():     # also for a package unpacked before it was kept
        deb = glob.glob(str(d / "debs" / f"{package}_*.deb"))
        (root / "depends").write_text(subprocess.run(
            ["dpkg-deb", "-f", deb[0], "Depends"], capture_output=True, text=True,
            check=True).stdout if deb else "")
    tops = [p for p in (root / "usr/src").iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise RuntimeError(f"{package}: expected one source dir under /usr/src, got {tops}")
    return tops[0], (root / "package").read_text()


def line_apt():
    """(apt, [suite]) the packages of the line being run come from: make
    history's HIST_APT and HIST_SUITES (history/lines.sh), else the base's."""
    b = tables.base()
    return (os.environ.get("HIST_APT") or b["apt"],
            (os.environ.get("HIST_SUITES") or b["suite"]).split(","))


def downloads(apt, suites):
    """The commands that download a package of the line, tried in order: the
    host's apt, or lab/apt.sh's private configuration for each suite (a
    user of a newer release gets that release's -dkms packages, not the host's)."""
    if apt == "host":
        return [("apt-get", "download", "-q")]
    return [("sh", str(TOP / "lab/apt.sh"), s, "download") for s in suites]


def discover(apt="host", suites=()):
    """Every -dkms package the line's archive lists that carries module source
    (dh-dkms is the packaging helper, not a module); a suite apt cannot list
    adds none."""
    names = set()
    for s in (suites if apt != "host" else [""]):   # the host's lists are one
        try:
            names.update(apt_cache(s, apt, "pkgnames").split())
        except LineError:
            pass
    return sorted(p for p in names if p.endswith("-dkms") and p != "dh-dkms")


def depends_of(src):
    """(host packages, -dkms packages) a fetched package Depends on: what apt
    installs with it on a user's machine. The first of alternatives; dkms
    and the kernel's own packages are the lab's part (the headers are the
    upload's); a -dkms dependency is source the package builds with."""
    f = pathlib.Path(src).parents[2] / "depends"    # OUT/dkms/src/PKG/usr/src/TOP
    host, dkms = [], []
    text = f.read_text() if f.exists() else ""
    for item in filter(None, (x.strip() for x in text.split(","))):
        name = re.split(r"[\s(:]", item.split("|")[0].strip(), maxsplit=1)[0]
        if name == "dkms" or name.startswith("linux-"):
            continue
        (dkms if name.endswith("-dkms") else host).append(name)
    return host, dkms


def build_env():
    """The environment of a package's build: not the lab's ARCH= (a
    lab/arches.tsv name; the headers have their own) nor the flags of the
    make that runs the lab (MAKELEVEL makes every make print "Entering
    directory", which a configure script reading `make` output takes for
    its compiler's name)."""
    drop = {"ARCH", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES", "GNUMAKEFLAGS"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def first_error(log):
    """The first compiler or modpost error line of a build log, or its last line."""
    try:
        lines = pathlib.Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return "no log"
    for pattern in (r"error:|ERROR:", r"Error [0-9]|No rule to make|No such file"):
        for ln in lines:    # a compiler's or modpost's line before make's summary
            if re.search(pattern, ln):
                return ln.strip()[:200]
    return (lines[-1].strip() if lines else "empty log")[:200]


# Some packages' Makefiles build against /lib/modules/RELEASE/build whatever
# dkms passes, and some dkms.conf files name /usr/src/PKG-VER and
# /var/lib/dkms/PKG/VER/build themselves: give them all three in a private
# mount namespace (an overlay over /lib's real folder, the lab's source and
# dkms trees bound over the other two; only this build sees them, the
# host's stay untouched).
PRIVATE_MODULES = ('d=$(readlink -f /lib) && mount -t overlay modvlab '
                   '-o "lowerdir=$d,upperdir=$1,workdir=$2" "$d" && '
                   'mount --bind "$3" /usr/src && '
                   '{ [ ! -d /var/lib/dkms ] || mount --bind "$4" /var/lib/dkms; } && '
                   'shift 4 && exec "$@"')


def in_private_modules(scratch, kver, hdr, stree, tree, cmd):
    """cmd run with /lib/modules/KVER/build -> hdr, /usr/src -> stree and
    /var/lib/dkms -> tree, where unshare can do it."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return cmd
    up, work = scratch / "upper", scratch / "work"
    shutil.rmtree(scratch, ignore_errors=True)
    (up / "modules" / kver).mkdir(parents=True)
    work.mkdir()
    for n in ("build", "source"):
        (up / "modules" / kver / n).symlink_to(hdr)
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", PRIVATE_MODULES,
            "sh", str(up), str(work), str(stree), str(tree), *cmd]


def conf_of(src):
    """(PACKAGE_NAME, PACKAGE_VERSION) of a dkms.conf (bash: arrays, variables)."""
    r = subprocess.run(["bash", "-c", 'kernelver=x; arch=x; . ./dkms.conf >/dev/null 2>&1; '
                        'echo "$PACKAGE_NAME|$PACKAGE_VERSION"'], cwd=src,
                       capture_output=True, text=True)
    name, _, ver = r.stdout.strip().partition("|")
    return name, ver


def unpack_kos(d):
    """Every built module under d, decompressed (dkms compresses like the kernel)."""
    for z, cmd in ((".ko.xz", ["xz", "-d", "-f"]), (".ko.zst", ["zstd", "-q", "-d", "-f", "--rm"]),
                   (".ko.gz", ["gzip", "-d", "-f"])):
        for f in glob.glob(str(d / "**" / f"*{z}"), recursive=True):
            subprocess.run(cmd + [f], check=False)
    return glob.glob(str(d / "**" / "*.ko"), recursive=True)


def dkms_build(out, key, src, n, log, cosrc=()):
    """dkms add + build of src against upload n's headers, in OUT's own dkms tree
    -> ([.ko], None) or (None, reason). COSRC: the source tops of the -dkms
    packages it depends on, beside it in its /usr/src (as apt installs them:
    folders, which a dkms.conf's find -type d sees and a link is not)."""
    name, ver = conf_of(src)
    if not name or not ver:
        return None, "build-failed: dkms.conf names no PACKAGE_NAME/PACKAGE_VERSION"
    paths = upload_paths(out, n)
    kver = paths["symvers"].parent.name[len("linux-headers-"):]
    tree = (pathlib.Path(out) / "dkms" / "tree" / str(n)).resolve()
    stree = (pathlib.Path(out) / "dkms" / "stree" / key).resolve()
    stree.mkdir(parents=True, exist_ok=True)
    link = stree / f"{name}-{ver}"
    if link.is_symlink():   # a source tree of an older lab: a link, not a folder
        link.unlink()
    for top, dst in [(src, link)] + [(co, stree / pathlib.Path(co).name) for co in cosrc]:
        if not dst.exists():    # a folder, as dpkg installs it: a dkms.conf may find it
            shutil.copytree(top, dst, symlinks=True)
    tree.mkdir(parents=True, exist_ok=True)
    common = ["--dkmstree", str(tree), "--sourcetree", str(stree), "-m", name, "-v", ver]
    env = build_env()
    with open(log, "w") as lf:
        if not (tree / name / ver / "source").exists():
            subprocess.run(["dkms", "add", *common], stdout=lf, stderr=subprocess.STDOUT, env=env)
        hdr = paths["symvers"].parent.resolve()
        r = subprocess.run(in_private_modules(tree.parent / f"ovl-{n}", kver, hdr, stree, tree, [
            "dkms", "build", *common, "-k", kver, "--kernelsourcedir", str(hdr), "--force"]),
                           stdout=lf, stderr=subprocess.STDOUT, env=env)
    text = pathlib.Path(log).read_text(errors="replace")
    if r.returncode == 77 or "BUILD_EXCLUSIVE" in text:
        return None, "unsupported: " + next((x.strip() for x in text.splitlines()
                                             if "BUILD_EXCLUSIVE" in x or "exclusive" in x.lower()),
                                            "the package excludes this kernel")[:200]
    if r.returncode:
        mk = tree / name / ver / "build" / "make.log"
        # the package's own file names, not the lab's folders
        err = first_error(mk if mk.exists() else log).replace(f"{tree / name / ver / 'build'}/", "")
        return None, "build-failed: " + err
    kos = unpack_kos(tree / name / ver / kver)
    return (kos, None) if kos else (None, "build-failed: dkms built no module")


@functools.lru_cache(maxsize=None)     # once per run: every upload builds the same source
def fingerprint(src):
    """The source's content (every file's path and bytes, links' targets):
    a user who edits MODULES=DIR gets a new build, not the cached one."""
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(src)):
        dirs.sort()
        for f in sorted(files):
            p = pathlib.Path(root) / f
            h.update(str(p.relative_to(src)).encode() + b"\0")
            h.update(os.readlink(p).encode() if p.is_symlink() else p.read_bytes())
    return h.hexdigest()


def build(out, key, src, subdir, args, n, log, cosrc=()):
    """Build src against upload n's headers (dkms when it has a dkms.conf, else
    make M=) -> {name: .ko} or an error string, cached per (package, upload,
    source content)."""
    dst = pathlib.Path(out) / "dkms" / "build" / key / str(n)
    done = dst / ".built"
    fp = fingerprint(str(src))
    old = done.read_text() if done.exists() else None
    # "": a build of an older lab, which kept no fingerprint (an archive
    # package does not change under its version; a user's folder may have)
    if old != fp and (old != "" or key.startswith("user-")):
        stree = pathlib.Path(out) / "dkms" / "stree" / key
        if old is not None and stree.is_dir():  # the copy dkms builds from is stale too
            shutil.rmtree(stree)
        shutil.rmtree(dst, ignore_errors=True)
        dst.mkdir(parents=True)
        status = "0"
        if (pathlib.Path(src) / "dkms.conf").exists():
            kos, err = dkms_build(out, key, src, n, log, cosrc)
            for ko in kos or []:    # kept beside the M= builds: one layout for the boots
                shutil.copy(ko, dst / os.path.basename(ko))
            status = err or "0"
        else:
            shutil.copytree(src, dst / "src", symlinks=True)
            hdr = upload_paths(out, n)["symvers"].parent
            extra = [a.replace("{src}", str((dst / "src").resolve())) for a in args.split()]
            with open(log, "w") as lf:
                r = subprocess.run(["make", "-j2", "-C", str(hdr.resolve()),
                                    f"M={(dst / 'src' / subdir).resolve()}", *extra, "modules"],
                                   stdout=lf, stderr=subprocess.STDOUT, env=build_env())
            if r.returncode:
                status = "build-failed: " + first_error(log)
        (dst / ".status").write_text(status)
        done.write_text(fp)
    status = (dst / ".status").read_text()
    if status != "0":
        return status if status.startswith(("build-failed", "unsupported")) \
            else f"build-failed (log: {log})"
    kos = {}
    for ko in glob.glob(str(dst / "**" / "*.ko"), recursive=True):
        try:
            kos[module_facts(ko)["name"] or modname(pathlib.Path(ko).stem)] = ko
        except FactsError:
            pass
    return kos


def refusal_reason(dmesg):
    """The kernel's line that says why a load was refused, or None."""
    return next((d for d in reversed(dmesg)
                 if "disagrees" in d or "Unknown" in d or "magic" in d), None)


def own_kernel(res, symvers):
    """None when a build loaded into the kernel it was built for; else why not,
    as {verdict, why}: a lab error (the lab did not give the kernel what the
    module needs: an in-tree provider it did not load, a guest that never ran
    the case) or a module defect (it needs what its own kernel lacks, or its
    init fails there). Either way no policy is judged on its later loads."""
    own = res["outcomes"].get(res["built_for"])
    if own is None or own == "loaded":
        return None
    why = (res.get("reasons") or {}).get(res["built_for"]) or own
    sym = re.search(r"Unknown symbol (\S+)", why)
    if own == "not-reached" or (sym and sym.group(1) in symvers):
        exporter = symvers[sym.group(1)][1] if sym and sym.group(1) in symvers else None
        return {"verdict": "lab-error",
                "why": f"{why} (exported by {exporter}, which the lab did not load first)"
                if exporter else why}
    return {"verdict": "module-defect", "why": why}


def main(argv):
    args = argv[1:]
    user = None
    every = "--all" in args
    if every:
        args.remove("--all")
    if "--modules" in args:
        i = args.index("--modules")
        user = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3:
        print("usage: python3 -m history.dkms OUT DKMS.tsv [--all] [--modules DIR] ABINUM...",
              file=sys.stderr)
        return 2
    out, table, nums = args[0], args[1], sorted(args[2:], key=tables.upload_key)
    logs = pathlib.Path(out) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    try:
        rows = read_table(table)
    except (OSError, ValueError) as e:
        print(f"history: {e}", file=sys.stderr)
        return 1
    pkgs, rc = {}, 0
    apt, suites = line_apt()
    names = list(dict.fromkeys([r["package"] for r in rows]
                               + (discover(apt, suites) if every else [])))
    dls = downloads(apt, suites)

    def get(pkg):
        for i, dl in enumerate(dls):
            try:
                return fetch(out, pkg, dl)
            except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
                if i == len(dls) - 1:   # no suite of the line has it
                    print(f"history: {e}", file=sys.stderr)
        return None
    for pkg in names:
        pkgs[pkg] = get(pkg)
        rc = rc if pkgs[pkg] else 1
    # what apt would install with them: their host packages (as root) and
    # the source of the -dkms packages they build with
    need, cosrc = set(), {}
    for pkg, got in pkgs.items():
        if got:
            host, sib = depends_of(got[0])
            need.update(host)
            cosrc[pkg] = [g[0] for g in map(get, sib) if g]
    deps = ["sh", str(TOP / "lab/deps.sh")]
    if need and subprocess.run(deps + sorted(need)).returncode:
        # one apt-get for all fails whole: then each alone (a newer
        # release's package may name what the host's archive lacks)
        left = [p for p in sorted(need) if subprocess.run(deps + [p]).returncode]
        if left:
            print(f"history: not installed: {' '.join(left)} (what some -dkms packages "
                  "depend on: their builds may fail for it)", file=sys.stderr)
    if user:
        u = pathlib.Path(user)
        if not u.is_dir():
            print(f"history: MODULES={user} is not a directory", file=sys.stderr)
            return 1
        pkgs["user:" + u.name] = (u.resolve(), f"{u.name} (MODULES={user})")
    builds = {}   # (package, n) -> {name: ko} or error
    for pkg, got in pkgs.items():
        if not got:
            continue
        spec = next((r for r in rows if r["package"] == pkg), {"dir": ".", "args": ""})
        for n in nums:
            builds[pkg, n] = build(out, pkg.replace(":", "-"), got[0], spec["dir"], spec["args"],
                                   n, logs / f"dkms-{pkg.replace(':', '-')}-{n}.log",
                                   cosrc.get(pkg, ()))
            if isinstance(builds[pkg, n], str):
                print(f"history: {pkg} does not build against {tables.abiname(n)}'s headers "
                      f"({builds[pkg, n]})", file=sys.stderr)
    wanted = [dict(r) for r in rows if pkgs.get(r["package"])]
    for pkg in pkgs:    # a package dkms.tsv does not name, a user's folder: every module it builds
        if not pkgs[pkg] or any(r["package"] == pkg for r in rows):
            continue
        built = sorted({m for n in nums if isinstance(builds[pkg, n], dict) for m in builds[pkg, n]})
        wanted += [{"package": pkg, "module": m, "check": None}
                   for m in built or ["(no build)"]]
    result = [{"module": w["module"], "package": pkgs[w["package"]][1], "built_for": tables.abiname(f),
               "build": "ok" if isinstance(builds[w["package"], f], dict)
               and w["module"] in builds[w["package"], f] else
               (builds[w["package"], f] if isinstance(builds[w["package"], f], str)
                else "module-not-built"),
               "outcomes": {}, "checks": {}} for w in wanted for f in nums]
    def boot(ti, to):
        """Kernel `to` booted with the builds for it, for the first upload
        and for the one before it (as the booted sample: the plot's line and
        the update a user makes) -> ({case: result}, {case: outcome})."""
        facts_to = upload_facts(out, to)
        cases, where = [], {}
        for res, (w, f) in zip(result, [(w, f) for w in wanted for f in nums]):
            fi = nums.index(f)
            if fi > ti or res["build"] != "ok" or (fi < ti and f not in sources(nums, ti)):
                continue
            kos = builds[w["package"], f]
            mods = {k: {"depends": module_facts(v)["depends"], "path": v} for k, v in kos.items()}
            allf = {**{k: {"depends": v["depends"], "path": str(upload_paths(out, to)["root"]
                                                                 / v["path"])}
                       for k, v in facts_to.items()}, **mods}
            deps = [allf[d]["path"] for d in dep_order(w["module"], allf)]
            name = f"{w['module']}-b{f}"
            cases.append((name, "-", kos[w["module"]], deps, w["check"]))
            where[name] = res
        if not cases:
            return where, {}
        got = boot_all(out, to, "dkms", cases, {})
        print(f"history: dkms into {tables.abiname(to)}: {len(cases)} loads, "
              f"{sum(1 for n in where if got[n]['outcome'] == 'loaded')} loaded", file=sys.stderr)
        return where, got
    gen_init_cpio(out)      # once, before the boots run at once
    for to, (where, got) in zip(nums, in_parallel(boot, list(enumerate(nums)))):
        for name, res in where.items():
            res["outcomes"][tables.abiname(to)] = got[name]["outcome"]
            res["checks"][tables.abiname(to)] = got[name]["check"]
            reason = refusal_reason(got[name]["dmesg"])
            if reason:
                res.setdefault("reasons", {})[tables.abiname(to)] = reason
    for res in result:
        if res["build"] == "ok":
            n = next(x for x in nums if tables.abiname(x) == res["built_for"])
            bad = own_kernel(res, read_symvers(upload_paths(out, n)["symvers"]))
            if bad:
                res["own_kernel"] = bad
                print(f"history: {res['module']} built for {res['built_for']} does not load "
                      f"into it: {bad['verdict']}: {bad['why']}", file=sys.stderr)
                rc = 1 if bad["verdict"] == "lab-error" else rc
    (pathlib.Path(out) / "dkms.json").write_text(json.dumps(result, indent=1))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
