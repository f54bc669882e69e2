"""The seed's stages as passes, and the pass registry that builds pipelines by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import fixture_path
from metaplan.passes import (
    mark_shared_class_boundaries,
    strip_ep_sub_boundaries,
    strip_external_state_boundaries,
)
from metaplan.passes.registry import NORMALIZE, PASSES
from metaplan.testing import check_pass_laws, plans, rule_lists, spec_registries


def test_passes_are_named_frozen_callables_with_readable_reprs() -> None:
    stage = metaplan.strip_ep_sub_boundaries(model_type="deepseek_v3")
    assert stage.name == "strip_ep_sub_boundaries"
    assert "model_type='deepseek_v3'" in repr(stage)
    with pytest.raises(AttributeError):
        stage.model_type = "x"  # type: ignore[misc]
    line = metaplan.pipeline(stage, metaplan.strip_external_state_boundaries())
    assert line.name == "pipeline(strip_ep_sub_boundaries, strip_external_state_boundaries)"
    assert isinstance(stage, metaplan.Pass)


# the laws every stage keeps ----------------------------------------------------------

Stage = Callable[[metaplan.Plan, metaplan.SpecRegistry, st.DataObject], metaplan.Pass]
STAGES: dict[str, Stage] = {
    "strip_ep_sub_boundaries": lambda plan, specs, data: strip_ep_sub_boundaries(specs=specs),
    "strip_ep_sub_boundaries(rules, model_type)": lambda plan, specs, data:
        strip_ep_sub_boundaries(specs=specs, rules=data.draw(rule_lists()),
                                model_type=data.draw(st.sampled_from((None, "deepseek_v3")))),
    "strip_external_state_boundaries": lambda plan, specs, data:
        strip_external_state_boundaries(),
    "mark_shared_class_boundaries": lambda plan, specs, data: mark_shared_class_boundaries(),
    "mark_shared_class_boundaries(class_map)": lambda plan, specs, data:
        mark_shared_class_boundaries(class_map=plan.boundary_classes),
}


@pytest.mark.parametrize("stage", STAGES)
@given(plans(), spec_registries(), st.data())
def test_every_stage_keeps_the_pass_laws(stage: str, plan: metaplan.Plan,
                                         specs: metaplan.SpecRegistry,
                                         data: st.DataObject) -> None:
    check_pass_laws(STAGES[stage](plan, specs, data), plan)


# the registry -------------------------------------------------------------------------


def test_the_pass_registry_builds_normalize() -> None:
    plan = metaplan.load(fixture_path("deepseek_v3.hf5"))
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


def test_build_pipeline_takes_a_spec_or_a_list_of_specs() -> None:
    names = ["strip_ep_sub_boundaries", "slim", "mark_shared_class_boundaries"]
    for spec in ("strip-ep-sub-boundaries,slim,mark-shared-class-boundaries",
                 ["strip-ep-sub-boundaries,slim", "mark_shared_class_boundaries"],
                 ("strip_ep_sub_boundaries", "slim", "mark-shared-class-boundaries")):
        assert [step.name for step in metaplan.build_pipeline(spec)] == names
    assert metaplan.build_pipeline("normalize", label="n").name == "n"
    with pytest.raises(metaplan.SpecError) as info:
        metaplan.build_pipeline(["slim", "zzz"])
    assert str(info.value).startswith("build_pipeline: unknown pass 'zzz'; known: ")
    with pytest.raises(metaplan.SpecError) as info:
        metaplan.parse_passes("slim,zzz")
    assert str(info.value) == (
        "--passes: unknown pass 'zzz'; known: strip-ep-sub-boundaries, "
        "strip-external-state-boundaries, mark-shared-class-boundaries, slim, and normalize "
        "for the seed's three stages")


def test_build_pipeline_keeps_its_settings_for_every_run() -> None:
    spec = metaplan.StrategySpec("x.fn", "moe", target_class="MoE")
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
                                    "boundary_classes": {"m": "MoE"}})
    line = metaplan.build_pipeline(
        "strip-ep-sub-boundaries",
        specs=metaplan.SpecRegistry.of([spec]),
        rules=(rule for rule in [metaplan.InlineRule(("m",), local_compute_target="x.fn")]),
        model_type="llama",
    )
    assert len(line.run(plan).records[0]) == len(line.run(plan).records[0]) == 2
    (stage,) = line.passes
    assert stage == metaplan.strip_ep_sub_boundaries(
        specs=metaplan.SpecRegistry.of([spec]),
        rules=[metaplan.InlineRule(("m",), local_compute_target="x.fn")],
        model_type="llama",
    )


def test_build_pipeline_keeps_rules_given_once_as_an_iterator() -> None:
    target = "pkg.moe.MoE.forward"
    specs = metaplan.SpecRegistry.of([metaplan.StrategySpec(target, "moe", target_class="MoE")])
    plan = metaplan.Plan.from_json({
        "param_plan": {"m": {"is_boundary": True}, "m.experts.0": {"is_boundary": True}},
        "boundary_classes": {"m": "MoE", "m.experts.0": "Expert"}})
    built = metaplan.build_pipeline(
        "strip-ep-sub-boundaries,strip-ep-sub-boundaries",
        specs=specs,
        rules=(r for r in [metaplan.InlineRule(("m",), local_compute_target=target)]),
    )
    assert built.passes[0] == built.passes[1]  # each stage built from the same rules
    first, again = built.run(plan), built.run(plan)
    assert len(first.records[0]) == len(again.records[0]) > 0
    assert first.final == again.final


@pytest.mark.parametrize("setting", ["rules", "specs"])
def test_build_pipeline_refuses_none_for_its_rules_or_specs(setting: str) -> None:
    none: dict[str, Any] = {setting: None}
    with pytest.raises(TypeError, match=rf"^build_pipeline\({setting}=None\): expected .*, "
                                        "found None; pass "):
        metaplan.build_pipeline("normalize", **none)
