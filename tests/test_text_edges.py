"""The text views at their edges, pinned where a mutation run of ``views/text.py`` found
gaps: where a change is filed (module, label), which names a heading quotes, counts and
plurals, the ``limit`` of a diff, hand-made folded groups, flat lines, conflicts' three
values, findings, explanations and the stats table."""

from __future__ import annotations

from typing import Any

import pytest

from metaplan.core.plan import Plan
from metaplan.frozen import MISSING
from metaplan.passes.trace import Trace
from metaplan.records.change import Change, ChangeRecord
from metaplan.versions.folding import Finding, Group, Line, Values
from metaplan.versions.merging import Conflict
from metaplan.views.labels import TextStyle
from metaplan.views.text import (
    change_line,
    finding_line,
    format_conflicts,
    format_diff,
    format_explain,
    format_flat,
    format_folded,
    format_stats,
    group_lines,
    plural,
    printable,
    values_text,
)

NAMED = TextStyle(injections={0: "m.a", 1: "m.b"})


def _record(*changes: Change) -> ChangeRecord:
    return ChangeRecord("p", "h0", "h1", changes)


# where a change is filed -------------------------------------------------------------


def test_a_diff_files_each_change_under_its_module_or_the_top_level() -> None:
    record = _record(
        Change("set", ("param_plan", "m", "w", 0), 1, 2),
        Change("add", ("param_plan", "n"), None, {}),
        Change("remove", ("boundary_classes", "m"), "MLP"),
        Change("set", ("injections", 0), 3, 4),
        Change("set", ("param_plan",), {}, {"k": 1}),
        Change("set", ("model_type",), "x", "y"))
    assert format_diff(record) == (
        "6 changes: 2 modules (3 changes), 3 top-level changes\n"
        "(top level)\n"
        "  ~ injections[0]: 3 -> 4\n"
        "  ~ param_plan: {} -> {\"k\":1}\n"
        "  ~ model_type: \"x\" -> \"y\"\n"
        "m\n"
        "  ~ w[0]: 1 -> 2\n"
        "  - class: \"MLP\"\n"
        "n\n"
        "  + entry: {}\n")


def test_a_class_change_comes_after_the_entry_changes_of_its_module() -> None:
    record = _record(Change("set", ("boundary_classes", "m"), "A", "B"),
                     Change("set", ("param_plan", "m", "is_boundary"), True, False))
    assert format_diff(record).splitlines()[2:] == [
        "  ~ is_boundary: true -> false", "  ~ class: \"A\" -> \"B\""]


def test_a_module_name_is_the_fqn_itself() -> None:
    record = _record(Change("set", ("param_plan", "boundary_classes", "x"), 1, 2))
    assert format_diff(record).splitlines()[1:] == ["boundary_classes", "  ~ x: 1 -> 2"]


# one change ----------------------------------------------------------------------------


def test_a_change_line_without_a_label_joins_its_path_with_slashes() -> None:
    assert change_line(Change("set", ("a", 1, "b"), 1, 2)) == "~ a/1/b: 1 -> 2"
    assert change_line(Change("set", ("a", 1, "b"), 1, 2), "lab") == "~ lab: 1 -> 2"
    assert change_line(Change("set", ("a",), 1, 2), "") == "~ : 1 -> 2"


@pytest.mark.parametrize(("op", "line"), [
    ("add", "+ injections/0/ep_size: 2  (match: m.a)"),
    ("remove", "- injections/0/ep_size: 1  (match: m.a)"),
    ("set", "~ injections/0/ep_size: 1 -> 2  (match: m.a)"),
])
def test_each_op_shows_its_side_and_names_the_injection(op: str, line: str) -> None:
    assert change_line(Change(op, ("injections", 0, "ep_size"), 1, 2), style=NAMED) == line


# headings ------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "shown"), [
    ("m.layers.3", "m.layers.3"),
    ("a\x1bb", '"a\\u001bb"'),  # not printable, and nothing the pattern sees
    ("a b", '"a b"'),
    ("", '""'),
    ("-x", '"-x"'),
    ("m{a}", '"m{a}"'),
    ("m,a", '"m,a"'),
    ("m\\a", '"m\\\\a"'),
    ("m(a)", '"m(a)"'),
])
def test_a_module_heading_quotes_what_could_read_as_report_syntax(name: str,
                                                                  shown: str) -> None:
    assert printable(name) == shown
    assert printable(name, pattern=False) == shown


@pytest.mark.parametrize(("pattern", "shown"), [
    ("m.{a,b}", "m.{a,b}"),
    ("m.{1..3}", "m.{1..3}"),
    ("m(a)", '"m(a)"'),
    ("a\x1bb", '"a\\u001bb"'),
    ("", '""'),
])
def test_a_pattern_heading_keeps_its_braces_and_commas(pattern: str, shown: str) -> None:
    assert printable(pattern, pattern=True) == shown


def test_plural() -> None:
    assert [plural(n, "change") for n in (0, 1, 2, 1234)] == [
        "0 changes", "1 change", "2 changes", "1,234 changes"]


# limit ---------------------------------------------------------------------------------


def _modules(count: int) -> ChangeRecord:
    return _record(*(Change("set", ("param_plan", f"m.{i}", "x"), 1, 2)
                     for i in range(count, 0, -1)))


def test_a_limit_shows_the_first_modules_and_counts_the_rest() -> None:
    assert format_diff(_modules(3), limit=1) == (
        "3 changes: 3 modules (3 changes), 0 top-level changes\n"
        "m.1\n  ~ x: 1 -> 2\n"
        "... and 2 more modules\n")
    assert format_diff(_modules(3), limit=2).splitlines()[-1] == "... and 1 more module"


def test_a_limit_as_big_as_the_modules_adds_no_more_line() -> None:
    shown = "m.1\n  ~ x: 1 -> 2\nm.2\n  ~ x: 1 -> 2\n"
    head = "2 changes: 2 modules (2 changes), 0 top-level changes\n"
    assert format_diff(_modules(2), limit=2) == head + shown
    assert format_diff(_modules(2), limit=5) == head + shown
    assert format_diff(_modules(2)) == head + shown


def test_a_limit_of_zero_shows_no_module() -> None:
    assert format_diff(_modules(1), limit=0).splitlines()[1:] == ["... and 1 more module"]


def test_an_empty_record() -> None:
    assert format_diff(_record()) == "0 changes: 0 modules (0 changes), 0 top-level changes\n"
    assert format_folded(_record()) == "0 changes: 0 modules in 0 groups, 0 top-level changes\n"


# folded values and groups --------------------------------------------------------------


def test_values_text() -> None:
    assert values_text(None) == ""
    assert values_text(None, NAMED) == ""
    assert values_text(Values(1, "x" * 90)) == '"' + "x" * 76 + "..."
    assert values_text(Values(1, "x" * 90), TextStyle(width=5)) == '"x...'
    assert values_text(Values(1, None)) == "null"
    assert values_text(Values(2, None)) == "(2 distinct values)"
    assert values_text(Values(0, None)) == "(0 distinct values)"


def _line(op: str, label: str = "k") -> Line:
    return Line("param_plan", label, op, None if op == "add" else Values(1, 1),
                None if op == "remove" else Values(2, None))


@pytest.mark.parametrize(("op", "text"), [
    ("add", "+ k: (2 distinct values)"),
    ("remove", "- k: 1"),
    ("set", "~ k: 1 -> (2 distinct values)"),
])
def test_a_module_group_line_for_each_op(op: str, text: str) -> None:
    group = Group("modules", "", "injections[{0,1}]", ("a", "b"), 2, (_line(op),))
    assert group_lines(group, style=NAMED) == [text]


def test_items_groups_take_their_sign_from_the_first_line() -> None:
    add = Group("items", "external_state_classes", "{A,B}", ("A", "B"), 2,
                (_line("add"), _line("remove")))
    remove = Group("items", "x", "A", ("A",), 1, (_line("remove"), _line("add")))
    assert group_lines(add) == ["+ external_state_classes items: {A,B}  (2 items)"]
    assert group_lines(remove) == ["- x items: A  (1 item)"]


def test_paths_groups_count_their_changes_and_name_their_injections() -> None:
    one = Group("paths", "injections", "injections[0].ep_size", (), 1, (_line("set"),))
    two = Group("paths", "injections", "injections[{0,1}].ep_size", (), 2,
                (_line("set"), _line("remove", "j")))
    assert group_lines(one) == ["~ k: 1 -> (2 distinct values)"]
    assert group_lines(one, style=NAMED) == ["~ k: 1 -> (2 distinct values)  (match: m.a)"]
    assert group_lines(two, style=NAMED) == [
        "~ k: 1 -> (2 distinct values)  (2 changes)  (match: m.{a,b})",
        "- j: 1  (2 changes)  (match: m.{a,b})"]


def test_a_folded_record_counts_modules_groups_and_top_level_changes() -> None:
    record = _record(
        Change("set", ("param_plan", "m.1", "x"), 1, 2),
        Change("set", ("param_plan", "m.2", "x"), 1, 2),
        Change("set", ("param_plan", "n", "x"), 5, 6),
        Change("set", ("injections", 0, "ep_size"), 1, 2),
        Change("set", ("injections", 1, "ep_size"), 1, 2),
        Change("set", ("model_type",), "a", "b"))
    assert format_folded(record, style=NAMED) == (
        "6 changes: 3 modules in 2 groups, 3 top-level changes\n"
        "(top level)\n"
        "  ~ injections[{0,1}].ep_size: 1 -> 2  (2 changes)  (match: m.{a,b})\n"
        "  ~ model_type: \"a\" -> \"b\"\n"
        "m.{1,2}  (2 modules)\n"
        "  ~ x: 1 -> 2\n"
        "n\n"
        "  ~ x: 5 -> 6\n")


def test_a_folded_record_without_top_level_changes_has_no_top_heading() -> None:
    assert format_folded(_modules(1)) == (
        "1 change: 1 module in 1 group, 0 top-level changes\nm.1\n  ~ x: 1 -> 2\n")


def test_format_folded_shows_the_groups_it_is_given() -> None:
    groups = [Group("modules", "", "q.{1..3}", ("q.1", "q.2", "q.3"), 3, (_line("remove"),)),
              Group("paths", "t", "t", (), 1, (_line("add", "t"),))]
    assert format_folded(_modules(1), groups) == (
        "1 change: 3 modules in 1 group, 1 top-level change\n"
        "(top level)\n"
        "  + t: (2 distinct values)\n"
        "q.{1..3}  (3 modules)\n"
        "  - k: 1\n")
    assert format_folded(_modules(1), []) == (
        "1 change: 0 modules in 0 groups, 0 top-level changes\n")


# flat lines ----------------------------------------------------------------------------


def test_format_flat_lists_every_leaf_in_natural_order() -> None:
    plan = Plan.from_json({
        "model_type": "x",
        "boundary_classes": {},
        "extra": {"a b": [], "c": {}, "d": [1, {"e": 2}], "f": None, "g": "", "h": 0},
        "param_plan": {"m.10": {}, "m.2": {"p": [1, [2]], "q r": "s"}, "3": 1}})
    assert format_flat(plan) == (
        "boundary_classes = {}\n"
        'extra["a b"] = []\n'
        "extra.c = {}\n"
        "extra.d[0] = 1\n"
        "extra.d[1].e = 2\n"
        "extra.f = null\n"
        'extra.g = ""\n'
        "extra.h = 0\n"
        'model_type = "x"\n'
        'param_plan["3"] = 1\n'
        'param_plan["m.2"].p[0] = 1\n'
        'param_plan["m.2"].p[1][0] = 2\n'
        'param_plan["m.2"]["q r"] = "s"\n'
        'param_plan["m.10"] = {}\n')


def test_format_flat_quotes_every_module_and_repeats_shared_entries() -> None:
    entry = {"is_boundary": True}
    plan = Plan.from_json({"param_plan": {"a": entry, "b": entry, "c": {"is_boundary": 1}},
                           "a_plain": "v"})
    assert format_flat(plan) == (
        'a_plain = "v"\n'
        'param_plan["a"].is_boundary = true\n'
        'param_plan["b"].is_boundary = true\n'
        'param_plan["c"].is_boundary = 1\n')


def test_format_flat_of_an_empty_plan() -> None:
    assert format_flat(Plan.from_json({})) == ""
    assert format_flat(Plan.from_json({"param_plan": {}, "boundary_classes": {"m": "A"}})) \
        == 'boundary_classes["m"] = "A"\nparam_plan = {}\n'


# conflicts -----------------------------------------------------------------------------


def test_conflicts_of_modules_alike_fold_into_one_place() -> None:
    conflicts = [Conflict(("param_plan", f"m.{i}", "x"), 1, 2, 3) for i in (1, 2, 3)]
    conflicts += [Conflict(("param_plan", "n", "y"), 1, 2, 3),
                  Conflict(("param_plan", "m.4", "x"), 1, 2, 4)]
    assert format_conflicts(conflicts) == (
        "5 conflicts\n"
        '  param_plan["m.{1..3}"].x: base 1, ours 2, theirs 3  (3 modules)\n'
        '  param_plan["n"].y: base 1, ours 2, theirs 3\n'
        '  param_plan["m.4"].x: base 1, ours 2, theirs 4\n')


def test_conflicts_at_whole_entries_and_classes() -> None:
    conflicts = [Conflict(("param_plan", "a"), 1, 2, 3), Conflict(("param_plan", "b"), 1, 2, 3),
                 Conflict(("boundary_classes", "a"), 1, 2, 3),
                 Conflict(("boundary_classes", "c"), MISSING, "A", "B")]
    assert format_conflicts(conflicts) == (
        "4 conflicts\n"
        '  param_plan["{a,b}"]: base 1, ours 2, theirs 3  (2 modules)\n'
        '  boundary_classes["a"]: base 1, ours 2, theirs 3\n'
        '  boundary_classes["c"]: base (absent), ours "A", theirs "B"\n')


def test_top_level_conflicts_stand_alone_and_name_their_injection() -> None:
    conflicts = [Conflict(("injections", 0), MISSING, 1, 2),
                 Conflict(("injections", 1), MISSING, 1, 2),
                 Conflict(("param_plan",), 1, 2, 3),
                 Conflict(("model_type",), "a", MISSING, "b")]
    assert format_conflicts(conflicts, style=NAMED) == (
        "4 conflicts\n"
        "  injections[0]: base (absent), ours 1, theirs 2  (match: m.a)\n"
        "  injections[1]: base (absent), ours 1, theirs 2  (match: m.b)\n"
        "  param_plan: base 1, ours 2, theirs 3\n"
        '  model_type: base "a", ours (absent), theirs "b"\n')


def test_an_absent_value_is_not_any_value() -> None:
    conflicts = [Conflict(("param_plan", "a", "x"), MISSING, 1, 2),
                 Conflict(("param_plan", "b", "x"), None, 1, 2),
                 Conflict(("param_plan", "c", "x"), MISSING, 1, 2)]
    assert format_conflicts(conflicts).splitlines()[1:] == [
        '  param_plan["{a,c}"].x: base (absent), ours 1, theirs 2  (2 modules)',
        '  param_plan["b"].x: base null, ours 1, theirs 2']


def test_an_absent_value_is_not_the_string_missing() -> None:
    conflicts = [Conflict(("param_plan", "a", "x"), MISSING, 1, 2),
                 Conflict(("param_plan", "b", "x"), "missing", 1, 2)]
    assert format_conflicts(conflicts).splitlines()[1:] == [
        '  param_plan["a"].x: base (absent), ours 1, theirs 2',
        '  param_plan["b"].x: base "missing", ours 1, theirs 2']


def test_no_conflicts() -> None:
    assert format_conflicts([]) == "0 conflicts\n"


@pytest.mark.parametrize(("size", "shown"), [
    (58, '"' + "x" * 58 + '"'),  # 60 characters: as it is
    (59, '"' + "x" * 56 + "..."),  # 61: cut at 60
])
def test_a_conflict_cuts_its_values_at_60(size: int, shown: str) -> None:
    text = format_conflicts([Conflict(("x",), 1, 2, "x" * size)])
    assert text.splitlines()[1] == f"  x: base 1, ours 2, theirs {shown}"
    wide = format_conflicts([Conflict(("x",), 1, 2, "x" * size)], style=TextStyle(width=4))
    assert wide.splitlines()[1] == '  x: base 1, ours 2, theirs "...'


def _clash(base: Any, ours: Any, theirs: Any) -> str:
    return format_conflicts([Conflict(("x",), base, ours, theirs)]).splitlines()[1]


def test_objects_show_only_the_keys_where_the_sides_differ() -> None:
    assert _clash({"a": 0, "s": 9}, {"a": 1, "b": 2, "s": 9}, {"a": 3, "s": 9}) == (
        "  x: the sides differ at a: base 0, ours 1, theirs 3; "
        "b: base (absent), ours 2, theirs (absent)")
    assert _clash(5, {"a": 1}, {"a": 2}) == (
        "  x: the sides differ at a: base (absent), ours 1, theirs 2")
    assert _clash(MISSING, {"a": 1}, {"a": 2}) == (
        "  x: the sides differ at a: base (absent), ours 1, theirs 2")


@pytest.mark.parametrize(("count", "more"), [
    (3, ""), (4, "; and 1 more key"), (5, "; and 2 more keys")])
def test_objects_show_three_differing_keys_at_most(count: int, more: str) -> None:
    ours = {f"k{i}": 1 for i in range(count)}
    theirs = {f"k{i}": 2 for i in range(count)}
    shown = "; ".join(f"k{i}: base (absent), ours 1, theirs 2" for i in range(3))
    assert _clash({}, ours, theirs) == f"  x: the sides differ at {shown}{more}"


def test_an_object_against_a_scalar_shows_the_three_values() -> None:
    assert _clash({"a": 1}, {"a": 2}, 3) == '  x: base {"a":1}, ours {"a":2}, theirs 3'
    assert _clash({"a": 1}, 3, {"a": 2}) == '  x: base {"a":1}, ours 3, theirs {"a":2}'
    assert _clash({"a": 1}, 2, 3) == '  x: base {"a":1}, ours 2, theirs 3'
    assert _clash(1, {"a": 1}, MISSING) == '  x: base 1, ours {"a":1}, theirs (absent)'
    assert _clash({"a": 1}, 2, MISSING) == '  x: base {"a":1}, ours 2, theirs (absent)'
    assert _clash({"a": 1}, MISSING, MISSING) == (
        '  x: base {"a":1}, ours (absent), theirs (absent)')


def test_a_removed_object_shows_what_the_other_side_changed() -> None:
    assert _clash({"a": 1, "b": 2, "s": 0}, {"a": 3, "c": 4, "s": 0}, MISSING) == (
        "  x: theirs removed it; ours changed a (1 -> 3), b (2 -> (absent)), "
        "c ((absent) -> 4)")
    assert _clash({"a": 1}, MISSING, {"a": 2}) == (
        "  x: ours removed it; theirs changed a (1 -> 2)")


@pytest.mark.parametrize(("count", "more"), [(3, ""), (4, ", and 1 more"), (5, ", and 2 more")])
def test_a_removed_object_shows_three_changed_keys_at_most(count: int, more: str) -> None:
    kept = {f"k{i}": 1 for i in range(count)}
    shown = ", ".join(f"k{i} ((absent) -> 1)" for i in range(3))
    assert _clash({}, MISSING, kept) == f"  x: ours removed it; theirs changed {shown}{more}"


# findings ------------------------------------------------------------------------------


def test_finding_line() -> None:
    one = Finding("c", 'param_plan["m"]', "bad", ("m",))
    two = Finding("c", 'param_plan["m.{1,2}"]', "bad", ("m.1", "m.2"))
    none = Finding("c", "model_type", "bad", ())
    assert finding_line(one) == 'c: param_plan["m"]: bad'
    assert finding_line(one, note=False) == 'c: param_plan["m"]: bad'
    assert finding_line(one, note=True) == 'note: c: param_plan["m"]: bad'
    assert finding_line(two) == 'c: param_plan["m.{1,2}"]: bad  (2 modules)'
    assert finding_line(none) == "c: model_type: bad"


# a trace's explanation and stats ------------------------------------------------------


def _trace(seconds: tuple[float, ...] | None = (0.001, 0.0025), *,
           whole: bool = True) -> Trace:
    """Two passes; ``whole``: the first also replaces the whole ``param_plan``."""
    plan = Plan.from_json({"param_plan": {}})
    first = ChangeRecord("first", plan, plan, (
        Change("set", ("param_plan", "m.1", "x"), 1, 2, "why one"),
        Change("set", ("param_plan", "m.1", "y"), 1, 2, "why two"),
        Change("add", ("boundary_classes", "m.2"), None, "A", "why three"),
        Change("set", ("model_type",), "a", "b", "why four"),
        Change("set", ("injections", 0), 1, 2, "why five"),
        *([Change("set", ("param_plan",), {}, {}, "why six")] if whole else [])))
    second = ChangeRecord("a_long_pass_name", plan, plan, (
        Change("remove", ("param_plan", "m.1", "x"), 2, None, "why seven"),
        Change("set", ("param_plan", "m.3", "z"), 1, 2, "why eight")))
    if seconds is None:
        return Trace(("first", "a_long_pass_name"), (plan, plan, plan), (first, second))
    return Trace(("first", "a_long_pass_name"), (plan, plan, plan), (first, second), seconds)


def test_format_explain_numbers_each_change_to_a_module_with_its_why() -> None:
    assert format_explain(_trace(whole=False), ["m.2", "m 4"]) == (
        "m.2\n"
        '  1. first: + class: "A"\n'
        "     why: why three\n"
        '"m 4": no pass changes it\n')


def test_format_explain_lists_entry_changes_of_every_pass() -> None:
    assert format_explain(_trace(), ["m.3"]) == (
        "m.3\n"
        "  1. first: ~ param_plan: {} -> {}\n"
        "     why: why six\n"
        "  2. a_long_pass_name: ~ z: 1 -> 2\n"
        "     why: why eight\n")
    assert format_explain(_trace(), []) == "\n"


def test_format_stats_counts_changes_and_modules_per_pass() -> None:
    assert format_stats(_trace(), [("dump", 0.001), ("load", 0.0005), ("dump", 0.002)]) == (
        "pass               changes   modules        ms\n"
        "first                    6         2       1.0\n"
        "a_long_pass_name         2         2       2.5\n"
        "dump                                       3.0\n"
        "load                                       0.5\n"
        "total                    8                 7.0\n")


def test_format_stats_of_a_trace_without_times() -> None:
    assert format_stats(_trace(None)) == (
        "pass    changes   modules        ms\n"
        "total         8                 0.0\n")
