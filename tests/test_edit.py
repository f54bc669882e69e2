"""The edit engine: passes' changes made in one sweep, replay checked, arrays by item."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import PMap, PVector, pmap

import metaplan
from conftest import demo_record, make_record
from metaplan import Change, ConflictError, Edit
from metaplan.passes.slimming import slim
from metaplan.records.codec import dumps_records, loads_records
from metaplan.records.edit import apply_changes, remove_in, set_in
from metaplan.testing import plans


@pytest.fixture
def plan() -> metaplan.Plan:
    return metaplan.Plan.from_json({
        "param_plan": {"a": {"is_boundary": True, "params": {"w": {"tp": "R"}}},
                       "b": {"is_boundary": True}, "c": "opaque"},
        "boundary_classes": {"a": "MLP", "b": "MLP"},
        "injections": [{"match": "a", "ep_size": 8}, {"match": "b", "ep_size": 8}],
        "frozen_sharded_params": ["a.w", "b.w"],
    })


def test_set_records_the_old_value_and_a_no_op_records_nothing(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("param_plan", "a", "is_boundary"), False, "why")
    edit.set(("param_plan", "b", "is_boundary"), True, "already so")
    edit.set(("param_plan", "a", "new"), 1)
    new, record = edit.finish("p")
    assert [(c.op, c.path, c.old, c.new) for c in record.changes] == [
        ("set", ("param_plan", "a", "is_boundary"), True, False),
        ("add", ("param_plan", "a", "new"), None, 1)]
    assert new.index("param_plan")["a"]["is_boundary"] is False
    assert plan.index("param_plan")["a"]["is_boundary"] is True
    assert record.base == plan.content_hash and record.result == new.content_hash


def test_nothing_changed_gives_the_input_itself(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("param_plan", "a", "is_boundary"), True)
    edit.remove(("boundary_classes", "zz"))
    new, record = edit.finish("p")
    assert new is plan and record.is_noop


def test_equal_edits_of_one_entry_share_one_result() -> None:
    entry = {"is_boundary": True, "params": {"w": {"tp": "R"}}}
    plan = metaplan.loads(metaplan.dumps(metaplan.Plan.from_json(
        {"param_plan": {f"m.{i}": entry for i in range(50)}})))
    edit = Edit(plan)
    for i in range(50):
        edit.set(("param_plan", f"m.{i}", "is_boundary"), False)
    new, _ = edit.finish("p")
    entries = new.index("param_plan")
    assert len({id(entries[f"m.{i}"]) for i in range(50)}) == 1
    assert len({id(plan.index("param_plan")[f"m.{i}"]) for i in range(50)}) == 1


def test_deep_edits_copy_only_their_path(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(0)")
    edit.set(("param_plan", "a", "params", "v"), {"tp": "R"})
    new, record = edit.finish("p")
    assert new.index("param_plan")["a"]["params"].thaw() == {"w": {"tp": "S(0)"},
                                                           "v": {"tp": "R"}}
    assert plan.index("param_plan")["a"]["params"].thaw() == {"w": {"tp": "R"}}
    assert new.index("param_plan")["b"] is plan.index("param_plan")["b"]
    assert metaplan.replay(plan, [record]) == new


def test_array_items_insert_remove_and_set_as_json_patch_does(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("injections", 1, "ep_size"), 16)
    edit.insert(("injections", 0), {"match": "z"})
    edit.remove(("frozen_sharded_params", 0))
    edit.insert(("frozen_sharded_params", 1), "c.w")
    new, record = edit.finish("p")
    assert new.to_json()["injections"] == [{"match": "z"}, {"match": "a", "ep_size": 8},
                                           {"match": "b", "ep_size": 16}]
    assert new.to_json()["frozen_sharded_params"] == ["b.w", "c.w"]
    assert [c.path for c in record.changes] == [
        ("injections", 1, "ep_size"), ("injections", 0), ("frozen_sharded_params", 0),
        ("frozen_sharded_params", 1)]
    assert metaplan.replay(plan, [record]) == new
    assert metaplan.apply(new, metaplan.invert(record)) == plan
    jsonpatch = pytest.importorskip("jsonpatch")
    assert jsonpatch.apply_patch(plan.to_json(), metaplan.to_json_patch(record)) == new.to_json()


@pytest.mark.parametrize("change, message", [
    (Change("add", ("param_plan", "a", "is_boundary"), None, False), "already has"),
    (Change("remove", ("boundary_classes", "zz"), "MLP", None), "no such key"),
    (Change("set", ("param_plan", "zz", "is_boundary"), True, False), "no such key"),
    (Change("set", ("param_plan", "c", "x"), 1, 2), "expected an object or array"),
    (Change("set", ("param_plan", "a", "params", "w", "tp", "deeper"), 1, 2),
     "expected an object or array"),
    (Change("set", ("injections", 5), 1, 2), "expects an item at 5"),
    (Change("add", ("injections", 3), None, 2), "cannot insert at 3"),
    (Change("set", ("injections", "x"), 1, 2), "its items are numbered"),
    (Change("set", ("param_plan", "a", 0), 1, 2), "its keys are names"),
    (Change("set", ("param_plan", "a", "is_boundary"), 1, False), "expects 1, but the plan has"),
    (Change("set", ("injections", 0, "ep_size"), 8.0, 9), "expects 8.0"),
])
def test_replay_refuses_what_does_not_fit(plan: metaplan.Plan, change: Change,
                                          message: str) -> None:
    with pytest.raises(ConflictError, match=message) as info:
        apply_changes(plan, [change])
    assert info.value.path[:len(change.path)] == change.path[:len(info.value.path)]


def test_replacing_a_map_after_edits_inside_it(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("param_plan", "a", "is_boundary"), False)
    edit.set(("param_plan",), {"only": {"is_boundary": False}})
    edit.set(("param_plan", "only", "x"), 1)
    new, record = edit.finish("p")
    assert new.to_json()["param_plan"] == {"only": {"is_boundary": False, "x": 1}}
    assert metaplan.replay(plan, [record]) == new
    assert metaplan.apply(new, metaplan.invert(record)) == plan


def test_a_change_cannot_nest_the_plan_past_the_limit(plan: metaplan.Plan) -> None:
    deep: Any = 1
    for _ in range(260):
        deep = [deep]
    with pytest.raises(metaplan.PlanError, match="more than 254 levels"):
        apply_changes(plan, [Change("add", ("param_plan", "a", "deep"), None, deep)])
    fits: Any = 1
    for _ in range(250):
        fits = [fits]
    apply_changes(plan, [Change("add", ("param_plan", "a", "deep"), None, fits)])


def test_a_top_level_field_keeps_the_shape_loading_checks(plan: metaplan.Plan) -> None:
    with pytest.raises(metaplan.PlanError, match="must be an object"):
        apply_changes(plan, [Change("set", ("param_plan",), plan.param_plan, "MLP")])
    with pytest.raises(metaplan.PlanError, match="class name is a string"):
        Edit(plan).set(("boundary_classes",), {"a": 3})


def test_reads_see_the_edit_so_far(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("param_plan", "a", "is_boundary"), False)
    edit.remove(("boundary_classes", "b"))
    assert edit.get(("param_plan", "a", "is_boundary")) is False
    assert edit.get(("boundary_classes", "b"), "gone") == "gone"
    assert edit.get(("injections", 1, "match")) == "b"
    assert edit.get(("nope",), None) is None
    assert len(edit.changes) == 2 and edit.plan is plan


def test_an_odd_flag_is_replaced_and_recorded(plan: metaplan.Plan) -> None:
    odd = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": 1}}})
    edit = Edit(odd)
    edit.set(("param_plan", "m", "is_boundary"), True)
    new, record = edit.finish("p")
    assert record.changes[0].old == 1 and type(record.changes[0].old) is int
    assert new.index("param_plan")["m"]["is_boundary"] is True


def test_malformed_changes_are_refused(plan: metaplan.Plan) -> None:
    for bad in (Change("frob", ("x",), 1, 2), Change("set", (), 1, 2),
                Change("set", (3, "x"), 1, 2)):
        with pytest.raises(ValueError, match="not a change"):
            apply_changes(plan, [bad])
    with pytest.raises(ValueError, match="starts with a field name"):
        Edit(plan).set((), 1)


def test_a_change_must_be_a_change_with_a_tuple_path() -> None:
    plan = metaplan.Plan.from_json({"x": 1})
    with pytest.raises(ValueError, match="not a change"):
        apply_changes(plan, [Change("frob", ("x",), 1, 2)])
    with pytest.raises(ValueError, match="not a change"):
        apply_changes(plan, [Change("set", ["x"], 1, 2)])  # type: ignore[arg-type]


# apply: replaying a record, checked ------------------------------------------------


def test_apply_makes_every_change_and_shares_the_rest(demo_plan: metaplan.Plan) -> None:
    plan = demo_plan
    record = demo_record(plan)
    new = metaplan.apply(plan, record)
    assert new.param_plan["a"]["is_boundary"] is False
    assert new.param_plan["a"]["params"]["w"]["tp"] == "S(0)"
    assert new.param_plan["b"]["skip_source_lowering"] is True
    assert "b" not in new.boundary_classes
    assert new["other"] is plan["other"]
    assert plan.param_plan["a"]["is_boundary"] is True
    assert new.content_hash == record.result


def test_apply_names_the_first_conflicting_path(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    other = demo_plan.set("param_plan", {"a": {"is_boundary": "no"}, "b": {}})
    with pytest.raises(metaplan.ConflictError) as info:
        metaplan.apply(other, record)
    assert info.value.path == ("param_plan", "a", "is_boundary")
    assert 'param_plan["a"].is_boundary' in str(info.value)
    assert info.value.expected is True and info.value.found == "no"


def test_apply_refuses_a_different_plan_even_when_paths_match(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    other = demo_plan.set("other", {"kept": [3]})
    with pytest.raises(metaplan.ConflictError, match="differ elsewhere"):
        metaplan.apply(other, record)
    assert metaplan.apply(other, record, check_hash=False).param_plan["a"]["is_boundary"] is False


def test_one_is_not_true_for_preconditions(demo_plan: metaplan.Plan) -> None:
    wrong = Change("set", ("param_plan", "b", "is_boundary"), True, False, "1 is not true")
    with pytest.raises(metaplan.ConflictError, match="expects true, but the plan has 1"):
        apply_changes(demo_plan, [wrong])


@pytest.mark.parametrize("change, message", [
    (Change("add", ("param_plan", "a", "is_boundary"), None, False), "already has"),
    (Change("remove", ("boundary_classes", "zz"), "MLP", None), "no such key"),
    (Change("set", ("param_plan", "zz", "is_boundary"), True, False), "no such key"),
    (Change("set", ("other", "kept", "x"), 1, 2), "expected an object"),
])
def test_precondition_failures(demo_plan: metaplan.Plan, change: Change, message: str) -> None:
    with pytest.raises(metaplan.ConflictError, match=message):
        apply_changes(demo_plan, [change])


def test_sequential_changes_on_one_path_apply_in_order(demo_plan: metaplan.Plan) -> None:
    changes = [
        Change("set", ("param_plan", "a", "is_boundary"), True, False),
        Change("set", ("param_plan", "a", "is_boundary"), False, "x"),
        Change("set", ("param_plan", "a"), metaplan.freeze({"is_boundary": "x", "params": {
            "w": {"tp": "R"}}}), metaplan.freeze({"fresh": 1})),
        Change("add", ("param_plan", "a", "more"), None, 2),
    ]
    new = apply_changes(demo_plan, changes)
    assert dict(new.param_plan["a"]) == {"fresh": 1, "more": 2}


def test_a_no_op_pass_returns_its_input(demo_plan: metaplan.Plan) -> None:
    new, record = make_record("nothing", demo_plan, [])
    assert new is demo_plan and record.is_noop and record.base == record.result


def test_applied_values_are_copied_not_referenced() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {}, "boundary_classes": {}})
    entry: dict[str, object] = {"is_boundary": False}
    new = apply_changes(plan, [Change("add", ("param_plan", "n"), None, entry),
                               Change("add", ("param_plan", "f"), None, 1e-5)])
    entry["zzz"] = 1
    assert "zzz" not in new.param_plan["n"]
    assert new == metaplan.Plan.from_json(new.to_json())
    with pytest.raises(metaplan.PlanError, match="must be an object"):
        apply_changes(plan, [Change("set", ("param_plan",), plan.param_plan, "MLP")])


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


def test_a_key_added_then_removed_in_one_edit_is_gone(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    edit.set(("param_plan", "new"), {"is_boundary": True})
    edit.remove(("param_plan", "new"))
    assert edit.get(("param_plan",)).thaw() == plan.to_json()["param_plan"]
    new, record = edit.finish("p")
    assert new == plan and [c.op for c in record.changes] == ["add", "remove"]
    assert metaplan.replay(plan, [record]) == new


# the public contract, corner by corner (each pins what a faster path must keep) ------------

_WIDE = {
    "param_plan": {"a": {"is_boundary": True, "params": {"w": {"tp": "R"}}},
                   "b": {"is_boundary": True}, "c": "opaque", "m": ["x", "y"],
                   "n": [{"k": 1}]},
    "boundary_classes": {"a": "MLP", "b": "MLP"},
    "injections": [{"match": "a", "ep_size": 8}, {"match": "b", "ep_size": 8}],
    "other": {"deep": {"x": {"y": 1}}, "s": 3, "list": [1]},
}


def _wide() -> metaplan.Plan:
    return metaplan.Plan.from_json(_WIDE)


def _conflict(call: Any, message: str, path: tuple[Any, ...]) -> None:
    """``call()`` raises the ConflictError ``message`` (the whole text) at ``path``."""
    with pytest.raises(ConflictError) as info:
        call()
    assert str(info.value) == message
    assert info.value.path == path


def test_why_defaults_to_empty_on_every_kind_of_change() -> None:
    edit = Edit(_wide())
    edit.set(("param_plan", "a", "is_boundary"), False)
    edit.set(("param_plan", "a", "params"), {"v": {}})
    edit.remove(("param_plan", "b"))
    edit.remove(("other", "s"))
    edit.insert(("injections", 0), {"match": "z"})
    assert [c.why for c in edit.changes] == [""] * 5


def test_a_path_given_as_a_list_is_recorded_as_a_tuple() -> None:
    edit = Edit(_wide())
    edit.set(["param_plan", "a", "is_boundary"], False)
    edit.remove(["param_plan", "b"])
    edit.set(["param_plan", "a", "params", "w", "tp"], "S(0)")
    assert [c.path for c in edit.changes] == [
        ("param_plan", "a", "is_boundary"), ("param_plan", "b"),
        ("param_plan", "a", "params", "w", "tp")]
    assert all(type(c.path) is tuple for c in edit.changes)


def test_every_path_starts_with_a_field_name() -> None:
    edit = Edit(_wide())
    for call in (lambda: edit.get(()), lambda: edit.get((0,)), lambda: edit.set((0, "x"), 1),
                 lambda: edit.remove((1,)), lambda: edit.remove(()),
                 lambda: edit.insert((2, 0), 1)):
        with pytest.raises(ValueError, match="a path starts with a field name"):
            call()


def test_fqns_named_like_fields_and_keys_are_edited_where_the_path_says() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"param_plan": {"x": 0}, "x": {"x": 0}, "m": {"x": 0}},
        "boundary_classes": {"param_plan": "MLP", "m": "MLP"}})
    fresh = Edit(plan)
    fresh.remove(("boundary_classes", "param_plan"))
    new = fresh.finish("fresh")[0]
    assert new.to_json()["param_plan"] == plan.to_json()["param_plan"]
    assert new.to_json()["boundary_classes"] == {"m": "MLP"}
    edit = Edit(plan)
    edit.set(("param_plan", "m", "x"), 1)
    _conflict(lambda: edit.set(("boundary_classes", "param_plan", "x"), 1),
              'boundary_classes["param_plan"]: expected an object or array to descend into, '
              'found "MLP"', ("boundary_classes", "param_plan"))
    _conflict(lambda: edit.set(("boundary_classes", "m", "param_plan"), 1),
              'boundary_classes["m"]: expected an object or array to descend into, found "MLP"',
              ("boundary_classes", "m"))
    edit.remove(("boundary_classes", "param_plan"))
    new = edit.finish("named")[0]
    assert new.to_json() == {"param_plan": {"param_plan": {"x": 0}, "x": {"x": 0}, "m": {"x": 1}},
                             "boundary_classes": {"m": "MLP"}}


def test_a_flat_value_set_four_deep_goes_where_the_path_says() -> None:
    plan = _wide()
    edit = Edit(plan)
    edit.set(("param_plan", "a", "params", "v"), 1)
    edit.set(("other", "deep", "x"), None)
    new, record = edit.finish("deep")
    assert new.to_json()["param_plan"]["a"] == {"is_boundary": True,
                                                "params": {"w": {"tp": "R"}, "v": 1}}
    assert new.to_json()["other"]["deep"] == {"x": None}
    assert [(c.op, c.old, c.new) for c in record.changes] == [
        ("add", None, 1), ("set", metaplan.freeze({"y": 1}), None)]
    assert plan.to_json() == _WIDE


def test_set_into_an_entry_that_is_not_an_object_is_a_conflict() -> None:
    edit = Edit(_wide())
    _conflict(lambda: edit.set(("param_plan", "c", "x"), 1),
              'param_plan["c"]: expected an object or array to descend into, found "opaque"',
              ("param_plan", "c"))
    _conflict(lambda: edit.set(("param_plan", "zz", "x"), 1),
              'param_plan["zz"]: the record changes it, but the plan has no such key',
              ("param_plan", "zz"))
    message = 'param_plan["a"]: the change names item 0, but this is an object (its keys are names)'
    _conflict(lambda: edit.set(("param_plan", "a", 0), 1), message, ("param_plan", "a", 0))
    _conflict(lambda: apply_changes(_wide(), [Change("set", ("param_plan", "a", 0), 1, 2)]),
              message, ("param_plan", "a", 0))
    _conflict(lambda: edit.remove(("param_plan", "a", 0)), message, ("param_plan", "a", 0))
    message = "param_plan: the change names item 0, but this is an object (its keys are names)"
    _conflict(lambda: edit.remove(("param_plan", 0)), message, ("param_plan", 0))
    _conflict(lambda: edit.set(("param_plan", 0, "x"), 1), message, ("param_plan", 0))
    assert edit.changes == ()


def test_old_values_that_are_containers_are_recorded_frozen() -> None:
    edit = Edit(_wide())
    edit.set(("param_plan", "a", "params"), "none")
    edit.set(("param_plan", "m", 0), "z")
    edit.remove(("param_plan", "m"))
    edit.remove(("param_plan", "n"))
    old = [c.old for c in edit.changes]
    assert type(old[0]) is metaplan.JSONMap and old[0] == {"w": {"tp": "R"}}
    assert old[1] == "x"
    assert isinstance(old[2], PVector) and list(old[2]) == ["z", "y"]
    assert isinstance(old[3], PVector) and type(old[3][0]) is metaplan.JSONMap


def test_a_value_read_back_is_not_changed_by_later_changes_of_an_edited_entry() -> None:
    plan = _wide()
    edit = Edit(plan)
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(0)")
    edit.set(("param_plan", "a", "x"), 1)
    edit.set(("param_plan", "a", "y"), {"k": [1]})
    edit.set(("param_plan", "b"), edit.get(("param_plan", "a")))
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(1)")
    edit.set(("param_plan", "a", "y", "k", 0), 2)
    new, record = edit.finish("x")
    assert new.to_json()["param_plan"]["b"] == {"is_boundary": True, "x": 1, "y": {"k": [1]},
                                                "params": {"w": {"tp": "S(0)"}}}
    assert new.to_json()["param_plan"]["a"] == {"is_boundary": True, "x": 1, "y": {"k": [2]},
                                                "params": {"w": {"tp": "S(1)"}}}
    assert metaplan.thaw(record.changes[3].new) == new.to_json()["param_plan"]["b"]
    assert metaplan.replay(plan, [record]) == new


def test_an_entry_compared_and_then_edited_again_hashes_as_it_now_is() -> None:
    plan = _wide()
    edit = Edit(plan)
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(0)")
    edit.set(("param_plan", "a"), edit.get(("param_plan", "a")))  # equal: compared, kept
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(1)")
    new, record = edit.finish("x")
    assert len(record.changes) == 2
    entry = new.index("param_plan")["a"]
    assert entry.canonical() == b'{"is_boundary":true,"params":{"w":{"tp":"S(1)"}}}'
    assert new.content_hash == metaplan.Plan.from_json(new.to_json()).content_hash


def _equal_entries(count: int) -> metaplan.Plan:
    entry = {"is_boundary": True, "params": {"w": {"tp": "R"}}}
    return metaplan.loads(metaplan.dumps(metaplan.Plan.from_json(
        {"param_plan": {f"m.{i}": entry for i in range(count)}})))


def test_equal_replayed_and_removing_edits_of_equal_entries_share_one_result() -> None:
    plan = _equal_entries(3)
    flips = [Change("set", ("param_plan", f"m.{i}", "is_boundary"), True, False)
             for i in range(3)]
    entries = apply_changes(plan, flips).index("param_plan")
    assert entries["m.0"] is entries["m.1"] is entries["m.2"]
    assert entries["m.0"].thaw() == {"is_boundary": False, "params": {"w": {"tp": "R"}}}
    edit = Edit(plan)
    for i in range(3):
        edit.remove(("param_plan", f"m.{i}", "is_boundary"))
    new, record = edit.finish("drop")
    entries = new.index("param_plan")
    assert entries["m.0"] is entries["m.1"] is entries["m.2"]
    assert entries["m.0"].thaw() == {"params": {"w": {"tp": "R"}}}
    assert [(c.op, c.old, c.new) for c in record.changes] == [("remove", True, None)] * 3


def test_removing_what_is_not_there_and_setting_what_is_records_nothing() -> None:
    plan = _wide()
    edit = Edit(plan)
    edit.remove(("other", "zz"))
    edit.remove(("other", "deep", "zz"))
    edit.remove(("param_plan", "a", "zz"))
    edit.remove(("param_plan", "zz"))
    edit.remove(("injections", 2))
    edit.remove(("injections", 5))
    edit.remove(("param_plan", "m", 2))
    edit.remove(("nothing",))
    edit.set(("param_plan", "b"), {"is_boundary": True})
    edit.set(("param_plan", "a", "params"), {"w": {"tp": "R"}})
    edit.set(("param_plan", "a", "is_boundary"), True)
    edit.set(("other", "deep"), {"x": {"y": 1}})
    edit.set(("other", "deep", "x", "y"), 1)
    edit.set(("injections", 0), {"match": "a", "ep_size": 8})
    edit.set(("param_plan", "m", 1), "y")
    edit.set(("other",), _WIDE["other"])
    edit.set(("boundary_classes",), {"a": "MLP", "b": "MLP"})
    new, record = edit.finish("nothing")
    assert edit.changes == () and new is plan and record.is_noop


def test_an_equal_set_keeps_the_value_as_it_was_written() -> None:
    plan = _wide()
    edit = Edit(plan)
    edit.set(("injections", 0), {"ep_size": 8, "match": "a"})  # equal: nothing to do
    edit.set(("injections", 1, "ep_size"), 16)
    new = edit.finish("x")[0]
    assert [list(item) for item in new.to_json()["injections"]] == [["match", "ep_size"]] * 2
    assert len(edit.changes) == 1


def test_insert_adds_array_items_only() -> None:
    edit = Edit(_wide())
    for path, where in ((("param_plan", "a", "is_boundary"), 'param_plan["a"].is_boundary'),
                        (("param_plan", "a"), 'param_plan["a"]'), (("other",), "other"),
                        (("other", "deep", "x"), "other.deep.x")):
        with pytest.raises(ConflictError) as info:
            edit.insert(path, 1)
        assert str(info.value) == (f"{where}: insert adds array items; this is an object key "
                                   "(use set)")
        assert info.value.path == path
    edit.insert(("injections", 2), {"match": "z"})
    edit.set(("other", "new"), {"a": 1})
    edit.set(("param_plan", "a", "new"), [1])
    assert [(c.op, c.old) for c in edit.changes] == [("add", None)] * 3
    _conflict(lambda: edit.insert(("injections", -1), 1),
              "injections[-1]: cannot insert at -1 into an array of 3 items", ("injections", -1))


def test_array_items_out_of_range_or_named_are_conflicts() -> None:
    edit = Edit(_wide())
    _conflict(lambda: edit.set(("injections", -1), 1),
              "injections[-1]: the change expects an item at -1, but the array has 2 items",
              ("injections", -1))
    _conflict(lambda: edit.set(("injections", 2), 1),
              "injections[2]: the change expects an item at 2, but the array has 2 items",
              ("injections", 2))
    _conflict(lambda: apply_changes(_wide(), [Change("remove", ("injections", 2), 1, None)]),
              "injections[2]: the change expects an item at 2, but the array has 2 items",
              ("injections", 2))
    for index in (-1, 2):
        _conflict(lambda index=index: edit.set(("injections", index, "match"), "z"),
                  f"injections[{index}]: the change names it, but the array has 2 items",
                  ("injections", index))
    _conflict(lambda: edit.set(("injections", "x", "match"), "z"),
              "injections.x: the change names it, but the array has 2 items",
              ("injections", "x"))
    _conflict(lambda: edit.set(("other", "list", "x"), 1),
              "other.list: expected an object to hold key 'x', found an array (its items are "
              "numbered)", ("other", "list", "x"))
    _conflict(lambda: edit.set(("other", "deep", 0), 1),
              "other.deep: the change names item 0, but this is an object (its keys are names)",
              ("other", "deep", 0))
    assert edit.changes == ()


def test_entries_that_are_arrays_are_edited_item_by_item_and_come_out_frozen() -> None:
    plan = _wide()
    edit = Edit(plan)
    edit.set(("param_plan", "m", 0), "z")
    edit.insert(("param_plan", "m", 2), "w")
    edit.remove(("param_plan", "m", 1))
    edit.set(("param_plan", "n", 0, "k"), 2)
    edit.set(("other", "list", 0), 5)
    edit.set(("injections", 1), "b")
    assert edit.get(("param_plan", "m")) == ["z", "w"]
    new, record = edit.finish("items")
    entries = new.index("param_plan")
    assert isinstance(entries["m"], PVector) and list(entries["m"]) == ["z", "w"]
    assert isinstance(entries["n"], PVector) and type(entries["n"][0]) is metaplan.JSONMap
    assert entries["n"][0]["k"] == 2
    assert new.to_json()["other"]["list"] == [5]
    assert new.to_json()["injections"] == [{"match": "a", "ep_size": 8}, "b"]
    assert [(c.op, c.path[2:], c.old, c.new) for c in record.changes[:4]] == [
        ("set", (0,), "x", "z"), ("add", (2,), None, "w"), ("remove", (1,), "y", None),
        ("set", (0, "k"), 1, 2)]
    assert plan.to_json() == _WIDE
    assert metaplan.replay(plan, [record]) == new


def test_a_map_edited_in_a_few_keys_is_evolved_from_its_persistent_map() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {f"m{i}": {"x": i} for i in range(50)},
                                    "boundary_classes": {f"m{i}": "MLP" for i in range(50)}})
    classes = plan.boundary_classes  # both persistent maps built before the edit
    assert len(plan.param_plan) == 50
    edit = Edit(plan)
    edit.remove(("boundary_classes", "zz"))  # read, not changed
    edit.set(("param_plan", "m1", "x"), 100)
    edit.remove(("param_plan", "m2"))
    edit.set(("param_plan", "new"), {"x": -1})
    edit.set(("param_plan", "tmp"), {"x": -2})
    edit.remove(("param_plan", "tmp"))
    new = edit.finish("few")[0]  # 4 keys of 50: the map is evolved, not rebuilt
    expected = {f"m{i}": {"x": i} for i in range(50) if i != 2}
    expected |= {"m1": {"x": 100}, "new": {"x": -1}}
    assert isinstance(new.param_plan, PMap)
    assert metaplan.thaw(new.param_plan) == expected == new.to_json()["param_plan"]
    assert new.boundary_classes is classes
    assert new.content_hash == metaplan.Plan.from_json(new.to_json()).content_hash
    many = Edit(plan)
    for i in range(50):
        many.set(("param_plan", f"m{i}", "x"), i + 1)
    rebuilt = many.finish("many")[0]
    assert metaplan.thaw(rebuilt.param_plan) == {f"m{i}": {"x": i + 1} for i in range(50)}
    assert rebuilt.boundary_classes is classes


def test_whole_fields_replaced_hash_and_read_as_written() -> None:
    plan = _wide()
    assert plan.content_hash
    edit = Edit(plan)
    edit.set(("param_plan",), {"only": {"x": 1}})
    edit.set(("other",), {"k": 1})
    edit.set(("boundary_classes",), None)
    new = edit.finish("whole")[0]
    assert new.to_json() == {**_WIDE, "param_plan": {"only": {"x": 1}}, "other": {"k": 1},
                             "boundary_classes": None}
    assert new["other"] == {"k": 1} and type(new["other"]) is metaplan.JSONMap
    assert new.content_hash == metaplan.Plan.from_json(new.to_json()).content_hash


def test_reads_of_items_and_of_values_that_hold_no_such_key() -> None:
    plan = _wide()
    edit = Edit(plan)
    assert edit.get(("injections", 0, "match")) == "a"
    assert edit.get(("injections", 1)) == {"match": "b", "ep_size": 8}
    for path in (("injections", -1), ("injections", 2), ("injections", "x"),
                 ("other", "s", "x"), ("other", "deep", 0), ("param_plan", "c", "x")):
        assert edit.get(path, "none") == "none"
    assert edit.get(("param_plan", "a")) is plan.index("param_plan")["a"]  # not copied
    held = metaplan.Plan(pmap({"other": pmap({"k": 1})}))
    assert Edit(held).get(("other", "k")) == 1
    assert Edit(held).get(("other", 0), "none") == "none"


def _nested(levels: int, make: Any) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = make(value)
    return value


def test_the_nesting_limit_holds_exactly_for_every_kind_of_value() -> None:
    plan = _wide()
    where = ("param_plan", "a", "deep")  # the value's containers start at level 4
    for make in (lambda v: [v], lambda v: {"k": v}, lambda v: metaplan.freeze({"k": v}),
                 lambda v: [v, 1]):  # a scalar checked before the deep item
        fits = apply_changes(plan, [Change("add", where, None, _nested(251, make))])
        assert metaplan.loads(metaplan.dumps(fits)) == fits
        with pytest.raises(metaplan.PlanError, match="more than 254 levels") as info:
            apply_changes(plan, [Change("add", where, None, _nested(252, make))])
        assert info.value.path == where
    long = ("other", *["x"] * 254)
    with pytest.raises(metaplan.PlanError, match="more than 254 levels") as info:
        Edit(plan).set(long, 1)
    assert info.value.path == long[:6]
    _conflict(lambda: Edit(plan).set(long[:-1], 1),
              "other.x: the record changes it, but the plan has no such key", ("other", "x"))
    _conflict(lambda: Edit(plan).remove(("other", "deep", *["x"] * 300)),
              "other.deep.x.x: the record changes it, but the plan has no such key",
              ("other", "deep", "x", "x"))


def test_edit_apply_records_the_very_changes_given() -> None:
    plan = _wide()
    changes = [Change("set", ("param_plan", "a", "is_boundary"), True, False, "flip"),
               Change("set", ("injections", 0), {"ep_size": 8, "match": "a"}, "z")]
    edit = Edit(plan)
    for change in changes:
        edit.apply(change)
    assert all(a is b for a, b in zip(edit.finish("given")[1].changes, changes, strict=True))


@pytest.mark.parametrize("new", [5, True, False, "s"])
def test_a_replayed_set_expecting_no_value_does_not_add_the_key(new: Any) -> None:
    plan = _wide()
    change = Change("set", ("param_plan", "a", "zz"), metaplan.MISSING, new)
    with pytest.raises(ConflictError, match="the plan has no such key") as info:
        apply_changes(plan, [change])
    assert info.value.path == change.path


def test_a_replayed_add_of_a_flag_over_a_null_is_a_conflict() -> None:
    _conflict(lambda: apply_changes(_wide(), [Change("add", ("other", "s"), None, True)]),
              "other.s: the record adds it, but the plan already has 3", ("other", "s"))
    plan = metaplan.Plan.from_json({"param_plan": {"a": {"n": None}}})
    _conflict(lambda: apply_changes(plan, [Change("add", ("param_plan", "a", "n"), None, True)]),
              'param_plan["a"].n: the record adds it, but the plan already has null',
              ("param_plan", "a", "n"))


# the fast paths make what the general walk makes -------------------------------------


def _by_hand(doc: Any, change: Change) -> None:
    """``change`` made on plain JSON data, as RFC 6902 says (the reference)."""
    *parents, last = change.path
    node = doc
    for key in parents:
        node = node[key]
    if change.op == "remove":
        del node[last]
    elif change.op == "add" and isinstance(node, list):
        assert isinstance(last, int)
        node.insert(last, metaplan.thaw(change.new))
    else:
        node[last] = metaplan.thaw(change.new)


_LINE = metaplan.normalize_pipeline().then(slim)


@given(plans(), plans())
def test_one_change_at_a_time_makes_what_the_whole_record_makes(plan: metaplan.Plan,
                                                                other: metaplan.Plan) -> None:
    """Each change in an edit of its own, every record at once, and plain dicts, agree."""
    trace = _LINE.run(plan)
    steps = [*zip(trace.states, trace.records, strict=False),
             (trace.final, metaplan.diff(trace.final, other))]
    for start, record in steps:
        whole = metaplan.apply(start, record)
        one = start
        for change in record.changes:
            edit = Edit(one)
            edit.apply(change)
            one = edit.finish("one")[0]
        doc = start.to_json()
        for change in record.changes:
            _by_hand(doc, change)
        assert metaplan.dumps(one) == metaplan.dumps(whole) == metaplan.dumps(
            metaplan.Plan.from_json(doc))
        assert one.content_hash == whole.content_hash == record.result


# the deep path: conflicts name the first step that does not fit ---------------------------

_DEEP = {
    "param_plan": {"a": {"is_boundary": True, "params": {"w": {"tp": "R"}}, "n": None, "f": 1},
                   "b": {"is_boundary": True}},
    "boundary_classes": {"a": "MLP", "b": "MLP"},
    "injections": [{"match": "a", "ep_size": 8}],
    "other": {"deep": {"x": {"y": 1}}, "s": 3},
}


@pytest.mark.parametrize(("path", "where", "message", "found"), [
    (("param_plan", "a", "params", "zz", "tp"), ("param_plan", "a", "params", "zz"),
     'param_plan["a"].params.zz: the record changes it, but the plan has no such key', None),
    (("param_plan", "a", "f", "x", "y"), ("param_plan", "a", "f"),
     'param_plan["a"].f: expected an object or array to descend into, found 1', 1),
    (("param_plan", "zz", "params", "w"), ("param_plan", "zz"),
     'param_plan["zz"]: the record changes it, but the plan has no such key', None),
    (("param_plan", "c", "x", "y"), ("param_plan", "c"),
     'param_plan["c"]: the record changes it, but the plan has no such key', None),
    (("other", "nope", "x"), ("other", "nope"),
     "other.nope: the record changes it, but the plan has no such key", None),
    (("other", "s", "x"), ("other", "s"),
     "other.s: expected an object or array to descend into, found 3", 3),
    (("other", "deep", 0, "y"), ("other", "deep", 0),
     "other.deep: the change names item 0, but this is an object (its keys are names)", None),
    (("injections", 5, "match"), ("injections", 5),
     "injections[5]: the change names it, but the array has 1 items", None),
    (("nothing", "x"), ("nothing",),
     "nothing: the record changes it, but the plan has no such key", None),
])
def test_a_deep_change_names_the_first_step_that_does_not_fit(
        path: tuple[Any, ...], where: tuple[Any, ...], message: str, found: Any) -> None:
    plan = metaplan.Plan.from_json(_DEEP)
    with pytest.raises(ConflictError) as info:
        apply_changes(plan, [Change("set", path, 1, 2)])
    assert str(info.value) == message
    assert info.value.path == where and info.value.found == found


def test_records_that_change_only_depth_four_and_five() -> None:
    plan = metaplan.Plan.from_json(_DEEP)
    edit = Edit(plan)
    edit.set(("param_plan", "a", "params", "w"), {"tp": "S(0)", "ep": "R"}, "whole")
    edit.set(("param_plan", "a", "params", "w", "ep"), "S(1)", "inside")
    edit.set(("other", "deep", "x", "y"), 2)
    edit.remove(("other", "deep", "x", "y"))
    new, record = edit.finish("deep")
    assert [(c.op, c.path[-1], c.old, c.new) for c in record.changes] == [
        ("set", "w", metaplan.freeze({"tp": "R"}), metaplan.freeze({"tp": "S(0)", "ep": "R"})),
        ("set", "ep", "R", "S(1)"), ("set", "y", 1, 2), ("remove", "y", 2, None)]
    assert new.to_json()["param_plan"]["a"]["params"] == {"w": {"tp": "S(0)", "ep": "S(1)"}}
    assert new.to_json()["other"]["deep"] == {"x": {}}
    assert new.index("param_plan")["b"] is plan.index("param_plan")["b"]
    assert plan.to_json() == _DEEP
    assert metaplan.replay(plan, [record]) == new
    assert metaplan.apply(new, metaplan.invert(record)) == plan


# the shallow path's corners --------------------------------------------------------------


@pytest.mark.parametrize(("change", "message", "found"), [
    (Change("add", ("param_plan", "a", "n"), None, 2),
     'param_plan["a"].n: the record adds it, but the plan already has null', None),
    (Change("add", ("boundary_classes", "a"), None, "X"),
     'boundary_classes["a"]: the record adds it, but the plan already has "MLP"', "MLP"),
    (Change("add", ("other",), None, 1),
     'other: the record adds it, but the plan already has {"deep":{"x":{"y":1}},"s":3}',
     {"deep": {"x": {"y": 1}}, "s": 3}),
    (Change("remove", ("param_plan", "a", "f"), True, None),
     'param_plan["a"].f: the record expects true, but the plan has 1', 1),
    (Change("remove", ("param_plan", "a", "is_boundary"), 1, None),
     'param_plan["a"].is_boundary: the record expects 1, but the plan has true', True),
    (Change("set", ("param_plan", "a", "f"), True, 2),
     'param_plan["a"].f: the record expects true, but the plan has 1', 1),
    (Change("remove", ("boundary_classes", "b"), 1, None),
     'boundary_classes["b"]: the record expects 1, but the plan has "MLP"', "MLP"),
    (Change("remove", ("other",), {"deep": {"x": {"y": 1}}, "s": True}, None),
     'other: the record expects {"deep":{"x":{"y":1}},"s":true}, but the plan has '
     '{"deep":{"x":{"y":1}},"s":3}', {"deep": {"x": {"y": 1}}, "s": 3}),
    (Change("set", ("param_plan", "a", "params"), {"w": {"tp": 1}}, {}),
     'param_plan["a"].params: the record expects {"w":{"tp":1}}, but the plan has '
     '{"w":{"tp":"R"}}', {"w": {"tp": "R"}}),
])
def test_the_old_value_is_checked_strictly_and_found_values_are_frozen(
        change: Change, message: str, found: Any) -> None:
    plan = metaplan.Plan.from_json(_DEEP)
    with pytest.raises(ConflictError) as info:
        apply_changes(plan, [change])
    assert str(info.value) == message
    assert info.value.path == change.path
    assert metaplan.thaw(info.value.found) == found
    assert type(info.value.found) is type(metaplan.freeze(found))
    if change.op != "add":
        assert info.value.expected == change.old


def test_recorded_old_and_new_values_are_frozen() -> None:
    plan = metaplan.Plan.from_json(_DEEP)
    edit = Edit(plan)
    edit.set(("other", "deep"), {"z": [1]})
    edit.set(("param_plan", "a", "params"), {"v": {}})
    edit.remove(("param_plan", "b"))
    edit.set(("injections",), [{"match": "b"}])
    _, record = edit.finish("frozen")
    def kind(value: Any) -> str:  # pyrsistent's vector is PVector in C, PythonPVector without
        return "vector" if isinstance(value, PVector) else type(value).__name__

    kinds = [(kind(c.old), kind(c.new)) for c in record.changes]
    assert kinds == [("JSONMap", "JSONMap"), ("JSONMap", "JSONMap"), ("JSONMap", "NoneType"),
                     ("vector", "vector")]
    with pytest.raises(TypeError):
        record.changes[0].new["z"] = 2


# apply's hash checks --------------------------------------------------------------------


def test_an_inconsistent_record_is_refused_after_its_changes_apply(
        demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    lying = metaplan.ChangeRecord("lies", record.base, "sha256:" + "0" * 64, record.changes)
    with pytest.raises(ConflictError) as info:
        metaplan.apply(demo_plan, lying)
    result = metaplan.apply(demo_plan, record)
    assert str(info.value) == (f"record 'lies' should give plan sha256:{'0' * 64}, but gave "
                               f"{result.content_hash}: the record is inconsistent")
    assert (info.value.expected, info.value.found, info.value.record) == (
        lying.result, result.content_hash, "lies")
    assert metaplan.apply(demo_plan, lying, check_hash=False) == result


def test_a_refused_base_names_both_hashes(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    other = demo_plan.set("other", 1)
    with pytest.raises(ConflictError) as info:
        metaplan.apply(other, record)
    assert str(info.value) == (
        f"record 'demo' was made on plan {record.base}, not on {other.content_hash}: every "
        "changed path matches, so the plans differ elsewhere")
    assert (info.value.expected, info.value.found, info.value.record) == (
        record.base, other.content_hash, "demo")


def test_a_conflict_names_the_record_and_keeps_the_path(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    with pytest.raises(ConflictError) as info:
        metaplan.apply(metaplan.apply(demo_plan, record), record)
    assert str(info.value) == ('record \'demo\': param_plan["a"].is_boundary: the record '
                               "expects true, but the plan has false")
    assert (info.value.path, info.value.expected, info.value.found, info.value.record) == (
        ("param_plan", "a", "is_boundary"), True, False, "demo")
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_a_version_1_record_is_replayed_without_hash_checks(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    legacy = metaplan.ChangeRecord("old", "legacy:x", "legacy:y", record.changes)
    assert metaplan.apply(demo_plan, legacy) == metaplan.apply(demo_plan, record)
    with pytest.raises(ConflictError, match="the record expects true"):
        metaplan.apply(metaplan.apply(demo_plan, record), legacy)


def test_an_entry_that_is_an_array_is_edited_by_item() -> None:
    a = metaplan.Plan.from_json({"param_plan": {"m": ["a"]}})
    b = metaplan.Plan.from_json({"param_plan": {"m": ["a", "b"]}})
    record = metaplan.diff(a, b)
    assert [c.path for c in record.changes] == [("param_plan", "m", 1)]
    assert metaplan.replay(a, [record]) == b
    assert metaplan.apply(b, metaplan.invert(record)) == a


def test_a_finished_edit_takes_no_more_changes() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m1": {}, "m2": {}}})
    edit = Edit(plan)
    edit.set(("param_plan", "m1", "x"), 1)
    first, record = edit.finish("first")
    with pytest.raises(RuntimeError, match="finished"):
        edit.set(("param_plan", "m2", "x"), 1)
    with pytest.raises(RuntimeError, match="finished"):
        edit.remove(("param_plan", "m1"))
    with pytest.raises(RuntimeError, match="finished"):
        edit.insert(("injections", 0), 1)
    assert metaplan.replay(plan, [record]) == first and "x" not in first.to_json()[
        "param_plan"]["m2"]


def test_a_value_read_back_is_not_changed_by_later_changes() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"a": {"params": {"w": {"tp": "R"}}},
                                                   "b": {}}})
    edit = Edit(plan)
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(0)")
    edit.set(("param_plan", "b"), edit.get(("param_plan", "a")))
    edit.set(("param_plan", "a", "params", "w", "tp"), "S(1)")
    new, record = edit.finish("x")
    assert new.to_json()["param_plan"]["b"] == {"params": {"w": {"tp": "S(0)"}}}
    assert metaplan.thaw(record.changes[1].new) == {"params": {"w": {"tp": "S(0)"}}}
    assert metaplan.replay(plan, [record]) == new


def test_an_item_number_finds_nothing_in_an_object_held_as_a_pmap() -> None:
    fields: dict[str, Any] = {"param_plan": pmap({}), "x": pmap({1: "one", "1": "text"})}
    edit = Edit(metaplan.Plan(pmap(fields)))
    assert edit.get(("x", 1), "absent") == "absent"
    assert edit.get(("x", "1")) == "text"


class _Key(str):
    """A str subclass: no JSON key (``frozen.step`` reads only exact strings)."""


def test_a_step_into_an_fqn_map_is_read_as_plan_at_reads_it(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    for path in (("param_plan", _Key("a")), ("param_plan", 0), ("param_plan", "a", _Key("params"))):
        assert plan.at(path, "absent") == "absent"
        assert edit.get(path, "absent") == "absent", path
    assert edit.get(("param_plan", "a", "params", "w", "tp")) == "R"


def test_a_write_refuses_a_path_given_as_a_string(plan: metaplan.Plan) -> None:
    edit = Edit(plan)
    writes: list[Callable[[], None]] = [
        lambda: edit.set("param_plan/a/is_boundary", False),
        lambda: edit.remove("param_plan/b"),
        lambda: edit.insert("injections/0", {"match": "c"})]
    for write in writes:
        with pytest.raises(TypeError, match=r"^a path to change is a tuple of keys, found the "
                                            r"string .*metaplan\.set_in / remove_in"):
            write()
    assert edit.finish("nothing")[1].is_noop


def test_set_in_and_remove_in_read_digit_steps_as_items_only_in_arrays() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"m": {"out_names": ["x", "y"], "0": "key"}},
        "injections": [{"match": "a"}, {"match": "b"}], "o": {"0": "zero"}, "0": {"k": 1}})
    before = plan.to_json()
    cases: list[tuple[Any, Any, Any]] = [
        ("injections/1/ep_size", ("injections", 1, "ep_size"), 4),
        (("injections", "0", "match"), ("injections", 0, "match"), "z"),
        ("param_plan/m/out_names/1", ("param_plan", "m", "out_names", 1), "w"),
        ("param_plan/m/0", ("param_plan", "m", "0"), "other"),  # an object's key "0"
        ("o/0", ("o", "0"), "nought"),
        ("0/k", ("0", "k"), 2)]  # a field named like an item number is a field
    for given_path, path, value in cases:
        new = set_in(plan, given_path, value)
        assert isinstance(new, metaplan.Plan) and new.at(path) == value, given_path
        assert set_in(new, given_path, value) is new  # already so: the plan itself
    gone = remove_in(plan, "injections/0")
    assert isinstance(gone, metaplan.Plan)
    assert metaplan.thaw(gone.at("injections")) == [{"match": "b"}]
    fewer = remove_in(plan, ("param_plan", "m", "out_names", "0"))
    assert metaplan.thaw(fewer.at("param_plan/m/out_names")) == ["y"]
    assert metaplan.thaw(remove_in(plan, "o/0").at("o")) == {}
    assert remove_in(plan, "param_plan/zz") is plan  # nothing there: the plan itself
    assert plan.to_json() == before


def _outcome(plan: metaplan.Plan, make: Callable[[Edit], None]) -> tuple[Any, ...]:
    """The plan text and changes ``make`` gives on an edit of ``plan``, or what it raised."""
    edit = Edit(plan)
    try:
        make(edit)
    except (ConflictError, TypeError) as exc:
        return (type(exc), str(exc))
    new, record = edit.finish("p")
    return (metaplan.dumps(new), record.changes, [c.why for c in record.changes])


@given(plans(), st.sampled_from([False, True, 0, "x", None, 1.5, [1]]), st.data())
def test_set_each_and_remove_each_are_the_loops_of_set_and_remove(
        plan: metaplan.Plan, value: Any, data: st.DataObject) -> None:
    fqns = sorted(plan.index("param_plan"))
    chosen = data.draw(st.lists(st.sampled_from([*fqns, "absent.module"]), max_size=40))
    whys = [(fqn, f"why {n}") for n, fqn in enumerate(chosen)]
    touched = data.draw(st.lists(st.sampled_from(fqns or ["absent.module"]), max_size=3))

    removals = [(fqn, why) for fqn, why in whys[::2]
                if fqn in plan.index("boundary_classes") or fqn == "absent.module"]

    def first(edit: Edit) -> None:  # entries this edit already copied (its own raw dicts)
        for fqn in touched:
            if type(edit.get(("param_plan", fqn))) is metaplan.JSONMap:
                edit.set(("param_plan", fqn, "params", "w"), {"tp": "R"}, "first")

    def many(edit: Edit) -> None:
        first(edit)
        edit.set_each("param_plan", "is_boundary", value, whys)
        edit.remove_each("boundary_classes", removals)

    def one_by_one(edit: Edit) -> None:
        first(edit)
        for fqn, why in whys:
            if type(edit.get(("param_plan", fqn))) is metaplan.JSONMap:
                edit.set(("param_plan", fqn, "is_boundary"), value, why)
        for fqn, why in removals:
            edit.remove(("boundary_classes", fqn), why)

    assert _outcome(plan, many) == _outcome(plan, one_by_one)


def test_set_each_on_a_plan_without_the_map_or_after_finish() -> None:
    bare = metaplan.Plan.from_json({"param_plan": None, "boundary_classes": None})
    edit = Edit(bare)
    edit.set_each("param_plan", "is_boundary", False, [("m", "why")])
    assert edit.finish("p")[1].changes == ()
    with pytest.raises(ConflictError, match="found null"):  # as remove((field, key)) does
        Edit(bare).remove_each("boundary_classes", [("m", "why")])
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
                                    "boundary_classes": {"m": "MLP"}})
    done = Edit(plan)
    done.finish("p")
    with pytest.raises(RuntimeError, match="this edit is finished"):
        done.set_each("param_plan", "is_boundary", False, [("m", "why")])
    with pytest.raises(RuntimeError, match="this edit is finished"):
        done.remove_each("boundary_classes", [("m", "why")])


def test_set_each_shares_one_result_among_equal_entries_and_records_each() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {
        f"m{n}": {"is_boundary": True, "params": {}} for n in range(4)} | {
        "x": {"is_boundary": 0}, "y": {}, "z": {"is_boundary": False}}})
    edit = Edit(plan)
    edit.set_each("param_plan", "is_boundary", False,
                  [(k, f"w{k}") for k in ("m0", "x", "m1", "y", "z", "m2", "m3")])
    new, record = edit.finish("p")
    assert [(c.op, c.path[1], c.old, c.why) for c in record.changes] == [
        ("set", "m0", True, "wm0"), ("set", "x", 0, "wx"), ("set", "m1", True, "wm1"),
        ("add", "y", None, "wy"), ("set", "m2", True, "wm2"), ("set", "m3", True, "wm3")]
    entries = new.index("param_plan")
    assert entries["m0"] is entries["m1"] is entries["m2"] is entries["m3"]
    assert entries["x"] == {"is_boundary": False} and entries["y"] == {"is_boundary": False}
    assert plan.index("param_plan")["m0"]["is_boundary"] is True


def test_set_each_records_each_entrys_own_old_value_between_equal_entries() -> None:
    """An entry already so, between two equal ones, does not lend them its old value."""
    plan = metaplan.Plan.from_json({"param_plan": {
        "a": {"is_boundary": True}, "b": {"is_boundary": False}, "c": {"is_boundary": True},
        "d": {"is_boundary": 0}, "e": {"is_boundary": True}}})
    entries = plan.index("param_plan")
    assert entries["a"] is entries["c"] is entries["e"]  # loaded equal entries are one
    edit = Edit(plan)
    edit.set_each("param_plan", "is_boundary", False, [(k, k) for k in "abcde"])
    assert [(c.path[1], c.old) for c in edit.finish("p")[1].changes] == [
        ("a", True), ("c", True), ("d", 0), ("e", True)]
