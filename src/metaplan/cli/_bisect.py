"""``metaplan bisect``: the first state of a run where a condition holds.

The condition is a verify failure, a value at a path (changed, or equal to
``--value``), a content hash, or equality with another plan.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from metaplan.cli._common import checks_from, print_stats, run_pipeline, settings_of
from metaplan.cli._io import json_name, say_json, to_stdout
from metaplan.core.invariants import verifier
from metaplan.core.plan import Plan, load
from metaplan.errors import InputError, parse_path
from metaplan.files.jsonio import parse_json
from metaplan.frozen import MISSING, freeze_owned, json_equal, shown, thaw
from metaplan.passes.registry import Settings

__all__ = ["bisect", "json_value"]

_PYTHON_CONSTANTS = {"True": "true", "False": "false", "None": "null"}
_HASH = re.compile(r"(sha256:)?[0-9a-f]{1,64}")


def json_value(text: str, option: str) -> Any:
    """The JSON value an option was given, or an :class:`InputError` saying what JSON looks like.

    >>> json_value('{"a": [1, false]}', "--value")
    {'a': [1, False]}
    >>> try:
    ...     json_value("False", "--value")
    ... except InputError as exc:
    ...     print(str(exc).replace("; ", ";\\n"))
    --value: not valid JSON (Expecting value at column 1): 'False';
    write false, not False;
    a string goes in quotes: '"x"'
    """
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        word = text.strip()
        hint = f"write {_PYTHON_CONSTANTS[word]}, not {word}; " if word in _PYTHON_CONSTANTS \
            else ""
        raise InputError(f"{option}: not valid JSON ({exc.msg} at column {exc.colno}): "
                         f"{text!r}; {hint}a string goes in quotes: '\"x\"'",
                         source=option) from exc
    except RecursionError:
        pass  # parse_json says how deep a value may be
    return parse_json(text, source=option)


def _check_hash(text: str) -> None:
    """Refuse a ``--hash`` that no content hash can start with."""
    if not _HASH.fullmatch(text):
        raise InputError(f"--hash: expected a content hash or a prefix of one (hex digits "
                         f"0-9a-f, sha256: optional), got {text!r}", source="--hash")


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
            value = freeze_owned(json_value(args.value, "--value"))
            return (f"the first state where {args.path} is {args.value}",
                    lambda p: _same(p.at(path), value))
        first = start.at(path)
        return (f"the first state where {args.path} differs from the input's",
                lambda p: not _same(p.at(path), first))
    check = verifier(checks_from(args), specs=settings.specs, rules=settings.rules,
                     model_type=settings.model_type)
    return "the first state that fails verification", check


def _json(value: Any) -> Any:
    return None if value is MISSING else thaw(value)


def _same(a: Any, b: Any) -> bool:
    return (a is MISSING) == (b is MISSING) and (a is MISSING or json_equal(a, b))


def bisect(args: argparse.Namespace) -> int:
    """``metaplan bisect``: the first state of a run where the asked-for condition holds."""
    if args.value is not None and not args.path:
        raise InputError("--value: give the --path whose value to find", source="--value")
    path = parse_path(args.path) if args.path else None
    checks_from(args)  # a bad --checks, --value or --hash fails before the run, not after it
    if args.value is not None:
        json_value(args.value, "--value")
    if args.hash:
        _check_hash(args.hash)
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
            lines += [f"  before: {shown(before)}", f"  after:  {shown(now)}"]
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
        say_json(report)
    else:
        to_stdout("".join(f"{line}\n" for line in lines))
    return 0 if report["found"] else 1
