"""Module patterns: braces, then globs over a plan's FQNs, in the plan's order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metaplan.algorithms.patterns import MAX_WORDS, match_names

NAMES = ("lm_head", "model.layers.0.mlp", "model.layers.1.mlp", "model.layers.1.mlp.experts",
         "model.layers.2.mlp", "model.norm")


def test_a_glob_matches_in_the_plans_order() -> None:
    found = match_names(["model.layers.*.mlp", "lm_*"], NAMES)
    assert found.names == ("model.layers.0.mlp", "model.layers.1.mlp", "model.layers.2.mlp",
                           "lm_head")
    assert found.unmatched == ()
    assert match_names(["model.layers.[02].mlp"], NAMES).names == (
        "model.layers.0.mlp", "model.layers.2.mlp")


def test_braces_expand_then_match_each_module_once() -> None:
    found = match_names(["model.layers.{2,1,0}.mlp", "model.layers.{1..2}.mlp"], NAMES)
    assert found.names == ("model.layers.0.mlp", "model.layers.1.mlp", "model.layers.2.mlp")
    assert match_names(["model.layers.{1..2}.mlp*"], NAMES).names == NAMES[2:5]


def test_every_unknown_is_named_with_a_suggestion() -> None:
    found = match_names(["lm_haed", "model.norm", "model.layers.{0..3}.mlp", "zz*",
                         "model.layerz.*"], NAMES)
    assert found.names == ("model.norm", "model.layers.0.mlp", "model.layers.1.mlp",
                           "model.layers.2.mlp")
    assert [(u.pattern, u.words, u.suggestion, u.whole) for u in found.unmatched] == [
        ("lm_haed", ("lm_haed",), "lm_head", True),
        ("model.layers.{0..3}.mlp", ("model.layers.3.mlp",), "model.layers.2.mlp", False),
        ("zz*", ("zz*",), None, True),
        ("model.layerz.*", ("model.layerz.*",), "model.layers.*", True)]


def test_a_bad_pattern_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="never closed"):
        match_names(["model.{norm"], NAMES)
    with pytest.raises(ValueError, match=f"more than {MAX_WORDS:,}"):
        match_names(["x.{0..99999999}"], NAMES)


FQNS = st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,6}(\.[a-z0-9_]{1,4}){0,4}", fullmatch=True),
                min_size=1, max_size=20, unique=True)


@given(FQNS, st.data())
def test_a_literal_fqn_matches_exactly_itself(names: list[str], data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(names))
    found = match_names([name], names)
    assert found.names == (name,) and found.unmatched == ()
