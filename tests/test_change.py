"""Changes and change records: plain data that inverts, serializes and says what it touched."""

from __future__ import annotations

import pytest

import metaplan
from metaplan.errors import parse_path
from metaplan.records.change import Change, ChangeRecord


@pytest.mark.parametrize(("change", "inverse"), [
    (Change("set", ("a", "b"), 1, 2, "w"), Change("set", ("a", "b"), 2, 1, "w")),
    (Change("add", ("a", 0), None, 3, "w"), Change("remove", ("a", 0), 3, None, "w")),
    (Change("remove", ("a",), {"x": 1}, None), Change("add", ("a",), None, {"x": 1})),
])
def test_the_inverse_undoes_and_inverts_back(change: Change, inverse: Change) -> None:
    assert change.inverse() == inverse
    assert change.inverse().inverse() == change


def test_the_json_form_has_old_unless_added_and_new_unless_removed() -> None:
    frozen = metaplan.freeze({"x": [1, {"y": None}]})
    assert Change("set", ("a", 0), frozen, True, "w").to_json() == {
        "op": "set", "path": ["a", 0], "old": {"x": [1, {"y": None}]}, "new": True, "why": "w"}
    assert Change("add", ("a",), None, frozen).to_json() == {
        "op": "add", "path": ["a"], "new": {"x": [1, {"y": None}]}, "why": ""}
    assert Change("remove", ("a",), frozen, None).to_json() == {
        "op": "remove", "path": ["a"], "old": {"x": [1, {"y": None}]}, "why": ""}
    thawed = Change("set", ("a",), frozen, frozen).to_json()
    assert type(thawed["old"]) is dict and type(thawed["new"]["x"]) is list


def test_hashes_are_read_from_the_plans_when_first_asked() -> None:
    a = metaplan.Plan.from_json({"x": 1})
    b = metaplan.Plan.from_json({"x": 2})
    record = ChangeRecord("p", a, b, [Change("set", ("x",), 1, 2)])
    assert type(record.changes) is tuple
    assert record.base == a.content_hash and record.result == b.content_hash
    assert record == ChangeRecord("p", a.content_hash, b.content_hash,
                                  (Change("set", ("x",), 1, 2),))
    renamed = record.renamed("q")
    assert (renamed.pass_name, renamed.base, renamed.result, renamed.changes) == (
        "q", record.base, record.result, record.changes)
    assert repr(record) == f"ChangeRecord('p', 1 changes, {a.content_hash[:15]}… -> " \
                           f"{b.content_hash[:15]}…)"


def test_equality_needs_the_same_name_hashes_and_changes() -> None:
    change = Change("set", ("x",), 1, 2)
    record = ChangeRecord("p", "sha256:a", "sha256:b", (change,))
    assert record == ChangeRecord("p", "sha256:a", "sha256:b", (change,))
    assert hash(record) == hash(ChangeRecord("p", "sha256:a", "sha256:b", (change,)))
    for other in (ChangeRecord("q", "sha256:a", "sha256:b", (change,)),
                  ChangeRecord("p", "sha256:c", "sha256:b", (change,)),
                  ChangeRecord("p", "sha256:a", "sha256:c", (change,)),
                  ChangeRecord("p", "sha256:a", "sha256:b", ()),
                  ChangeRecord("p", "sha256:a", "sha256:b", (change._replace(why="w"),))):
        assert record != other
    assert record != "p" and record.__eq__("p") is NotImplemented


def test_a_record_is_true_even_when_empty_and_knows_its_size() -> None:
    empty = ChangeRecord("p", "sha256:a", "sha256:a")
    assert bool(empty) and len(empty) == 0 and empty.is_noop
    full = ChangeRecord("p", "sha256:a", "sha256:b", [Change("add", ("x",), None, 1)] * 3)
    assert len(full) == 3 and not full.is_noop


def test_touching_is_at_below_or_above_a_path() -> None:
    changes = (Change("set", ("param_plan", "m", "is_boundary"), True, False),
               Change("set", ("param_plan", "m.x", "is_boundary"), True, False),
               Change("set", ("param_plan",), {}, {}),
               Change("remove", ("boundary_classes", "m"), "C", None),
               Change("add", ("param_plan", "m", "params", "w"), None, {}),
               Change("set", ("injections", 0), {}, {}))
    record = ChangeRecord("p", "sha256:a", "sha256:b", changes)
    assert record.touching(("param_plan", "m")) == (changes[0], changes[2], changes[4])
    assert record.touching(["param_plan", "m", "params", "w", "tp"]) == (changes[2],
                                                                          changes[4])
    assert record.touching(("param_plan",)) == changes[:3] + changes[4:5]
    assert record.touching(("injections", 0, "match")) == (changes[5],)
    assert record.touching(("injections", 1)) == ()
    assert record.touching(()) == changes


@pytest.mark.parametrize(("text", "path"), [
    ("param_plan/model.layers.3.mlp/is_boundary",
     ("param_plan", "model.layers.3.mlp", "is_boundary")),
    ("injections", ("injections",)),
    ("/injections/0/a~1b", ("injections", "0", "a/b")),
    ("/a~01/~10/~0~1", ("a~1", "/0", "~/")),  # ~1 first, then ~0, as RFC 6901 says
    ("/", ("",)), ("/a//b", ("a", "", "b")),
])
def test_paths_from_the_command_line(text: str, path: tuple[str, ...]) -> None:
    assert parse_path(text) == path


@pytest.mark.parametrize("text", ["a//b", "a/", "", "param_plan/"])
def test_a_path_with_an_empty_step_says_how_to_write_one(text: str) -> None:
    with pytest.raises(metaplan.InputError) as info:
        parse_path(text, "--at")
    what = f"--at {text}: an empty step" if text else "--at: an empty path"
    assert str(info.value) == (
        f"{what}; write field/FQN/key, e.g. "
        "param_plan/model.layers.3.mlp/is_boundary (or a JSON Pointer, "
        "/param_plan/model.layers.3.mlp/is_boundary, for empty keys)")
    with pytest.raises(metaplan.InputError, match=f"^--path {text}: an empty step" if text
                       else "^--path: an empty path"):
        parse_path(text)


def test_a_record_holds_nothing_but_its_fields() -> None:
    record = ChangeRecord("p", "sha256:a", "sha256:b")
    with pytest.raises(AttributeError):
        record.note = "x"  # type: ignore[attr-defined]


def test_a_record_shows_itself_in_a_notebook_as_its_folded_text() -> None:
    record = ChangeRecord("p", "sha256:a", "sha256:b",
                          (Change("set", ("param_plan", "m", "is_boundary"), True, False, ""),))
    bundle = record._repr_mimebundle_()
    assert bundle["text/plain"] == metaplan.format_folded(record).rstrip("\n")
    assert "is_boundary" in bundle["text/plain"] and "<" in bundle["text/html"]
