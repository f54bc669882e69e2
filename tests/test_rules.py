"""The model type as upstream reads it, and model-type aliases in spec registries."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import metaplan
import metaplan.core.rules
import metaplan.testing.strategies
from conftest import DATA, FIXTURES, expected_bytes, fixture_path, raw_input
from conftest import metaplan_cli as run
from metaplan.core.rules import BUILTIN_ALIASES, ModelType, check_pattern, model_key, model_type_of
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
    return metaplan.SpecRegistry.of(
        [
            metaplan.StrategySpec(
                DEEPSEEK,
                "moe_ep_routed",
                target_class="DeepseekV3MoE",
                strip_boundary_subpatterns=("experts.*", "shared_experts"),
                model_type=model_type,
            )
        ],
        aliases,
    )


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
    generic = metaplan.StrategySpec(DEEPSEEK, "moe_ep_routed", target_class="Generic")
    exact = metaplan.StrategySpec(
        DEEPSEEK, "moe_ep_routed", target_class="Exact", model_type="Mixtral"
    )
    canonical = metaplan.StrategySpec(
        DEEPSEEK, "moe_ep_routed", target_class="Canonical", model_type="mixtral"
    )
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
    patterns |= set(metaplan.testing.strategies._SUB_PATTERNS)
    for name in FIXTURES:
        patterns |= {p for rule in metaplan.rules_from_plan(metaplan.load(fixture_path(name)))
                     for p in rule.match}
    assert "experts.*" in patterns and "experts.[0-1]" in patterns
    assert [p for p in sorted(patterns) if metaplan.core.rules.check_pattern(p, "p") != p] == []


# rules from a plan: injections, module overrides, options, target forms -----------------


def test_injections_and_module_overrides_become_rules() -> None:
    from metaplan.core.rules import InlineRule

    plan = {"injections": [
        {"match": ["a.*", "b"], "local_compute_fn": {"target": "t.fn"}, "ep_size": 8,
         "inner_wrapper": {"_target_": "w", "target": "z"}, "inner_target": "core"},
        {"match": "c", "local_compute_fn": "t.fn2", "inner_wrapper": "w2"}],
        "module_overrides": [{"match": "x", "target": "r.t", "module_type": "Lin", "extra": 1},
                             {"match": ["y"], "replace_target": {"_target_": "r2"}},
                             {"match": "z", "_target_": "r3", "target": "ignored",
                              "replace_target": "r4"}]}
    assert metaplan.rules_from_plan(plan) == (
        InlineRule(
            ("a.*", "b"),
            local_compute_target="t.fn",
            inner_wrapper_target="w",
            options=metaplan.freeze({"ep_size": 8, "inner_target": "core"}),
        ),
        InlineRule(("c",), local_compute_target="t.fn2", inner_wrapper_target="w2"),
        InlineRule(
            ("x",), module_type="Lin", replace_target="r.t", options=metaplan.freeze({"extra": 1})
        ),
        InlineRule(("y",), replace_target="r2"),
        InlineRule(("z",), replace_target="r4"),
    )
    assert metaplan.rules_from_plan({"injections": None, "module_overrides": None}) == ()
    assert metaplan.rules_from_plan(metaplan.Plan.from_json(plan)) == metaplan.rules_from_plan(
        plan)
    assert metaplan.rules_from_plan(plan)[0].to_json() == {
        "match": ["a.*", "b"], "local_compute_target": "t.fn", "when": None,
        "module_type": None, "replace_target": None, "inner_wrapper_target": "w",
        "region_dispatch": None, "options": {"ep_size": 8, "inner_target": "core"}}


@pytest.mark.parametrize(("key", "item", "message"), [
    ("module_overrides", {"match": "x", "target": 3},
     "module_overrides[0].replace_target: must be a string or an object with _target_, "
     "found a number (3)"),
    ("module_overrides", {"match": "x", "module_type": 3},
     "module_overrides[0].module_type: must be a string or null, found a number (3)"),
    ("module_overrides", {"nomatch": 1},
     "module_overrides[0]: a module override needs a match (an FQN or glob pattern); it has "
     "keys ['nomatch']"),
    ("module_overrides", 3,
     "module_overrides[0]: a module override is an object with a match, found a number (3)"),
    ("module_overrides", {"match": []},
     "module_overrides[0].match: a module override needs at least one pattern, found an array"),
    ("injections", {"match": "x", "local_compute_fn": {"_target_": 3}},
     "injections[0].local_compute_fn._target_: must be a string or null, found a number (3)"),
    ("injections", {"match": "x", "inner_wrapper": 3},
     "injections[0].inner_wrapper: must be a string or an object with _target_, found a "
     "number (3)"),
    ("injections", {"match": None}, "injections[0].match: an injection needs at least one "
                                    "pattern, found null"),
])
def test_rules_from_a_plan_say_what_is_wrong_and_where(key: str, item: Any,
                                                        message: str) -> None:
    with pytest.raises(metaplan.SpecError) as info:
        metaplan.rules_from_plan({key: [item]})
    assert str(info.value) == message


@pytest.mark.parametrize(("pattern", "message"), [
    ("[]", "the '[' at 0 is never closed"), ("[!]", "the '[' at 0 is never closed"),
    ("[a][b", "the '[' at 3 is never closed"), ("a[b]c[", "the '[' at 5 is never closed"),
    ("x[]]y[", "the '[' at 5 is never closed"), ("x[!]]y[", "the '[' at 6 is never closed"),
    ("", 'invalid glob pattern "": an empty pattern matches no module'),
    (3, "a glob pattern is a string, found a number (3)"),
])
def test_patterns_fnmatch_would_read_as_a_literal_bracket_are_refused(pattern: Any,
                                                                      message: str) -> None:
    with pytest.raises(metaplan.SpecError, match=re.escape(message)):
        check_pattern(pattern, "p")


@pytest.mark.parametrize("pattern", ["[]]", "[!]]", "a[]]b", "[a][b]", "*", "[!a-c]x", "a]b"])
def test_patterns_whose_brackets_close_are_kept(pattern: str) -> None:
    assert check_pattern(pattern, "p") is pattern


# specs and rules files ---------------------------------------------------------------------


def test_a_specs_file_reads_every_field(tmp_path: Path) -> None:
    path = tmp_path / "specs.json"
    path.write_text(json.dumps([{"target": "t", "kind": "k", "target_class": "C",
                                 "strip_boundary_subpatterns": ["e.*"], "model_type": "m",
                                 "options": {"o": 1}},
                                {"target": "u", "target_class": None, "options": None}]))
    registry = metaplan.load_specs(path)
    assert registry.specs[("t", "m")] == metaplan.StrategySpec(
        "t",
        "k",
        target_class="C",
        strip_boundary_subpatterns=("e.*",),
        model_type="m",
        options=metaplan.freeze({"o": 1}),
    )
    assert registry.specs[("u", None)] == metaplan.StrategySpec("u", "")
    assert len(registry) == 2 and dict(registry.aliases) == {}


@pytest.mark.parametrize(("content", "message"), [
    ({"specs": [{"target": ""}]}, "specs[0].target: must be a non-empty string"),
    ({"specs": [{"target": "t", "options": [1]}]},
     "specs[0].options: must be an object, found an array"),
    ({"specs": [{"target": "t", "kind": 3}]}, "specs[0].kind: must be a string, found a number"),
    ({"specs": [3]}, "specs[0]: a spec is an object, found a number (3)"),
    ({"specs": [{"target": "t", "model_type": 3}]},
     "specs[0].model_type: must be a string or null"),
    ({"other": []}, "expected {\"specs\": [...]}, found an object with keys ['other']"),
    (3, 'expected {"specs": [...]}, found a number (3)'),
])
def test_a_bad_specs_file_says_what_and_where(content: Any, message: str,
                                             tmp_path: Path) -> None:
    _refused(metaplan.load_specs, tmp_path / "specs.json", content, message)


def _refused(load: Callable[[Path], object], path: Path, content: Any, message: str) -> None:
    """``load`` refuses ``path`` holding ``content`` with ``message``, naming the file."""
    path.write_text(json.dumps(content))
    with pytest.raises(metaplan.SpecError, match=re.escape(message)) as info:
        load(path)
    assert str(info.value).startswith(f"{path}: ")


def test_a_rules_file_reads_every_field(tmp_path: Path) -> None:
    from metaplan.core.rules import InlineRule

    path = tmp_path / "rules.json"
    rule = {"match": "m.*", "local_compute_target": {"_target_": "t"}, "when": {"a": [1]},
            "module_type": "Lin", "replace_target": "r", "inner_wrapper_target": {"target": "w"},
            "region_dispatch": True, "options": {"o": 1}}
    path.write_text(json.dumps({"rules": [rule, {"match": ["a", "b"]}]}))
    assert metaplan.load_rules(path) == (
        InlineRule(
            ("m.*",),
            local_compute_target="t",
            when=metaplan.freeze({"a": [1]}),
            module_type="Lin",
            replace_target="r",
            inner_wrapper_target="w",
            region_dispatch=True,
            options=metaplan.freeze({"o": 1}),
        ),
        InlineRule(("a", "b")),
    )
    path.write_text(json.dumps([{"match": "x"}]))
    assert metaplan.load_rules(path) == (InlineRule(("x",)),)


@pytest.mark.parametrize(("content", "message"), [
    ({"rules": [3]}, "rules[0]: a rule is an object, found a number (3)"),
    ({"rules": [{"match": "m", "when": 1, "bad": 2}]},
     "rules[0]: unknown rule field(s) ['bad']; known: ['match', "),
    ({"rules": [{"match": "m", "module_type": 1}]},
     "rules[0].module_type: must be a string or null"),
    ({"rules": [{"match": "m", "replace_target": 1}]},
     "rules[0].replace_target: must be a string or an object with _target_"),
    ({"rules": [{"match": "m", "inner_wrapper_target": [1]}]},
     "rules[0].inner_wrapper_target: must be a string or an object with _target_"),
    ({"rules": [{"match": 3}]}, "rules[0].match: must be a string or an array of strings "
                                "(glob patterns), found a number (3)"),
    ({"rules": [{"match": None}]}, "rules[0].match: a rule needs at least one pattern, found "
                                   "null"),
    ({"rules": {}}, 'expected {"rules": [...]} or an array of rules, found an object with '
                    '"rules": an object'),
])
def test_a_bad_rules_file_says_what_and_where(content: Any, message: str,
                                             tmp_path: Path) -> None:
    _refused(metaplan.load_rules, tmp_path / "rules.json", content, message)


# model types --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "key"), [
    ("DeepseekV3ForCausalLM", "deepseekv3"), ("Qwen3MoeForConditionalGeneration", "qwen3moe"),
    ("BertForSequenceClassification", "bert"), ("LlavaForImageTextToText", "llava"),
    ("Qwen3-MoE", "qwen3moe"), ("deepseek_v3", "deepseekv3"), ("forcausallm", ""),
    ("CausalLMForCausalLM", "causallm"),
])
def test_model_keys_drop_case_separators_and_one_task_suffix(name: str, key: str) -> None:
    assert model_key(name) == key


def test_a_model_type_says_where_it_came_from() -> None:
    assert ModelType("x", "model_type").describe() == "x (the plan's model_type)"
    assert ModelType("x", "source.architecture").describe() == \
        "x (the plan's source.architecture)"
    assert ModelType("x", "--model-type").describe() == "x (--model-type)"
    assert ModelType(None, "--model-type").describe() == "none (--model-type)"
    assert ModelType(None, "none").describe() == (
        "none (the plan has no model_type, model_class or source.architecture)")
    assert model_type_of({"model_type": "a", "model_class": "b"}) == ("a", "model_type")
    assert model_type_of({"model_type": 3, "model_class": "b"}) == ("b", "model_class")
    assert model_type_of({"source": "x"}) == (None, "none")
    assert model_type_of({"source": {"architecture": ""}}) == (None, "none")


def test_canonical_model_types_come_from_specs_and_aliases() -> None:
    spec = metaplan.StrategySpec(DEEPSEEK, "k", target_class="C", model_type="Mixtral_8x7b")
    registry = metaplan.SpecRegistry.of([spec], {"MyArch": "custom", "Other": "Mixtral_8x7b"})
    assert registry.canonical_model_type("mixtral8x7b") == "Mixtral_8x7b"  # a spec's spelling
    assert registry.canonical_model_type("MyArch") == "custom"  # an alias
    assert registry.canonical_model_type("my-arch") == "custom"  # an alias's name, respelt
    assert registry.canonical_model_type("CUSTOM") == "custom"  # its model type, respelt
    assert registry.canonical_model_type("other") == "Mixtral_8x7b"
    assert registry.canonical_model_type("unknown") == "unknown"
    assert registry.lookup(DEEPSEEK, "mixtral-8x7b") is spec
    assert registry.lookup(DEEPSEEK, None) is None and registry.lookup("t", "x") is None
    assert repr(metaplan.SpecRegistry.of([spec])) == "SpecRegistry(<1 specs>)"
    later = metaplan.StrategySpec(DEEPSEEK, "k2", target_class="D", model_type="Mixtral_8x7b")
    assert metaplan.SpecRegistry.of([spec, later]).lookup(DEEPSEEK, "Mixtral_8x7b") is later


def test_rules_specs_and_registries_are_frozen_and_hashable() -> None:
    rule = metaplan.InlineRule(("m",), local_compute_target="t")
    spec = metaplan.StrategySpec("t", "k", target_class="C")
    for value in (rule, spec, metaplan.BUILTIN_SPECS):
        with pytest.raises(AttributeError):
            value.kind = "x"  # type: ignore[misc, union-attr]
    assert hash(rule) == hash(metaplan.InlineRule(("m",), local_compute_target="t"))
    assert hash(spec) == hash(metaplan.StrategySpec("t", "k", target_class="C"))


def test_the_model_type_is_read_from_those_fields_only() -> None:
    assert model_type_of({"source.architecture": "X"}) == (None, "none")  # a key, not a path
    assert model_type_of({"source": {"architecture": 3}}) == (None, "none")
    assert model_type_of({"source": {"architecture": ["X"]}}) == (None, "none")
    assert model_type_of({"model_class": ["X"], "source": {"architecture": "A"}}) == (
        "A", "source.architecture")


def test_an_exact_alias_beats_another_names_spelling() -> None:
    spec = metaplan.StrategySpec(DEEPSEEK, "k", target_class="A", model_type="Ab")
    exact = metaplan.StrategySpec(DEEPSEEK, "k", target_class="Y", model_type="y")
    registry = metaplan.SpecRegistry.of([spec, exact], {"ab": "y"})
    assert registry.canonical_model_type("ab") == "y"  # not "Ab", though they spell alike
    assert registry.canonical_model_type("a-b") == "Ab"
    assert registry.lookup(DEEPSEEK, "ab") is exact


def test_a_spec_for_the_exact_model_type_beats_the_one_its_alias_names() -> None:
    exact = metaplan.StrategySpec(
        DEEPSEEK, "k", target_class="Exact", model_type="MixtralForCausalLM"
    )
    canonical = metaplan.StrategySpec(DEEPSEEK, "k", target_class="Canonical", model_type="mixtral")
    generic = metaplan.StrategySpec(DEEPSEEK, "k", target_class="Generic")
    for order in ([exact, canonical, generic], [generic, canonical, exact]):
        registry = metaplan.SpecRegistry.of(order, {"MixtralForCausalLM": "mixtral"})
        assert registry.lookup(DEEPSEEK, "MixtralForCausalLM") is exact
        assert registry.lookup(DEEPSEEK, "mixtral") is canonical
        assert registry.lookup(DEEPSEEK, None) is generic


def test_a_class_opened_by_a_bracket_may_hold_one() -> None:
    assert check_pattern("[[]", "p") == "[[]"  # the class holds "["
    assert check_pattern("a[[]b[]]", "p") == "a[[]b[]]"


@pytest.mark.parametrize(("spec", "message"), [
    ({"kind": "k"}, "spec.target: must be a string, found null"),
    ({"target": "t", "kind": None}, "spec.kind: must be a string, found null"),
    ({"target": "t", "tagret_class": "C", "b": 1},
     "spec: unknown spec field(s) ['b', 'tagret_class']; known: ['target', 'kind', "
     "'target_class', 'strip_boundary_subpatterns', 'model_type', 'options']"),
    ({"target": "t", "strip_boundary_subpatterns": "experts.*"},
     'spec.strip_boundary_subpatterns: must be an array of strings (glob patterns), found a '
     'string ("experts.*"): write ["experts.*"]'),
    ({"target": "t", "strip_boundary_subpatterns": None},
     "spec.strip_boundary_subpatterns: must be an array of strings (glob patterns), found "
     "null"),
    ({"target": "t", "strip_boundary_subpatterns": ["e.*", 3]},
     "spec.strip_boundary_subpatterns[1]: a glob pattern is a string, found a number (3)"),
    (3, "spec: a spec is an object, found a number (3)"),
])
def test_a_spec_says_what_is_wrong_and_where(spec: Any, message: str) -> None:
    from metaplan.core.rules.reading import spec_from_json

    with pytest.raises(metaplan.SpecError) as info:
        spec_from_json(spec)
    assert str(info.value) == message


@pytest.mark.parametrize(("aliases", "message"), [
    ([], 'aliases: must be an object of name -> model type, e.g. {"MixtralForCausalLM": '
         '"mixtral"}, found an array'),
    ({"X": 1}, 'aliases["X"]: an alias names a model type (a non-empty string), found a '
               "number (1)"),
    ({"": "x"}, 'aliases[""]: an alias names a model type (a non-empty string), found a '
                'string ("x") for an empty name'),
    ({"X": ""}, 'aliases["X"]: an alias names a model type (a non-empty string), found a '
                'string ("")'),
])
def test_aliases_say_what_is_wrong_and_where(aliases: Any, message: str) -> None:
    from metaplan.core.rules.reading import aliases_from_json

    with pytest.raises(metaplan.SpecError) as info:
        aliases_from_json(aliases)
    assert str(info.value) == message
    assert aliases_from_json(None) == {} and aliases_from_json({"A": "a"}) == {"A": "a"}


def test_the_default_places_errors_name() -> None:
    from metaplan.core.rules.reading import rule_from_json, rules_from_json, specs_from_json

    with pytest.raises(metaplan.SpecError, match=r'^specs: expected \{"specs": \[\.\.\.\]\}'):
        specs_from_json({})
    with pytest.raises(metaplan.SpecError, match=r"^rules: expected \{\"rules\""):
        rules_from_json({})
    with pytest.raises(metaplan.SpecError, match=r"^rule: a rule is an object, found"):
        rule_from_json(3)
    with pytest.raises(metaplan.SpecError, match=r"^rule\.match: must be a string or an array"):
        rule_from_json({"match": 3})
    assert specs_from_json([]) == metaplan.SpecRegistry()
    assert rules_from_json([]) == ()


@pytest.mark.parametrize(("items", "message"), [
    ([{"x": 1}], "plan.json: injections[4]: an injection needs a match (an FQN or glob "
                 "pattern); it has keys ['x']"),
    ([3], "plan.json: injections[4]: an injection is an object with a match, found a number "
          "(3)"),
    ([{"match": ["a", ""]}], 'plan.json: injections[4].match[1]: invalid glob pattern ""'),
])
def test_checking_a_plans_rules_names_the_file_and_the_item(items: list[Any],
                                                            message: str) -> None:
    from metaplan.core.rules import check_plan_rules

    with pytest.raises(metaplan.SpecError) as info:
        check_plan_rules("injections", items, "plan.json", start=4)
    assert str(info.value).startswith(message)
    check_plan_rules("module_overrides", [{"match": "m", "_target_": {"target": "t"}}], "p")
    with pytest.raises(metaplan.SpecError, match=r"^module_overrides\[0\]: a module override"):
        check_plan_rules("module_overrides", [3])


def test_an_override_reads_its_target_from_any_of_three_keys() -> None:
    from metaplan.core.rules import InlineRule

    overrides = [{"match": "a", "_target_": "t1"}, {"match": "b", "target": {"_target_": "t2"}},
                 {"match": "c", "replace_target": None, "target": "t3"},
                 {"match": "d", "module_type": None, "when": 1}]
    assert metaplan.rules_from_plan({"module_overrides": overrides}) == (
        InlineRule(("a",), replace_target="t1"), InlineRule(("b",), replace_target="t2"),
        InlineRule(("c",)), InlineRule(("d",), options=metaplan.freeze({"when": 1})))


def test_the_options_of_rules_and_specs_are_keyword_only() -> None:
    """``InlineRule(("m",), "x.fn")`` read as the local compute target by position; eight
    optional fields by position are a trap, so they are named."""
    with pytest.raises(TypeError, match="positional"):
        metaplan.InlineRule(("m",), "x.fn")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        metaplan.StrategySpec("x.fn", "moe", "MoE")  # type: ignore[call-arg]
    rule = metaplan.InlineRule(("m",), local_compute_target="x.fn")
    assert rule.local_compute_target == "x.fn" and rule.match == ("m",)
    assert metaplan.StrategySpec("x.fn", "moe", target_class="MoE").target_class == "MoE"
