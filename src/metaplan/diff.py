"""Structural diff of two plans, as a change record that turns one into the other.

Shared structure is skipped by identity, so two states of one trace (which
share every untouched entry) diff in time proportional to what differs;
two separately loaded plans are compared entry by entry at C speed, with
``True`` never taken for ``1``.

>>> from metaplan.plan import Plan
>>> a = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "p": {"tp": "R"}}}})
>>> b = Plan.from_json({"param_plan": {"m": {"is_boundary": 1, "p": {"tp": "S(0)"}}}})
>>> for change in diff(a, b).changes:
...     print(change.op, "/".join(change.path), change.old, "->", change.new)
set param_plan/m/is_boundary True -> 1
set param_plan/m/p/tp R -> S(0)
"""

from __future__ import annotations

from typing import Any

import orjson
from pyrsistent import PMap

from metaplan.changes import Change, ChangeRecord
from metaplan.frozen import (
    JSONMap,
    canonical_bytes,
    freeze_owned,
    json_equal,
    mirror,
    orjson_default,
)
from metaplan.plan import Plan

__all__ = ["diff"]

_new_change = tuple.__new__


def diff(a: Plan, b: Plan, *, name: str = "diff", why: str = "") -> ChangeRecord:
    """The record that turns ``a`` into ``b``: ``apply(a, diff(a, b)) == b``.

    Changes descend into objects and come in key order; arrays and values of
    different kinds are replaced whole.
    """
    changes: list[Change] = []
    if a.fields is not b.fields:
        _diff_maps(a.fields, b.fields, (), why, changes)
    return ChangeRecord(name, a.content_hash, b.content_hash, tuple(changes))


def _items(value: Any) -> dict[str, Any]:
    return value._data if type(value) is JSONMap else mirror(value)


def _is_map(value: Any) -> bool:
    return type(value) is JSONMap or type(value) is dict or isinstance(value, PMap)


def _as_map(value: Any) -> Any:
    return JSONMap._adopt(value) if type(value) is dict else value


def _same(x: Any, y: Any) -> bool:
    """Strict JSON equality of two raw or frozen values, fast when they are equal."""
    if x is y:
        return True
    if type(x) is JSONMap and type(y) is JSONMap:
        x, y = x._data, y._data
        if x is y:
            return True
    if type(x) is dict and type(y) is dict:
        if x != y:  # C speed; but True == 1 here, so equal needs a second look
            return False
        return _bytes(x) == _bytes(y) or canonical_bytes(x) == canonical_bytes(y)
    return json_equal(x, y)


def _bytes(value: dict[str, Any]) -> bytes:
    """JSON bytes in the dict's own key order: cheap, and equal for plans written sorted."""
    try:
        return orjson.dumps(value, default=orjson_default)
    except TypeError:  # integers past 64 bits, lone surrogates
        return canonical_bytes(value)


def _diff_maps(x: Any, y: Any, path: tuple[str, ...], why: str, out: list[Change]) -> None:
    xi, yi = _items(x), _items(y)
    for key in sorted(xi.keys() | yi.keys()):
        here = (*path, key)
        old = xi.get(key, _ABSENT)
        new = yi.get(key, _ABSENT)
        if old is new:
            continue
        if new is _ABSENT:
            out.append(_new_change(Change, ("remove", here, freeze_owned(old), None, why)))
        elif old is _ABSENT:
            out.append(_new_change(Change, ("add", here, None, freeze_owned(new), why)))
        elif _is_map(old) and _is_map(new):
            if isinstance(old, PMap) or not _same(old, new):
                _diff_maps(_as_map(old), _as_map(new), here, why, out)
        elif not _same(old, new):
            out.append(_new_change(Change, ("set", here, freeze_owned(old), freeze_owned(new),
                                            why)))


_ABSENT: Any = object()
