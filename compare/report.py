# SPDX-License-Identifier: GPL-2.0
"""Build build/report/report.json, report.md and report.html from the arms' plans, boot logs and build facts.

Inputs (written by lab/): build/arms/<arm>/plan.json, boot/<boot>.log and
boot/<boot>.json, build.json, build-clean.json, sizes.json; build/provenance.json;
and the generations' declaration, workload/gens/gens.tsv. Only what the inputs
say is reported; a fact that is missing is null (and "–" in report.md and
report.html). The rooms: compare/load.py reads and validates the inputs,
compare/model.py builds report.json's dict, compare/sections/ renders it.
"""
import json
import os
import pathlib

from . import model, sections
from .load import InputError  # noqa: F401  (the error every caller catches)
from .sections import render_html, render_md  # noqa: F401


def collect(build, only=None):
    """The report.json dict for a build directory (only: these arms)."""
    report = model.collect(build, only)
    sections.load_all(pathlib.Path(build), report)
    return report


def _write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write(build, only=None):
    """Collect and write DIR/report/report.json, report.md and report.html.

    Returns (report, json path, md path, html path)."""
    report = collect(build, only)
    outdir = pathlib.Path(build) / "report"
    md, page = render_md(report), render_html(report)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        jpath, mpath, hpath = outdir / "report.json", outdir / "report.md", outdir / "report.html"
        _write(jpath, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        _write(mpath, md)
        _write(hpath, page)
    except OSError as e:
        raise InputError(f"cannot write {outdir}: {e}") from None
    return report, jpath, mpath, hpath
