"""Records as RFC 6902 JSON Patch: a ``test`` before each replace and remove."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import demo_record


def test_json_patch_form(demo_plan: metaplan.Plan) -> None:
    patch = metaplan.to_json_patch(demo_record(demo_plan))
    assert patch[:2] == [
        {"op": "test", "path": "/param_plan/a/is_boundary", "value": True},
        {"op": "replace", "path": "/param_plan/a/is_boundary", "value": False}]
    assert {"op": "remove", "path": "/boundary_classes/b"} in patch
    jsonpatch = pytest.importorskip("jsonpatch")
    patched = jsonpatch.apply_patch(demo_plan.to_json(), patch)
    assert patched == metaplan.apply(demo_plan, demo_record(demo_plan)).to_json()


def test_pointers_escape_tilde_then_slash() -> None:
    from metaplan.paths import pointer

    assert pointer(("param_plan", "a/b~c", 0, "~1")) == "/param_plan/a~1b~0c/0/~01"
    assert pointer(("",)) == "/" and pointer(("a", "")) == "/a/"
    assert pointer(("~", "/", "~/")) == "/~0/~1/~0~1"



@given(st.lists(st.one_of(st.text(alphabet="a~/01", max_size=4), st.integers(0, 99)),
                min_size=1, max_size=5))
def test_pointers_parse_back_to_their_keys(path: list[str | int]) -> None:
    from jsonpointer import JsonPointer

    from metaplan.paths import pointer

    assert JsonPointer(pointer(path)).parts == [str(key) for key in path]


def test_a_record_whose_first_change_is_at_an_array_item_is_pointed_at() -> None:
    record = metaplan.ChangeRecord("p", "sha256:a", "sha256:b", (
        metaplan.Change("set", ("injections", 5, "ep_size"), 8, 16, ""),
        metaplan.Change("set", ("param_plan", "a/b", "x"), 1, 2, ""),
        metaplan.Change("remove", ("param_plan", "m", "tp"), 1, None, "")))
    assert [op["path"] for op in metaplan.to_json_patch(record)] == [
        "/injections/5/ep_size", "/injections/5/ep_size", "/param_plan/a~1b/x",
        "/param_plan/a~1b/x", "/param_plan/m/tp", "/param_plan/m/tp"]


def test_each_op_is_its_patch_operation_with_a_test_first() -> None:
    record = metaplan.ChangeRecord("p", "sha256:a", "sha256:b", (
        metaplan.Change("add", ("m", "a/b"), None, metaplan.freeze({"x": [1]})),
        metaplan.Change("remove", ("m", "c~d"), metaplan.freeze([True]), None),
        metaplan.Change("set", ("l", 0), 1, metaplan.freeze({"y": None}))))
    patch = metaplan.to_json_patch(record)
    assert patch == [
        {"op": "add", "path": "/m/a~1b", "value": {"x": [1]}},
        {"op": "test", "path": "/m/c~0d", "value": [True]},
        {"op": "remove", "path": "/m/c~0d"},
        {"op": "test", "path": "/l/0", "value": 1},
        {"op": "replace", "path": "/l/0", "value": {"y": None}}]
    assert type(patch[0]["value"]) is dict and type(patch[1]["value"]) is list
    jsonpatch = pytest.importorskip("jsonpatch")
    doc = {"m": {"c~d": [True]}, "l": [1]}
    assert jsonpatch.apply_patch(doc, patch) == {"m": {"a/b": {"x": [1]}}, "l": [{"y": None}]}
