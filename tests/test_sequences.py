"""sequences: minimal edit scripts between JSON arrays, and three-way merge of arrays."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Hashable, Sequence
from typing import Any

import jsonpatch
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import fixture_path
from metaplan.algorithms import sequences
from metaplan.algorithms.sequences import (
    ItemConflict,
    ItemEdit,
    apply_script,
    edit_script,
    hunks,
    is_sorted_set,
    json_key,
    match_items,
    merge3,
    merge3_sets,
    script_to_json_patch,
)
from metaplan.errors import ConflictError

ITEMS = st.sampled_from((0, 1, 2, True, False, 1.0, -0.0, 0.0, "1", "a", "b", None, [1],
                         [True], {"a": 1}, {"a": 1.0}, {"a": [1, 2]}))
ARRAYS = st.lists(ITEMS, max_size=14)
FEW = st.lists(st.sampled_from("abc"), max_size=14)
"""Arrays over three letters: many repeats, so Myers' algorithm (not the unique path) runs."""


ONE_KEYED = st.builds(lambda name, size: {"match": name, "ep_size": size},
                      st.sampled_from("pqrstuvw"), st.sampled_from((8, 16)))


def match(item: Any) -> Hashable | None:
    return item.get("match") if isinstance(item, dict) else None


@st.composite
def keyed(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Objects with unique ``match`` identities from a small pool, and small values."""
    names = draw(st.lists(st.sampled_from("pqrstuvw"), unique=True, max_size=8))
    return [{"match": n, "ep_size": draw(st.sampled_from((8, 16)))} for n in names]


@st.composite
def edited(draw: st.DrawFn, base: list[Any], items: st.SearchStrategy[Any]) -> list[Any]:
    """``base`` after a few random removals, insertions and replacements."""
    out = list(base)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(("add", "remove", "replace")))
        if op == "add" or not out:
            out.insert(draw(st.integers(0, len(out))), draw(items))
        elif op == "remove":
            del out[draw(st.integers(0, len(out) - 1))]
        else:
            out[draw(st.integers(0, len(out) - 1))] = draw(items)
    return out


def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The textbook dynamic programme, on strict JSON equality."""
    ka, kb = [json_key(x) for x in a], [json_key(y) for y in b]
    row = [0] * (len(kb) + 1)
    for x in ka:
        diagonal, row = row, [0] * (len(kb) + 1)
        for j, y in enumerate(kb):
            row[j + 1] = diagonal[j] + 1 if x == y else max(diagonal[j + 1], row[j])
    return row[-1]


def same_json(x: Sequence[Any], y: Sequence[Any]) -> bool:
    return [json_key(v) for v in x] == [json_key(v) for v in y]


@given(st.one_of(st.tuples(ARRAYS, ARRAYS), st.tuples(FEW, FEW)))
def test_script_turns_a_into_b_minimally(pair: tuple[list[Any], list[Any]]) -> None:
    a, b = pair
    snapshot = copy.deepcopy(pair)
    script = edit_script(a, b)
    assert same_json(apply_script(a, script), b)
    assert {e.op for e in script} <= {"add", "remove"}
    assert len(script) == len(a) + len(b) - 2 * lcs_length(a, b)
    assert (a, b) == snapshot


@given(st.data())
def test_script_between_edits_of_one_array(data: st.DataObject) -> None:
    base = data.draw(ARRAYS)
    new = data.draw(edited(base, ITEMS))
    script = edit_script(base, new)
    assert same_json(apply_script(base, script), new)
    assert len(script) == len(base) + len(new) - 2 * lcs_length(base, new)


@given(st.data())
def test_keyed_script_sets_matched_items_and_adds_the_rest(data: st.DataObject) -> None:
    a = data.draw(keyed())
    b = data.draw(edited(a, ONE_KEYED))
    script = edit_script(a, b, key=match)
    assert apply_script(a, script) == b
    pairs = match_items(a, b, match)
    if pairs is None:  # an insertion repeated an identity: whole values were compared
        assert len(script) == len(a) + len(b) - 2 * lcs_length(a, b)
    else:
        names = [x["match"] for x in a], [y["match"] for y in b]
        moves = [e for e in script if e.op != "set"]
        assert len(moves) == len(a) + len(b) - 2 * lcs_length(*names)
        assert sum(e.op == "set" for e in script) == sum(a[i] != b[j] for i, j in pairs)


def test_strict_json_equality() -> None:
    assert edit_script([True, 1, 1.0, "1", None], [True, 1, 1.0, "1", None]) == []
    assert len(edit_script([True], [1])) == 2
    assert len(edit_script([1], [1.0])) == 2
    assert len(edit_script([0.0], [-0.0])) == 2
    assert edit_script([{"a": 1, "b": [1]}], [{"b": (1,), "a": 1}]) == []
    assert len(edit_script([{"a": 1}], [{"a": True}])) == 2
    with pytest.raises(TypeError, match="not a JSON value: set"):
        json_key({1})


def test_a_custom_canon_decides_equality() -> None:
    assert edit_script(["A", "b"], ["a", "B"], canon=str.lower) == []
    assert edit_script([1, True], [True, 1], canon=lambda x: x) == []


@given(st.lists(st.text("abc", max_size=3), unique=True).map(sorted),
       st.lists(st.text("abc", max_size=3), unique=True).map(sorted))
def test_sorted_fast_path_agrees_with_the_general_one(a: list[str], b: list[str]) -> None:
    assert is_sorted_set(a) and is_sorted_set(b)
    general = sequences._hunks_from_pairs(len(a), len(b), sequences._lcs(a, b), None)
    assert hunks(a, b) == general
    assert apply_script(a, edit_script(a, b)) == b


@given(st.lists(st.sampled_from("abcd"), max_size=12).map(sorted),
       st.lists(st.sampled_from("abcd"), max_size=12).map(sorted))
def test_sorted_path_with_repeats_is_minimal(a: list[str], b: list[str]) -> None:
    script = edit_script(a, b)
    assert apply_script(a, script) == b
    assert len(script) == len(a) + len(b) - 2 * lcs_length(a, b)


def test_sorted_path_on_a_real_parameter_list() -> None:
    plan = json.loads(gzip.decompress(fixture_path("deepseek_v3.hf4").read_bytes()))
    params = plan["frozen_sharded_params"]
    dropped = set(params[100::450])
    edited_params = sorted({*params[::1], "model.layers.3.mlp.new.weight"} - dropped)
    script = edit_script(params, edited_params)
    assert len(script) == len(dropped) + 1
    assert apply_script(params, script) == edited_params
    patch = script_to_json_patch(script, "/frozen_sharded_params")
    assert jsonpatch.apply_patch({"frozen_sharded_params": params}, patch) == {
        "frozen_sharded_params": edited_params}


def test_a_long_search_falls_back_to_a_valid_script(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = list("abcabcabcabcabcabc"), list("cbacbacbacbaccba")
    minimal = len(edit_script(a, b))
    monkeypatch.setattr(sequences, "MYERS_BUDGET", 3)
    script = edit_script(a, b)
    assert apply_script(a, script) == b
    assert len(script) >= minimal


def test_match_items_needs_unique_hashable_identities() -> None:
    a = [{"match": "x", "v": 1}, {"match": "y"}]
    assert match_items(a, [{"match": "y"}, {"match": "x"}], match) == [(1, 0)]
    assert match_items([{"match": "x"}, {"match": "x"}], [], match) is None
    assert match_items([{"v": 1}], [], match) is None
    assert match_items([{"match": ["x"]}], [], match) is None
    moved = [{"match": "y"}, {"match": "x", "v": 2}]
    script = edit_script(a, moved, key=match)
    assert apply_script(a, script) == moved


def test_one_edited_injection_is_one_set_edit() -> None:
    plan = json.loads(gzip.decompress(fixture_path("deepseek_v3.hf4").read_bytes()))
    injections = plan["injections"]
    changed = copy.deepcopy(injections)
    changed[5]["ep_size"] = 16
    script = edit_script(injections, changed, key=match)
    assert script == [ItemEdit("set", 5, injections[5], changed[5])]
    by_value = edit_script(injections, changed)
    assert [e.op for e in by_value] == ["remove", "add"]


def test_apply_script_checks_every_edit() -> None:
    with pytest.raises(ConflictError, match=r"edit 1 \(remove at \[1\]\) is out of range"):
        apply_script(["a"], [ItemEdit("remove", 0, "a"), ItemEdit("remove", 1, "b")])
    with pytest.raises(ConflictError, match=r"edit 0 \(set at \[0\]\) expects a number \(1\) "
                                            r"there, found a boolean \(true\)"):
        apply_script([True], [ItemEdit("set", 0, 1, 2)])
    with pytest.raises(ValueError, match="unknown op 'move'"):
        apply_script([], [ItemEdit("move", 0)])
    script = [ItemEdit("add", 1, new="b"), ItemEdit("set", 0, "a", "z")]
    assert apply_script(["a"], script) == ["z", "b"]


@given(st.data())
def test_json_patch_of_a_script_is_applied_by_jsonpatch(data: st.DataObject) -> None:
    a = data.draw(keyed())
    b = data.draw(edited(a, ONE_KEYED))
    for key in (None, match):
        patch = script_to_json_patch(edit_script(a, b, key=key), "/injections")
        assert jsonpatch.apply_patch({"injections": a}, patch) == {"injections": b}


# ---------------------------------------------------------------------------------------------
# three-way


@given(st.data())
def test_merge3_laws(data: st.DataObject) -> None:
    items = data.draw(st.sampled_from((ITEMS, st.sampled_from("abc"))))
    base = data.draw(st.lists(items, max_size=10))
    ours = data.draw(edited(base, items))
    theirs = data.draw(edited(base, items))
    snapshot = copy.deepcopy((base, ours, theirs))
    assert merge3(base, ours, base) == (ours, [])
    assert merge3(base, base, theirs) == (theirs, [])
    assert merge3(base, ours, ours) == (ours, [])
    assert_symmetric(merge3(base, ours, theirs), merge3(base, theirs, ours))
    assert (base, ours, theirs) == snapshot


def assert_symmetric(mine: sequences.ItemMerge, swapped: sequences.ItemMerge) -> None:
    """Swapping sides swaps each conflict's two sides, and nothing else."""
    assert len(mine.conflicts) == len(swapped.conflicts)
    rebuilt, at = [], 0
    for one, other in zip(mine.conflicts, swapped.conflicts, strict=True):
        assert (one.kind, one.base_span, one.base) == (other.kind, other.base_span, other.base)
        assert (one.ours, one.theirs) == (other.theirs, other.ours)
        assert (one.ours_span, one.theirs_span) == (other.theirs_span, other.ours_span)
        if one.kind == "duplicate":  # both copies are in merged: each side's span is its own
            assert mine.merged[one.merged_span[0]] == one.ours[0]
            assert swapped.merged[other.merged_span[0]] == other.ours[0]
        else:
            rebuilt += mine.merged[at:one.merged_span[0]] + one.theirs
            at = one.merged_span[1]
    assert rebuilt + mine.merged[at:] == swapped.merged


CUTS = st.lists(st.integers(0, 12), min_size=4, max_size=4).map(sorted).filter(
    lambda c: not c[0] == c[1] == c[2] == c[3])
"""Two base regions ``[c0, c1)`` and ``[c2, c3)`` that do not overlap (nor insert at one point)."""


@st.composite
def disjoint_edits(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], list[int]]:
    """A base of unique items; one side replaces one region, the other side another, by
    fresh items; and the base with both replacements."""
    cuts = draw(CUTS)
    base = list(range(draw(st.integers(cuts[3], 14))))
    regions = (cuts[0], cuts[1]), (cuts[2], cuts[3])
    fresh = [[100 + 10 * side + t for t in range(draw(st.integers(start == end, 2)))]
             for side, (start, end) in enumerate(regions)]
    (s1, e1), (s2, e2) = regions
    ours = base[:s1] + fresh[0] + base[e1:]
    theirs = base[:s2] + fresh[1] + base[e2:]
    return base, ours, theirs, base[:s1] + fresh[0] + base[e1:s2] + fresh[1] + base[e2:]


@given(disjoint_edits(), st.booleans())
def test_merge3_keeps_both_edits_of_disjoint_regions(case: tuple[list[int], ...],
                                                     swap: bool) -> None:
    base, ours, theirs, both = case
    if swap:
        ours, theirs = theirs, ours
    assert merge3(base, ours, theirs) == (both, [])


def test_merge3_adjacent_edits_merge_and_overlapping_ones_conflict() -> None:
    base = ["a", "b", "c", "d"]
    assert merge3(base, ["a", "B", "c", "d"], ["a", "b", "C", "d"]).merged == list("aBCd")
    assert merge3(base, ["x", *base], [*base, "y"]).merged == ["x", *base, "y"]
    result = merge3(base, ["a", "B", "c", "d"], ["a", "b2", "c", "d"])
    assert result.merged == ["a", "B", "c", "d"]
    assert result.conflicts == [ItemConflict("hunk", (1, 2), (1, 2), (1, 2), (1, 2), ["b"], ["B"],
                                         ["b2"])]
    same_point = merge3(base, ["a", "x", "b", "c", "d"], ["a", "y", "b", "c", "d"])
    assert [c.base_span for c in same_point.conflicts] == [(1, 1)]
    identical = merge3(base, ["a", "c", "d", "e"], ["a", "c", "d", "e"])
    assert identical == (["a", "c", "d", "e"], [])


def test_merge3_by_identity_merges_items_and_reports_real_conflicts() -> None:
    base = [{"match": "p", "ep": 8}, {"match": "q", "ep": 8}, {"match": "r", "ep": 8}]
    ours = copy.deepcopy(base)
    ours[0]["ep"] = 16
    theirs = copy.deepcopy(base)
    theirs[2]["ep"] = 4
    theirs.append({"match": "s", "ep": 8})
    merged = merge3(base, ours, theirs, key=match)
    assert merged.conflicts == []
    assert [x["ep"] for x in merged.merged] == [16, 8, 4, 8]

    both = copy.deepcopy(base)
    both[0]["ep"] = 32
    item = merge3(base, ours, both, key=match).conflicts
    assert [(c.kind, c.base_span, c.ours[0]["ep"], c.theirs[0]["ep"]) for c in item] == [
        ("item", (0, 1), 16, 32)]

    removed = merge3(base, base[1:], both, key=match).conflicts
    assert [(c.kind, c.base, c.ours, c.theirs) for c in removed] == [
        ("hunk", base[:1], [], both[:1])]

    twice = merge3(base, [{"match": "s"}, *base], [*base, {"match": "s"}], key=match)
    assert [(c.kind, c.ours_span, c.theirs_span, c.merged_span) for c in twice.conflicts] == [
        ("duplicate", (0, 1), (3, 4), (0, 1))]  # merged_span: ours' copy
    assert len(twice.merged) == 5


@given(st.data())
def test_merge3_by_identity_laws(data: st.DataObject) -> None:
    base = data.draw(keyed())
    ours, theirs = data.draw(edited(base, ONE_KEYED)), data.draw(edited(base, ONE_KEYED))
    assert merge3(base, ours, base, key=match) == (ours, [])
    assert merge3(base, base, theirs, key=match) == (theirs, [])
    assert merge3(base, ours, ours, key=match) == (ours, [])
    assert_symmetric(merge3(base, ours, theirs, key=match),
                     merge3(base, theirs, ours, key=match))


SETS = st.lists(st.sampled_from(("a", "b", "c", "d", "e", "f")), unique=True).map(sorted)


@given(SETS, SETS, SETS)
def test_merge3_sets_keeps_every_addition_and_every_removal(base: list[str], ours: list[str],
                                                            theirs: list[str]) -> None:
    merged, conflicts = merge3_sets(base, ours, theirs)
    assert conflicts == [] and is_sorted_set(merged)
    for item in {*base, *ours, *theirs}:
        removed = item in base and (item not in ours or item not in theirs)
        added = item not in base and (item in ours or item in theirs)
        assert (item in merged) == (added or (item in base and not removed))
    assert merge3_sets(base, ours, base).merged == ours
    assert merge3_sets(base, ours, ours).merged == ours
    assert merge3_sets(base, ours, theirs) == merge3_sets(base, theirs, ours)


def test_public_names() -> None:
    assert sequences.__all__ == [
        "Hunk", "ItemConflict", "ItemEdit", "ItemMerge", "apply_script", "edit_script", "hunks",
        "is_sorted_set", "json_key", "match_items", "merge3", "merge3_sets",
        "script_to_json_patch"]


@pytest.mark.parametrize(("old", "new"), [
    ("Edit", "ItemEdit"), ("Conflict", "ItemConflict"), ("Merge", "ItemMerge"),
    ("Key", "ItemKey"), ("to_json_patch", "script_to_json_patch")])
def test_the_old_names_are_deprecated_aliases(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"sequences.{old} moved to .*sequences.{new}"
                      ) as caught:
        assert getattr(sequences, old) is getattr(sequences, new)
    assert caught[0].filename == __file__
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sequences.nope  # noqa: B018
