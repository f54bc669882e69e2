"""Inline rules and strategy specs: the data the EP stage reads.

Rules come from the plan's own ``injections`` (and ``module_overrides``)
unless given; specs come from a registry keyed by ``(target, model_type)``,
looked up exactly, then under the model type an alias names, then with
``model_type=None``. A plan's model type is read as upstream's emitter reads
it (:func:`model_type_of`): its ``model_type``, else ``model_class``, else
``source.architecture``.

>>> spec = BUILTIN_SPECS.lookup(
...     "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn", "any")
>>> spec.target_class, spec.strip_boundary_subpatterns
('DeepseekV3MoE', ('experts.*', 'shared_experts'))
>>> BUILTIN_SPECS.canonical_model_type("Qwen3MoeForCausalLM")
'qwen3_moe'

Five modules, one job each: :mod:`~metaplan.core.rules.models` (a plan's model
type), :mod:`~metaplan.core.rules.checking` (the field checks, each error saying
where), :mod:`~metaplan.core.rules.specs` (the rule and spec types and the
registry, each with its JSON form), :mod:`~metaplan.core.rules.builtin`
(upstream's archetypes) and :mod:`~metaplan.core.rules.reading` (rules and
specs from files and from a plan).
"""

from __future__ import annotations

from metaplan.core.rules.builtin import BUILTIN_ALIASES, BUILTIN_SPECS
from metaplan.core.rules.checking import check_pattern
from metaplan.core.rules.models import MODEL_TYPE_FIELDS, ModelType, model_key, model_type_of
from metaplan.core.rules.reading import (
    check_plan_rules,
    load_rules,
    load_specs,
    rule_from_json,
    rules_from_json,
    rules_from_plan,
    spec_from_json,
    specs_from_json,
)
from metaplan.core.rules.specs import InlineRule, SpecRegistry, StrategySpec, aliases_from_json

__all__ = [
    "BUILTIN_ALIASES",
    "BUILTIN_SPECS",
    "MODEL_TYPE_FIELDS",
    "InlineRule",
    "ModelType",
    "SpecRegistry",
    "StrategySpec",
    "aliases_from_json",
    "check_pattern",
    "check_plan_rules",
    "load_rules",
    "load_specs",
    "model_key",
    "model_type_of",
    "rule_from_json",
    "rules_from_json",
    "rules_from_plan",
    "spec_from_json",
    "specs_from_json",
]
