"""One path reader: ``Plan.at``, ``Edit.get`` and merge's lookup agree; strings are paths too."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metaplan
from metaplan.frozen import MISSING, thaw
from metaplan.paths import pointer
from metaplan.records.edit import Edit, remove_in, set_in
from metaplan.testing import plans

Path = tuple[Any, ...]


def _paths(value: Any, prefix: Path = ()) -> list[Path]:
    """Every path to a value inside ``value`` (a thawed plan), prefixes included."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*prefix, i))
    return found


@st.composite
def plan_paths(draw: st.DrawFn) -> tuple[metaplan.Plan, Path]:
    """A plan and a path into it: to a value, its item numbers as digit strings, a key it
    lacks, through a scalar, an item number into an object, or past an array's end."""
    plan = draw(plans())
    path = draw(st.sampled_from(_paths(plan.to_json())))
    how = draw(st.sampled_from(("as is", "digits", "missing", "deeper", "item", "past end")))
    if how == "digits":
        path = tuple(str(key) if type(key) is int else key for key in path)
    elif how == "missing":
        path = (*path[:-1], "no such key")
    elif how == "deeper":  # through whatever is there: a scalar holds nothing
        path = (*path, draw(st.sampled_from(("x", 0, "0"))))
    elif how == "item":
        path = (*path, 0)
    elif how == "past end":
        path = (*path, 10**6)
    return plan, path


def _same(a: Any, b: Any) -> bool:
    return (a is MISSING) == (b is MISSING) and (a is MISSING or thaw(a) == thaw(b))


@settings(max_examples=150)
@given(plan_paths())
def test_every_reader_reads_a_path_alike(case: tuple[metaplan.Plan, Path]) -> None:
    plan, path = case
    found = plan.at(path)
    assert _same(Edit(plan).get(path, MISSING), found), path


@settings(max_examples=100)
@given(plan_paths())
def test_a_string_path_is_its_tuple(case: tuple[metaplan.Plan, Path]) -> None:
    plan, path = case
    found = plan.at(path)
    text = pointer(tuple(int(k) if type(k) is int else k for k in path))
    assert _same(plan.at(text), found), text
    assert _same(Edit(plan).get(text, MISSING), found), text
    if all(type(k) is int or (k and "/" not in k) for k in path):
        command = "/".join(str(key) for key in path)  # the command's field/FQN/key
        assert _same(plan.at(command), found), command


def test_digit_strings_name_items_as_a_json_pointer_writes_them() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {}, "injections": [{"match": "a"}] * 11,
                                    "o": {"0": "zero"}})
    assert plan.at(("injections", "0", "match")) == "a"
    assert Edit(plan).get(("injections", "0", "match")) == "a"
    assert plan.at(("injections", "10")) == plan.at(("injections", 10))
    for odd in ("01", "-1", "٣", " 1", "1.0"):  # not decimal item numbers
        assert plan.at(("injections", odd)) is MISSING, odd
        assert Edit(plan).get(("injections", odd), MISSING) is MISSING, odd
    assert plan.at("o/0") == "zero" and plan.at(("o", 0)) is MISSING  # an object's keys
    assert plan.at("/injections/0/match") == "a"


def test_keys_that_are_not_field_names_are_refused_by_set_and_remove() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m.x": {"is_boundary": True}}})
    path = ("param_plan", "m.x", "is_boundary")
    with pytest.raises(TypeError, match=r"^Plan\.set: expected a top-level field name \(a str"
                                        r"\), found \('param_plan', 'm\.x', 'is_boundary'\); "
                                        ".*metaplan.set_in"):
        plan.set(path, False)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^Plan\.remove: .*metaplan\.remove_in\(plan, path\)"):
        plan.remove(path)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^a path to change is a tuple of keys, found the "
                                        r"string 'param_plan/m\.x'; write \('param_plan', "
                                        r"'m\.x'\)"):
        Edit(plan).set("param_plan/m.x", 1)
    assert set_in(plan, path, False).at(path) is False


@st.composite
def _held(draw: st.DrawFn) -> tuple[metaplan.Plan, Path]:
    """A plan and the path of a value it holds under an object key or array item."""
    plan = draw(plans())
    paths = [p for p in _paths(plan.to_json()) if len(p) > 1]
    return plan, draw(st.sampled_from(paths)) if paths else ("extra",)


@settings(max_examples=100)
@given(_held(), st.sampled_from(("tuple", "digits", "text")))
def test_set_in_and_remove_in_round_trip_through_at(case: tuple[metaplan.Plan, Path],
                                                    form: str) -> None:
    plan, path = case
    before = plan.to_json()
    given_path: Any = path
    if form == "digits":
        given_path = tuple(str(k) if type(k) is int else k for k in path)
    elif form == "text":
        given_path = pointer(path)
    new = set_in(plan, given_path, "a new value")
    assert new.at(path) == "a new value" and new.at(given_path) == "a new value"
    assert set_in(plan, given_path, plan.at(path, None)) is plan  # no change: the plan itself
    gone = remove_in(plan, given_path)
    if type(path[-1]) is str:
        assert gone.at(path) is MISSING
        assert remove_in(gone, given_path) is gone
    else:  # the items after it move up one
        assert len(gone.at(path[:-1])) == len(plan.at(path[:-1])) - 1
    assert plan.to_json() == before  # the input is unchanged


# the written forms: metaplan.paths is their one home ----------------------------------


def test_the_path_functions_have_one_home() -> None:
    import metaplan.errors
    import metaplan.paths
    import metaplan.records.patch

    assert metaplan.errors.format_path is metaplan.paths.format_path
    assert metaplan.errors.key_path is metaplan.paths.key_path
    assert vars(metaplan.records.patch)["pointer"] is metaplan.paths.pointer  # it writes with it
    assert "pointer" not in metaplan.records.patch.__all__


def test_format_path_quotes_fqns_and_keys_that_are_not_identifiers() -> None:
    from metaplan.paths import format_path, key_path

    assert format_path(()) == "<root>"
    assert (format_path(("param_plan", "lm_head", "is_boundary"))
            == 'param_plan["lm_head"].is_boundary')
    assert format_path(("boundary_classes", "x")) == 'boundary_classes["x"]'
    assert format_path(("other", "x")) == "other.x"  # only the FQN maps quote their keys
    assert format_path(("injections", 5, "a b", "")) == 'injections[5]["a b"][""]'
    assert format_path((3,)) == "[3]"
    assert key_path(("a", "b"), quoted=(0, 1)) == '["a"]["b"]'
    assert key_path(("é", "1a", "_")) == 'é["1a"]._'
    assert key_path(()) == ""


def test_pointers_of_the_root_and_of_empty_keys_differ() -> None:
    from metaplan.paths import pointer, split_path

    assert pointer(()) == ""  # RFC 6901: the whole document
    assert pointer(("",)) == "/" and split_path("/") == ("",)
    assert pointer((0, 12)) == "/0/12"


@given(st.lists(st.one_of(st.text(alphabet="a~/01", max_size=4), st.integers(0, 99)),
                min_size=1, max_size=5))
def test_a_pointer_splits_back_into_its_keys(path: list[str | int]) -> None:
    from metaplan.paths import pointer, split_path

    assert split_path(pointer(path)) == tuple(str(key) for key in path)


def test_split_path_refuses_empty_steps_and_parse_path_names_the_option() -> None:
    from metaplan.errors import InputError, parse_path
    from metaplan.paths import split_path

    assert split_path("a/b.c/0") == ("a", "b.c", "0")
    assert split_path("/a//~0~1") == ("a", "", "~/")  # a pointer may hold empty keys
    for text, reason in (("", "an empty path"), ("a//b", "an empty step"), ("a/", "an empty step")):
        with pytest.raises(ValueError, match=f"^{reason}$"):
            split_path(text)
    with pytest.raises(InputError, match=r"^--at a/: an empty step; write field/FQN/key") as info:
        parse_path("a/", "--at")
    assert info.value.source == "--at" and info.value.__cause__ is None
    with pytest.raises(InputError, match=r"^--path: an empty path; write field/FQN/key, e\.g\. "
                                         r"param_plan/model\.layers\.3\.mlp/is_boundary \(or a "
                                         r"JSON Pointer, /param_plan/model\.layers\.3\.mlp/"
                                         r"is_boundary, for empty keys\)$"):
        parse_path("")
