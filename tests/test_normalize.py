"""normalize: the seed's exact bytes on real and generated plans, and the laws it keeps."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import FIXTURES, SMALL_FIXTURES, expected_bytes, seed_bytes
from metaplan.testing import TARGETS, plan_dicts, plans, rule_lists, spec_registries

# real plans -------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_normalize_gives_the_seeds_bytes(name: str, loaded: dict[str, metaplan.Plan]) -> None:
    assert metaplan.dumps(metaplan.normalize(loaded[name]).plan) == expected_bytes(name)


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


def test_explicit_specs_file_and_model_type(specs_path: str,
                                            loaded: dict[str, metaplan.Plan]) -> None:
    plan = loaded["deepseek_v3.hf5"]
    specs = metaplan.load_specs(specs_path)
    result = metaplan.normalize(plan, specs=specs, model_type="deepseek_v3")
    assert metaplan.dumps(result.plan) == expected_bytes("deepseek_v3.hf5")
    nothing = metaplan.normalize(plan, specs=metaplan.SpecRegistry())
    assert nothing.records[0].is_noop


def test_non_object_entries_are_kept_and_skipped() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"m": None, "n": ["x"], "o": {"is_boundary": False}},
        "boundary_classes": {"m": "MoE", "n": "MoE", "o": "MoE", "p": "MoE"},
        "external_state_classes": ["MoE"]})
    result = metaplan.normalize(plan)
    assert dict(result.plan.boundary_classes) == {}
    assert result.plan.param_plan["m"] is None and list(result.plan.param_plan["n"]) == ["x"]
    assert [c.path for c in result.records[1].changes] == [
        ("boundary_classes", "m"), ("boundary_classes", "n"), ("boundary_classes", "o"),
        ("boundary_classes", "p")]


# generated plans ------------------------------------------------------------------------


@given(plan_dicts(), spec_registries(shared_patterns=True))
def test_normalize_equals_the_seed_oracle(meta: dict[str, Any],
                                          specs: metaplan.SpecRegistry) -> None:
    result = metaplan.normalize(metaplan.Plan.from_json(meta), specs=specs)
    assert metaplan.dumps(result.plan) == seed_bytes(meta, metaplan.rules_from_plan(meta), specs)


@given(plan_dicts(), spec_registries(), st.data())
def test_per_spec_patterns_equal_the_per_spec_oracle(meta: dict[str, Any],
                                                     specs: metaplan.SpecRegistry,
                                                     data: st.DataObject) -> None:
    rules = data.draw(st.one_of(st.just(metaplan.FROM_PLAN), rule_lists()))
    used = metaplan.rules_from_plan(meta) if rules is metaplan.FROM_PLAN else rules
    result = metaplan.normalize(metaplan.Plan.from_json(meta), specs=specs, rules=rules)
    assert metaplan.dumps(result.plan) == seed_bytes(meta, used, specs, per_spec=True)


@given(plan_dicts(), spec_registries())
def test_normalize_never_touches_its_input(meta: dict[str, Any],
                                           specs: metaplan.SpecRegistry) -> None:
    snapshot = copy.deepcopy(meta)
    plan = metaplan.Plan.from_json(meta)
    before = metaplan.dumps(plan)
    trace = metaplan.normalize(plan, specs=specs).trace
    assert meta == snapshot
    assert [metaplan.dumps(state) for state in trace.states[:1]] == [before]
    for state, later in zip(trace.states, trace.states[1:], strict=False):
        assert state is later or state.content_hash != later.content_hash


@given(plans(), spec_registries())
def test_replay_reproduces_and_invert_restores(plan: metaplan.Plan,
                                               specs: metaplan.SpecRegistry) -> None:
    trace = metaplan.normalize(plan, specs=specs).trace
    assert metaplan.dumps(trace.replay()) == metaplan.dumps(trace.final)
    for before, after, record in zip(trace.states, trace.states[1:], trace.records, strict=False):
        assert metaplan.dumps(metaplan.apply(after, metaplan.invert(record))) == metaplan.dumps(
            before)
    composed = trace.record
    assert metaplan.apply(trace.input, composed) == trace.final
    assert metaplan.apply(trace.final, metaplan.invert(composed)) == trace.input


@given(plans(), spec_registries())
def test_normalize_is_idempotent(plan: metaplan.Plan, specs: metaplan.SpecRegistry) -> None:
    once = metaplan.normalize(plan, specs=specs).plan
    twice = metaplan.normalize(once, specs=specs)
    assert twice.plan is once
    assert all(record.is_noop for record in twice.records)


# one pipeline, built once, runs on any plan ------------------------------------------------

_BUILT_ONCE = metaplan.normalize_pipeline()


@given(plans(), plans())
def test_one_pipeline_built_once_equals_normalize_on_any_plan(plan: metaplan.Plan,
                                                             other: metaplan.Plan) -> None:
    """The pipeline holds no plan: no run leaves anything behind for the next one."""
    for each in (plan, other):
        trace = _BUILT_ONCE.run(each)
        result = metaplan.normalize(each)
        assert metaplan.dumps(trace.final) == metaplan.dumps(result.plan)
        assert trace.records == result.records
    assert _BUILT_ONCE(plan).plan == metaplan.normalize(plan).plan


def test_one_pipeline_built_once_gives_each_real_plan_its_bytes(
        loaded: dict[str, metaplan.Plan]) -> None:
    for name in (*SMALL_FIXTURES, *SMALL_FIXTURES[::-1]):
        assert metaplan.dumps(_BUILT_ONCE.run(loaded[name]).final) == expected_bytes(name)


# the oracle with rules read independently of metaplan.rules --------------------------------


def _target(value: Any) -> Any:
    return (value.get("_target_") or value.get("target")) if isinstance(value, dict) else value


def _rules_by_hand(meta: dict[str, Any]) -> list[metaplan.InlineRule]:
    """The rules upstream's ``collect_inline_rules`` reads, written out here: an injection's
    match (one pattern or several) and its ``local_compute_fn``; a module override replaces a
    module and inlines nothing."""
    def patterns(match: Any) -> tuple[str, ...]:
        return (match,) if isinstance(match, str) else tuple(match)

    return [
        metaplan.InlineRule(
            patterns(injection["match"]),
            local_compute_target=_target(injection.get("local_compute_fn")),
        )
        for injection in meta.get("injections") or ()
    ] + [
        metaplan.InlineRule(patterns(override["match"]))
        for override in meta.get("module_overrides") or ()
    ]


_TARGETS = st.sampled_from((*TARGETS, {"_target_": TARGETS[0]}, {"target": TARGETS[1]}))


@st.composite
def _with_overrides_and_options(draw: st.DrawFn) -> dict[str, Any]:
    """A generated plan whose injections carry options and several patterns, and whose
    module overrides (which inline nothing) name strategy targets too."""
    meta = draw(plan_dicts())
    for injection in meta["injections"]:
        if draw(st.booleans()):
            injection["inner_target"] = "core"
            injection["inner_wrapper"] = draw(_TARGETS)
        if draw(st.booleans()):
            injection["match"] = [injection["match"], draw(st.sampled_from(
                ("model.layers.*.mlp", "*.experts.*", "lm_head")))]
    meta["module_overrides"] = draw(st.lists(st.fixed_dictionaries(
        {"match": st.sampled_from(("model.layers.*.mlp", "model.layers.1.mlp")),
         "target": _TARGETS, "local_compute_fn": _TARGETS}), max_size=2))
    return meta


@given(_with_overrides_and_options(), spec_registries())
def test_normalize_equals_the_oracle_with_rules_read_by_hand(
        meta: dict[str, Any], specs: metaplan.SpecRegistry) -> None:
    rules = _rules_by_hand(meta)
    assert [(r.match, r.local_compute_target) for r in metaplan.rules_from_plan(meta)] == [
        (r.match, r.local_compute_target) for r in rules]
    result = metaplan.normalize(metaplan.Plan.from_json(meta), specs=specs)
    assert metaplan.dumps(result.plan) == seed_bytes(meta, rules, specs, per_spec=True)
