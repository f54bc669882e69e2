"""The plan fields upstream writes today: their types, explicit empty containers, and the two
readings of a missing ``is_boundary``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metaplan
from conftest import metaplan_cli as run
from conftest import raw_json
from metaplan.core.invariants import CHECKS
from metaplan.fields import ENTRY_FIELDS, EXPLICIT_EMPTY_KEYS, INJECTION_FIELDS, expected
from metaplan.passes.slimming import slim
from metaplan.testing import plan_dicts
from metaplan.versions.merging import merge

Raw = dict[str, Any]

_WRONG: dict[str, Any] = {  # a value of the wrong type for each listed key
    "params": [], "in_src": "R", "in_dst": 1, "out_src": [], "out_dst": None,
    "out_names": "output", "tp_divide_attrs": ["num_heads", 2], "region_dispatch": "yes",
    "deferred_bias_params": {"o_proj.bias": 1}, "skip_source_lowering": 0,
    "needs_cp_attn": "false", "match": ["model.layers.3.mlp"], "inner_wrapper": [],
    "inner_target": {"x": 1}, "inner_out_src": [], "local_compute_fn": None,
    "ep_stack": "tp", "ep_size": True,
}
_RIGHT: dict[str, Any] = {
    "params": {}, "in_src": {"x": {"tp": "R"}}, "in_dst": {}, "out_src": {}, "out_dst": {},
    "out_names": ["output"], "tp_divide_attrs": [], "region_dispatch": False,
    "deferred_bias_params": ["o_proj.bias"], "skip_source_lowering": True,
    "needs_cp_attn": False, "match": "model.layers.3.mlp", "inner_wrapper": "a.b",
    "inner_target": "a.c", "inner_out_src": {"_target_": "a.d"}, "local_compute_fn": "a.e",
    "ep_stack": ["tp"], "ep_size": 8,
}


def _small() -> Raw:
    return raw_json("deepseek_v3.hf5")


def _schema(raw: Raw, *, strict: bool = False) -> list[tuple[Any, ...]]:
    found = metaplan.verify(metaplan.Plan.from_json(raw), ["schema"], strict=strict)
    return [violation.path for violation in found]


def test_every_key_of_upstreams_table_has_a_type_and_an_example() -> None:
    keys = [key for key, _ in ENTRY_FIELDS + INJECTION_FIELDS]
    assert sorted(keys) == sorted(_WRONG) == sorted(_RIGHT)
    assert "is_boundary" not in keys  # loading already holds it to true or false


@pytest.mark.parametrize(("key", "_kind"), ENTRY_FIELDS)
def test_an_entry_key_of_the_wrong_type_is_a_schema_violation(key: str, _kind: Any) -> None:
    good, bad = _small(), _small()
    good["param_plan"]["model.norm"][key] = _RIGHT[key]
    bad["param_plan"]["model.norm"][key] = _WRONG[key]
    assert _schema(good) == []
    assert _schema(bad) == [("param_plan", "model.norm", key)]


@pytest.mark.parametrize(("key", "_kind"), INJECTION_FIELDS)
def test_an_injection_key_of_the_wrong_type_is_a_schema_violation(key: str, _kind: Any) -> None:
    good, bad = _small(), _small()
    good["injections"][5][key] = _RIGHT[key]
    bad["injections"][5][key] = _WRONG[key]
    assert _schema(good) == []
    if key == "inner_wrapper":  # the rules the plan's injections make refuse it already
        with pytest.raises(metaplan.SpecError, match=r"injections\[5\]\.inner_wrapper: must"):
            _schema(bad)
    else:
        assert _schema(bad) == [("injections", 5, key)]


def test_the_message_names_the_type_expected_and_unknown_keys_are_allowed() -> None:
    raw = _small()
    raw["param_plan"]["model.norm"]["tp_divide_attrs"] = "num_heads"
    raw["param_plan"]["model.norm"]["x_future_key"] = {"anything": [1]}
    raw["injections"][0]["ep_size"] = "8"
    found = metaplan.verify(metaplan.Plan.from_json(raw), ["schema"])
    assert [str(v) for v in found] == [
        'schema: injections[0].ep_size: must be an integer, found a string ("8")',
        'schema: param_plan["model.norm"].tp_divide_attrs: must be an array of strings, '
        'found a string ("num_heads")']
    assert expected("x_future_key", 1, dict(ENTRY_FIELDS)) is None


def test_an_entry_shared_by_many_modules_is_reported_at_each() -> None:
    raw = _small()
    for layer in range(3, 61):
        raw["param_plan"][f"model.layers.{layer}.mlp.gate"]["out_names"] = "logits"
    plan = metaplan.Plan.from_json(raw)
    paths = _schema(raw)
    assert len(paths) == 58 and paths == sorted(paths)
    assert metaplan.verify(plan, ["schema"]) == metaplan.verify(metaplan.loads(
        metaplan.dumps(plan)), ["schema"])


def test_the_schema_through_the_command(tmp_path: Path) -> None:
    raw = _small()
    raw["injections"][2]["ep_stack"] = 4
    (tmp_path / "p.json").write_text(json.dumps(raw))
    done = run("verify", tmp_path / "p.json", "--checks", "schema")
    assert done.returncode == 1
    assert done.stdout.decode().splitlines()[1] == (
        "  schema: injections[2].ep_stack: must be an array of axis names or an object, "
        "found a number (4)")


# is_boundary missing: the runtime reads true, the emitter reads the contract -----------------


def _unflagged(raw: Raw) -> Raw:
    raw["param_plan"]["model.extra"] = {"params": {}}  # no flag, no contract
    raw["param_plan"]["model.other"] = {"out_names": ["y"]}  # no flag: both read a boundary
    raw["boundary_classes"]["model.other"] = "Other"
    return raw


def test_a_missing_flag_the_two_readings_disagree_on_is_a_note() -> None:
    found = metaplan.verification(metaplan.Plan.from_json(_unflagged(_small())))
    assert found.violations == ()
    assert [(n.check, n.path) for n in found.notes if n.check == "boundary-reading"] == [
        ("boundary-reading", ("param_plan", "model.extra"))]
    assert "boundary-reading" in found.checks
    (note,) = [n for n in found.notes if n.check == "boundary-reading"]
    assert "runtime reads it as a boundary" in note.message and "emitter" in note.message


def test_strict_makes_every_note_a_violation() -> None:
    plan = metaplan.Plan.from_json(_unflagged(_small()))
    strict = metaplan.verification(plan, strict=True)
    assert strict.notes == ()
    assert sorted(v.check for v in strict.violations) == [
        "boundary-reading", "placement", "placement"]  # and lm_head's two S(-1) notes
    assert CHECKS["boundary-reading"](plan) == [
        v for v in strict.violations if v.check == "boundary-reading"]


def test_strict_through_the_command(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps(_unflagged(_small())))
    lax = run("verify", tmp_path / "p.json", "--checks", "boundary-reading")
    assert lax.returncode == 0
    assert lax.stdout.decode().splitlines()[1].startswith(
        '  note: boundary-reading: param_plan["model.extra"]: no is_boundary')
    strict = run("verify", tmp_path / "p.json", "--checks", "boundary-reading", "--strict")
    assert strict.returncode == 1
    assert strict.stdout.decode().splitlines()[0].endswith("1 violation(s) (boundary-reading: 1)")


def test_the_bundled_plans_write_every_flag() -> None:
    for name in ("deepseek_v3.hf4", "qwen3_moe.hf4", "llama3_8b.hf4"):
        plan = metaplan.load(Path(__file__).parent / "data" / f"{name}.json.gz")
        assert metaplan.verify(plan, ["boundary-reading"], strict=True) == ()


# explicit empty containers survive ------------------------------------------------------


def _empties(plan: metaplan.Plan) -> dict[tuple[str, str], Any]:
    return {(fqn, key): entry[key] for fqn, entry in plan.index("param_plan").items()
            if hasattr(entry, "get") for key in EXPLICIT_EMPTY_KEYS
            if key in entry and len(entry[key]) == 0}


def _kept(before: metaplan.Plan, after: metaplan.Plan) -> None:
    entries = after.index("param_plan")
    for (fqn, key), value in _empties(before).items():
        if fqn in entries:
            assert key in entries[fqn] and entries[fqn][key] == value, (fqn, key)


@st.composite
def _with_empties(draw: st.DrawFn) -> Raw:
    raw: Raw = draw(plan_dicts())
    objects = sorted(fqn for fqn, entry in raw["param_plan"].items() if isinstance(entry, dict))
    for fqn in draw(st.lists(st.sampled_from(objects), max_size=4)) if objects else []:
        raw["param_plan"][fqn][draw(st.sampled_from(EXPLICIT_EMPTY_KEYS))] = draw(
            st.sampled_from(({}, [])))
    return raw


@settings(max_examples=60)
@given(_with_empties())
def test_explicit_empty_containers_survive_every_pass(raw: Raw) -> None:
    plan = metaplan.Plan.from_json(raw)
    trace = metaplan.normalize_pipeline().run(plan)
    for state in trace.states:
        _kept(plan, state)
    _kept(plan, slim(plan).plan)
    assert metaplan.replay(plan, trace.records) == trace.states[-1]


@settings(max_examples=60)
@given(_with_empties())
def test_explicit_empty_containers_survive_diff_replay_and_merge(raw: Raw) -> None:
    base = metaplan.Plan.from_json({**raw, "param_plan": {
        fqn: ({k: v for k, v in entry.items() if k not in EXPLICIT_EMPTY_KEYS}
              if isinstance(entry, dict) else entry)
        for fqn, entry in raw["param_plan"].items()}})
    ours = metaplan.Plan.from_json(raw)  # ours adds the empties; theirs normalizes
    theirs = metaplan.normalize(base).plan
    record = metaplan.diff(base, ours)
    assert metaplan.replay(base, [record]) == ours
    _kept(ours, metaplan.replay(base, [record]))
    merged = merge(base, ours, theirs)
    _kept(ours, merged.plan)
    swapped = merge(base, theirs, ours)
    _kept(ours, swapped.plan)
