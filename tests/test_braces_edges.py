"""braces at its edges: the module's limits, exact error messages, and cases the grids miss."""

from __future__ import annotations

import string

import pytest

from metaplan.algorithms import braces
from metaplan.algorithms.braces import count, expand, fold, natural_key

BASH_MAX = 2**63 - 1


def _deep(first: str, runs: int) -> list[str]:
    """Three names of ``runs`` digit runs that differ only in the last one (0, 1, 2)."""
    return [first + ".0" * (runs - 1) + f".{i}" for i in range(3)]


@pytest.mark.parametrize("first", ["a", "é"])  # the joined (ASCII) way and the per-name way
def test_the_32nd_digit_run_folds_and_the_33rd_stays_literal(first: str) -> None:
    assert fold(_deep(first, 32)) == first + ".0" * 31 + ".{0..2}"
    assert fold(_deep(first, 33)) == first + ".0" * 32 + ".{0,1,2}"
    assert sorted(expand(fold(_deep(first, 33)))) == _deep(first, 33)


def test_names_with_32_and_33_runs_fold_together() -> None:
    names = [*_deep("a", 32), *_deep("a", 33)]
    assert sorted(expand(fold(names))) == sorted(names)
    assert fold(names) == "a" + ".0" * 31 + ".{0.{0,1,2},{0..2}}"


@pytest.mark.parametrize(("names", "pattern"), [
    (["x\n0", "x\n1", "x\n2"], "x\n{0..2}"),
    (["a\n1", "b2"], "{a\n1,b2}"),  # one newline inside: as many as the joins
    (["a\n\n1", "b"], "{a\n\n1,b}"),  # two newlines inside
    (["a1\x7f2", "a1\x7f3", "a1\x7f4"], "a1\x7f{2..4}"),  # DEL, the last ASCII character
    (["a1\0", "a2\0", "a3\0"], "a{1..3}\0"),
])
def test_newlines_nul_and_del_in_names(names: list[str], pattern: str) -> None:
    assert fold(names) == pattern
    assert sorted(expand(pattern)) == sorted(names)


def test_eighteen_digit_numbers_make_ranges_nineteen_do_not() -> None:
    eighteen = [f"x.{10**17 + i}" for i in range(3)]
    assert fold(eighteen) == "x.{100000000000000000..100000000000000002}"
    nineteen = [f"x.{10**18 + i}" for i in range(3)]
    assert fold(nineteen) == ("x.{1000000000000000000,1000000000000000001,"
                              "1000000000000000002}")


def test_alternatives_with_equal_first_numbers_order_by_their_text() -> None:
    names = ["x.1.b", "x.1.a", "x.2.a"]
    assert fold(names) == fold(names[::-1]) == fold(sorted(names)) == "x.{1.b,{1,2}.a}"


@pytest.mark.parametrize(("names", "pattern"), [
    (["a0", "a1", "a2", "b_c0", "b_c1", "b_c2"], "{a{0..2},b_c{0..2}}"),
    (["a}x", "bb_c}x"], "{a\\}x,bb_c\\}x}"),
    (["a.0", "a.1", "a.2", "bb_c.0", "bb_c.1", "bb_c.2"], "{a,bb_c}.{0..2}"),
])
def test_a_shared_suffix_is_cut_at_a_separator_not_a_brace(names: list[str],
                                                          pattern: str) -> None:
    assert fold(names) == pattern
    assert sorted(expand(pattern)) == sorted(names)


@pytest.mark.parametrize(("name", "key"), [
    ("a1b", ("a", (1, "1", "1"), "b")),
    ("a07", ("a", (1, "7", "07"), "")),
    ("a1b2c3d", ("a", (1, "1", "1"), "b", (1, "2", "2"), "c", (1, "3", "3"), "d")),
    ("00", ("", (0, "", "00"), "")),
])
def test_natural_key_exactly(name: str, key: braces.NaturalKey) -> None:
    assert natural_key(name) == key


def test_natural_key_compares_text_as_text() -> None:
    assert sorted(["x1b", "x1ab"], key=natural_key) == ["x1ab", "x1b"]


@pytest.mark.parametrize(("low", "high"), [
    (BASH_MAX - 1, BASH_MAX),
    (-BASH_MAX, -BASH_MAX + 1),
])
def test_range_bounds_up_to_bash_max_expand(low: int, high: int) -> None:
    assert expand(f"{{{low}..{high}}}") == [str(low), str(high)]
    assert count(f"x{{{high}..{low}}}") == 2


@pytest.mark.parametrize("bound", [str(BASH_MAX + 1), str(-BASH_MAX - 1), "9" * 19,
                                   "1" + "0" * 19])
def test_range_bounds_past_bash_max_are_refused(bound: str) -> None:
    pattern = f"{{1..{bound}}}"
    message = (f"bad brace pattern {pattern!r} at character 0: the range bound {bound} is past "
               "bash's 64-bit integers")
    with pytest.raises(ValueError) as info:
        count(pattern)
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        expand(f"{{{bound}..1..{bound}}}")
    assert "past bash's 64-bit integers" in str(info.value)


def test_leading_zeros_do_not_count_toward_the_64_bit_limit() -> None:
    zeros = "0" * 20
    assert expand(f"{{{zeros}1..2}}") == [zeros + "1", zeros + "2"]
    assert expand(f"{{1..-{zeros}1}}") == [f"{v:0{len(zeros) + 2}d}" for v in (1, 0, -1)]


@pytest.mark.parametrize(("pattern", "message"), [
    ("a{b{c", "bad brace pattern 'a{b{c' at character 3: this '{' is never closed (escape a "
              "literal one as \\{)"),
    ("{a}", "bad brace pattern '{a}': the group '{a}' at 0 has no comma and is not a range "
            "(escape literal braces as \\{ and \\})"),
    ("x,{y}", "bad brace pattern 'x,{y}': the group '{y}' at 2 has no comma and is not a range "
              "(escape literal braces as \\{ and \\})"),
    ("a}b", "bad brace pattern 'a}b' at character 1: this '}' closes no group (escape a "
            "literal one as \\})"),
    ("ab\\", "bad brace pattern 'ab\\\\' at character 2: a lone backslash ends it (write \\\\ "
             "for one)"),
    ("x${a,b}", "bad brace pattern 'x${a,b}' at character 1: bash reads '${' as a variable; "
                "escape it as \\$"),
])
def test_expand_error_messages_exactly(pattern: str, message: str) -> None:
    for evaluate in (expand, count):
        with pytest.raises(ValueError) as info:
            evaluate(pattern)
        assert str(info.value) == message


TEXT = (string.ascii_letters + string.digits) * 2


@pytest.mark.parametrize("length", [79, 80])
def test_patterns_of_80_characters_are_shown_whole(length: int) -> None:
    pattern = TEXT[:length - 1] + "}"
    with pytest.raises(ValueError) as info:
        expand(pattern)
    assert str(info.value) == (f"bad brace pattern {pattern!r} at character {length - 1}: this "
                               "'}' closes no group (escape a literal one as \\})")


@pytest.mark.parametrize("length", [81, 100])
def test_longer_patterns_are_cut_to_77_characters(length: int) -> None:
    pattern = TEXT[:length - 1] + "}"
    with pytest.raises(ValueError) as info:
        expand(pattern)
    shown = TEXT[:77] + "..."
    assert str(info.value) == (f"bad brace pattern {shown!r} at character {length - 1}: this "
                               "'}' closes no group (escape a literal one as \\})")


@pytest.mark.parametrize("pattern", [3, None, b"{a,b}"])
def test_expand_and_count_refuse_what_is_not_a_str(pattern: object) -> None:
    message = f"a brace pattern is a str, found {type(pattern).__name__}"
    for evaluate in (expand, count):
        with pytest.raises(TypeError) as info:
            evaluate(pattern)  # type: ignore[arg-type]
        assert str(info.value) == message


@pytest.mark.parametrize(("method", "args"), [
    ("unit", ()), ("text", ("a",)), ("span", (range(2), 0)), ("join", (1, 2)),
    ("union", ([1, 2],)),
])
def test_the_algebra_base_implements_nothing(method: str, args: tuple[object, ...]) -> None:
    algebra: braces._Algebra[int] = braces._Algebra()
    with pytest.raises(NotImplementedError):
        getattr(algebra, method)(*args)
