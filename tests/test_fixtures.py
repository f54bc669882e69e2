"""Real plans: metaplan, the oracle and the compat shim all give the seed's exact bytes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

import metaplan
from conftest import FIXTURES, SMALL_FIXTURES, expected_bytes, fixture_path, raw_input
from metaplan.compat import normalize_inline_meta
from metaplan.jsonio import dumps_pretty_stdlib
from metaplan.oracle import reference_normalize


@pytest.fixture(scope="module")
def loaded() -> dict[str, metaplan.Plan]:
    return {name: metaplan.load(fixture_path(name)) for name in FIXTURES}


@pytest.mark.parametrize("name", FIXTURES)
def test_normalize_gives_the_seeds_bytes(name: str, loaded: dict[str, metaplan.Plan]) -> None:
    assert metaplan.dumps(metaplan.normalize(loaded[name]).plan) == expected_bytes(name)


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


@pytest.mark.parametrize("name", FIXTURES)
def test_load_then_dump_gives_back_the_input_bytes(name: str,
                                                   loaded: dict[str, metaplan.Plan]) -> None:
    assert metaplan.dumps(loaded[name]) == raw_input(name)


@pytest.mark.parametrize("name", SMALL_FIXTURES)
def test_the_stdlib_writer_path_gives_the_same_bytes(name: str,
                                                     loaded: dict[str, metaplan.Plan]) -> None:
    result = metaplan.normalize(loaded[name]).plan
    assert dumps_pretty_stdlib(result.fields) == metaplan.dumps(result) == expected_bytes(name)


@pytest.mark.parametrize("name", FIXTURES)
def test_laws_on_real_plans(name: str, loaded: dict[str, metaplan.Plan]) -> None:
    plan = loaded[name]
    before = metaplan.dumps(plan)
    result = metaplan.normalize(plan)
    assert metaplan.dumps(plan) == before
    assert metaplan.replay(plan, result.records) == result.plan
    again = metaplan.normalize(result.plan)
    assert again.plan is result.plan
    assert all(record.is_noop for record in again.records)
    undone = metaplan.replay(result.plan, [metaplan.invert(r) for r in reversed(result.records)])
    assert metaplan.dumps(undone) == before


def test_fixture_specs_file_is_the_builtin_registry(specs_path: object) -> None:
    assert metaplan.load_specs(specs_path) == metaplan.BUILTIN_SPECS


def test_deepseek_records_say_why(loaded: dict[str, metaplan.Plan]) -> None:
    result = metaplan.normalize(loaded["deepseek_v3.hf4"])
    trace = result.trace
    explained = trace.explain_module("model.layers.0.mlp")
    assert [(name, change.op, change.path[-1]) for name, change in explained] == [
        ("mark_shared_class_boundaries", "add", "skip_source_lowering")]
    assert explained[0][1].why.startswith("class DeepseekV3MLP is shared with non-boundary ")
    stripped = trace.explain("param_plan", "model.layers.3.mlp.shared_experts")
    assert stripped[0][0] == "strip_ep_sub_boundaries"
    assert "shared_experts" in stripped[0][1].why


def test_explicit_specs_file_and_model_type(specs_path: object,
                                            loaded: dict[str, metaplan.Plan]) -> None:
    plan = loaded["deepseek_v3.hf5"]
    specs = metaplan.load_specs(specs_path)
    result = metaplan.normalize(plan, specs=specs, model_type="deepseek_v3")
    assert metaplan.dumps(result.plan) == expected_bytes("deepseek_v3.hf5")
    nothing = metaplan.normalize(plan, specs=metaplan.SpecRegistry())
    assert nothing.records[0].is_noop


def test_input_dict_is_copied_not_referenced() -> None:
    meta = json.loads(raw_input("deepseek_v3.hf5"))
    snapshot = copy.deepcopy(meta)
    plan = metaplan.Plan.from_json(meta)
    metaplan.normalize(plan)
    assert meta == snapshot
    meta["param_plan"]["lm_head"]["is_boundary"] = "mutated"
    assert plan.param_plan["lm_head"]["is_boundary"] is True
