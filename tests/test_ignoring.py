"""``metaplan.versions.ignoring`` through its API: patterns, matching, the renumbering of
the kept array edits, and the provenance split."""

from __future__ import annotations

from typing import Any

import pytest

import metaplan
from metaplan.errors import InputError
from metaplan.records.change import Change, ChangeRecord
from metaplan.records.edit import apply_changes
from metaplan.versions.diffing import diff
from metaplan.versions.ignoring import (
    ignored,
    parse_ignore,
    parse_ignores,
    split_ignored,
    split_provenance,
)


def _plan(raw: dict[str, Any]) -> metaplan.Plan:
    return metaplan.Plan.from_json(raw)


def test_a_pattern_is_its_steps_and_an_empty_step_of_a_pointer_is_a_key() -> None:
    assert parse_ignore("param_plan/m.*/is_boundary") == ("param_plan", "m.*", "is_boundary")
    assert parse_ignore("/a//b") == ("a", "", "b")  # a JSON Pointer may name the key ""
    assert parse_ignores(["a", "/b/0"]) == (("a",), ("b", "0"))


@pytest.mark.parametrize(("text", "message"), [
    ("/", "--ignore: an empty pattern would ignore everything; name a field"),
    ("param_plan/m.[12", "--ignore param_plan/m.[12: "),
])
def test_a_pattern_that_matches_everything_or_nothing_is_refused(text: str,
                                                                   message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_ignore(text)
    assert str(caught.value).startswith(message)
    if text == "/":
        assert caught.value.source == "--ignore"


def test_a_pattern_matches_the_start_of_a_path_and_no_longer_one() -> None:
    rules = parse_ignores(["param_plan/m.*/is_boundary", "injections/1"])
    assert ignored(("param_plan", "m.3", "is_boundary", "x"), rules) is True
    assert ignored(("injections", 1, "ep_size"), rules) is True
    # a pattern longer than the path does not match it: the whole entry is more than its flag
    assert ignored(("param_plan", "m.3"), rules) is False
    assert ignored(("injections", 10), rules) is False
    assert ignored(("boundary_classes", "m.3"), ()) is False


def _arrays() -> tuple[metaplan.Plan, metaplan.Plan]:
    base = _plan({"param_plan": {"m": {"out_names": ["a", "b", "c", "d"]}},
                  "not_covered": ["p", "q", "r"],
                  "frozen_sharded_params": ["w.1", "w.2", "w.3"]})
    after = _plan({"param_plan": {"m": {"out_names": ["b", "d", "e"]}},
                   "not_covered": ["q", "r", "s"],
                   "frozen_sharded_params": ["w.1", "w.9", "w.3"]})
    return base, after


def test_kept_edits_are_renumbered_in_their_own_array_only() -> None:
    base, after = _arrays()
    record = diff(base, after)
    kept, dropped = split_ignored(base, record, parse_ignores(["param_plan/m/out_names/0"]))
    assert [change.path for change in dropped] == [("param_plan", "m", "out_names", 0)]
    out_names = [change for change in kept.changes if change.path[:3] == (
        "param_plan", "m", "out_names")]
    # a (index 0, ignored) stays, so c and the added e sit one further on
    assert [(change.op, change.path[3]) for change in out_names] == [("remove", 2), ("add", 3)]
    others = [change.path for change in kept.changes if change.path[0] != "param_plan"]
    assert others == [path for path in (change.path for change in record.changes)
                      if path[0] != "param_plan"]  # the other arrays keep their numbers
    result = apply_changes(base, kept.changes)
    assert result.content_hash == kept.result
    assert result["param_plan"]["m"]["out_names"] == ["a", "b", "d", "e"]
    assert result["not_covered"] == ["q", "r", "s"]


def _record(base: metaplan.Plan, *changes: Change) -> ChangeRecord:
    return ChangeRecord("hand", base, apply_changes(base, changes), changes)


def test_an_ignored_edit_of_one_array_leaves_the_next_arrays_numbers() -> None:
    base, after = _arrays()
    record = diff(base, after)
    kept, dropped = split_ignored(base, record, parse_ignores(["not_covered/0"]))
    assert [change.path for change in dropped] == [("not_covered", 0)]
    assert [change.path for change in kept.changes] == [
        ("frozen_sharded_params", 1), ("frozen_sharded_params", 1), ("not_covered", 3),
        ("param_plan", "m", "out_names", 0), ("param_plan", "m", "out_names", 1),
        ("param_plan", "m", "out_names", 2)]


def test_an_ignored_value_set_in_an_array_moves_nothing() -> None:
    base = _plan({"param_plan": {}, "not_covered": ["p", "q", "r"]})
    record = _record(base, Change("set", ("not_covered", 0), "p", "P", ""),
                     Change("remove", ("not_covered", 1), "q", None, ""))
    kept, dropped = split_ignored(base, record, parse_ignores(["not_covered/0"]))
    assert [(change.op, change.path) for change in dropped] == [("set", ("not_covered", 0))]
    assert kept.changes == record.changes[1:]
    assert apply_changes(base, kept.changes)["not_covered"] == ["p", "r"]


def test_an_ignored_removal_deep_in_a_plan_renumbers_its_array() -> None:
    base = _plan({"param_plan": {"m": {"out_names": ["a", "b", "c"]}}})
    names = ("param_plan", "m", "out_names")
    record = _record(base, Change("remove", (*names, 0), "a", None, ""),
                     Change("set", (*names, 1), "c", "z", ""),
                     Change("add", (*names, 2), None, "y", ""))
    kept, _ = split_ignored(base, record, parse_ignores(["param_plan/m/out_names/0"]))
    assert [(change.op, change.path) for change in kept.changes] == [
        ("set", (*names, 2)), ("add", (*names, 3))]
    assert apply_changes(base, kept.changes)["param_plan"]["m"]["out_names"] == [
        "a", "b", "z", "y"]
    added = _record(base, Change("add", (*names, 0), None, "new", ""),
                    Change("remove", (*names, 3), "c", None, ""))
    kept, _ = split_ignored(base, added, parse_ignores(["param_plan/m/out_names/0"]))
    assert [change.path for change in kept.changes] == [(*names, 2)]  # the add is not there
    assert apply_changes(base, kept.changes)["param_plan"]["m"]["out_names"] == ["a", "b"]


def test_a_record_nothing_is_ignored_of_is_itself() -> None:
    base, after = _arrays()
    record = diff(base, after)
    for rules in ((), parse_ignores(["injections"])):
        kept, dropped = split_ignored(base, record, rules)
        assert kept is record and dropped == ()
    assert split_provenance(base, after, record) == (record, ())
    assert split_provenance(base, after, record)[0] is record


def test_the_provenance_split_puts_back_nested_and_absent_fields() -> None:
    base = _plan({"param_plan": {"m": {"x": 1}}, "source": {"transformers": "4.1", "a": 1},
                  "signature": "s1"})
    after = _plan({"param_plan": {"m": {"x": 2}}, "source": {"transformers": "4.2", "a": 1},
                   "codegen_version": "2"})
    record = diff(base, after)
    kept, dropped = split_provenance(base, after, record)
    assert sorted(change.path for change in dropped) == [
        ("codegen_version",), ("signature",), ("source", "transformers")]
    assert [change.path for change in kept.changes] == [("param_plan", "m", "x")]
    assert apply_changes(base, kept.changes).to_json() == {
        "param_plan": {"m": {"x": 2}}, "source": {"transformers": "4.1", "a": 1},
        "signature": "s1"}
    assert apply_changes(base, kept.changes).content_hash == kept.result


def test_a_change_of_the_whole_plan_is_no_provenance() -> None:
    base, after = _plan({"param_plan": {}}), _plan({"param_plan": {"m": {}}})
    whole = Change("set", (), base.to_json(), after.to_json(), "replaced")
    record = ChangeRecord("hand", base, after, (whole,))
    assert split_provenance(base, after, record) == (record, ())
