"""Stage 1's corners: glob patterns indexed by literal prefix and suffix, str subclasses."""

from __future__ import annotations

import copy
import enum
import fnmatch
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import metaplan
from metaplan.compat import normalize_inline_meta
from metaplan.oracle import reference_normalize
from metaplan.passes.strip_ep import find_ep_targets
from metaplan.rules import BUILTIN_SPECS, InlineRule

DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"

_STEPS = st.sampled_from(("model", "layers", "mlp", "1", "12", "3", "a.b", "[x]", "*", ""))
_FQNS = st.lists(st.lists(_STEPS, min_size=1, max_size=4).map(".".join), max_size=25,
                 unique=True)
_PATTERNS = st.lists(st.sampled_from((
    "*", "model.*", "*.mlp", "model.layers.*.mlp", "model.layers.1?.mlp", "*1*", "model.[l]*",
    "[!m]*", "*.[0-9]", "a.b", "model.layers.12.mlp", "*]", "[[]x]*", "*mlp*", "?")),
    min_size=1, max_size=6)


@given(_FQNS, _PATTERNS)
def test_the_glob_index_finds_what_fnmatch_finds(fqns: list[str], patterns: list[str]) -> None:
    classes = dict.fromkeys(fqns, "DeepseekV3MoE")
    rules = [InlineRule(match=(pattern,), local_compute_target=DEEPSEEK) for pattern in patterns]
    found = find_ep_targets(classes, rules, BUILTIN_SPECS, None)
    assert set(found) == {fqn for fqn in fqns
                          if any(fnmatch.fnmatchcase(fqn, p) for p in patterns)}


class _Kind(str, enum.Enum):
    MOE = "DeepseekV3MoE"
    MLP = "DeepseekV3MLP"


def _meta() -> dict[str, Any]:
    return {"param_plan": {"model.layers.1.mlp": {"is_boundary": True},
                           "model.layers.1.mlp.experts.0": {"is_boundary": True},
                           "model.layers.0.mlp": {"is_boundary": True}},
            "boundary_classes": {"model.layers.1.mlp": _Kind.MOE,
                                 "model.layers.1.mlp.experts.0": _Kind.MLP,
                                 "model.layers.0.mlp": _Kind.MLP},
            "injections": [{"match": "model.layers.*.mlp", "local_compute_fn": DEEPSEEK}]}


def test_str_enum_class_names_are_plain_strings_in_a_plan() -> None:
    plan = metaplan.Plan.from_json(_meta())
    assert type(plan.index("boundary_classes")["model.layers.1.mlp"]) is str
    assert plan.to_json()["boundary_classes"]["model.layers.1.mlp"] == "DeepseekV3MoE"
    result = metaplan.normalize(plan)
    assert result.plan.at(("param_plan", "model.layers.0.mlp", "skip_source_lowering")) is True


def test_compat_matches_globs_against_str_subclass_class_names_as_the_seed() -> None:
    meta = _meta()
    expected = copy.deepcopy(meta)
    rules = metaplan.rules_from_plan({"injections": meta["injections"]})
    reference_normalize(expected, rules)
    normalize_inline_meta(meta, rules)
    assert meta == expected
    assert meta["param_plan"]["model.layers.1.mlp.experts.0"]["is_boundary"] is False
