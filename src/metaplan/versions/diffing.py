"""Structural diff of two plans, as a change record that turns one into the other.

A specialized walk: shared structure is skipped by identity (two states of
one trace share every untouched entry), equal entries of separately loaded
plans are told equal by their cached canonical bytes (a loaded plan holds
each distinct entry once, so that is a handful of comparisons), and ``True``
is never taken for ``1``. The record's hashes are computed only if read.

>>> from metaplan.core.plan import Plan
>>> a = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "p": {"tp": "R"}}}})
>>> b = Plan.from_json({"param_plan": {"m": {"is_boundary": 1, "p": {"tp": "S(0)"}}}})
>>> for change in diff(a, b).changes:
...     print(change.op, "/".join(change.path), change.old, "->", change.new)
set param_plan/m/is_boundary True -> 1
set param_plan/m/p/tp R -> S(0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metaplan.algorithms.sequences import ItemEdit, edit_script, json_key
from metaplan.core.plan import Plan
from metaplan.frozen import MISSING, JSONMap, freeze_owned, is_array, json_equal
from metaplan.records.change import Change, ChangeRecord, Path

__all__ = ["array_changes", "changes_between", "diff", "item_identity"]

_new_change = Change._make  # tuple.__new__ bound by Change: no keyword handling


def diff(a: Plan, b: Plan, *, name: str = "diff", why: str = "",
         arrays: str = "items") -> ChangeRecord:
    """The record that turns ``a`` into ``b``: ``apply(a, diff(a, b)) == b``.

    Changes descend into objects and come in key order; values of different
    kinds are replaced whole. Arrays are diffed item by item (``arrays=
    "items"``, see :func:`array_changes`), or replaced whole (``"whole"``).
    """
    if arrays not in ("items", "whole"):
        raise ValueError(f"arrays is 'items' or 'whole', not {arrays!r}")
    changes: list[Change] = []
    if a is not b:
        _Walk(why, changes, arrays == "items").plans(a, b)
    return ChangeRecord(name, a, b, changes)


def changes_between(old: Any, new: Any, path: Path, *, why: str = "") -> list[Change]:
    """The changes that turn value ``old`` at ``path`` into ``new`` (arrays item by item);
    :data:`~metaplan.frozen.MISSING` for an absent value.

    >>> [c[:4] for c in changes_between([1, 2], [1, 3], ("xs",))]
    [('remove', ('xs', 1), 2, None), ('add', ('xs', 1), None, 3)]
    """
    out: list[Change] = []
    _Walk(why, out).value(old, new, path)
    return out


class _Walk:
    """One diff: where the changes go, and which pairs of raw objects are known equal."""

    __slots__ = ("inside", "items", "known", "out", "why")

    def __init__(self, why: str, out: list[Change], items: bool = True) -> None:
        self.why = why
        self.out = out
        self.items = items
        self.known: dict[tuple[int, int], bool] = {}
        self.inside: dict[tuple[int, int], list[Change]] = {}

    def plans(self, a: Plan, b: Plan) -> None:
        maps_a, maps_b = a.map_fields, b.map_fields
        for key in sorted({*a, *b}):
            if key in maps_a and key in maps_b:
                self.maps(a.index(key), b.index(key), (key,))
            else:
                self.value(_field(a, key, maps_a), _field(b, key, maps_b), (key,))

    def maps(self, xi: Mapping[str, Any], yi: Mapping[str, Any], path: Path) -> None:
        """Two objects' items (frozen or raw values), key by key, in key order."""
        get = yi.get
        keys = [key for key, old in xi.items() if get(key, MISSING) is not old]
        if len(yi) != len(xi) - len(keys) or keys:
            keys += yi.keys() - xi.keys()
        for key in sorted(keys):
            self.value(xi.get(key, MISSING), yi.get(key, MISSING), (*path, key))

    def value(self, old: Any, new: Any, here: Path) -> None:
        out, why = self.out, self.why
        if new is MISSING:
            if old is not MISSING:
                out.append(_new_change(("remove", here, _frozen(old), None, why)))
        elif old is MISSING:
            out.append(_new_change(("add", here, None, _frozen(new), why)))
        elif type(old) is JSONMap and type(new) is JSONMap:
            if old._data is not new._data and old.canonical() != new.canonical():
                self.entries(old, new, here)
        elif type(old) is dict and type(new) is dict:
            if not self.same(old, new):
                self.maps(old, new, here)
        elif self.items and is_array(old) and is_array(new):
            if not json_equal(old, new):
                self.arrays(old, new, here)
        elif not json_equal(old, new):
            out.append(_new_change(("set", here, _frozen(old), _frozen(new), why)))

    def entries(self, old: JSONMap, new: JSONMap, here: Path) -> None:
        """Two different objects: their changes, worked out once per distinct pair.

        A loaded plan holds each distinct entry once, so the 15,000 expert
        entries of two plans make a handful of pairs; each pair's changes are
        found once and given the path of every module that holds it.
        """
        pair = (id(old), id(new))
        inside = self.inside.get(pair)
        if inside is None:
            inside = self.inside[pair] = []
            _Walk(self.why, inside, self.items).maps(old._data, new._data, ())
        self.out += [_new_change((op, here + path, was, now, why))
                     for op, path, was, now, why in inside]

    def arrays(self, old: Sequence[Any], new: Sequence[Any], here: Path) -> None:
        """Two different arrays: item by item, or replaced whole when no item is kept."""
        script = array_changes(old, new)
        if script is None:
            self.out.append(_new_change(("set", here, _frozen(old), _frozen(new),
                                                 self.why)))
            return
        for edit in script:
            at = (*here, edit.index)
            if edit.op == "set":
                self.value(edit.old, edit.new, at)
            elif edit.op == "remove":
                self.out.append(_new_change(("remove", at, _frozen(edit.old), None,
                                                     self.why)))
            else:
                self.out.append(_new_change(("add", at, None, _frozen(edit.new),
                                                     self.why)))

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


def item_identity(item: Any) -> Any:
    """An object item's identity: its ``match`` (injections, module overrides)."""
    return json_key(item.get("match")) if isinstance(item, Mapping) and "match" in item \
        else None


def array_changes(old: Sequence[Any], new: Sequence[Any]) -> list[ItemEdit] | None:
    """The item edits that turn array ``old`` into ``new`` (see
    :mod:`metaplan.algorithms.sequences`).

    Objects with a ``match`` (injections, module overrides) are matched by
    it, so an edited one is one ``set`` to diff inside; other items by value
    (a longest common subsequence; sorted string arrays such as
    ``frozen_sharded_params`` by a linear merge). ``None`` when the two share
    no item: then the array is replaced whole, one change instead of a
    removal per item and an addition per item.

    >>> array_changes(["a", "b", "c"], ["a", "c", "d"])
    [ItemEdit(op='remove', index=1, old='b', new=None), \
ItemEdit(op='add', index=2, old=None, new='d')]
    """
    keyed = bool(old) and bool(new) and all(item_identity(item) is not None
                                            for item in (*old, *new))
    script = edit_script(old, new, key=item_identity if keyed else None)
    kept = len(old) - sum(edit.op == "remove" for edit in script)
    return script if kept or not old else None


def _field(plan: Plan, key: str, maps: tuple[str, ...]) -> Any:
    """A top-level value as the walk compares it: an FQN map as its read index."""
    if key not in plan:
        return MISSING
    return freeze_owned(dict(plan.index(key))) if key in maps else plan[key]


def _frozen(value: Any) -> Any:
    return value if type(value) in _FLAT else freeze_owned(value)


_FLAT = (str, int, bool, type(None))
