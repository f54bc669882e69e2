"""Text for people: a record grouped by module, a module's history, per-pass stats.

>>> from metaplan.plan import Plan
>>> from metaplan.diff import diff
>>> a = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "params": {"w.x": 1}}},
...                     "boundary_classes": {"m": "MLP"}, "model_type": "x"})
>>> b = Plan.from_json({"param_plan": {"m": {"is_boundary": False, "params": {"w.x": 2}}},
...                     "boundary_classes": {}, "model_type": "y"})
>>> print(format_diff(diff(a, b)), end="")
4 changes: 1 top-level field, 1 module (3 changes)
(top level)
  ~ model_type: "x" -> "y"
m
  ~ is_boundary: true -> false
  ~ params["w.x"]: 1 -> 2
  - class: "MLP"
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from metaplan.change import Change, ChangeRecord
from metaplan.errors import key_path
from metaplan.frozen import shorten
from metaplan.pipeline import Trace

__all__ = [
    "change_line",
    "format_diff",
    "format_explain",
    "format_stats",
    "natural_key",
]

_FQN_MAPS = ("param_plan", "boundary_classes")
_TOP = "(top level)"
_NUMBERS = re.compile(r"([0-9]+)")
_DIGITS = frozenset("0123456789")


def _where(change: Change) -> tuple[str, str]:
    """``(group, label)``: the module (or top level) a change is about, and what in it."""
    path = change.path
    if len(path) >= 2 and path[0] in _FQN_MAPS:
        fqn = str(path[1])
        if path[0] == "boundary_classes":
            return fqn, "class"
        return fqn, key_path(path[2:]) or "entry"
    return _TOP, key_path(path)


def change_line(change: Change, label: str | None = None) -> str:
    """``~ label: old -> new`` (``+`` for an add, ``-`` for a removal)."""
    label = label if label is not None else "/".join(map(str, change.path))
    if change.op == "add":
        return f"+ {label}: {shorten(change.new)}"
    if change.op == "remove":
        return f"- {label}: {shorten(change.old)}"
    return f"~ {label}: {shorten(change.old)} -> {shorten(change.new)}"


def natural_key(fqn: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key that puts ``layers.2`` before ``layers.10``.

    A run of digits sorts by its value (its length without leading zeros,
    then its text), so a run of any length works (``int()`` refuses 4,300+
    digits).

    >>> sorted(["m.layers.10", "m.layers.2", "m.norm"], key=natural_key)
    ['m.layers.2', 'm.layers.10', 'm.norm']
    >>> sorted(["m.layers." + "9" * 5000, "m.layers.10"], key=natural_key)[0]
    'm.layers.10'
    """
    return tuple((0, len(part.lstrip("0")), part) if part[0] in _DIGITS else (1, 0, part)
                 for part in _NUMBERS.split(fqn) if part)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def format_diff(record: ChangeRecord, *, limit: int | None = None) -> str:
    """The record as text: top-level fields first, then one group per module, by FQN.

    ``limit`` caps the modules shown (the summary line still counts them all).
    """
    groups: dict[str, list[str]] = {}
    for change in sorted(record.changes, key=lambda c: c.path[0] == "boundary_classes"):
        group, label = _where(change)
        groups.setdefault(group, []).append(change_line(change, label))
    top = groups.pop(_TOP, [])
    in_modules = sum(map(len, groups.values()))
    lines = [f"{_plural(len(record), 'change')}: {_plural(len(top), 'top-level field')}, "
             f"{_plural(len(groups), 'module')} ({_plural(in_modules, 'change')})"]
    if top:
        lines += [_TOP, *(f"  {line}" for line in top)]
    fqns = sorted(groups, key=natural_key)
    for fqn in fqns if limit is None else fqns[:limit]:
        lines += [fqn or '""', *(f"  {line}" for line in groups[fqn])]
    if limit is not None and len(fqns) > limit:
        lines.append(f"... and {_plural(len(fqns) - limit, 'more module')}")
    return "\n".join(lines) + "\n"


def format_explain(trace: Trace, fqns: Iterable[str]) -> str:
    """Every change to each module's entry and class, in pipeline order, with its why."""
    lines = []
    for fqn in fqns:
        found = trace.explain_module(fqn)
        lines.append(fqn if found else f"{fqn}: no pass changes it")
        for step, (pass_name, change) in enumerate(found, 1):
            _, label = _where(change)
            lines.append(f"  {step}. {pass_name}: {change_line(change, label)}")
            lines.append(f"     why: {change.why}")
    return "\n".join(lines) + "\n"


def format_stats(trace: Trace, extra: Sequence[tuple[str, float]] = ()) -> str:
    """Per pass: changes, modules touched and wall time; ``extra`` adds timed steps."""
    rows = [("pass", "changes", "modules", "ms")]
    for name, record, seconds in zip(trace.passes, trace.records, trace.seconds, strict=False):
        modules = len({change.path[1] for change in record.changes
                       if len(change.path) >= 2 and change.path[0] in _FQN_MAPS})
        rows.append((name, str(len(record)), str(modules), f"{seconds * 1e3:.1f}"))
    steps: dict[str, float] = {}
    for name, seconds in extra:  # several dumps are one row
        steps[name] = steps.get(name, 0.0) + seconds
    rows += [(name, "", "", f"{seconds * 1e3:.1f}") for name, seconds in steps.items()]
    total = sum(trace.seconds) + sum(seconds for _, seconds in extra)
    rows.append(("total", str(sum(map(len, trace.records))), "", f"{total * 1e3:.1f}"))
    width = max(len(row[0]) for row in rows)
    return "".join(f"{row[0]:<{width}}  {row[1]:>8}  {row[2]:>8}  {row[3]:>8}\n"
                   for row in rows)
