"""streaming at its edges: each unusual text read, or refused, as ``parse_json`` does it, by both
readers, with the equal entries shared and nothing handed over that need not be."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest

import metaplan
import metaplan.files.streaming as streaming
from conftest import typed_numbers
from metaplan.files.jsonio import parse_json
from metaplan.files.streaming import parse_plan_text

_BASE = ('{"boundary_classes": {"m.a": "A", "m.b": "B"}, "model_type": "t", '
         '"param_plan": {"m.a.w": {"k": 1, "s": "x"}, "m.b.w": {"k": 1, "s": "x"}, '
         '"m.c.w": {"k": 2}}}')
_DEEP = "[" * 252 + "]" * 252  # 252 levels: an FQN map's entry at the limit


def _in_plan(entries: str) -> str:
    return _BASE.replace('"param_plan": {', '"param_plan": {' + entries + ", ", 1)


def _in_classes(entries: str) -> str:
    return _BASE.replace('"boundary_classes": {', '"boundary_classes": {' + entries + ", ", 1)


def _on_top(members: str) -> str:
    return "{" + members + ", " + _BASE[1:]


_CASES: dict[str, str] = {
    "plain": _BASE,
    "empty": "{}",
    "empty maps": '{"param_plan": {}, "boundary_classes": {}}',
    "empty, spaced": ' \t\n{ \r\n } \n',
    "no maps": '{"x": 1, "y": [1, 2], "z": {"a": "b"}}',
    "spaced": _BASE.replace(": ", " \t:\n ").replace(", ", " \r\n, \t"),
    "compact": _BASE.replace(": ", ":").replace(", ", ","),
    "escaped colon, repeated key": _in_plan('"x": {"a": 1, "a": 2, "s": "\\u003a"}'),
    "escaped colon, upper case": _in_plan('"x": {"a": 1, "a": 2, "s": "\\u003A"}'),
    "escaped colon in a key": _in_plan('"a\\u003ab": {"k": 1}'),
    "escaped colon on top": _on_top('"a": 1, "a": 2, "s\\u003a": "\\u003A"'),
    "an escape, no colon": _in_plan('"x": {"a": 1, "a": 2, "s": "\\u0041\\n"}'),
    "repeated key on top": _on_top('"q": 1, "q": 2'),
    "repeated map": _on_top('"param_plan": {}'),
    "repeated fqn": _in_plan('"m.c.w": {"k": 3}'),
    "repeated key in an entry": _in_plan('"x": {"a": 1, "a": 1}'),
    "repeated key in a list entry": _in_plan('"x": [{"a": 1, "a": 1}]'),
    "repeated key deep in an entry": _in_plan('"x": {"a": {"b": 1, "b": 1}}, "y": {"a": {"b": 1}}'),
    "repeated class": _in_classes('"m.a": "C"'),
    "repeated key in a class list": _in_classes('"x": [{"a": 1, "a": 2}]'),
    "surrogate fqn": _in_plan('"x\\ud800": {"k": 1}'),
    "surrogate fqn, ascii entry": _in_plan('"x\\ud800": "s"'),
    "surrogate class key": _in_classes('"x\\ud800": "C"'),
    "surrogate class key, then non-ascii": _in_classes('"\\u00e9": "C", "x\\ud800": "C"'),
    "surrogate top key": _on_top('"x\\ud800": 1'),
    "surrogate in an entry": _in_plan('"x": {"a": "\\ud800"}'),
    "surrogate string entry": _in_plan('"x": "\\ud800"'),
    "surrogate class": _in_classes('"x": "\\ud800"'),
    "surrogate on top": _on_top('"x": ["\\ud800"]'),
    "unicode": _in_plan('"m\u00e9": {"a": "\u00e9:"}, "m\u00e8": "x:y", "\u4e2d": "\u00e9"'),
    "unicode classes": _in_classes('"\u00e9.a": "\u00e9", "\u00e9.b": "\u00e9"'),
    "float entry": _in_plan('"x": {"k": 1.5}, "y": {"k": 1.5}, "z": {"k": 1.50}'),
    "float list entry": _in_plan('"x": [2.5], "y": {"k": [1, [2.0]]}'),
    "float in an entry's dict": _in_plan('"x": {"a": {"b": 1.5}}'),
    "float in an entry's list of strings": _in_plan('"x": {"a": ["s", 1.5]}'),
    "float class": _in_classes('"x": 2.5'),
    "float class list": _in_classes('"x": ["A", 2.5]'),
    "float class dict": _in_classes('"x": {"a": 2.5}'),
    "float on top": _on_top('"x": 2.5'),
    "float on top, in a list": _on_top('"x": ["a", [1.0]]'),
    "float on top, in a dict": _on_top('"x": {"a": "b", "c": {"d": 1e2}}'),
    "floats in strings only": _on_top('"x": ["1.5", "2.5"], "y": {"a": "1.5"}'),
    "NaN": _in_plan('"x": {"a": NaN}'),
    "Infinity on top": _on_top('"x": -Infinity'),
    "huge float": _in_plan('"x": {"a": 1e400}'),
    "huge float on top": _on_top('"x": [1e400]'),
    "huge float class": _in_classes('"x": 1e400'),
    "huge int": _in_plan('"x": 123456789012345678901234'),
    "huge int in an entry": _in_plan('"x": {"a": [18446744073709551616]}'),
    "huge int on top": _on_top('"x": 18446744073709551616'),
    "64-bit ints": _in_plan('"x": {"i": 9223372036854775807, "j": -9223372036854775808, '
                            '"u": 18446744073709551615}'),
    "at the limit": _in_plan(f'"x": {_DEEP}, "y": {{"a": {"[" * 251 + "]" * 251}}}'),
    "past the limit": _in_plan(f'"x": [{_DEEP}]'),
    "past the limit, a dict": _in_plan(f'"y": {{"a": {"[" * 252 + "]" * 252}}}'),
    "past the limit, twice": _in_plan(f'"x": {{"a": {_DEEP}}}, "y": {{"a": {_DEEP}}}'),
    "class at the limit": _in_classes(f'"x": {_DEEP}'),
    "class past the limit": _in_classes(f'"x": [{_DEEP}]'),
    "top at the limit": _on_top('"x": ' + "[" * 253 + "]" * 253),
    "top past the limit": _on_top('"x": ' + "[" * 254 + "]" * 254),
    "map not an object": '{"param_plan": [], "boundary_classes": "x"}',
    "map of lists": '{"param_plan": {"a": [1], "b": [1], "c": [{"k": 1}]}}',
    "not an object": "[" + _BASE + "]",
    "a number": "12",
    "a string": '"param_plan"',
    "empty text": "",
    "spaces": " \n",
    "text after": _BASE + " x",
    "two documents": _BASE + _BASE,
    "cut short": _BASE[: len(_BASE) // 2],
    "cut after a key": '{"param_plan": {"a"',
    "cut after a colon": '{"param_plan": {"a": ',
    "cut in the map": '{"param_plan": {"a": 1',
    "cut after the map": '{"param_plan": {"a": 1}',
    "cut after a top key": '{"x"',
    "cut after a top value": '{"x": 1',
    "cut after a comma": '{"x": 1, ',
    "key not a string": '{1: 2}',
    "fqn not a string": '{"param_plan": {1: 2}}',
    "fqn after a comma not a string": '{"param_plan": {"a": 1, 2: 3}}',
    "no colon on top": '{"x" 1}',
    "no colon in the map": '{"param_plan": {"a" 1}}',
    "no comma on top": '{"x": 1 "y": 2}',
    "no comma in the map": '{"param_plan": {"a": 1 "b": 2}}',
    "trailing comma on top": '{"x": 1,}',
    "trailing comma in the map": '{"param_plan": {"a": 1,}}',
    "bad value in the map": '{"param_plan": {"a": tru}}',
    "bad value on top": '{"x": tru}',
    "byte order mark": "\ufeff" + _BASE,
    "byte order mark, float": "\ufeff" + _in_plan('"x": {"k": 1.5}'),
    "byte order mark, repeated key": "\ufeff" + _on_top('"q": 1, "q": 2'),
    "control character": _in_plan('"x": "a\tb"'),
    "escaped quote": _in_plan('"s": "a\\"b", "t\\"": {"k": "\\\\"}'),
    "colons in strings": _in_plan('"x": {"a": "b:c::d"}, "y": {"a": "b:c::d"}, "z": "e:f"'),
    "colons in keys": _in_plan('"x": {"a": "b:c::d"}, "y:z": {"a": "b:c::d"}'),
    "colons in classes": _in_classes('"x": "a:b", "z": ["c:d", {"e": "f:g"}]'),
    "colons in class keys": _in_classes('"x:y": "a:b", "z": ["c:d", {"e": "f:g"}]'),
    "spaces in entries": _in_plan('"x": { "a" : [ 1 , { "b" : null } ] }'),
    "null true false": _in_plan('"x": null, "y": true, "z": false, "w": {"a": null}'),
    "not an object, then members": '["x": 1}',
    "not an object, then a map": '["param_plan": {}}',
    "empty, then text": "{}x",
    "empty, then a brace": "{}}",
    "a member, then text": '{"x": 1}x',
    "a member, then a brace": '{"x": 1}}',
    "a key without its opening quote": '{x": 1}',
    "a later key without its opening quote": '{"a": 1, b": 2}',
    "a map's key without its opening quote": '{"param_plan": {x": {}}}',
    "a tab in a top key": '{"a\tb": 1}',
    "a tab in an fqn": '{"param_plan": {"a\tb": {}}}',
    "a tab in a class": '{"boundary_classes": {"a": "A\tB"}}',
    "a newline in a top value": '{"x": "a\nb"}',
    "no colon, then a value": '{"x" 1, "y": 2}',
    "no colon, then a map": '{"param_plan" {}}',
    "no colon, a character instead": '{"x"X1}',
    "no colon, a digit more": '{"x" 12}',
    "a character after a comma": '{"x": 1,X"y": 2}',
    "a character after a comma in the map": '{"param_plan": {"x": 1,X"y": 2}}',
    "a character after a colon in the map": '{"param_plan": {"x" X1}}',
    "a comma, then a brace": '{"x": 1,}',
    "a comma, then another": '{"x": 1,, "y": 2}',
    "repeated key in a top object": _on_top('"x": {"a": 1, "a": 2}'),
    "repeated key in a top list": _on_top('"x": [{"a": 1, "a": 2}]'),
    "non-ascii top key": _on_top('"\u00e9": 1, "中": {"è": "é"}'),
}


def _outcome(read: Any, text: str) -> Any:
    try:
        return ("read", typed_numbers(read(text)))
    except metaplan.InputError as exc:
        return ("refused", str(exc))


def _written(value: Any) -> str:
    return repr(typed_numbers(value))


def _sharing(raw: Any) -> list[list[str]]:
    """For each FQN map, the groups of keys whose object entries are one dict."""
    groups: list[list[str]] = []
    for field in ("param_plan", "boundary_classes"):
        entries = raw.get(field) if isinstance(raw, dict) else None
        if not isinstance(entries, dict):
            continue
        by_id: dict[int, list[str]] = {}
        for key, value in entries.items():
            if isinstance(value, dict):
                by_id.setdefault(id(value), []).append(key)
        groups.extend(sorted(by_id.values()))
    return groups


def _equal_groups(raw: Any) -> list[list[str]]:
    """The groups the entries should share: object entries that write alike."""
    groups: list[list[str]] = []
    for field in ("param_plan", "boundary_classes"):
        entries = raw.get(field) if isinstance(raw, dict) else None
        if not isinstance(entries, dict):
            continue
        by_text: dict[str, list[str]] = {}
        for key, value in entries.items():
            if isinstance(value, dict):
                by_text.setdefault(_written(value), []).append(key)
        groups.extend(sorted(by_text.values()))
    return groups


@pytest.mark.parametrize("case", list(_CASES))
def test_each_text_reads_or_is_refused_as_parse_json_does(case: str, stream_reader: str) -> None:
    text = _CASES[case]
    expected = _outcome(lambda t: parse_json(t, source="p.json"), text)
    assert _outcome(lambda t: parse_plan_text(t, "p.json"), text) == expected
    if expected[0] == "read":  # only equal entries are shared
        raw = parse_plan_text(text, "p.json")
        equal = {key: i for i, group in enumerate(_equal_groups(raw)) for key in group}
        assert all(len({equal[key] for key in group}) == 1 for group in _sharing(raw))


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the whole-text readers ``parse_plan_text`` calls, in order."""
    calls: list[str] = []

    def spying(name: str) -> Any:
        real = getattr(streaming, name)

        def spy(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)
        return spy

    for name in ("parse_json", "parse_unchecked", "check_parsed"):
        monkeypatch.setattr(streaming, name, spying(name))
    return calls


_PLAIN = ("plain", "empty", "empty maps", "empty, spaced", "no maps", "spaced", "compact",
          "unicode", "unicode classes", "64-bit ints",
          "at the limit", "class at the limit", "top at the limit", "map not an object",
          "map of lists", "escaped quote", "colons in strings",
          "colons in classes", "spaces in entries", "null true false",
          "floats in strings only", "non-ascii top key")


@pytest.mark.parametrize("case", _PLAIN)
def test_plain_texts_are_read_without_the_whole_text_readers(
        case: str, stream_reader: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _spied(monkeypatch)
    raw = parse_plan_text(_CASES[case], "p.json")
    assert calls == []
    assert _sharing(raw) == _equal_groups(raw)  # every equal entry shared


_FLOATS = ("float entry", "float list entry", "float in an entry's dict",
           "float in an entry's list of strings", "float class", "float class list",
           "float class dict", "float on top", "float on top, in a list",
           "float on top, in a dict")


@pytest.mark.parametrize("case", _FLOATS)
def test_a_text_with_a_float_is_parsed_again_by_the_stdlib_and_not_checked_again(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "STREAM_FROM", 2**62)
    calls = _spied(monkeypatch)
    parse_plan_text(_CASES[case], "p.json")
    assert calls == ["parse_unchecked"]


@pytest.mark.parametrize("case", _FLOATS)
def test_floats_are_read_entry_by_entry_without_handing_over(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "STREAM_FROM", 0)
    calls = _spied(monkeypatch)
    parse_plan_text(_CASES[case], "p.json")
    assert calls == []


@pytest.mark.parametrize("case", ["escaped colon, repeated key", "escaped colon, upper case",
                                  "escaped colon in a key", "escaped colon on top"])
@pytest.mark.parametrize("stream_from", [0, 2**62])
def test_an_escaped_colon_hands_the_text_to_parse_json(
        case: str, stream_from: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "STREAM_FROM", stream_from)
    calls = _spied(monkeypatch)
    with contextlib.suppress(metaplan.InputError):
        parse_plan_text(_CASES[case], "p.json")
    assert calls[0] == "parse_json"


@pytest.mark.parametrize("case", ["repeated key on top", "surrogate fqn", "colons in keys",
                                  "byte order mark, repeated key"])
def test_a_short_unusual_text_is_checked_after_a_stdlib_parse(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "STREAM_FROM", 2**62)
    calls = _spied(monkeypatch)
    with contextlib.suppress(metaplan.InputError):
        parse_plan_text(_CASES[case], "p.json")
    assert calls == ["parse_unchecked", "check_parsed"]


@pytest.mark.parametrize(("extra", "entry_by_entry"), [(0, True), (1, False)])
def test_a_text_as_long_as_stream_from_is_read_entry_by_entry(
        extra: int, entry_by_entry: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _CASES["float entry"]
    monkeypatch.setattr(streaming, "STREAM_FROM", len(text) + extra)
    calls = _spied(monkeypatch)
    parse_plan_text(text, "p.json")
    assert calls == ([] if entry_by_entry else ["parse_unchecked"])


def test_stream_from_is_32_mib() -> None:
    assert streaming.STREAM_FROM == 32 * 2**20
    assert streaming.STREAMED_FIELDS == ("param_plan", "boundary_classes")


def test_entries_equal_but_for_a_float_stay_apart_in_both_readers() -> None:
    text = _in_plan('"x": {"k": 1.5}, "y": {"k": 1.50}, "z": {"k": 2.5}, "w": {"k": 15e-1}')
    for stream_from in (0, 2**62):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(streaming, "STREAM_FROM", stream_from)
            raw = parse_plan_text(text, "p")
        entries = raw["param_plan"]
        assert entries["x"] is entries["y"] is entries["w"]
        assert entries["x"] is not entries["z"]
        assert json.dumps(raw) == json.dumps(parse_json(text, source="p"))


@pytest.mark.parametrize("text", [
    '{"param_plan": {"a": [1], "b": [1], "c": ["s"], "d": ["s"]}}',
    '{"boundary_classes": {"a": ["A"], "b": ["A"]}}',
])
def test_equal_list_entries_stay_apart(text: str, stream_reader: str) -> None:
    """Only object entries are shared: each list is its own, as ``parse_json`` gives it."""
    raw = parse_plan_text(text, "p")
    entries = next(iter(raw.values()))
    assert entries["a"] == entries["b"] and entries["a"] is not entries["b"]
    entries["a"].append(2)
    assert entries["b"] in ([1], ["A"])


def test_equal_objects_outside_the_fqn_maps_stay_apart(stream_reader: str) -> None:
    raw = parse_plan_text('{"x": {"a": {"k": 1}, "b": {"k": 1}}, "param_plan": {}}', "p")
    assert raw["x"]["a"] == raw["x"]["b"] and raw["x"]["a"] is not raw["x"]["b"]
