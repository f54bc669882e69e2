"""Every check of ``metaplan verify``: a real plan that passes it, a real plan that breaks it.

Each check is tried on the bundled plans (deepseek_v3.hf5, qwen3_moe.hf5,
llama3_8b.hf4), through the library and through the command, and on
generated plans built to break exactly one check.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

import metaplan
from conftest import DATA, FIXTURES, SMALL_FIXTURES, broken_small_plan, fixture_path, raw_input
from conftest import metaplan_cli as run
from metaplan.core.emitter import is_boundary_entry, parse_placement
from metaplan.core.invariants import CHECKS as CHECK_FUNCTIONS
from metaplan.core.invariants import (
    DEFAULT_CHECKS,
    NORMAL_FORM_CHECKS,
    NOTE_CHECKS,
    Check,
    Context,
    frozen_sharded_params,
    parse_checks,
    placements,
    sharded_params,
    spec_coverage,
)
from metaplan.passes.slimming import slim
from metaplan.testing import (
    TARGETS,
    VERIFY_CHECKS,
    ViolatingPlan,
    sound_plan_dicts,
    violating_plan_dicts,
)

DEEPSEEK, QWEN, UNKNOWN = TARGETS
Raw = dict[str, Any]
Path_ = tuple[Any, ...]
CHECKS = tuple(name for name in CHECK_FUNCTIONS if name not in NORMAL_FORM_CHECKS)
"""The checks a plan as frozen passes (the normal-form ones are tested on their own)."""


def _real(name: str = "deepseek_v3.hf5") -> Raw:
    return json.loads(raw_input(name))  # type: ignore[no-any-return]


def _found(raw: Raw, checks: Any = CHECKS, **settings_: Any) -> list[tuple[str, Path_]]:
    return [(v.check, v.path)
            for v in metaplan.verify(metaplan.Plan.from_json(raw), checks, **settings_)]


# the bundled plans -------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_every_bundled_plan_and_its_normal_form_passes_every_check(name: str) -> None:
    for path in (fixture_path(name), DATA / f"{name}.expected.json.gz"):
        found = metaplan.verification(metaplan.load(path), CHECKS)
        assert found.violations == (), path
        assert found.checks == tuple(CHECKS)
        # lm_head's S(-1) is the one thing worth a note, on every plan
        assert [n.path[1:] for n in found.notes] == [("lm_head", "out_dst", "output", "tp"),
                                                     ("lm_head", "out_src", "output", "tp")]


def _own_builtins() -> metaplan.SpecRegistry:
    """A registry equal to the built-in one, but not it: specs of one's own."""
    return metaplan.SpecRegistry(metaplan.BUILTIN_SPECS.specs, metaplan.BUILTIN_SPECS.aliases)


def test_default_checks_leave_spec_coverage_to_settings_of_ones_own() -> None:
    assert tuple(name for name in CHECKS if name != "spec-coverage") == DEFAULT_CHECKS
    plan = metaplan.Plan.from_json(_with_unknown_target(_real()))
    assert metaplan.verify(plan) == ()
    assert metaplan.verify(plan, specs=metaplan.BUILTIN_SPECS, rules=metaplan.FROM_PLAN) == ()
    for explicit in ({"specs": _own_builtins()},
                     {"rules": metaplan.rules_from_plan(plan)}):
        assert [v.check for v in metaplan.verify(plan, **explicit)] == ["spec-coverage"]
    assert [v.check for v in metaplan.verify(plan, "spec-coverage")] == ["spec-coverage"]


def test_settings_of_ones_own_add_spec_coverage_to_the_defaults_not_replace_them() -> None:
    raw = _with_unknown_target(_real())
    raw["boundary_classes"]["ghost"] = "MLP"  # a class key of no module: class-key fails
    plan = metaplan.Plan.from_json(raw)
    assert [v.check for v in metaplan.verify(plan)] == ["class-key"]
    for explicit in ({"specs": _own_builtins()}, {"rules": metaplan.rules_from_plan(plan)}):
        found = metaplan.verification(plan, **explicit)
        assert [v.check for v in found.violations] == ["class-key", "spec-coverage"]
        assert set(found.checks) == {*DEFAULT_CHECKS, "spec-coverage"}


# one spelling per meaning ------------------------------------------------------------


@settings(max_examples=40)
@given(violating_plan_dicts())
def test_passing_the_defaults_is_not_passing_them(case: ViolatingPlan) -> None:
    plan = metaplan.Plan.from_json(case.meta)
    defaults: dict[str, Any] = {"specs": metaplan.BUILTIN_SPECS, "rules": metaplan.FROM_PLAN,
                                "model_type": metaplan.FROM_PLAN}
    assert metaplan.verify(plan, **defaults) == metaplan.verify(plan)
    assert metaplan.verification(plan, **defaults) == metaplan.verification(plan)
    assert spec_coverage(plan, **defaults) == spec_coverage(plan)
    explicit = metaplan.verifier(**defaults)
    assert explicit == metaplan.verifier() and repr(explicit) == "verify()"
    assert explicit(plan) == metaplan.verify(plan)


def test_spec_coverage_reads_the_rules_the_plan_names_by_default() -> None:
    plan = metaplan.Plan.from_json(_with_unknown_target(_real()))
    (gap,) = spec_coverage(plan, rules=metaplan.FROM_PLAN)
    assert gap.path[0] == "injections" and _RING in gap.message
    assert metaplan.verify(plan, rules=metaplan.FROM_PLAN, specs=metaplan.BUILTIN_SPECS) == ()


def test_no_rules_and_no_specs_are_spelled_as_such() -> None:
    plan = metaplan.Plan.from_json(_with_unknown_target(_real()))
    nothing = metaplan.verification(plan, rules=())
    assert nothing.violations == () and "spec-coverage" in nothing.checks  # nothing to cover
    assert spec_coverage(plan, rules=()) == []
    none = {v.message.split()[4] for v in spec_coverage(plan, specs=metaplan.SpecRegistry())}
    assert none == {DEEPSEEK, _RING}  # no specs: every target is a gap
    # model_type=None is no model type: a spec of deepseek_v3's is then no spec
    specific = metaplan.SpecRegistry.of(
        [
            metaplan.StrategySpec(
                DEEPSEEK, "moe_ep_routed", target_class="DeepseekV3MoE", model_type="deepseek_v3"
            )
        ]
    )
    assert metaplan.verify(metaplan.Plan.from_json(_real()), specs=specific) == ()
    (gap,) = metaplan.verify(metaplan.Plan.from_json(_real()), specs=specific, model_type=None)
    assert "(model type None; gap 1 of 1)" in gap.message


_REFUSERS: dict[str, Callable[..., object]] = {
    "verify": lambda **kw: metaplan.verify(_small(), **kw),
    "verification": lambda **kw: metaplan.verification(_small(), **kw),
    "spec_coverage": lambda **kw: spec_coverage(_small(), **kw),
    "verifier": lambda **kw: metaplan.verifier(**kw),
    "normalize": lambda **kw: metaplan.normalize(_small(), **kw),
    "normalize_pipeline": lambda **kw: metaplan.normalize_pipeline(**kw),
    "build_pipeline": lambda **kw: metaplan.build_pipeline("normalize", **kw),
    "strip_ep_sub_boundaries": lambda **kw: metaplan.strip_ep_sub_boundaries(**kw),
}


@pytest.mark.parametrize("name", sorted(_REFUSERS))
@pytest.mark.parametrize(("setting", "fix"), [
    ("rules", "expected FROM_PLAN or an iterable of InlineRule, found None; pass FROM_PLAN "
              "(the default) for the plan's injections, or () for no rules"),
    ("specs", "expected a SpecRegistry, found None; pass BUILTIN_SPECS (the default), or "
              "SpecRegistry() for no specs")])
def test_none_is_never_the_plans_rules_or_specs(name: str, setting: str, fix: str) -> None:
    with pytest.raises(TypeError) as info:
        _REFUSERS[name](**{setting: None})
    assert str(info.value) == f"{name}({setting}=None): {fix}"


# one passing and one failing real variant per check ----------------------------------


_RING = "example.cp.ring_wrapper"


def _with_unknown_target(raw: Raw) -> Raw:
    raw["injections"].append({"match": "model.layers.*.self_attn",
                              "inner_wrapper": {"_target_": _RING}})
    return raw


def _entry_object(raw: Raw, fail: bool) -> Path_ | None:
    if fail:
        raw["param_plan"]["model.junk"] = "not an entry"
        return ("param_plan", "model.junk")
    raw["param_plan"]["model.layers.10.mlp.experts"]["x_note"] = "any key"  # still an object
    return None


def _boundary_class(raw: Raw, fail: bool) -> Path_ | None:
    # upstream's predicate: without is_boundary, a non-empty contract makes a boundary;
    # an explicit is_boundary: false wins over a contract
    if fail:
        raw["param_plan"]["model.extra"] = {"out_names": ["output"]}
        return ("param_plan", "model.extra")
    raw["param_plan"]["model.extra"] = {"is_boundary": False,
                                        "in_src": {"hidden_states": {"tp": "R"}}}
    return None


def _class_key(raw: Raw, fail: bool) -> Path_ | None:
    if fail:
        raw["boundary_classes"]["model.ghost"] = "DeepseekV3MLP"
        return ("boundary_classes", "model.ghost")
    raw["param_plan"]["model.extra"] = {"params": {}}
    raw["boundary_classes"]["model.extra"] = "DeepseekV3MLP"  # a class for a non-boundary
    return None


def _single_contract(raw: Raw, fail: bool) -> Path_ | None:
    if fail:  # a key outside the old five: the whole entry counts, params aside
        raw["param_plan"]["model.layers.1.mlp"]["region_dispatch"] = True
        return ("boundary_classes", "model.layers.1.mlp")
    raw["param_plan"]["model.layers.10.mlp.experts"]["in_src"] = {"x": {"tp": "S(0)"}}
    return None  # a non-boundary of the class may differ


def _injection_agreement(raw: Raw, fail: bool) -> Path_ | None:
    if fail:
        raw["injections"].append({"match": "model.layers.4.mlp", "local_compute_fn": QWEN})
        return ("injections", len(raw["injections"]) - 1, "local_compute_fn")
    raw["injections"].append({"match": "model.layers.*.mlp", "local_compute_fn": QWEN})
    return None  # a glob resolves to no class, as upstream reads it


def _spec_coverage(raw: Raw, fail: bool) -> Path_ | None:
    if fail:
        _with_unknown_target(raw)
        return ("injections", len(raw["injections"]) - 1, "inner_wrapper")
    raw["injections"].append({"match": "model.layers.*.mlp", "local_compute_fn": DEEPSEEK})
    return None


def _non_empty(raw: Raw, fail: bool) -> Path_ | None:
    if fail:
        raw["param_plan"], raw["boundary_classes"], raw["frozen_sharded_params"] = {}, {}, []
        return ("param_plan",)
    keep = "model.norm"
    raw["param_plan"] = {keep: raw["param_plan"][keep]}
    raw["boundary_classes"] = {keep: raw["boundary_classes"][keep]}
    raw["frozen_sharded_params"], raw["injections"] = [], []
    return None


def _frozen_sharded_params(raw: Raw, fail: bool) -> Path_ | None:
    params = raw["param_plan"]["model.layers.0.mlp"]["params"]
    if fail:
        params["down_proj.weight"]["tp"] = "R"
        return ("frozen_sharded_params",)
    params["extra.bias"] = {"tp": "R"}  # an all-R param is not sharded
    params["down_proj.weight"]["tp"] = "SS(1,2)"  # a strided shard is
    return None


def _placement(raw: Raw, fail: bool) -> Path_ | None:
    entry = raw["param_plan"]["lm_head"]
    if fail:
        entry["in_src"]["hidden_states"]["tp"] = "S(zero)"
        return ("param_plan", "lm_head", "in_src", "hidden_states", "tp")
    entry["in_src"]["hidden_states"] = {"tp": "P(avg)", "ep": "R"}
    entry["out_src"]["output"]["tp"] = "SS(-1, 4)"  # a negative dim is a note, not a violation
    return None


def _schema(raw: Raw, fail: bool) -> Path_ | None:
    if fail:
        raw["covered"]["sharding_plan"] = "yes"
        return ("covered", "sharding_plan")
    del raw["signature"], raw["yaml_sha256"]  # only present fields are typed
    return None


VARIANTS: dict[str, Callable[[Raw, bool], Path_ | None]] = {
    "entry-object": _entry_object, "boundary-class": _boundary_class, "class-key": _class_key,
    "single-contract": _single_contract, "injection-agreement": _injection_agreement,
    "spec-coverage": _spec_coverage, "non-empty": _non_empty,
    "frozen-sharded-params": _frozen_sharded_params, "placement": _placement,
    "schema": _schema,
}


def test_every_check_has_variants() -> None:
    assert set(VARIANTS) == set(CHECKS) - set(NOTE_CHECKS) == set(VERIFY_CHECKS)


@pytest.mark.parametrize("check", list(VARIANTS))
def test_each_check_through_the_library(check: str) -> None:
    good, bad = _real(), _real()
    assert VARIANTS[check](good, False) is None
    assert _found(good) == []
    path = VARIANTS[check](bad, True)
    assert _found(bad) == [(check, path)]
    assert _found(bad, [check]) == [(check, path)]
    others = [name for name in CHECKS if name != check]
    assert _found(bad, others) == []


@pytest.mark.parametrize("check", list(VARIANTS))
def test_each_check_through_the_command(check: str, tmp_path: Path) -> None:
    good, bad = _real(), _real()
    VARIANTS[check](good, False)
    path = VARIANTS[check](bad, True)
    (tmp_path / "good.json").write_text(json.dumps(good))
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    explicit = ["--specs", str(DATA / "specs.json")] if check == "spec-coverage" else []
    passed = run("verify", tmp_path / "good.json", *explicit)
    assert passed.returncode == 0, passed.stdout
    assert passed.stdout.startswith(f"{tmp_path / 'good.json'}: ok (".encode())
    failed = run("verify", tmp_path / "bad.json", "--format", "json", *explicit)
    assert failed.returncode == 1, failed.stderr
    report = json.loads(failed.stdout)
    assert [(v["check"], tuple(v["path"])) for v in report["violations"]] == [(check, path)]
    assert report["violations"][0]["message"]
    assert check in report["checks"]
    text = run("verify", tmp_path / "bad.json", "--checks", check)
    assert text.returncode == 1
    assert text.stdout.decode().splitlines()[0].endswith(f"1 violation(s) ({check}: 1)")


# the messages say what, where, and how to fix it ---------------------------------------


def _message(check: str) -> str:
    raw = _real()
    VARIANTS[check](raw, True)
    (violation,) = metaplan.verify(metaplan.Plan.from_json(raw), [check])
    return violation.message


def test_messages_name_what_was_expected_and_found() -> None:
    assert "no is_boundary; it has out_names" in _message("boundary-class")
    assert ("model.layers.0.mlp has region_dispatch (absent), model.layers.1.mlp has true"
            in _message("single-contract"))
    agreement = _message("injection-agreement")
    assert ("class DeepseekV3MoE has conflicting local_compute_fn: injections[0] (match "
            "model.layers.3.mlp) has") in agreement
    coverage = _message("spec-coverage")
    assert coverage.startswith("no strategy spec for example.cp.ring_wrapper (model type "
                               "'deepseek_v3' from the plan's model_type; gap 1 of 1)")
    assert "1 listed but with no S/SS/P placement (model.layers.0.mlp.down_proj.weight)" \
        in _message("frozen-sharded-params")
    assert '"S(zero)" does not parse: S(zero) has no integer dim' in _message("placement")
    assert _message("schema") == 'must be a boolean, found a string ("yes")'


def test_spec_coverage_reports_every_gap_at_once() -> None:
    raw = _with_unknown_target(_real())
    raw["injections"].append({"match": "lm_head", "local_compute_fn": UNKNOWN})
    raw["injections"].append({"match": "model.norm", "local_compute_fn": UNKNOWN})
    found = metaplan.verify(metaplan.Plan.from_json(raw), ["spec-coverage"])
    assert [v.path for v in found] == [("injections", 58, "inner_wrapper"),
                                       ("injections", 59, "local_compute_fn")]
    assert "gap 2 of 2); also named at injections[60].local_compute_fn" in found[1].message
    rules = [metaplan.InlineRule(match=("x",), local_compute_target=UNKNOWN,
                                 inner_wrapper_target=DEEPSEEK)]
    by_rules = metaplan.verify(metaplan.Plan.from_json(_real()), rules=rules)
    assert [(v.check, v.path) for v in by_rules] == [
        ("spec-coverage", ("rules", 0, "local_compute_target"))]


def test_spec_coverage_uses_the_model_type_and_its_aliases() -> None:
    specific = metaplan.SpecRegistry.of(
        [
            metaplan.StrategySpec(
                DEEPSEEK, "moe_ep_routed", target_class="DeepseekV3MoE", model_type="deepseek_v3"
            )
        ],
        {"DSV3": "deepseek_v3"},
    )
    raw = _real()
    plan = metaplan.Plan.from_json(raw)
    assert metaplan.verify(plan, specs=specific) == ()
    assert metaplan.verify(plan, specs=specific, model_type="DSV3") == ()
    found = metaplan.verify(plan, specs=specific, model_type="llama")
    assert len(found) == 1 and "(model type 'llama'; gap 1 of 1)" in found[0].message
    del raw["model_type"]  # model_class DeepseekV3ForCausalLM: the same family by spelling
    assert metaplan.verify(metaplan.Plan.from_json(raw), specs=specific) == ()


def test_the_command_runs_spec_coverage_when_asked_for(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_with_unknown_target(_real())))
    assert run("verify", plan).returncode == 0
    assert run("verify", plan, "--checks", "spec-coverage").returncode == 1
    assert run("verify", plan, "--specs", DATA / "specs.json").returncode == 1
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"match": ["model.layers.3.mlp"],
                                            "local_compute_target": DEEPSEEK}]}))
    assert run("verify", plan, "--rules", rules).returncode == 0  # the rules replace injections
    typed = run("verify", plan, "--checks", "spec-coverage", "--model-type", "qwen3_moe")
    assert typed.returncode == 1 and b"(model type 'qwen3_moe'; gap 1 of 1)" in typed.stdout


# the boundary predicate and placements, alone --------------------------------------------


def test_a_boundary_without_a_class_says_why_it_is_a_boundary() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {
        "a": {"is_boundary": True}, "b": {"is_boundary": 1},
        "c": {"in_src": {"x": {"tp": "R"}}, "out_names": ["y"], "in_dst": {}},
        "d": {"is_boundary": None, "out_dst": {"y": {"tp": "R"}}}, "e": {"is_boundary": True}},
        "boundary_classes": {"e": ""}})
    found = {v.path[1]: v.message for v in metaplan.verify(plan, ["boundary-class"])}
    assert found["a"] == ("a boundary with no class in boundary_classes; add its class, or "
                          "mark it is_boundary: false")
    assert found["b"].startswith("a boundary (is_boundary is a number (1), which is truthy) "
                                 "with no class")
    assert found["c"].startswith("a boundary (no is_boundary; it has in_src, out_names) with")
    assert found["d"].startswith("a boundary (no is_boundary; it has out_dst) with no class")
    assert found["e"].startswith('a boundary with a class that is a string (""), not a class '
                                 "name; add its class")


def test_entries_given_as_other_mappings_are_objects() -> None:
    from pyrsistent import pmap

    fields: dict[str, Any] = {"param_plan": pmap({"m": {"is_boundary": False}, "n": "junk"})}
    found = metaplan.verify(metaplan.Plan(pmap(fields)), ["entry-object"])
    assert [(v.check, v.path) for v in found] == [("entry-object", ("param_plan", "n"))]
    fields["injections"] = ("junk", {"match": "m", "local_compute_fn": UNKNOWN},
                            {"match": "m", "local_compute_fn": {"_target_": 5}})
    found = metaplan.verify(metaplan.Plan(pmap(fields)), ["spec-coverage"])
    assert [v.path for v in found] == [("injections", 1, "local_compute_fn")]


def test_spec_coverage_reads_targets_in_every_form_and_skips_empty_ones() -> None:
    forms: list[Any] = ["", UNKNOWN, {"target": UNKNOWN}, {"_target_": UNKNOWN},
                        {"_target_": "", "target": UNKNOWN}, {"_target_": ""}, {"target": ""},
                        {"other": UNKNOWN}, None]
    plan = metaplan.Plan.from_json({"param_plan": {"m": {}}, "injections": [
        {"match": "m", "local_compute_fn": form} for form in forms]})
    found = metaplan.verify(plan, ["spec-coverage"])
    assert [v.path for v in found] == [("injections", 1, "local_compute_fn")]
    assert "also named at injections[2].local_compute_fn, injections[3].local_compute_fn, " \
        "injections[4].local_compute_fn" in found[0].message


def test_a_contract_difference_names_a_key_other_than_params() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {
        "a": {"is_boundary": True, "params": {"w": {"tp": "R"}}},
        "b": {"is_boundary": True, "params": {"w": {"tp": "S(0)"}},
              "skip_source_lowering": True}, "c": {"is_boundary": True}},
        "boundary_classes": {"a": "C", "b": "C", "c": "C"}})
    (found,) = metaplan.verify(plan, ["single-contract"])
    assert found.message.startswith("class C has 2 boundary contracts: a has "
                                    "skip_source_lowering (absent), b has true")


def test_spec_coverage_messages_say_the_model_type_its_source_and_every_place() -> None:
    def message(model_type: str | None, count: int) -> str:
        raw: Raw = {"param_plan": {"m": {}}, "injections": [
            {"match": f"m{i}", "local_compute_fn": UNKNOWN} for i in range(count)]}
        if model_type is not None:
            raw["model_type"] = model_type
        (found,) = metaplan.verify(metaplan.Plan.from_json(raw), ["spec-coverage"])
        return found.message

    named = [f"injections[{i}].local_compute_fn" for i in range(1, 6)]
    assert message(None, 1) == (f"no strategy spec for {UNKNOWN} (model type None; gap 1 of "
                                "1); add a spec for it (--specs), or fix the target")
    assert message(None, 6).endswith(f"gap 1 of 1); also named at {', '.join(named[:3])} and "
                                     "2 more; add a spec for it (--specs), or fix the target")
    assert f"gap 1 of 1); also named at {', '.join(named[:3])}; add" in message(None, 4)
    assert f"also named at {', '.join(named[:3])} and 1 more; add" in message(None, 5)
    assert f"gap 1 of 1); also named at {named[0]}; add" in message(None, 2)
    assert ("(model type 'DeepseekV3ForCausalLM' from the plan's model_type, read as "
            "'deepseek_v3'; gap 1 of 1)") in message("DeepseekV3ForCausalLM", 1)
    assert "(model type 'deepseek_v3' from the plan's model_type; gap" in message(
        "deepseek_v3", 1)


def test_frozen_sharded_params_messages_show_three_names_and_count_the_rest() -> None:
    def message(listed: list[str]) -> str:
        plan = metaplan.Plan.from_json({
            "param_plan": {"m": {"params": {"w": {"tp": "S(0)"}, "v": {"tp": "R"}}}},
            "mesh_dim_names": ["tp"], "frozen_sharded_params": listed})
        assert sharded_params(plan) == ["m.w"]
        (found,) = metaplan.verify(plan, ["frozen-sharded-params"])
        return found.message

    assert message(["a.w", "b.w", "c.w", "d.w", "e.w"]).endswith(
        "1 sharded param(s) not listed (m.w); 5 listed but with no S/SS/P placement (a.w, b.w, "
        "c.w and 2 more)")
    assert message(["a.w", "b.w", "c.w", "m.w"]).endswith(
        "sorted: 3 listed but with no S/SS/P placement (a.w, b.w, c.w)")
    assert message(["a.w", "b.w", "c.w", "d.w", "m.w"]).endswith("(a.w, b.w, c.w and 1 more)")


def test_frozen_sharded_params_each_way_it_can_be_wrong() -> None:
    base: Raw = {"param_plan": {"m": {"params": {"w": {"tp": "S(0)"}, "u": {"tp": "SS(0,2)"},
                                                 "v": {"tp": "R"}}}}, "mesh_dim_names": ["tp"]}

    def found(listed: Any = None, sharded: set[str] | None = None) -> list[str]:
        raw = base if listed is None else {**base, "frozen_sharded_params": listed}
        plan = metaplan.Plan.from_json(raw)
        return [v.message.removeprefix("must list FQN.param of every param with a non-R "
                                       "placement, sorted: ")
                for v in frozen_sharded_params(plan, sharded)]

    assert found() == [] and found(["m.u", "m.w"]) == []
    assert found("m.w") == ['must be an array of parameter FQNs, found a string ("m.w")']
    assert found(["m.w", 5]) == ["must be an array of parameter FQNs, found an array"]
    assert found(["m.u", "m.w", "m.w"]) == ["1 listed twice"]
    assert found(["m.w", "m.u"]) == ["the right names, out of order"]
    assert found(["m.u"]) == ["1 sharded param(s) not listed (m.w)"]
    assert found(["m.u", "m.w", "x.w"]) == ["1 listed but with no S/SS/P placement (x.w)"]
    assert found(["x.w"], {"x.w"}) == []  # the caller's set, when given, is the one wanted
    assert found(["m.u", "m.w"], {"x.w"}) == [
        "1 sharded param(s) not listed (x.w); 2 listed but with no S/SS/P placement (m.u, m.w)"]


def test_placements_are_judged_against_mesh_dim_names_when_they_are_names() -> None:
    junk = ("placement", ("param_plan", "m", "in_src"),
            'expected an object of name -> {axis: placement}, found a string ("junk")')
    bad = ("placement", ("param_plan", "m", "params", "w", "tp"), '"S(x)" does not parse: '
           "S(x) has no integer dim; write R, S(dim), P(reduce_op) or SS(dim,factor)")

    def found(names: Any) -> list[tuple[str, Path_, str]]:
        raw: Raw = {"param_plan": {"m": {"in_src": "junk",
                                         "params": {"w": {"tp": "S(x)", "dp": "R"}}}}}
        if names is not None:
            raw["mesh_dim_names"] = names
        return [(v.check, v.path, v.message)
                for v in metaplan.verify(metaplan.Plan.from_json(raw), ["placement"])]

    assert found(None) == found([]) == [junk, bad]  # no names: any axis
    odd = ("placement", ("mesh_dim_names",), "must be an array of axis names, found ")
    assert found(["tp", 5]) == [(*odd[:2], odd[2] + "an array"), junk, bad]
    assert found("") == [(*odd[:2], odd[2] + 'a string ("")'), junk, bad]
    assert found(["tp"]) == [junk, ("placement", ("param_plan", "m", "params", "w", "dp"),
                                    'axis "dp" is not in mesh_dim_names [tp]: the runtime '
                                    "resolves placements on those axes only, so this one "
                                    "would be silently ignored"), bad]
    nulls = metaplan.Plan.from_json({"param_plan": {"n": {
        "params": {"w": None, "u": {"tp": None, "dp": 5, "ep": "S(x)"}}, "in_src": "junk",
        "out_src": {"y": {"tp": "S(y)"}}}}})  # null names and axes are skipped; all is judged
    assert [v.path for v in metaplan.verify(nulls, ["placement"])] == [
        ("param_plan", "n", "in_src"), ("param_plan", "n", "out_src", "y", "tp"),
        ("param_plan", "n", "params", "u", "dp"), ("param_plan", "n", "params", "u", "ep")]
    assert [v.path for v in placements(nulls)] == [v.path for v in metaplan.verify(
        nulls, ["placement"])]
    unnamed = metaplan.Plan.from_json({"param_plan": {"m": {"params": {
        "": {"tp": "S(0)"}, "w": {"tp": "R"}}}}})
    assert sharded_params(unnamed) == ["m"]  # a param with no name is the module's own
    odd_value = metaplan.Plan.from_json({"param_plan": {"n": {"out_src": {"y": {"tp": ["S(0)"]}}}}})
    assert [(v.path, v.message) for v in metaplan.verify(odd_value, ["placement"])] == [
        (("param_plan", "n", "out_src", "y", "tp"), "a placement is a string (R, S(dim), "
         "P(reduce_op) or SS(dim,factor)), found an array")]


@pytest.mark.parametrize(("key", "bad", "path", "need", "good"), [
    ("codegen_version", 5, (), "a string, found a number (5)", "0.3"),
    ("signature", 5, (), "a string, found a number (5)", "s"),
    ("yaml_path", 5, (), "a string, found a number (5)", "a.yaml"),
    ("yaml_sha256", [], (), "a string, found an array", "0" * 64),
    ("source", "x", (), 'an object, found a string ("x")', {"architecture": "A"}),
    ("parallel_dims", [], (), "an object, found an array", {"tp": 2}),
    ("outputs", 1, (), "an object, found a number (1)", {}),
    ("entrypoints", {"a": "f", "b": 3}, ("b",), "a string (a function name), found a number (3)",
     {"a": "f"}),
    ("entrypoints", [], (), "an object of name -> function name, found an array", {}),
    ("covered", {"sharding_plan": 1}, ("sharding_plan",), "a boolean, found a number (1)",
     {"sharding_plan": False}),
    ("covered", "x", (), 'an object with a boolean sharding_plan, found a string ("x")',
     {"sharding_plan": True}),
    ("not_covered", ["a", 1], (1,), "a string, found a number (1)", ["a"]),
    ("remote_siblings", "x", (), 'an array (of items that are a string), found a string ("x")',
     []),
    ("external_state_classes", ("A", 2), (1,), "a string, found a number (2)", ("A",)),
    ("module_overrides", ({"match": "a"}, "x"), (1,), 'an object, found a string ("x")',
     ({"match": "a"},)),
    ("module_overrides", "x", (), 'an array (of items that are an object), found a string ("x")',
     ()),
])
def test_each_schema_field_has_its_type(key: str, bad: Any, path: Path_, need: str,
                                         good: Any) -> None:
    from pyrsistent import pmap

    def found(value: Any) -> list[tuple[Path_, str]]:
        plan = metaplan.Plan(pmap({"param_plan": pmap({"m": {}}), key: metaplan.freeze(value)}))
        return [(v.path, v.message) for v in metaplan.verify(plan, ["schema"])]

    assert found(bad) == [((key, *path), f"must be {need}")]
    assert found(good) == []


def test_check_names_are_read_once_each_and_unknown_ones_named() -> None:
    assert parse_checks(" class_key, single-contract,class-key") == ("class-key",
                                                                     "single-contract")
    assert parse_checks(["schema", "schema"]) == ("schema",)
    with pytest.raises(metaplan.SpecError, match=r"^checks: unknown check 'zzz'; known: "):
        parse_checks("zzz")


def test_a_verification_holds_only_what_its_checks_found() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"params": {"w": {"tp": "S(-1)"}}}},
                                    "frozen_sharded_params": ["m.w"]})
    alone = metaplan.verification(plan, ["frozen-sharded-params"])
    assert alone.violations == () and alone.notes == ()  # notes are the placement check's
    assert alone.checks == ("frozen-sharded-params",)
    both = metaplan.verification(plan, ["placement", "frozen-sharded-params"])
    assert [note.path for note in both.notes] == [("param_plan", "m", "params", "w", "tp")]
    assert both.checks == ("frozen-sharded-params", "placement")


def test_a_verifier_is_a_frozen_value_named_by_its_settings() -> None:
    chosen = metaplan.verifier(
        ["schema"], rules=[metaplan.InlineRule(("x",), local_compute_target="a.b")]
    )
    assert chosen.__name__ == repr(chosen)
    assert repr(chosen).startswith("verify(checks=('schema',), rules=")
    assert "1 rules" in repr(chosen)
    assert metaplan.verifier().__name__ == "verify()"
    assert metaplan.verifier(model_type=None).__name__ == "verify(model_type=None)"
    with pytest.raises(AttributeError):
        chosen.checks = None  # type: ignore[attr-defined]


def test_a_verifier_reads_rules_given_as_an_iterator_once() -> None:
    rule = metaplan.InlineRule(("x",), local_compute_target=UNKNOWN)
    chosen = metaplan.verifier("spec-coverage", rules=iter([rule]))
    first = tuple(chosen(_small()))
    assert [v.check for v in first] == ["spec-coverage"] and UNKNOWN in first[0].message
    assert tuple(chosen(_small())) == first  # every run sees the rule, not only the first
    assert repr(chosen) == "verify(checks=('spec-coverage',), rules=<1 rules>)"


def test_the_boundary_predicate_is_upstreams() -> None:
    cases: dict[bool, tuple[Any, ...]] = {
        True: ({"is_boundary": True}, {"is_boundary": 1}, {"is_boundary": "false"},
               {"in_src": {"x": {}}}, {"out_names": ["y"]}, {"is_boundary": None, "out_dst": {
                   "y": {"tp": "R"}}}),
        False: ({"is_boundary": False, "in_src": {"x": {"tp": "R"}}}, {"is_boundary": 0},
                {"in_src": {}, "out_names": []}, {"params": {"w": {"tp": "S(0)"}}}, {},
                "junk", None, ["in_src"]),
    }
    for expected, entries in cases.items():
        for entry in entries:
            assert is_boundary_entry(entry) is expected, entry
            if isinstance(entry, dict):
                assert is_boundary_entry(metaplan.freeze(entry)) is expected, entry


@pytest.mark.parametrize("text", ["R", "S(0)", "S(-1)", "S( 2 )", "P(sum)", "P(avg)",
                                  "SS(0,2)", "SS(-1, 4)"])
def test_placements_upstream_parses(text: str) -> None:
    assert parse_placement(text).kind == text.split("(")[0]


@pytest.mark.parametrize("text", ["", "r", "S", "S()", "S(x)", "S(0,1)", "P()", "SS(1)",
                                  "SS(1,2,3)", "SS(0,x)", "Shard(0)", "R(0)", " R"])
def test_placements_upstream_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_placement(text)


def test_placement_axes_odd_shapes_and_notes() -> None:
    raw = _real("llama3_8b.hf4")
    entry = raw["param_plan"]["model.norm"]
    entry["params"]["weight"] = {"dp": "R"}
    entry["params"]["bias"] = "S(0)"
    entry["in_src"] = {"x": {"tp": 0}}
    entry["in_dst"] = ["R"]
    found = metaplan.verify(metaplan.Plan.from_json(raw), ["placement"])
    assert [v.path[2:] for v in found] == [("in_dst",), ("in_src", "x", "tp"),
                                           ("params", "bias"), ("params", "weight", "dp")]
    assert "axis \"dp\" is not in mesh_dim_names [ep, tp]" in found[3].message
    raw["mesh_dim_names"] = None  # no active axes named: any axis goes
    found = metaplan.verify(metaplan.Plan.from_json(raw), ["placement"])
    assert [v.path[-1] for v in found] == ["in_dst", "tp", "bias"]
    raw["mesh_dim_names"] = "tp"
    first = metaplan.verify(metaplan.Plan.from_json(raw), ["placement"])[0]
    assert first.path == ("mesh_dim_names",)


def test_notes_are_shown_and_do_not_fail(tmp_path: Path) -> None:
    done = run("verify", fixture_path("llama3_8b.hf4"))
    assert done.returncode == 0
    lines = done.stdout.decode().splitlines()
    assert lines[1].startswith('  note: placement: param_plan["lm_head"].out_dst.output.tp: '
                               "S(-1) has a negative dim: an uneven shard of dim 0")
    as_json = json.loads(run("verify", fixture_path("llama3_8b.hf4"), "--format", "json").stdout)
    assert as_json["violations"] == [] and len(as_json["notes"]) == 2


# the same checks between passes --------------------------------------------------------


def test_verify_each_and_verified_pipelines_use_the_same_checks(tmp_path: Path) -> None:
    raw = _real()
    _placement(raw, True)
    plan = metaplan.Plan.from_json(raw)
    with pytest.raises(metaplan.VerificationError) as info:
        metaplan.normalize_pipeline().verified(metaplan.verify).run(plan)
    assert [v.check for v in info.value.violations] == ["placement"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    done = run("normalize", path, "--verify-each", "-o", tmp_path / "out.json")
    assert done.returncode == 1 and b"placement: param_plan[\"lm_head\"]" in done.stderr
    # --specs brings spec-coverage along, as it does for verify
    covered = tmp_path / "uncovered.json"
    covered.write_text(json.dumps(_with_unknown_target(_real())))
    assert run("normalize", covered, "--verify-each", "-o", tmp_path / "o.json").returncode == 0
    strict = run("normalize", covered, "--verify-each", "--specs", DATA / "specs.json", "-o",
                 tmp_path / "o.json")
    assert strict.returncode == 1 and b"spec-coverage" in strict.stderr
    named = metaplan.verifier(specs=_own_builtins())
    assert repr(named) == "verify(specs=SpecRegistry(<2 specs, 2 aliases>))"
    line = metaplan.pipeline(metaplan.strip_external_state_boundaries()).verified(named)
    with pytest.raises(metaplan.VerificationError, match="spec-coverage"):
        line.run(metaplan.Plan.from_json(_with_unknown_target(_real())))


def test_bisect_uses_the_verify_settings(tmp_path: Path) -> None:
    covered = tmp_path / "uncovered.json"
    covered.write_text(json.dumps(_with_unknown_target(_real())))
    assert run("bisect", covered).returncode == 1
    found = run("bisect", covered, "--specs", DATA / "specs.json")
    assert found.returncode == 0 and b"state 0, the input" in found.stdout


# generated plans -------------------------------------------------------------------------


@settings(max_examples=60)
@given(sound_plan_dicts())
def test_sound_plans_pass_and_the_passes_keep_them_sound(meta: Raw) -> None:
    plan = metaplan.Plan.from_json(meta)
    assert metaplan.verify(plan, CHECKS) == ()
    assert metaplan.verify(metaplan.loads(metaplan.dumps(plan)), CHECKS) == ()
    assert metaplan.verify(metaplan.normalize(plan).plan, CHECKS) == ()
    assert metaplan.verify(slim(plan).plan, CHECKS) == ()


@pytest.mark.parametrize("check", VERIFY_CHECKS)
def test_generated_violations_are_reported_exactly(check: str) -> None:
    @settings(max_examples=30)
    @given(violating_plan_dicts(check))
    def reported(case: ViolatingPlan) -> None:
        assert case.check == check
        before = copy.deepcopy(case.meta)
        found = [(v.check, v.path)
                 for v in metaplan.verify(metaplan.Plan.from_json(case.meta), CHECKS)]
        assert found == [(check, case.path)]
        assert case.meta == before  # verify reads, never writes

    reported()


def test_violating_plan_dicts_refuses_an_unknown_check() -> None:
    with pytest.raises(ValueError, match="unknown check 'nope'"):
        violating_plan_dicts("nope")


@pytest.mark.parametrize("name", SMALL_FIXTURES)
def test_slim_keeps_the_small_real_plans_sound(name: str) -> None:
    plan = metaplan.load(fixture_path(name))
    assert metaplan.verify(slim(plan).plan, CHECKS) == ()


# the checks through the library, on the small real plan -------------------------------


def _small() -> metaplan.Plan:
    return metaplan.load(fixture_path("deepseek_v3.hf5"))


@pytest.mark.parametrize("name", FIXTURES)
def test_real_plans_and_their_normal_forms_verify(name: str) -> None:
    plan = metaplan.load(fixture_path(name))
    assert metaplan.verify(plan) == ()
    assert metaplan.verify(metaplan.normalize(plan).plan) == ()


def test_each_check_names_the_place_and_what_is_wrong() -> None:
    found = metaplan.verify(metaplan.Plan.from_json(broken_small_plan()))
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
    assert metaplan.verify(metaplan.Plan.from_json(broken_small_plan()),
                           ["class-key"]) == (found[2],)
    with pytest.raises(metaplan.SpecError, match="unknown check"):
        metaplan.verify(_small(), ["no-such-check"])


def test_params_may_differ_within_a_class() -> None:
    raw = _small().to_json()
    raw["param_plan"]["model.layers.1.mlp"]["params"]["other.weight"] = {"tp": "R"}
    assert metaplan.verify(metaplan.Plan.from_json(raw)) == ()


def test_checks_are_listed_in_order() -> None:
    assert list(CHECKS) == ["entry-object", "boundary-class", "class-key", "single-contract",
                            "injection-agreement", "spec-coverage", "non-empty",
                            "frozen-sharded-params", "placement", "schema", "boundary-reading"]


def test_single_contract_counts_every_contract() -> None:
    raw = _small().to_json()
    raw["param_plan"]["model.layers.1.mlp"]["in_src"] = {"hidden_states": {"tp": "S(0)"}}
    raw["param_plan"]["model.layers.2.mlp"]["in_src"] = {"hidden_states": {"tp": "S(1)"}}
    found = metaplan.verify(metaplan.Plan.from_json(raw), "single-contract")
    assert [v.path[1] for v in found] == ["model.layers.1.mlp", "model.layers.2.mlp"]
    assert all("has 3 boundary contracts: model.layers.0.mlp" in v.message for v in found)


# the normal-form checks: what normalize establishes ---------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_normal_forms_pass_the_normal_form_checks_and_inputs_may_not(name: str) -> None:
    plan = metaplan.load(fixture_path(name))
    assert metaplan.verify(metaplan.normalize(plan).plan, NORMAL_FORM_CHECKS) == ()
    assert metaplan.verify(metaplan.load(DATA / f"{name}.expected.json.gz"),
                           NORMAL_FORM_CHECKS) == ()
    found = {v.check for v in metaplan.verify(plan, NORMAL_FORM_CHECKS)}
    assert found == {"llama3_8b.hf4": set(), "qwen3_moe.hf4": {"external-state", "shared-class"}
                     }.get(name, {"external-state"})
    assert not found & set(DEFAULT_CHECKS)  # verify(plan) leaves them out


def test_external_state_names_each_class_key_of_an_external_class() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"a": {"is_boundary": True}, "b": {}, "c": {}},
        "boundary_classes": {"a": "MoE", "b": "MoE", "c": "MLP"},
        "external_state_classes": ["MoE"]})
    found = metaplan.verify(plan, "external-state")
    assert [v.path for v in found] == [("boundary_classes", "a"), ("boundary_classes", "b")]
    assert "class MoE is an external-state class" in found[0].message
    assert metaplan.verify(metaplan.normalize(plan).plan, "external-state") == ()


def test_shared_class_names_each_unmarked_boundary_of_a_shared_class() -> None:
    raw: dict[str, Any] = {
        "param_plan": {"dense": {"is_boundary": True}, "shared": {"is_boundary": False},
                          "other": {"out_names": ["y"]}, "marked": {
                              "is_boundary": True, "skip_source_lowering": True},
                          "lone": {"is_boundary": True}, "junk": 3},
           "boundary_classes": {"dense": "MLP", "shared": "MLP", "other": "MLP",
                                "marked": "MLP", "lone": "Norm", "junk": "MLP"}}
    found = metaplan.verify(metaplan.Plan.from_json(raw), "shared-class")
    assert [v.path for v in found] == [("param_plan", "dense"), ("param_plan", "other")]
    assert "which non-boundary shared shares" in found[0].message
    raw["param_plan"]["zz"] = {"is_boundary": False}
    raw["boundary_classes"]["zz"] = "MLP"
    again = metaplan.verify(metaplan.Plan.from_json(raw), "shared-class")
    assert "which non-boundary shared shares" in again[0].message  # the first by FQN
    marked = metaplan.mark_shared_class_boundaries()(metaplan.Plan.from_json(raw)).plan
    assert metaplan.verify(marked, "shared-class") == ()
    raw["param_plan"]["aa"] = {"is_boundary": False}  # last in the map, first by FQN
    raw["boundary_classes"]["aa"] = "MLP"
    last = metaplan.verify(metaplan.Plan.from_json(raw), "shared-class")
    assert "which non-boundary aa shares" in last[0].message  # by FQN, not by map order


def test_modules_without_a_class_share_none() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"free": {"is_boundary": False}, "lone": {"is_boundary": True},
                       "dense": {"is_boundary": True}},
        "boundary_classes": {"dense": "MLP"}})  # neither free nor lone has a class
    assert metaplan.verify(plan, "shared-class") == ()


def test_the_command_runs_the_normal_form_checks_when_asked(tmp_path: Path) -> None:
    name = "deepseek_v3.hf5"
    asked = ("--checks", "external-state,shared-class")
    assert run("verify", fixture_path(name)).returncode == 0
    failed = run("verify", fixture_path(name), *asked)
    assert failed.returncode == 1 and b"external-state:" in failed.stdout
    assert run("verify", DATA / f"{name}.expected.json.gz", *asked).returncode == 0


# the registry is uniform -----------------------------------------------------------------


def test_the_registry_holds_checks_that_say_when_they_run() -> None:
    assert all(isinstance(check, Check) and check.name == name
               for name, check in CHECK_FUNCTIONS.items())
    runs = {name: check.runs for name, check in CHECK_FUNCTIONS.items()}
    assert [name for name, when in runs.items() if when == "with settings"] == ["spec-coverage"]
    assert NORMAL_FORM_CHECKS == ("external-state", "shared-class")
    assert tuple(name for name, when in runs.items() if when == "always") == DEFAULT_CHECKS
    assert NOTE_CHECKS == ("boundary-reading",)


def _negative_dim(meta: Raw) -> Raw:
    """``meta`` with one more entry: a negative dim (a placement note) and no ``is_boundary``
    and no contract (a boundary-reading note)."""
    meta = copy.deepcopy(meta)
    meta["param_plan"]["zz.negative"] = {"params": {"w": {"tp": "S(-1)"}}}
    return meta


@settings(max_examples=25)
@given(violating_plan_dicts())
def test_each_check_alone_finds_what_a_verification_of_it_finds(case: ViolatingPlan) -> None:
    for meta in (case.meta, _negative_dim(case.meta)):
        plan = metaplan.Plan.from_json(meta)
        context = Context(plan)
        for name, check in CHECK_FUNCTIONS.items():
            alone = metaplan.verification(plan, [name], strict=check.notes_only)
            assert check(plan) == list(alone.violations), name
            found = check.find(context)
            lax = metaplan.verification(plan, [name])
            assert (tuple(found.violations), tuple(sorted(found.notes))) == (
                lax.violations, lax.notes), name
        assert context.walk is context.walk  # one walk for every check of a verification
        every = metaplan.verification(plan, list(CHECK_FUNCTIONS), strict=True)
        assert every.violations == tuple(
            violation for name in CHECK_FUNCTIONS
            for violation in metaplan.verification(plan, [name], strict=True).violations)


def test_a_plan_without_frozen_sharded_params_is_not_walked_for_it() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"params": {"w": {"tp": "S(0)"}}}}})
    context = Context(plan)
    found = CHECK_FUNCTIONS["frozen-sharded-params"].find(context)
    assert (list(found.violations), list(found.notes)) == ([], [])
    assert "walk" not in vars(context)  # nothing to compare: the placements were not walked
    assert metaplan.verification(plan, ["frozen-sharded-params"]).violations == ()
    CHECK_FUNCTIONS["placement"].find(context)
    assert "walk" in vars(context)


def test_a_check_is_a_value() -> None:
    import dataclasses

    check = CHECK_FUNCTIONS["class-key"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.runs = "when asked"  # type: ignore[misc]
    assert check == Check("class-key", check.find) and hash(check) == hash(
        Check("class-key", check.find))
