"""``metaplan bisect``: the first state of a run where a condition holds.

The condition is a verify failure, a value at a path (changed, or equal to
``--value``), a content hash, or equality with another plan.
"""

from __future__ import annotations

import argparse
from typing import Any

from metaplan.cli._common import Settings, checks_from, print_stats, run_pipeline, settings_of
from metaplan.cli._io import json_name, to_stdout
from metaplan.errors import InputError, parse_path
from metaplan.frozen import MISSING, freeze_owned, json_equal, shorten, thaw
from metaplan.jsonio import dumps_pretty, parse_json
from metaplan.plan import Plan, load
from metaplan.verify import verifier

__all__ = ["bisect"]


def _bisect_predicate(args: argparse.Namespace, start: Plan,
                      settings: Settings) -> tuple[str, Any]:
    """What the states are searched for, and a ``plan -> bool`` (or violations) test."""
    if args.hash:
        wanted = args.hash if args.hash.startswith("sha256:") else f"sha256:{args.hash}"
        return (f"the state with hash {args.hash}",  # a prefix of one, as git takes them
                lambda p: p.content_hash.startswith(wanted))
    if args.matches:
        target = load(args.matches)
        return f"the state equal to {args.matches}", lambda p: p == target
    if args.path:
        path = parse_path(args.path)
        if args.value is not None:
            value = freeze_owned(parse_json(args.value, source="--value"))
            return (f"the first state where {args.path} is {args.value}",
                    lambda p: _same(p.at(path), value))
        first = start.at(path)
        return (f"the first state where {args.path} differs from the input's",
                lambda p: not _same(p.at(path), first))
    check = verifier(checks_from(args), specs=settings.specs, rules=settings.rules,
                     model_type=settings.model_type)
    return "the first state that fails verification", check


def _shown(value: Any) -> str:
    return "(absent)" if value is MISSING else shorten(value)


def _json(value: Any) -> Any:
    return None if value is MISSING else thaw(value)


def _same(a: Any, b: Any) -> bool:
    return (a is MISSING) == (b is MISSING) and (a is MISSING or json_equal(a, b))


def bisect(args: argparse.Namespace) -> int:
    """``metaplan bisect``: the first state of a run where the asked-for condition holds."""
    if args.value is not None and not args.path:
        raise InputError("--value: give the --path whose value to find", source="--value")
    path = parse_path(args.path) if args.path else None
    checks_from(args)  # a bad --checks fails before the run, not after it
    run = run_pipeline(args)
    if run is None:
        return 0
    what, predicate = _bisect_predicate(args, run.plan, settings_of(args))
    trace = run.trace
    print_stats(args, run)
    report: dict[str, Any] = {"plan": json_name(args.plan), "looked_for": what,
                              "passes": list(trace.passes), "found": False}
    lines: list[str] = []
    for index, state in enumerate(trace.states):
        verdict = predicate(state)
        if not verdict:
            continue
        after = "the input" if index == 0 else f"after pass {index} ({trace.pass_of(index)})"
        lines.append(f"found {what}: state {index}, {after}")
        report.update(found=True, state=index, after_pass=None if index == 0
                      else trace.pass_of(index))
        if isinstance(verdict, (tuple, list)):
            lines += [f"  {violation}" for violation in verdict]
            report["violations"] = [{"check": v.check, "path": list(v.path),
                                     "message": v.message} for v in verdict]
        elif path is not None and index:
            before, now = trace.states[index - 1].at(path), state.at(path)
            lines += [f"  before: {_shown(before)}", f"  after:  {_shown(now)}"]
            report.update(before=_json(before), after=_json(now), absent_before=before is MISSING,
                          absent_after=now is MISSING)
        break
    else:
        absent = path is not None and all(s.at(path) is MISSING for s in trace.states)
        passes = ",".join(trace.passes) or "(no passes)"
        lines.append(f"not found: {what}; searched {len(trace.states)} states ({passes})"
                     + (f"; {args.path} is absent from every state" if absent else ""))
        report.update(states=len(trace.states), absent_everywhere=absent)
    if getattr(args, "format", "text") == "json":
        to_stdout(dumps_pretty(report))
    else:
        to_stdout("".join(f"{line}\n" for line in lines))
    return 0 if report["found"] else 1
