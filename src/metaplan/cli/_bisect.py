"""``metaplan bisect``: the first state of a run where a condition holds.

The condition is a verify failure, a value at a path (changed, or equal to
``--value``), a content hash, or equality with another plan.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from metaplan.cli._common import (
    Settings,
    checks_from,
    print_stats,
    run_pipeline,
    say,
    settings_of,
)
from metaplan.errors import InputError
from metaplan.frozen import freeze_owned, json_equal, shorten
from metaplan.jsonio import parse_json
from metaplan.plan import Plan, load
from metaplan.verify import verifier

__all__ = ["bisect"]


def _bisect_predicate(args: argparse.Namespace, start: Plan,
                      settings: Settings) -> tuple[str, Any]:
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
    check = verifier(checks_from(args), specs=settings.specs, rules=settings.rules,
                     model_type=settings.model_type)
    return "the first state that fails verification", check


_GONE: Any = object()


def _shown(value: Any) -> str:
    return "(absent)" if value is _GONE else shorten(value)


def _same(a: Any, b: Any) -> bool:
    return (a is _GONE) == (b is _GONE) and (a is _GONE or json_equal(a, b))


def _path(text: str) -> tuple[str, ...]:
    """``param_plan/model.layers.3.mlp/is_boundary`` or a JSON Pointer (``/`` first)."""
    if text.startswith("/"):  # RFC 6901: an empty step is the key ""
        return tuple(part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/"))
    parts = tuple(text.split("/"))
    if not all(parts):
        raise InputError(f"--path {text}: an empty step; write field/FQN/key, e.g. "
                         "param_plan/model.layers.3.mlp/is_boundary (or a JSON Pointer, "
                         "/param_plan/model.layers.3.mlp/is_boundary, for empty keys)",
                         source="--path")
    return parts


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


def bisect(args: argparse.Namespace) -> int:
    """``metaplan bisect``: the first state of a run where the asked-for condition holds."""
    if args.value is not None and not args.path:
        raise InputError("--value: give the --path whose value to find", source="--value")
    path = _path(args.path) if args.path else None
    checks_from(args)  # a bad --checks fails before the run, not after it
    run = run_pipeline(args)
    if run is None:
        return 0
    what, predicate = _bisect_predicate(args, run.plan, settings_of(args))
    trace = run.trace
    print_stats(args, run)
    for index, state in enumerate(trace.states):
        verdict = predicate(state)
        if not verdict:
            continue
        after = "the input" if index == 0 else f"after pass {index} ({trace.pass_of(index)})"
        say(f"found {what}: state {index}, {after}")
        if isinstance(verdict, (tuple, list)):
            say(*(f"  {violation}" for violation in verdict))
        elif path is not None and index:
            say(f"  before: {_shown(_at(trace.states[index - 1], path))}",
                f"  after:  {_shown(_at(state, path))}")
        return 0
    absent = path is not None and all(_at(state, path) is _GONE for state in trace.states)
    passes = ",".join(trace.passes) or "(no passes)"
    say(f"not found: {what}; searched {len(trace.states)} states ({passes})"
        + (f"; {args.path} is absent from every state" if absent else ""))
    return 1
