"""The public names are pinned: adding or dropping one is a deliberate change."""

from __future__ import annotations

import importlib

import pytest

import metaplan

PUBLIC = {
    "BUILTIN_SPECS", "FROM_PLAN", "Change", "ChangeRecord", "ConflictError", "InlineRule",
    "InputError", "JSONMap", "NormalizeResult", "Pass", "PassError", "PassResult", "Pipeline",
    "Plan", "PlanError", "SpecError", "SpecRegistry", "StrategySpec", "Trace", "__version__",
    "apply", "changes_pass", "compose", "diff", "dump", "dump_records", "dumps", "freeze", "invert",
    "load", "load_records", "load_rules", "load_specs", "loads", "mark_shared_class_boundaries",
    "normalize", "normalize_pipeline", "pipeline", "replay", "rules_from_plan", "run",
    "strip_ep_sub_boundaries", "strip_external_state_boundaries", "thaw", "to_json_patch",
    # introspection
    "Comparison", "VerificationError", "Violation", "build_pipeline", "compare", "format_passes",
    "parse_passes", "verify",
    # the emitter's checks, upstream's model type, optional passes
    "model_type_of", "slim", "verification", "verifier",
}
MODULES = ("changes", "cli", "compare", "compat", "diff", "digest", "errors", "frozen", "jsonio",
           "normalize", "oracle", "passes", "passes.registry", "passes.slim", "pipeline", "plan",
           "report", "rules", "testing", "verify")


def test_top_level_names_are_pinned() -> None:
    assert set(metaplan.__all__) == PUBLIC
    assert all(hasattr(metaplan, name) for name in PUBLIC)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_all(name: str) -> None:
    module = importlib.import_module(f"metaplan.{name}")
    assert isinstance(module.__all__, list)
    assert all(hasattr(module, item) for item in module.__all__)


def test_passes_are_named_frozen_callables_with_readable_reprs() -> None:
    stage = metaplan.strip_ep_sub_boundaries(model_type="deepseek_v3")
    assert stage.name == "strip_ep_sub_boundaries"
    assert "model_type='deepseek_v3'" in repr(stage)
    with pytest.raises(AttributeError):
        stage.model_type = "x"  # type: ignore[misc]
    line = metaplan.pipeline(stage, metaplan.strip_external_state_boundaries())
    assert line.name == "pipeline(strip_ep_sub_boundaries, strip_external_state_boundaries)"
    assert isinstance(stage, metaplan.Pass)


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


def test_malformed_changes_are_refused() -> None:
    plan = metaplan.Plan.from_json({"x": 1})
    with pytest.raises(ValueError, match="not a change"):
        metaplan.changes.apply_changes(plan, [metaplan.Change("frob", ("x",), 1, 2)])
    with pytest.raises(ValueError, match="not a change"):
        metaplan.changes.apply_changes(plan, [metaplan.Change("set", ["x"], 1, 2)])  # type: ignore[arg-type]
