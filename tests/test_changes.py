"""Change records: apply checks preconditions, invert, compose, JSON, JSON Patch."""

from __future__ import annotations

import pytest

import metaplan
from metaplan.change import Change, ChangeRecord
from metaplan.edit import Edit, apply_changes
from metaplan.records import loads_records, record_to_json, records_from_json


def make_record(name: str, plan: metaplan.Plan, changes: list[Change]
                ) -> tuple[metaplan.Plan, ChangeRecord]:
    edit = Edit(plan)
    for change in changes:
        edit.apply(change)
    return edit.finish(name)


@pytest.fixture
def plan() -> metaplan.Plan:
    return metaplan.Plan.from_json({
        "param_plan": {"a": {"is_boundary": True, "params": {"w": {"tp": "R"}}},
                       "b": {"is_boundary": 1}},
        "boundary_classes": {"a": "MLP", "b": "MoE"},
        "other": {"kept": [1, 2]},
    })


def _record(plan: metaplan.Plan) -> ChangeRecord:
    _, record = make_record("demo", plan, [
        Change("set", ("param_plan", "a", "is_boundary"), True, False, "why a"),
        Change("add", ("param_plan", "b", "skip_source_lowering"), None, True, "why b"),
        Change("remove", ("boundary_classes", "b"), "MoE", None, "why c"),
        Change("set", ("param_plan", "a", "params", "w", "tp"), "R", "S(0)", "deep"),
    ])
    return record


def test_apply_makes_every_change_and_shares_the_rest(plan: metaplan.Plan) -> None:
    record = _record(plan)
    new = metaplan.apply(plan, record)
    assert new.param_plan["a"]["is_boundary"] is False
    assert new.param_plan["a"]["params"]["w"]["tp"] == "S(0)"
    assert new.param_plan["b"]["skip_source_lowering"] is True
    assert "b" not in new.boundary_classes
    assert new["other"] is plan["other"]
    assert plan.param_plan["a"]["is_boundary"] is True
    assert new.content_hash == record.result


def test_apply_names_the_first_conflicting_path(plan: metaplan.Plan) -> None:
    record = _record(plan)
    other = plan.set("param_plan", {"a": {"is_boundary": "no"}, "b": {}})
    with pytest.raises(metaplan.ConflictError) as info:
        metaplan.apply(other, record)
    assert info.value.path == ("param_plan", "a", "is_boundary")
    assert 'param_plan["a"].is_boundary' in str(info.value)
    assert info.value.expected is True and info.value.found == "no"


def test_apply_refuses_a_different_plan_even_when_paths_match(plan: metaplan.Plan) -> None:
    record = _record(plan)
    other = plan.set("other", {"kept": [3]})
    with pytest.raises(metaplan.ConflictError, match="differ elsewhere"):
        metaplan.apply(other, record)
    assert metaplan.apply(other, record, check_hash=False).param_plan["a"]["is_boundary"] is False


def test_one_is_not_true_for_preconditions(plan: metaplan.Plan) -> None:
    wrong = Change("set", ("param_plan", "b", "is_boundary"), True, False, "1 is not true")
    with pytest.raises(metaplan.ConflictError, match="expects true, but the plan has 1"):
        apply_changes(plan, [wrong])


@pytest.mark.parametrize("change, message", [
    (Change("add", ("param_plan", "a", "is_boundary"), None, False), "already has"),
    (Change("remove", ("boundary_classes", "zz"), "MLP", None), "no such key"),
    (Change("set", ("param_plan", "zz", "is_boundary"), True, False), "no such key"),
    (Change("set", ("other", "kept", "x"), 1, 2), "expected an object"),
])
def test_precondition_failures(plan: metaplan.Plan, change: Change, message: str) -> None:
    with pytest.raises(metaplan.ConflictError, match=message):
        apply_changes(plan, [change])


def test_invert_round_trips_and_is_an_involution(plan: metaplan.Plan) -> None:
    record = _record(plan)
    new = metaplan.apply(plan, record)
    back = metaplan.apply(new, metaplan.invert(record))
    assert back == plan and metaplan.dumps(back) == metaplan.dumps(plan)
    assert metaplan.invert(metaplan.invert(record)) == record


def test_compose_chains_and_refuses_gaps(plan: metaplan.Plan) -> None:
    first = _record(plan)
    middle = metaplan.apply(plan, first)
    end, second = make_record("second", middle, [
        Change("set", ("param_plan", "a", "is_boundary"), False, True, "again")])
    both = metaplan.compose([first, second])
    assert both.base == plan.content_hash and both.result == end.content_hash
    assert metaplan.apply(plan, both) == end
    assert metaplan.apply(end, metaplan.invert(both)) == plan
    with pytest.raises(metaplan.ConflictError, match="cannot compose"):
        metaplan.compose([second, first])


def test_sequential_changes_on_one_path_apply_in_order(plan: metaplan.Plan) -> None:
    changes = [
        Change("set", ("param_plan", "a", "is_boundary"), True, False),
        Change("set", ("param_plan", "a", "is_boundary"), False, "x"),
        Change("set", ("param_plan", "a"), metaplan.freeze({"is_boundary": "x", "params": {
            "w": {"tp": "R"}}}), metaplan.freeze({"fresh": 1})),
        Change("add", ("param_plan", "a", "more"), None, 2),
    ]
    new = apply_changes(plan, changes)
    assert dict(new.param_plan["a"]) == {"fresh": 1, "more": 2}


def test_json_form_and_round_trip(plan: metaplan.Plan) -> None:
    record = _record(plan)
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


def test_json_patch_form(plan: metaplan.Plan) -> None:
    patch = metaplan.to_json_patch(_record(plan))
    assert patch[:2] == [
        {"op": "test", "path": "/param_plan/a/is_boundary", "value": True},
        {"op": "replace", "path": "/param_plan/a/is_boundary", "value": False}]
    assert {"op": "remove", "path": "/boundary_classes/b"} in patch
    jsonpatch = pytest.importorskip("jsonpatch")
    patched = jsonpatch.apply_patch(plan.to_json(), patch)
    assert patched == metaplan.apply(plan, _record(plan)).to_json()


def test_a_no_op_pass_returns_its_input(plan: metaplan.Plan) -> None:
    new, record = make_record("nothing", plan, [])
    assert new is plan and record.is_noop and record.base == record.result
