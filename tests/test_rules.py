"""The model type as upstream reads it, and model-type aliases in spec registries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import metaplan
import metaplan.rules
import metaplan.testing
from conftest import DATA, FIXTURES, expected_bytes, fixture_path, raw_input
from conftest import metaplan_cli as run
from metaplan.rules import BUILTIN_ALIASES, ModelType, model_key, model_type_of
from metaplan.testing import TARGETS

DEEPSEEK = TARGETS[0]
NAME = "deepseek_v3.hf5"


def _without_model_type(name: str = NAME) -> dict[str, Any]:
    """A real plan without ``model_type``: upstream's plans have none."""
    raw = json.loads(raw_input(name))
    del raw["model_type"]
    return raw  # type: ignore[no-any-return]


def _only_for(model_type: str, aliases: dict[str, str] | None = None) -> metaplan.SpecRegistry:
    """The DeepSeek-V3 spec, declared for ``model_type`` only (no generic fallback)."""
    return metaplan.SpecRegistry.of([metaplan.StrategySpec(
        DEEPSEEK, "moe_ep_routed", "DeepseekV3MoE", ("experts.*", "shared_experts"),
        model_type=model_type)], aliases)


def test_the_model_type_is_model_type_else_model_class_else_source_architecture() -> None:
    raw = json.loads(raw_input(NAME))
    assert model_type_of(metaplan.Plan.from_json(raw)) == ("deepseek_v3", "model_type")
    del raw["model_type"]
    assert model_type_of(metaplan.Plan.from_json(raw)) == ModelType("DeepseekV3ForCausalLM",
                                                                    "model_class")
    del raw["model_class"]  # the bundled source names model_class, not architecture
    assert model_type_of(raw) == (None, "none")
    raw["source"]["architecture"] = "DeepseekV3ForCausalLM"
    assert model_type_of(raw) == ("DeepseekV3ForCausalLM", "source.architecture")
    raw["model_class"], raw["model_type"] = "", None  # empty and null are absent
    assert model_type_of(raw).source == "source.architecture"


def test_builtin_aliases_are_upstreams_architectures() -> None:
    assert BUILTIN_ALIASES == {"DeepseekV3ForCausalLM": "deepseek_v3",
                               "Qwen3MoeForCausalLM": "qwen3_moe"}
    specs = metaplan.BUILTIN_SPECS
    assert specs.canonical_model_type("DeepseekV3ForCausalLM") == "deepseek_v3"
    assert specs.canonical_model_type("Qwen3MoeForCausalLM") == "qwen3_moe"
    assert specs.canonical_model_type("deepseekv3") == "deepseek_v3"  # upstream's spelling key
    assert specs.canonical_model_type("llama") == "llama"
    assert specs.canonical_model_type(None) is None
    assert model_key("Qwen3MoeForConditionalGeneration") == "qwen3moe"


def test_lookup_exact_then_alias_then_generic() -> None:
    generic = metaplan.StrategySpec(DEEPSEEK, "moe_ep_routed", "Generic")
    exact = metaplan.StrategySpec(DEEPSEEK, "moe_ep_routed", "Exact", model_type="Mixtral")
    canonical = metaplan.StrategySpec(DEEPSEEK, "moe_ep_routed", "Canonical",
                                      model_type="mixtral")
    registry = metaplan.SpecRegistry.of([generic, canonical], {"MixtralForCausalLM": "mixtral"})
    assert registry.lookup(DEEPSEEK, "MixtralForCausalLM") is canonical
    assert registry.lookup(DEEPSEEK, "mixtral") is canonical
    assert registry.lookup(DEEPSEEK, "MIXTRAL") is canonical  # any spelling, as upstream
    assert registry.lookup(DEEPSEEK, "llama") is generic
    with_exact = metaplan.SpecRegistry.of([generic, canonical, exact], registry.aliases)
    assert with_exact.lookup(DEEPSEEK, "Mixtral") is exact
    widened = registry.with_aliases({"Mx": "mixtral"})
    assert widened.lookup(DEEPSEEK, "Mx") is canonical and registry.lookup(DEEPSEEK, "Mx") \
        is generic
    assert repr(widened) == "SpecRegistry(<2 specs, 2 aliases>)"


def test_a_plan_without_model_type_normalizes_by_its_model_class() -> None:
    raw = _without_model_type()
    plan = metaplan.Plan.from_json(raw)
    expected = metaplan.loads(expected_bytes(NAME))
    for specs in (metaplan.BUILTIN_SPECS, _only_for("deepseek_v3")):
        result = metaplan.normalize(plan, specs=specs).plan  # DeepseekV3ForCausalLM, aliased
        assert len(metaplan.diff(result, expected)) == 1  # model_type: only the field differs
    # a name no spelling rule links: only an alias does
    raw["model_class"] = "DSV3Custom"
    custom = metaplan.Plan.from_json(raw)
    assert len(metaplan.normalize(custom, specs=_only_for("deepseek_v3")).records[0]) == 0
    aliased = _only_for("deepseek_v3", {"DSV3Custom": "deepseek_v3"})
    assert len(metaplan.normalize(custom, specs=aliased).records[0]) == 232
    # source.architecture is the last resort
    del raw["model_class"]
    raw["source"]["architecture"] = "DeepseekV3ForCausalLM"
    stripped = metaplan.normalize(metaplan.Plan.from_json(raw), specs=_only_for("deepseek_v3"))
    assert len(stripped.records[0]) == 232
    # an explicit model type wins over all of them
    assert len(metaplan.normalize(plan, specs=_only_for("deepseek_v3"),
                                  model_type="qwen3_moe").records[0]) == 0


def test_specs_files_declare_aliases(tmp_path: Path) -> None:
    assert metaplan.load_specs(DATA / "specs.json").aliases == BUILTIN_ALIASES
    path = tmp_path / "specs.json"
    spec = {"target": DEEPSEEK, "kind": "moe_ep_routed", "target_class": "DeepseekV3MoE",
            "model_type": "dsv3"}
    path.write_text(json.dumps({"specs": [spec], "aliases": {"DeepseekV3ForCausalLM": "dsv3"}}))
    registry = metaplan.load_specs(path)
    assert registry.lookup(DEEPSEEK, "DeepseekV3ForCausalLM") is registry.specs[(DEEPSEEK, "dsv3")]
    for aliases, message in (([], "must be an object of name -> model type"),
                             ({"X": 1}, r'aliases\["X"\]: an alias names a model type'),
                             ({"X": ""}, "found a string"),
                             ({"": "x"}, "for an empty name")):
        path.write_text(json.dumps({"specs": [], "aliases": aliases}))
        with pytest.raises(metaplan.SpecError, match=message):
            metaplan.load_specs(path)


def test_an_injections_inner_wrapper_is_its_rules_inner_wrapper_target() -> None:
    plan = metaplan.Plan.from_json({"injections": [
        {"match": "model.layers.0.self_attn", "inner_wrapper": {"_target_": "cp.ring"},
         "inner_target": "core"}]})
    (rule,) = metaplan.rules_from_plan(plan)
    assert rule.inner_wrapper_target == "cp.ring" and rule.local_compute_target is None
    assert dict(rule.options) == {"inner_target": "core"}


def test_the_command_says_which_model_type_it_used(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_without_model_type()))
    printed = run("normalize", plan, "--print-pipeline")
    assert printed.returncode == 0
    assert printed.stderr == (b"metaplan normalize: model type: DeepseekV3ForCausalLM (the "
                              b"plan's model_class), an alias of deepseek_v3\n")
    stats = run("normalize", plan, "--stats", "-q", "-o", tmp_path / "out.json")
    assert stats.stderr.decode().splitlines()[-1] == (
        "model type: DeepseekV3ForCausalLM (the plan's model_class), an alias of deepseek_v3")
    given = run("trace", fixture_path(NAME), "--out", tmp_path / "t", "--print-pipeline",
                "--model-type", "custom")
    assert given.stderr == b"metaplan trace: model type: custom (--model-type)\n"
    plain = run("explain", fixture_path(NAME), "lm_head", "--print-pipeline")
    assert plain.stderr.endswith(b"model type: deepseek_v3 (the plan's model_type)\n")


def test_fixture_specs_file_is_the_builtin_registry(specs_path: Path) -> None:
    assert metaplan.load_specs(specs_path) == metaplan.BUILTIN_SPECS


def test_every_builtin_fixture_and_generated_pattern_is_a_valid_glob(specs_path: Path) -> None:
    registry = metaplan.load_specs(specs_path)
    specs = [*registry.specs.values(), *metaplan.BUILTIN_SPECS.specs.values()]
    patterns = {p for spec in specs for p in spec.strip_boundary_subpatterns}
    patterns |= set(metaplan.testing._SUB_PATTERNS)
    for name in FIXTURES:
        patterns |= {p for rule in metaplan.rules_from_plan(metaplan.load(fixture_path(name)))
                     for p in rule.match}
    assert "experts.*" in patterns and "experts.[0-1]" in patterns
    assert [p for p in sorted(patterns) if metaplan.rules.check_pattern(p, "p") != p] == []
