"""One function per command: ``args -> exit code``."""

from __future__ import annotations

import argparse
import sys

from metaplan.algebra import invert
from metaplan.change import ChangeRecord
from metaplan.cli._bisect import bisect
from metaplan.cli._common import (
    Timer,
    checks_from,
    json_name,
    note,
    option_of,
    output,
    pipeline_from,
    print_stats,
    run_pipeline,
    say,
    settings_of,
    to_stdout,
)
from metaplan.cli._trace import trace
from metaplan.compare import compare
from metaplan.diff import diff
from metaplan.errors import InputError
from metaplan.jsonio import dumps_pretty
from metaplan.passes.registry import build_pipeline, format_passes, parse_passes
from metaplan.patch import to_json_patch
from metaplan.pipeline import replay
from metaplan.plan import dumps, load
from metaplan.records import dumps_records, load_records
from metaplan.report import format_diff, format_explain
from metaplan.verify import CHECKS, verification

__all__ = ["COMMANDS"]


def _normalize(args: argparse.Namespace) -> int:
    run = run_pipeline(args)
    if run is None:
        return 0
    plan, records = run.trace.final, run.trace.records
    text = run.timer.time("dump", lambda: dumps(plan))
    run.timer.time("write", lambda: output(
        args, text, {args.record: dumps_records(records)} if args.record else None))
    if args.output not in (None, "-") and not args.quiet:
        counts = ", ".join(f"{r.pass_name}: {len(r)}" for r in records)
        note(args, f"wrote {args.output} ({plan.content_hash}); changes: {counts}")
    print_stats(args, run)
    return 0


def _replay(args: argparse.Namespace) -> int:
    plan = load(args.plan)
    records = load_records(args.record)
    output(args, dumps(replay(plan, records)))
    return 0


def _invert(args: argparse.Namespace) -> int:
    records = load_records(args.record)
    output(args, dumps_records(invert(record) for record in reversed(records)))
    return 0


def _explain(args: argparse.Namespace) -> int:
    if args.print_pipeline:
        run_pipeline(args)
        return 0
    timer = Timer()
    plan = timer.time("load", lambda: load(args.plan))
    fqns = list(dict.fromkeys(args.fqns))  # each module once, in the order given
    missing = [fqn for fqn in fqns
               if fqn not in plan.param_plan and fqn not in plan.boundary_classes]
    if missing:
        raise InputError(f"{', '.join(missing)}: no such module in {args.plan} (neither in "
                         "param_plan nor in boundary_classes)", source=args.plan)
    run = run_pipeline(args, plan, timer)
    if run is None:
        return 0
    to_stdout(format_explain(run.trace, fqns))
    print_stats(args, run)
    return 0


def _record_text(record: ChangeRecord, style: str, header: tuple[str, str]) -> bytes:
    if style == "json":
        return dumps_records([record])
    if style in ("jsonpatch", "patch"):
        return dumps_pretty(to_json_patch(record))
    head = f"--- {header[0]}  {record.base}\n+++ {header[1]}  {record.result}\n"
    return (head + format_diff(record)).encode("utf-8", "surrogateescape")


def _diff(args: argparse.Namespace) -> int:
    names = None if args.passes is None else parse_passes(args.passes)
    a, b = load(args.a), load(args.b)
    labels = (args.a, args.b)
    if names is not None:
        line = build_pipeline(names)  # holds no plan: each side runs it on its own input
        a, b = line.run(a).final, line.run(b).final
        labels = (f"{args.a} after {format_passes(names)}", f"{args.b} after "
                  f"{format_passes(names)}")
    record = diff(a, b)
    output(args, _record_text(record, args.format, labels))
    return 0 if record.is_noop else 1


def _compare(args: argparse.Namespace) -> int:
    plan = load(args.plan)
    first, second = pipeline_from(args), pipeline_from(args, "against_")
    found = compare(plan, first, second)
    heading = f"A: {_settings(args, '')}\nB: {_settings(args, 'against_')}\n"
    if found.state is None or found.diff is None:
        to_stdout((heading + f"same: after every pass (A: {len(first)}, B: {len(second)}), "
                   f"ending at {found.a.final.content_hash}\n").encode())
        return 0
    where = f"after pass {found.state}: A ran {found.pass_a}, B ran {found.pass_b}"
    finals = diff(found.a.final, found.b.final)
    ending = ("the final plans are the same" if finals.is_noop
              else f"the final plans differ by {len(finals)} changes")
    text = heading + f"first difference {where}; {ending}\n"
    if args.format == "text":
        to_stdout(text.encode())
    else:
        print(text, end="", file=sys.stderr)
    to_stdout(_record_text(found.diff, args.format, ("A", "B")))
    return 1


def _settings(args: argparse.Namespace, prefix: str) -> str:
    """One pipeline's options, as the user gave them (B's falling back to A's)."""
    words = [option_of(args, "passes", prefix) or "normalize"]
    for option in ("specs", "rules", "model_type"):
        value = option_of(args, option, prefix)
        if value is not None:
            words.append(f"--{option.replace('_', '-')} {value}")
    return " ".join(words)


def _verify(args: argparse.Namespace) -> int:
    checks = checks_from(args)
    specs, rules, model_type = settings_of(args)
    found = verification(load(args.plan), checks, specs=specs, rules=rules,
                         model_type=model_type)
    violations, notes = found.violations, found.notes
    if args.format == "json":
        to_stdout(dumps_pretty({"plan": json_name(args.plan), "checks": list(found.checks),
                                "violations": [{"check": v.check, "path": list(v.path),
                                                "message": v.message} for v in violations],
                                "notes": [{"check": n.check, "path": list(n.path),
                                           "message": n.message} for n in notes]}))
    elif violations:
        counts = {name: sum(v.check == name for v in violations) for name in CHECKS}
        summary = ", ".join(f"{name}: {n}" for name, n in counts.items() if n)
        say(f"{args.plan}: {len(violations)} violation(s) ({summary})",
            *(f"  {v}" for v in violations), *(f"  {n}" for n in notes))
    else:
        say(f"{args.plan}: ok ({', '.join(found.checks)})", *(f"  {n}" for n in notes))
    return 1 if violations else 0


def _hash(args: argparse.Namespace) -> int:
    for path in args.plans:
        say(f"{load(path).content_hash}  {path}")
    return 0


COMMANDS = {
    "normalize": _normalize, "trace": trace, "replay": _replay, "invert": _invert,
    "explain": _explain, "diff": _diff, "compare": _compare, "bisect": bisect,
    "verify": _verify, "hash": _hash,
}
"""Command name -> its function."""
