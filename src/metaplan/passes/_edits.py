"""Edits the seed's stages share: un-boundary a set of FQNs, with the reason for each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metaplan.changes import Change
from metaplan.frozen import JSONMap, freeze_owned, mirror
from metaplan.plan import Plan

__all__ = ["set_flag", "unboundary"]

_MISSING: Any = object()


def set_flag(entry: Any, fqn: str, key: str, value: bool, why: str) -> Change | None:
    """The change setting ``param_plan[fqn][key]`` to exactly ``value``, if it is not already.

    Only object entries are edited; the seed skips any other entry. ``1`` is
    not ``True``: a flag holding ``1`` is set to ``true``, as the seed does.
    """
    if type(entry) is not JSONMap:
        return None
    old = entry.get(key, _MISSING)
    if old is value:
        return None
    if old is _MISSING:
        return _change(("add", ("param_plan", fqn, key), None, value, why))
    return _change(("set", ("param_plan", fqn, key), old, value, why))


def unboundary(plan: Plan, marks: Mapping[str, str]) -> list[Change]:
    """Mark each FQN in ``marks`` ``is_boundary: false`` and drop it from ``boundary_classes``.

    ``marks`` maps FQN -> why. Entry changes come first, then class-map
    removals, each in FQN order.
    """
    entries = mirror(plan.param_plan)
    classes = mirror(plan.boundary_classes)
    order = sorted(marks)
    changes: list[Change] = []
    append, new = changes.append, tuple.__new__  # thousands of changes: no wrapper calls
    for fqn in order:
        entry = entries.get(fqn)
        if type(entry) is JSONMap:
            old = entry._data.get("is_boundary", _MISSING)  # a scalar unless it is odd
            if old is not False:
                path = ("param_plan", fqn, "is_boundary")
                if old is _MISSING:
                    append(new(Change, ("add", path, None, False, marks[fqn])))
                else:
                    append(new(Change, ("set", path, freeze_owned(old), False, marks[fqn])))
    for fqn in order:
        cls = classes.get(fqn, _MISSING)
        if cls is not _MISSING:
            append(new(Change, ("remove", ("boundary_classes", fqn), cls, None, marks[fqn])))
    return changes


def _change(fields: tuple[Any, ...]) -> Change:
    """``Change(*fields)`` without the keyword-handling wrapper: passes make thousands."""
    return tuple.__new__(Change, fields)
