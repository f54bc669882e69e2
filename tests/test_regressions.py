"""Bugs found in review, each pinned by the smallest plan that showed it."""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any

import pytest

import metaplan
from metaplan.change import Change
from metaplan.compat import normalize_inline_meta
from metaplan.edit import apply_changes
from metaplan.oracle import reference_normalize
from metaplan.records import dumps_records, loads_records, record_to_json
from metaplan.rules import InlineRule

DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"


@pytest.mark.parametrize("value", [0.5, 1e16, 2**64, "\U0001f600", -0.0])
def test_odd_json_values_hash_normalize_and_diff(value: Any) -> None:
    meta = {"param_plan": {"a": {"x": value, "is_boundary": False}, "b": {"x": value}},
            "boundary_classes": {"a": "MLP", "b": "MLP"}}
    a, b = metaplan.Plan.from_json(meta), metaplan.Plan.from_json(meta)
    assert a.content_hash == b.content_hash
    assert metaplan.diff(a, b).is_noop
    result = metaplan.normalize(a).plan
    assert result.param_plan["b"]["skip_source_lowering"] is True
    assert metaplan.dumps(result) == metaplan.dumps(metaplan.loads(metaplan.dumps(result)))


def test_a_lone_surrogate_is_refused_in_memory_too() -> None:
    meta = {"param_plan": {"a": {"x": "m\ud800"}}}
    with pytest.raises(metaplan.InputError, match=r'param_plan\["a"\].x: a string that is not '
                                                  r"Unicode text: it holds the lone surrogate"):
        metaplan.Plan.from_json(meta)


def test_minus_zero_is_not_zero() -> None:
    plan = metaplan.Plan.from_json({"x": -0.0})
    assert plan.set("x", 0.0) is not plan
    record = metaplan.diff(plan, metaplan.Plan.from_json({"x": 0.0}))
    assert len(record) == 1 and metaplan.apply(plan, record)["x"] == 0.0


def test_a_replayed_record_that_sets_whole_fields_keeps_them_persistent_maps() -> None:
    full = metaplan.Plan.from_json({"param_plan": {"a": {"is_boundary": True}},
                                    "boundary_classes": {"a": "MLP"}})
    empty = metaplan.Plan.from_json({})
    (record,) = loads_records(dumps_records([metaplan.diff(empty, full)]))
    rebuilt = metaplan.apply(empty, record)
    assert rebuilt == full and type(rebuilt.param_plan) is type(full.param_plan)
    assert metaplan.dumps(metaplan.normalize(rebuilt).plan) == metaplan.dumps(
        metaplan.normalize(full).plan)
    edit = metaplan.Edit(full)
    edit.apply(Change("remove", ("boundary_classes",), full.boundary_classes))
    dropped, removal = edit.finish("drop")
    (removal,) = loads_records(dumps_records([removal]))
    assert metaplan.apply(dropped, metaplan.invert(removal)) == full


def test_applied_values_are_copied_not_referenced() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {}, "boundary_classes": {}})
    entry = {"is_boundary": False}
    new = apply_changes(plan, [Change("add", ("param_plan", "n"), None, entry),
                               Change("add", ("param_plan", "f"), None, 1e-5)])
    entry["zzz"] = 1
    assert "zzz" not in new.param_plan["n"]
    assert new == metaplan.Plan.from_json(new.to_json())
    with pytest.raises(metaplan.PlanError, match="must be an object"):
        apply_changes(plan, [Change("set", ("param_plan",), plan.param_plan, "MLP")])


def test_records_to_json_is_plain_json() -> None:
    record = metaplan.diff(metaplan.Plan.from_json({"param_plan": {}}),
                           metaplan.Plan.from_json({"param_plan": {"a": {"b": [1]}}}))
    assert json.loads(json.dumps(record_to_json(record)))["changes"][0]["new"] == {"b": [1]}


def test_compat_edits_dict_subclass_entries_like_the_seed() -> None:
    def meta() -> dict[str, Any]:
        return {"param_plan": {name: OrderedDict(is_boundary=True)
                               for name in ("l.mlp", "l.mlp.shared_experts", "d.mlp")},
                "boundary_classes": {"l.mlp": "DeepseekV3MoE", "l.mlp.shared_experts": "MLP",
                                     "d.mlp": "MLP"}}
    rules = (InlineRule(match=("*.mlp",), local_compute_target=DEEPSEEK),)
    ours, seed = meta(), meta()
    normalize_inline_meta(ours, rules)
    reference_normalize(seed, rules)
    assert ours == seed and ours["param_plan"]["d.mlp"]["skip_source_lowering"] is True


def test_compat_takes_values_the_seed_takes_but_json_cannot_hash() -> None:
    meta = {"param_plan": {"a": {"is_boundary": False, "tags": {1, 2}}, "b": {"x": object()}},
            "boundary_classes": {"a": "MLP", "b": "MLP"}}
    normalize_inline_meta(meta, ())
    assert meta["param_plan"]["b"]["skip_source_lowering"] is True


@pytest.mark.parametrize("meta, where", [
    ({"boundary_classes": {"a": [1]}}, 'boundary_classes["a"]'),
    ({"external_state_classes": [{"x": 1}]}, "external_state_classes[0]"),
])
def test_class_names_that_are_objects_or_arrays_are_refused(meta: dict[str, Any],
                                                            where: str) -> None:
    with pytest.raises(metaplan.PlanError, match=re.escape(f"{where}: a class name is a string")):
        metaplan.Plan.from_json(meta)


@pytest.mark.parametrize(("change", "message"), [
    ({"op": "set", "path": ["param_plan", "m", "is_boundary"], "old": True, "new": 1},
     'records[0].changes[0].new: param_plan["m"].is_boundary: must be true or false'),
    ({"op": "add", "path": ["boundary_classes", "n"], "new": 3},
     'boundary_classes["n"]: a class name is a string, found a number (3)'),
    ({"op": "set", "path": ["param_plan", "m"], "old": {"is_boundary": True},
      "new": {"is_boundary": "no"}}, 'param_plan["m"].is_boundary: must be true or false'),
    ({"op": "set", "path": ["external_state_classes"], "old": None, "new": "MLP"},
     "external_state_classes: must be an array"),
])
def test_a_records_file_cannot_make_a_plan_loading_refuses(change: dict[str, Any],
                                                          message: str) -> None:
    records = {"format": "metaplan.records/1", "records": [
        {"format": "metaplan.record/1", "pass": "edited", "base": "", "result": "",
         "changes": [change]}]}
    with pytest.raises(metaplan.PlanError, match=re.escape(message)):
        loads_records(json.dumps(records), source="rec.json")
