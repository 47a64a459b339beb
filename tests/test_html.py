# SPDX-License-Identifier: GPL-2.0
"""The report's generation sections, sizes, audit and costs, in report.md and report.html.

Fixture: two arms and two generations. base (modversions) boots G0, G1, G2;
remove boots G0 (no policy) and G1/G2 under the lax and diligent policies.
G2 changes modvlab_probe_c: remove/lax lets the G0-built probe-c in (UNSAFE),
base and remove/diligent refuse it. base's rebuilt probe-c misbehaves on G2
(a lab error in the sanity section). A dmesg line carries "<&>". base also
has a load-cost "bench" boot (loaded_into "bench", as plan/bench.py plans it).
"""
import html.parser
import json
import pathlib
import shutil
import tempfile
import unittest

from compare import doc, model
from compare.sections import audit
from test_report import run_cli, write_json

ODD = "mod_consumer: no symbol version for modvlab_prov_asm_add <&> \"q\""
MISBEHAVED = "mod_probe_c: modvlab: selftest failed: modvlab_probe_c(2, 3) = 0, want 9"

# (case, token, errno, dmesg) per (arm, boot)
LOGS = {
    ("base", "G0"): [("asm-user", "loaded", "0", ["mod_asm_user: modvlab: selftest ok"]),
                     ("consumer-same", "refused", "EINVAL",
                      [ODD, "mod_consumer: Unknown symbol modvlab_prov_asm_add (err -22)"])],
    ("base", "G1"): [("g1-probe-c", "loaded", "0", ["mod_probe_c: modvlab: selftest ok"]),
                     ("g1-probe-c-rebuilt", "loaded", "0", ["mod_probe_c: modvlab: selftest ok"])],
    ("base", "G2"): [("g2-probe-c", "refused", "EINVAL",
                      ["mod_probe_c: disagrees about version of symbol modvlab_probe_c",
                       "mod_probe_c: Unknown symbol modvlab_probe_c (err -22)"]),
                     ("g2-probe-c-rebuilt", "refused", "ENOTRECOVERABLE", [MISBEHAVED])],
    ("base", "bench"): [("load-16", "loaded", "0", [])],
    ("remove", "G0"): [("asm-user", "loaded", "0", ["mod_asm_user: modvlab: selftest ok"]),
                       ("consumer-same", "loaded", "0", ["mod_consumer: modvlab: selftest ok"])],
    ("remove", "G1-lax"): [("g1-probe-c", "loaded", "0", []),
                           ("g1-probe-c-rebuilt", "loaded", "0", [])],
    ("remove", "G1-diligent"): [("g1-probe-c", "loaded", "0", []),
                                ("g1-probe-c-rebuilt", "loaded", "0", [])],
    ("remove", "G2-lax"): [("g2-probe-c", "refused", "ENOTRECOVERABLE", [MISBEHAVED]),
                           ("g2-probe-c-rebuilt", "loaded", "0", [])],
    ("remove", "G2-diligent"): [("g2-probe-c", "refused", "ENOEXEC",
                                 ["mod_probe_c: module ABI version 'lab.G0' should be 'lab.G2'"]),
                                ("g2-probe-c-rebuilt", "loaded", "0", [])],
}
GEN_NOTES = {"G1": "respin: release string bumped, no code change",
             "G2": "a used export's prototype changes (return type)"}
GENS_TSV = ("# gen\tpatch\tchanges\tremoves\tnote\n"
            "G1\tG1.patch\t-\t-\trespin: release string bumped, no code change\n"
            "G2\tG2.patch\tmodvlab_probe_c\t-\ta used export's prototype changes (return type)\n"
            "G3\tG3.patch\tmodvlab_probe_vis\t-\tdeclared, never booted\n")


def ktap_log(arm, cases):
    out = ["[    0.000000] Linux version 6.1.192 (lab) #1 SMP", "# modvlab: guest up",
           "KTAP version 1", "# modvlab: release=6.1.192 version=#1 SMP taint=0x0",
           f"1..{len(cases)}"]
    for n, (name, token, errno, dmesg) in enumerate(cases, 1):
        out.append(f"# case {name}: module=/m/{arm}/mods/probe/mod-{name}.ko flags=- deps=0")
        out += [f"# dmesg {name}: {d}" for d in dmesg]
        repeat = 3 if name.startswith("load-") else 1
        out.append(f"{'ok' if token == 'loaded' else 'not ok'} {n} {name} # {token} "
                   f"errno={errno} taint=0x1000 taint_before=0x1000 ns=1000 repeat={repeat} "
                   "unload=0")
    out.append(f"# modvlab: end cases={len(cases)} taint=0x1000")
    return "\n".join(out) + "\n"


def plan_case(arm, boot, n, name, policy):
    gen = boot.split("-")[0]
    rec = {"case": name, "module": "probe/mod-probe-c", "built_by": arm, "flags": "-",
           "deps": [], "note": "", "boot": boot, "arm": arm, "policy": policy,
           "loaded_into": gen, "n": n}
    if gen == "G0":
        rec.update(module=f"main/mod-{name}", built_for="G0", expected="compatible",
                   kind="release", gen="G0", probe=None)
    elif gen == "bench":
        rec.update(module="bench/16/bench_consumer_16", built_for="G0", expected="compatible",
                   imports=16, repeat=3, kind="bench", gen="G0", probe=None)
    else:
        rebuilt = name.endswith("-rebuilt")
        rec.update(built_for=gen if rebuilt else "G0", gen_note=GEN_NOTES[gen],
                   kind="rebuilt" if rebuilt else "update", gen=gen,
                   probe=name.split("-", 1)[1].removesuffix("-rebuilt"),
                   expected="incompatible" if gen == "G2" and not rebuilt else "compatible")
    return rec


def make_gen_build(build):
    write_json(build / "provenance.json", {"tree": "6.1.192-3", "accel": "tcg"})
    for arm in ("base", "remove"):
        boots, cases = {}, []
        for (a, boot), log in LOGS.items():
            if a != arm:
                continue
            policy = boot.split("-")[1] if "-" in boot else None
            boots[boot] = {"kernel": f"/x/{boot}/bzImage", "kid": boot, "policy": policy,
                           "cases": len(log)}
            cases += [plan_case(arm, boot, n, name, policy)
                      for n, (name, *_) in enumerate(log, 1)]
            d = build / "arms" / arm / "boot"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{boot}.log").write_text(ktap_log(arm, log))
            write_json(d / f"{boot}.json", {"status": "exited", "rc": 0, "wall_s": 2.0,
                                            "accel": "tcg"})
        write_json(build / "arms" / arm / "plan.json",
                   {"arm": arm, "boots": boots, "cases": cases, "not_run": []})
    write_json(build / "arms/base/build-clean.json", {"cpu_s": 400.0, "rc": 0})
    write_json(build / "arms/base/build.json", {"cpu_s": 10.0, "rc": 0})
    write_json(build / "arms/remove/build.json", {"cpu_s": 200.0, "rc": 0})
    write_json(build / "arms/base/sizes.json", {
        "vmlinux": {"text": 1000, "data": 200, "bss": 50}, "bzimage_bytes": 900000,
        "exports": 3703, "unversioned_exports": 0, "kcrctab_bytes": 14812,
        "modules": {"main/mod-asm-user": {"ko_bytes": 9672, "versions_bytes": 1280},
                    "main/mod-consumer": {"ko_bytes": 5800, "versions_bytes": 320},
                    "probe/mod-probe-c": {"ko_bytes": 99999, "versions_bytes": 9999}},
        "series": None, "bloat_vs_base": None,
        "audit": {"vmlinux_zero_crc": {"count": 0, "names": []},
                  "workload_zero_crc": {"count": 1, "names": ["modvlab_prov_asm_add"]},
                  "kernel_missing_crc_msgs": 0, "workload_missing_crc_msgs": 2}})
    write_json(build / "arms/remove/sizes.json", {
        "vmlinux": {"text": 990, "data": 210, "bss": 50}, "bzimage_bytes": 880000,
        "exports": 3700, "unversioned_exports": 3700, "kcrctab_bytes": 0,
        "modules": {"main/mod-asm-user": {"ko_bytes": 8320, "versions_bytes": 0},
                    "main/mod-consumer": {"ko_bytes": 5352, "versions_bytes": 0}},
        "series": {"patches": 7, "files": 12, "added": 300, "removed": 2500},
        "bloat_vs_base": {"summary": "add/remove: 1/30 grow/shrink: 2/3 up/down: 50/-10000 "
                                     "(-9950)",
                          "total": "Total: Before=4134195, After=4124245, chg -0.24%",
                          "top": ["check_version  200  -  -200"]},
        "audit": None})


class Table(html.parser.HTMLParser):
    """Rows of every <table> as [(class, text)], and a check that tags nest."""
    VOID = {"meta", "br", "hr", "img", "link", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.stack, self.cell, self.errors = [], [], None, []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = [dict(attrs).get("class") or "", ""]

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(tuple(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data


def render(build):
    saved = model.GENS_TSV
    model.GENS_TSV = build.parent / "gens.tsv"
    try:
        rc, out, err = run_cli("report", "--build", str(build))
    finally:
        model.GENS_TSV = saved
    assert rc == 0, err
    d = build / "report"
    return (json.loads((d / "report.json").read_text()), (d / "report.md").read_text(),
            (d / "report.html").read_text())


class TestGenerationReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        top = pathlib.Path(cls.tmp.name)
        (top / "gens.tsv").write_text(GENS_TSV)
        cls.build = top / "build"
        make_gen_build(cls.build)
        cls.json, cls.md, cls.html = render(cls.build)
        cls.lines = cls.md.splitlines()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def row(self, start):
        hits = [ln for ln in self.lines if ln.startswith(start)]
        self.assertEqual(len(hits), 1, f"{start!r}: {hits}")
        return hits[0]

    def test_sections_in_order(self):
        heads = [ln for ln in self.lines if ln.startswith("#")]
        self.assertEqual(heads, [
            "# modvlab report", "## Verdicts",
            "## Kernel updates: does the module built for G0 still load, and should it?",
            "## Module cases on the release (G0)",
            "## Sanity: modules rebuilt for each generation", "## Other cases",
            "## Code size vs base", "## Modversions completeness audit", "## Robustness",
            "## Costs",
            "### Load cost (median ns per finit_module)", "## Reasons"])
        # the first screen: title, provenance, then the verdicts
        self.assertTrue(self.lines[2].startswith("Provenance: tree `6.1.192-3`"))
        self.assertEqual(self.lines[4], "## Verdicts")

    def test_verdicts(self):
        self.assertEqual(list(self.json["verdicts"]),
                         ["base", "remove", "remove/lax", "remove/diligent"])
        self.assertEqual(self.row("| **remove/lax** |"), "| **remove/lax** | 3 | 0 | 0 | 1 | 0 | 0 | 4 |")
        self.assertEqual(self.row("| **base** | 4 |"), "| **base** | 4 | 1 | 1 | 0 | 1 | 0 | 7 |")
        self.assertIn("- **remove/lax**: UNSAFE (let in): `g2-probe-c`\n", self.md)
        self.assertIn("- **base**: NEEDLESS (kept out): `consumer-same`; "
                      "lab errors: `g2-probe-c-rebuilt`\n", self.md)
        self.assertIn("- **remove/diligent**: no unsafe loads, no needless refusals\n", self.md)

    def test_update_matrix(self):
        self.assertIn("| generation | what it changed | probe user | expected | base "
                      "| remove/lax | remove/diligent |", self.md)
        self.assertEqual(self.row("| **G2** |"),
                         "| **G2** | a used export's prototype changes (return type) (changes "
                         "`modvlab_probe_c`) | `probe-c` | incompatible "
                         "| `refused:crc-mismatch` ✓ | `loaded-misbehaved` ✗ UNSAFE "
                         "| `refused:abi-version` ✓ |")
        self.assertEqual(self.row("| **G1** |"),
                         "| **G1** | respin: release string bumped, no code change | `probe-c` "
                         "| compatible | `loaded` ✓ | `loaded` ✓ | `loaded` ✓ |")
        # rebuilt copies are not in the update matrix; G3 is declared but never booted
        self.assertNotIn("rebuilt` |", self.md.split("## Module cases")[0])
        self.assertIn("Declared but booted by no arm: G3.", self.md)
        self.assertNotIn("bench", self.md.split("## Module cases")[0])

    def test_other_cases(self):
        other = self.md.split("## Other cases")[1].split("## Code size")[0]
        self.assertIn("| case | expected | built → loaded | base |", other)
        self.assertIn("| `load-16` | compatible | G0 → bench | `loaded` ✓ |", other)
        self.assertIn("| base | 1,000 |", self.md)   # the load-cost table
        self.assertEqual(list(self.json["generations"]), ["G1", "G2", "G3"])

    def test_release_matrix(self):
        self.assertIn("| case | expected | base | remove |", self.md)
        self.assertEqual(self.row("| `consumer-same` |"),
                         "| `consumer-same` | compatible | `refused:crc-missing` ✗ NEEDLESS "
                         "| `loaded` ✓ |")

    def test_sanity(self):
        self.assertIn("- **base**: 1 of 2 rebuilt loads as expected; 1 exception below.", self.md)
        self.assertIn("- **remove/lax**: 2 of 2 rebuilt loads as expected.", self.md)
        self.assertEqual(self.row("| base | `g2-probe-c-rebuilt` |"),
                         "| base | `g2-probe-c-rebuilt` | G2 → G2 | compatible "
                         "| `loaded-misbehaved` ✗ LAB-ERROR | `" + MISBEHAVED + "` |")

    def test_sizes(self):
        self.assertEqual(self.json["arms"]["remove"]["workload"],
                         {"set": "main", "modules": 2, "ko_bytes": 13672, "versions_bytes": 0})
        self.assertEqual(self.json["arms"]["base"]["workload"]["ko_bytes"], 15472)  # no probe/
        self.assertEqual(self.json["arms"]["remove"]["sizes"]["series"]["files"], 12)
        self.assertEqual(self.row("| **base** | yes |"),
                         "| **base** | yes | 1,000 | 200 | 50 | 900,000 | 3,703 | 0 | 14,812 "
                         "| 15,472 | 1,600 | – | – | – | – |")
        self.assertEqual(self.row("| **remove** | yes |"),
                         "| **remove** | yes | 990 (-10) | 210 (+10) | 50 (±0) "
                         "| 880,000 (-20,000) | 3,700 (-3) | 3,700 (+3,700) | 0 (-14,812) "
                         "| 13,672 (-1,800) | 0 (-1,600) | 7 | 12 | +300 | -2,500 |")
        self.assertIn("remove:\n  add/remove: 1/30 grow/shrink: 2/3 up/down: 50/-10000 (-9950)\n"
                      "  Total: Before=4134195, After=4124245, chg -0.24%\n", self.md)

    def test_audit(self):
        self.assertEqual(self.row("| **base** | 0 |"),
                         "| **base** | 0 | 1: `modvlab_prov_asm_add` | 0 | 2 |")
        self.assertIn("Not audited (no CONFIG_MODVERSIONS): remove.", self.md)

    def test_audit_diff_is_computed(self):
        base = {"vmlinux_zero_crc": {"count": 2, "names": ["a", "b"]},
                "workload_zero_crc": {"count": 1, "names": ["x"]},
                "kernel_missing_crc_msgs": 0, "workload_missing_crc_msgs": 2}
        keep = {"vmlinux_zero_crc": {"count": 1, "names": ["b"]},
                "workload_zero_crc": {"count": 1, "names": ["x"]},
                "kernel_missing_crc_msgs": 1, "workload_missing_crc_msgs": 0}
        text = doc.md_inline(audit.audit_diff(base, keep))
        self.assertEqual(text, "zero-CRC exports in vmlinux 2 → 1 (fixed: `a`); modpost "
                               "missing-CRC messages (kernel) 0 → 1; modpost missing-CRC "
                               "messages (workload) 2 → 0")
        self.assertEqual(doc.md_inline(audit.audit_diff(base, base)),
                         "the same counts as base.")

    def test_costs(self):
        self.assertEqual(self.row("| **base** | 400.0 |"),
                         "| **base** | 400.0 | clean build | 1.00× | 4 of 4 | 8.0 |")
        self.assertEqual(self.row("| **remove** | 200.0 |"),
                         "| **remove** | 200.0 | last build | 0.50× | 5 of 5 | 10.0 |")

    def test_json_generations_and_boots(self):
        gens = self.json["generations"]
        self.assertEqual(list(gens), ["G1", "G2", "G3"])   # not "bench"
        self.assertEqual(gens["G2"]["changes"], ["modvlab_probe_c"])
        self.assertEqual(gens["G2"]["labels"], ["base", "remove/lax", "remove/diligent"])
        self.assertEqual(gens["G3"]["labels"], [])
        boots = self.json["arms"]["remove"]["boots"]
        self.assertEqual(list(boots), ["G0", "G1-lax", "G1-diligent", "G2-lax", "G2-diligent"])
        self.assertEqual(boots["G2-lax"]["plan"]["policy"], "lax")
        self.assertEqual(boots["G2-lax"]["run"], "complete")

    def test_html_cells_coloured(self):
        p = Table()
        p.feed(self.html)
        p.close()
        self.assertEqual(p.errors, [])
        self.assertEqual(p.stack, [])
        rows = [r for t in p.tables for r in t]
        (g2,) = [r for r in rows if r and r[0][1] == "G2" and r[2][1] == "probe-c"]
        self.assertEqual([c for c, _ in g2[4:]],
                         ["correct-refusal", "unsafe-load", "correct-refusal"])
        self.assertIn("UNSAFE", g2[5][1])
        (g1,) = [r for r in rows if r and r[0][1] == "G1" and r[2][1] == "probe-c"]
        self.assertEqual({c for c, _ in g1[4:]}, {"correct-load"})
        (cons,) = [r for r in rows if r and r[0][1] == "consumer-same"]
        self.assertEqual(cons[2][0], "needless-refusal")
        self.assertIn("td.unsafe-load {", self.html)

    def test_html_escapes_log_text(self):
        self.assertNotIn("<&>", self.html)
        self.assertIn("modvlab_prov_asm_add &lt;&amp;&gt; &quot;q&quot;", self.html)  # title=
        self.assertIn("modvlab_prov_asm_add &lt;&amp;&gt; \"q\"</code>", self.html)  # Reasons
        self.assertIn("`" + ODD + "`", self.md)

    def test_html_self_contained(self):
        self.assertTrue(self.html.startswith("<!DOCTYPE html>"))
        for bad in ("http://", "https://", "<script", "<link", "src=", "@import"):
            self.assertNotIn(bad, self.html)
        self.assertIn("<style>", self.html)
        # the same sections as report.md
        for h in [ln.lstrip("# ") for ln in self.lines if ln.startswith("## ")]:
            self.assertIn(f"<h2>{doc.esc(h)}</h2>", self.html)


class TestMissingInputs(unittest.TestCase):
    def test_missing_sizes_is_a_dash(self):
        with tempfile.TemporaryDirectory() as tmp:
            top = pathlib.Path(tmp)
            (top / "gens.tsv").write_text(GENS_TSV)
            build = top / "build"
            make_gen_build(build)
            (build / "arms/remove/sizes.json").unlink()
            (build / "arms/remove/build.json").unlink()
            rep, md, page = render(build)
        self.assertIsNone(rep["arms"]["remove"]["sizes"])
        self.assertIsNone(rep["arms"]["remove"]["workload"])
        self.assertIsNone(rep["arms"]["remove"]["vmlinux"]["text"])
        self.assertIn("| **remove** | – | – | – | – | – | – | – | – | – | – | – | – | – | – |",
                      md)
        self.assertIn("| **remove** | – | – | – | 5 of 5 | 10.0 |", md)
        self.assertIn("No audit data (–): remove.", md)
        self.assertIn("The tree's `scripts/bloat-o-meter`: – (not measured for any arm).", md)
        self.assertNotIn("None", md)
        self.assertNotIn("None", page)


class TestNoGenerations(unittest.TestCase):
    def test_release_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            top = pathlib.Path(tmp)
            (top / "gens.tsv").write_text("")
            build = top / "build"
            make_gen_build(build)
            for arm in ("base", "remove"):
                plan = json.loads((build / "arms" / arm / "plan.json").read_text())
                plan["cases"] = [c for c in plan["cases"] if c["boot"] in ("G0", "bench")]
                plan["boots"] = {"G0": plan["boots"]["G0"]}
                write_json(build / "arms" / arm / "plan.json", plan)
            shutil.rmtree(build / "arms/remove/boot")
            rep, md, _ = render(build)
        self.assertEqual(rep["generations"], {})
        self.assertIn("No generation boots in these arms.", md)
        self.assertIn("No rebuilt modules in these arms.", md)
        self.assertIn("| `asm-user` | compatible | `loaded` ✓ | `not-run` · no verdict |", md)


if __name__ == "__main__":
    unittest.main()
