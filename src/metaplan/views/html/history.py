"""Per-module histories of a run: every pass that touched a module, old -> new, and why;
modules with the same history folded into one brace pattern.

>>> from metaplan.records.change import Change, ChangeRecord
>>> from metaplan.passes.trace import Trace
>>> from metaplan.core.plan import Plan
>>> plan = Plan.from_json({"param_plan": {}})
>>> record = ChangeRecord("strip", plan, plan, [
...     Change("set", ("param_plan", f"m.{i}", "is_boundary"), True, False, f"rule {i}")
...     for i in range(3)])
>>> (found,) = history_groups(Trace.start(plan).then("strip", plan, record))
>>> found.pattern, found.steps[0].text, found.steps[0].why
('m.{0..2}', '~ is_boundary: true -> false', 'rule {0..2}')
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from metaplan.algorithms.braces import fold, natural_key
from metaplan.passes.trace import Trace
from metaplan.paths import FQN_MAPS, key_path
from metaplan.records.change import Change
from metaplan.versions.folding import value_key
from metaplan.views.text import change_line

__all__ = ["History", "Step", "history_groups"]


class Step(NamedTuple):
    """One change in a history: the pass, the change as text, why (folded over modules)."""

    pass_name: str
    text: str
    why: str


class History(NamedTuple):
    """Modules that went through the same changes: their pattern, names and steps."""

    pattern: str
    names: tuple[str, ...]
    steps: tuple[Step, ...]


def _label(change: Change) -> str:
    return "class" if change.path[0] == "boundary_classes" else key_path(change.path[2:]) or "entry"


def _reasons(whys: set[str]) -> str:
    return fold(sorted(whys)) if whys else ""  # changes may carry no why (a diff's do not)


def history_groups(trace: Trace) -> list[History]:
    """Every module a pass of ``trace`` changed, grouped by its history, in natural order."""
    seen: dict[str, list[tuple[str, Change, int]]] = {}
    for number, record in enumerate(trace.records):
        for change in record.changes:
            path = change.path
            if len(path) >= 2 and path[0] in FQN_MAPS:
                seen.setdefault(str(path[1]), []).append((record.pass_name, change, number))
    alike: dict[tuple[Hashable, ...], list[str]] = {}
    for fqn, steps in seen.items():
        # in pass order; in a pass, the entry's changes before the class's, as explain lists
        steps.sort(key=lambda step: (step[2], step[1].path[0] == "boundary_classes"))
        signature = tuple((name, c.path[0], c.path[2:], c.op, value_key(c.old),
                           value_key(c.new)) for name, c, _ in steps)
        alike.setdefault(signature, []).append(fqn)
    found = []
    for names in alike.values():
        ordered = tuple(sorted(names, key=natural_key))
        first = seen[ordered[0]]
        told = tuple(
            Step(name, change_line(change, _label(change)),
                 _reasons({seen[fqn][i][1].why for fqn in ordered} - {""}))
            for i, (name, change, _) in enumerate(first))
        found.append(History(fold(ordered), ordered, told))
    found.sort(key=lambda history: natural_key(history.names[0]))
    return found
