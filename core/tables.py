# SPDX-License-Identifier: GPL-2.0
"""The lab's data tables, one reader each, for Python and (through the CLI
below) for the shell and the Makefile: lab/bases.tsv (the kernel bases),
lab/arches.tsv (the architectures), workload/arms.tsv, workload/cases.tsv, workload/probe-cases.tsv,
workload/cross-arm.tsv, workload/robust.tsv, and the boot timeouts.

The base's gens.tsv and policies.tsv have theirs in core/generations.py.
A malformed line is one TableError naming FILE:LINE; the CLI prints it on
stderr and exits 1.

    python3 -m core.tables arms [ready|series]  the arms, report order (ready:
                                                   those that run on the base: series
                                                   file there, needed options in its
                                                   Kconfig; series: the series arms
                                                   whose series file exists)
    python3 -m core.tables arms string          the arms whose string a policy sets
    python3 -m core.tables arms skipped [--json]  ARM<TAB>why, for each arm not
                                                   ready (--json: one object)
    python3 -m core.tables arms reference       the reference arm (arms.tsv's role)
    python3 -m core.tables string ARM           abi | release | - (arms.tsv)
    python3 -m core.tables timeout boot|long    seconds
    python3 -m core.tables base [FIELD]         the selected base (BASE=; default:
                                                   lab/bases.tsv's first line): its
                                                   name or FIELD
    python3 -m core.tables build-dir            B, or build/BASE of the checkout
    python3 -m core.tables gen-patch PATCH      PATCH's path in the base's
                                                   generations folders
    python3 -m core.tables series ARM           ARM's series folder in this base
                                                   (- for a pristine arm)
    python3 -m core.tables series-bases         the other bases with a series of
                                                   their own (make test checks them)
    python3 -m core.tables arch [FIELD]         the selected architecture (ARCH=;
                                                   default: lab/arches.tsv's first
                                                   line): its name or FIELD
    python3 -m core.tables arches [FIELD]       names of the lines whose FIELD is set
                                                   (boot: those the lab can boot)
    python3 -m core.tables shell                the base and the architecture as
                                                   shell assignments (lab/common.sh)
"""
import json
import os
import re
import shlex
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD = os.path.join(TOP, "workload")
BASES_TSV = os.path.join(TOP, "lab", "bases.tsv")
ARCHES_TSV = os.path.join(TOP, "lab", "arches.tsv")
ARMS_TSV = os.path.join(WORKLOAD, "arms.tsv")
CASES_TSV = os.path.join(WORKLOAD, "cases.tsv")
PROBES_TSV = os.path.join(WORKLOAD, "probe-cases.tsv")
CROSS_TSV = os.path.join(WORKLOAD, "cross-arm.tsv")
ROBUST_TSV = os.path.join(WORKLOAD, "robust.tsv")

# Seconds before a guest is killed: an ordinary boot (make's TIMEOUT default),
# and the long ones (the load-cost bench, the sanitizer builds of make robust).
TIMEOUTS = {"boot": 120, "long": 600}
# The generation every module of the release cases is built for.
RELEASE = "G0"


class TableError(ValueError):
    """A data table that cannot be used: the message names FILE:LINE."""


def read_tsv(path, fields, optional=0, keep_line=False):
    """Rows of a tab-separated table as dicts; '#' and blank lines skipped.

    The last `optional` fields may be left out ("-" then)."""
    rows = []
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise TableError(f"{path}: {e.strerror or e}") from None
    with f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if not len(fields) - optional <= len(cols) <= len(fields):
                want = (f"{len(fields)}" if not optional else
                        f"{len(fields) - optional} to {len(fields)}")
                raise TableError(f"{path}:{lineno}: want {want} tab-separated columns, "
                                 f"got {len(cols)}")
            cols += ["-"] * (len(fields) - len(cols))
            row = dict(zip(fields, cols))
            if keep_line:
                row["line"] = lineno
            rows.append(row)
    return rows


def _unique(path, rows, key, what):
    names = [r[key] for r in rows]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise TableError(f"{path}: duplicate {what}: {', '.join(dup)}")
    return rows


def _one_of(path, row, field, known):
    """TableError naming FILE:LINE unless row[field] is one of known."""
    if row[field] not in known:
        raise TableError(f"{path}:{row['line']}: {field}: {row[field]} is not one of "
                         f"{', '.join(known)}")


def symbols(value):
    return [] if value == "-" else value.split(",")


# --- bases and architectures ---------------------------------------------------

BASE_FIELDS = ["base", "package", "suite", "apt", "abiname", "kbuild", "series", "probe",
               "gens", "config", "renames", "messages", "note"]
APTS = ("host", "private")
ARCH_FIELDS = ["name", "karch", "srcarch", "debian", "cross", "cc_pkg", "image", "qemu", "machine", "cpu",
               "console", "append", "tcg_append", "config", "rela", "bits", "defines", "undefines", "cross_config",
               "note"]
RELAS = ("rela", "rel")


def bases(path=BASES_TSV):
    """The kernel bases (lab/bases.tsv), the default first."""
    rows = _unique(path, read_tsv(path, BASE_FIELDS, keep_line=True), "base", "bases")
    for b in rows:
        _one_of(path, b, "apt", APTS)
        if "{N}" not in b["abiname"]:
            raise TableError(f"{path}:{b['line']}: abiname: {b['abiname']} has no {{N}}")
        if not b["base"] or "/" in b["base"]:
            raise TableError(f"{path}:{b['line']}: base: {b['base']!r} cannot name a folder")
        del b["line"]
    if not rows:
        raise TableError(f"{path}: no base")
    return rows


def _selected(rows, key, var, name, path):
    """The row named name, else $var, else the table's first row."""
    name = name or os.environ.get(var) or rows[0][key]
    for r in rows:
        if r[key] == name:
            return r
    raise TableError(f"{var}={name}: no such {'base' if var == 'BASE' else 'architecture'} "
                     f"in {path} (known: {' '.join(r[key] for r in rows)})")


def base(name=None, path=BASES_TSV):
    """The selected base: name, else $BASE, else the table's first line."""
    return _selected(bases(path), "base", "BASE", name, path)


def base_path(field, b=None):
    """A folder of the base's table line (series, probe) as a path."""
    b = b or base()
    return os.path.normpath(os.path.join(TOP, b[field]))


def build_dir():
    """B when set (the Makefile sets it), else build/BASE of this checkout."""
    return os.environ.get("B") or os.path.join(TOP, "build", base()["base"])


def history_line(b=None):
    """The ABI-name pattern of the history line being run: $HIST_ABINAME (make
    history sets it per line, history/lines.py), else the base's own line."""
    return (None if b else os.environ.get("HIST_ABINAME")) or (b or base())["abiname"]


def abiname(n, b=None):
    """Upload n's ABI name in the history line ("X.Y.0-{N}" -> "X.Y.0-57")."""
    return fill(history_line(b), n)


# An upload of a line is its number N, or "N.R" for a respin: Debian names an
# ABI bump without a new upstream release X.Y.N+debNN.R,
# an upload a user of the line installs like any other.
UPLOAD = re.compile(r"^(\d+)(?:\.(\d+))?$")


def upload_id(s):
    """An upload as the lab keeps it: int N, or the string "N.R" of a respin;
    ValueError for anything else."""
    m = UPLOAD.match(str(s))
    if not m:
        raise ValueError(f"{s!r} is not an upload (N, or N.R for a respin)")
    return int(m.group(1)) if m.group(2) is None else f"{int(m.group(1))}.{int(m.group(2))}"


def upload_key(n):
    """Upload order: N, then its respins (115 < 115.1 < 116)."""
    return tuple(int(x) for x in str(n).split("."))


def fill(pattern, n):
    """An upload's ABI name: the line's pattern with {N} its number, a
    respin's .R after it ("X.Y.{N}+debNN", "N.R" -> "X.Y.N+debNN.R")."""
    num, _, respin = str(n).partition(".")
    return pattern.replace("{N}", num) + (f".{respin}" if respin else "")


def upload_of(pattern, abi):
    """The upload of the line an ABI name is, or None (fill's inverse)."""
    pre, _, post = pattern.partition("{N}")
    m = re.match(re.escape(pre) + r"(\d+)" + re.escape(post) + r"(?:\.(\d+))?$", abi)
    return upload_id(m.group(1) + (f".{m.group(2)}" if m.group(2) else "")) if m else None


def flavour(a=None):
    """The Debian kernel flavour of an architecture's uploads (amd64, arm64, ...)."""
    return (a or arch())["debian"]


def messages(b=None):
    """[(reason, regex)] of the base's own loader wording (its messages file)."""
    b = b or base()
    if b["messages"] == "-":
        return []
    path = os.path.join(TOP, b["messages"])
    rows = read_tsv(path, ["reason", "regex"], keep_line=True)
    for r in rows:
        try:
            re.compile(r["regex"])
        except re.error as e:
            raise TableError(f"{path}:{r['line']}: regex: {e}") from None
    return [(r["reason"], r["regex"]) for r in rows]


def gens_dirs(b=None):
    """The base's generations folders, first first: its gens column is a
    search path ("bases/X/gens:workload/gens"), so a base ports only the
    patches that do not apply and shares the rest."""
    b = b or base()
    return [os.path.normpath(os.path.join(TOP, d)) for d in b["gens"].split(":")]


def gens_file(name, b=None):
    """The first of the base's generations folders that has file name."""
    dirs = gens_dirs(b)
    for d in dirs:
        if os.path.isfile(os.path.join(d, name)):
            return os.path.join(d, name)
    raise TableError(f"no {name} in the base's generations folders {':'.join(dirs)}")


def gens_tsv():
    return gens_file("gens.tsv")


def policies_tsv():
    return gens_file("policies.tsv")


def arches(path=ARCHES_TSV):
    """The architectures (lab/arches.tsv), the default first; lists split."""
    rows = _unique(path, read_tsv(path, ARCH_FIELDS, optional=1, keep_line=True),
                   "name", "architectures")
    for a in rows:
        _one_of(path, a, "rela", RELAS)
        if a["cross"] != "-" and not a["cross"].endswith("-"):
            raise TableError(f"{path}:{a['line']}: cross: {a['cross']} does not end in -")
        a["defines"], a["undefines"] = symbols(a["defines"]), symbols(a["undefines"])
        a["cross_config"] = symbols(a["cross_config"])
        del a["line"]
    return rows


def arch(name=None, path=ARCHES_TSV):
    """The selected architecture: name, else $ARCH, else the table's first line."""
    return _selected(arches(path), "name", "ARCH", name, path)


def image_name(a=None):
    """The kernel image's file name (a copy under kernels/KID/ keeps it)."""
    return os.path.basename((a or arch())["image"])


def bootable(a):
    """Can the lab build and boot arch line a (image, QEMU, machine, console)?"""
    return all(a[k] != "-" for k in ("image", "qemu", "machine", "cpu", "console", "config"))


# --- arms -------------------------------------------------------------------

ROLES = ("reference",)


def arms(path=ARMS_TSV):
    """The arms, in report order: [{arm, series, string, note, role, needs}]
    (needs: the Kconfig options the arm's tree must offer, a list)."""
    rows = _unique(path, read_tsv(path, ["arm", "series", "string", "note", "role", "needs"],
                                  optional=2, keep_line=True), "arm", "arms")
    for a in rows:
        _one_of(path, a, "string", STRINGS)
        _one_of(path, a, "role", ("-",) + ROLES)
        a["needs"] = [] if a["needs"] == "-" else a["needs"].split(",")
        bad = [o for o in a["needs"] if not re.fullmatch(r"[A-Z0-9_]+", o) or o.startswith("CONFIG_")]
        if bad:
            raise TableError(f"{path}:{a['line']}: needs: {bad[0]} is not a Kconfig "
                             "option name (without CONFIG_)")
        del a["line"]
    refs = [a["arm"] for a in rows if a["role"] == "reference"]
    if len(refs) != 1:
        raise TableError(f"{path}: want one arm of role reference, got {len(refs)}")
    return rows


def reference_arm(path=ARMS_TSV):
    """The arm every other is measured against (arms.tsv's role reference)."""
    return next(a["arm"] for a in arms(path) if a["role"] == "reference")


def split_variant(name, path=ARMS_TSV):
    """(arm, variant) of a variant build ARM-VARIANT (base-kasan: base, kasan),
    (name, None) for an arm itself, (None, None) for anything else."""
    names = arm_names(path)
    if name in names:
        return name, None
    for arm in sorted(names, key=len, reverse=True):
        if name.startswith(arm + "-") and len(name) > len(arm) + 1:
            return arm, name[len(arm) + 1:]
    return None, None


def arm_string(arm, path=ARMS_TSV):
    """What the distributor's policy sets on arm: abi, release or "-"."""
    for a in arms(path):
        if a["arm"] == arm:
            return a["string"]
    raise TableError(f"{path}: no arm {arm}")


def arm_names(path=ARMS_TSV):
    return [a["arm"] for a in arms(path)]


# What a distributor's string is, per arm (arms.tsv's "string" column):
# abi = CONFIG_MODULE_ABI_VERSION, release = the kernel release (vermagic),
# "-" = none (the CRCs decide; one kernel per generation, no policy).
STRINGS = ("abi", "release", "-")


# --- the module cases ---------------------------------------------------------

CASE_FIELDS = ["case", "module", "built_by", "flags", "deps", "expected", "note"]


def cases(path=CASES_TSV):
    """The release cases (workload/cases.tsv); deps as a list."""
    rows = read_tsv(path, CASE_FIELDS)
    for c in rows:
        if c["expected"] not in ("compatible", "incompatible"):
            raise TableError(f"{path}: {c['case']}: expected must be compatible|incompatible")
        c["deps"] = symbols(c["deps"])
    return _unique(path, rows, "case", "case names")


def probes(path=PROBES_TSV):
    """The probe users (workload/probe-cases.tsv): [{case, module, note}]."""
    return _unique(path, read_tsv(path, ["case", "module", "note"]), "case", "probe users")


def cross_arm(path=CROSS_TSV):
    """(built_by, arm) -> (expected, why) from workload/cross-arm.tsv."""
    rows = read_tsv(path, ["built_by", "arm", "expected", "why"])
    return {(r["built_by"], r["arm"]): (r["expected"], r["why"]) for r in rows}


def robust_columns(path=ROBUST_TSV):
    """The arms the corpus declares outcomes for: its header line
    "# input<TAB>make<TAB>flags<TAB>ARM...<TAB>note" names them (an arm
    without a column, such as one a later base added, is not held to it)."""
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                cols = line.rstrip("\n").split("\t")
                if cols[0] == "# input" and cols[1:3] == ["make", "flags"] and cols[-1] == "note":
                    known = arm_names()
                    bad = [c for c in cols[3:-1] if c not in known]
                    if bad:
                        raise TableError(f"{path}:{lineno}: {bad[0]} is not an arm of {ARMS_TSV}")
                    return cols[3:-1]
    except OSError as e:
        raise TableError(f"{path}: {e.strerror or e}") from None
    raise TableError(f"{path}: no header line '# input<TAB>make<TAB>flags<TAB>ARM...<TAB>note'")


def robust(path=ROBUST_TSV, arm_cols=None):
    """The robustness corpus (workload/robust.tsv): one column per arm its
    header names (arm_cols: those instead)."""
    cols = robust_columns(path) if arm_cols is None else list(arm_cols)
    rows = read_tsv(path, ["input", "make", "flags", *cols, "note"], keep_line=True)
    return _unique(path, rows, "input", "inputs")


def shell():
    """The selected base and architecture as shell assignments, for lab/common.sh:
    BASE_<FIELD> and ARCH_<FIELD> (lists comma-separated), BASE_BUILD."""
    out = []
    for prefix, row in (("BASE", base()), ("ARCH", arch())):
        for k, v in row.items():
            v = ",".join(v) if isinstance(v, list) else v
            out.append(f"{prefix}_{k.upper()}={shlex.quote(v)}")
    out.append(f"BASE_FLAVOUR={shlex.quote(flavour())}")
    out.append(f"BASE_BUILD={shlex.quote(os.path.join(TOP, 'build', base()['base']))}")
    return "\n".join(out)


def kconfig_options(tree):
    """Every option a kernel tree's Kconfig files define (config/menuconfig NAME)."""
    names = set()
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if f.startswith("Kconfig"):
                try:
                    with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                        names.update(re.findall(r"^\s*(?:menu)?config\s+([A-Z0-9_]+)\s*$",
                                                fh.read(), re.M))
                except OSError:
                    pass
    return names


def arm_not_ready(a, tree=None, kconfig=None):
    """Why arm row a does not run on the selected base, or None when it does:
    its series file is not there yet, the base's tree lacks an option it
    needs, or the tree is not extracted yet (make tree) while it needs one."""
    sdir = None if a["series"] == "-" else os.path.join(base_path("series"), a["series"])
    if sdir is not None and not os.path.isfile(os.path.join(sdir, "series")):
        return f"no series for base {base()['base']} yet ({os.path.relpath(sdir, TOP)}/series)"
    if a["needs"]:
        tree = tree or os.path.join(build_dir(), "linux")
        if not os.path.isdir(os.path.join(tree, "kernel")):
            return f"needs {', '.join(a['needs'])}: base {base()['base']}'s tree is not extracted (make tree)"
        have = kconfig if kconfig is not None else kconfig_options(tree)
        lack = [o for o in a["needs"] if o not in have]
        if lack:
            return (f"base {base()['base']}'s Kconfig has no "
                    f"{', '.join('CONFIG_' + o for o in lack)}")
    return None


def not_ready():
    """{arm: why} for every arm that does not run on the selected base."""
    out, kconfig = {}, None
    for a in arms():
        if a["needs"] and kconfig is None:
            tree = os.path.join(build_dir(), "linux")
            kconfig = kconfig_options(tree) if os.path.isdir(tree) else set()
        why = arm_not_ready(a, kconfig=kconfig)
        if why:
            out[a["arm"]] = why
    return out


def series_dir(arm, b=None):
    """The folder of arm's series in base b (default: the selected base),
    None for a pristine arm."""
    for a in arms():
        if a["arm"] == arm:
            return None if a["series"] == "-" else os.path.join(base_path("series", b), a["series"])
    raise TableError(f"{ARMS_TSV}: no arm {arm}")


def series_bases():
    """The bases other than the selected one whose series folder holds a
    series of a series arm (their patches, not the selected base's)."""
    mine = base()["base"]
    out = []
    for b in bases():
        if b["base"] == mine:
            continue
        if any(series_dir(a["arm"], b) and os.path.isfile(os.path.join(
                series_dir(a["arm"], b), "series")) for a in arms()):
            out.append(b["base"])
    return out


# --- the command line -----------------------------------------------------------

def _field(row, args, key, fields):
    field = args[0] if args else key
    if field not in fields:
        raise TableError(f"no field {field} (known: {', '.join(fields)})")
    value = row[field]
    return ",".join(value) if isinstance(value, list) else value


def main(argv):
    if not argv:
        sys.exit(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "arms" and not args:
        print(" ".join(arm_names()))
    elif cmd == "arms" and args == ["ready"]:
        # a series arm once its series file exists; an arm that needs options
        # once the base's tree has them
        skip = not_ready()
        print(" ".join(a for a in arm_names() if a not in skip))
    elif cmd == "arms" and args == ["skipped"]:
        for arm, why in not_ready().items():
            print(arm, why, sep="\t")
    elif cmd == "arms" and args == ["skipped", "--json"]:
        print(json.dumps(not_ready()))
    elif cmd == "arms" and args == ["series"]:
        print(" ".join(a["arm"] for a in arms() if series_dir(a["arm"]) is not None
                       and os.path.isfile(os.path.join(series_dir(a["arm"]), "series"))))
    elif cmd == "arms" and args == ["reference"]:
        print(reference_arm())
    elif cmd == "arms" and args == ["string"]:
        print(" ".join(a["arm"] for a in arms() if a["string"] != "-"))
    elif cmd == "string" and len(args) == 1:
        print(arm_string(args[0]))
    elif cmd == "timeout" and len(args) == 1 and args[0] in TIMEOUTS:
        print(TIMEOUTS[args[0]])
    elif cmd == "shell" and not args:
        print(shell())
    elif cmd == "base" and len(args) <= 1:
        print(_field(base(), args, "base", BASE_FIELDS))
    elif cmd == "gen-patch" and len(args) == 1:
        print(gens_file(args[0]))
    elif cmd == "build-dir" and not args:
        print(build_dir())
    elif cmd == "series-bases" and not args:
        print(" ".join(series_bases()))
    elif cmd == "series" and len(args) == 1:
        print(series_dir(args[0]) or "-")
    elif cmd == "arch" and len(args) <= 1:
        print(_field(arch(), args, "name", ARCH_FIELDS))
    elif cmd == "arches" and len(args) <= 1:
        field = args[0] if args else "name"
        if field not in ARCH_FIELDS and field != "boot":
            raise TableError(f"arches: no field {field} (known: boot, {', '.join(ARCH_FIELDS)})")
        print(" ".join(a["name"] for a in arches() if (bootable(a) if field == "boot"
                                                        else a[field] not in ("-", [], ""))))
    else:
        sys.exit(__doc__)
    return 0


def run_cli(main):
    """A table CLI's entry: main(argv)'s exit status, a TableError as one
    line on stderr and exit 1 (core.tables and core.generations share it)."""
    try:
        sys.exit(main(sys.argv[1:]))
    except TableError as e:
        print(f"modvlab: error: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    run_cli(main)
