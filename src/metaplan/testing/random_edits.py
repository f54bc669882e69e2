"""Random edits for the state machine: drawn as recipes, resolved on a plain-dict model.

A recipe is drawn without looking at any plan (so it shrinks well); resolved
on a model it becomes concrete :class:`Step`\\ s, each made on the model by
hand (:func:`apply_step`) and on the plan by a pass (:func:`steps_pass`).
:func:`apply_change` makes a record's change on a model by hand, checking
its old value, so a record can be compared with what a model says.

>>> model = {"param_plan": {"m": {"is_boundary": True}}, "boundary_classes": {}}
>>> steps = resolve(model, [("set", 0, "is_boundary", 1)])
>>> steps
(Step(op='set', path=('param_plan', 'm', 'is_boundary'), value=False),)
>>> from metaplan.core.plan import Plan
>>> plan = steps_pass(steps)(Plan.from_json(model)).plan
>>> for step in steps:
...     apply_step(model, step)
>>> plan.to_json() == model
True
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any, NamedTuple

from hypothesis import strategies as st

from metaplan.frozen import MISSING, thaw
from metaplan.passes.chaining import Pass, edit_pass
from metaplan.paths import FQN_MAPS
from metaplan.records.change import Change, Path
from metaplan.records.edit import Edit
from metaplan.testing.strategies import CLASSES

__all__ = ["RECIPES", "Step", "apply_change", "apply_step", "resolve", "scope", "steps_pass"]

_KINDS = ("set", "set", "remove", "entry", "drop", "class", "unclass", "external", "note")
_KEYS = ("is_boundary", "skip_source_lowering", "params", "x_note")
_VALUES: tuple[Any, ...] = (True, False, 0, 1, 2.5, "R", "S(0)", "", None, {"tp": "R"}, ["w"],
                            {})
_ENTRIES: tuple[Any, ...] = ({}, {"is_boundary": True}, {"is_boundary": False}, None, "opaque")

RECIPES = st.lists(st.tuples(st.sampled_from(_KINDS), st.integers(0, 1 << 12),
                             st.sampled_from(_KEYS), st.integers(0, len(_VALUES) - 1)),
                   min_size=1, max_size=3)
"""Edit recipes: ``(kind, pick, key, value number)``, resolved by :func:`resolve`."""


class Step(NamedTuple):
    """One edit: ``set`` a value at ``path``, ``remove`` it, or ``insert`` it into an array."""

    op: str
    path: Path
    value: Any = None


def resolve(model: dict[str, Any], recipes: Iterable[tuple[str, int, str, int]]
            ) -> tuple[Step, ...]:
    """The steps ``recipes`` make on ``model`` in turn (``model`` is not changed)."""
    work = copy.deepcopy(model)
    steps = []
    for kind, pick, key, number in recipes:
        step = _step(work, kind, pick, key, _VALUES[number])
        apply_step(work, step)
        steps.append(step)
    return tuple(steps)


def _step(model: dict[str, Any], kind: str, pick: int, key: str, value: Any) -> Step:
    """One recipe made concrete on ``model``; a kind with nothing to act on adds an entry."""
    entries = model["param_plan"]
    objects = [fqn for fqn, entry in sorted(entries.items()) if isinstance(entry, dict)]
    keyed = [fqn for fqn in objects if entries[fqn]]
    classes = sorted(model["boundary_classes"])
    externals = model.get("external_state_classes")
    if kind == "set" and objects:
        fqn = objects[pick % len(objects)]
        if key == "is_boundary" and type(value) is not bool:
            value = bool(pick & 1)  # a file holds true or false there
        return Step("set", ("param_plan", fqn, key), value)
    if kind == "remove" and keyed:
        fqn = keyed[pick % len(keyed)]
        names = sorted(entries[fqn])
        return Step("remove", ("param_plan", fqn, names[pick // 7 % len(names)]))
    if kind == "drop" and entries:
        return Step("remove", ("param_plan", sorted(entries)[pick % len(entries)]))
    if kind == "class":
        fqns = sorted({*entries, *classes, "model.extra.0"})
        return Step("set", ("boundary_classes", fqns[pick % len(fqns)]),
                    CLASSES[pick // 11 % len(CLASSES)])
    if kind == "unclass" and classes:
        return Step("remove", ("boundary_classes", classes[pick % len(classes)]))
    if kind == "external" and isinstance(externals, list):
        if externals and pick & 1:
            return Step("remove", ("external_state_classes", pick // 2 % len(externals)))
        return Step("insert", ("external_state_classes", pick // 2 % (len(externals) + 1)),
                    CLASSES[pick % len(CLASSES)])
    if kind == "note":
        if "x_note" in model and pick & 1:
            return Step("remove", ("x_note",))
        return Step("set", ("x_note",), value)
    fqns = sorted({*entries, f"model.extra.{pick % 3}"})
    return Step("set", ("param_plan", fqns[pick // 3 % len(fqns)]),
                _ENTRIES[pick % len(_ENTRIES)])


def scope(path: Path) -> Path:
    """What a step at ``path`` owns: a module of an FQN map, else a whole top-level field.

    Steps of two sides with disjoint scopes commute, and merge without a conflict.
    """
    return path[:2] if path[0] in FQN_MAPS else path[:1]


def _parent(model: dict[str, Any], path: Path) -> Any:
    parent: Any = model
    for key in path[:-1]:
        parent = parent[key]
    return parent


def apply_step(model: dict[str, Any], step: Step) -> None:
    """Make ``step`` on ``model`` by hand, in place."""
    parent, last = _parent(model, step.path), step.path[-1]
    if step.op == "set":
        parent[last] = copy.deepcopy(step.value)
    elif step.op == "insert":
        parent.insert(last, copy.deepcopy(step.value))
    elif isinstance(parent, list) and isinstance(last, int):
        del parent[last]
    else:
        parent.pop(last, None)  # as Edit.remove: nothing when the key is not there


def steps_pass(steps: Iterable[Step]) -> Pass:
    """A pass named ``random_edit`` that makes ``steps`` through an :class:`Edit`."""
    steps = tuple(steps)

    @edit_pass("random_edit")
    def random_edit(edit: Edit) -> None:
        for step in steps:
            if step.op == "set":
                edit.set(step.path, step.value, "drawn")
            elif step.op == "insert":
                edit.insert(step.path, step.value, "drawn")
            else:
                edit.remove(step.path, "drawn")
    return random_edit


def _text(value: Any) -> str:
    """A value as canonical JSON text: ``true`` is not ``1``."""
    return "(absent)" if value is MISSING else json.dumps(thaw(value), sort_keys=True)


def apply_change(model: dict[str, Any], change: Change) -> None:
    """Make a record's ``change`` on ``model`` by hand, in place, as RFC 6902 would.

    Raises ``AssertionError`` when the old value it records is not the one
    ``model`` holds, or when it adds a key ``model`` already has.
    """
    parent, last = _parent(model, change.path), change.path[-1]
    if change.op == "add" and isinstance(parent, list) and isinstance(last, int):
        parent.insert(last, thaw(change.new))
        return
    found = parent.get(last, MISSING) if isinstance(parent, dict) else parent[last]
    expected = MISSING if change.op == "add" else change.old
    if _text(found) != _text(expected):
        raise AssertionError(f"the record's {change.op} at {list(change.path)} expects "
                             f"{_text(expected)}, the model holds {_text(found)}")
    if change.op == "remove":
        del parent[last]
    else:
        parent[last] = thaw(change.new)
