"""compat: the in-place drop-in with the seed's signature, on attribute and dict metas."""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import FIXTURES, expected_bytes, raw_input, seed_bytes
from metaplan.core.rules import InlineRule
from metaplan.passes.compat import normalize_inline_meta
from metaplan.passes.oracle import reference_normalize
from metaplan.testing import plan_dicts, spec_registries

DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"


def _oracle(meta: dict[str, Any]) -> dict[str, Any]:
    reference_normalize(meta, metaplan.rules_from_plan(meta), meta.get("model_type"))
    return meta


def _compat_on_an_attribute_meta(meta: dict[str, Any]) -> dict[str, Any]:
    namespace = SimpleNamespace(**meta)  # the seed reads meta.param_plan etc.
    normalize_inline_meta(namespace, metaplan.rules_from_plan(meta), meta.get("model_type"))
    return vars(namespace)


def _compat_on_a_dict_meta(meta: dict[str, Any]) -> dict[str, Any]:
    normalize_inline_meta(meta, metaplan.rules_from_plan(meta), meta.get("model_type"))
    return meta


@pytest.mark.parametrize("in_place", [_oracle, _compat_on_an_attribute_meta,
                                      _compat_on_a_dict_meta])
@pytest.mark.parametrize("name", FIXTURES)
def test_in_place_versions_give_the_seeds_bytes(
        name: str, in_place: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    result = in_place(json.loads(raw_input(name)))
    assert json.dumps(result, indent=2, sort_keys=True).encode() == expected_bytes(name)


@given(plan_dicts(), spec_registries(shared_patterns=True),
       st.sampled_from((None, "deepseek_v3", "qwen3_moe")))
def test_compat_equals_the_seed_oracle(meta: dict[str, Any], specs: metaplan.SpecRegistry,
                                       model_type: str | None) -> None:
    rules = metaplan.rules_from_plan(meta)
    expected = seed_bytes(meta, rules, specs, model_type=model_type)
    meta = copy.deepcopy(meta)
    normalize_inline_meta(meta, rules, model_type, specs=specs)
    assert json.dumps(meta, indent=2, sort_keys=True).encode() == expected


def test_compat_edits_dict_subclass_entries_like_the_seed() -> None:
    def meta() -> dict[str, Any]:
        return {"param_plan": {name: OrderedDict(is_boundary=True)
                               for name in ("l.mlp", "l.mlp.shared_experts", "d.mlp")},
                "boundary_classes": {"l.mlp": "DeepseekV3MoE", "l.mlp.shared_experts": "MLP",
                                     "d.mlp": "MLP"}}
    rules = (InlineRule(match=("*.mlp",), local_compute_target=DEEPSEEK),)
    ours, seed = meta(), meta()
    normalize_inline_meta(ours, rules)
    reference_normalize(seed, rules)
    assert ours == seed and ours["param_plan"]["d.mlp"]["skip_source_lowering"] is True


def test_compat_takes_values_the_seed_takes_but_json_cannot_hash() -> None:
    meta: dict[str, Any] = {
        "param_plan": {"a": {"is_boundary": False, "tags": {1, 2}}, "b": {"x": object()}},
        "boundary_classes": {"a": "MLP", "b": "MLP"}}
    normalize_inline_meta(meta, ())
    assert meta["param_plan"]["b"]["skip_source_lowering"] is True


def test_compat_still_takes_what_the_seed_takes_and_a_file_may_not_hold() -> None:
    def meta() -> dict[str, Any]:
        return {"param_plan": {"l.mlp": {"is_boundary": 1}, "l.mlp.shared_experts": {},
                               "d.mlp": {"is_boundary": "false"}, "e.mlp": {"is_boundary": False},
                               "x": None},
                "boundary_classes": {"l.mlp": "DeepseekV3MoE", "l.mlp.shared_experts": "MLP",
                                     "d.mlp": "MLP", "e.mlp": "MLP", "x": None, "y": 3},
                "external_state_classes": [None, "Router"]}
    rules = (metaplan.InlineRule(match=("l.mlp", "[bad"), local_compute_target=DEEPSEEK),)
    ours, seed = meta(), meta()
    normalize_inline_meta(ours, rules)
    reference_normalize(seed, rules)
    assert ours == seed and ours != meta()
    with pytest.raises(metaplan.PlanError, match=r'param_plan\["l.mlp"\].is_boundary'):
        metaplan.loads(json.dumps(meta()))
