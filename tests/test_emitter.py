"""How upstream's emitter reads a plan: boundaries, classes, injections and placements."""

from __future__ import annotations

from typing import Any

import pytest
from pyrsistent import pvector

import metaplan
from metaplan.core.emitter import (
    InjectionConflict,
    Placement,
    array,
    boundaries_by_class,
    class_of,
    injection_index,
    is_boundary_entry,
    object_entries,
    parse_placement,
    parsed,
    raw_entry,
    shards,
)


@pytest.mark.parametrize(("text", "placement"), [
    ("R", Placement("R")), ("S(0)", Placement("S", 0)), ("S(-1)", Placement("S", -1)),
    ("S( 3 )", Placement("S", 3)), ("SS(1,2)", Placement("SS", 1, 2)),
    ("SS( 0 , 4 )", Placement("SS", 0, 4)), ("P(sum)", Placement("P", None, "sum")),
    ("P(a,b)", Placement("P", None, "a,b")), ("P(\n)", Placement("P", None, "\n")),
])
def test_placements_upstream_parses(text: str, placement: Placement) -> None:
    assert parse_placement(text) == placement
    assert parsed(text) == placement
    assert shards(text) is (placement.kind != "R")


@pytest.mark.parametrize(("text", "message"), [
    ("", "an empty placement"), ("Q", "unknown form Q"), ("R(0)", "unknown form R(0)"),
    ("s(0)", "unknown form s(0)"), ("S(0", "unknown form S(0"), ("xS(0)", "unknown form xS(0)"),
    ("S(0)x", "unknown form S(0)x"),
    ("P()", "a partial names its reduce op, as P(sum); P() has none"),
    ("S(x)", "S(x) has no integer dim"), ("S()", "S() has no integer dim"),
    ("S(1,2)", "a shard takes one dim, S(1,2) has 2 arguments"),
    ("SS(1)", "a strided shard is SS(dim,factor), SS(1) has 1 argument(s)"),
    ("SS(1,2,3)", "a strided shard is SS(dim,factor), SS(1,2,3) has 3 argument(s)"),
    ("SS(1,x)", "SS(1,x) has no integer split factor"), ("SS(x,1)", "SS(x,1) has no integer dim"),
])
def test_placements_upstream_refuses(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_placement(text)
    assert str(info.value) == message
    assert parsed(text) == message and shards(text) is False
    with pytest.raises(ValueError, match="an empty placement"):
        parse_placement(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(("entry", "boundary"), [
    ({"is_boundary": True}, True), ({"is_boundary": 1}, True), ({"is_boundary": "no"}, True),
    ({"is_boundary": False, "in_src": {"x": {}}}, False), ({"is_boundary": 0}, False),
    ({"is_boundary": ""}, False), ({"is_boundary": None, "out_names": ["y"]}, True),
    ({"is_boundary": None}, False), ({}, False), ({"in_src": {}}, False),
    ({"in_dst": {"x": {}}}, True), ({"out_src": {"y": {}}}, True), ({"out_dst": {"y": {}}}, True),
    ({"out_names": ["y"]}, True), ({"out_names": []}, False), ({"params": {"w": {}}}, False),
    ("junk", False), (None, False), (["is_boundary"], False),
])
def test_the_boundary_predicate(entry: Any, boundary: bool) -> None:
    assert is_boundary_entry(entry) is boundary
    if isinstance(entry, dict):
        assert is_boundary_entry(metaplan.freeze(entry)) is boundary


def test_entries_arrays_and_class_names_as_the_emitter_reads_them() -> None:
    frozen = metaplan.freeze({"a": [1]})
    assert raw_entry(frozen) is frozen._data
    assert raw_entry({"a": (1,)}) == {"a": [1]} and type(raw_entry({"a": (1,)})) is dict
    assert raw_entry("x") == "x" and raw_entry(None) is None
    assert array([1]) == [1] and array((1,)) == (1,) and array(pvector([1])) == pvector([1])
    assert array("ab") == () and array(None) == () and array({"a": 1}) == ()
    classes = {"a": "MLP", "b": "", "c": 3, "d": None}
    assert [class_of(classes, fqn) for fqn in "abcde"] == ["MLP", None, None, None, None]


def test_boundaries_by_class_are_sorted_and_leave_out_what_is_no_boundary() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"c": {"is_boundary": True, "p": 1}, "a": {"is_boundary": True},
                       "b": {"is_boundary": False}, "d": {"out_names": ["y"]},
                       "e": {"is_boundary": True}, "f": "junk", "g": {"is_boundary": True}},
        "boundary_classes": {"a": "M", "b": "M", "c": "M", "d": "N", "f": "N", "g": ""}})
    groups = boundaries_by_class(plan)
    assert {name: [fqn for fqn, _ in group] for name, group in groups.items()} == {
        "M": ["a", "c"], "N": ["d"]}
    assert groups["M"][1][1] == {"is_boundary": True, "p": 1}
    assert sorted(fqn for fqn, _ in object_entries(plan)) == ["a", "b", "c", "d", "e", "g"]


def test_the_injection_index_unions_keys_and_reports_each_conflict() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {}, "boundary_classes": {"a": "M", "b": "M", "c": "N", "e": ""},
        "injections": [
            {"match": "a", "inner_target": {"x": 1, "y": 2}, "ep_size": 8},
            {"match": "b", "inner_target": {"y": 2, "x": 1}, "local_compute_fn": "f"},
            {"match": "*", "inner_target": "glob: skipped"},
            {"match": "z", "inner_target": "no class: skipped"},
            {"match": "e", "inner_target": "empty class: skipped"},
            {"match": ["a"], "inner_target": "a list: skipped"},
            {"match": "c", "inner_out_src": True}, {"match": "c", "inner_out_src": 1},
            {"match": "a", "local_compute_fn": "g", "inner_out_src": None},
        ]})
    index, conflicts = injection_index(plan)
    assert index == {"M": None, "N": None}
    assert conflicts == [
        InjectionConflict("N", "inner_out_src", 7, "c", b"1", 6, "c", b"true"),
        InjectionConflict("M", "local_compute_fn", 8, "a", b'"g"', 1, "b", b'"f"')]
    agreeing = plan.set("injections", plan["injections"][:2])
    index, conflicts = injection_index(agreeing)
    assert conflicts == [] and metaplan.thaw(index) == {
        "M": {"inner_target": {"x": 1, "y": 2}, "local_compute_fn": "f"}}
    assert injection_index(plan.remove("injections")) == ({}, [])


def test_entries_given_as_other_mappings_are_read_too() -> None:
    from pyrsistent import pmap

    plan = metaplan.Plan(pmap({"param_plan": pmap({"m": {"is_boundary": True, "p": (1,)},
                                                   "n": "junk"}),
                               "boundary_classes": pmap({"m": "C"})}))
    assert list(object_entries(plan)) == [("m", {"is_boundary": True, "p": [1]})]
    assert boundaries_by_class(plan) == {"C": [("m", {"is_boundary": True, "p": [1]})]}


def test_the_injection_index_skips_what_upstream_skips_and_reads_on_after_a_conflict() -> None:
    from pyrsistent import pmap

    fields: dict[str, Any] = {
        "param_plan": pmap({}), "boundary_classes": pmap({"a": "M", "": "E"}),
        "injections": ("not an object", {"match": "", "inner_target": "empty match"},
                       {"match": "a", "inner_target": "x"}, {"match": "a", "inner_target": "y"},
                       {"match": "a", "inner_target": "z", "local_compute_fn": "f"})}
    plan = metaplan.Plan(pmap(fields))
    index, conflicts = injection_index(plan)
    assert index == {"M": None}
    assert [(c.class_name, c.key, c.at) for c in conflicts] == [("M", "inner_target", 3),
                                                                   ("M", "inner_target", 4)]
