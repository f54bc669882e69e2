"""Stage 3: mark boundaries whose class is shared with a non-boundary instance.

Source lowering rewrites ``class.forward``, which every instance inherits; a
non-boundary instance would inherit a boundary body it cannot run. Such
boundaries get ``skip_source_lowering: true`` (``is_boundary`` and
``boundary_classes`` stay as they are), so the runtime per-instance wrapper
is used instead.

"Non-boundary" means ``is_boundary`` is exactly ``false``, and the classes of
non-boundary modules are read from the class map *as it was before* the
strip stages removed keys: by default the class map of the run's input
(:data:`~metaplan.settings.RUN_INPUT`), bound when a run starts, as the seed
captures it when it starts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from metaplan.core.plan import Plan
from metaplan.frozen import JSONMap
from metaplan.passes.makers import EditPass, keeping
from metaplan.passes.steps import Contract
from metaplan.records.edit import Edit
from metaplan.settings import RUN_INPUT, FromRun

__all__ = ["MarkSharedClassBoundaries", "mark_shared_class_boundaries", "non_boundary_classes"]


def non_boundary_classes(plan: Plan, class_map: Mapping[str, Any]) -> dict[Any, list[str]]:
    """Class -> its first two (in FQN order) non-boundary FQNs, as examples for a why."""
    example: dict[Any, list[str]] = {}
    for fqn, entry in plan.index("param_plan").items():
        if type(entry) is JSONMap and entry.get("is_boundary") is False:
            cls = class_map.get(fqn)
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
class MarkSharedClassBoundaries(EditPass):
    """The seed's ``_mark_shared_class_boundaries`` as a pure pass."""

    name: ClassVar[str] = "mark_shared_class_boundaries"
    contract: ClassVar[Contract] = keeping(("shared-class",))
    class_map: Mapping[str, Any] | FromRun = RUN_INPUT

    def for_run(self, run_input: Plan) -> MarkSharedClassBoundaries:
        """This pass with :data:`RUN_INPUT` bound to ``run_input``'s class map."""
        if self.class_map is not RUN_INPUT:
            return self
        return dataclasses.replace(self, class_map=run_input.index("boundary_classes"))

    def edit(self, edit: Edit) -> None:
        plan = edit.plan
        class_map = (plan.index("boundary_classes") if self.class_map is RUN_INPUT
                     else self.class_map)
        example = non_boundary_classes(plan, class_map)
        if not example:
            return
        entries = plan.index("param_plan")
        shared = sorted((fqn, cls) for fqn, cls in plan.index("boundary_classes").items()
                        if cls in example)
        for fqn, cls in shared:
            entry = entries.get(fqn)
            if type(entry) is JSONMap and entry.get("skip_source_lowering") is not True:
                edit.set(("param_plan", fqn, "skip_source_lowering"), True,
                         _why(cls, fqn, example[cls]))

    def __repr__(self) -> str:
        bound = ("RUN_INPUT" if self.class_map is RUN_INPUT
                 else f"<{len(self.class_map)} FQNs>")
        return f"mark_shared_class_boundaries(class_map={bound})"


def mark_shared_class_boundaries(*, class_map: Mapping[str, Any] | FromRun = RUN_INPUT,
                                 ) -> MarkSharedClassBoundaries:
    """Stage 3; ``class_map`` is the pre-strip FQN -> class map (default: the run input's).

    Called outside a run, :data:`RUN_INPUT` reads the plan it is given (a
    run of one pass).
    """
    return MarkSharedClassBoundaries(class_map)
