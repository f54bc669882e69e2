"""Plans: immutable all the way down, every field kept, exact bytes out, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from metaplan.frozen import JSONMap, json_equal
from metaplan.jsonio import dumps_pretty, dumps_pretty_stdlib


def test_plans_cannot_be_changed_in_place() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"params": {"w": {"tp": "R"}}}},
                                    "list": [1, {"a": 2}]})
    entry = plan.param_plan["m"]
    with pytest.raises(TypeError):
        entry["params"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        entry["params"]["w"]["tp"] = "S(0)"  # type: ignore[index]
    with pytest.raises((TypeError, AttributeError)):
        plan.param_plan["m"] = 1  # type: ignore[index]
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


_UNICODE = st.characters(exclude_categories=["Cs"])  # a lone surrogate is no text: refused


@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(_UNICODE, max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(_UNICODE, max_size=4),
                                                                 inner, max_size=3),
    max_leaves=12))
def test_dump_is_byte_identical_to_the_stdlib(value: object) -> None:
    reference = json.dumps({"param_plan": {}, "v": value}, indent=2, sort_keys=True).encode()
    plan = metaplan.loads(reference)
    assert metaplan.dumps(plan) == reference
    assert dumps_pretty(plan.fields) == dumps_pretty_stdlib(plan.fields) == reference


def test_content_hash_is_stable_and_order_free() -> None:
    a = metaplan.Plan.from_json({"x": 1, "param_plan": {"m": {"a": 1, "b": True}}})
    b = metaplan.Plan.from_json({"param_plan": {"m": {"b": True, "a": 1}}, "x": 1})
    c = metaplan.Plan.from_json({"x": 1, "param_plan": {"m": {"a": True, "b": True}}})
    assert a.content_hash == b.content_hash and a == b
    assert a.content_hash != c.content_hash and a != c
    assert a.content_hash.startswith("sha256:") and len(a.content_hash) == 71


def test_json_equality_tells_true_from_one() -> None:
    assert not json_equal(True, 1) and not json_equal(1, 1.0) and json_equal(2.5, 2.5)
    assert metaplan.freeze({"a": 1}) != metaplan.freeze({"a": True})


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


def test_non_object_entries_are_kept_and_skipped() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"m": None, "n": ["x"], "o": {"is_boundary": False}},
        "boundary_classes": {"m": "MoE", "n": "MoE", "o": "MoE", "p": "MoE"},
        "external_state_classes": ["MoE"]})
    result = metaplan.normalize(plan)
    assert dict(result.plan.boundary_classes) == {}
    assert result.plan.param_plan["m"] is None and list(result.plan.param_plan["n"]) == ["x"]
    assert [c.path for c in result.records[1].changes] == [
        ("boundary_classes", "m"), ("boundary_classes", "n"), ("boundary_classes", "o"),
        ("boundary_classes", "p")]
