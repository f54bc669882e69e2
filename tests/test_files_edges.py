"""Reading inputs and JSON at their edges, pinned where a mutation run of ``files/inputs.py``,
``files/jsonio.py`` and ``files/streaming.py`` found gaps: how much of a stream a refusal
consumes, which refusal a gzip file that is both corrupt and too big gets (the pieces fed
and the steps decompressed), ..."""

from __future__ import annotations

import io
import json
import math
import os
import random
import stat
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

import metaplan.files.streaming as streaming
from conftest import typed_numbers
from metaplan.errors import InputError
from metaplan.files import inputs
from metaplan.files.inputs import input_size_limit, read_bytes
from metaplan.files.jsonio import (
    MAX_DEPTH,
    check_parsed,
    check_tree,
    decode_text,
    dumps_pretty,
    dumps_pretty_stdlib,
    finite,
    parse_json,
    parse_unchecked,
    read_json,
)
from metaplan.files.streaming import parse_plan_text
from metaplan.frozen import JSONFloat, freeze

LIMIT_TAIL = "; raise it with --max-input-size or METAPLAN_MAX_INPUT_SIZE if this is a plan"
NOT_GZIP = "cannot read: it starts as gzip data but does not decompress"
_ACGT = bytes(b"acgt"[i & 3] for i in range(256))


def _refusal(path: Path | str, limit: int) -> str:
    with input_size_limit(limit), pytest.raises(InputError) as caught:
        read_bytes(path)
    return str(caught.value)


# inputs: reading in chunks ---------------------------------------------------------------


def test_a_refused_stdin_is_consumed_one_1_mib_read_past_the_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.BytesIO(b"s" * (5 << 20))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stream))
    assert _refusal("-", 10) == f"<stdin>: more bytes than the input limit of 10 bytes{LIMIT_TAIL}"
    assert stream.tell() == 1 << 20  # the rest is left for whoever reads next
    stream.seek(0)
    assert _refusal("-", (1 << 20) + 1).startswith("<stdin>: more bytes than")
    assert stream.tell() == 2 << 20


def _stated(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """Files stat as ``size`` bytes: as a file that grew between its stat and its read."""
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:
        fields = list(real(fd))
        fields[stat.ST_SIZE] = size
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", fstat)


@pytest.mark.parametrize("limit", [6, 7])
def test_a_file_one_byte_past_its_stated_size_is_read_up_to_the_limit(
        limit: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(b"abcdef")
    _stated(monkeypatch, 5)
    with input_size_limit(limit):
        assert read_bytes(path) == b"abcdef"
    assert _refusal(path, 5) == f"{path}: more bytes than the input limit of 5 bytes{LIMIT_TAIL}"


class _GrowsAfterItsFirstRead:
    """A file handle whose file has more bytes appended right after its first read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.handle = io.FileIO(path)
        self.reads = 0

    def __enter__(self) -> _GrowsAfterItsFirstRead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def fileno(self) -> int:
        return self.handle.fileno()

    def read(self, size: int = -1) -> bytes:
        data = self.handle.readall() if size < 0 else self.handle.read(size) or b""
        self.reads += 1
        if self.reads == 1:
            with open(self.path, "ab") as more:
                more.write(b"+later")
        return data


def test_a_file_read_to_its_stated_size_is_not_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(b"abc")
    opened: list[_GrowsAfterItsFirstRead] = []

    def grows(name: str, mode: str) -> _GrowsAfterItsFirstRead:
        opened.append(_GrowsAfterItsFirstRead(name))
        return opened[-1]

    monkeypatch.setattr(inputs, "open", grows, raising=False)
    assert read_bytes(path) == b"abc"  # the bytes there when it was read: one read
    assert [handle.reads for handle in opened] == [1]
    assert path.read_bytes() == b"abc+later"


def test_a_limit_below_zero_refuses_a_file_by_its_size_and_a_pipe_by_what_it_holds(
        tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert _refusal(path, -1) == (f"{path}: 0 bytes, more than the input limit of -1 bytes"
                                  f"{LIMIT_TAIL}")
    read, write = os.pipe()
    try:
        os.close(write)
        with input_size_limit(-1):
            assert read_bytes(f"/dev/fd/{read}") == b""  # not a regular file: nothing read
    finally:
        os.close(read)


def _broken_gzip(body: bytes, level: int) -> bytes:
    """One gzip member holding ``body``, then a deflate block of the reserved type: the data
    decompresses up to there, then fails."""
    deflate = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return deflate.compress(body) + deflate.flush(zlib.Z_SYNC_FLUSH) + b"\x07\x00\x00\x00"


@pytest.mark.parametrize(("size", "too_big"), [
    (600_000, False),  # ~200 KB compressed: the first 256 KiB fed holds the broken block
    (900_000, True),  # ~300 KB: the first 256 KiB fed expands past the limit first
])
def test_compressed_data_is_fed_256_kib_at_a_time(size: int, too_big: bool,
                                                  tmp_path: Path) -> None:
    path = tmp_path / "in.gz"
    path.write_bytes(_broken_gzip(random.Random(size).randbytes(size).translate(_ACGT), 1))
    limit = path.stat().st_size  # the file fits; what it expands to does not
    expected = (f"gzip data that expands to more than the input limit of {limit} bytes"
                f"{LIMIT_TAIL}" if too_big
                else f"{NOT_GZIP} (Error -3 while decompressing data: invalid block type)")
    assert _refusal(path, limit) == f"{path}: {expected}"


@pytest.mark.parametrize(("mib", "too_big"), [
    (12, False),  # the first 16 MiB step reaches the broken block
    (20, True),  # the first 16 MiB step is past the limit before it
])
def test_gzip_data_is_decompressed_16_mib_at_a_time(mib: int, too_big: bool,
                                                    tmp_path: Path) -> None:
    path = tmp_path / "in.gz"
    path.write_bytes(_broken_gzip(bytes(mib << 20), 9))
    expected = ("gzip data that expands to more than the input limit of 1 MiB (1048576 bytes)"
                f"{LIMIT_TAIL}" if too_big
                else f"{NOT_GZIP} (Error -3 while decompressing data: invalid block type)")
    assert _refusal(path, 1 << 20) == f"{path}: {expected}"


# jsonio: text and its encodings ----------------------------------------------------------


def _refused(data: bytes | str, source: str = "s") -> str:
    with pytest.raises(InputError) as caught:
        parse_json(data, source=source)
    assert caught.value.source == source
    return str(caught.value)


def test_the_default_source_is_named_input() -> None:
    with pytest.raises(InputError, match=r"^<input>: empty file: expected a JSON object$"):
        parse_json(b"")
    with pytest.raises(InputError, match=r"^<input>: empty file: expected a JSON object$"):
        parse_unchecked(" \n\t")
    with pytest.raises(InputError, match=r"^<input>: <root>: the key \"a\" appears twice"):
        check_parsed('{"a": 1, "a": 2}', {"a": 2})


@pytest.mark.parametrize("text", ["", " ", "\n \t\r"])
def test_an_empty_or_blank_text_is_an_empty_file(text: str) -> None:
    assert _refused(text) == "s: empty file: expected a JSON object"
    assert _refused(text.encode()) == "s: empty file: expected a JSON object"


def test_a_byte_order_mark_is_skipped_in_bytes_and_in_text() -> None:
    assert parse_json(b"\xef\xbb\xbf[1]") == [1]
    assert parse_json("\ufeff[1]") == [1]
    assert decode_text("\ufeffx\ufeff", "s") == "x\ufeff"
    assert decode_text(b"\xef\xbb\xbfx\xef\xbb\xbf", "s") == "x\ufeff"
    assert decode_text(b"xyz", "s") == "xyz"


def _wide(name: str, how: str) -> str:
    return (f"s: {name} text ({how}): metaplan reads UTF-8 JSON only; convert it, e.g. iconv -f "
            f"{name} -t UTF-8")


@pytest.mark.parametrize(("data", "name"), [
    (b"\xff\xfe\x00\x00{\x00\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff\x00\x00\x00{", "UTF-32"),
    (b"\xff\xfe{\x00}\x00", "UTF-16"), (b"\xfe\xff\x00{\x00}", "UTF-16"),
])
def test_utf16_and_utf32_are_refused_by_their_byte_order_mark(data: bytes, name: str) -> None:
    assert _refused(data) == _wide(name, "it starts with a byte order mark")


@pytest.mark.parametrize(("data", "name"), [
    (b"{\x00\x00\x00", "UTF-32"), (b"\x00\x00\x00{", "UTF-32"),
    (b"{\x00\x00\x00}\x00\x00\x00", "UTF-32"),
    (b"{\x00}\x00", "UTF-16"), (b"\x00{\x00}", "UTF-16"), (b"\x00{\x00}\x00\n", "UTF-16"),
    (b'"a"\x00', "UTF-16"),  # one zero byte, the fourth
])
def test_utf16_and_utf32_are_refused_by_their_zero_bytes(data: bytes, name: str) -> None:
    assert _refused(data) == _wide(name, "zero bytes between its characters")


@pytest.mark.parametrize(("data", "why"), [
    (b"1\x00\x00", "Extra data at line 1, column 2"),  # three bytes: too short to tell
    (b'"abc\x00"', "Invalid control character at line 1, column 5"),  # a zero past the fourth
])
def test_zero_bytes_in_a_short_text_or_past_its_fourth_byte_are_utf8(data: bytes,
                                                                     why: str) -> None:
    assert _refused(data) == f"s: not valid JSON: {why}"


def _not_utf8(where: str, line: int, column: int) -> str:
    return (f"s: {where}not UTF-8 text: byte 0xff at line {line}, column {column} (invalid "
            "start byte); metaplan reads UTF-8 JSON only")


@pytest.mark.parametrize(("data", "where", "line", "column"), [
    (b"\n\xff", "", 2, 1),  # after a newline that is the first byte
    (b'\n\n  "a\xff"', "<root>: ", 3, 5),
    (b'{"a": {"k\xff": 1}}', 'a["k\\udcff"]: ', 1, 10),
    (b'{"a": [1, "ok", "b\xff"]}', "a[2]: ", 1, 19),
    (b'{"n": null, "a": ["ok", "b\xff", "c\xff"]}', "a[1]: ", 1, 27),  # the first of two
    (b'{"n": null, "a": ["ok", "b\xff"], "c\xff": 1}', '["c\\udcff"]: ', 1, 27),  # keys first
    (b'{"k\xff": 1, "z": "\xff"}', '["k\\udcff"]: ', 1, 4),
    (b'{"a": "\xff', "", 1, 8),  # no JSON: no path
])
def test_a_byte_that_is_not_utf8_is_placed(data: bytes, where: str, line: int,
                                           column: int) -> None:
    assert _refused(data) == _not_utf8(where, line, column)


# jsonio: what parsed data may hold -------------------------------------------------------


def test_nan_and_infinity_are_no_json_numbers() -> None:
    assert _refused("[NaN]") == ("s: not valid JSON: NaN is not a JSON number (plans hold finite "
                                 "numbers only)")
    assert _refused('{"a": [1, -Infinity]}') == (
        "s: not valid JSON: -Infinity is not a JSON number (plans hold finite numbers only)")
    assert _refused('{"a": {"b": [1.5, 1e400]}}') == (
        "s: a.b[1]: inf is not a JSON number (a literal past the float range reads as "
        "infinity); plans hold finite numbers only")
    assert _refused('{"b": [12345678901234567890123, -1e400]}') == (
        "s: b[1]: -inf is not a JSON number (a literal past the float range reads as "
        "infinity); plans hold finite numbers only")


def test_finite_refuses_only_what_is_not_finite() -> None:
    finite(1.5)
    finite(-0.0)
    for value in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match=r"^not finite$"):
            finite(value)


def _nested(levels: int, inner: str = "", *, key: str = "") -> str:
    if key:
        return f'{{"{key}": ' * levels + (inner or "1") + "}" * levels
    return "[" * levels + inner + "]" * levels


_DEEP = "nested more than 254 levels deep (plans nest a handful)"


def test_nesting_is_refused_past_254_levels() -> None:
    assert parse_json(_nested(254)) == json.loads(_nested(254))
    assert _refused(_nested(255)) == f"s: [0][0][0][0][0][0]...: {_DEEP}"
    assert parse_json(_nested(253, key="a")) == json.loads(_nested(253, key="a"))
    assert _refused(_nested(255, key="a")) == f"s: a.a.a.a.a.a...: {_DEEP}"
    assert _refused(_nested(254, '{"a": 1}')) == f"s: [0][0][0][0][0][0]...: {_DEEP}"
    assert _refused("[" * 100_000) == f"s: {_DEEP}"  # past the stdlib parser's own limit


@pytest.mark.parametrize("inner", ["12345678901234567890123", '"a", 12345678901234567890123'])
def test_a_big_integer_at_the_deepest_level_is_read(inner: str) -> None:
    text = _nested(254, inner)  # orjson cannot write it: the data is walked
    assert parse_json(text) == json.loads(text)
    text = _nested(252, '{"k": [' + inner + "]}")
    assert parse_json(text) == json.loads(text)
    assert _refused(_nested(255, inner)) == f"s: [0][0][0][0][0][0]...: {_DEEP}"


def test_a_big_integer_beside_what_may_not_be_there_does_not_hide_it() -> None:
    big = "12345678901234567890123"
    assert _refused(f'{{"a": [{big}], "b": {{"k\\ud800": 1}}}}') == (
        's: b["k\\ud800"]: a key that is not Unicode text: it holds the lone surrogate \\ud800 '
        "(an escape for half a character); write the character itself, or both halves of its "
        "surrogate pair")
    assert _refused(f'{{"a": [{big}, 1.5, "ok", "x\\udfffy"]}}') == (
        "s: a[3]: a string that is not Unicode text: it holds the lone surrogate \\udfff (an "
        "escape for half a character); write the character itself, or both halves of its "
        "surrogate pair")
    assert parse_json(f'{{"a\u00e9": ["\u00e9", {big}, null, true, 1.5]}}') == {
        "a\u00e9": ["\u00e9", int(big), None, True, 1.5]}


_SURROGATE = ("a {what} that is not Unicode text: it holds the lone surrogate {char} (an escape "
              "for half a character); write the character itself, or both halves of its "
              "surrogate pair")


@pytest.mark.parametrize(("raw", "where", "what", "char"), [
    ({"a": [1, "ok", "x\ud800"]}, "a[2]", "string", "\\ud800"),
    ({"a": {"b\udfff": 1}}, 'a["b\\udfff"]', "key", "\\udfff"),
    ({"a": "xy\udc00z"}, "a", "string", "\\udc00"),
])
def test_check_tree_names_a_lone_surrogate(raw: Any, where: str, what: str, char: str) -> None:
    expected = _SURROGATE.format(what=what, char=char)
    with pytest.raises(InputError) as caught:
        check_tree(raw)
    assert str(caught.value) == f"{where}: {expected}" and caught.value.source is None
    with pytest.raises(InputError) as caught:
        check_tree(raw, "src")
    assert str(caught.value) == f"src: {where}: {expected}" and caught.value.source == "src"


def test_check_tree_passes_keys_that_are_no_text_and_big_integers() -> None:
    check_tree({1: "a", "b": [2**70, JSONFloat(1.5), None, "\u00e9"]})
    with pytest.raises(InputError, match=r"^a\[1\]: inf is not a JSON number"):
        check_tree({"a": [2**70, JSONFloat("inf")]})


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_check_tree_refuses_a_plain_float_that_is_not_finite(value: float) -> None:
    # orjson writes these as null, where a JSONFloat one calls its hook: found by the walk
    with pytest.raises(InputError) as caught:
        check_tree({"a": [None, "null", {"b": value}]}, "src")
    assert str(caught.value).startswith(f"src: a[2].b: {float.__repr__(value)} is not a JSON "
                                        "number")
    check_tree({"a": [None, "null", {"b": 1.5}]}, "src")  # a real null, and the text: fine


def test_check_tree_checks_floats_again_only_where_a_null_value_is_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime

    from metaplan.files import jsonio

    # orjson writes a date, the stdlib's writer refuses it: the walk decides
    when = datetime.date(2026, 12, 7)
    with pytest.raises(InputError, match=r"^x\[1\]: inf is not a JSON number"):
        check_tree({"d": when, "x": [None, float("inf")]})
    check_tree({"d": when, "x": [None, 1.5]})

    class NoSecondWriter:
        @staticmethod
        def dumps(*_args: Any, **_kwargs: Any) -> str:
            raise AssertionError("written again")

    monkeypatch.setattr(jsonio, "json", NoSecondWriter)
    for fine in ({"a": "nullable", "nullx": 1}, ["null"], {"a": "x"}, [], "null"):
        check_tree(fine)
    for holding_null in (None, [None], {"a": None}, [1, None, 2], {"a": [None]}):
        with pytest.raises(AssertionError, match="written again"):
            check_tree(holding_null)


def test_parse_json_refuses_nesting_past_a_smaller_depth() -> None:
    with pytest.raises(InputError) as caught:
        parse_json("[[[[1]]]]", source="s", depth=2)
    assert str(caught.value) == ("s: [0][0]...: nested more than 2 levels deep (plans nest a "
                                 "handful)")
    assert parse_json("[[[1]]]", depth=3) == [[[1]]]
    assert parse_json("[[[1]]]", depth=MAX_DEPTH) == [[[1]]]


def test_parse_json_with_a_depth_refuses_past_it_when_the_data_is_walked() -> None:
    text = "[[[[12345678901234567890123]]]]"
    with pytest.raises(InputError) as caught:
        parse_json(text, source="s", depth=2)
    assert str(caught.value) == ("s: [0][0]...: nested more than 2 levels deep (plans nest a "
                                 "handful)")
    assert parse_json(text, depth=4) == [[[[12345678901234567890123]]]]


# jsonio: repeated keys -------------------------------------------------------------------


def _twice(where: str, key: str) -> str:
    return (f"s: {where}: the key {json.dumps(key)} appears twice in one object; JSON readers "
            "disagree on which one counts: keep one")


@pytest.mark.parametrize(("text", "where", "key"), [
    ('{"b": 1, "b": 2, "c": 3}', "<root>", "b"),
    ('{"a": 1, "b": 2, "b": 3}', "<root>", "b"),
    ('{"x": [{"a": 1, "a": 2}], "y": {"b": 1, "b": 2}}', "x[0]", "a"),
    ('{"x": {"y": {"a": 1, "a": 2}}}', "x.y", "a"),
    ('{"a": 1, "a": 2, "\\u003a": 3}', "<root>", "a"),  # the colons count alike
    ('{"a": 1, "a": 2, "\\u003A": 3}', "<root>", "a"),
    ('{"a": 1, "a": 2, "\\u003a\\u003A": 3}', "<root>", "a"),
    ('{"k": 12345678901234567890123, "k": 1}', "<root>", "k"),
    ('{"\\"": 1, "q": {"\\n": 2, "\\n": 3}}', "q", "\n"),
])
def test_a_repeated_key_is_named_where_it_is(text: str, where: str, key: str) -> None:
    assert _refused(text) == _twice(where, key)


def test_a_repeated_key_is_found_when_a_big_integer_writes_as_many_colons() -> None:
    # 28 colons in the text; the data written back is '{"a": 18446744073709551616}', 27 long
    text = "{" + '"a": 1, ' * 27 + '"a": 18446744073709551616}'
    assert _refused(text) == _twice("<root>", "a")


def test_escaped_colons_and_backslashes_without_a_repeat_are_read() -> None:
    assert parse_json('{"\\u003a": {"a\\u003Ab": "\\\\:"}, "c": [12345678901234567890123]}') == {
        ":": {"a:b": "\\:"}, "c": [12345678901234567890123]}


# jsonio: reading files and writing -------------------------------------------------------


def test_read_json_names_the_file_or_stdin(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(b'{"a": [1.5]}')
    assert read_json(path) == {"a": [1.5]}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{")))
    with pytest.raises(InputError) as caught:
        read_json("-")
    assert str(caught.value) == ("<stdin>: not valid JSON: Expecting property name enclosed in "
                                 "double quotes at line 1, column 2")


@pytest.mark.parametrize("value", [
    {"b": [1, {"d": None, "c": True}], "a": "x"},
    {"b": "\u00e9", "a": [1]}, {"b": "\x7f", "a": [1]}, {"b": "\u00e9\x7f"},
    {"b": 2**70, "a": [1]}, {"a": []},
])
def test_dumps_pretty_writes_the_stdlibs_bytes(value: Any) -> None:
    expected = json.dumps(value, indent=2, sort_keys=True).encode()
    assert dumps_pretty(freeze(value)) == expected
    assert dumps_pretty_stdlib(freeze(value)) == expected


# streaming: what either reader reads itself ----------------------------------------------


def _handed_over(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("handed over to the whole-text parser")


def _read_itself(text: str, *names: str) -> Any:
    """``parse_plan_text(text)``, checked to be what ``parse_json`` gives, with the whole-text
    functions ``names`` refused."""
    expected = parse_json(text, source="p")
    with pytest.MonkeyPatch.context() as patch:
        for name in names:
            patch.setattr(streaming, name, _handed_over)
        read = parse_plan_text(text, "p")
    assert typed_numbers(read) == typed_numbers(expected)
    return read


_ALL = ("parse_json", "parse_unchecked", "check_parsed")


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("text", [
    "{}", '{"param_plan": {}}', '{"param_plan": {}, "boundary_classes": {}}',
    ' \n{ "param_plan" : { "a" : { "k" : 1 } , "b" : {"k": 1} } , "n": 5, "s": "x:y", '
    '"t": true, "z": null, "l": [1, "a", []], "e": {} }\n',
    '{"param_plan": ["a", "b"], "boundary_classes": 5}',
    '{"param_plan": {"m\u00e9": {"v": "\u00e9:"}, "a\\n": {}}, "boundary_classes": {"m\u00e9": '
    '"\u00e9C", "y": "a:b", "z": [1, "a:b"], "w": null, "v": {"k": ":"}}}',
    '{"param_plan": {"x": ' + _deep(252) + ', "y": {"a": ' + _deep(251) + '}}, '
    '"boundary_classes": {"c": ' + _deep(252) + ', "d": "C"}, "zz": ' + _deep(253) + "}",
    '{"param_plan": {"a": {"k": 1}, "s": "str", "b": {"k": 1}, "l": [1]}, "m\u00e9": 1}',
    '{"param_plan": {"a": {"k": [9223372036854775807, -9223372036854775808]}}}',
])
def test_plain_texts_are_read_without_handing_over(text: str, stream_reader: str) -> None:
    _read_itself(text, *_ALL)


def test_equal_entries_of_the_fqn_maps_are_shared_and_nothing_else(stream_reader: str) -> None:
    text = ('{"param_plan": {"a": {"k": 1}, "s": "str", "b": {"k": 1}, "c": {"k": 2}, '
            '"l": [1], "m": [1]}, "boundary_classes": {"x": {"k": 1}, "y": {"k": 1}, '
            '"z": "C", "u": [2], "v": [2]}, "meta": {"a": {"x": 1}, "b": {"x": 1}}, '
            '"list": [{"x": 1}, {"x": 1}]}')
    read = _read_itself(text, *_ALL)
    entries, classes = read["param_plan"], read["boundary_classes"]
    assert entries["a"] is entries["b"] and entries["a"] is not entries["c"]
    assert classes["x"] is classes["y"]
    assert entries["l"] is not entries["m"] and classes["u"] is not classes["v"]  # lists: not
    assert read["meta"]["a"] is not read["meta"]["b"]  # not an FQN map: as parse_json reads it
    assert read["list"][0] is not read["list"][1]


def test_floats_are_json_floats_and_entries_differing_in_them_stay_apart(
        stream_reader: str) -> None:
    text = ('{"param_plan": {"a": {"k": 1.5}, "b": {"k": 1.5}, "c": {"k": 2.5}, '
            '"d": {"k": [0.5, {"w": 2.5}]}}, "boundary_classes": {"x": 2.5, "y": [0.5], '
            '"z": "C"}, "v": [1.5, {"w": 2.5}], "u": {"k": 0.5}, "t": 0.25}')
    names = _ALL if stream_reader == "entry by entry" else ("parse_json", "check_parsed")
    read = _read_itself(text, *names)  # _read_itself compares the types too
    entries = read["param_plan"]
    assert entries["a"] is entries["b"] and entries["a"] is not entries["c"]
    assert type(read["t"]) is JSONFloat and type(read["boundary_classes"]["x"]) is JSONFloat


def test_a_byte_order_mark_is_skipped(stream_reader: str) -> None:
    read = parse_plan_text('\ufeff{"param_plan": {"a": {"k": 1}, "b": {"k": 1}}}', "p")
    assert read == {"param_plan": {"a": {"k": 1}, "b": {"k": 1}}}


def test_texts_from_stream_from_on_are_read_entry_by_entry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert streaming.STREAM_FROM == 32 * 2**20 == 33554432
    assert streaming.STREAMED_FIELDS == ("param_plan", "boundary_classes")
    text = '{"param_plan": {"a": {"k": 1.5}, "b": {"k": 1.5}}}'
    monkeypatch.setattr(streaming, "STREAM_FROM", len(text))
    _read_itself(text, *_ALL)  # entry by entry: no whole-text parse
    monkeypatch.setattr(streaming, "STREAM_FROM", len(text) + 1)
    with pytest.raises(AssertionError, match="handed over"):
        _read_itself(text, "parse_unchecked")  # whole: a float is read again by the stdlib


# streaming: what either reader refuses as parse_json does --------------------------------


_BIG = "18446744073709551616"


@pytest.mark.parametrize("text", [
    '{"param_plan": {}, "a": 1, "a": 2, "\\u003a": 3}',
    '{"param_plan": {}, "a": 1, "a": 2, "\\u003A": 3}',
    '{"param_plan": {"a": {"k": 1.5}}, "x": 1, "x": 2}',
    '{"param_plan": {"a": {"k": 1}}, "x": 1, "x": 2}',
    '{"\\ud800": 1, "param_plan": {}}', '{"\\ud800": [1.5], "param_plan": {}}',
    '{"param_plan": {"\\ud800": {}}}', '{"param_plan": {"m\u00e9\\ud800": {"k": 1.5}}}',
    '{"param_plan": {"a": {"k": "\\ud800"}}}', '{"boundary_classes": {"x": "\\ud800"}}',
    '[{"a": 1, "a": 2}]', '{"param_plan": {"a": {}, "a": {"x": 1}}}',
    '{"param_plan": {"a": {"k": 1, "k": 2}}}', '{"param_plan": {"a": {"k": 1.5, "k": 2}}}',
    '{"x": {"a": 1, "a": 2}, "param_plan": {}}', '{"a": 1, "a": 2}',
    '{"param_plan": {}} x', '["a": 1}', '{a": 1}', '{"a" 12}', '{"a": 1x', '{"a": 1 "b": 2}',
    '{"param_plan": {1: 2}}', '{"param_plan": {"a": 1 "b": 2}}', '{"param_plan": {"a": 1x',
    '{"a\x01": 1}', '{"param_plan": {"a\x01": {}}}',
    '{"param_plan": {"x": {"a": ' + _deep(252) + "}}}",
    '{"param_plan": {"x": {"a": ' + _deep(252) + '}, "y": {"a": ' + _deep(252) + "}}}",
    '{"boundary_classes": {"x": ' + _deep(253) + "}}",
    '{"boundary_classes": {"x": "C", "y": ' + _deep(253) + "}}",
    '{"x": ' + _deep(254) + ', "param_plan": {}}', '{"x": {"y": ' + _deep(253) + "}}",
    '{"param_plan": {"a": {"k": 1e400}}}', '{"boundary_classes": {"x": 1e400}}',
    '{"x": [1e400], "param_plan": {}}',
    '{"param_plan": {"a": {"k": [' + _BIG + "]}}}",
    '{"param_plan": {"a": {"k": [' + _BIG + ']}, "b": {"k": [1.5]}}, "x": [' + _BIG + "]}",
    '{"boundary_classes": {"x": ' + _BIG + "}}",
])
def test_unusual_texts_are_read_or_refused_as_parse_json_does(
        text: str, stream_reader: str) -> None:
    try:
        expected: Any = ("read", typed_numbers(parse_json(text, source="p")))
    except InputError as exc:
        expected = ("refused", str(exc))
    try:
        read: Any = ("read", typed_numbers(parse_plan_text(text, "p")))
    except InputError as exc:
        read = ("refused", str(exc))
    assert read == expected
