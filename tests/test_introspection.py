"""Verify, verifiers between passes, the pass registry, compare and the text reports."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import FIXTURES, fixture_path
from metaplan.change import Change
from metaplan.passes.registry import NORMALIZE, PASSES
from metaplan.report import format_diff, format_explain, format_stats
from metaplan.testing import plans, spec_registries
from metaplan.verify import CHECKS

SMALL = "deepseek_v3.hf5"


def _small() -> metaplan.Plan:
    return metaplan.load(fixture_path(SMALL))


def _broken() -> dict[str, Any]:
    """The small DeepSeek-V3 plan with one violation of each check."""
    raw = _small().to_json()
    raw["param_plan"]["model.layers.1.mlp"]["in_src"] = {"hidden_states": {"tp": "S(0)"}}
    del raw["boundary_classes"]["model.norm"]
    raw["param_plan"]["model.norm"]["is_boundary"] = True
    raw["boundary_classes"]["model.ghost"] = "DeepseekV3MLP"
    raw["param_plan"]["model.junk"] = "not an entry"
    return raw


@pytest.mark.parametrize("name", FIXTURES)
def test_real_plans_and_their_normal_forms_verify(name: str) -> None:
    plan = metaplan.load(fixture_path(name))
    assert metaplan.verify(plan) == ()
    assert metaplan.verify(metaplan.normalize(plan).plan) == ()


def test_each_check_names_the_place_and_what_is_wrong() -> None:
    found = metaplan.verify(metaplan.Plan.from_json(_broken()))
    assert [(v.check, v.path) for v in found] == [
        ("entry-object", ("param_plan", "model.junk")),
        ("boundary-class", ("param_plan", "model.norm")),
        ("class-key", ("boundary_classes", "model.ghost")),
        ("single-contract", ("boundary_classes", "model.layers.1.mlp")),
    ]
    contract = found[-1]
    assert "class DeepseekV3MLP" in contract.message and "model.layers.0.mlp" in contract.message
    assert "in_src" in contract.message and 'S(0)' in contract.message
    assert str(found[0]).startswith('entry-object: param_plan["model.junk"]: ')
    assert metaplan.verify(metaplan.Plan.from_json(_broken()), ["class-key"]) == (found[2],)
    with pytest.raises(metaplan.SpecError, match="unknown check"):
        metaplan.verify(_small(), ["no-such-check"])


def test_params_may_differ_within_a_class() -> None:
    raw = _small().to_json()
    raw["param_plan"]["model.layers.1.mlp"]["params"]["other.weight"] = {"tp": "R"}
    assert metaplan.verify(metaplan.Plan.from_json(raw)) == ()


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
        line.run(metaplan.Plan.from_json(_broken()))
    assert info.value.pass_name == "<input>" and info.value.before == ()
    assert len(line.run(_small())) == 3


def test_trace_timings_first_and_first_failing() -> None:
    trace = metaplan.normalize(_small()).trace
    assert len(trace.seconds) == 3 and all(s >= 0 for s in trace.seconds)
    stripped = trace.first(lambda p: p.param_plan["model.layers.3.mlp"]["is_boundary"] is False)
    assert stripped == 1 and trace.pass_of(1) == "strip_ep_sub_boundaries"
    assert trace.first(lambda p: False) is None
    assert trace.first_failing(metaplan.verify) is None
    marked = trace.first_failing(
        lambda p: ["marked"] if "skip_source_lowering" in p.param_plan["model.norm"] else [])
    assert marked == (3, ("marked",))


def test_the_pass_registry_builds_normalize() -> None:
    plan = _small()
    built = metaplan.build_pipeline(metaplan.parse_passes("normalize"))
    assert [p.name for p in built.passes] == [name.replace("-", "_") for name in NORMALIZE]
    assert built.run(plan).final == metaplan.normalize(plan).plan
    assert metaplan.parse_passes("strip_ep_sub_boundaries") == ("strip-ep-sub-boundaries",)


@pytest.mark.parametrize(("spec", "message"), [
    ("strip-ep", "did you mean strip-ep-sub-boundaries"),
    ("normalize,,mark-shared-class-boundaries", "empty pass name"),
    ("", "empty pass name"),
    ("frobnicate", "unknown pass 'frobnicate'"),
])
def test_unknown_pass_names_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(metaplan.SpecError, match=message):
        metaplan.parse_passes(spec)


@given(st.lists(st.sampled_from(sorted(PASSES)), min_size=1, max_size=6))
def test_pipeline_specs_print_back_as_they_read(names: list[str]) -> None:
    text = metaplan.format_passes(names)
    assert metaplan.parse_passes(text) == tuple(names)
    assert metaplan.format_passes(metaplan.parse_passes(text.replace("-", "_"))) == text


def test_compare_finds_the_first_pass_a_spec_change_moves() -> None:
    plan = _small()
    specs = metaplan.BUILTIN_SPECS
    narrower = metaplan.SpecRegistry.of(
        replace(spec, strip_boundary_subpatterns=("experts.*",))
        if spec.target_class == "DeepseekV3MoE" else spec
        for spec in specs.specs.values())
    old = metaplan.normalize_pipeline(specs=specs)
    new = metaplan.normalize_pipeline(specs=narrower)
    found = metaplan.compare(plan, old, new)
    assert found.state == 1 and found.pass_a == found.pass_b == "strip_ep_sub_boundaries"
    assert found.diff is not None
    assert metaplan.apply(found.a.states[1], found.diff) == found.b.states[1]
    assert {c.path[1].rsplit(".", 1)[-1] for c in found.diff.changes} == {"shared_experts"}
    same = metaplan.compare(plan, old, metaplan.normalize_pipeline())
    assert same.same and same.diff is None and same.pass_a == "(none)"


@given(plans(), spec_registries())
def test_compare_agrees_with_the_traces(plan: metaplan.Plan, specs: metaplan.SpecRegistry) -> None:
    old = metaplan.normalize_pipeline()
    new = metaplan.normalize_pipeline(specs=specs)
    found = metaplan.compare(plan, old, new)
    pairs = list(zip(found.a.states, found.b.states, strict=True))
    differing = [i for i, (a, b) in enumerate(pairs) if a != b]
    assert found.state == (differing[0] if differing else None)
    if found.diff is not None and found.state is not None:
        assert metaplan.apply(found.a.states[found.state], found.diff) \
            == found.b.states[found.state]


def test_a_shorter_pipeline_stays_at_its_final_state() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"a": {"is_boundary": True}},
                                    "boundary_classes": {"a": "Shell"},
                                    "external_state_classes": ["Shell"]})
    long = metaplan.build_pipeline(NORMALIZE[1:])
    short = metaplan.build_pipeline(NORMALIZE[1:2])
    found = metaplan.compare(plan, long, short)
    assert found.same  # the extra passes change nothing
    found = metaplan.compare(plan, short, metaplan.build_pipeline(()))
    assert found.state == 1 and found.pass_b == "(none)"


def test_text_reports() -> None:
    result = metaplan.normalize(_small())
    text = format_diff(metaplan.diff(result.trace.input, result.plan))
    assert text.startswith("352 changes: 236 modules (352 changes), 0 top-level changes\n")
    assert "\nmodel.layers.3.mlp\n  ~ is_boundary: true -> false\n  - class: \"DeepseekV3MoE\"\n" \
        in text
    assert text.index("\nmodel.layers.9.mlp\n") < text.index("\nmodel.layers.10.mlp\n")
    limited = format_diff(metaplan.diff(result.trace.input, result.plan), limit=2)
    assert limited.endswith("... and 234 more modules\n")
    told = format_explain(result.trace, ["model.layers.3.mlp.shared_experts", "lm_head"])
    assert told.splitlines()[:3] == [
        "model.layers.3.mlp.shared_experts",
        "  1. strip_ep_sub_boundaries: ~ is_boundary: true -> false",
        "     why: sub-module of EP target model.layers.3.mlp (DeepseekV3MoE) matching strip "
        "pattern 'shared_experts'"]
    assert told.endswith("lm_head: no pass changes it\n")
    stats = format_stats(result.trace, [("load", 0.5), ("dump", 0.25), ("dump", 0.25)])
    lines = stats.splitlines()
    assert lines[1].split()[:3] == ["strip_ep_sub_boundaries", "232", "116"]
    assert lines[-2].split() == ["dump", "500.0"]
    assert lines[-1].split()[:2] == ["total", "352"]


def test_checks_are_listed_in_order() -> None:
    assert list(CHECKS) == ["entry-object", "boundary-class", "class-key", "single-contract",
                            "injection-agreement", "spec-coverage", "non-empty",
                            "frozen-sharded-params", "placement", "schema"]


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


def test_single_contract_counts_every_contract() -> None:
    raw = _small().to_json()
    raw["param_plan"]["model.layers.1.mlp"]["in_src"] = {"hidden_states": {"tp": "S(0)"}}
    raw["param_plan"]["model.layers.2.mlp"]["in_src"] = {"hidden_states": {"tp": "S(1)"}}
    found = metaplan.verify(metaplan.Plan.from_json(raw), "single-contract")
    assert [v.path[1] for v in found] == ["model.layers.1.mlp", "model.layers.2.mlp"]
    assert all("has 3 boundary contracts: model.layers.0.mlp" in v.message for v in found)


_BROKEN_PASSES = '''
import metaplan
from metaplan.change import ChangeRecord
from metaplan.pipeline import PassResult
from metaplan.testing import check_pass_laws

plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})

class Copies:  # a no-op that hands back a copy, not the input
    name = "copies"
    def __call__(self, plan):
        return PassResult(metaplan.Plan(plan.fields.set("x", 1).discard("x")),
                          ChangeRecord("copies", plan.content_hash, plan.content_hash))

class Forgets:  # changes the plan, records nothing
    name = "forgets"
    def __call__(self, plan):
        return PassResult(plan.set("model_type", "x"),
                          ChangeRecord("forgets", plan.content_hash, plan.content_hash))

for broken, law in ((Copies(), "no-op must return the input"), (Forgets(), "record result")):
    try:
        check_pass_laws(broken, plan)
    except AssertionError as exc:
        assert law in str(exc), exc
    else:
        raise SystemExit(f"{broken.name}: no law broken")
print("caught")
'''


@pytest.mark.parametrize("optimize", [[], ["-O"]])
def test_check_pass_laws_catches_broken_passes_even_under_dash_o(optimize: list[str]) -> None:
    done = subprocess.run([sys.executable, *optimize, "-c", _BROKEN_PASSES],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.stdout == "caught\n", done.stderr
