"""Structural diff of two plans, as a change record that turns one into the other.

A specialized walk: shared structure is skipped by identity (two states of
one trace share every untouched entry), equal entries of separately loaded
plans are told equal by their cached canonical bytes (a loaded plan holds
each distinct entry once, so that is a handful of comparisons), and ``True``
is never taken for ``1``. The record's hashes are computed only if read.

>>> from metaplan.plan import Plan
>>> a = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "p": {"tp": "R"}}}})
>>> b = Plan.from_json({"param_plan": {"m": {"is_boundary": 1, "p": {"tp": "S(0)"}}}})
>>> for change in diff(a, b).changes:
...     print(change.op, "/".join(change.path), change.old, "->", change.new)
set param_plan/m/is_boundary True -> 1
set param_plan/m/p/tp R -> S(0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyrsistent import PMap

from metaplan.change import Change, ChangeRecord, Path
from metaplan.frozen import MISSING, JSONMap, freeze_owned, json_equal
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
        _Walk(why, changes).fields(a, b)
    return ChangeRecord(name, a, b, changes)


class _Walk:
    """One diff: where the changes go, and which pairs of entries are known equal."""

    __slots__ = ("known", "out", "why")

    def __init__(self, why: str, out: list[Change]) -> None:
        self.why = why
        self.out = out
        self.known: dict[tuple[int, int], bool] = {}

    def fields(self, a: Plan, b: Plan) -> None:
        fa, fb = a.fields, b.fields
        for key in sorted(set(fa) | set(fb)):
            old, new = fa.get(key, MISSING), fb.get(key, MISSING)
            if old is new:
                continue
            if isinstance(old, PMap) and isinstance(new, PMap):
                self.maps(a.index(key), b.index(key), (key,))
            else:
                self.value(old, new, (key,))

    def maps(self, xi: Mapping[str, Any], yi: Mapping[str, Any], path: Path) -> None:
        """Two objects' items (frozen or raw values), key by key."""
        for key in sorted(xi.keys() | yi.keys()):
            old, new = xi.get(key, MISSING), yi.get(key, MISSING)
            if old is not new:
                self.value(old, new, (*path, key))

    def value(self, old: Any, new: Any, here: Path) -> None:
        if new is MISSING:
            self.out.append(_new_change(Change, ("remove", here, freeze_owned(old), None,
                                                 self.why)))
        elif old is MISSING:
            self.out.append(_new_change(Change, ("add", here, None, freeze_owned(new),
                                                 self.why)))
        elif type(old) is JSONMap and type(new) is JSONMap:
            if not self.same_maps(old, new):
                self.maps(old._data, new._data, here)
        elif type(old) is dict and type(new) is dict:
            if not self.same(old, new):
                self.maps(old, new, here)
        elif not json_equal(old, new):
            self.out.append(_new_change(Change, ("set", here, freeze_owned(old),
                                                 freeze_owned(new), self.why)))

    def same_maps(self, x: JSONMap, y: JSONMap) -> bool:
        """Whether two entries are equal, by their cached canonical bytes."""
        return x._data is y._data or x.canonical() == y.canonical()

    def same(self, x: dict[str, Any], y: dict[str, Any]) -> bool:
        """Whether two raw objects are equal; each distinct pair is compared once.

        Raw objects inside shared entries recur: a plan holds each distinct
        entry once. Both stay alive in their plans while the walk runs, so
        their ids are theirs.
        """
        pair = (id(x), id(y))
        known = self.known.get(pair)
        if known is None:
            known = self.known[pair] = json_equal(x, y)
        return known
