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
from metaplan.passes.registry import NORMALIZE, parse_passes
from metaplan.passes.slim import TORCH_NN_CLASSES, identity_classes, is_identity_form, slim
from metaplan.testing import check_pass_laws, plans, sound_plan_dicts
from metaplan.verify import CHECKS

NAME = "deepseek_v3.hf5"


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
    assert metaplan.verify(result.plan, list(CHECKS)) == ()


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
    assert metaplan.verify(once, list(CHECKS)) == ()
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
