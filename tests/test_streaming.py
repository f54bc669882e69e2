"""Reading a plan entry by entry gives what reading it whole gives, or the same refusal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
import metaplan.files.streaming as streaming
from conftest import FIXTURES, raw_input, typed_numbers
from metaplan.files.jsonio import parse_json
from metaplan.files.streaming import parse_plan_text
from metaplan.testing import plan_dicts


@pytest.fixture(autouse=True, params=["entry by entry", "whole, then shared"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test twice: every text read member by member, and every text parsed whole and its
    equal entries shared (what texts shorter than STREAM_FROM get)."""
    monkeypatch.setattr(streaming, "STREAM_FROM", 0 if request.param == "entry by entry"
                        else 2**62)
    yield


def _outcome(read: Any, text: str) -> Any:
    try:
        return ("read", read(text))
    except metaplan.InputError as exc:
        return ("refused", str(exc))


def _both(text: str) -> tuple[Any, Any]:
    return (_outcome(lambda t: parse_plan_text(t, "p.json"), text),
            _outcome(lambda t: parse_json(t, source="p.json"), text))


def test_entries_that_differ_only_in_numbers_stay_apart() -> None:
    text = ('{"param_plan": {"a": {"k": 1.5}, "b": {"k": 2.5}, "c": {"k": null}, "d": {"k": 1},'
            ' "e": {"k": 1.0}, "f": {"k": true}, "g": {"k": 1.5}}}')
    streamed = parse_plan_text(text, "p")
    assert streamed == parse_json(text, source="p")
    values = [streamed["param_plan"][key]["k"] for key in "abcdefg"]
    assert [type(v).__name__ for v in values] == ["JSONFloat", "JSONFloat", "NoneType", "int",
                                                  "JSONFloat", "bool", "JSONFloat"]
    assert values[:2] == [1.5, 2.5] and streamed["param_plan"]["a"] is streamed["param_plan"]["g"]


@pytest.mark.parametrize("name", FIXTURES)
def test_real_plans_read_alike(name: str) -> None:
    text = raw_input(name).decode()
    streamed = parse_plan_text(text, "p")
    assert streamed == parse_json(text, source="p")
    entries = streamed["param_plan"].values()
    assert len({id(entry) for entry in entries}) < len(entries)  # equal entries shared
    assert metaplan.dumps(metaplan.loads(text)) == text.encode()


_TWISTS = (
    lambda t: t,
    lambda t: t.replace('"is_boundary"', '"is_boundary": 1, "is_boundary"', 1),  # repeated key
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"a": NaN}, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"a": 1e400}, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x\\ud800": {}, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"a": "\\ud800"}, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": 123456789012345678901234, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": ' + "[" * 252 + "]" * 252 + ", ",
                        1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": ' + "[" * 253 + "]" * 253 + ", ",
                        1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"a\\u003ab": {}, ', 1),
    lambda t: t + " x",
    lambda t: "[" + t + "]",
    lambda t: t[: len(t) // 2],
    lambda t: t.replace('"param_plan"', '"param_plan": {}, "param_plan"', 1),
    lambda t: t.replace("{", "{ \t\r\n", 3),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"k": 2.5e-7}, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"k": 1.5}, "y": {"k": 2.5}, '
                        '"z": {"k": null}, "w": {"k": 1}, "v": {"k": 1.0}, ', 1),
    lambda t: t.replace('"boundary_classes": {', '"boundary_classes": {"x": "A", "x": "B", ', 1),
    lambda t: t.replace('"boundary_classes": {', '"boundary_classes": {"x": "\\ud800", ', 1),
    lambda t: t.replace('"boundary_classes": {', '"boundary_classes": {"x": ' + "[" * 252
                        + "]" * 252 + ", ", 1),
    lambda t: t.replace('"boundary_classes": {', '"boundary_classes": {"x": ' + "[" * 253
                        + "]" * 253 + ", ", 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"m\u00e9": {"a": "\u00e9:"}, '
                        '"m\u00e8": "x:y", ', 1),
    lambda t: t.replace('"param_plan": {', '"model_type": "a", "model_type": "b", "param_plan"'
                        ': {"s": "a\\"b", ', 1),
    lambda t: t.replace('"param_plan": {', '"x": ' + "[" * 253 + "]" * 253 + ', "param_plan": {',
                        1),
    lambda t: t.replace('"param_plan": {', '"x": ' + "[" * 254 + "]" * 254 + ', "param_plan": {',
                        1),
    lambda t: t.replace('"param_plan": {', '"x": [1e400], "param_plan": {', 1),
    lambda t: t.replace('"param_plan": {', '"x": {"a": 1, "a": 2}, "param_plan": {', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"a": {"b": 1, "b": 1}}, '
                        '"y": {"a": {"b": 1}}, ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"a": [18446744073709551616]}, '
                        '"y": {"a": [-9223372036854775809]}, "z": {"a": [9223372036854775808]}, ',
                        1),
    lambda t: t.replace('"param_plan": {', '"x": ["a", 1.0, -0, 1E2, -0.0], "param_plan": {', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": {"a": {"b": [1.5]}}, ', 1),
    lambda t: t.replace('"boundary_classes": {', '"boundary_classes": {"x": 2.5, ', 1),
    lambda t: "\ufeff" + t,
)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=8)


@given(st.dictionaries(st.sampled_from(["a", "b:c", "m\u00e9"]), _JSON, max_size=4),
       st.dictionaries(st.sampled_from(["x", "y"]), _JSON, max_size=2), st.booleans())
def test_any_json_values_read_as_the_stdlib_reads_them(entries: dict[str, Any],
                                                       fields: dict[str, Any],
                                                       pretty: bool) -> None:
    meta = {"param_plan": entries, "boundary_classes": dict.fromkeys(entries, "C"), **fields}
    text = json.dumps(meta, indent=2 if pretty else None)
    streamed, whole = _both(text)
    assert streamed == whole
    if whole[0] == "read":
        assert typed_numbers(streamed[1]) == typed_numbers(whole[1])


@given(plan_dicts(odd_flags=False), st.sampled_from(range(len(_TWISTS))), st.booleans())
def test_generated_texts_read_alike_or_are_refused_alike(meta: dict[str, Any], twist: int,
                                                         pretty: bool) -> None:
    text = json.dumps(meta, indent=2 if pretty else None, sort_keys=True)
    streamed, whole = _both(_TWISTS[twist](text))
    assert streamed == whole


@pytest.mark.parametrize("name", FIXTURES)
def test_real_plans_are_parsed_once_by_orjson(name: str, reader: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Plans hold no float: orjson's parse is kept, the stdlib's never runs."""
    monkeypatch.setattr(streaming, "STREAM_FROM", 2**62)

    def stdlib(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the stdlib parser ran")

    text = raw_input(name).decode()
    expected = parse_json(text, source="p")
    monkeypatch.setattr(streaming, "parse_unchecked", stdlib)
    monkeypatch.setattr(streaming, "parse_json", stdlib)
    assert parse_plan_text(text, "p") == expected


def test_a_plan_holding_a_float_is_read_again_by_the_stdlib(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(streaming, "STREAM_FROM", 2**62)
    raw = parse_plan_text('{"param_plan": {"a": {"k": [2.50, 18446744073709551616]}}}', "p")
    value = raw["param_plan"]["a"]["k"]
    assert [type(v).__name__ for v in value] == ["JSONFloat", "int"]
    assert value == [2.5, 2**64]


def _refuse_handover(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("handed over to the whole-text parser")


_PLAIN = (  # texts either reader reads itself, handing nothing over
    lambda t: t,
    lambda t: t.replace("{", "{ \t\r\n").replace("}", "\n\t }").replace(", ", " ,\r\n"),
    lambda t: t.replace('": ', '"\t:  ').replace("[", "[ ").replace("]", " ]"),
    lambda t: '{"aa": {}, "ab": [], "ac": null, "ad": "x", "ae": -7, "af": true,' + t[1:],
    lambda t: t.replace('"param_plan": {', '"param_plan": {"s": "text", "l": [1, {"k": [false]}],'
                        ' "n": null, "e": {}, "u\\u00e9\\u4e2d": {"v": "\\u00e9\\"\\\\\\n\\t"}, '
                        '"big": {"i": 9223372036854775807, "j": -9223372036854775808}, ', 1),
    lambda t: t.replace('"boundary_classes": {', '"boundary_classes": {"x\\u00e9": "\\u00e9C", '
                        '"y": "a:b", ', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"x": ' + "[" * 252 + "]" * 252
                        + ', "y": {"a": ' + "[" * 251 + "]" * 251 + "}, ", 1),  # the limit
    lambda t: t.replace('"param_plan": {', '"zz": ' + "[" * 253 + "]" * 253
                        + ', "param_plan": {', 1),
    lambda t: t.replace('"param_plan": {', '"param_plan": {"a": {"k": 1}, "b": {"k": 1}, '
                        '"c": {"k": 2}, ', 1),
)


@given(plan_dicts(odd_flags=False), st.sampled_from(range(len(_PLAIN))), st.booleans())
def test_plain_texts_are_read_without_handing_over(meta: dict[str, Any], twist: int,
                                                   pretty: bool) -> None:
    """Each reader reads what a plan file holds itself: the whole-text parser (slower, or
    the stdlib's) is only for the unusual."""
    text = _PLAIN[twist](json.dumps(meta, indent=2 if pretty else None, sort_keys=True))
    expected = parse_json(text, source="p")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("parse_json", "parse_unchecked", "check_parsed"):
            patch.setattr(streaming, name, _refuse_handover)
        read = parse_plan_text(text, "p")
    assert typed_numbers(read) == typed_numbers(expected)
    entries = read.get("param_plan")
    if isinstance(entries, dict) and "a" in entries and "b" in entries:
        assert entries["a"] is entries["b"] and entries["a"] is not entries["c"]
