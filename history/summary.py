# SPDX-License-Identifier: GPL-2.0
"""history.json from the matrix, the booted sample and the DKMS builds: per
update the CRC churn, what each policy lets survive, and the forced loads'
verdict on the refusals. Exits 1 when a boot disagrees with the host prediction.

    python3 -m history.summary OUT   -> OUT/history.json
"""
import json
import os
import pathlib
import sys

from core import plot, tables
from history import mechanism

# the policies compared (no oracle: each is a rule for the distributor's string)
POLICIES = {
    "per-upload": "ABI string bumped on every upload (Debian since 2025, Ubuntu; "
                  "nomodv with the release string, or remove's ABI string)",
    "bump-on-crc-change": "ABI string bumped when an export CRC changed or an export "
                          "went away (Debian's buildcheck.py until 2025)",
    "never-bump": "ABI string never bumped (lax): everything loads",
    "modversions": "CONFIG_MODVERSIONS (base, keep): per-symbol CRCs, what the "
                   "booted kernels did",
}


def read_json(path, default=None):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except FileNotFoundError:
        return default


def crc_step(consec, f, t, nums):
    """Did any export CRC change or any export go away on the way from f to t?"""
    chain = nums[nums.index(f):nums.index(t) + 1]
    return any(consec[f"{a}->{b}"]["crc_changed"] or consec[f"{a}->{b}"]["removed"]
               for a, b in zip(chain, chain[1:]))


def survive(pair, consec, nums):
    f, t, n = pair["from"], pair["to"], pair["of"]
    bumped = crc_step(consec, f, t, nums)
    return {"per-upload": {"modules": 0, "of": n},
            "bump-on-crc-change": {"modules": 0 if bumped else n, "of": n},
            "never-bump": {"modules": n, "of": n, "unsafe": n - pair["loaded"]},
            "modversions": {"modules": pair["loaded"], "of": n}}


def control_ok(case):
    """The to-kernel's own copy loaded and passed its check (a run from
    before the control has none: taken as passed)."""
    if "control" not in case:
        return True
    ctl = case["control"]
    return bool(ctl) and ctl["outcome"] == "loaded" and ctl.get("check") in (None, "pass", "none")


def judge(case):
    """needless / needed / unknown for one sample module, if it were refused:
    would it have worked? From its normal load when it loaded, else the forced
    one; unknown when the to-kernel's own copy does not pass in the guest
    (the control: the guest cannot exercise it, whatever the update did)."""
    if not control_ok(case):
        return "unknown"
    obs = case["observed"]
    run = obs if obs["outcome"] == "loaded" else case.get("forced")
    if not run or run["outcome"] != "loaded":
        return "needed" if run else "unknown"
    return {"pass": "needless", "fail": "needed"}.get(run.get("check"), "unknown")


# a module's class is its check's kind (guest/history/hcheck)
CLASSES = {"crypto": "crypto", "tmpl": "crypto", "init": "self-test module", "fs": "filesystem",
           "rofs": "filesystem", "overlay": "filesystem", "mount": "filesystem",
           "nls": "nls table", "netdev": "network", "linked": "network", "netif": "network",
           "block": "block", "zram": "block", "dev": "device node"}


def class_of(check):
    w = (check or "").split()
    if w[:1] == ["with"]:
        w = w[2:]
    return CLASSES.get(w[0], "other") if w else "no check"


def wilson(k, n, z=1.96):
    """The 95% Wilson score interval of k successes in n trials, or None."""
    if not n:
        return None
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return [max(0.0, c - h), min(1.0, c + h)]


def estimates(sample, raw, bumped_of):
    """Per policy and class: the refusals it makes of the sampled modules,
    judged needless / needed / unknown, and the needless share with its 95%
    interval (unknown ones in no estimate)."""
    out = {}
    for pol in POLICIES:
        per = {}
        for c, r in zip(sample, raw):
            if not refused_by(pol, r, bumped_of(r)):
                continue
            k = per.setdefault(c["class"], {"needless": 0, "needed": 0, "unknown": 0})
            k[c["judged"]] += 1
        for k in per.values():
            n = k["needless"] + k["needed"]
            k["share"] = k["needless"] / n if n else None
            k["interval"] = wilson(k["needless"], n)
        out[pol] = per
    return out


def refused_by(policy, case, bumped):
    if policy == "per-upload":
        return True
    if policy == "bump-on-crc-change":
        return bumped
    if policy == "never-bump":
        return False
    return case["observed"]["outcome"] != "loaded"


def first_upload_shares(data):
    """{policy: [share of the first upload's modules loadable after each later upload]}."""
    first = data["uploads"][0]["abiname"]
    ups = [u for u in data["updates"] if u["from"] == first]
    series = {}
    for u in ups:
        for pol, s in u["survive"].items():
            series.setdefault(pol, []).append(s["modules"] / s["of"] if s["of"] else None)
    return [u["to"] for u in ups], series


def svg(data):
    labels, series = first_upload_shares(data)
    return plot.svg_share_lines(series, labels,
                                f"{data['uploads'][0]['abiname']}'s modules after each later upload",
                                "modules still loadable")


def dkms_per_upload(dkms, consec, nums):
    """Per later upload: what happens to each out-of-tree module built for the
    upload before it, per policy. 'no longer builds' (its source no longer
    builds against the new headers: no versioning helps), 'rebuild' (the old
    build is refused, the new one builds), 'keeps' (the old build loads; for
    never-bump also when the booted kernel refused it: then 'unsafe').
    A build that did not load into its own kernel is out (lab error or
    module defect, listed with its reason)."""
    names = [tables.abiname(n) for n in nums]
    by = {(d["package"], d["module"], d["built_for"]): d for d in dkms}
    rows, out = [], []
    for d in dkms:
        if d.get("own_kernel"):
            out.append({"module": d["module"], "built_for": d["built_for"], **d["own_kernel"]})
    for a, b in zip(names, names[1:]):
        na, nb = nums[names.index(a)], nums[names.index(b)]
        bumped = crc_step(consec, na, nb, nums)
        counts = {p: {"no longer builds": 0, "rebuild": 0, "keeps": 0, "unsafe": 0}
                  for p in POLICIES}
        mods = 0
        for (pkg, mod, f), old in by.items():
            if f != a or old["build"] != "ok" or old.get("own_kernel"):
                continue
            new = by.get((pkg, mod, b))
            if new is None or new.get("own_kernel"):
                continue
            mods += 1
            observed = old["outcomes"].get(b) == "loaded"
            for pol in POLICIES:
                c = counts[pol]
                if new["build"] != "ok":
                    c["no longer builds"] += 1
                    continue
                kept = {"per-upload": False, "bump-on-crc-change": not bumped,
                        "never-bump": True, "modversions": observed}[pol]
                c["keeps" if kept else "rebuild"] += 1
                if kept and not observed and pol != "modversions":
                    c["unsafe"] += 1
        rows.append({"from": a, "to": b, "modules": mods, "policies": counts})
    return {"updates": rows, "excluded": out}


def dkms_svg(data):
    """Share of the out-of-tree modules each upload forces to be rebuilt, per policy."""
    ups = (data.get("dkms_updates") or {}).get("updates") or []
    if not ups:
        raise ValueError("no DKMS update")
    series = {}
    for u in ups:
        for pol, c in u["policies"].items():
            n = sum(c[k] for k in ("no longer builds", "rebuild", "keeps"))
            series.setdefault(pol, []).append((c["rebuild"] + c["no longer builds"]) / n
                                              if n else None)
    return plot.svg_share_lines(series, [u["to"] for u in ups],
                                "Out-of-tree modules each upload forces to rebuild",
                                "rebuilt or no longer building")


def main(argv):
    if len(argv) != 2:
        print("usage: python3 -m history.summary OUT", file=sys.stderr)
        return 2
    out = pathlib.Path(argv[1])
    matrix = read_json(out / "matrix.json")
    if matrix is None:
        print(f"history: no {out}/matrix.json (run the matrix first)", file=sys.stderr)
        return 1
    boots = read_json(out / "boots.json", {})
    nums = matrix["uploads"]
    uploads = []
    for n in nums:
        pk = (out / "up" / str(n) / "packages").read_text().split("\n")
        pk = [x for x in pk if x]
        ver = next((x.split()[1] for x in pk if x.startswith("linux-image-")), None)
        uploads.append({"abiname": tables.abiname(n), "version": ver, "modules": matrix["modules"][n],
                        "packages": pk, "mechanism": mechanism.of_upload(out / "up" / str(n))})
    sample = []
    for case in boots.values():
        pred, obs = case["predicted"], case["observed"]["outcome"]
        sample.append({**{k: case[k] for k in ("from", "to", "module", "predicted")},
                       "observed": obs, "check": case["observed"].get("check"),
                       "reason": next((d for d in reversed(case["observed"]["dmesg"])
                                       if "disagrees" in d or "Unknown" in d or "magic" in d), None),
                       "agree": (pred == "loaded") == (obs == "loaded"),
                       "forced": (case.get("forced") or {}).get("outcome"),
                       "forced_check": (case.get("forced") or {}).get("check"),
                       "forced_reason": next(iter((case.get("forced") or {}).get("dmesg", [])[-1:]),
                                             None),
                       "judged": judge(case), "class": class_of(case.get("spec")),
                       "control": (case.get("control") or {}).get("outcome"),
                       "control_ok": control_ok(case)})
    updates = []
    pairs = matrix["pairs"]
    for key, pair in pairs.items():
        f, t = pair["from"], pair["to"]
        bumped = crc_step(matrix["consecutive"], f, t, nums)
        cases = [c for c in sample if c["from"] == f and c["to"] == t]
        by_policy = {}
        for pol in POLICIES:
            counts = {"needless": 0, "needed": 0, "unknown": 0}
            for c, raw in zip(cases, [v for v in boots.values()
                                      if v["from"] == f and v["to"] == t]):
                if refused_by(pol, raw, bumped):
                    counts[c["judged"]] += 1
            by_policy[pol] = counts
        updates.append({"from": tables.abiname(f), "to": tables.abiname(t),
                        "consecutive": nums.index(t) == nums.index(f) + 1,
                        **{k: pair[k] for k in ("crc_changed", "added", "removed",
                                                "module_layout_changed")},
                        "survive": survive(pair, matrix["consecutive"], nums),
                        "sampled": len(cases),
                        "agree": sum(1 for c in cases if c["agree"]),
                        "forced": by_policy["modversions"], "refusals": by_policy})
    est = estimates(sample, list(boots.values()),
                    lambda r: crc_step(matrix["consecutive"], r["from"], r["to"], nums))
    dkms = read_json(out / "dkms.json", [])
    b = tables.base()
    res = {"base": os.environ.get("HIST_LINE") or b["base"], "abiname": tables.history_line(),
           "uploads": uploads, "policies": POLICIES, "updates": updates,
           "sample": sample, "estimates": est, "dkms": dkms,
           "dkms_updates": dkms_per_upload(dkms, matrix["consecutive"], nums)}
    (out / "history.json").write_text(json.dumps(res, indent=1))
    for name, draw in (("history.svg", svg), ("dkms.svg", dkms_svg)):
        try:
            (out / name).write_text(draw(res))
        except (ValueError, KeyError, IndexError):
            pass
    # a module the guest cannot run at all (its control failed) tests no prediction
    bad = [c for c in sample if not c["agree"] and c["control_ok"]]
    for c in bad:
        print(f"history: {tables.abiname(c['from'])} {c['module']} into {tables.abiname(c['to'])}: host predicted "
              f"{c['predicted']}, the boot said {c['observed']}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
