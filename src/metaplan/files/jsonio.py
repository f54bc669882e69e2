"""JSON in and out: gzip-aware files, exact stdlib-compatible output, atomic writes.

Reading uses the stdlib parser (orjson silently turns integers past 64 bits
into floats); floats come back as :class:`~metaplan.frozen.JSONFloat`. (A plan's
text that holds no float is parsed by orjson: see :mod:`metaplan.files.streaming`.)
Writing uses orjson, whose ``OPT_INDENT_2 | OPT_SORT_KEYS`` output is byte for
byte ``json.dumps(obj, indent=2, sort_keys=True)`` for ASCII text and 64-bit
integers; anything else falls back to the stdlib writer.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import orjson

from metaplan.errors import InputError, format_path
from metaplan.files.inputs import read_bytes, source_name
from metaplan.files.outputs import write_atomic, write_many_atomic
from metaplan.frozen import JSONFloat, orjson_default, paused_gc, thaw

__all__ = [
    "MAX_DEPTH",
    "check_parsed",
    "check_tree",
    "decode_text",
    "dumps_pretty",
    "dumps_pretty_stdlib",
    "finite",
    "parse_json",
    "parse_unchecked",
    "read_bytes",
    "read_json",
    "reject_constant",
    "write_atomic",
    "write_many_atomic",
]

_PRETTY = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
_NULL_VALUE = re.compile(rb"(?:^|[:\[,])null(?:$|[,\]}])")
"""A ``null`` value in compact JSON (or a string holding ``,null]``: only a check more)."""


MAX_DEPTH = 254
"""How deep a JSON document may nest, the outermost value being level 1.

orjson's limit: every writer and hash here relies on orjson, and plans nest
a handful of levels.
"""


def reject_constant(name: str) -> Any:
    """The stdlib parser's hook for ``NaN`` and ``Infinity``: refused."""
    raise ValueError(f"{name} is not a JSON number (plans hold finite numbers only)")


def parse_json(data: bytes | str, *, source: str = "<input>", depth: int = MAX_DEPTH) -> Any:
    """Parse JSON text into raw dicts and lists (floats as ``JSONFloat``), checked.

    Bytes must be UTF-8: a leading UTF-8 byte order mark is skipped, UTF-16
    and UTF-32 are refused (by their byte order mark or their zero bytes).
    The data is checked by :func:`check_tree` (nested at most ``depth``
    levels, finite numbers, Unicode text), and no object may hold a key twice. Any failure is an
    :class:`~metaplan.errors.InputError` naming ``source``.

    >>> parse_json(b'\\xef\\xbb\\xbf{"a": [1.5]}')
    {'a': [1.5]}
    >>> parse_json('{"a": {"b": 1, "b": 2}}', source="x.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    metaplan.errors.InputError: x.json: a: the key "b" appears twice in one object; ...
    """
    text = decode_text(data, source)
    raw = parse_unchecked(text, source, depth)
    check_parsed(text, raw, source, depth)
    return raw


def parse_unchecked(text: str, source: str = "<input>", depth: int = MAX_DEPTH) -> Any:
    """The raw data of JSON ``text`` (floats as ``JSONFloat``), not yet checked by
    :func:`check_parsed`; text that is no JSON is an :class:`~metaplan.errors.InputError`."""
    if not text or text.isspace():
        raise InputError(f"{source}: empty file: expected a JSON object", source=source)
    try:
        with paused_gc():
            return json.loads(text, parse_float=JSONFloat, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: not valid JSON: {exc.msg.removesuffix(' at')} at line {exc.lineno}, "
            f"column {exc.colno}",
            source=source,
        ) from exc
    except RecursionError as exc:
        raise InputError(f"{source}: nested more than {depth} levels "
                         "deep (plans nest a handful)", source=source) from exc
    except ValueError as exc:
        raise InputError(f"{source}: not valid JSON: {exc}", source=source) from exc


def check_parsed(text: str, raw: Any, source: str = "<input>", depth: int = MAX_DEPTH) -> None:
    """Refuse what :func:`parse_json` refuses in ``raw``, parsed from ``text``: nesting past
    ``depth``, a number that is not finite, text that is not Unicode, a repeated key."""
    written = _checked(raw, source, depth)
    _check_unique_keys(text, raw, written, source)


_UTF8_BOM = b"\xef\xbb\xbf"
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
              (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def decode_text(data: bytes | str, source: str) -> str:
    """The text of ``data``: strict UTF-8, without a leading byte order mark."""
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    else:
        _refuse_wide(data, source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(data, exc, source) from exc


def _refuse_wide(data: bytes, source: str) -> None:
    """Refuse UTF-16 and UTF-32 text, recognised as the stdlib's ``json`` does."""
    found = next((name for bom, name in _WIDE_BOMS if data.startswith(bom)), None)
    how = "it starts with a byte order mark"
    if found is None and len(data) >= 4 and 0 in data[:4]:
        found = "UTF-32" if data[:4].count(0) == 3 else "UTF-16"
        how = "zero bytes between its characters"
    if found is not None:
        raise InputError(f"{source}: {found} text ({how}): metaplan reads UTF-8 JSON only; "
                         f"convert it, e.g. iconv -f {found} -t UTF-8", source=source)


def _not_utf8(data: bytes, exc: UnicodeDecodeError, source: str) -> InputError:
    """Where the first byte that is not UTF-8 is: its line and column, and its JSON path."""
    at = exc.start
    line = data.count(b"\n", 0, at) + 1
    column = at - data.rfind(b"\n", 0, at)
    try:
        path = _first_bad_text(json.loads(data.decode("utf-8", "surrogateescape")))
    except (ValueError, RecursionError):
        path = None
    where = "" if path is None else f"{format_path(path)}: "
    return InputError(f"{source}: {where}not UTF-8 text: byte 0x{data[at]:02x} at line {line}, "
                      f"column {column} ({exc.reason}); metaplan reads UTF-8 JSON only",
                      source=source)


def _not_unicode(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (UTF-8 cannot encode it: it is no character)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _first_bad_text(raw: Any) -> tuple[Any, ...] | None:
    """The path of the first key or string (in document order) that is not Unicode text."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(raw, ())]
    while stack:
        value, path = stack.pop()
        if type(value) is dict:
            bad = next((key for key in value if _not_unicode(key)), None)
            if bad is not None:
                return (*path, bad)
            stack.extend(reversed([(item, (*path, key)) for key, item in value.items()]))
        elif type(value) is list:
            stack.extend(reversed([(item, (*path, i)) for i, item in enumerate(value)]))
        elif isinstance(value, str) and _not_unicode(value):
            return path
    return None


def _lone_surrogate(text: str) -> str:
    char = next((c for c in text if "\ud800" <= c <= "\udfff"), "\ufffd")
    return f"\\u{ord(char):04x}"


def _check_unique_keys(text: str, raw: Any, written: bytes | None, source: str) -> None:
    """Refuse an object holding a key twice (the parser would silently keep the last).

    Counted, not searched: each key of the text is followed by one colon,
    and so is each key of the compact JSON :func:`check_tree` wrote of the
    parsed data; colons inside strings are the same in both, unless the text
    escapes one (``\\u003a``). So fewer colons written than read means a key
    was dropped, and only then (or when a colon is escaped) is the text parsed
    again to find it. The two counts cost ~9 ms on a 12 MB plan, where a
    parser hook on every object would cost ~75 ms.
    """
    if "\\" not in text or ("\\u003a" not in text and "\\u003A" not in text):
        if written is None:
            kept = json.dumps(raw, ensure_ascii=False, check_circular=False).count(":")
        else:
            kept = written.count(b":")
        if kept == text.count(":"):
            return
    _find_repeated_key(text, source)


class _Repeated(dict[str, Any]):
    """A parsed object whose text held ``key`` twice."""

    key = ""


def _mark_repeated(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    marked = _Repeated(obj)
    marked.key = key
    return marked


def _find_repeated_key(text: str, source: str) -> None:
    with paused_gc():
        raw = json.loads(text, object_pairs_hook=_mark_repeated)
    stack: list[tuple[Any, tuple[Any, ...]]] = [(raw, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _Repeated):
            raise InputError(f"{source}: {format_path(path)}: the key "
                             f"{json.dumps(value.key)} appears twice in one object; JSON "
                             "readers disagree on which one counts: keep one", source=source)
        if type(value) is dict or type(value) is _Repeated:
            stack.extend(reversed([(item, (*path, key)) for key, item in value.items()]))
        elif type(value) is list:
            stack.extend(reversed([(item, (*path, i)) for i, item in enumerate(value)]))


def finite(value: float) -> None:
    """orjson's hook for a ``JSONFloat``: refuse one that is not finite."""
    if not math.isfinite(value):
        raise ValueError("not finite")


def _checked(raw: Any, source: str | None, depth: int = MAX_DEPTH) -> bytes | None:
    """Compact JSON of ``raw`` when orjson can write it (the common case), else None.

    When it cannot, :func:`_walk` finds why, raising for what a plan may not
    hold; big integers are fine, so are the data, but another writer is needed.
    """
    try:
        written = orjson.dumps(raw, default=finite)
    except TypeError:
        _walk(raw, source, depth)
        return None
    if depth < MAX_DEPTH:  # orjson's own limit is MAX_DEPTH: a smaller one needs the walk
        _walk(raw, source, depth)
    return written


def check_tree(raw: Any, source: str | None = None) -> None:
    """Refuse raw JSON data nested past :data:`MAX_DEPTH`, holding a non-finite number, or
    holding text that is not Unicode (a lone surrogate, in a key or a string).

    ``1e400`` parses as infinity, which no JSON writer can give back; a lone
    surrogate (``"\\ud800"``) is no character, which no UTF-8 writer can
    give back. One orjson pass in C checks all three (~8 ms on 15k
    entries); only when it fails does a walk find the path, or find that
    the failure was a big integer, which is fine. orjson writes a ``float`` (not a
    parsed ``JSONFloat``) that is not finite as ``null``: where its JSON holds a
    ``null`` value, the stdlib's writer in C checks the floats (a few times orjson's
    time; the walk says where, if it refuses).
    """
    written = _checked(raw, source)
    if written is not None and _NULL_VALUE.search(written):
        try:
            json.dumps(raw, allow_nan=False, check_circular=False)
        except (ValueError, TypeError):  # TypeError: a value only orjson writes (a date)
            _walk(raw, source)


def _walk(raw: Any, source: str | None, depth: int = MAX_DEPTH) -> None:
    where = f"{source}: " if source else ""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(raw, ())]
    while stack:
        value, path = stack.pop()
        kind = type(value)
        if (kind is dict or kind is list) and len(path) >= depth:
            shown = format_path(path[:6]) + "..."
            raise InputError(f"{where}{shown}: nested more than {depth} levels deep (plans "
                             "nest a handful)", source=source)
        if kind is dict:
            bad = next((key for key in value if isinstance(key, str) and _not_unicode(key)),
                       None)
            if bad is not None:
                raise _surrogate(where, (*path, bad), bad, "key", source)
            stack.extend(reversed([(item, (*path, key)) for key, item in value.items()]))
        elif kind is list:
            stack.extend(reversed([(item, (*path, i)) for i, item in enumerate(value)]))
        elif isinstance(value, str) and _not_unicode(value):
            raise _surrogate(where, path, value, "string", source)
        elif isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{where}{format_path(path)}: {float.__repr__(value)} is not a JSON "
                             "number (a literal past the float range reads as infinity); plans "
                             "hold finite numbers only", source=source)


def _surrogate(where: str, path: tuple[Any, ...], text: str, what: str,
               source: str | None) -> InputError:
    return InputError(f"{where}{format_path(path)}: a {what} that is not Unicode text: it holds "
                      f"the lone surrogate {_lone_surrogate(text)} (an escape for half a "
                      "character); write the character itself, or both halves of its "
                      "surrogate pair", source=source)


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read a ``.json`` or ``.json.gz`` file (``-``: standard input) into raw JSON data."""
    return parse_json(read_bytes(path), source=source_name(path))


def dumps_pretty(value: Any) -> bytes:
    """Bytes identical to ``json.dumps(value, indent=2, sort_keys=True)``, fast.

    For frozen or parsed data, whose floats are ``JSONFloat`` s (a bare
    ``float`` is written as orjson writes it).

    >>> from metaplan.frozen import freeze
    >>> value = {"b": [1, 2.5e-07, 1e16], "a": {}}
    >>> dumps_pretty(freeze(value)).decode() == json.dumps(value, indent=2, sort_keys=True)
    True
    """
    try:
        out = orjson.dumps(value, default=orjson_default, option=_PRETTY)
    except TypeError:  # an integer past 64 bits
        return dumps_pretty_stdlib(value)
    if out.isascii() and b"\x7f" not in out:
        return out
    return dumps_pretty_stdlib(value)  # the stdlib escapes non-ASCII and DEL


def dumps_pretty_stdlib(value: Any) -> bytes:
    """The reference writer: ``json.dumps(indent=2, sort_keys=True)``."""
    return json.dumps(thaw(value), indent=2, sort_keys=True).encode()
