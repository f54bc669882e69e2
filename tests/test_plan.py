"""Plans: immutable all the way down, every field kept, exact bytes out, clear errors."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metaplan
from conftest import raw_json
from metaplan.frozen import JSONMap
from metaplan.testing import plan_dicts, sound_plan_dicts


def test_plans_cannot_be_changed_in_place() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"params": {"w": {"tp": "R"}}}},
                                    "list": [1, {"a": 2}]})
    entry = plan.param_plan["m"]
    with pytest.raises(TypeError):
        entry["params"] = {}
    with pytest.raises(TypeError):
        entry["params"]["w"]["tp"] = "S(0)"
    with pytest.raises((TypeError, AttributeError)):
        plan.param_plan["m"] = 1
    with pytest.raises(TypeError):
        plan["list"][1]["a"] = 3
    assert isinstance(entry, JSONMap)
    assert entry.set("x", [1]).get("x")[0] == 1 and "x" not in entry


def test_every_top_level_field_is_kept_including_unknown_ones(tmp_path: Path) -> None:
    meta = {"param_plan": {}, "boundary_classes": {}, "zzz_unknown": {"deep": [1, None, 2.5]},
            "model_type": "x", "number": 10**30}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(meta, indent=2, sort_keys=True))
    plan = metaplan.load(path)
    assert set(plan) == set(meta)
    out = tmp_path / "out.json.gz"
    metaplan.dump(plan, out)
    assert metaplan.load(out) == plan
    assert metaplan.dumps(plan) == path.read_bytes()


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ("[1, 2]", "a plan is a JSON object"),
    ('{"param_plan": [1]}', "param_plan: must be an object"),
    ('{"boundary_classes": "x"}', "boundary_classes: must be an object"),
    ('{"external_state_classes": "MoE"}', "external_state_classes: must be an array"),
    ('{"x": NaN}', "not valid JSON"),
    ('{"x": [1e400]}', r"bad.json: x\[0\]: inf is not a JSON number"),
    ("", "bad.json: empty file"),
    ('{"x": ' + "[" * 300 + "]" * 300 + "}", "nested more than 254 levels deep"),
    ('{"param_plan": {"m": {"is_boundary": 0}}}',
     r'bad.json: param_plan\["m"\].is_boundary: must be true or false, found a number \(0\)'),
    ('{"boundary_classes": {"m": null}}', r'boundary_classes\["m"\]: a class name is a string'),
    ('{"model_type": ["x"]}', "model_type: must be a string"),
    ('{"injections": [{"match": "a.[b"}]}', r"injections\[0\].match: invalid glob pattern"),
])
def test_bad_plans_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(metaplan.InputError, match=message):
        metaplan.loads(text, source="bad.json")


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(metaplan.InputError, match="no such file"):
        metaplan.load(tmp_path / "absent.json")


def test_input_dict_is_copied_not_referenced() -> None:
    meta = raw_json("deepseek_v3.hf5")
    snapshot = copy.deepcopy(meta)
    plan = metaplan.Plan.from_json(meta)
    metaplan.normalize(plan)
    assert meta == snapshot
    meta["param_plan"]["lm_head"]["is_boundary"] = "mutated"
    assert plan.param_plan["lm_head"]["is_boundary"] is True


def test_a_lone_surrogate_is_refused_in_memory_too() -> None:
    meta = {"param_plan": {"a": {"x": "m\ud800"}}}
    with pytest.raises(metaplan.InputError, match=r'param_plan\["a"\].x: a string that is not '
                                                  r"Unicode text: it holds the lone surrogate"):
        metaplan.Plan.from_json(meta)


@pytest.mark.parametrize("meta, where", [
    ({"boundary_classes": {"a": [1]}}, 'boundary_classes["a"]'),
    ({"external_state_classes": [{"x": 1}]}, "external_state_classes[0]"),
])
def test_class_names_that_are_objects_or_arrays_are_refused(meta: dict[str, Any],
                                                            where: str) -> None:
    with pytest.raises(metaplan.PlanError, match=re.escape(f"{where}: a class name is a string")):
        metaplan.Plan.from_json(meta)


@settings(max_examples=60)
@given(st.one_of(plan_dicts(), sound_plan_dicts()))
def test_a_plans_model_type_is_the_one_upstream_reads(meta: dict[str, Any]) -> None:
    plan = metaplan.Plan.from_json(meta)
    assert plan.model_type == metaplan.model_type_of(plan).value


def test_a_plans_model_type_comes_from_where_upstream_looks() -> None:
    for meta, found in (({"model_type": "a", "model_class": "B"}, "a"),
                        ({"model_type": "", "model_class": "B"}, "B"),
                        ({"source": {"architecture": "C"}}, "C"), ({"model_class": ""}, None)):
        assert metaplan.Plan.from_json(meta).model_type == found, meta
