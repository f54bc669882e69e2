"""Stage 2: strip the boundaries of classes an inline strategy body replaces.

A class listed in ``external_state_classes`` has its forward replaced by an
inline strategy body that carries its own orchestration; a boundary wrapper
for it would rewrite that very forward. Its FQNs become ``is_boundary: false``
and leave ``boundary_classes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from metaplan.passes._edits import unboundary
from metaplan.passes.makers import EditPass, keeping
from metaplan.passes.steps import Contract
from metaplan.records.edit import Edit

__all__ = ["StripExternalStateBoundaries", "strip_external_state_boundaries"]


@dataclass(frozen=True, repr=False)
class StripExternalStateBoundaries(EditPass):
    """The seed's ``_strip_external_state_boundaries`` as a pure pass."""

    name: ClassVar[str] = "strip_external_state_boundaries"
    contract: ClassVar[Contract] = keeping(("external-state",))

    def edit(self, edit: Edit) -> None:
        plan = edit.plan
        external = frozenset(plan.external_state_classes)
        if not external:
            return
        marks = {fqn: (f"class {cls} is an external-state class: an inline strategy body "
                       "replaces its forward")
                 for fqn, cls in plan.index("boundary_classes").items() if cls in external}
        unboundary(edit, marks)

    def __repr__(self) -> str:
        return "strip_external_state_boundaries()"


def strip_external_state_boundaries() -> StripExternalStateBoundaries:
    """Stage 2; it has no settings."""
    return StripExternalStateBoundaries()
