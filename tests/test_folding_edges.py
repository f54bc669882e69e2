"""Folding changes and findings, pinned where a mutation run of ``versions/folding.py`` found
gaps: a group's kind and values as JSON, an entry's and a class's lines, the order of a
module's changes, where groups of values merge, item strings and numbered paths, and
findings with messages that name their module (or hold the hole character itself)."""

from __future__ import annotations

from typing import Any

import pytest

from metaplan.core.invariants import Note, Violation
from metaplan.frozen import canonical_bytes, freeze
from metaplan.records.change import Change, ChangeRecord
from metaplan.versions.folding import (
    FQN_FIELDS,
    Finding,
    Group,
    Line,
    Values,
    fold_changes,
    fold_findings,
    group_to_json,
    value_key,
)


def _set(fqn: str, key: str, old: Any, new: Any) -> Change:
    return Change("set", ("param_plan", fqn, key), old, new)


def _json(changes: list[Change]) -> list[dict[str, Any]]:
    return [group_to_json(group) for group in fold_changes(changes)]


# values and keys ------------------------------------------------------------------------


def test_values_as_json_are_the_value_thawed_or_how_many_distinct() -> None:
    frozen = freeze({"a": [1, 2]})
    shown = Values(1, frozen).to_json()
    assert shown == {"a": [1, 2]} and type(shown) is dict and type(shown["a"]) is list
    assert Values(2, 5).to_json() == {"distinct": 2}
    assert Values(0, 5).to_json() == {"distinct": 0}


def test_flat_values_key_as_themselves_objects_by_their_canonical_bytes() -> None:
    assert value_key("a") == "a"
    assert value_key(None) is None
    assert value_key(True) == ("bool", True)
    assert value_key(1) == ("int", 1)
    assert value_key(1.5) == b"1.5"
    assert value_key([1, "a"]) == b'[1,"a"]'
    frozen = freeze({"b": 1, "a": [True]})
    assert value_key(frozen) == b'{"a":[true],"b":1}' == canonical_bytes({"b": 1, "a": [True]})
    assert value_key({"b": 1, "a": [True]}) == value_key(frozen)


def test_keys_tell_apart_what_json_tells_apart() -> None:
    distinct = [None, "null", "1", 1, True, 0, False, 1.0, 0.0, -0.0, [], {}, [1], {"a": 1},
                freeze({"a": 2}), float("nan")]
    keys = [value_key(v) for v in distinct]
    assert len(set(keys)) == len(distinct)
    assert value_key([1]) == value_key((1,)) == value_key(freeze([1]))


# modules ----------------------------------------------------------------------------------


def test_a_group_of_modules_has_its_kind_names_size_and_lines() -> None:
    (group,) = fold_changes([_set(f"m.{i}", "k", True, False) for i in (10, 2, 3)])
    assert group == Group("modules", "", "m.{2,3,10}", ("m.10", "m.2", "m.3"), 3,
                          (Line("param_plan", "k", "set", Values(1, True), Values(1, False)),))
    assert group_to_json(group) == {
        "modules": "m.{2,3,10}", "count": 3,
        "changes": [{"field": "param_plan", "key": "k", "op": "set", "old": True,
                     "new": False}]}


def test_a_record_or_any_iterable_of_changes_folds_alike() -> None:
    changes = [_set("m.1", "k", 1, 2), _set("m.2", "k", 1, 2)]
    record = ChangeRecord("p", "a", "b", changes)
    assert fold_changes(record) == fold_changes(changes) == fold_changes(iter(changes))
    assert [g.pattern for g in fold_changes(record)] == ["m.{1,2}"]


def test_an_entry_added_or_removed_is_labelled_entry_a_class_is_labelled_class() -> None:
    changes = [Change("add", ("param_plan", "m.1"), None, {"x": 1}),
               Change("remove", ("param_plan", "m.2"), {"x": 1}, None),
               Change("set", ("boundary_classes", "m.3"), "A", "B"),
               Change("set", ("param_plan", "m.4", "a", 0, "b"), [1], [2])]
    assert _json(changes) == [
        {"modules": "m.1", "count": 1,
         "changes": [{"field": "param_plan", "key": "entry", "op": "add", "new": {"x": 1}}]},
        {"modules": "m.2", "count": 1,
         "changes": [{"field": "param_plan", "key": "entry", "op": "remove", "old": {"x": 1}}]},
        {"modules": "m.3", "count": 1,
         "changes": [{"field": "boundary_classes", "key": "class", "op": "set", "old": "A",
                      "new": "B"}]},
        {"modules": "m.4", "count": 1,
         "changes": [{"field": "param_plan", "key": "a[0].b", "op": "set", "old": [1],
                      "new": [2]}]}]
    lines = [g.lines[0] for g in fold_changes(changes)]
    assert [(line.old, line.new) for line in lines] == [
        (None, Values(1, {"x": 1})), (Values(1, {"x": 1}), None),
        (Values(1, "A"), Values(1, "B")), (Values(1, [1]), Values(1, [2]))]


def test_an_entry_and_a_class_with_the_same_values_keep_their_own_lines() -> None:
    changes = [Change("remove", ("param_plan", "m"), "x", None),
               Change("remove", ("boundary_classes", "m"), "x", None),
               Change("remove", ("param_plan", "n"), "x", None)]
    assert [(g.pattern, [(line.field, line.label) for line in g.lines])
            for g in fold_changes(changes)] == [
        ("m", [("param_plan", "entry"), ("boundary_classes", "class")]),
        ("n", [("param_plan", "entry")])]


def test_modules_changing_different_keys_the_same_way_are_different_groups() -> None:
    changes = [_set("m.1", "a", True, False), _set("m.2", "b", True, False),
               _set("m.3", "a", True, False)]
    assert [(g.pattern, g.lines[0].label) for g in fold_changes(changes)] == [
        ("m.{1,3}", "a"), ("m.2", "b")]


def test_a_module_shows_its_changes_in_order_with_the_class_last() -> None:
    changes = [_set("m.1", "a", 1, 2), _set("m.1", "b", 1, 2),
               Change("set", ("boundary_classes", "m.2"), "A", "B"), _set("m.2", "a", 1, 2),
               _set("m.3", "a", 1, 2), Change("set", ("boundary_classes", "m.3"), "A", "B"),
               Change("set", ("boundary_classes", "m.4"), "A", "B")]
    assert [(g.pattern, [line.label for line in g.lines]) for g in fold_changes(changes)] == [
        ("m.1", ["a", "b"]), ("m.{2,3}", ["a", "class"]), ("m.4", ["class"])]


def test_a_class_then_two_entry_changes_keeps_the_entry_changes_in_order() -> None:
    changes = [Change("set", ("boundary_classes", "m"), "A", "B"), _set("m", "a", 1, 2),
               _set("m", "b", 1, 2)]
    (group,) = fold_changes(changes)
    assert [line.label for line in group.lines] == ["a", "b", "class"]


def test_groups_come_in_natural_order_of_their_first_module() -> None:
    changes = [_set("m.1", "k", 1, 2), _set("m.9", "k", 1, 2), _set("m.5", "k", 1, 3),
               _set("m.10", "j", 1, 2), _set("m.3", "j", 5, 6), Change("set", ("x",), 1, 2)]
    assert [g.pattern for g in fold_changes(changes)] == ["m.{1,9}", "m.3", "m.5", "m.10", "x"]


def test_modules_first_then_top_level_fields() -> None:
    changes = [Change("set", ("x",), 1, 2), _set("m", "k", 1, 2)]
    assert [(g.kind, g.pattern) for g in fold_changes(changes)] == [
        ("modules", "m"), ("paths", "x")]


def test_a_whole_fqn_map_or_its_first_step_is_a_top_level_path() -> None:
    changes = [Change("set", ("param_plan",), {}, {"m": {}}),
               Change("set", ("boundary_classes",), {}, {"m": "A"})]
    assert _json(changes) == [
        {"field": "param_plan", "paths": "param_plan", "count": 1,
         "changes": [{"field": "param_plan", "key": "param_plan", "op": "set", "old": {},
                      "new": {"m": {}}}]},
        {"field": "boundary_classes", "paths": "boundary_classes", "count": 1,
         "changes": [{"field": "boundary_classes", "key": "boundary_classes", "op": "set",
                      "old": {}, "new": {"m": "A"}}]}]
    assert FQN_FIELDS == ("param_plan", "boundary_classes")


def test_object_values_fold_without_being_hashed() -> None:
    changes = [_set(f"m.{i}", "k", [i % 2], {"v": [1]}) for i in range(6)]
    assert _json(changes) == [
        {"modules": "m.{0,2,4}", "count": 3,
         "changes": [{"field": "param_plan", "key": "k", "op": "set", "old": [0],
                      "new": {"v": [1]}}]},
        {"modules": "m.{1,3,5}", "count": 3,
         "changes": [{"field": "param_plan", "key": "k", "op": "set", "old": [1],
                      "new": {"v": [1]}}]}]


def _merged(count: int, *, new: Any = False) -> list[dict[str, Any]]:
    return _json([_set(f"m.{i}", "k", i, new) for i in range(count)])


def test_three_value_groups_stay_apart_four_fold_into_one() -> None:
    assert [g["modules"] for g in _merged(3)] == ["m.0", "m.1", "m.2"]
    assert _merged(4) == [{"modules": "m.{0..3}", "count": 4,
                           "changes": [{"field": "param_plan", "key": "k", "op": "set",
                                        "old": {"distinct": 4}, "new": False}]}]
    assert [g["modules"] for g in _merged(2)] == ["m.0", "m.1"]


def test_a_value_group_the_old_value_tells_apart_from_another_stays_apart() -> None:
    changes = [_set("m.1", "k", 1, 2), _set("m.2", "k", 1, 3), _set("m.3", "k", 4, 2)]
    assert [(g["modules"], g["changes"][0]["old"], g["changes"][0]["new"])
            for g in _json(changes)] == [("m.1", 1, 2), ("m.2", 1, 3), ("m.3", 4, 2)]


def test_folded_values_count_distinct_and_show_the_first() -> None:
    changes = [_set("m.1", "k", 1, True), _set("m.2", "k", 2, True), _set("m.3", "k", 1, 1),
               _set("m.4", "k", 3, True), _set("m.5", "k", 4, True)]
    (group,) = fold_changes(changes)
    assert group.lines == (Line("param_plan", "k", "set", Values(4, 1), Values(2, True)),)
    assert group.names == ("m.1", "m.2", "m.3", "m.4", "m.5")


def test_folded_modules_with_several_changes_keep_each_slot() -> None:
    changes = []
    for i in range(5):
        changes += [Change("add", ("param_plan", f"m.{i}", "a"), None, i),
                    Change("remove", ("param_plan", f"m.{i}", "b"), i % 2, None),
                    Change("set", ("boundary_classes", f"m.{i}"), "A", "B")]
    assert _json(changes) == [{"modules": "m.{0..4}", "count": 5, "changes": [
        {"field": "param_plan", "key": "a", "op": "add", "new": {"distinct": 5}},
        {"field": "param_plan", "key": "b", "op": "remove", "old": {"distinct": 2}},
        {"field": "boundary_classes", "key": "class", "op": "set", "old": "A", "new": "B"}]}]


def test_value_groups_of_several_shapes_each_fold_or_not() -> None:
    changes = [_set(f"m.{i}", "a", i, 0) for i in range(4)]
    changes += [_set(f"n.{i}", "b", i, 0) for i in range(2)]
    changes += [_set(f"p.{i}", "c", i, 0) for i in range(2)]
    assert [(g["modules"], g["changes"][0]["old"]) for g in _json(changes)] == [
        ("m.{0..3}", {"distinct": 4}), ("n.0", 0), ("n.1", 1), ("p.0", 0), ("p.1", 1)]


# top-level fields ------------------------------------------------------------------------


def test_strings_added_or_removed_fold_as_items_per_field_and_op() -> None:
    changes = [Change("add", ("frozen", 0), None, "p.1"), Change("add", ("frozen", 3), None, "p.2"),
               Change("remove", ("frozen", 1), "q.1", None), Change("set", ("x",), 1, 2),
               Change("add", ("other", 0), None, "p.3")]
    groups = fold_changes(changes)
    assert [group_to_json(g) for g in groups] == [
        {"field": "frozen", "op": "add", "items": "p.{1,2}", "count": 2},
        {"field": "frozen", "op": "remove", "items": "q.1", "count": 1},
        {"field": "x", "paths": "x", "count": 1,
         "changes": [{"field": "x", "key": "x", "op": "set", "old": 1, "new": 2}]},
        {"field": "other", "op": "add", "items": "p.3", "count": 1}]
    assert groups[0] == Group("items", "frozen", "p.{1,2}", ("p.1", "p.2"), 2,
                              (Line("frozen", "items", "add", None, None),))


def test_what_is_not_a_string_item_goes_by_path() -> None:
    changes = [Change("set", ("frozen", 0), "a", "b"), Change("add", ("frozen", 1), None, 5),
               Change("add", ("frozen", 2, "x"), None, "s"),
               Change("add", ("frozen", "k"), None, "t"),
               Change("add", ("frozen", 4), None, "u"), Change("add", ("frozen", 5), None, "u")]
    assert _json(changes) == [
        {"field": "frozen", "paths": "frozen[0]", "count": 1,
         "changes": [{"field": "frozen", "key": "frozen[0]", "op": "set", "old": "a",
                      "new": "b"}]},
        {"field": "frozen", "paths": "frozen[1]", "count": 1,
         "changes": [{"field": "frozen", "key": "frozen[1]", "op": "add", "new": 5}]},
        {"field": "frozen", "paths": "frozen[2].x", "count": 1,
         "changes": [{"field": "frozen", "key": "frozen[2].x", "op": "add", "new": "s"}]},
        {"field": "frozen", "paths": "frozen.k", "count": 1,
         "changes": [{"field": "frozen", "key": "frozen.k", "op": "add", "new": "t"}]},
        {"field": "frozen", "op": "add", "items": "u", "count": 1},
        {"field": "frozen", "paths": "frozen[5]", "count": 1,
         "changes": [{"field": "frozen", "key": "frozen[5]", "op": "add", "new": "u"}]}]


def test_paths_alike_but_for_item_numbers_fold_together() -> None:
    changes = [Change("set", ("injections", 3, "ep_size"), 1, 2),
               Change("set", ("injections", 15, "ep_size"), 1, 2),
               Change("set", ("injections", 4, "ep_size"), 1, 3),
               Change("set", ("injections", 5, "tp_size"), 1, 2),
               Change("add", ("injections", 6, "x1"), None, 1),
               Change("add", ("injections", 7, "x2"), None, 1),
               Change("remove", ("a1",), 1, None), Change("remove", ("a2",), 1, None),
               Change("set", ("cfg", "k-1"), 1, 2), Change("set", ("cfg", "k-2"), 1, 2),
               Change("set", ("cfg", "a-b"), 1, 2), Change("set", ("cfg", "c-d"), 1, 2)]
    assert [(g["paths"], g["count"]) for g in _json(changes)] == [
        ("injections[{3,15}].ep_size", 2), ("injections[4].ep_size", 1),
        ("injections[5].tp_size", 1), ("injections[6].x1", 1), ("injections[7].x2", 1),
        ("a1", 1), ("a2", 1), ('cfg["k-{1,2}"]', 2), ('cfg["a-b"]', 1), ('cfg["c-d"]', 1)]
    groups = fold_changes(changes)
    assert groups[0].lines == (Line("injections", "injections[{3,15}].ep_size", "set",
                                    Values(1, 1), Values(1, 2)),)
    assert [(g.kind, g.field, g.names, g.size) for g in groups[:2]] == [
        ("paths", "injections", (), 2), ("paths", "injections", (), 1)]
    assert groups[4].lines[0].old is None and groups[5].lines[0].new is None


def test_a_path_group_shows_its_first_changes_values() -> None:
    changes = [Change("set", ("x", 0), [1], [2]), Change("set", ("x", 1), (1,), (2,))]
    (group,) = fold_changes(changes)
    line = group.lines[0]
    assert line.old is not None and line.new is not None
    assert line.old.value == [1] and line.new.value == [2]
    assert line.old.value != (1,)


# findings --------------------------------------------------------------------------------


def test_a_finding_made_by_hand_defaults_to_no_path_and_no_template() -> None:
    finding = Finding("c", "x", "bad", ())
    assert finding.path == () and finding.template == ""
    assert finding.expand() == [("c", (), "bad")]
    named = Finding("c", 'param_plan["m"].k', "m is bad", ("m", "n"), ("param_plan", "k"))
    assert named.expand() == [("c", ("param_plan", "m", "k"), "m is bad"),
                              ("c", ("param_plan", "n", "k"), "m is bad")]


def test_findings_fold_by_their_modules_in_natural_order() -> None:
    found = [Violation("c", ("param_plan", f"m.{i}", "k", 0), f"m.{i} is bad, m.{i}!")
             for i in (10, 2, 3)]
    (finding,) = fold_findings(found)
    assert finding == Finding("c", 'param_plan["m.{2,3,10}"].k[0]',
                              "m.{2,3,10} is bad, m.{2,3,10}!",
                              ("m.2", "m.3", "m.10"), ("param_plan", "k", 0),
                              "\x00 is bad, \x00!")
    assert finding.expand() == [(v.check, v.path, v.message)
                                for v in sorted(found, key=lambda v: len(v.path[1]))]


def test_a_module_is_named_only_where_its_whole_name_stands() -> None:
    found = [Violation("c", ("boundary_classes", "lm_head"),
                       "lm_head, xlm_head, lm_head2, a.lm_head, lm_head.w, lm_head."),
             Violation("c", ("boundary_classes", "lm_tail"),
                       "lm_tail, xlm_head, lm_head2, a.lm_head, lm_head.w, lm_tail.")]
    folded = fold_findings(found)
    assert [(f.place, f.message, f.names, f.template) for f in folded] == [
        ('boundary_classes["lm_{head,tail}"]',
         "lm_{head,tail}, xlm_head, lm_head2, a.lm_head, lm_head.w, lm_{head,tail}.",
         ("lm_head", "lm_tail"), "\x00, xlm_head, lm_head2, a.lm_head, lm_head.w, \x00.")]
    assert [item for f in folded for item in f.expand()] == [
        (v.check, v.path, v.message) for v in found]


def test_the_same_message_for_two_modules_folds_only_when_it_names_them() -> None:
    alike = [Violation("c", ("boundary_classes", f"b.{i}"), f"b.{i}: wrong class")
             for i in range(2)]
    (folded,) = fold_findings(alike)
    assert (folded.place, folded.message) == ('boundary_classes["b.{0,1}"]',
                                              "b.{0,1}: wrong class")
    same = [Note("n", ("param_plan", f"m.{i}", "k"), "no module named") for i in range(2)]
    (note,) = fold_findings(same)
    assert (note.place, note.message, note.names) == (
        'param_plan["m.{0,1}"].k', "no module named", ("m.0", "m.1"))


def test_a_message_holding_the_hole_itself_folds_as_it_is() -> None:
    found = [Violation("c", ("param_plan", "m.1", "k"), "bad \x00 m.1"),
             Violation("c", ("param_plan", "m.2", "k"), "bad \x00 m.1"),
             Violation("c", ("param_plan", "m.1", "k"), "bad \x00 m.1"),
             Violation("d", ("x",), "top")]
    folded = fold_findings(found)
    assert folded == [
        Finding("c", 'param_plan["m.1"].k', "bad \x00 m.1", ("m.1", "m.1"),
                ("param_plan", "k"), ""),
        Finding("c", 'param_plan["m.2"].k', "bad \x00 m.1", ("m.2",), ("param_plan", "k"), ""),
        Finding("d", "x", "top", (), ("x",), "top")]
    assert [item for f in folded for item in f.expand()] == [
        (v.check, v.path, v.message) for v in (found[0], found[2], found[1], found[3])]


def test_findings_outside_the_fqn_maps_stay_alone_in_first_seen_order() -> None:
    found = [Violation("c", ("x", 1), "one"), Violation("c", ("x", 1), "one"),
             Violation("c", ("param_plan", "m.1", "k"), "m.1 bad"),
             Violation("c", ("param_plan", "m.1"), "entry bad"),
             Violation("c", ("param_plan", "m.2"), "entry bad"),
             Violation("c", ("param_plan",), "whole"), Violation("c", (), "root"),
             Violation("c", ("boundary_classes", ""), "empty"),
             Violation("c", ("param_plan", 3, "k"), "3"),
             Violation("c", ("param_plan", "m.2", "k"), "m.2 bad"),
             Violation("c", ("y",), "last")]
    folded = fold_findings(found)
    assert [(f.place, f.message, f.names, f.path) for f in folded] == [
        ("x[1]", "one", (), ("x", 1)), ("x[1]", "one", (), ("x", 1)),
        ('param_plan["m.{1,2}"].k', "m.{1,2} bad", ("m.1", "m.2"), ("param_plan", "k")),
        ('param_plan["m.{1,2}"]', "entry bad", ("m.1", "m.2"), ("param_plan",)),
        ("param_plan", "whole", (), ("param_plan",)), ("<root>", "root", (), ()),
        ('boundary_classes[""]', "empty", (), ("boundary_classes", "")),
        ("param_plan[3].k", "3", (), ("param_plan", 3, "k")), ("y", "last", (), ("y",))]
    assert sorted((item for f in folded for item in f.expand()), key=repr) == sorted(
        ((v.check, v.path, v.message) for v in found), key=repr)


def test_checks_and_fields_keep_findings_apart() -> None:
    found = [Violation("c", ("param_plan", "m.1", "k"), "m.1 bad"),
             Violation("d", ("param_plan", "m.2", "k"), "m.2 bad"),
             Violation("c", ("boundary_classes", "m.3", "k"), "m.3 bad"),
             Violation("c", ("param_plan", "m.4", "j"), "m.4 bad")]
    assert [f.place for f in fold_findings(found)] == [
        'param_plan["m.1"].k', 'param_plan["m.2"].k', 'boundary_classes["m.3"].k',
        'param_plan["m.4"].j']


@pytest.mark.parametrize("fqn", ["lm_head", "m.1"])
def test_the_place_quotes_the_module_pattern_only(fqn: str) -> None:
    (finding,) = fold_findings([Violation("c", ("param_plan", fqn, "k", "j"), "bad")])
    assert finding.place == f'param_plan["{fqn}"].k.j'
    assert finding.expand() == [("c", ("param_plan", fqn, "k", "j"), "bad")]


def test_a_frozen_entry_value_groups_with_its_plain_copy() -> None:
    frozen = freeze({"x": [1]})
    changes = [Change("add", ("param_plan", "m.1"), None, frozen),
               Change("add", ("param_plan", "m.2"), None, {"x": [1]})]
    assert _json(changes) == [{"modules": "m.{1,2}", "count": 2, "changes": [
        {"field": "param_plan", "key": "entry", "op": "add", "new": {"x": [1]}}]}]


def test_an_entry_and_a_class_changed_alike_are_not_taken_for_two_entry_changes() -> None:
    changes = [Change("remove", ("param_plan", "m"), "x", None),
               Change("remove", ("boundary_classes", "m"), "x", None),
               Change("remove", ("param_plan", "n"), "x", None),
               Change("remove", ("param_plan", "n"), "x", None)]
    assert [(g.pattern, [line.label for line in g.lines]) for g in fold_changes(changes)] == [
        ("m", ["entry", "class"]), ("n", ["entry", "entry"])]


def test_item_numbers_are_blanked_only_inside_brackets() -> None:
    changes = [Change("set", ("x", "k1"), 1, 2), Change("set", ("x", "k2"), 1, 2)]
    assert [g.pattern for g in fold_changes(changes)] == ["x.k1", "x.k2"]


def test_an_items_group_as_json_takes_the_op_of_its_first_line() -> None:
    group = Group("items", "f", "a", ("a",), 1, (Line("f", "items", "add", None, None),
                                                 Line("f", "items", "remove", None, None)))
    assert group_to_json(group) == {"field": "f", "op": "add", "items": "a", "count": 1}


def test_a_group_whose_names_sort_differently_in_natural_order_still_comes_in_order() -> None:
    # its first name in natural order leads (m.9), not its plainly sorted first (m.20)
    changes = [_set("m.20", "k", 1, 2), _set("m.9", "k", 1, 2), _set("m.10", "j", 1, 2)]
    assert [g.pattern for g in fold_changes(changes)] == ["m.{9,20}", "m.10"]
    changes = [_set("m.100", "k", 1, 2), _set("m.11", "k", 1, 2), _set("m.2", "j", 1, 2),
               _set("m.3", "i", 1, 2), _set("m.30", "i", 1, 2)]
    assert [g.pattern for g in fold_changes(changes)] == ["m.2", "m.{3,30}", "m.{11,100}"]
    changes = [_set("m.100", "k", 1, 2), _set("m.11", "k", 1, 2), _set("m.50", "j", 1, 2)]
    assert [g.pattern for g in fold_changes(changes)] == ["m.{11,100}", "m.50"]
