"""Three-way merge and rebase, pinned where a mutation run of ``versions/merging.py`` found
gaps: the notebook view, the records' pass names, a same change before another, a
duplicate whose first copy is not the array's first item, and a rebase's array runs and
record ranges."""

from __future__ import annotations

from typing import Any

import pytest

import metaplan
from metaplan.core.plan import Plan
from metaplan.frozen import thaw
from metaplan.records.change import Change, ChangeRecord
from metaplan.versions.diffing import diff
from metaplan.versions.merging import merge, rebase


def _plan(**fields: Any) -> Plan:
    return Plan.from_json({"param_plan": {}, **fields})


def _steps(record: ChangeRecord) -> list[tuple[str, tuple[Any, ...], Any, Any]]:
    return [(c.op, c.path, thaw(c.old), thaw(c.new)) for c in record.changes]


def test_a_merge_result_shows_in_a_notebook() -> None:
    merged = merge(_plan(x=1), _plan(x=2), _plan(x=3))
    bundle = merged._repr_mimebundle_()
    assert list(bundle) == ["text/plain", "text/html", "application/json"]
    assert bundle["application/json"] == {
        "conflicts": [{"path": ["x"], "base": 1, "ours": 2, "theirs": 3}],
        "clean": {"pass": "merge", "changes": 0, "groups": []}}
    assert bundle["text/plain"].splitlines()[:3] == [
        "Merge: 1 conflict, 0 clean changes from theirs", "1 conflict",
        "  x: base 1, ours 2, theirs 3"]
    assert list(merged._repr_mimebundle_(include=["text/plain"])) == ["text/plain"]


def test_the_records_are_named_merge_and_rebase_by_default() -> None:
    merged = merge(_plan(x=1, y=1), _plan(x=1, y=1), _plan(x=1, y=2))
    assert merged.record.pass_name == "merge"
    assert merge(_plan(x=1), _plan(x=1), _plan(x=2), name="m2").record.pass_name == "m2"
    rebased = rebase(_plan(x=1), [diff(_plan(x=1), _plan(x=2))])
    assert rebased.record.pass_name == "rebase"
    assert rebased.plan == _plan(x=2)


def test_a_change_both_sides_made_does_not_stop_the_changes_after_it() -> None:
    merged = merge(_plan(x=1, y=1), _plan(x=2, y=1), _plan(x=2, y=2))
    assert merged.clean and merged.plan == _plan(x=2, y=2)
    assert _steps(merged.record) == [("set", ("y",), 1, 2)]


def test_a_duplicate_whose_first_copy_is_not_the_first_item_settles_to_a_side() -> None:
    a, b, c, n = {"match": "a"}, {"match": "b"}, {"match": "c"}, {"match": "n", "v": 1}
    base, ours, theirs = _plan(x=[a, b, c]), _plan(x=[a, b, c, n]), _plan(x=[a, n, b, c])
    merged = merge(base, ours, theirs)
    assert [c.to_json() for c in merged.conflicts] == [
        {"path": ["x", 1], "base": [], "ours": [n], "theirs": [n]}]
    assert merged.plan == _plan(x=[a, n, b, c, n])
    assert merge(base, ours, theirs, resolve="ours").plan == ours
    assert merge(base, ours, theirs, resolve="theirs").plan == theirs
    assert merge(base, ours, theirs, resolve="base").plan == base


def test_a_rebase_on_a_middle_records_result_applies_only_the_records_after_it() -> None:
    first = diff(_plan(x=1), _plan(x=2))
    second = diff(_plan(x=2), _plan(x=1))
    third = diff(_plan(x=1), _plan(x=2))
    plan = _plan(x=1)  # the first's base, and the second's result
    rebased = rebase(plan, [first, second, third])
    assert rebased.clean and rebased.plan == _plan(x=2)
    assert _steps(rebased.record) == [("set", ("x",), 1, 2)]
    assert rebase(plan, iter([first, second, third])).plan == _plan(x=2)  # read once
    assert rebase(_plan(x=2), iter([first, second])).plan == _plan(x=1)


def test_a_rebase_skips_an_array_edit_already_made_though_its_removal_does_not_fit() -> None:
    record = diff(_plan(tags=["a", "b", "c"]), _plan(tags=["x", "b", "c"]))
    assert _steps(record) == [("remove", ("tags", 0), "a", None),
                              ("add", ("tags", 0), None, "x")]
    done = _plan(tags=["x", "b", "c"], o=1)
    rebased = rebase(done, [record])
    assert rebased.clean and rebased.plan is done and rebased.record.is_noop
    todo = _plan(tags=["a", "b", "c"], o=1)
    applied = rebase(todo, [record])
    assert applied.clean and applied.plan == _plan(tags=["x", "b", "c"], o=1)
    assert _steps(applied.record) == _steps(record)


@pytest.mark.parametrize(("before", "after", "now", "other", "want", "steps"), [
    ("", "aa", "a", False, "aaa", 2),  # the record's base is [], so [a] gets both adds
    ("", "a", "a", True, "a", 0),  # the add is there already
    ("aaa", "a", "aa", False, "a", 1),  # the removals fit: one is still to make
    ("aab", "ba", "aaa", False, "aa", 3),
    ("", "ab", "b", True, "abb", 2),  # the adds fit; their inverse does not
    ("aa", "ab", "aab", True, "abb", 2),
])
def test_a_rebase_judges_the_item_edits_of_one_array_together(
        before: str, after: str, now: str, other: bool, want: str, steps: int) -> None:
    record = diff(_plan(tags=list(before)), _plan(tags=list(after)))
    plan = _plan(tags=list(now), o=1) if other else _plan(tags=list(now))
    rebased = rebase(plan, [record])
    assert rebased.clean
    assert rebased.plan == (_plan(tags=list(want), o=1) if other else _plan(tags=list(want)))
    assert len(rebased.record.changes) == steps
    assert metaplan.replay(plan, [rebased.record]) == rebased.plan


def test_a_rebase_skips_a_removal_already_made_and_refuses_a_set_of_a_missing_key() -> None:
    gone = rebase(_plan(z=1), [diff(_plan(y=1, z=1), _plan(z=1))])
    assert gone.clean and gone.plan == _plan(z=1) and gone.record.is_noop
    refused = rebase(_plan(z=1), [diff(_plan(y=1), _plan(y=None))])
    assert [c.to_json() for c in refused.conflicts] == [{"path": ["y"], "base": 1,
                                                         "theirs": None}]


def test_an_array_with_an_item_without_a_match_is_one_region_by_value() -> None:
    """Theirs adds items without a match: the items compare by value, so ours' insertion
    before "a" and theirs' after it clash as one region (by identity they would not)."""
    a, a1, b = {"match": "a"}, {"match": "a", "v": 1}, {"match": "b"}
    base, ours, theirs = _plan(x=[a]), _plan(x=[b, a1]), _plan(x=[a1, b, "b", 1])
    merged = merge(base, ours, theirs)
    assert [c.to_json() for c in merged.conflicts] == [
        {"path": ["x", 0], "base": [a], "ours": [b, a1], "theirs": [a1, b, "b", 1]}]
    assert merged.plan == ours
    assert merge(base, ours, theirs, resolve="theirs").plan == theirs
    assert merge(base, ours, theirs, resolve="base").plan == base


def test_equal_values_that_are_different_objects_are_the_same_change() -> None:
    base = _plan(x=[{"match": "a", "p": 1.5, "q": 1}])
    ours = _plan(x=[{"match": "a", "p": 2.5, "q": 1}, {"match": "c"}])
    theirs = _plan(x=[{"match": "a", "p": 2.5, "q": 2}])
    assert ours.at(("x", 0, "p")) is not theirs.at(("x", 0, "p"))
    merged = merge(base, ours, theirs)
    assert merged.clean
    assert merged.plan == _plan(x=[{"match": "a", "p": 2.5, "q": 2}, {"match": "c"}])


def test_a_rebase_on_a_records_result_does_not_judge_that_record_again() -> None:
    """Judged again on [a, b], the record's removal of an "a" would conflict: the array
    still holds an "a". On the record's result it is applied, whatever the array holds."""
    record = diff(_plan(tags=["a", "a"]), _plan(tags=["a", "b"]))
    plan = _plan(tags=["a", "b"])
    rebased = rebase(plan, [record])
    assert rebased.clean and rebased.plan is plan and rebased.record.is_noop
    moved = _plan(tags=["a", "b"], o=1)
    assert [c.to_json() for c in rebase(moved, [record]).conflicts] == [
        {"path": ["tags", 1], "base": "a", "ours": "b"}]


def test_array_edits_that_fit_both_ways_and_add_as_many_as_they_remove_are_applied() -> None:
    record = diff(_plan(tags=["b", "b", "a"]), _plan(tags=["a", "b", "b"]))
    rebased = rebase(_plan(tags=["a", "b", "a"]), [record])
    assert rebased.clean and rebased.plan == _plan(tags=["a", "a", "b"])


def test_the_item_edits_of_one_array_are_one_run_after_another_arrays_edits() -> None:
    record = diff(_plan(more=["a"], tags=[]), _plan(more=[], tags=["b", "a", "a"]))
    rebased = rebase(_plan(more=[], tags=["a"]), [record])
    assert rebased.clean and rebased.plan == _plan(more=[], tags=["b", "a", "a", "a"])


def test_an_array_run_already_made_does_not_stop_the_records_later_changes() -> None:
    record = diff(_plan(tags=["a", "b", "c"], y=1), _plan(tags=["x", "b", "c"], y=2))
    rebased = rebase(_plan(tags=["x", "b", "c"], y=1, o=1), [record])
    assert rebased.clean and rebased.plan == _plan(tags=["x", "b", "c"], y=2, o=1)
    assert _steps(rebased.record) == [("set", ("y",), 1, 2)]


def test_items_added_to_an_array_are_applied_as_they_fit_beside_other_arrays() -> None:
    record = diff(_plan(tags=[], more=[], y=1), _plan(tags=[], more=["a", "b"], y=2))
    assert _steps(record) == [("add", ("more", 0), None, "a"), ("add", ("more", 1), None, "b"),
                              ("set", ("y",), 1, 2)]
    rebased = rebase(_plan(tags=["a", "a"], more=["b"], y=1, o=1), [record])
    assert rebased.clean
    assert rebased.plan == _plan(tags=["a", "a"], more=["a", "b", "b"], y=2, o=1)


def test_an_item_a_run_removes_and_adds_back_is_no_removal_left_to_make() -> None:
    record = diff(_plan(tags=["b", "a"], more=["a", "a", "b"], y=1),
                  _plan(tags=["a", "b"], more=["b", "a", "a"], y=2))
    rebased = rebase(_plan(tags=["a", "b", "a"], more=["b", "b"], y=1), [record])
    assert rebased.clean
    assert rebased.plan == _plan(tags=["a", "b", "a"], more=["b", "b"], y=2)
    assert _steps(rebased.record) == [("set", ("y",), 1, 2)]


def test_a_removed_null_item_still_in_the_array_is_a_removal_not_made() -> None:
    """A removal's new is None too: only the run's additions put an item back."""
    record = diff(_plan(tags=[None, "a"]), _plan(tags=["a"]))
    assert _steps(record) == [("remove", ("tags", 0), None, None)]
    rebased = rebase(_plan(tags=["a", None], o=1), [record])
    assert [c.to_json() for c in rebased.conflicts] == [
        {"path": ["tags", 0], "base": None, "ours": "a"}]


def test_a_rebase_on_the_result_of_a_record_editing_two_arrays_is_a_no_op() -> None:
    before, after = _plan(tags=["a", "a"], more=[], y=1), _plan(tags=["a", "b"], more=["a"], y=1)
    record = diff(before, after)
    rebased = rebase(after, [record])
    assert rebased.clean and rebased.plan is after and rebased.record.is_noop
    assert rebase(before, [record]).plan == after


def test_sets_of_one_array_are_judged_one_by_one_where_they_add_or_remove_no_item() -> None:
    """A record that sets a place twice, on a plan holding the last value: the first set's
    old value does not hold and its new is not there, so it is a conflict."""
    for path in (("tags", 0, "k"), ("tags", 0)):
        values: tuple[Any, Any, Any] = ({"k": 1}, {"k": 2}, {"k": 3}) if len(path) == 2 \
            else (1, 2, 3)
        one, two, three = values
        item = (lambda v: v) if len(path) == 2 else (lambda v: {"k": v})
        record = ChangeRecord("hand", _plan(tags=[item(one)]), _plan(tags=[item(three)]),
                              (Change("set", path, one, two), Change("set", path, two, three)))
        rebased = rebase(_plan(tags=[item(three)], o=1), [record])
        assert [c.to_json() for c in rebased.conflicts] == [
            {"path": list(path), "base": one, "ours": three, "theirs": two}], path


def test_equal_copies_added_at_the_two_ends_settle_to_the_side_chosen() -> None:
    """Both sides add one item, equal in both, at different places: told apart by place."""
    a, b, n = {"match": "a"}, {"match": "b"}, {"match": "n"}
    base, front, back = _plan(x=[a, b]), _plan(x=[n, a, b]), _plan(x=[a, b, n])
    for ours, theirs in ((front, back), (back, front)):
        merged = merge(base, ours, theirs)
        assert [c.to_json() for c in merged.conflicts] == [
            {"path": ["x", 0], "base": [], "ours": [n], "theirs": [n]}]
        assert merge(base, ours, theirs, resolve="ours").plan == ours
        assert merge(base, ours, theirs, resolve="theirs").plan == theirs
        assert merge(base, ours, theirs, resolve="base").plan == base
