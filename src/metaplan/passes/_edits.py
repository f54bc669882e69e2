"""Edits the seed's stages share: un-boundary a set of FQNs, with the reason for each."""

from __future__ import annotations

from collections.abc import Mapping

from metaplan.frozen import MISSING, JSONMap
from metaplan.records.edit import Edit

__all__ = ["unboundary"]


def unboundary(edit: Edit, marks: Mapping[str, str]) -> None:
    """Mark each FQN in ``marks`` ``is_boundary: false`` and drop it from ``boundary_classes``.

    ``marks`` maps FQN -> why. Only object entries are edited (the seed
    skips any other), and a flag is set unless it is already exactly
    ``false`` (``0`` is not ``false``). Entry changes come first, then
    class-map removals, each in FQN order.
    """
    plan = edit.plan
    entries = plan.index("param_plan")
    classes = plan.index("boundary_classes")
    order = sorted(marks)
    for fqn in order:
        entry = entries.get(fqn)
        if type(entry) is JSONMap and entry.get("is_boundary", MISSING) is not False:
            edit.set(("param_plan", fqn, "is_boundary"), False, marks[fqn])
    for fqn in order:
        if fqn in classes:
            edit.remove(("boundary_classes", fqn), marks[fqn])
