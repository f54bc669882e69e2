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
