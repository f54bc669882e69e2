"""The optional ``slim`` pass (upstream's plan/slim.py projection) and ``diff --passes``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

import metaplan
from conftest import SMALL_FIXTURES, fixture_path, raw_input
from conftest import metaplan_cli as run
from metaplan.core.invariants import CHECKS, NORMAL_FORM_CHECKS
from metaplan.passes.registry import NORMALIZE, parse_passes
from metaplan.passes.slimming import TORCH_NN_CLASSES, identity_classes, is_identity_form, slim
from metaplan.testing import check_pass_laws, plans, sound_plan_dicts

NAME = "deepseek_v3.hf5"

AS_FROZEN = [name for name in CHECKS if name not in NORMAL_FORM_CHECKS]
"""Every check a plan as frozen passes."""


def _real(name: str = NAME) -> dict[str, Any]:
    return json.loads(raw_input(name))  # type: ignore[no-any-return]


def _r_free(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with every R axis dropped by hand."""
    for entry in raw["param_plan"].values():
        for field in ("params", "in_src", "in_dst", "out_src", "out_dst"):
            for named in (entry.get(field) or {}).values():
                for axis in [axis for axis, value in named.items() if value == "R"]:
                    del named[axis]
    return raw


@pytest.mark.parametrize("name", SMALL_FIXTURES)
def test_slim_drops_r_axes_of_real_plans_and_keeps_the_laws(name: str) -> None:
    plan = metaplan.load(fixture_path(name))
    result = slim(plan)
    assert result.record.pass_name == "slim"
    assert {change.op for change in result.record.changes} == {"remove"}
    assert {change.old for change in result.record.changes} == {"R"}
    assert result.plan == metaplan.Plan.from_json(_r_free(_real(name)))
    assert slim(result.plan).plan is result.plan  # idempotent
    check_pass_laws(slim, plan)
    # lm_head (nn.Linear) is identity-form, but upstream never prunes an imported class
    assert identity_classes(plan) == {}


def _with_identity_norm(raw: dict[str, Any]) -> dict[str, Any]:
    norm = raw["param_plan"]["model.norm"]
    norm.update(is_boundary=True, in_src={"hidden_states": {"tp": "R"}},
                in_dst={"hidden_states": {"tp": "R", "ep": "R"}}, region_dispatch=False,
                needs_cp_attn=True, out_names=["output"])
    return raw


def test_identity_form_boundaries_lose_their_contract_and_false_flags() -> None:
    plan = metaplan.Plan.from_json(_with_identity_norm(_real()))
    assert identity_classes(plan) == {"DeepseekV3RMSNorm": ["model.norm"]}
    result = slim(plan)
    assert result.plan.param_plan["model.norm"].thaw() == {
        "needs_cp_attn": True, "out_names": ["output"], "params": {"weight": {}}}
    why = {change.path[2]: change.why for change in result.record.touching(
        ("param_plan", "model.norm"))}
    assert sorted(why) == ["in_dst", "in_src", "is_boundary", "params", "region_dispatch"]
    assert why["in_src"].startswith("class DeepseekV3RMSNorm has the identity form")
    assert metaplan.verify(result.plan, AS_FROZEN) == ()


@pytest.mark.parametrize("injection", [{"local_compute_fn": "x.fn"}, {"inner_wrapper": "x.cp"}])
def test_a_region_or_inner_wrapper_boundary_is_never_identity(injection: dict[str, Any]) -> None:
    raw = _with_identity_norm(_real())
    raw["injections"].append({"match": "model.norm", **injection})
    assert identity_classes(metaplan.Plan.from_json(raw)) == {}


def test_classes_upstream_would_refuse_are_left_alone() -> None:
    raw = _with_identity_norm(_real())
    raw["param_plan"]["model.norm2"] = {**raw["param_plan"]["model.norm"], "needs_cp_attn": False}
    raw["boundary_classes"]["model.norm2"] = "DeepseekV3RMSNorm"
    assert identity_classes(metaplan.Plan.from_json(raw)) == {}  # two contracts
    raw = _with_identity_norm(_real())
    raw["param_plan"]["model.norm"]["in_dst"]["hidden_states"]["tp"] = "S(x)"
    assert identity_classes(metaplan.Plan.from_json(raw)) == {}  # does not parse


def test_identity_follows_upstreams_classifier() -> None:
    mlp = _real()["param_plan"]["model.layers.0.mlp"]  # tp P(sum) -> R on the way out
    assert not is_identity_form(mlp, ["ep", "tp"])
    assert is_identity_form(mlp, ["ep"])  # the tp transition is on no active axis
    assert is_identity_form(mlp, [])  # no axes: only an ep change counts
    moe = _real()["param_plan"]["model.layers.3.mlp"]  # ep R -> S(0) on the way in
    assert not is_identity_form(moe, [])
    assert is_identity_form({"in_src": {"x": {"tp": "S(0)"}}, "in_dst": {"x": {"tp": "S( 0)"}}},
                            ["tp"])  # the same placement, spelt apart
    assert "Linear" in TORCH_NN_CLASSES and "Embedding" in TORCH_NN_CLASSES


def test_slim_is_optional_and_named() -> None:
    assert "slim" not in NORMALIZE
    assert parse_passes("normalize,slim") == (*NORMALIZE, "slim")
    built = metaplan.build_pipeline("slim")
    assert [step.name for step in built] == ["slim"] and repr(slim) == "changes_pass('slim')"


@settings(max_examples=40)
@given(plans())
def test_slim_keeps_the_pass_laws_on_generated_plans(plan: metaplan.Plan) -> None:
    check_pass_laws(slim, plan)
    assert slim(slim(plan).plan).record.is_noop


@settings(max_examples=40)
@given(sound_plan_dicts())
def test_slim_keeps_sound_plans_sound_and_is_idempotent(meta: dict[str, Any]) -> None:
    plan = metaplan.Plan.from_json(meta)
    once = slim(plan).plan
    assert metaplan.verify(once, AS_FROZEN) == ()
    assert slim(once).plan is once


def test_diff_modulo_passes(tmp_path: Path) -> None:
    twin = tmp_path / "twin.json"
    twin.write_text(json.dumps(_r_free(_real())))
    plain = run("diff", fixture_path(NAME), twin)
    assert plain.returncode == 1 and b"1,020 changes" in plain.stdout
    modulo = run("diff", fixture_path(NAME), twin, "--passes", "slim")
    assert modulo.returncode == 0, modulo.stderr
    lines = modulo.stdout.decode().splitlines()
    assert lines[0].startswith(f"--- {fixture_path(NAME)} after slim  sha256:")
    assert lines[2] == "0 changes: 0 modules in 0 groups, 0 top-level changes"
    expected = str(fixture_path(NAME)).replace(".json.gz", ".expected.json.gz")
    normal = run("diff", fixture_path(NAME), expected, "--passes", "normalize", "--format", "json")
    assert normal.returncode == 0 and json.loads(normal.stdout)["records"][0]["changes"] == []
    bad = run("diff", fixture_path(NAME), twin, "--passes", "slimm")
    assert bad.returncode == 2 and b"did you mean slim?" in bad.stderr


# the classifier and the removals, one corner at a time -----------------------------------

_NORM = {"is_boundary": True, "in_src": {"x": {"tp": "R"}}, "in_dst": {"x": {"tp": "R"}},
         "params": {"w": {"tp": "R", "ep": "S(0)"}}}


def _one_class(cls: str, entry: dict[str, Any] | None = None, **fields: Any) -> metaplan.Plan:
    return metaplan.Plan.from_json({"mesh_dim_names": ["tp"], **fields,
                                    "param_plan": {"m": entry or _NORM},
                                    "boundary_classes": {"m": cls}})


def test_the_field_lists_are_upstreams() -> None:
    from metaplan.passes.slimming import BOUNDARY_FIELDS, FLAG_FIELDS

    assert BOUNDARY_FIELDS == ("in_src", "in_dst", "out_src", "out_dst", "is_boundary")
    assert FLAG_FIELDS == ("region_dispatch", "needs_cp_attn")
    assert len(TORCH_NN_CLASSES) == 22 and "" not in TORCH_NN_CLASSES


@pytest.mark.parametrize("cls", sorted(TORCH_NN_CLASSES))
def test_a_torch_nn_class_is_never_pruned(cls: str) -> None:
    assert identity_classes(_one_class(cls)) == {}
    assert identity_classes(_one_class(f"My{cls}")) == {f"My{cls}": ["m"]}


@pytest.mark.parametrize(("entry", "axes", "identity"), [
    ({"in_src": None, "in_dst": {"x": {"tp": "R"}}}, ["tp"], True),  # null: no names
    ({"in_src": ["x"], "in_dst": {"x": {"tp": "S(0)"}}}, ["tp"], False),  # not an object
    ({"in_src": {"x": "R"}, "in_dst": {"x": {"tp": "R"}}}, ["tp"], True),  # a name not an object
    ({"in_src": {"x": None}, "in_dst": {"x": {"tp": "S(0)"}}}, ["tp"], False),
    ({"in_src": {"x": {"tp": None}}, "in_dst": {"x": {}}}, ["tp"], True),  # null axis: R
    ({"out_src": {"y": {"tp": "S(0)"}}, "out_dst": {"y": {"tp": "S(0)"}}}, ["tp"], True),
    ({"out_src": {"y": {"tp": "S(0)"}}, "out_dst": {}}, ["tp"], False),  # only on one side
    ({"out_src": {}, "out_dst": {"y": {"tp": "S(1)"}}}, ["tp"], False),
    ({"in_src": {"x": {"tp": "R", "ep": "S(0)"}}, "in_dst": {"x": {"tp": "R"}}}, ["tp"], True),
    ({"in_src": {"x": {"ep": "S(0)"}}, "in_dst": {"x": {}}}, [], False),  # no axes: ep counts
    ({"in_src": {"x": {"ep": "S(0)"}}, "in_dst": {"x": {"ep": "S(0)"}}}, [], True),
    ({"in_src": {"x": {"ep": ""}}, "in_dst": {"x": {"ep": 3}}}, [], True),  # both read as R
    ({"in_src": {"x": {"ep": "R"}}, "in_dst": {"x": []}}, [], True),
    ({"in_src": {"x": {"ep": "S(0)"}}, "out_src": {"y": {"ep": "R"}}}, [], False),
    ({"in_src": {"x": {"tp": "Q"}}, "in_dst": {"x": {"tp": "Q"}}}, ["tp"], False),  # unparsed
])
def test_identity_form_reads_each_transition_as_upstream(entry: dict[str, Any], axes: list[str],
                                                         identity: bool) -> None:
    assert is_identity_form(entry, axes) is identity
    assert is_identity_form(entry, axes, {"match": "m", "inner_target": "x"}) is identity
    assert is_identity_form(entry, axes, {"local_compute_fn": None,
                                          "inner_wrapper": None}) is identity
    assert is_identity_form(entry, axes, {"inner_wrapper": "cp.ring"}) is False
    assert is_identity_form(entry, axes, {"local_compute_fn": "x.fn"}) is False


@pytest.mark.parametrize(("names", "pruned"), [
    (["tp"], True), ([], True), (None, True), ("tp", False), ({"tp": 1}, False),
    (["tp", 3], False), ([3], False),
])
def test_mesh_dim_names_that_are_not_names_prune_nothing(names: Any, pruned: bool) -> None:
    fields = {} if names is None else {"mesh_dim_names": names}
    plan = metaplan.Plan.from_json({**fields, "param_plan": {"m": _NORM},
                                    "boundary_classes": {"m": "Norm"}})
    assert identity_classes(plan) == ({"Norm": ["m"]} if pruned else {})


def test_a_class_is_pruned_only_with_one_contract_and_agreeing_injections() -> None:
    two = {"a": _NORM, "b": {**_NORM, "params": {"v": {"tp": "S(0)"}}}}
    plan = metaplan.Plan.from_json({"mesh_dim_names": ["tp"], "param_plan": two,
                                    "boundary_classes": {"a": "Norm", "b": "Norm"}})
    assert identity_classes(plan) == {"Norm": ["a", "b"]}  # params may differ
    split = {**two, "b": {**_NORM, "needs_cp_attn": True}}
    assert identity_classes(plan.set("param_plan", split)) == {}
    agreeing = [{"match": "a", "inner_target": "x"}, {"match": "b", "inner_target": "x"}]
    assert identity_classes(plan.set("injections", agreeing)) == {"Norm": ["a", "b"]}
    conflicting = [{"match": "a", "inner_target": "x"}, {"match": "b", "inner_target": "y"}]
    assert identity_classes(plan.set("injections", conflicting)) == {}


def test_removals_in_fqn_order_pruned_fields_first_then_r_axes() -> None:
    shared = {"params": {"w": {"tp": "R", "ep": "R"}, "v": {"tp": "S(0)"}, "u": "R"},
              "out_src": {"y": {"tp": "R"}}, "in_src": [1]}
    plan = metaplan.Plan.from_json({
        "mesh_dim_names": ["tp"],
        "param_plan": {
            "b": {**_NORM, "region_dispatch": False, "needs_cp_attn": 0, "out_dst": {}},
            "a": "junk", "c": shared, "d": shared, "e": {"params": None}},
        "boundary_classes": {"b": "Norm"}})
    changes = slim(plan).record.changes
    why = ("class Norm has the identity form: its forward is not rewritten, so its boundary "
           "fields are not read")
    r_why = "an R axis: a missing axis resolves to replicate"
    assert [(c.path[1:], c.old, c.why) for c in changes] == [
        (("b", "in_src"), metaplan.freeze({"x": {"tp": "R"}}), why),
        (("b", "in_dst"), metaplan.freeze({"x": {"tp": "R"}}), why),
        (("b", "out_dst"), metaplan.freeze({}), why),
        (("b", "is_boundary"), True, why),
        (("b", "region_dispatch"), False, f"{why}; false is the readers' default"),
        (("b", "params", "w", "tp"), "R", r_why),
        (("c", "params", "w", "ep"), "R", r_why), (("c", "params", "w", "tp"), "R", r_why),
        (("c", "out_src", "y", "tp"), "R", r_why),
        (("d", "params", "w", "ep"), "R", r_why), (("d", "params", "w", "tp"), "R", r_why),
        (("d", "out_src", "y", "tp"), "R", r_why),
    ]
    assert all(c.op == "remove" and c.path[0] == "param_plan" for c in changes)


def test_one_entry_object_shared_by_a_pruned_and_a_kept_module() -> None:
    entry = {**_NORM, "params": {"w": {"tp": "R"}}}
    plan = metaplan.loads(metaplan.dumps(metaplan.Plan.from_json({
        "mesh_dim_names": ["tp"], "param_plan": {"a": entry, "b": entry, "c": entry},
        "boundary_classes": {"a": "Norm", "b": "Linear"}})))
    assert plan.index("param_plan")["a"] is plan.index("param_plan")["c"]
    touched: dict[Any, list[tuple[Any, ...]]] = {}
    for change in slim(plan).record.changes:
        touched.setdefault(change.path[1], []).append(change.path[2:])
    assert touched == {
        "a": [("in_src",), ("in_dst",), ("is_boundary",), ("params", "w", "tp")],
        "b": [("params", "w", "tp"), ("in_src", "x", "tp"), ("in_dst", "x", "tp")],
        "c": [("params", "w", "tp"), ("in_src", "x", "tp"), ("in_dst", "x", "tp")]}


def test_a_refused_class_does_not_stop_the_classes_after_it() -> None:
    split = {**_NORM, "needs_cp_attn": True}
    plan = metaplan.Plan.from_json({
        "mesh_dim_names": ["tp"],
        "param_plan": {"a": _NORM, "b1": _NORM, "b2": split, "l": _NORM, "n": _NORM},
        "boundary_classes": {"a": "A", "b1": "B", "b2": "B", "l": "Linear", "n": "Norm"},
        "injections": [{"match": "a", "inner_target": "x"}, {"match": "a", "inner_target": "y"}]})
    assert identity_classes(plan) == {"Norm": ["n"]}


@pytest.mark.parametrize("odd", "abcdefgh")
def test_without_axes_every_name_of_a_side_is_compared(odd: str) -> None:
    src = {name: {"ep": "S(0)" if name == odd else "R"} for name in "abcdefgh"}
    dst = {name: {"ep": "R"} for name in "abcdefgh"}
    assert is_identity_form({"in_src": src, "in_dst": dst}, []) is False
    assert is_identity_form({"in_src": dst, "in_dst": dst, "out_src": src, "out_dst": dst},
                            []) is False
