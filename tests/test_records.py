"""Records as JSON: the records files ``normalize --record``, ``diff`` and ``replay`` share."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import metaplan
from conftest import demo_record
from metaplan.records.codec import loads_records, record_to_json, records_from_json
from metaplan.testing import plans, spec_registries


def test_json_form_and_round_trip(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    data = record_to_json(record)
    assert data["changes"][1] == {"op": "add", "path": ["param_plan", "b",
                                                         "skip_source_lowering"],
                                  "new": True, "why": "why b"}
    assert "new" not in data["changes"][2]
    assert records_from_json(data) == (record,)
    text = metaplan.dumps_records([record])
    assert loads_records(text) == (record,)


@pytest.mark.parametrize("bad, message", [
    ({"records": [{"pass": "p", "base": "b", "result": "r", "changes": [{"op": "move"}]}]},
     "op: must be one of"),
    ({"records": [{"pass": "p", "base": "b", "result": "r",
                   "changes": [{"op": "set", "path": [], "old": 1, "new": 2}]}]}, "path"),
    ({"records": [{"pass": "p", "base": "b", "result": "r",
                   "changes": [{"op": "set", "path": ["a"], "new": 2}]}]}, "needs 'old'"),
    ({"records": [{"pass": 3, "base": "b", "result": "r", "changes": []}]}, "pass"),
    ([1, 2], "expected"),
])
def test_malformed_records_are_refused_with_the_place(bad: object, message: str) -> None:
    with pytest.raises(metaplan.InputError, match=message):
        records_from_json(bad)


def test_records_to_json_is_plain_json() -> None:
    record = metaplan.diff(metaplan.Plan.from_json({"param_plan": {}}),
                           metaplan.Plan.from_json({"param_plan": {"a": {"b": [1]}}}))
    assert json.loads(json.dumps(record_to_json(record)))["changes"][0]["new"] == {"b": [1]}


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


@given(plans(), spec_registries())
def test_records_round_trip_through_json(plan: metaplan.Plan,
                                         specs: metaplan.SpecRegistry) -> None:
    records = metaplan.normalize(plan, specs=specs).records
    text = metaplan.dumps_records(records)
    assert metaplan.loads_records(text) == records
    assert metaplan.dumps_records(metaplan.loads_records(text)) == text


# formats, versions and every refusal ---------------------------------------------------------

_RECORD = {"format": "metaplan.record/2", "pass": "p", "base": "b", "result": "r",
           "changes": []}


def _with(change: Any) -> dict[str, Any]:
    return {"records": [{**_RECORD, "changes": [change]}]}


def test_a_single_record_object_is_read_as_one_record() -> None:
    assert records_from_json(_RECORD) == (metaplan.ChangeRecord("p", "b", "r"),)
    assert records_from_json({"records": [{k: v for k, v in _RECORD.items()
                                           if k != "format"}]}) == records_from_json(_RECORD)


def test_version_1_records_read_with_string_paths_and_unchecked_hashes() -> None:
    change = {"op": "set", "path": ["a", "b"], "old": 1, "new": 2, "why": 5}
    (record,) = records_from_json({"format": "metaplan.records/1", "records": [
        {**_RECORD, "format": "metaplan.record/1", "changes": [change]}]})
    assert (record.base, record.result) == ("legacy:b", "legacy:r")
    assert record.changes == (metaplan.Change("set", ("a", "b"), 1, 2, "5"),)
    with pytest.raises(metaplan.InputError, match=re.escape(
            'path: must be a non-empty array of keys, starting with a field name, found '
            '["a",0]')):
        records_from_json({**_RECORD, "format": "metaplan.record/1", "changes": [
            {**change, "path": ["a", 0]}]})


def test_values_are_frozen_and_the_json_form_is_versioned() -> None:
    (record,) = records_from_json(_with({"op": "set", "path": ["x", 0], "old": {"a": [1]},
                                         "new": [{"b": None}]}))
    change = record.changes[0]
    assert type(change.old) is metaplan.JSONMap and change.path == ("x", 0)
    assert metaplan.thaw(change.new) == [{"b": None}]
    assert record_to_json(record)["format"] == "metaplan.record/2"
    assert json.loads(metaplan.dumps_records([record]))["format"] == "metaplan.records/2"


@pytest.mark.parametrize(("obj", "message"), [
    (_with({"op": "set", "path": ["a", -1], "old": 1, "new": 2}),
     "src: records[0].changes[0].path: array item numbers are 0 or more, found ['a', -1]"),
    (_with({"op": "set", "path": [0, "a"], "old": 1, "new": 2}),
     "src: records[0].changes[0].path: must be a non-empty array of keys (strings) and item "
     'numbers, starting with a field name, found [0,"a"]'),
    (_with({"op": "set", "path": ["a", True], "old": 1, "new": 2}), 'found ["a",true]'),
    (_with({"op": "set", "path": "a", "old": 1, "new": 2}), 'field name, found "a"'),
    (_with({"op": "add", "path": ["a"], "old": 1}),
     "src: records[0].changes[0]: a add change needs 'new'"),
    (_with({"op": "remove", "path": ["a"], "new": 1}),
     "src: records[0].changes[0]: a remove change needs 'old'"),
    (_with({"op": "set", "path": ["a"], "old": 1}),
     "src: records[0].changes[0]: a set change needs 'new'"),
    (_with(3), "src: records[0].changes[0]: a change is an object, found a number (3)"),
    ({"records": [{**_RECORD, "changes": {}}]},
     "src: records[0].changes: must be an array, found an object"),
    ({"records": [{**_RECORD, "format": "x"}]},
     'src: records[0].format: expected "metaplan.record/2" (or the older '
     '"metaplan.record/1"), found a string ("x")'),
    ({"records": [3]}, "src: records[0]: a record is an object, found a number (3)"),
    ({"records": [{**_RECORD, "result": None}]},
     "src: records[0].result: must be a string, found null"),
    ({"format": "metaplan.records/3", "records": []},
     'src: format: expected "metaplan.records/2" (a records file; or the older '
     '"metaplan.records/1") or "metaplan.record/2" (one record), found a string '
     '("metaplan.records/3")'),
    ({"param_plan": {}}, "src: not records: this is a plan (it has param_plan); records are "
                         "what normalize --record or diff --format json write"),
    ({"b": 1, "a": 2}, 'src: expected {"format": "metaplan.records/2", "records": [...]} or a '
                       "single record, found an object with keys ['a', 'b']"),
    ({"records": {}}, "found an object with keys ['records']"),
])
def test_every_refusal_says_what_and_where(obj: Any, message: str) -> None:
    with pytest.raises(metaplan.InputError) as info:
        records_from_json(obj, source="src")
    assert message in str(info.value)


def test_a_remove_needs_no_new_value_and_an_add_no_old_one() -> None:
    (record,) = records_from_json(_with({"op": "remove", "path": ["a"], "old": {"x": 1}}))
    assert record.changes == (metaplan.Change("remove", ("a",), metaplan.freeze({"x": 1})),)
    (record,) = records_from_json(_with({"op": "add", "path": ["a", 0], "new": 1}))
    assert record.changes == (metaplan.Change("add", ("a", 0), None, 1),)


def test_records_files_round_trip_on_disk(tmp_path: Path, demo_plan: metaplan.Plan) -> None:
    records = (demo_record(demo_plan), metaplan.invert(demo_record(demo_plan)))
    path = tmp_path / "rec.json"
    metaplan.dump_records(records, path)
    assert metaplan.load_records(path) == records
    assert path.read_bytes() == metaplan.dumps_records(records)
    assert path.read_bytes().endswith(b"\n  ]\n}") and b'\n  "records": [\n' in path.read_bytes()
    path.write_text("{")
    with pytest.raises(metaplan.InputError, match=re.escape(f"{path}: not valid JSON")):
        metaplan.load_records(path)


def test_one_record_or_change_read_directly() -> None:
    from metaplan.records.codec import change_from_json, record_from_json

    with pytest.raises(metaplan.InputError, match=r"^record: a record is an object, found"):
        record_from_json(3)
    assert change_from_json({"op": "set", "path": ["a", 0], "old": 1, "new": 2}, "c") == \
        metaplan.Change("set", ("a", 0), 1, 2)
    with pytest.raises(metaplan.InputError, match=r"^c\.path: must be a non-empty array of keys,"):
        change_from_json({"op": "set", "path": ["a", 0], "old": 1, "new": 2}, "c", legacy=True)


def test_what_is_not_a_records_file_says_what_it_is() -> None:
    for obj, found in (([1, 2], "an array"), (["param_plan"], "an array"), (3, "a number (3)"),
                       ({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7},
                        "an object with keys ['a', 'b', 'c', 'd', 'e', 'f']")):
        with pytest.raises(metaplan.InputError) as info:
            records_from_json(obj)
        assert str(info.value) == ('records: expected {"format": "metaplan.records/2", '
                                   f'"records": [...]}} or a single record, found {found}')
    with pytest.raises(metaplan.InputError, match=r"^records: not valid JSON"):
        loads_records(b"{")
    weird: Any = {"records": [{**_RECORD, "changes": [
        {"op": "set", "path": ["a", {1, 2}], "old": 1, "new": 2}]}]}
    with pytest.raises(metaplan.InputError, match=r"path: must be a non-empty array of keys "
                                                  r"\(strings\) and item numbers, starting "
                                                  r"with a field name, found an array"):
        records_from_json(weird)
