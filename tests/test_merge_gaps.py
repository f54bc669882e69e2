"""Three-way merge and rebase, pinned exactly where a mutation run found gaps: edits inside
one keyed array item, a field one side replaced and the other edited inside, strings
against arrays, what identifies an item that is not an object with a ``match``, a rebase
whose array edits fit neither way, and a conflict's text."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from metaplan.core.plan import Plan
from metaplan.frozen import MISSING, thaw
from metaplan.records.change import Change
from metaplan.versions.diffing import diff
from metaplan.versions.merging import Conflict, MergeResult, Side, merge, rebase


def _plan(**fields: Any) -> Plan:
    return Plan.from_json({"param_plan": {}, **fields})


def _found(conflicts: tuple[Conflict, ...]) -> list[dict[str, Any]]:
    """Each conflict's path and values, as JSON (an absent value has no key)."""
    return [conflict.to_json() for conflict in conflicts]


def _texts(conflicts: tuple[Conflict, ...]) -> list[str]:
    return [str(conflict) for conflict in conflicts]


def _steps(merged: MergeResult) -> list[tuple[str, tuple[Any, ...], Any, Any]]:
    """The record's changes as (op, path, old, new), values as JSON."""
    return [(c.op, c.path, thaw(c.old), thaw(c.new)) for c in merged.record.changes]


def _check_record(ours: Plan, merged: MergeResult) -> None:
    assert metaplan.replay(ours, [merged.record]) == merged.plan


# 1. both sides edit one keyed array item ----------------------------------------------------

KEYED_BASE = [{"match": "a", "k": 1, "m": 1, "n": 1, "s": 1, "z": 1},
              {"match": "b", "ep": 1}, {"match": "c", "ep": 1}]
KEYED_OURS = [{"match": "new"}, {"match": "a", "k": 2, "m": 2, "n": 1, "z": 2},
              {"match": "b", "ep": 2}, {"match": "c", "ep": 2}]
KEYED_THEIRS = [{"match": "a", "k": 1, "m": 3, "n": 3, "s": 1, "z": 3, "r": True},
                {"match": "b", "ep": 1}, {"match": "c", "ep": 3}]


def _keyed() -> tuple[Plan, Plan, Plan]:
    return (_plan(injections=KEYED_BASE), _plan(injections=KEYED_OURS),
            _plan(injections=KEYED_THEIRS))


def test_one_keyed_item_both_sides_edit_conflicts_key_by_key_at_its_base_index() -> None:
    base, ours, theirs = _keyed()
    merged = merge(base, ours, theirs)
    # one conflict per clashing key, in key order within the item, items in array order;
    # the index is the item's place in the base (ours moved "a" to 1 by inserting "new")
    assert _found(merged.conflicts) == [
        {"path": ["injections", 0, "m"], "base": 1, "ours": 2, "theirs": 3},
        {"path": ["injections", 0, "z"], "base": 1, "ours": 2, "theirs": 3},
        {"path": ["injections", 2, "ep"], "base": 1, "ours": 2, "theirs": 3}]
    assert _texts(merged.conflicts) == ["injections[0].m: base 1, ours 2, theirs 3",
                                        "injections[0].z: base 1, ours 2, theirs 3",
                                        "injections[2].ep: base 1, ours 2, theirs 3"]
    # every clean change of both sides is kept, ours' value at each conflict
    assert merged.plan == _plan(injections=[
        {"match": "new"}, {"match": "a", "k": 2, "m": 2, "n": 3, "z": 2, "r": True},
        {"match": "b", "ep": 2}, {"match": "c", "ep": 2}])
    assert _steps(merged) == [("set", ("injections", 1, "n"), 1, 3),
                              ("add", ("injections", 1, "r"), None, True)]
    _check_record(ours, merged)
    swapped = merge(base, theirs, ours)
    assert _found(swapped.conflicts) == [
        {"path": ["injections", 0, "m"], "base": 1, "ours": 3, "theirs": 2},
        {"path": ["injections", 0, "z"], "base": 1, "ours": 3, "theirs": 2},
        {"path": ["injections", 2, "ep"], "base": 1, "ours": 3, "theirs": 2}]
    assert swapped.plan == _plan(injections=[
        {"match": "new"}, {"match": "a", "k": 2, "m": 3, "n": 3, "z": 3, "r": True},
        {"match": "b", "ep": 2}, {"match": "c", "ep": 3}])
    _check_record(theirs, swapped)


def test_one_keyed_item_conflicts_are_settled_one_by_one_in_order() -> None:
    base, ours, theirs = _keyed()
    asked: list[str] = []
    answers: list[Side] = ["theirs", "base", "ours"]

    def pick(conflict: Conflict) -> Side:
        asked.append(str(conflict))
        return answers[len(asked) - 1]

    settled = merge(base, ours, theirs, resolve=pick)
    assert asked == _texts(merge(base, ours, theirs).conflicts)
    assert settled.clean
    assert settled.plan == _plan(injections=[
        {"match": "new"}, {"match": "a", "k": 2, "m": 3, "n": 3, "z": 1, "r": True},
        {"match": "b", "ep": 2}, {"match": "c", "ep": 2}])
    _check_record(ours, settled)
    theirs_won = merge(base, ours, theirs, resolve="theirs")
    assert theirs_won.clean
    assert theirs_won.plan == _plan(injections=[
        {"match": "new"}, {"match": "a", "k": 2, "m": 3, "n": 3, "z": 3, "r": True},
        {"match": "b", "ep": 2}, {"match": "c", "ep": 3}])
    assert _steps(theirs_won) == [("set", ("injections", 1, "m"), 2, 3),
                                  ("set", ("injections", 1, "n"), 1, 3),
                                  ("add", ("injections", 1, "r"), None, True),
                                  ("set", ("injections", 1, "z"), 2, 3),
                                  ("set", ("injections", 3, "ep"), 2, 3)]
    base_won = merge(base, ours, theirs, resolve="base")
    assert base_won.clean
    assert base_won.plan == _plan(injections=[
        {"match": "new"}, {"match": "a", "k": 2, "m": 1, "n": 3, "z": 1, "r": True},
        {"match": "b", "ep": 2}, {"match": "c", "ep": 1}])


def test_disjoint_edits_inside_one_keyed_item_merge_cleanly() -> None:
    base = _plan(injections=[
        {"match": "a", "ep": 8, "fn": "x", "gone": 1, "same": 1, "opt": {"p": 1, "q": 1}},
        {"match": "b", "ep": 8}])
    ours = _plan(injections=[
        {"match": "a", "ep": 16, "fn": "x", "same": 2, "opt": {"p": 2, "q": 1}},
        {"match": "b", "ep": 8}])
    theirs = _plan(injections=[
        {"match": "a", "ep": 8, "fn": "t", "gone": 1, "same": 2, "opt": {"p": 1, "q": 5},
         "added": [1]},
        {"match": "b", "ep": 8}])
    want = _plan(injections=[
        {"match": "a", "ep": 16, "fn": "t", "same": 2, "opt": {"p": 2, "q": 5},
         "added": [1]},
        {"match": "b", "ep": 8}])
    merged = merge(base, ours, theirs)
    assert merged.clean and merged.conflicts == ()
    assert merged.plan == want
    assert _steps(merged) == [("add", ("injections", 0, "added"), None, [1]),
                              ("set", ("injections", 0, "fn"), "x", "t"),
                              ("set", ("injections", 0, "opt", "q"), 1, 5)]
    _check_record(ours, merged)
    swapped = merge(base, theirs, ours)
    assert swapped.clean and swapped.plan == want
    assert _steps(swapped) == [("set", ("injections", 0, "ep"), 8, 16),
                               ("remove", ("injections", 0, "gone"), 1, None),
                               ("set", ("injections", 0, "opt", "p"), 1, 2)]


_KEYS = ("a", "b", "c", "d", "e")
_EDITS = st.dictionaries(st.sampled_from(_KEYS), st.none() | st.integers(0, 3), max_size=5)


def _edited(item: dict[str, Any], edits: dict[str, int | None]) -> dict[str, Any]:
    out = dict(item)
    for key, value in edits.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


@given(st.dictionaries(st.sampled_from(_KEYS), st.integers(0, 3)), _EDITS, _EDITS)
def test_edits_of_different_keys_of_one_keyed_item_always_merge_to_both(
        fields: dict[str, int], mine: dict[str, int | None], yours: dict[str, int | None]
        ) -> None:
    yours = {key: value for key, value in yours.items() if key not in mine}
    item = {"match": "m", **fields}
    other = {"match": "o", "a": 0}
    base = _plan(injections=[other, item])
    ours = _plan(injections=[other, _edited(item, mine)])
    theirs = _plan(injections=[other, _edited(item, yours)])
    want = _plan(injections=[other, _edited(_edited(item, mine), yours)])
    for one, two in ((ours, theirs), (theirs, ours)):
        merged = merge(base, one, two)
        assert merged.clean and merged.plan == want
        _check_record(one, merged)


def test_a_keyed_item_one_side_removed_and_the_other_edited_is_one_region() -> None:
    base = _plan(injections=[{"match": "a", "v": 1}, {"match": "b", "v": 1}])
    ours = _plan(injections=[{"match": "a", "v": 1}])
    theirs = _plan(injections=[{"match": "a", "v": 1}, {"match": "b", "v": 2}])
    merged = merge(base, ours, theirs)
    assert _found(merged.conflicts) == [{"path": ["injections", 1],
                                         "base": [{"match": "b", "v": 1}], "ours": [],
                                         "theirs": [{"match": "b", "v": 2}]}]
    assert merged.plan == ours
    swapped = merge(base, theirs, ours)
    assert _found(swapped.conflicts) == [{"path": ["injections", 1],
                                          "base": [{"match": "b", "v": 1}],
                                          "ours": [{"match": "b", "v": 2}], "theirs": []}]
    assert swapped.plan == theirs
    assert merge(base, ours, theirs, resolve="theirs").plan == theirs
    assert merge(base, ours, theirs, resolve="base").plan == base
    assert merge(base, theirs, ours, resolve="theirs").plan == ours


# 2. a whole field replaced on one side, edited inside on the other --------------------------


def test_a_field_replaced_by_one_side_and_edited_inside_by_the_other_conflicts_there() -> None:
    base = _plan(x={"a": 1, "b": 2}, y=1)
    ours = _plan(x={"a": 5, "b": 2, "c": 3}, y=1)  # two edits inside x
    theirs = _plan(x="off", y=2)
    merged = merge(base, ours, theirs)
    (conflict,) = merged.conflicts  # the place once, though two changes of ours meet it
    assert conflict.path == ("x",)
    assert thaw(conflict.base) == {"a": 1, "b": 2}
    assert thaw(conflict.ours) == {"a": 5, "b": 2, "c": 3}
    assert conflict.theirs == "off"
    assert merged.plan == _plan(x={"a": 5, "b": 2, "c": 3}, y=2)
    swapped = merge(base, theirs, ours)  # now two changes of theirs meet one of ours
    assert _found(swapped.conflicts) == [{"path": ["x"], "base": {"a": 1, "b": 2},
                                          "ours": "off", "theirs": {"a": 5, "b": 2, "c": 3}}]
    assert swapped.plan == _plan(x="off", y=2)
    settled: dict[Side, Any] = {"ours": {"a": 5, "b": 2, "c": 3}, "theirs": "off",
                                "base": {"a": 1, "b": 2}}
    for side, value in settled.items():
        result = merge(base, ours, theirs, resolve=side)
        assert result.clean and result.plan == _plan(x=value, y=2), side
        _check_record(ours, result)
    resolved = merge(base, ours, theirs, resolve="theirs")
    assert [(c.op, c.path, c.why) for c in resolved.record.changes] == [
        ("set", ("x",), "conflict resolved to theirs"), ("set", ("y",), "")]


def test_a_field_removed_by_one_side_and_edited_by_the_other_conflicts_with_absent() -> None:
    base = _plan(x={"a": 1, "b": 2})
    ours = _plan(x={"a": 5, "b": 2})
    theirs = _plan()
    merged = merge(base, ours, theirs)
    (conflict,) = merged.conflicts
    assert conflict.path == ("x",) and conflict.theirs is MISSING
    assert conflict.to_json() == {"path": ["x"], "base": {"a": 1, "b": 2},
                                  "ours": {"a": 5, "b": 2}}
    assert str(conflict) == 'x: base {"a":1,"b":2}, ours {"a":5,"b":2}, theirs (absent)'
    assert merged.plan == ours
    gone = merge(base, ours, theirs, resolve="theirs")
    assert gone.clean and "x" not in gone.plan and gone.plan == theirs
    assert merge(base, ours, theirs, resolve="base").plan == base


def test_an_entry_removed_by_ours_and_edited_twice_by_theirs_is_one_conflict() -> None:
    base = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "tp": 1, "pp": 1},
                                          "n": {"tp": 1}}})
    ours = Plan.from_json({"param_plan": {"n": {"tp": 1}}})
    theirs = Plan.from_json({"param_plan": {"m": {"is_boundary": False, "tp": 2, "pp": 1},
                                            "n": {"tp": 3}}})
    merged = merge(base, ours, theirs)
    assert _texts(merged.conflicts) == [
        'param_plan["m"]: base {"is_boundary":true,"pp":1,"tp":1}, ours (absent), '
        'theirs {"is_boundary":false,"pp":1,"tp":2}']
    assert merged.conflicts[0].ours is MISSING
    assert merged.plan == Plan.from_json({"param_plan": {"n": {"tp": 3}}})
    assert merge(base, ours, theirs, resolve="theirs").plan == theirs
    assert merge(base, ours, theirs, resolve="base").plan == Plan.from_json(
        {"param_plan": {"m": {"is_boundary": True, "tp": 1, "pp": 1}, "n": {"tp": 3}}})
    swapped = merge(base, theirs, ours)
    assert [c.path for c in swapped.conflicts] == [("param_plan", "m")]
    assert swapped.conflicts[0].theirs is MISSING
    assert swapped.plan == theirs


def test_the_conflict_is_at_the_shorter_path_whichever_side_replaced() -> None:
    base = _plan(x={"a": {"p": {"q": 1}}, "b": 2})
    deep = _plan(x={"a": {"p": {"q": 2}}, "b": 2})
    replaced = _plan(x={"a": [1], "b": 3})
    for ours, theirs in ((deep, replaced), (replaced, deep)):
        merged = merge(base, ours, theirs)
        assert [c.path for c in merged.conflicts] == [("x", "a")]
        (conflict,) = merged.conflicts
        assert thaw(conflict.base) == {"p": {"q": 1}}
        assert thaw(conflict.ours) == thaw(ours.at(("x", "a")))
        assert thaw(conflict.theirs) == thaw(theirs.at(("x", "a")))
        assert merged.plan.at(("x", "b")) == 3  # the clean change beside it
        assert thaw(merged.plan.at(("x", "a"))) == thaw(ours.at(("x", "a")))


def test_a_key_of_a_keyed_item_replaced_by_one_side_and_edited_by_the_other() -> None:
    base = _plan(injections=[{"match": "a", "opt": {"p": 1, "q": 1}, "v": 1}])
    ours = _plan(injections=[{"match": "a", "opt": {"p": 2, "q": 1}, "v": 1}])
    theirs = _plan(injections=[{"match": "a", "opt": "off", "v": 2}])
    merged = merge(base, ours, theirs)
    assert _found(merged.conflicts) == [{"path": ["injections", 0, "opt"],
                                         "base": {"p": 1, "q": 1}, "ours": {"p": 2, "q": 1},
                                         "theirs": "off"}]
    assert merged.plan == _plan(injections=[{"match": "a", "opt": {"p": 2, "q": 1}, "v": 2}])
    assert merge(base, ours, theirs, resolve="theirs").plan == theirs.set(
        "injections", [{"match": "a", "opt": "off", "v": 2}])


# 3. strings against arrays -------------------------------------------------------------------


@pytest.mark.parametrize(("base", "ours", "theirs"), [
    ("p", ["p", "q"], "r"),  # a string made an array; the other edits the string
    ("p", ["p", "q"], ["p", "r"]),  # a string made two different arrays
    (["p", "q"], "pq", ["p", "q", "r"]),  # an array made a string; the other edits items
    ([{"match": "a", "v": 1}], "none", [{"match": "a", "v": 2}]),
])
def test_a_value_changed_between_string_and_array_conflicts_whole(base: Any, ours: Any,
                                                                  theirs: Any) -> None:
    plans = _plan(x=base), _plan(x=ours), _plan(x=theirs)
    for one, two, mine, yours in ((plans[1], plans[2], ours, theirs),
                                  (plans[2], plans[1], theirs, ours)):
        merged = merge(plans[0], one, two)
        assert _found(merged.conflicts) == [{"path": ["x"], "base": base, "ours": mine,
                                             "theirs": yours}]
        assert merged.plan == one


def test_strings_are_not_merged_as_sequences_of_characters() -> None:
    merged = merge(_plan(x="abc"), _plan(x="xbc"), _plan(x="abz"))
    assert _texts(merged.conflicts) == ['x: base "abc", ours "xbc", theirs "abz"']
    assert merged.plan == _plan(x="xbc")
    inside = merge(_plan(injections=[{"match": "m", "fn": "abc"}]),
                   _plan(injections=[{"match": "m", "fn": "xbc"}]),
                   _plan(injections=[{"match": "m", "fn": "abz"}]))
    assert _texts(inside.conflicts) == ['injections[0].fn: base "abc", ours "xbc", '
                                        'theirs "abz"']


def test_inside_a_keyed_item_arrays_merge_by_item_and_strings_against_arrays_conflict(
        ) -> None:
    def item(tags: Any, ids: Any) -> Plan:
        return _plan(injections=[{"match": "m", "tags": tags, "ids": ids}])

    merged = merge(item(["p", "q"], [3, 1, 2]), item(["p", "q", "r"], [0, 3, 1, 2]),
                   item("pq", [3, 1, 2, 4]))
    assert _found(merged.conflicts) == [{"path": ["injections", 0, "tags"],
                                         "base": ["p", "q"], "ours": ["p", "q", "r"],
                                         "theirs": "pq"}]
    assert merged.plan == item(["p", "q", "r"], [0, 3, 1, 2, 4])
    mixed = merge(item("p", [1]), item(["p", "q"], [1]), item(["p", "r"], [1]))
    assert _found(mixed.conflicts) == [{"path": ["injections", 0, "tags"], "base": "p",
                                        "ours": ["p", "q"], "theirs": ["p", "r"]}]


# 4. identity of items that are not objects with a match ---------------------------------------


def test_arrays_of_scalars_are_merged_by_value_and_position() -> None:
    disjoint = merge(_plan(x=[3, 1, 2]), _plan(x=[9, 1, 2]), _plan(x=[3, 1, 8]))
    assert disjoint.clean and disjoint.plan == _plan(x=[9, 1, 8])
    same = merge(_plan(x=[3, 1, 2]), _plan(x=[3, 9, 2]), _plan(x=[3, 8, 2]))
    assert _texts(same.conflicts) == ["x[1]: base [1], ours [9], theirs [8]"]
    assert same.plan == _plan(x=[3, 9, 2])
    # a scalar both sides add at different places has no identity: both copies, no conflict
    added = merge(_plan(x=[1, 2]), _plan(x=[9, 1, 2]), _plan(x=[1, 2, 9]))
    assert added.clean and added.plan == _plan(x=[9, 1, 2, 9])
    # while an object with a match added at two places is a duplicate
    dup = merge(_plan(x=[{"match": "a"}, {"match": "b"}]),
                _plan(x=[{"match": "n"}, {"match": "a"}, {"match": "b"}]),
                _plan(x=[{"match": "a"}, {"match": "b"}, {"match": "n"}]))
    assert _texts(dup.conflicts) == ['x[0]: base [], ours [{"match":"n"}], '
                                     'theirs [{"match":"n"}]']
    assert dup.plan == _plan(x=[{"match": "n"}, {"match": "a"}, {"match": "b"},
                                {"match": "n"}])


def test_items_compare_as_json_true_is_not_one() -> None:
    merged = merge(_plan(x=[1, True]), _plan(x=[1, True, 2]), _plan(x=[1, 1]))
    assert merged.clean
    assert [type(v) for v in merged.plan.at("x")] == [int, int, int]
    assert list(merged.plan.at("x")) == [1, 1, 2]


def test_arrays_of_arrays_are_items_by_value_never_merged_inside() -> None:
    inner = merge(_plan(x=[[1, 2], [3]]), _plan(x=[[0, 1, 2], [3]]), _plan(x=[[1, 2, 9], [3]]))
    assert _found(inner.conflicts) == [{"path": ["x", 0], "base": [[1, 2]],
                                        "ours": [[0, 1, 2]], "theirs": [[1, 2, 9]]}]
    assert inner.plan == _plan(x=[[0, 1, 2], [3]])
    apart = merge(_plan(x=[[1, 2], [3]]), _plan(x=[[0, 1, 2], [3]]), _plan(x=[[1, 2], [3, 4]]))
    assert apart.clean and apart.plan == _plan(x=[[0, 1, 2], [3, 4]])


def test_objects_are_identified_by_match_only() -> None:
    def edits(key: str) -> tuple[Plan, Plan, Plan]:
        return (_plan(x=[{key: "a", "p": 1, "q": 1}]), _plan(x=[{key: "a", "p": 2, "q": 1}]),
                _plan(x=[{key: "a", "p": 1, "q": 2}]))

    matched = merge(*edits("match"))
    assert matched.clean and matched.plan == _plan(x=[{"match": "a", "p": 2, "q": 2}])
    named = merge(*edits("name"))  # "name" is no identity: the whole object is the item
    assert _texts(named.conflicts) == [
        'x[0]: base [{"name":"a","p":1,"q":1}], ours [{"name":"a","p":2,"q":1}], '
        'theirs [{"name":"a","p":1,"q":2}]']
    assert named.plan == _plan(x=[{"name": "a", "p": 2, "q": 1}])


@pytest.mark.parametrize("other", ["s", {"k": 1}, [1], None])
def test_one_item_without_a_match_makes_the_whole_array_compare_by_value(other: Any) -> None:
    def version(p: int, q: int) -> Plan:
        return _plan(x=[{"match": "a", "p": p, "q": q}, other])

    merged = merge(version(1, 1), version(2, 1), version(1, 2))
    assert _found(merged.conflicts) == [{"path": ["x", 0],
                                         "base": [{"match": "a", "p": 1, "q": 1}],
                                         "ours": [{"match": "a", "p": 2, "q": 1}],
                                         "theirs": [{"match": "a", "p": 1, "q": 2}]}]
    assert merged.plan == version(2, 1)


# 5. rebase: array edits that fit neither way --------------------------------------------------


def test_a_rebase_whose_array_edit_fits_neither_way_reports_a_conflict() -> None:
    record = diff(_plan(tags=["a", "b", "c"]), _plan(tags=["a", "x", "c"]))
    assert [c[:4] for c in record.changes] == [("remove", ("tags", 1), "b", None),
                                               ("add", ("tags", 1), None, "x")]
    plan = _plan(tags=["a", "y", "c"])  # neither [a, b, c] (to edit) nor [a, x, c] (done)
    rebased = rebase(plan, [record])
    assert rebased.conflicts == (Conflict(("tags", 1), "b", "y", MISSING),)
    assert _texts(rebased.conflicts) == ['tags[1]: base "b", ours "y", theirs (absent)']
    assert not rebased.clean
    assert rebased.plan is plan and rebased.record.is_noop
    keyed = diff(_plan(injections=[{"match": "a", "v": 1}, {"match": "b", "v": 1}]),
                 _plan(injections=[{"match": "a", "v": 1}, {"match": "c", "v": 1}]))
    moved = _plan(injections=[{"match": "a", "v": 1}, {"match": "d", "v": 1}])
    found = rebase(moved, [keyed])
    assert _found(found.conflicts) == [{"path": ["injections", 1],
                                        "base": {"match": "b", "v": 1},
                                        "ours": {"match": "d", "v": 1}}]
    assert found.plan is moved


def test_a_rebase_onto_a_string_where_the_record_edits_array_items_conflicts() -> None:
    record = diff(_plan(tags=["a", "b", "c"]), _plan(tags=["a", "b", "c", "d"]))
    plan = _plan(tags="abc")
    rebased = rebase(plan, [record])
    assert rebased.conflicts == (Conflict(("tags", 3), MISSING, MISSING, "d"),)
    assert _texts(rebased.conflicts) == ['tags[3]: base (absent), ours (absent), theirs "d"']
    assert rebased.plan is plan
    gone = _plan()
    assert rebase(gone, [record]).conflicts == (Conflict(("tags", 3), MISSING, MISSING, "d"),)


def test_a_conflict_in_a_later_record_leaves_the_plan_unchanged() -> None:
    first = diff(_plan(tags=["a"], y=1), _plan(tags=["a"], y=2))
    second = diff(_plan(tags=["a", "b", "c"], y=2), _plan(tags=["a", "x", "c"], y=2))
    plan = _plan(tags=["a", "y", "c"], y=1)
    rebased = rebase(plan, [first, second])
    assert rebased.conflicts == (Conflict(("tags", 1), "b", "y", MISSING),)
    assert rebased.plan is plan and rebased.record.is_noop
    fine = rebase(plan, [first])
    assert fine.clean and fine.plan == _plan(tags=["a", "y", "c"], y=2)
    assert list(fine.record.changes) == [Change("set", ("y",), 1, 2)]


def test_array_edits_that_fit_both_ways_lean_to_the_side_checking_more_items() -> None:
    """[a] -> [a, a] adds an item: on [a, a] it fits forward and backward; skipping (the
    inverse removes one) wins. [a, a] -> [a] removes one: applying it wins."""
    add = diff(_plan(tags=["a"]), _plan(tags=["a", "a"]))
    assert [c[:4] for c in add.changes] == [("add", ("tags", 1), None, "a")]
    twice = _plan(tags=["a", "a"], o=1)
    assert rebase(twice, [add]).plan is twice
    once = _plan(tags=["a"], o=1)
    assert rebase(once, [add]).plan == twice
    assert rebase(_plan(tags=["a"]), [add]).plan == _plan(tags=["a", "a"])  # its own base
    remove = diff(_plan(tags=["a", "a"]), _plan(tags=["a"]))
    assert [c[:4] for c in remove.changes] == [("remove", ("tags", 1), "a", None)]
    assert rebase(twice, [remove]).plan == once
    assert rebase(once, [remove]).plan is once
    assert rebase(_plan(tags=["a", "a"]), [remove]).plan == _plan(tags=["a"])


# 6. a merge conflict's text -------------------------------------------------------------------


@pytest.mark.parametrize(("field", "base", "ours", "theirs", "text"), [
    ("param_plan", {"m.x": {"tp": 1}}, {"m.x": {"tp": 2}}, {"m.x": {"tp": 3}},
     'param_plan["m.x"].tp: base 1, ours 2, theirs 3'),
    ("boundary_classes", {"m": "A"}, {}, {"m": "B"},
     'boundary_classes["m"]: base "A", ours (absent), theirs "B"'),
    ("boundary_classes", {}, {"m": "A"}, {"m": "B"},
     'boundary_classes["m"]: base (absent), ours "A", theirs "B"'),
    ("x", {"a-b": 1}, {"a-b": 2}, {"a-b": 3}, 'x["a-b"]: base 1, ours 2, theirs 3'),
    ("x", {"k": True}, {"k": False}, {"k": None}, "x.k: base true, ours false, theirs null"),
    ("x", {"k": 1}, {"k": True}, {"k": 1.0}, "x.k: base 1, ours true, theirs 1.0"),
    ("x", {"k": 1.0}, {"k": 2.5}, {"k": -0.0}, "x.k: base 1.0, ours 2.5, theirs -0.0"),
    ("x", {"k": 'é\n"q"'}, {"k": "ü"}, {"k": "\u2603"},
     'x.k: base "é\\n\\"q\\"", ours "ü", theirs "\u2603"'),
    ("x", {"k": {"z": [1, {"b": 2, "a": None}], "a": "s"}}, {"k": []}, {"k": {}},
     'x.k: base {"a":"s","z":[1,{"a":null,"b":2}]}, ours [], theirs {}'),
    ("x", {"k": "a" * 58}, {"k": "b" * 59}, {"k": "c" * 57},
     f'x.k: base "{"a" * 58}", ours "{"b" * 56}..., theirs "{"c" * 57}"'),
    ("tags", ["p", "q"], ["p", "o", "q"], ["p", "t", "q"],
     'tags[1]: base [], ours ["o"], theirs ["t"]'),
])
def test_the_text_of_a_merge_conflict(field: str, base: Any, ours: Any, theirs: Any,
                                      text: str) -> None:
    def version(value: Any) -> Plan:
        return Plan.from_json({"param_plan": {}, field: value})

    merged = merge(version(base), version(ours), version(theirs))
    assert _texts(merged.conflicts) == [text]


def test_a_long_value_is_cut_to_sixty_characters() -> None:
    """58 characters quoted are 60: shown whole; 59 are 61: cut to 57 and "..."."""
    merged = merge(_plan(x={"k": "a" * 58}), _plan(x={"k": "b" * 59}), _plan(x={"k": 1}))
    (conflict,) = merged.conflicts
    shown = str(conflict).split(", ")
    assert shown == [f'x.k: base "{"a" * 58}"', f'ours "{"b" * 56}...', "theirs 1"]
    assert len(shown[0]) - len("x.k: base ") == 60 and len(shown[1]) - len("ours ") == 60
