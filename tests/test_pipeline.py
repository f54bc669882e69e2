"""Pipelines and traces: passes run in order, failures named, verifiers between passes."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest
from hypothesis import given

import metaplan
from conftest import broken_small_plan, fixture_path
from metaplan.records.change import Change
from metaplan.testing import plans, spec_registries
from metaplan.views.text import format_explain

SMALL = "deepseek_v3.hf5"


def _small() -> metaplan.Plan:
    return metaplan.load(fixture_path(SMALL))


def test_a_failing_pass_is_named_with_what_ran_before() -> None:
    @metaplan.changes_pass("explodes")
    def explodes(plan: metaplan.Plan) -> list[metaplan.Change]:
        raise KeyError("boom")

    line = metaplan.pipeline(metaplan.strip_external_state_boundaries(), explodes)
    with pytest.raises(metaplan.PassError) as info:
        line.run(metaplan.Plan.from_json({}))
    assert info.value.pass_name == "explodes"
    assert info.value.before == ("strip_external_state_boundaries",)
    assert isinstance(info.value.__cause__, KeyError)


def test_a_pass_that_returns_no_pass_result_is_named() -> None:
    def not_a_pass(plan: metaplan.Plan) -> list[metaplan.Change]:
        return []

    with pytest.raises(metaplan.PassError, match=r"returned list.*changes_pass"):
        metaplan.pipeline(not_a_pass).run(metaplan.Plan.from_json({}))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name first"):
        metaplan.changes_pass(not_a_pass)  # type: ignore[arg-type]


@metaplan.changes_pass("forget_classes")
def _forget_classes(plan: metaplan.Plan) -> Any:
    """A buggy pass: drops boundary classes but leaves the entries boundaries."""
    for fqn, name in sorted(plan.boundary_classes.items()):
        if name == "DeepseekV3Attention":
            yield Change("remove", ("boundary_classes", fqn), name, None, "bug")


def test_a_verifier_stops_the_pipeline_at_the_pass_that_broke_the_plan() -> None:
    plan = _small()
    line = metaplan.pipeline(metaplan.strip_external_state_boundaries(), _forget_classes,
                             metaplan.strip_external_state_boundaries()).verified(metaplan.verify)
    with pytest.raises(metaplan.VerificationError) as info:
        line.run(plan)
    error = info.value
    assert error.pass_name == "forget_classes"
    assert error.before == ("strip_external_state_boundaries",)
    assert {v.check for v in error.violations} == {"boundary-class"}
    assert "after pass forget_classes fails verification" in str(error)
    assert isinstance(error, metaplan.PassError)
    # without verifiers the same pipeline runs through
    assert len(metaplan.pipeline(*line.passes).run(plan)) == 3


def test_a_verifier_that_crashes_is_a_pass_error_naming_it() -> None:
    def crashes(plan: metaplan.Plan) -> list[Any]:
        raise KeyError("oops")

    line = metaplan.pipeline(metaplan.strip_external_state_boundaries()).verified(crashes)
    with pytest.raises(metaplan.PassError, match=r"crashes \(a verifier, on the result of "
                                                 r"<input>\)") as info:
        line.run(_small())
    assert isinstance(info.value.__cause__, KeyError)


def test_a_broken_input_fails_before_any_pass() -> None:
    line = metaplan.normalize_pipeline().verified(metaplan.verify)
    with pytest.raises(metaplan.VerificationError, match="the input plan fails") as info:
        line.run(metaplan.Plan.from_json(broken_small_plan()))
    assert info.value.pass_name == "<input>" and info.value.before == ()
    assert len(line.run(_small())) == 3


def test_trace_timings_first_and_first_failing(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count(start=1.0, step=0.5)  # each reading of the clock: 0.5 s later
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks))
    trace = metaplan.normalize_pipeline().verified(metaplan.verify).run(_small())
    monkeypatch.undo()
    # one reading before and one after each pass: the verifiers' time is not a pass's
    assert trace.seconds == (0.5, 0.5, 0.5)
    stripped = trace.first(lambda p: p.param_plan["model.layers.3.mlp"]["is_boundary"] is False)
    assert stripped == 1 and trace.pass_of(1) == "strip_ep_sub_boundaries"
    assert trace.pass_of(0) == "<input>"
    assert trace.first(lambda p: False) is None
    assert trace.first_failing(metaplan.verify) is None
    marked = trace.first_failing(
        lambda p: ["marked"] if "skip_source_lowering" in p.param_plan["model.norm"] else [])
    assert marked == (3, ("marked",))


def test_explain_is_in_pipeline_order_across_entry_and_class() -> None:
    @metaplan.changes_pass("renames_class")
    def renames_class(plan: metaplan.Plan) -> Any:
        yield Change("set", ("boundary_classes", "m"), "A", "B", "first")

    @metaplan.changes_pass("unbounds")
    def unbounds(plan: metaplan.Plan) -> Any:
        yield Change("set", ("param_plan", "m", "is_boundary"), True, False, "second")

    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
                                    "boundary_classes": {"m": "A"}})
    trace = metaplan.pipeline(renames_class, unbounds).run(plan)
    assert [name for name, _ in trace.explain_module("m")] == ["renames_class", "unbounds"]
    assert format_explain(trace, ["m"]).splitlines()[1].startswith("  1. renames_class")


def test_generator_verifiers_and_names_in_any_spelling() -> None:
    trace = metaplan.normalize(_small()).trace

    def lazily(plan: metaplan.Plan) -> Any:
        yield from metaplan.verify(plan)

    assert trace.first_failing(lazily) is None
    built = metaplan.build_pipeline(["strip_ep_sub_boundaries", "normalize"])
    assert len(built) == 4
    assert metaplan.verify(_small(), "class_key, class-key") == ()
    with pytest.raises(metaplan.SpecError, match="did you mean class-key"):
        metaplan.verify(_small(), "class-keys")


def test_then_drops_the_label() -> None:
    line = metaplan.normalize_pipeline()
    assert line.name == "normalize"
    assert line.then(metaplan.strip_external_state_boundaries()).name.startswith("pipeline(")


@given(plans(), spec_registries())
def test_bisect_finds_the_first_stage_with_a_property(plan: metaplan.Plan,
                                                      specs: metaplan.SpecRegistry) -> None:
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
