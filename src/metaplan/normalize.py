"""``normalize``: the seed's ``normalize_inline_meta`` as a pure, recorded pipeline.

>>> from metaplan.plan import Plan
>>> plan = Plan.from_json({
...     "param_plan": {"a": {"is_boundary": True}, "b": {"is_boundary": False}},
...     "boundary_classes": {"a": "MLP", "b": "MLP"}})
>>> result = normalize(plan)
>>> dict(result.plan.param_plan["a"]), plan.param_plan["a"].get("skip_source_lowering")
({'is_boundary': True, 'skip_source_lowering': True}, None)
>>> result.records[2].changes[0].why
'class MLP is shared with non-boundary b'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from metaplan.changes import ChangeRecord
from metaplan.passes import FROM_PLAN
from metaplan.passes.registry import NORMALIZE, build_pipeline
from metaplan.pipeline import Pipeline, Trace
from metaplan.plan import Plan
from metaplan.rules import InlineRule, SpecRegistry

__all__ = ["NormalizeResult", "normalize", "normalize_pipeline"]


class NormalizeResult(NamedTuple):
    """The normalized plan, one record per stage, and the full trace."""

    plan: Plan
    records: tuple[ChangeRecord, ...]
    trace: Trace


def normalize_pipeline(plan: Plan, *, specs: SpecRegistry | None = None,
                       rules: Iterable[InlineRule] | None = None,
                       model_type: Any = None) -> Pipeline:
    """The three stages, with the pre-strip class map of ``plan`` bound into stage 3.

    ``rules=None`` recovers rules from the plan's ``injections`` and
    ``module_overrides``; ``model_type=None`` takes the plan's ``model_type``
    (pass ``FROM_PLAN`` or a string explicitly to be unambiguous).
    """
    return build_pipeline(NORMALIZE, plan, specs=specs, rules=rules,
                          model_type=FROM_PLAN if model_type is None else model_type,
                          label="normalize")


def normalize(plan: Plan, *, specs: SpecRegistry | None = None,
              rules: Iterable[InlineRule] | None = None, model_type: Any = None,
              ) -> NormalizeResult:
    """Normalize ``plan`` as the seed does, without touching it; idempotent."""
    trace = normalize_pipeline(plan, specs=specs, rules=rules, model_type=model_type).run(plan)
    return NormalizeResult(trace.final, trace.records, trace)
