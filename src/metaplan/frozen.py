"""Immutable JSON values: the leaves and small objects a plan is made of.

A JSON object inside a plan is a :class:`JSONMap`: a read-only view over a
private dict that nothing else references. Changing one copies that dict (a
dozen pointers), which is cheaper than any trie at that size and shares every
nested value with the original. JSON arrays read as ``PVector`` s; scalars are
``str``, ``int``, ``bool``, ``None`` and :class:`JSONFloat`.

Because nothing here can change, equal values may be one object: loading a
plan shares each distinct entry among all the modules that hold it
(:func:`interned`), so 15,000 expert entries of six kinds are six objects.

>>> m = freeze({"is_boundary": True, "params": {"weight": {"tp": "S(0)"}}})
>>> m["params"]["weight"]["tp"]
'S(0)'
>>> m2 = m.set("is_boundary", False)
>>> m["is_boundary"], m2["is_boundary"]
(True, False)
>>> m.set("is_boundary", True) is m
True
"""

from __future__ import annotations

import contextlib
import enum
import gc
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

import orjson
from pyrsistent import PMap, PVector, pvector

__all__ = [
    "MISSING",
    "SCALAR_TYPES",
    "JSONFloat",
    "JSONMap",
    "Missing",
    "canonical_bytes",
    "forget_canonical",
    "freeze",
    "freeze_owned",
    "frozen",
    "interned",
    "is_array",
    "is_object",
    "item_number",
    "json_equal",
    "orjson_default",
    "paused_gc",
    "shorten",
    "shown",
    "step",
    "thaw",
    "to_raw",
    "walk",
    "writable",
]

SCALAR_TYPES = (str, int, bool, type(None))
"""The exact types of the JSON scalars a plan holds as they are (a float is a
:class:`JSONFloat`)."""
_SCALARS = SCALAR_TYPES


def is_array(value: Any) -> bool:
    """A JSON array as a plan holds one (a list, a tuple or a ``PVector``)."""
    return isinstance(value, (list, tuple, PVector))


def is_object(value: Any) -> bool:
    """A JSON object as a plan holds one (a dict or a :class:`JSONMap`)."""
    return isinstance(value, Mapping)


class Missing(enum.Enum):
    """The type of :data:`MISSING`."""

    MISSING = "missing"

    def __repr__(self) -> str:
        return "<missing>"


MISSING = Missing.MISSING
"""No value at all (an absent key), as opposed to a JSON ``null``."""


def item_number(key: Any) -> int | None:
    """The array item a key names: an ``int`` from 0, or a digit string as a JSON Pointer
    writes one (``"0"``, ``"12"``; not ``"01"``, ``"-1"`` or ``True``); else None.

    >>> item_number(3), item_number("12"), item_number("01"), item_number(True)
    (3, 12, None, None)
    """
    if type(key) is int:
        return key if key >= 0 else None
    if type(key) is str and key.isascii() and key.isdigit() and (key == "0" or key[0] != "0"):
        return int(key)
    return None


def step(value: Any, key: Any) -> Any:
    """The value under ``key`` of a JSON value, else :data:`MISSING`: an object's value
    under a string key, an array's item by :func:`item_number`; a scalar holds nothing.

    The one reader of a path's step (``Plan.at``, ``Edit.get`` and merge's lookups
    walk with it, see :func:`walk`). Raw and frozen values read alike, and what
    is found is as the value was: frozen under a frozen value, raw under a raw one.

    >>> step(freeze({"a": [1, 2]})["a"], "1"), step({"0": "x"}, "0"), step({"0": "x"}, 0)
    (2, 'x', <missing>)
    """
    if type(value) is dict or isinstance(value, Mapping):
        return value.get(key, MISSING) if type(key) is str else MISSING
    if type(value) is list or isinstance(value, PVector):
        index = item_number(key)
        return value[index] if index is not None and index < len(value) else MISSING
    return MISSING


def walk(value: Any, keys: Iterable[Any]) -> Any:
    """The value at ``keys`` under ``value`` (each a :func:`step`), else :data:`MISSING`.

    >>> walk(freeze({"a": [{"b": 1}]}), ("a", "0", "b")), walk({"a": 1}, ("a", "b"))
    (1, <missing>)
    """
    for key in keys:
        if value is MISSING:
            break
        value = step(value, key)
    return value


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector while building large acyclic trees.

    Plans are trees of fresh containers; each collection the allocations
    trigger would walk the whole tree for cycles that cannot exist. The
    collector's state is restored on the way out, whatever it was.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class JSONFloat(float):
    """A float read from JSON; it serializes exactly as the stdlib ``json`` does.

    orjson formats some floats differently from ``repr`` (``1e16`` vs
    ``1e+16``). Plans keep their floats as this subclass so the fast writer can
    hand each one back as the stdlib's own text.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return float.__repr__(self)


class JSONMap(Mapping[str, Any]):
    """An immutable JSON object: a read-only view over a dict it alone owns.

    Nested objects come back as ``JSONMap`` views (no copy), arrays as
    ``PVector`` s. ``set`` / ``discard`` return a new map, or this very map when
    nothing changes. Its canonical bytes (:meth:`canonical`) are computed once.
    """

    __slots__ = ("_canon", "_data")

    _data: dict[str, Any]
    _canon: bytes | None

    def __init__(self, data: Mapping[str, Any] = ()) -> None:  # type: ignore[assignment]
        self._data = _own_dict(dict(data))
        self._canon = None

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        kind = type(value)
        return _view(value) if kind is dict or kind is list else value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._data.get(key, MISSING)
        if value is MISSING:
            return default
        kind = type(value)
        return _view(value) if kind is dict or kind is list else value

    @classmethod
    def over(cls, data: dict[str, Any]) -> JSONMap:
        """A map over ``data`` itself, no copy: the caller must never change ``data`` again
        while the map lives (as a parser's fresh output is never changed)."""
        return _adopt(data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def set(self, key: str, value: Any) -> JSONMap:
        """Return a map with ``key`` bound to ``value``; this map if it already is."""
        old = self._data.get(key, MISSING)
        if old is not MISSING and json_equal(old, value):
            return self
        data = dict(self._data)
        data[key] = to_raw(value)
        return _adopt(data)

    def discard(self, key: str) -> JSONMap:
        """Return a map without ``key``; this map if it has no such key."""
        if key not in self._data:
            return self
        data = dict(self._data)
        del data[key]
        return _adopt(data)

    def canonical(self) -> bytes:
        """Canonical JSON bytes (sorted keys, compact); equal maps give equal bytes."""
        if self._canon is None:
            self._canon = canonical_bytes(self._data)
        return self._canon

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, JSONMap):
            return self._data is other._data or self.canonical() == other.canonical()
        if isinstance(other, Mapping):
            return json_equal(self, other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.canonical())

    def __repr__(self) -> str:
        return f"JSONMap({self._data!r})"

    def thaw(self) -> dict[str, Any]:
        """A fresh, mutable deep copy."""
        return cast(dict[str, Any], thaw(self))


def writable(index: dict[str, Any]) -> dict[str, Any]:
    """An FQN map's read index with each ``JSONMap`` entry as its raw dict: what orjson
    writes without calling back into Python once per entry (15,000 calls)."""
    return {key: value._data if type(value) is JSONMap else value
            for key, value in index.items()}


def forget_canonical(values: Iterable[Any]) -> None:
    """Drop the cached canonical bytes of the ``JSONMap`` s among ``values``: for the edit
    engine, which fills the raw dicts of the views it makes before it gives them out."""
    for value in values:
        if type(value) is JSONMap:
            value._canon = None


def _adopt(data: dict[str, Any]) -> JSONMap:
    """Wrap ``data`` without copying; the caller gives up every reference to it."""
    view = object.__new__(JSONMap)
    view._data = data
    view._canon = None
    return view


def _view(value: Any) -> Any:
    """The immutable face of an owned raw value."""
    kind = type(value)
    if kind is dict:
        return _adopt(value)
    if kind is list:
        for item in value:
            if type(item) is dict or type(item) is list:
                return pvector([_view(item) for item in value])
        return pvector(value)  # all scalars (44k parameter names, say): no call per item
    return value


def freeze_owned(value: Any) -> Any:
    """Freeze raw JSON data that no one else references (just parsed), without copying.

    Objects become ``JSONMap`` views over the very dicts; arrays ``PVector`` s.
    """
    return _view(value)


def interned(raw: dict[str, Any]) -> dict[str, JSONMap]:
    """``key -> JSONMap`` over owned raw values, equal objects shared as one ``JSONMap``.

    Values that are not objects are frozen as they are. Sharing is safe
    because nothing can change a frozen value; it makes a 15,000-entry plan
    of six kinds of entry hold six entry objects. Objects are matched by their
    JSON bytes in the order their keys were written, so two orders of one
    object are two (equal) objects: sharing is an optimization, never a
    change of meaning.
    """
    shared: dict[bytes, JSONMap] = {}
    views: dict[int, JSONMap] = {}  # a dict already shared by the reader: its one view
    out: dict[str, Any] = {}
    dumps = orjson.dumps
    for key, value in raw.items():
        if type(value) is dict:
            view = views.get(id(value))
            if view is not None:
                out[key] = view
                continue
            try:
                text = dumps(value, default=orjson_default)  # true and 1 write apart
            except TypeError:  # past 64 bits, lone surrogates: keep it unshared
                out[key] = _adopt(value)
                continue
            known = shared.get(text)
            if known is None:
                known = shared[text] = _adopt(value)
            out[key] = views[id(value)] = known
        else:
            out[key] = value if type(value) is str else _view(value)  # class names: no call
    return out


def frozen(value: Any) -> Any:
    """``value`` itself when it is already immutable plan data, else :func:`freeze` of it."""
    kind = type(value)
    if kind is JSONMap or kind is JSONFloat or kind in _SCALARS:
        return value
    return freeze(value)


def freeze(value: Any) -> Any:
    """Freeze any JSON-shaped value into its immutable form, copying what is mutable.

    Raises ``TypeError`` for a value JSON cannot hold and ``ValueError`` for a
    non-finite float.
    """
    return _view(to_raw(value))


def to_raw(value: Any) -> Any:
    """A private raw copy of ``value`` (dicts, lists, scalars) safe to share read-only.

    Subclasses of ``str`` and ``int`` (a ``(str, Enum)`` class name, say)
    become the plain value they hold, as ``json.dumps`` writes them.
    """
    kind = type(value)
    if kind in _SCALARS or kind is JSONFloat:
        return value
    if kind is JSONMap:
        return value._data
    if kind is float:
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a JSON number; plans hold finite numbers only")
        return JSONFloat(value)
    if isinstance(value, Mapping):
        return _own_dict(value)
    if isinstance(value, (list, tuple, PVector)):
        return [to_raw(item) for item in value]
    if isinstance(value, str):  # str subclasses, e.g. (str, Enum) members
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return to_raw(float(value))
    raise TypeError(f"{type(value).__name__} is not a JSON value: {value!r}")


def _own_dict(value: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"JSON object keys are strings, found {key!r}")
        out[str.__str__(key)] = to_raw(item)
    return out


def thaw(value: Any) -> Any:
    """A fresh mutable deep copy of a frozen (or raw) value: dicts, lists, scalars."""
    if isinstance(value, Mapping):
        raw = value._data if type(value) is JSONMap else value
        return {key: thaw(item) for key, item in raw.items()}
    if isinstance(value, (list, tuple, PVector)):
        return [thaw(item) for item in value]
    return value


def orjson_default(value: Any) -> Any:
    """orjson's hook for the frozen types: hand back their raw, serializable form."""
    kind = type(value)
    if kind is JSONMap:
        return value._data
    if kind is JSONFloat:
        return orjson.Fragment(float.__repr__(value).encode())
    if isinstance(value, (PVector, tuple)):
        return list(value)
    if isinstance(value, PMap):
        return dict(value.items())
    if isinstance(value, Mapping):
        return dict(value.items())
    raise TypeError(f"{kind.__name__} is not a JSON value")


def canonical_bytes(value: Any) -> bytes:
    """Compact JSON with sorted keys: the plan's identity, byte for byte."""
    try:
        return orjson.dumps(value, default=orjson_default, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # integers past 64 bits, lone surrogates: the stdlib can write them
        import json

        return json.dumps(
            thaw(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode("utf-8", "surrogatepass")


def shown(value: Any, width: int = 80) -> str:
    """A value for a message: :func:`shorten`, or ``(absent)`` for :data:`MISSING`.

    >>> shown(MISSING), shown([1, "a"]), shown("x" * 90, width=8)
    ('(absent)', '[1,"a"]', '"xxxx...')
    """
    return "(absent)" if value is MISSING else shorten(value, width)


def shorten(value: Any, width: int = 80) -> str:
    """A value as compact JSON, cut at ``width`` characters (with ``...``; 0: never cut).

    >>> shorten({"b": [1, 2], "a": "x" * 90}, width=20)
    '{"a":"xxxxxxxxxxx...'
    >>> len(shorten("x" * 90, width=0))
    92
    >>> print(shorten(["a\u2028b", "\x9b2J"]))
    ["a\\u2028b","\\u009b2J"]
    """
    text = canonical_bytes(value).decode("utf-8", "replace")
    if not text.isprintable():  # JSON leaves DEL, C1 controls and U+2028/9 raw: escape them
        text = text.translate(_UNSHOWN)
    return text if width <= 0 or len(text) <= width else text[:max(width - 3, 0)] + "..."


_UNSHOWN = {code: f"\\u{code:04x}" for code in (*range(0x7F, 0xA0), 0x2028, 0x2029)}
"""What a shown value escapes past JSON's own escapes: characters that end a line for some
readers (``str.splitlines``: U+0085, U+2028, U+2029) or drive a terminal (DEL, C1 controls);
still valid JSON."""


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``True`` is not ``1`` and ``1`` is not ``1.0``.

    >>> json_equal(True, 1), json_equal(1, 1), json_equal({"a": [1]}, freeze({"a": [1]}))
    (False, True, True)
    """
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta in _SCALARS or tb in _SCALARS:
        return ta is tb and a == b
    if isinstance(a, float) or isinstance(b, float):  # as written: -0.0 is not 0.0
        return (isinstance(a, float) and isinstance(b, float)
                and float.__repr__(a) == float.__repr__(b))
    if ta is JSONMap and tb is JSONMap:
        return bool(a.canonical() == b.canonical())
    return canonical_bytes(a) == canonical_bytes(b)
