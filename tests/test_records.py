"""Records as JSON: the records files ``normalize --record``, ``diff`` and ``replay`` share."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given

import metaplan
from conftest import demo_record
from metaplan.records import loads_records, record_to_json, records_from_json
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
