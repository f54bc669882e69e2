"""Content hashes: stable, order-free, and derived incrementally exactly as from scratch."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from metaplan.core.digest import digest_all
from metaplan.passes.slimming import slim
from metaplan.testing import plans, spec_registries


def test_content_hash_is_stable_and_order_free() -> None:
    a = metaplan.Plan.from_json({"x": 1, "param_plan": {"m": {"a": 1, "b": True}}})
    b = metaplan.Plan.from_json({"param_plan": {"m": {"b": True, "a": 1}}, "x": 1})
    c = metaplan.Plan.from_json({"x": 1, "param_plan": {"m": {"a": True, "b": True}}})
    assert a.content_hash == b.content_hash and a == b
    assert a.content_hash != c.content_hash and a != c
    assert a.content_hash.startswith("sha256:") and len(a.content_hash) == 71


@pytest.mark.parametrize("value", [0.5, 1e16, 2**64, "\U0001f600", -0.0])
def test_odd_json_values_hash_normalize_and_diff(value: Any) -> None:
    meta = {"param_plan": {"a": {"x": value, "is_boundary": False}, "b": {"x": value}},
            "boundary_classes": {"a": "MLP", "b": "MLP"}}
    a, b = metaplan.Plan.from_json(meta), metaplan.Plan.from_json(meta)
    assert a.content_hash == b.content_hash
    assert metaplan.diff(a, b).is_noop
    result = metaplan.normalize(a).plan
    assert result.param_plan["b"]["skip_source_lowering"] is True
    assert metaplan.dumps(result) == metaplan.dumps(metaplan.loads(metaplan.dumps(result)))


# the incremental hash is the from-scratch hash -------------------------------------------


def _hashes_in_order(states: list[metaplan.Plan]) -> tuple[list[str], int]:
    """Each state's hash, read in order (each derived from the one before), and how many
    states were hashed from scratch."""
    with mock.patch("metaplan.core.plan.digest_all", wraps=digest_all) as full:
        hashes = [state.content_hash for state in states]
    return hashes, full.call_count


def _from_scratch(state: metaplan.Plan) -> str:
    return metaplan.Plan.from_json(state.to_json()).content_hash


@given(plans(), spec_registries())
def test_the_hashes_of_a_trace_are_the_from_scratch_hashes(plan: metaplan.Plan,
                                                          specs: metaplan.SpecRegistry) -> None:
    trace = metaplan.normalize_pipeline(specs=specs).then(slim).run(plan)
    states = list(trace.states)
    hashes, full = _hashes_in_order(states)
    assert full == 1  # the input; every later state is derived from the one before it
    assert hashes == [_from_scratch(state) for state in states]


_PADDING = st.integers(0, 200)


@st.composite
def _edit_chains(draw: st.DrawFn) -> list[metaplan.Plan]:
    """A plan (padded to span several hash buckets) and the plans of 1-3 edits in a row,
    each adding, removing and changing entries, classes and plain fields."""
    raw = draw(plans()).to_json()
    raw.setdefault("param_plan", {}).update(
        {f"pad.{i}": {"is_boundary": i % 2 == 0} for i in range(draw(_PADDING))})
    states = [metaplan.Plan.from_json(raw)]
    for _ in range(draw(st.integers(1, 3))):
        edit = metaplan.Edit(states[-1])
        entries = sorted(states[-1].index("param_plan"))
        for _ in range(draw(st.integers(0, 40))):
            how = draw(st.integers(0, 6))
            fqn = draw(st.sampled_from(entries)) if entries else "x"
            if how == 0:
                edit.set(("param_plan", f"new.{draw(st.integers(0, 400))}"),
                         {"is_boundary": True})
            elif how == 1:
                edit.remove(("param_plan", fqn))
            elif how == 2 and type(edit.get(("param_plan", fqn))) is metaplan.JSONMap:
                edit.set(("param_plan", fqn, "is_boundary"), draw(st.booleans()))
            elif how == 3:
                edit.set(("boundary_classes", fqn), draw(st.sampled_from(("MLP", "MoE"))))
            elif how == 4:
                edit.remove(("boundary_classes", fqn))
            elif how == 5:
                edit.set(("model_type",), draw(st.sampled_from(("a", "b"))))
            else:
                edit.set(("codegen_version",), draw(st.integers(0, 2)))
        states.append(edit.finish("edits")[0])
    return states


@given(_edit_chains())
def test_the_hashes_of_edited_plans_are_the_from_scratch_hashes(
        states: list[metaplan.Plan]) -> None:
    hashes, full = _hashes_in_order(states)
    assert full == 1
    assert hashes == [_from_scratch(state) for state in states]


def _edited(plan: metaplan.Plan, *steps: tuple[str, tuple[Any, ...], Any]) -> metaplan.Plan:
    edit = metaplan.Edit(plan)
    for how, path, value in steps:
        if how == "set":
            edit.set(path, value)
        else:
            edit.remove(path)
    return edit.finish("steps")[0]


_PLAN = {"param_plan": {f"m.{i}": {"is_boundary": i % 3 == 0} for i in range(150)}}


@pytest.mark.parametrize("steps", [
    [("set", ("boundary_classes",), {"m.0": "MLP"})],  # an FQN map the first parent lacks
    [("set", ("param_plan",), {"a": {"is_boundary": True}})],  # a whole map replaced
    [("set", ("param_plan", "m.1", "is_boundary"), True), ("remove", ("param_plan", "m.2"), None)],
    [("set", ("param_plan", f"new.{i}"), {}) for i in range(120)],  # more buckets
    [("remove", ("param_plan", f"m.{i}"), None) for i in range(100)],  # fewer buckets
], ids=["new map", "whole map", "entries", "grown", "shrunk"])
def test_a_derived_hash_is_the_from_scratch_hash(steps: list[Any]) -> None:
    for raw in (_PLAN, {**_PLAN, "model_type": "x", "boundary_classes": {"m.3": "A"}}):
        parent = metaplan.Plan.from_json(raw)
        parent.content_hash  # noqa: B018 - the child derives from the parent's digest
        child = _edited(parent, *steps)
        hashes, full = _hashes_in_order([child])
        assert full == 0 and hashes == [_from_scratch(child)]


def test_two_edits_of_one_parent_leave_each_other_and_the_parent_alone() -> None:
    parent = metaplan.Plan.from_json(_PLAN)
    before = parent.content_hash
    one = _edited(parent, ("set", ("param_plan", "m.5", "is_boundary"), True))
    two = _edited(parent, ("set", ("param_plan", "m.5", "is_boundary"), False),
                  ("set", ("param_plan", "m.6"), {}))
    assert [one.content_hash, two.content_hash] == [_from_scratch(one), _from_scratch(two)]
    assert parent.content_hash == before == _from_scratch(parent)
    three = _edited(parent, ("remove", ("param_plan", "m.5"), None))
    assert three.content_hash == _from_scratch(three)
    small = metaplan.Plan.from_json({"param_plan": {f"m.{i}": {} for i in range(10)}})
    small.content_hash  # noqa: B018 - one bucket: every sibling edits the same one
    first = _edited(small, ("set", ("param_plan", "m.1"), {"is_boundary": True}))
    second = _edited(small, ("set", ("param_plan", "m.2"), {"is_boundary": True}))
    assert [first.content_hash, second.content_hash] == [_from_scratch(first),
                                                         _from_scratch(second)]
