"""``normalize``: the seed's ``normalize_inline_meta`` as a pure, recorded pipeline.

>>> from metaplan.core.plan import Plan
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
from typing import NamedTuple

from metaplan.core.plan import Plan
from metaplan.core.rules import BUILTIN_SPECS, InlineRule, SpecRegistry
from metaplan.passes.chaining import Pipeline, Trace
from metaplan.passes.registry import NORMALIZE, build_pipeline
from metaplan.records.change import ChangeRecord
from metaplan.settings import FROM_PLAN, FromPlan, ModelTypeSetting, refuse_none

__all__ = ["NormalizeResult", "normalize", "normalize_pipeline"]


class NormalizeResult(NamedTuple):
    """The normalized plan, one record per stage, and the full trace."""

    plan: Plan
    records: tuple[ChangeRecord, ...]
    trace: Trace


def normalize_pipeline(*, specs: SpecRegistry = BUILTIN_SPECS,
                       rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
                       model_type: ModelTypeSetting = FROM_PLAN) -> Pipeline:
    """The seed's three stages as one pipeline; it holds no plan, so it runs on any.

    By default rules come from each plan's ``injections`` and
    ``module_overrides`` and the model type is the plan's (:data:`FROM_PLAN`);
    ``model_type=None`` looks specs up with no model type. The shared-class
    stage reads the class map of the run's input, bound when a run starts.
    ``rules=None`` and ``specs=None`` are refused (``TypeError``): none is
    ``()`` and ``SpecRegistry()``.
    """
    refuse_none("normalize_pipeline", specs=specs, rules=rules)
    return build_pipeline(NORMALIZE, specs=specs, rules=rules, model_type=model_type,
                          label="normalize")


def normalize(plan: Plan, *, specs: SpecRegistry = BUILTIN_SPECS,
              rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
              model_type: ModelTypeSetting = FROM_PLAN) -> NormalizeResult:
    """Normalize ``plan`` as the seed does, without touching it; idempotent."""
    refuse_none("normalize", specs=specs, rules=rules)
    trace = normalize_pipeline(specs=specs, rules=rules, model_type=model_type).run(plan)
    return NormalizeResult(trace.final, trace.records, trace)
