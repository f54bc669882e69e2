"""Two versions of a pipeline run on one plan: where do they first part ways?

>>> from metaplan.core.plan import Plan
>>> from metaplan.passes.registry import build_pipeline, parse_passes
>>> plan = Plan.from_json({"param_plan": {"a": {"is_boundary": True}},
...                        "boundary_classes": {"a": "Shell"},
...                        "external_state_classes": ["Shell"]})
>>> old = build_pipeline(parse_passes("normalize"))
>>> new = build_pipeline(parse_passes("strip-ep-sub-boundaries,mark-shared-class-boundaries"))
>>> found = compare(plan, old, new)
>>> found.state, found.pass_a, found.pass_b, len(found.diff)
(2, 'strip_external_state_boundaries', 'mark_shared_class_boundaries', 2)
"""

from __future__ import annotations

from typing import NamedTuple

from metaplan.core.plan import Plan
from metaplan.passes.chaining import Pipeline, Trace
from metaplan.records.change import ChangeRecord
from metaplan.versions.diffing import diff

__all__ = ["Comparison", "compare"]


class Comparison(NamedTuple):
    """Both traces, and the index of the first state where they differ (None: never).

    State ``i`` is the result of each pipeline's pass ``i - 1``; a pipeline
    that has run out of passes stays at its final state. ``diff`` turns
    pipeline A's state at ``state`` into pipeline B's.
    """

    a: Trace
    b: Trace
    state: int | None
    diff: ChangeRecord | None

    @property
    def pass_a(self) -> str:
        """Pipeline A's pass that made the first differing state ("(none)" past its end)."""
        return _pass_at(self.a, self.state)

    @property
    def pass_b(self) -> str:
        """Pipeline B's pass that made the first differing state ("(none)" past its end)."""
        return _pass_at(self.b, self.state)

    @property
    def same(self) -> bool:
        """Whether the two pipelines agree on every state."""
        return self.state is None


def _pass_at(trace: Trace, index: int | None) -> str:
    if index is None or index > len(trace):
        return "(none)"
    return trace.pass_of(index)


def _state(trace: Trace, index: int) -> Plan:
    return trace.states[min(index, len(trace.states) - 1)]


def compare(plan: Plan, a: Pipeline, b: Pipeline) -> Comparison:
    """Run ``a`` and ``b`` on ``plan`` and find the first state where they differ."""
    trace_a, trace_b = a.run(plan), b.run(plan)
    for index in range(1, max(len(trace_a.states), len(trace_b.states))):
        state_a, state_b = _state(trace_a, index), _state(trace_b, index)
        if state_a != state_b:
            return Comparison(trace_a, trace_b, index, diff(state_a, state_b))
    return Comparison(trace_a, trace_b, None, None)
