"""Immutable JSON values: the leaves and small objects a plan is made of.

A plan's big maps (``param_plan``, ``boundary_classes``) are pyrsistent
``PMap`` s. The small JSON objects inside them (an entry of a dozen keys, its
placement maps) are :class:`JSONMap` s: read-only views over a private dict
that nothing else references. Changing one copies that dict (a dozen
pointers), which is cheaper than any trie at that size and shares every
nested value with the original. JSON arrays become ``PVector`` s.

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
import gc
import math
import weakref
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, cast

import orjson
from pyrsistent import PMap, PVector, pvector
from pyrsistent import pmap as _pmap

__all__ = [
    "JSONFloat",
    "JSONMap",
    "fast_view",
    "freeze",
    "freeze_owned",
    "frozen",
    "json_equal",
    "paused_gc",
    "thaw",
    "to_raw",
]

_SCALARS = (str, int, bool, type(None))


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector while building large acyclic trees.

    Plans are trees of fresh containers; each collection the allocations
    trigger would walk the whole tree for cycles that cannot exist.
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
    nothing changes. ``_data`` is private to metaplan, whose passes read it
    directly in their hot loops; nothing ever writes it.
    """

    __slots__ = ("_canon", "_data")

    _data: dict[str, Any]
    _canon: bytes | None

    def __init__(self, data: Mapping[str, Any] = ()) -> None:  # type: ignore[assignment]
        self._data = _own_dict(dict(data))
        self._canon = None

    @classmethod
    def _adopt(cls, data: dict[str, Any]) -> JSONMap:
        """Wrap ``data`` without copying; the caller gives up every reference to it."""
        self = object.__new__(cls)
        self._data = data
        self._canon = None
        return self

    def __getitem__(self, key: str) -> Any:
        return _view(self._data[key])

    def get(self, key: str, default: Any = None) -> Any:
        value = self._data.get(key, _MISSING)
        return default if value is _MISSING else _view(value)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def set(self, key: str, value: Any) -> JSONMap:
        """Return a map with ``key`` bound to ``value``; this map if it already is."""
        old = self._data.get(key, _MISSING)
        if old is not _MISSING and json_equal(old, value):
            return self
        data = dict(self._data)
        data[key] = to_raw(value)
        return JSONMap._adopt(data)

    def discard(self, key: str) -> JSONMap:
        """Return a map without ``key``; this map if it has no such key."""
        if key not in self._data:
            return self
        data = dict(self._data)
        del data[key]
        return JSONMap._adopt(data)

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


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


def _view(value: Any) -> Any:
    """The immutable face of an owned raw value."""
    kind = type(value)
    if kind is dict:
        return JSONMap._adopt(value)
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
    """A private raw copy of ``value`` (dicts, lists, scalars) safe to share read-only."""
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
    if isinstance(value, (str, int)):  # subclasses, e.g. enums
        return str(value) if isinstance(value, str) else int(value)
    raise TypeError(f"{type(value).__name__} is not a JSON value: {value!r}")


def _own_dict(value: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"JSON object keys are strings, found {key!r}")
        out[key] = to_raw(item)
    return out


def thaw(value: Any) -> Any:
    """A fresh mutable deep copy of a frozen (or raw) value: dicts, lists, scalars."""
    if isinstance(value, (JSONMap, Mapping)):
        raw = value._data if isinstance(value, JSONMap) else value
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
    if isinstance(value, PMap):
        return {key: item._data if type(item) is JSONMap else item
                for key, item in mirror(value).items()}
    if isinstance(value, (PVector, tuple)):
        return list(value)
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
    return canonical_bytes(a) == canonical_bytes(b)


def pmap_of(raw: Mapping[str, Any]) -> PMap[Any, Any]:
    """A ``PMap`` over owned raw values, each frozen without copying."""
    frozen = {key: _view(value) for key, value in raw.items()}
    return pmap_with_mirror(frozen)


# mirrors: dict copies of PMaps, for C-speed reads --------------------------------
#
# A PMap lookup is pure Python (~5 us); a dict lookup is ~50 ns. Each PMap a
# pass reads gets a plain dict with the same items, kept while the PMap lives
# and never handed out mutable. An edited map's mirror is its base's mirror,
# copied (a memcpy) and patched with the delta.

_MIRRORS: dict[int, tuple[weakref.ref[PMap[Any, Any]], dict[Any, Any]]] = {}


def _forget(key: int) -> Any:
    def callback(_ref: Any) -> None:
        _MIRRORS.pop(key, None)
    return callback


def remember_mirror(value: PMap[Any, Any], items: dict[Any, Any]) -> None:
    """Record ``items`` (never mutated again) as the dict mirror of ``value``."""
    key = id(value)
    _MIRRORS[key] = (weakref.ref(value, _forget(key)), items)


def mirror(value: PMap[Any, Any]) -> dict[Any, Any]:
    """The dict with ``value``'s items, built once per map. Read it; never write it."""
    known = _MIRRORS.get(id(value))
    if known is not None and known[0]() is value:
        return known[1]
    items = dict(value.items())
    remember_mirror(value, items)
    return items


def pmap_with_mirror(items: dict[Any, Any]) -> PMap[Any, Any]:
    """``pmap(items)``, with ``items`` (which the caller gives up) kept as its mirror."""
    value = _pmap(items)
    remember_mirror(value, items)
    return value


def fast_view(value: PMap[Any, Any]) -> Mapping[Any, Any]:
    """A read-only dict view of a ``PMap``'s items: C-speed lookups and iteration.

    >>> view = fast_view(_pmap({"a": 1}))
    >>> view["a"], len(view)
    (1, 1)
    """
    return MappingProxyType(mirror(value))
