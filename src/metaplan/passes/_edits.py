"""Edits the seed's stages share: un-boundary a set of FQNs, with the reason for each."""

from __future__ import annotations

from collections.abc import Mapping

from metaplan.records.edit import Edit

__all__ = ["unboundary"]


def unboundary(edit: Edit, marks: Mapping[str, str]) -> None:
    """Mark each FQN in ``marks`` ``is_boundary: false`` and drop it from ``boundary_classes``.

    ``marks`` maps FQN -> why. Only object entries are edited (the seed
    skips any other), and a flag is set unless it is already exactly
    ``false`` (``0`` is not ``false``). Entry changes come first, then
    class-map removals, each in FQN order.
    """
    classes = edit.plan.index("boundary_classes")
    order = [(fqn, marks[fqn]) for fqn in sorted(marks)]
    edit.set_each("param_plan", "is_boundary", False, order)
    edit.remove_each("boundary_classes", [(fqn, why) for fqn, why in order if fqn in classes])
