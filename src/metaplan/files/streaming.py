"""Reading a plan's text entry by entry: each module entry parsed, checked and shared as read.

Parsing a whole plan first holds every entry of every module at once (a
million-entry plan: ~3.6 GB of small dicts) only to find that they are a
handful of distinct entries. :func:`parse_plan_text` walks the top-level
object member by member, and the FQN maps (``param_plan``,
``boundary_classes``) entry by entry; each entry is parsed by the stdlib's
C decoder, checked, and replaced at once by the first equal entry read
(equal as their JSON bytes), so the duplicates are freed as soon as they are
made. A million-entry plan then peaks at about its text's size. A text
shorter than :data:`STREAM_FROM` is parsed whole instead (by orjson when it
holds no float, else by the stdlib), and its FQN maps' equal entries shared
afterwards, in the one pass that also checks every value (writing each
entry once, not the whole document again).

It gives the very data :func:`~metaplan.files.jsonio.parse_json` gives (the same
values, equal entries sharing one dict), and accepts exactly what it
accepts: anything unusual (a document that is not an object, a repeated
key, an escaped colon, a number past 64 bits, text that is not Unicode,
nesting near the limit) makes it hand the whole text to ``parse_json``,
which then reads it, or refuses it with its own message.

>>> import metaplan.files.streaming as streaming
>>> streaming.STREAM_FROM = 0  # read even a short text entry by entry
>>> raw = parse_plan_text('{"param_plan": {"a": {"x": 1}, "b": {"x": 1}}, "z": [1.5]}', "p")
>>> raw["param_plan"]["a"] is raw["param_plan"]["b"], raw["z"]
(True, [1.5])
>>> streaming.STREAM_FROM = 32 * 2**20
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

import orjson

from metaplan.files.jsonio import (
    MAX_DEPTH,
    check_parsed,
    decode_text,
    finite,
    parse_json,
    parse_unchecked,
    reject_constant,
)
from metaplan.frozen import JSONFloat

__all__ = ["STREAMED_FIELDS", "STREAM_FROM", "parse_plan_text"]

STREAMED_FIELDS = ("param_plan", "boundary_classes")
"""The top-level objects read entry by entry."""

STREAM_FROM = 32 * 2**20
"""Texts this long or longer are read entry by entry; shorter ones whole, which is faster
below it (DeepSeek-V3's 12 MB: ~200 ms whole, ~250 ms entry by entry) and costs less
memory above it (a 650 MB plan: 3.6 GB and 35 s whole, 1.3 GB and 15 s entry by entry)."""

_SPACE = re.compile(r"[ \t\n\r]*")
_FIRST = re.compile(r'\{[ \t\n\r]*(?:"|\})')  # an object's opening, up to its first key
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_NEXT = re.compile(r'[ \t\n\r]*(?:,[ \t\n\r]*"|\})')  # past a value, up to the next key
_DECODER = json.JSONDecoder(parse_float=JSONFloat, parse_constant=reject_constant)
_NEST = MAX_DEPTH - 2  # an entry sits two levels down: root, then its FQN map


class _Unusual(Exception):
    """Something the member-by-member reader leaves to the whole-text parser."""


def parse_plan_text(text: str, source: str) -> Any:
    """The plan's raw data (see the module's doc), or what ``parse_json(text)`` gives.

    Texts shorter than :data:`STREAM_FROM` go straight to ``parse_json``.
    """
    if "\\" in text and ("\\u003a" in text or "\\u003A" in text):  # one char is fast
        return parse_json(text, source=source)
    if len(text) < STREAM_FROM:
        text = decode_text(text, source)  # as parse_json reads it: without a byte order mark
        fast = _read_fast(text)
        if fast is not None:
            return fast
        raw = parse_unchecked(text, source)
        try:
            if _shared_and_counted(raw) == text.count(":"):
                return raw
        except (_Unusual, TypeError, AttributeError):
            pass
        check_parsed(text, raw, source)  # it says what is wrong, or that nothing is
        return raw
    try:
        return _Reader(text).document()
    except (_Unusual, ValueError, IndexError, RecursionError, TypeError, StopIteration):
        return parse_json(text, source=source)


def _read_fast(text: str) -> dict[str, Any] | None:
    """orjson's parse of ``text``, shared and checked, when it is what the stdlib's parse
    would give; else None.

    It is not when it holds a float: orjson reads a float as ``float`` (the
    stdlib's reader, with its hook, as ``JSONFloat``) and a number past 64 bits
    as a ``float`` too. Plans hold none, as a rule; a text that holds one, or
    that orjson refuses (where the stdlib words the refusal), is read again
    by the stdlib.
    """
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    try:
        if type(raw) is dict and _shared_and_counted(raw) == text.count(":"):
            return raw
    except (_Unusual, TypeError, AttributeError):
        pass
    return None


def _shared_and_counted(raw: dict[str, Any]) -> int:
    """Share the equal entries of ``raw``'s FQN maps (as the member-by-member reader does) and
    count the colons of all of ``raw`` written compactly; an :class:`_Unusual` value (not
    finite, not Unicode, past 64 bits, nested near the limit, a ``float`` that is no
    ``JSONFloat``) raises.

    Each entry is written once (its bytes tell equal entries apart) and only the
    first of its kind is checked for depth; ``check_parsed`` would write the
    whole document again. The count is compared with the text's: fewer colons
    kept than read means a repeated key (see ``jsonio._check_unique_keys``).
    """
    colons = len(raw)  # the top-level keys
    for key, value in raw.items():
        _key(key)
        if key in STREAMED_FIELDS and type(value) is dict:
            colons += len(value) + _share(value)
        else:
            colons += _nested_within(value, _NEST + 1).count(b":")
            _refuse_float(value)
    return colons


def _share(entries: dict[str, Any]) -> int:
    """Replace each object entry by the first equal one; the colons of the entries written.

    The other entries (class names, in ``boundary_classes``) are written
    together, in one call.
    """
    if not "".join(entries).isascii():
        for fqn in entries:
            _key(fqn)
    shared: dict[bytes, tuple[Any, int]] = {}
    others: list[Any] = []
    colons = 0
    dumps, get = orjson.dumps, shared.get
    for fqn, value in entries.items():
        if type(value) is not dict:
            others.append(value)
            continue
        try:
            written = dumps(value, default=_float)
        except TypeError as exc:  # not finite, not Unicode, past 64 bits, past orjson's depth
            raise _Unusual(str(exc)) from exc
        known = get(written)
        if known is None:
            _nested_within(value, _NEST)
            _refuse_float(value)
            known = shared[written] = (value, written.count(b":"))
        else:
            entries[fqn] = known[0]
        colons += known[1]
    if others:  # each of them nested at most _NEST levels
        colons += _nested_within(others, _NEST + 1).count(b":")
        _refuse_float(others)
    return colons


_TEXT = {str}


def _refuse_float(value: Any) -> None:
    """Raise :class:`_Unusual` when ``value`` holds a ``float`` (a ``JSONFloat`` is none)."""
    kind = type(value)
    if kind is float:
        raise _Unusual("a float, or a number past 64 bits, as orjson reads them")
    if kind is dict:
        for item in value.values():
            if type(item) is not str:
                _refuse_float(item)
    elif kind is list and not set(map(type, value)) <= _TEXT:  # 44k names: one C pass
        for item in value:
            _refuse_float(item)


def _key(key: str) -> None:
    if not (key.isascii() or _unicode(key)):
        raise _Unusual("a key that is not Unicode text")


class _Reader:
    """One pass over ``text``; ``at`` is where the next token starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def space(self) -> None:
        self.at = _SPACE.match(self.text, self.at).end()  # type: ignore[union-attr]

    def document(self) -> dict[str, Any]:
        self.space()
        raw: dict[str, Any] = {}
        for key in self.members(raw):
            if key in STREAMED_FIELDS and self.text.startswith("{", self.at):
                raw[key] = self.fqn_map()
            else:
                raw[key] = self.value(_NEST + 1)
        self.space()
        if self.at != len(self.text):
            raise _Unusual("text after the document")
        return raw

    def members(self, seen: dict[str, Any]) -> Iterator[str]:
        """The keys of the object starting here; after each, ``at`` is at its value, and the
        caller reads the value before asking for the next key."""
        text = self.text
        if not text.startswith("{", self.at):
            raise _Unusual("not an object")
        self.at += 1
        self.space()
        if text.startswith("}", self.at):
            self.at += 1
            return
        while True:
            if not text.startswith('"', self.at):
                raise _Unusual("a key is not a string")
            key, self.at = scanstring(text, self.at + 1, True)
            if key in seen or not (key.isascii() or _unicode(key)):
                raise _Unusual("a repeated key, or one that is not Unicode text")
            self.space()
            if not text.startswith(":", self.at):
                raise _Unusual("no colon")
            self.at += 1
            self.space()
            yield key
            self.space()
            if text.startswith(",", self.at):
                self.at += 1
                self.space()
                continue
            if not text.startswith("}", self.at):
                raise _Unusual("no comma")
            self.at += 1
            return

    def fqn_map(self) -> dict[str, Any]:
        """An FQN map's entries, each equal object shared (checked once, when first read).

        The hot loop of a big plan: one regex to the key, one past the colon,
        the C decoder for the value, one regex past the comma.
        """
        text = self.text
        decode = _DECODER.scan_once  # type: ignore[attr-defined]  # the C scanner itself
        out: dict[str, Any] = {}
        shared: dict[bytes, Any] = {}
        found = _FIRST.match(text, self.at)
        if found is None:
            raise _Unusual("not an object")
        at = found.end()
        while text[at - 1] == '"':
            key, at = scanstring(text, at, True)
            colon = _COLON.match(text, at)
            if colon is None or key in out or not (key.isascii() or _unicode(key)):
                raise _Unusual("no colon, or a repeated key, or one that is not Unicode")
            start = colon.end()
            value, at = decode(text, start)
            if type(value) is str:
                if not (value.isascii() or _unicode(value)):
                    raise _Unusual("a string that is not Unicode")
            else:
                written = _written(value)
                _same_keys(text, start, at, written)
                if type(value) is dict:
                    known = shared.get(written)
                    if known is None:
                        _nested_within(value, _NEST)
                        known = shared[written] = value
                    value = known
                else:
                    _nested_within(value, _NEST)
            out[key] = value
            found = _NEXT.match(text, at)
            if found is None:
                raise _Unusual("no comma")
            at = found.end()
        self.at = at
        return out

    def value(self, levels: int) -> Any:
        start = self.at
        value, self.at = _DECODER.raw_decode(self.text, start)
        _same_keys(self.text, start, self.at, _written(value))
        _nested_within(value, levels)
        return value


def _float(value: Any) -> Any:
    """orjson's hook: a finite float as the stdlib writes it (so two floats never write
    alike: the written bytes are what equal entries are shared by)."""
    if type(value) is not JSONFloat:
        raise TypeError(f"not JSON: {type(value).__name__}")
    finite(value)
    return orjson.Fragment(float.__repr__(value).encode())


def _written(value: Any) -> bytes:
    """Compact JSON of ``value``, which must be finite Unicode of 64-bit integers."""
    try:
        return orjson.dumps(value, default=_float)
    except TypeError as exc:  # not finite, not Unicode, past 64 bits, past orjson's depth
        raise _Unusual(str(exc)) from exc


def _nested_within(value: Any, levels: int) -> bytes:
    """``value`` nests at most ``levels`` deep (orjson's limit is :data:`MAX_DEPTH` levels:
    it is padded up to it); its compact JSON inside the padding's brackets."""
    padded: Any = value
    for _ in range(MAX_DEPTH - levels):
        padded = [padded]
    return _written(padded)


def _same_keys(text: str, start: int, end: int, written: bytes) -> None:
    """Every key read was kept: the text and what was kept hold the same colons."""
    if text.count(":", start, end) != written.count(b":"):
        raise _Unusual("a repeated key")


def _unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
