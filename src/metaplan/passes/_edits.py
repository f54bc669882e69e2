"""Edits the seed's stages share: un-boundary a set of FQNs, with the reason for each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metaplan.changes import Change
from metaplan.frozen import JSONMap, mirror
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
    path = ("param_plan", fqn, key)
    if old is _MISSING:
        return Change("add", path, None, value, why)
    return Change("set", path, old, value, why)


def unboundary(plan: Plan, marks: Mapping[str, str]) -> list[Change]:
    """Mark each FQN in ``marks`` ``is_boundary: false`` and drop it from ``boundary_classes``.

    ``marks`` maps FQN -> why. Entry changes come first, then class-map
    removals, each in FQN order.
    """
    param_plan = mirror(plan.param_plan)
    classes = mirror(plan.boundary_classes)
    order = sorted(marks)
    changes = []
    for fqn in order:
        change = set_flag(param_plan.get(fqn), fqn, "is_boundary", False, marks[fqn])
        if change is not None:
            changes.append(change)
    for fqn in order:
        cls = classes.get(fqn, _MISSING)
        if cls is not _MISSING:
            changes.append(Change("remove", ("boundary_classes", fqn), cls, None, marks[fqn]))
    return changes
