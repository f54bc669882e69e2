"""Laws on generated plans: purity, replay, inversion, idempotence, seed equivalence."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import metaplan
from metaplan.compat import normalize_inline_meta
from metaplan.oracle import reference_normalize
from metaplan.passes import (
    mark_shared_class_boundaries,
    strip_ep_sub_boundaries,
    strip_external_state_boundaries,
)
from metaplan.testing import check_pass_laws, plan_dicts, plans, rule_lists, spec_registries


def _seed_bytes(meta: dict[str, Any], rules: Any, specs: Any, *, per_spec: bool = False,
                model_type: Any = "plan") -> bytes:
    meta = copy.deepcopy(meta)
    mt = meta.get("model_type") if model_type == "plan" else model_type
    reference_normalize(meta, rules, mt, specs=specs, per_spec_patterns=per_spec)
    return json.dumps(meta, indent=2, sort_keys=True).encode()


@given(plan_dicts(), spec_registries(shared_patterns=True))
def test_normalize_equals_the_seed_oracle(meta: dict[str, Any], specs: Any) -> None:
    result = metaplan.normalize(metaplan.Plan.from_json(meta), specs=specs)
    assert metaplan.dumps(result.plan) == _seed_bytes(meta, metaplan.rules_from_plan(meta), specs)


@given(plan_dicts(), spec_registries(), st.data())
def test_per_spec_patterns_equal_the_per_spec_oracle(meta: dict[str, Any], specs: Any,
                                                     data: st.DataObject) -> None:
    rules = data.draw(st.one_of(st.just(metaplan.FROM_PLAN), rule_lists()))
    used = metaplan.rules_from_plan(meta) if rules is metaplan.FROM_PLAN else rules
    result = metaplan.normalize(metaplan.Plan.from_json(meta), specs=specs, rules=rules)
    assert metaplan.dumps(result.plan) == _seed_bytes(meta, used, specs, per_spec=True)


@given(plan_dicts(), spec_registries(shared_patterns=True),
       st.sampled_from((None, "deepseek_v3", "qwen3_moe")))
def test_compat_equals_the_seed_oracle(meta: dict[str, Any], specs: Any,
                                       model_type: str | None) -> None:
    rules = metaplan.rules_from_plan(meta)
    expected = _seed_bytes(meta, rules, specs, model_type=model_type)
    meta = copy.deepcopy(meta)
    normalize_inline_meta(meta, rules, model_type, specs=specs)
    assert json.dumps(meta, indent=2, sort_keys=True).encode() == expected


@given(plan_dicts(), spec_registries())
def test_normalize_never_touches_its_input(meta: dict[str, Any], specs: Any) -> None:
    snapshot = copy.deepcopy(meta)
    plan = metaplan.Plan.from_json(meta)
    before = metaplan.dumps(plan)
    trace = metaplan.normalize(plan, specs=specs).trace
    assert meta == snapshot
    assert [metaplan.dumps(state) for state in trace.states[:1]] == [before]
    for state, later in zip(trace.states, trace.states[1:], strict=False):
        assert state is later or state.content_hash != later.content_hash


@given(plans(), spec_registries())
def test_replay_reproduces_and_invert_restores(plan: metaplan.Plan, specs: Any) -> None:
    trace = metaplan.normalize(plan, specs=specs).trace
    assert metaplan.dumps(trace.replay()) == metaplan.dumps(trace.final)
    for before, after, record in zip(trace.states, trace.states[1:], trace.records, strict=False):
        assert metaplan.dumps(metaplan.apply(after, metaplan.invert(record))) == metaplan.dumps(
            before)
    composed = trace.record
    assert metaplan.apply(trace.input, composed) == trace.final
    assert metaplan.apply(trace.final, metaplan.invert(composed)) == trace.input


@given(plans(), spec_registries())
def test_normalize_is_idempotent(plan: metaplan.Plan, specs: Any) -> None:
    once = metaplan.normalize(plan, specs=specs).plan
    twice = metaplan.normalize(once, specs=specs)
    assert twice.plan is once
    assert all(record.is_noop for record in twice.records)


@given(plans(), spec_registries(), st.data())
def test_every_stage_keeps_the_pass_laws(plan: metaplan.Plan, specs: Any,
                                         data: st.DataObject) -> None:
    stage = data.draw(st.sampled_from((
        strip_ep_sub_boundaries(specs=specs),
        strip_external_state_boundaries(),
        mark_shared_class_boundaries(),
        mark_shared_class_boundaries(class_map=plan.boundary_classes),
    )))
    check_pass_laws(stage, plan)


@given(plans(), spec_registries())
def test_records_round_trip_through_json(plan: metaplan.Plan, specs: Any) -> None:
    records = metaplan.normalize(plan, specs=specs).records
    text = metaplan.dumps_records(records)
    assert metaplan.loads_records(text) == records
    assert metaplan.dumps_records(metaplan.loads_records(text)) == text


@given(plans(), spec_registries())
def test_bisect_finds_the_first_stage_with_a_property(plan: metaplan.Plan, specs: Any) -> None:
    trace = metaplan.normalize(plan, specs=specs).trace

    def marked(state: metaplan.Plan) -> bool:
        return any(getattr(entry, "get", lambda *_: None)("skip_source_lowering") is True
                   for entry in state.param_plan.values())

    index = trace.bisect(marked)
    truth = [marked(state) for state in trace.states]
    if index is None:
        assert not any(truth)
    else:
        assert truth[index] and not any(truth[:index])


@given(plans(), plans())
def test_diff_turns_one_plan_into_the_other(a: metaplan.Plan, b: metaplan.Plan) -> None:
    record = metaplan.diff(a, b)
    assert metaplan.dumps(metaplan.apply(a, record)) == metaplan.dumps(b)
    assert metaplan.dumps(metaplan.apply(b, metaplan.invert(record))) == metaplan.dumps(a)
    assert metaplan.diff(a, a).is_noop


@given(plans(), spec_registries())
def test_diff_of_trace_states_matches_what_the_passes_did(plan: metaplan.Plan,
                                                          specs: Any) -> None:
    trace = metaplan.normalize(plan, specs=specs).trace
    record = metaplan.diff(trace.input, trace.final)
    assert metaplan.apply(trace.input, record) == trace.final
    touched = {change.path for r in trace.records for change in r.changes}
    assert {change.path for change in record.changes} <= touched
