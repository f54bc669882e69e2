"""braces: fold is exact, deterministic and short; expand is bash's brace expansion."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Iterable
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fixture_path
from metaplan.algorithms import braces
from metaplan.algorithms.braces import count, expand, fold, fold_first, group_key, natural_key

BASH = shutil.which("bash")
ODD = "{},\\.$ _-é٣\n\0"
SAFE = "ab._-{},\\$"


@st.composite
def numbers(draw: st.DrawFn) -> list[str]:
    """Digit runs for one slot: a range with holes, scattered values, or odd spellings."""
    kind = draw(st.sampled_from(("range", "scattered", "odd")))
    if kind == "range":
        start, size = draw(st.integers(0, 300)), draw(st.integers(1, 40))
        holes = draw(st.sets(st.integers(start, start + size - 1), max_size=size // 3))
        return [str(i) for i in range(start, start + size) if i not in holes] or [str(start)]
    if kind == "scattered":
        return [str(i) for i in draw(st.sets(st.integers(0, 10**6), min_size=1, max_size=8))]
    return draw(st.lists(ODD_NUMBERS, min_size=1, max_size=5))


ODD_NUMBERS = st.one_of(st.sampled_from(("0", "00", "07", "007", "10", "9" * 19, "1" + "0" * 18)),
                        st.integers(0, 10**25).map(str),
                        st.integers(4300, 4400).map(lambda n: "7" * n))


SEGMENTS = ("model.layers.", ".mlp.experts.", ".mlp", ".self_attn", "lm_head", ".weight",
            "_proj", "", ".", "w", "model.embed_tokens", "..", "x{", "}", ",", "\\", "$")
ODD_SEGMENTS = st.one_of(st.sampled_from(SEGMENTS), st.text(ODD, max_size=4))
PLAIN_SEGMENTS = st.sampled_from(SEGMENTS[:11])


@st.composite
def grids(draw: st.DrawFn, *, odd: bool = True) -> set[str]:
    """Names of one skeleton: literal segments around 0-3 slots, a grid with holes."""
    slots = draw(st.integers(0, 3))
    text = ODD_SEGMENTS if odd else PLAIN_SEGMENTS
    segments = [draw(text) for _ in range(slots + 1)]
    values = [draw(numbers()) for _ in range(slots)]
    names = {segments[0]}
    for segment, slot in zip(segments[1:], values, strict=True):
        names = {name + run + segment for name in names for run in slot}
        if len(names) > 1000:
            names = set(sorted(names)[:1000])
    drop = draw(st.sets(st.sampled_from(sorted(names)), max_size=min(5, len(names) - 1)))
    return names - drop


@st.composite
def name_sets(draw: st.DrawFn, *, odd: bool = True) -> set[str]:
    """Realistic FQN sets (grids of several skeletons) or any small set of strings."""
    if draw(st.integers(0, 4)) == 0:
        alphabet = (ODD if odd else SAFE) + "ab019"
        return draw(st.sets(st.text(alphabet, max_size=8), min_size=1, max_size=20))
    return set().union(*(draw(grids(odd=odd)) for _ in range(draw(st.integers(1, 4)))))


def _words(pattern: str, **settings_: bool) -> list[str]:
    words = expand(pattern, **settings_)
    assert count(pattern, **settings_) == len(words)
    return words


@given(name_sets())
def test_fold_names_exactly_the_set_once_each(names: set[str]) -> None:
    words = _words(fold(names))
    assert len(words) == len(set(words))
    assert set(words) == names


@given(name_sets())
def test_ranges_in_lists_is_exact_too(names: set[str]) -> None:
    pattern = fold(names, ranges_in_lists=True)
    words = _words(pattern, ranges_in_lists=True)
    assert sorted(words) == sorted(names)
    assert len(pattern) <= len(fold(names))


@given(name_sets(), st.randoms(use_true_random=False))
def test_fold_depends_on_the_set_only(names: set[str], random: Random) -> None:
    order = sorted(names)
    random.shuffle(order)
    repeats = random.choices(order, k=3)
    assert fold([*order, *repeats]) == fold(iter(names)) == fold(sorted(names, reverse=True))


@settings(max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 500), st.integers(1, 25)), min_size=1, max_size=3),
       st.lists(st.sampled_from(("model.layers", "mlp.experts", "w", "x_y")), min_size=3,
                max_size=3))
def test_a_full_grid_is_one_product(sides: list[tuple[int, int]], texts: list[str]) -> None:
    names = {""}
    expected = ""
    for (start, size), text in zip(sides, texts, strict=False):
        names = {f"{name}{text}.{i}." for name in names for i in range(start, start + size)}
        last = start + size - 1
        side = {1: str(start), 2: f"{{{start},{last}}}"}.get(size, f"{{{start}..{last}}}")
        expected += f"{text}.{side}."
    pattern = fold(names)
    assert pattern == expected
    assert "," not in pattern or any(size == 2 for _, size in sides)


def test_deepseek_skeleton_groups_fold_to_short_patterns() -> None:
    plan = json.loads(gzip.decompress(fixture_path("deepseek_v3.hf4").read_bytes()))
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name in plan["param_plan"]:
        groups[group_key(name)].append(name)
    assert sum(map(len, groups.values())) == 15_089
    patterns = {fold(names): names for names in groups.values()}
    assert "model.layers.{3..60}.mlp.experts.{0..255}" in patterns
    for pattern, names in patterns.items():
        assert sorted(expand(pattern)) == sorted(names)
        assert len(pattern) <= max(map(len, names)) + 12, pattern
    whole = fold(plan["param_plan"])
    assert sorted(expand(whole)) == sorted(plan["param_plan"])
    assert len(whole) < 160, whole
    params = fold(plan["frozen_sharded_params"])
    assert sorted(expand(params)) == sorted(plan["frozen_sharded_params"])
    assert len(params) < 200, params


@pytest.mark.parametrize(("names", "pattern"), [
    ([""], ""),
    (["model.norm"], "model.norm"),
    (["", "a"], "{,a}"),
    (["a", "a.b"], "a{,.b}"),
    (["a{1}", "b,c", "d\\e", "x$y", "a..b", "a...b"],
     "{a{{.\\.,.\\.\\.}b,\\{1\\}},b\\,c,d\\\\e,x\\$y}"),
    (["x.3", "x.4"], "x.{3,4}"),
    (["x.3", "x.4", "x.5"], "x.{3..5}"),
    (["x.07", "x.08", "x.09"], "x.{07,08,09}"),
    (["x.0", "x.00", "x.1", "x.2"], "x.{{0..2},00}"),
    ([f"x.{10**18 + i}" for i in range(3)],
     "x.{1000000000000000000,1000000000000000001,1000000000000000002}"),
    (["model.layers.0.mlp", "model.layers.1.mlp", "model.layers.2.mlp",
      "model.layers.3.mlp.shared_experts"],
     "model.layers.{{0..2}.mlp,3.mlp.shared_experts}"),
    (["lm_head", *(f"model.layers.{i}.mlp" for i in range(3, 61))],
     "{lm_head,model.layers.{3..60}.mlp}"),
    ([f"m.{i}.{p}_proj.weight" for i in range(3) for p in ("up", "gate", "down")],
     "m.{0..2}.{down,gate,up}_proj.weight"),
    ([f"m.{e}.experts.w" for e in range(4)] + ["m.shared_experts.w"],
     "m.{{0..3}.experts,shared_experts}.w"),
    (["lm_head", "model.head"], "{lm_head,model.head}"),
    (["a.x.weight", "b.y.weight"], "{a.x,b.y}.weight"),
])
def test_fold_examples(names: list[str], pattern: str) -> None:
    assert fold(names) == pattern
    assert sorted(expand(pattern)) == sorted(set(names))


def test_a_grid_with_one_hole_is_two_products() -> None:
    names = {f"model.layers.{i}.mlp.experts.{e}" for i in range(3, 61) for e in range(256)}
    names.discard("model.layers.10.mlp.experts.5")
    assert fold(names) == ("model.layers.{{{3..9},{11..60}}.mlp.experts.{0..255},"
                           "10.mlp.experts.{{0..4},{6..255}}}")
    assert fold(names, ranges_in_lists=True) == (
        "model.layers.{{3..9,11..60}.mlp.experts.{0..255},10.mlp.experts.{0..4,6..255}}")


def test_fold_refuses_what_it_cannot_name() -> None:
    with pytest.raises(ValueError, match="at least one name"):
        fold([])
    with pytest.raises(TypeError, match="not one string"):
        fold("model.layers.0")
    with pytest.raises(TypeError, match="found int"):
        fold(["a", 3])  # type: ignore[list-item]


def test_names_with_many_numbers_fold_without_deep_recursion() -> None:
    deep = ["x" + ".1" * 2000 + f".{i}" for i in range(5)]
    chain = ["a" + ".b" * i for i in range(600)]
    for names in (deep, chain):
        assert sorted(expand(fold(names))) == sorted(names)


@pytest.mark.parametrize(("pattern", "words"), [
    ("", [""]),
    ("a{b,c}d{e,f}", ["abde", "abdf", "acde", "acdf"]),
    ("{a,b{1..2}}", ["a", "b1", "b2"]),
    ("{1..3,5}", ["1..3", "5"]),
    ("{{1..3},5}", ["1", "2", "3", "5"]),
    ("{5..3}", ["5", "4", "3"]),
    ("{1..10..3}", ["1", "4", "7", "10"]),
    ("{10..1..-3}", ["10", "7", "4", "1"]),
    ("{1..3..0}", ["1", "2", "3"]),
    ("{-2..1}", ["-2", "-1", "0", "1"]),
    ("{07..10}", ["07", "08", "09", "10"]),
    ("{-05..-3}", ["-05", "-04", "-03"]),
    ("{05..-1}", ["05", "04", "03", "02", "01", "00", "-1"]),
    ("{-0..1}", ["0", "1"]),
    ("{+1..2}", ["1", "2"]),
    ("{,}", ["", ""]),
    ("a,b", ["a,b"]),
    ("x\\{a,b\\}", ["x{a,b}"]),
    ("\\$x{a,b}", ["$xa", "$xb"]),
    ("{a\\..\\.b,c}", ["a...b", "c"]),
])
def test_expand_examples(pattern: str, words: list[str]) -> None:
    assert expand(pattern) == words
    assert count(pattern) == len(words)


@pytest.mark.parametrize(("pattern", "message"), [
    ("a{b", "never closed"),
    ("a}b", "closes no group"),
    ("{a}", "no comma and is not a range"),
    ("x{}", "no comma and is not a range"),
    ("{a..c}", "no comma and is not a range"),
    ("{1..2..}", "no comma and is not a range"),
    ("ab\\", "lone backslash"),
    ("${a,b}", "variable"),
    ("{1..99999999999999999999}", "64-bit"),
    ("{1.." + "9" * 5000 + "}", "64-bit"),
])
def test_expand_refuses_what_bash_would_leave_literal(pattern: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        expand(pattern)
    assert "bad brace pattern" in str(info.value)
    with pytest.raises(ValueError, match=message):
        count(pattern)


def test_ranges_in_lists_reads_whole_range_items_only() -> None:
    assert expand("{0..2,5,7..9}", ranges_in_lists=True) == ["0", "1", "2", "5", "7", "8", "9"]
    assert expand("{0..2x,5}", ranges_in_lists=True) == ["0..2x", "5"]
    assert expand("{0.\\.2,5}", ranges_in_lists=True) == ["0..2", "5"]


def _bash_words(patterns: Iterable[str]) -> list[list[str]]:
    """What bash prints for each pattern, one ``printf`` per pattern, in one process."""
    script = "".join(f"printf '%s\\n' {p}; echo '<<end>>'\n" for p in patterns)
    out = subprocess.run([BASH or "bash", "-c", script], capture_output=True, text=True,
                         check=True).stdout
    return [chunk.split("\n")[:-1] for chunk in out.split("<<end>>\n")[:-1]]



@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=40)
@given(st.lists(name_sets(odd=False) | st.sets(st.text(SAFE + "019", min_size=1, max_size=6),
                                               min_size=1, max_size=12),
                min_size=5, max_size=5))
def test_bash_expands_fold_to_the_same_words(sets: list[set[str]]) -> None:
    sets = [{n for n in names if 0 < len(n) < 200} or {"x"} for names in sets]
    patterns = [fold(names) for names in sets]
    for names, pattern, words in zip(sets, patterns, _bash_words(patterns), strict=True):
        assert words == expand(pattern), pattern
        assert set(words) == names


BOUND = st.sampled_from(("0", "1", "2", "7", "10", "-1", "-3", "05", "-02", "010", "+3"))


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=30)
@given(st.lists(st.tuples(BOUND, BOUND, st.sampled_from(("", "..2", "..-3", "..0")),
                          st.sampled_from(("a{x,y}", "", "{p,q{1..2}}"))),
                min_size=5, max_size=5))
def test_bash_expands_ranges_to_the_same_words(ranges: list[tuple[str, str, str, str]]) -> None:
    patterns = [f"{tail}{{{first}..{last}{step}}}.{tail}" for first, last, step, tail in ranges]
    for pattern, words in zip(patterns, _bash_words(patterns), strict=True):
        assert expand(pattern) == words, pattern


@given(st.lists(st.lists(st.integers(0, 10**30), min_size=1, max_size=3), max_size=20))
def test_natural_key_orders_numbers_by_value(rows: list[list[int]]) -> None:
    names = [".".join(f"l{v}" for v in row) for row in rows]
    assert sorted(names, key=natural_key) == [".".join(f"l{v}" for v in row)
                                               for row in sorted(rows)]


@given(st.lists(st.text("a.07" + ODD, max_size=6) | st.integers(4300, 4400).map("9".__mul__)))
def test_natural_key_is_a_total_order_on_any_strings(names: list[str]) -> None:
    ordered = sorted(names, key=natural_key)
    assert sorted(ordered, key=natural_key) == ordered
    assert sorted(reversed(names), key=natural_key) == ordered


@given(name_sets())
def test_group_key_is_the_name_without_its_numbers(names: set[str]) -> None:
    ordered = sorted(names)
    for name in ordered[:30]:
        key = group_key(name)
        assert key == tuple(re.split("[0-9]+", name))
        runs = re.findall("[0-9]+", name)
        assert "".join(k + r for k, r in zip(key, [*runs, ""], strict=True)) == name
        for other in ordered[-30:]:
            same = re.sub("[0-9]+", "0", name) == re.sub("[0-9]+", "0", other)
            assert (group_key(other) == key) == same


@given(name_sets())
def test_fold_first_is_the_fold_and_the_natural_minimum(names: set[str]) -> None:
    assert fold_first(names) == (fold(names), min(names, key=natural_key))
    assert fold_first(names, ranges_in_lists=True)[0] == fold(names, ranges_in_lists=True)


def test_fold_first_past_the_runs_a_skeleton_holds_and_off_the_ascii_way() -> None:
    many = [".".join(map(str, [*range(40), tail])) for tail in (10, 9, 100)]  # 41 runs
    assert fold_first(many)[1] == many[1]
    wide = ["é.20", "é.9", "é.09", "e.10"]  # not ASCII: split name by name
    assert fold_first(wide) == (fold(wide), "e.10")
    assert fold_first(["x.07", "x.7", "y"])[1] == "x.07"  # equal values: the text decides
    with pytest.raises(ValueError, match="fold needs at least one name"):
        fold_first([])
    with pytest.raises(TypeError, match="not one string"):
        fold_first("m.1")


def test_public_names() -> None:
    assert braces.__all__ == ["NaturalKey", "count", "expand", "fold", "fold_first",
                              "group_key", "natural_key"]
