"""The edit engine: passes' changes made in one sweep, replay checked, arrays by item."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

import metaplan
from conftest import demo_record, make_record
from metaplan import Change, ConflictError, Edit
from metaplan.edit import apply_changes
from metaplan.passes.slim import slim
from metaplan.records import dumps_records, loads_records
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
    kinds = [(type(c.old).__name__, type(c.new).__name__) for c in record.changes]
    assert kinds == [("JSONMap", "JSONMap"), ("JSONMap", "JSONMap"), ("JSONMap", "NoneType"),
                     ("PVector", "PVector")]
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
