"""JSON in and out: the stdlib's exact bytes (``indent=2, sort_keys=True``), both writers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import FIXTURES, SMALL_FIXTURES, expected_bytes, raw_input
from metaplan.files.jsonio import dumps_pretty, dumps_pretty_stdlib

_UNICODE = st.characters(exclude_categories=["Cs"])  # a lone surrogate is no text: refused


@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(_UNICODE, max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(_UNICODE, max_size=4),
                                                                 inner, max_size=3),
    max_leaves=12))
def test_dump_is_byte_identical_to_the_stdlib(value: object) -> None:
    reference = json.dumps({"param_plan": {}, "v": value}, indent=2, sort_keys=True).encode()
    plan = metaplan.loads(reference)
    assert metaplan.dumps(plan) == reference
    assert dumps_pretty(plan.fields) == dumps_pretty_stdlib(plan.fields) == reference


@pytest.mark.parametrize("name", FIXTURES)
def test_load_then_dump_gives_back_the_input_bytes(name: str,
                                                   loaded: dict[str, metaplan.Plan]) -> None:
    assert metaplan.dumps(loaded[name]) == raw_input(name)


@pytest.mark.parametrize("name", SMALL_FIXTURES)
def test_the_stdlib_writer_path_gives_the_same_bytes(name: str,
                                                     loaded: dict[str, metaplan.Plan]) -> None:
    result = metaplan.normalize(loaded[name]).plan
    assert dumps_pretty_stdlib(result.fields) == metaplan.dumps(result) == expected_bytes(name)
