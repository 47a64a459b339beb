# SPDX-License-Identifier: GPL-2.0
"""Command line of compare: `report` writes build/report/ (json, md, html), `parse LOG` reads one console log offline, `robust` judges the robustness corpus, `bases` puts the bases' reports side by side."""
import argparse
import sys

from core import classify, ktap

from . import bases, doc, report, robust
from .sections import robustness


def cmd_report(args):
    only = args.arms.split(",") if args.arms else None
    rep, jpath, mpath, hpath = report.write(args.build, only)
    n = len(rep["cases"])
    print(f"compare: wrote {jpath}, {mpath} and {hpath} ({len(rep['arms'])} arms, {n} cases)")
    for lab, v in rep["verdicts"].items():
        bad = [f"{v[k]} {k}" for k in ("unsafe-load", "needless-refusal", "lab-error") if v.get(k)]
        print(f"  {lab}: " + (", ".join(bad) if bad else "no wrong verdicts"))
    return 0


def _fmt(v):
    return "-" if v is None else str(v)


def cmd_parse(args):
    try:
        lines = ktap.read_log(args.log)
    except OSError as e:
        raise report.InputError(f"{args.log}: {e.strerror or e}") from None
    run = ktap.parse(lines, boot_status=args.boot_status)
    numbers = sorted(set(run.attempts) | set(range(1, (run.planned or 0) + 1)))
    for n in numbers:
        att = run.attempts.get(n)
        outcome, reason, where, _ = classify.judge(run, att)
        res = att and att.result
        name = att.name if att else "?"
        if res:
            taint = _fmt(res.kv.get("taint"))
            letters = classify.decode_taint(res.taint)
            taint += f"({letters})" if letters else ""
            fields = [res.token, res.errno, taint, _fmt(res.ns)]
        else:
            fields = ["-", "-", "-", "-"]
        tail = f"  # {'line %d: ' % where if where else ''}{reason}" if reason else ""
        print(f"{n} {name} " + " ".join(fields) + f" {outcome}{tail}")
    for p in run.problems:
        print(f"problem: {p}")
    print(f"status: {run.status.value} ({run.detail})")
    return 0 if run.status is ktap.Status.OK else 1


def cmd_robust(args):
    """The robustness section on stdout; exit 1 on an oops, an unhealthy
    kernel or an outcome other than declared (one line each on stderr)."""
    cases = report.collect(args.build)["cases"]
    rob = robust.robustness(c for c in cases if not args.arm or c["arm"] in args.arm)
    if args.unfinished:
        bad = robust.unfinished_problems(rob, robust.read_unfinished(args.build, args.arm or []))
        for line in bad:
            print(f"modvlab: error: {line}", file=sys.stderr)
        return 1 if bad else 0
    print(doc.md(robustness.blocks(rob, {})), end="")
    if args.json:
        robust.save(rob, args.build, args.json)
    bad = robust.failures(rob)
    for line in bad:
        print(f"robust: {line}", file=sys.stderr)
    if not rob:
        print("robust: no robustness cases in the plans (PLANS=robust)", file=sys.stderr)
        return 1
    return 1 if bad else 0


def cmd_bases(args):
    try:
        reps, missing, paths = bases.render(args.top, args.base or None, args.out)
    except FileNotFoundError as e:
        print(f"compare: error: {e}", file=sys.stderr)
        return 1
    print(f"compare: wrote {', '.join(paths)} ({', '.join(reps)})")
    for b, why in missing:
        print(f"  {b}: not reported: {why}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="compare", description=__doc__.split(":", 1)[1].strip())
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    p = sub.add_parser("report", help="write BUILD/report/report.json, report.md and report.html")
    p.add_argument("--build", default="build", metavar="DIR",
                   help="the build directory holding arms/ (default: ./build)")
    p.add_argument("--arms", metavar="A,B", help="report only these arms (default: every arm that ran)")
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("parse", help="parse one console log and print its cases; "
                       "exit 1 unless the run is complete")
    p.add_argument("log", metavar="LOG", help="a guest console log (arms/<arm>/boot/<boot>.log)")
    p.add_argument("--boot-status", choices=["exited", "halted", "timeout", "qemu-error", "unfinished"],
                   help="the runner's status of that boot (tells a timeout from a crash)")
    p.set_defaults(func=cmd_parse)
    p = sub.add_parser("robust", help="print the robustness section of the robust cases; "
                       "exit 1 on a kernel bug report, a failed health check or a surprise")
    p.add_argument("--build", default="build", metavar="DIR")
    p.add_argument("--arm", action="append", help="only these arms (repeatable)")
    p.add_argument("--json", metavar="PATH",
                   help="also save the results (make robust: build/robust.json, which "
                        "make compare's report shows when it ran no corpus itself)")
    p.add_argument("--unfinished", action="store_true",
                   help="only judge the boots of --arm that did not finish (make compare): "
                        "exit 1 unless each stopped on a crash robust.tsv declares")
    p.set_defaults(func=cmd_robust)
    p = sub.add_parser("bases", help="the bases side by side from each base's report "
                       "(build/BASE/report/report.json): build/bases/bases.{json,md,html}")
    p.add_argument("--top", default=".", metavar="DIR", help="the lab's top folder (default: .)")
    p.add_argument("--out", metavar="DIR", help="where to write (default: TOP/build/bases)")
    p.add_argument("base", nargs="*", help="these bases (default: every line of lab/bases.tsv)")
    p.set_defaults(func=cmd_bases)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except report.InputError as e:
        print(f"compare: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
