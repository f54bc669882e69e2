"""One function per command: ``args -> exit code``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from metaplan.changes import ChangeRecord, dumps_records, invert, load_records, to_json_patch
from metaplan.cli._common import (
    Timer,
    note,
    output,
    pipeline_from,
    print_stats,
    run_pipeline,
    to_stdout,
)
from metaplan.compare import compare
from metaplan.diff import diff
from metaplan.errors import InputError
from metaplan.frozen import freeze_owned, json_equal
from metaplan.jsonio import dumps_pretty, parse_json, write_many_atomic
from metaplan.pipeline import Trace, replay
from metaplan.plan import Plan, dumps, load
from metaplan.report import format_diff, format_explain, short
from metaplan.verify import CHECKS, verify

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


def _slug(name: str) -> str:
    return name.replace("_", "-").replace("/", "-").replace(" ", "-")


def _trace(args: argparse.Namespace) -> int:
    run = run_pipeline(args)
    if run is None:
        return 0
    folder = args.out
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(f"{folder}: --out must be a folder; this is a file", source=folder)
    stale = _previous_trace_files(folder)
    files: dict[str, bytes] = {}
    manifest: list[dict[str, Any]] = []
    trace = run.trace
    for index, state in enumerate(trace.states):
        stem = f"{index:03d}-" + ("input" if index == 0 else _slug(trace.passes[index - 1]))
        files[os.path.join(folder, stem + ".json")] = run.timer.time("dump", partial(dumps, state))
        item: dict[str, Any] = {"index": index, "pass": trace.pass_of(index),
                                "plan": stem + ".json", "hash": state.content_hash}
        if index:
            record = trace.records[index - 1]
            files[os.path.join(folder, stem + ".record.json")] = dumps_records([record])
            item.update(record=stem + ".record.json", changes=len(record))
        manifest.append(item)
    files[os.path.join(folder, "trace.json")] = dumps_pretty({
        "pipeline": run.pipeline.name, "source": args.plan, "states": manifest})
    os.makedirs(folder, exist_ok=True)
    run.timer.time("write", lambda: write_many_atomic(files))
    for path in stale - {os.path.basename(p) for p in files}:
        os.unlink(os.path.join(folder, path))
    for item in manifest:
        changes = f"  {item['changes']} changes" if "changes" in item else ""
        print(f"{os.path.join(folder, item['plan'])}  {item['hash']}{changes}")
    print_stats(args, run)
    return 0


def _previous_trace_files(folder: str) -> set[str]:
    """The files an earlier trace wrote into ``folder`` (to replace); refuse other content."""
    if not os.path.isdir(folder):
        return set()
    present = set(os.listdir(folder))
    if not present:
        return set()
    manifest = os.path.join(folder, "trace.json")
    if "trace.json" not in present:
        raise InputError(f"{folder}: --out folder is not empty and holds no earlier trace "
                         "(trace.json); give an empty or new folder", source=folder)
    try:
        states = orjson.loads(Path(manifest).read_bytes())["states"]
        listed = {name for item in states for name in (item.get("plan"), item.get("record"))
                  if isinstance(name, str) and os.path.basename(name) == name}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{manifest}: not a trace manifest ({exc}); give an empty or new "
                         "folder", source=manifest) from exc
    return listed & present


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
    timer = Timer()
    plan = timer.time("load", lambda: load(args.plan))
    missing = [fqn for fqn in args.fqns
               if fqn not in plan.param_plan and fqn not in plan.boundary_classes]
    if missing:
        raise InputError(f"{', '.join(missing)}: no such module in {args.plan} (neither in "
                         "param_plan nor in boundary_classes)", source=args.plan)
    run = run_pipeline(args, plan, timer)
    if run is None:
        return 0
    to_stdout(format_explain(run.trace, args.fqns).encode())
    print_stats(args, run)
    return 0


def _record_text(record: ChangeRecord, style: str, header: tuple[str, str]) -> bytes:
    if style == "json":
        return dumps_records([record])
    if style in ("jsonpatch", "patch"):
        return dumps_pretty(to_json_patch(record))
    head = f"--- {header[0]}  {record.base}\n+++ {header[1]}  {record.result}\n"
    return (head + format_diff(record)).encode()


def _diff(args: argparse.Namespace) -> int:
    record = diff(load(args.a), load(args.b))
    output(args, _record_text(record, args.format, (args.a, args.b)))
    return 0 if record.is_noop else 1


def _compare(args: argparse.Namespace) -> int:
    plan = load(args.plan)
    first, second = pipeline_from(args, plan), pipeline_from(args, plan, "against_")
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
    """One pipeline's options, as the user gave them."""
    words = [getattr(args, f"{prefix}passes") or "normalize"]
    for option in ("specs", "rules", "model_type"):
        value = getattr(args, f"{prefix}{option}")
        if value is not None:
            words.append(f"--{option.replace('_', '-')} {value}")
    return " ".join(words)


def _passes(trace: Trace) -> str:
    return ",".join(trace.passes) or "(no passes)"


def _bisect_predicate(args: argparse.Namespace, start: Plan) -> tuple[str, Any]:
    """What the states are searched for, and a ``plan -> bool`` (or violations) test."""
    if args.hash:
        return f"the state with hash {args.hash}", lambda p: p.content_hash == args.hash
    if args.matches:
        target = load(args.matches)
        return f"the state equal to {args.matches}", lambda p: p == target
    if args.path:
        path = _path(args.path)
        if args.value is not None:
            value = freeze_owned(parse_json(args.value, source="--value"))
            return (f"the first state where {args.path} is {args.value}",
                    lambda p: _same(_at(p, path), value))
        first = _at(start, path)
        return (f"the first state where {args.path} differs from the input's",
                lambda p: not _same(_at(p, path), first))
    checks = args.checks.split(",") if args.checks else None
    return "the first state that fails verification", lambda p: verify(p, checks)


_GONE: Any = object()


def _shown(value: Any) -> str:
    return "(absent)" if value is _GONE else short(value)


def _same(a: Any, b: Any) -> bool:
    return (a is _GONE) == (b is _GONE) and (a is _GONE or json_equal(a, b))


def _path(text: str) -> tuple[str, ...]:
    """``param_plan/model.layers.3.mlp/is_boundary`` or a JSON Pointer (``/`` first)."""
    parts = text[1:].split("/") if text.startswith("/") else text.split("/")
    parts = [part.replace("~1", "/").replace("~0", "~") for part in parts]
    if not all(parts):
        raise InputError(f"--path {text}: an empty step; write field/FQN/key, e.g. "
                         "param_plan/model.layers.3.mlp/is_boundary", source="--path")
    return tuple(parts)


def _at(plan: Plan, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in ``plan``, or ``_GONE``."""
    value: Any = plan.fields
    for key in path:
        if hasattr(value, "get"):
            value = value.get(key, _GONE)
        elif isinstance(value, Sequence) and not isinstance(value, str) and key.isdigit() \
                and int(key) < len(value):
            value = value[int(key)]
        else:
            return _GONE
        if value is _GONE:
            return _GONE
    return value


def _bisect(args: argparse.Namespace) -> int:
    run = run_pipeline(args)
    if run is None:
        return 0
    what, predicate = _bisect_predicate(args, run.plan)
    trace = run.trace
    for index, state in enumerate(trace.states):
        verdict = predicate(state)
        if verdict:
            after = "the input" if index == 0 else f"after pass {index} ({trace.pass_of(index)})"
            print(f"found {what}: state {index}, {after}")
            if isinstance(verdict, (tuple, list)):
                print("\n".join(f"  {violation}" for violation in verdict))
            elif args.path and index:
                path = _path(args.path)
                print(f"  before: {_shown(_at(trace.states[index - 1], path))}\n"
                      f"  after:  {_shown(_at(state, path))}")
            return 0
    print(f"not found: {what}; searched {len(trace.states)} states "
          f"({_passes(trace)})")
    return 1


def _verify(args: argparse.Namespace) -> int:
    checks = args.checks.split(",") if args.checks else None
    violations = verify(load(args.plan), checks)
    if args.format == "json":
        text = dumps_pretty({"plan": args.plan, "violations": [
            {"check": v.check, "path": list(v.path), "message": v.message}
            for v in violations]})
        to_stdout(text)
    elif violations:
        counts = {name: sum(v.check == name for v in violations) for name in CHECKS}
        summary = ", ".join(f"{name}: {n}" for name, n in counts.items() if n)
        to_stdout((f"{args.plan}: {len(violations)} violation(s) ({summary})\n"
                   + "".join(f"  {v}\n" for v in violations)).encode())
    else:
        print(f"{args.plan}: ok ({', '.join(checks or CHECKS)})")
    return 1 if violations else 0


def _hash(args: argparse.Namespace) -> int:
    for path in args.plans:
        print(f"{load(path).content_hash}  {path}")
    return 0


COMMANDS = {
    "normalize": _normalize, "trace": _trace, "replay": _replay, "invert": _invert,
    "explain": _explain, "diff": _diff, "compare": _compare, "bisect": _bisect,
    "verify": _verify, "hash": _hash,
}
"""Command name -> its function."""
