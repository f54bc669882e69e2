"""diff: the record that turns one plan into another, skipping shared structure."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from pyrsistent import PVector

import metaplan
from metaplan.algorithms.sequences import ItemEdit, apply_script
from metaplan.core.plan import Plan
from metaplan.frozen import MISSING, JSONMap, thaw
from metaplan.testing import plan_pairs, plans, spec_registries
from metaplan.versions.diffing import array_changes, changes_between


def test_minus_zero_is_not_zero() -> None:
    plan = metaplan.Plan.from_json({"x": -0.0})
    assert plan.set("x", 0.0) is not plan
    record = metaplan.diff(plan, metaplan.Plan.from_json({"x": 0.0}))
    assert len(record) == 1 and metaplan.apply(plan, record)["x"] == 0.0


@given(plans(), plans())
def test_diff_turns_one_plan_into_the_other(a: metaplan.Plan, b: metaplan.Plan) -> None:
    record = metaplan.diff(a, b)
    assert metaplan.dumps(metaplan.apply(a, record)) == metaplan.dumps(b)
    assert metaplan.dumps(metaplan.apply(b, metaplan.invert(record))) == metaplan.dumps(a)
    assert metaplan.diff(a, a).is_noop


@given(plans(), spec_registries())
def test_diff_of_trace_states_matches_what_the_passes_did(plan: metaplan.Plan,
                                                          specs: metaplan.SpecRegistry) -> None:
    trace = metaplan.normalize(plan, specs=specs).trace
    record = metaplan.diff(trace.input, trace.final)
    assert metaplan.apply(trace.input, record) == trace.final
    touched = {change.path for r in trace.records for change in r.changes}
    assert {change.path for change in record.changes} <= touched


# the walk against a plain recursive diff --------------------------------------------


def _same(x: Any, y: Any) -> bool:
    """JSON equality written out: True is not 1, 1 is not 1.0, -0.0 is not 0.0."""
    return json.dumps(x, sort_keys=True) == json.dumps(y, sort_keys=True)


def _oracle(old: Any, new: Any, path: tuple[Any, ...], items: bool,
            out: list[tuple[Any, ...]]) -> None:
    """What ``diff`` should say, as plainly as it can be said (arrays by array_changes)."""
    if new is MISSING:
        if old is not MISSING:
            out.append(("remove", path, old, None))
    elif old is MISSING:
        out.append(("add", path, None, new))
    elif isinstance(old, dict) and isinstance(new, dict):
        for key in sorted({*old, *new}):
            _oracle(old.get(key, MISSING), new.get(key, MISSING), (*path, key), items, out)
    elif items and isinstance(old, list) and isinstance(new, list):
        if _same(old, new):
            return
        script = array_changes(old, new)
        if script is None:
            out.append(("set", path, old, new))
            return
        for edit in script:
            at = (*path, edit.index)
            if edit.op == "set":
                _oracle(edit.old, edit.new, at, items, out)
            else:
                out.append((edit.op, at, edit.old, edit.new))
    elif not _same(old, new):
        out.append(("set", path, old, new))


def _said(record: metaplan.ChangeRecord) -> list[tuple[Any, ...]]:
    return [(c.op, c.path, thaw(c.old), thaw(c.new)) for c in record.changes]


@pytest.mark.parametrize("arrays", ["items", "whole"])
@given(plan_pairs())
def test_diff_says_what_a_plain_recursive_diff_says(arrays: str,
                                                    pair: tuple[dict[str, Any], dict[str, Any]]
                                                    ) -> None:
    a, b = pair
    expected: list[tuple[Any, ...]] = []
    _oracle(a, b, (), arrays == "items", expected)
    record = metaplan.diff(Plan.from_json(a), Plan.from_json(b), arrays=arrays, why="w")
    assert _said(record) == [(op, path, old, new) for op, path, old, new in expected]
    assert all(change.why == "w" for change in record.changes)
    assert metaplan.apply(Plan.from_json(a), record) == Plan.from_json(b)


def test_values_of_every_kind_at_every_depth() -> None:
    a = Plan.from_json({
        "param_plan": {"m": {"is_boundary": True, "k": 1, "gone": "x", "d": {"x": 1.0},
                             "inner": {"a": {"x": 1}, "b": "s"},
                             "same": {"y": [1]}},
                       "n": {"is_boundary": False}, "q": "text"},
        "flag": True, "n": 1, "f": -0.0, "arr": [1, 2, 3], "whole": [1], "obj": {"a": {"b": 1}},
        "dropped": None, "kinds": {"a": {"x": 1}, "b": "s", "c": {"y": 1}},
    })
    b = Plan.from_json({
        "param_plan": {"m": {"is_boundary": 1, "k": 1.0, "added": None, "d": {"x": 1},
                             "inner": {"a": [1], "b": {"x": 1}},
                             "same": {"y": [1]}},
                       "n": {"is_boundary": False}, "q": "text", "r": {"new": True}},
        "flag": 1, "n": 1, "f": 0.0, "arr": [1, 3, 4], "whole": [2], "obj": {"a": {"b": True}},
        "added": [], "kinds": {"a": [1], "b": {"x": 1}, "c": "s"},
    })
    record = metaplan.diff(a, b, name="mine")
    assert record.pass_name == "mine" and metaplan.diff(a, b).pass_name == "diff"
    assert {change.why for change in metaplan.diff(a, b).changes} == {""}
    assert (record.base, record.result) == (a.content_hash, b.content_hash)
    assert _said(record) == [
        ("add", ("added",), None, []),
        ("remove", ("arr", 1), 2, None),
        ("add", ("arr", 2), None, 4),
        ("remove", ("dropped",), None, None),
        ("set", ("f",), -0.0, 0.0),
        ("set", ("flag",), True, 1),
        ("set", ("kinds", "a"), {"x": 1}, [1]),
        ("set", ("kinds", "b"), "s", {"x": 1}),
        ("set", ("kinds", "c"), {"y": 1}, "s"),
        ("set", ("obj", "a", "b"), 1, True),
        ("add", ("param_plan", "m", "added"), None, None),
        ("set", ("param_plan", "m", "d", "x"), 1.0, 1),
        ("remove", ("param_plan", "m", "gone"), "x", None),
        ("set", ("param_plan", "m", "inner", "a"), {"x": 1}, [1]),
        ("set", ("param_plan", "m", "inner", "b"), "s", {"x": 1}),
        ("set", ("param_plan", "m", "is_boundary"), True, 1),
        ("set", ("param_plan", "m", "k"), 1, 1.0),
        ("add", ("param_plan", "r"), None, {"new": True}),
        ("set", ("whole",), [1], [2]),
    ]
    frozen = (str, int, float, bool, type(None), JSONMap, PVector)
    assert all(isinstance(value, frozen) for change in record.changes
               for value in (change.old, change.new))  # values in changes cannot change
    whole = metaplan.diff(a, b, arrays="whole")
    assert ("set", ("arr",), [1, 2, 3], [1, 3, 4]) in _said(whole)
    assert metaplan.apply(a, whole) == b == metaplan.apply(a, record)


def test_a_field_that_is_an_fqn_map_on_one_side_only_is_compared_as_a_value() -> None:
    a = Plan.from_json({"param_plan": {"m": {"x": 1}}, "boundary_classes": {"m": "C"}})
    b = Plan.from_json({"param_plan": {"m": {"x": 1}}, "boundary_classes": None})
    assert _said(metaplan.diff(a, b)) == [("set", ("boundary_classes",), {"m": "C"}, None)]
    assert _said(metaplan.diff(b, a)) == [("set", ("boundary_classes",), None, {"m": "C"})]
    gone = Plan.from_json({"param_plan": {"m": {"x": 1}}})
    assert _said(metaplan.diff(a, gone)) == [("remove", ("boundary_classes",), {"m": "C"},
                                              None)]


def test_shared_and_equal_entries_are_skipped_and_every_holder_of_a_changed_pair_named() -> None:
    entry = {"is_boundary": True, "in_src": {"x": {"tp": "R"}}}
    a = Plan.from_json({"param_plan": {f"l.{i}": entry for i in range(4)}})
    edited = {**entry, "in_src": {"x": {"tp": "S(0)"}}}
    b = Plan.from_json({"param_plan": {**{f"l.{i}": edited for i in range(3)}, "l.3": entry}})
    assert [c.path for c in metaplan.diff(a, b).changes] == [
        ("param_plan", f"l.{i}", "in_src", "x", "tp") for i in range(3)]
    assert metaplan.diff(a, Plan.from_json(a.to_json())).is_noop
    assert metaplan.diff(a, a).changes == ()


def test_the_arrays_setting_is_checked() -> None:
    plan = Plan.from_json({"param_plan": {}})
    with pytest.raises(ValueError, match="arrays is 'items' or 'whole', not 'some'"):
        metaplan.diff(plan, plan, arrays="some")


def test_changes_between_values() -> None:
    assert [c[:4] for c in changes_between([1, 2], [1, 3], ("xs",))] == [
        ("remove", ("xs", 1), 2, None), ("add", ("xs", 1), None, 3)]
    assert [c[:4] for c in changes_between({"a": [1, 2]}, {"a": [1, 2], "b": 3}, ("x",),
                                           why="w")] == [("add", ("x", "b"), None, 3)]
    assert changes_between(MISSING, MISSING, ("x",)) == []
    assert [c[:4] for c in changes_between(MISSING, 1, ("x",))] == [("add", ("x",), None, 1)]
    assert [c[:4] for c in changes_between(1, MISSING, ("x",))] == [("remove", ("x",), 1, None)]
    assert [c.why for c in changes_between(1, 2, ())] == [""]
    assert [c.why for c in changes_between(1, 2, (), why="w")] == ["w"]


def test_array_changes_match_objects_by_their_match_and_replace_arrays_that_share_nothing(
) -> None:
    old = [{"match": "a", "ep": 8}, {"match": "b", "ep": 8}]
    new = [{"match": "b", "ep": 16}, {"match": "a", "ep": 8}]
    script = array_changes(old, new)
    assert script is not None and apply_script(old, script) == new
    assert [edit.op for edit in script].count("set") == 1  # b matched by its match: edited
    assert array_changes([1, 2], [3, 4]) is None
    assert array_changes([], [1]) == [ItemEdit("add", 0, None, 1)]
    assert array_changes([1], []) is None
    assert array_changes([1, 2], [2]) == [ItemEdit("remove", 0, 1, None)]
    unkeyed = [{"match": "a", "ep": 8}, {"ep": 8}]
    assert array_changes(unkeyed, [{"match": "a", "ep": 9}, {"ep": 8}]) == [
        ItemEdit("remove", 0, {"match": "a", "ep": 8}, None),
        ItemEdit("add", 0, None, {"match": "a", "ep": 9})]
    assert array_changes([True, 1], [1, True]) is not None
    assert array_changes([True], [1]) is None


def test_an_edited_injection_is_one_change_inside_it() -> None:
    injections = [{"match": f"m.{i}", "ep_size": 8} for i in range(6)]
    a = Plan.from_json({"param_plan": {}, "injections": injections})
    edited = [dict(item) for item in injections]
    edited[5]["ep_size"] = 16
    b = Plan.from_json({"param_plan": {}, "injections": edited})
    assert _said(metaplan.diff(a, b)) == [("set", ("injections", 5, "ep_size"), 8, 16)]
    assert _said(metaplan.diff(a, b, arrays="whole")) == [("set", ("injections",),
                                                           injections, edited)]
