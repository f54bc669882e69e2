"""diff: the record that turns one plan into another, skipping shared structure."""

from __future__ import annotations

from hypothesis import given

import metaplan
from metaplan.testing import plans, spec_registries


def test_minus_zero_is_not_zero() -> None:
    plan = metaplan.Plan.from_json({"x": -0.0})
    assert plan.set("x", 0.0) is not plan
    record = metaplan.diff(plan, metaplan.Plan.from_json({"x": 0.0}))
    assert len(record) == 1 and metaplan.apply(plan, record)["x"] == 0.0


@given(plans(), plans())
def test_diff_turns_one_plan_into_the_other(a: metaplan.Plan, b: metaplan.Plan) -> None:
    record = metaplan.diff(a, b)
    assert metaplan.dumps(metaplan.apply(a, record)) == metaplan.dumps(b)
    assert metaplan.dumps(metaplan.apply(b, metaplan.invert(record))) == metaplan.dumps(a)
    assert metaplan.diff(a, a).is_noop


@given(plans(), spec_registries())
def test_diff_of_trace_states_matches_what_the_passes_did(plan: metaplan.Plan,
                                                          specs: metaplan.SpecRegistry) -> None:
    trace = metaplan.normalize(plan, specs=specs).trace
    record = metaplan.diff(trace.input, trace.final)
    assert metaplan.apply(trace.input, record) == trace.final
    touched = {change.path for r in trace.records for change in r.changes}
    assert {change.path for change in record.changes} <= touched
