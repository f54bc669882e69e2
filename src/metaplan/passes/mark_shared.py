"""Stage 3: mark boundaries whose class is shared with a non-boundary instance.

Source lowering rewrites ``class.forward``, which every instance inherits; a
non-boundary instance would inherit a boundary body it cannot run. Such
boundaries get ``skip_source_lowering: true`` (``is_boundary`` and
``boundary_classes`` stay as they are), so the runtime per-instance wrapper
is used instead.

"Non-boundary" means ``is_boundary`` is exactly ``false``, and the classes of
non-boundary modules are read from the class map *as it was before* the
strip stages removed keys: pass it as ``class_map`` (``normalize`` binds the
input plan's map). Without it the plan's current map is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pyrsistent import PMap

from metaplan.changes import Change
from metaplan.frozen import JSONMap, mirror
from metaplan.passes._edits import set_flag
from metaplan.pipeline import ChangesPass
from metaplan.plan import Plan

__all__ = ["MarkSharedClassBoundaries", "mark_shared_class_boundaries", "non_boundary_classes"]


def non_boundary_classes(plan: Plan, class_map: Mapping[str, Any]) -> dict[Any, list[str]]:
    """Class -> its first two (in FQN order) non-boundary FQNs, as examples for a why."""
    example: dict[Any, list[str]] = {}
    classes = mirror(class_map) if isinstance(class_map, PMap) else class_map
    for fqn, entry in mirror(plan.param_plan).items():
        if type(entry) is JSONMap and entry._data.get("is_boundary") is False:
            cls = classes.get(fqn)
            if cls is not None:
                known = example.get(cls)
                if known is None:
                    example[cls] = [fqn]
                elif len(known) < 2 or fqn < known[1]:
                    known.append(fqn)
                    known.sort()
                    del known[2:]
    return example


def _why(cls: Any, fqn: str, examples: list[str]) -> str:
    other = next((name for name in examples if name != fqn), None)
    if other is None:
        return (f"class {cls} has non-boundary instances (this module is one), so its "
                "forward is not lowered")
    return f"class {cls} is shared with non-boundary {other}"


@dataclass(frozen=True, repr=False)
class MarkSharedClassBoundaries(ChangesPass):
    """The seed's ``_mark_shared_class_boundaries`` as a pure pass."""

    name: ClassVar[str] = "mark_shared_class_boundaries"
    class_map: Mapping[str, Any] | None = None

    def changes(self, plan: Plan) -> list[Change]:
        class_map = plan.boundary_classes if self.class_map is None else self.class_map
        example = non_boundary_classes(plan, class_map)
        if not example:
            return []
        param_plan = mirror(plan.param_plan)
        changes = []
        shared = sorted((fqn, cls) for fqn, cls in mirror(plan.boundary_classes).items()
                        if cls in example)
        for fqn, cls in shared:
            why = _why(cls, fqn, example[cls])
            change = set_flag(param_plan.get(fqn), fqn, "skip_source_lowering", True, why)
            if change is not None:
                changes.append(change)
        return changes

    def __repr__(self) -> str:
        bound = "plan's own" if self.class_map is None else f"<{len(self.class_map)} FQNs>"
        return f"mark_shared_class_boundaries(class_map={bound})"


def mark_shared_class_boundaries(*, class_map: Mapping[str, Any] | None = None,
                                 ) -> MarkSharedClassBoundaries:
    """Stage 3; ``class_map`` is the pre-strip FQN -> class map (default: the plan's own)."""
    return MarkSharedClassBoundaries(class_map)
