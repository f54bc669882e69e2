"""Changes and change records: what a pass changed, the old and new values, and why.

A :class:`Change` is plain data: an op (``add`` / ``remove`` / ``set``), a
path of keys from the plan's root (strings for object keys, integers for
array items), the old and the new value, and a short *why*. In an array,
``add`` inserts before the index and ``remove`` deletes the item, shifting
the rest, exactly as RFC 6902 JSON Patch does; ``set`` replaces an item.

A :class:`ChangeRecord` is one pass's changes plus the content hashes of the
plan before (``base``) and after (``result``). The hashes are computed when
first read, not when the record is made.

>>> change = Change("set", ("param_plan", "m", "is_boundary"), True, False, "example")
>>> change.inverse()
Change(op='set', path=('param_plan', 'm', 'is_boundary'), old=False, new=True, why='example')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from metaplan.errors import InputError, describe
from metaplan.frozen import freeze, shorten, thaw
from metaplan.viewing import notebook_view

if TYPE_CHECKING:
    from metaplan.core.plan import Plan

__all__ = ["LEGACY_FORMATS", "LEGACY_HASH", "OPS", "RECORDS_FORMAT", "RECORD_FORMAT", "Change",
           "ChangeRecord", "Key", "Path"]

OPS = ("add", "remove", "set")
"""The ops a change may have."""

RECORD_FORMAT = "metaplan.record/2"
RECORDS_FORMAT = "metaplan.records/2"
LEGACY_FORMATS = ("metaplan.record/1", "metaplan.records/1")
"""Formats still read: string paths and hashes of the first digest (not checked on replay)."""

_RECORD_FORMATS = (RECORD_FORMAT, LEGACY_FORMATS[0])

LEGACY_HASH = "legacy:"
"""Prefix of the hashes a version-1 records file carries: of the first digest, not checkable."""

Key = str | int
"""A step of a path: an object key, or an array index."""

Path = tuple[Key, ...]
"""Keys from the plan's root: ``("param_plan", "model.layers.3.mlp", "is_boundary")``."""


class Change(NamedTuple):
    """One edit at ``path``: ``set`` replaces ``old`` by ``new``, ``add`` / ``remove`` a key."""

    op: str
    path: Path
    old: Any = None
    new: Any = None
    why: str = ""

    def inverse(self) -> Change:
        """The change that undoes this one."""
        if self.op == "set":
            return Change("set", self.path, self.new, self.old, self.why)
        op = "remove" if self.op == "add" else "add"
        return Change(op, self.path, self.new, self.old, self.why)

    def to_json(self) -> dict[str, Any]:
        """``{"op", "path", "old"?, "new"?, "why"}``; add has no old, remove no new."""
        out: dict[str, Any] = {"op": self.op, "path": list(self.path)}
        if self.op != "add":
            out["old"] = thaw(self.old)
        if self.op != "remove":
            out["new"] = thaw(self.new)
        out["why"] = self.why
        return out

    @classmethod
    def from_json(cls, obj: Any, where: str = "change", *, legacy: bool = False) -> Change:
        """A change from its JSON form, checked: its op, path, values, and that what it sets
        is plan-shaped (``legacy``: a version-1 record's, whose paths are strings only)."""
        if not isinstance(obj, Mapping):
            raise InputError(f"{where}: a change is an object, found {describe(obj)}")
        op = obj.get("op")
        if op not in OPS:
            raise InputError(f"{where}.op: must be one of {list(OPS)}, found {describe(op)}")
        path = obj.get("path")
        keys = (str,) if legacy else (str, int)
        if (not isinstance(path, list) or not path or type(path[0]) is not str
                or not all(type(key) in keys for key in path)):
            need = "keys" if legacy else "keys (strings) and item numbers"
            raise InputError(f"{where}.path: must be a non-empty array of {need}, starting with "
                             f"a field name, found {_shown(path)}")
        if any(type(key) is int and key < 0 for key in path):
            raise InputError(f"{where}.path: array item numbers are 0 or more, found {path}")
        for key in ("old",) if op == "remove" else ("new",) if op == "add" else ("old", "new"):
            if key not in obj:
                raise InputError(f"{where}: a {op} change needs {key!r}")
        if op != "remove":
            from metaplan.core.shape import check_value  # only when records are read

            check_value(path, obj.get("new"), f"{where}.new")
        why = obj.get("why", "")
        return cls(op, tuple(path), freeze(obj.get("old")), freeze(obj.get("new")),
                   why if isinstance(why, str) else str(why))


def _shown(value: Any) -> str:
    try:
        return shorten(value)
    except (TypeError, ValueError):
        return describe(value)


class ChangeRecord:
    """One pass's changes and the content hashes of the plan before and after.

    ``base`` and ``result`` may be given as the plans themselves; their
    hashes are then computed when first read (and the plans let go).
    Records compare equal when their pass, hashes and changes are equal.
    """

    __slots__ = ("_base", "_result", "changes", "pass_name")

    pass_name: str
    changes: tuple[Change, ...]

    def __init__(self, pass_name: str, base: str | Plan, result: str | Plan,
                 changes: Iterable[Change] = ()) -> None:
        self.pass_name = pass_name
        self._base = base
        self._result = result
        self.changes = changes if type(changes) is tuple else tuple(changes)

    @property
    def base(self) -> str:
        """The content hash of the plan the changes apply to."""
        if not isinstance(self._base, str):
            self._base = self._base.content_hash
        return self._base

    @property
    def result(self) -> str:
        """The content hash of the plan the changes give."""
        if not isinstance(self._result, str):
            self._result = self._result.content_hash
        return self._result

    def to_json(self) -> dict[str, Any]:
        """``{"format": "metaplan.record/2", "pass", "base", "result", "changes"}``;
        :meth:`from_json` reads it back."""
        return {"format": RECORD_FORMAT, "pass": self.pass_name, "base": self.base,
                "result": self.result, "changes": [c.to_json() for c in self.changes]}

    @classmethod
    def from_json(cls, obj: Any, *, where: str = "record") -> ChangeRecord:
        """A record from its JSON form, checking its shape and format (a version-1 record's
        hashes get :data:`LEGACY_HASH` before them)."""
        if not isinstance(obj, Mapping):
            raise InputError(f"{where}: a record is an object, found {describe(obj)}")
        found = obj.get("format", RECORD_FORMAT)
        if found not in _RECORD_FORMATS:
            raise InputError(f'{where}.format: expected "{RECORD_FORMAT}" (or the older '
                             f'"{LEGACY_FORMATS[0]}"), found {describe(found)}')
        for key in ("pass", "base", "result"):
            if not isinstance(obj.get(key), str):
                raise InputError(f"{where}.{key}: must be a string, found "
                                 f"{describe(obj.get(key))}")
        items = obj.get("changes")
        if not isinstance(items, list):
            raise InputError(f"{where}.changes: must be an array, found {describe(items)}")
        legacy = found != RECORD_FORMAT
        changes = tuple(Change.from_json(item, f"{where}.changes[{i}]", legacy=legacy)
                        for i, item in enumerate(items))
        base, result = obj["base"], obj["result"]
        if legacy:
            base, result = LEGACY_HASH + base, LEGACY_HASH + result
        return cls(obj["pass"], base, result, changes)

    def renamed(self, pass_name: str) -> ChangeRecord:
        """This record under another pass name."""
        return ChangeRecord(pass_name, self._base, self._result, self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __bool__(self) -> bool:
        return True

    @property
    def is_noop(self) -> bool:
        """Whether the pass changed nothing."""
        return not self.changes

    def touching(self, prefix: Sequence[Key]) -> tuple[Change, ...]:
        """The changes at ``prefix`` or below it (or above it: a change that replaced it)."""
        n = len(prefix)
        pre = tuple(prefix)
        return tuple(c for c in self.changes if c.path[:n] == pre or pre[:len(c.path)] == c.path)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChangeRecord):
            return NotImplemented
        return (self.pass_name == other.pass_name and self.changes == other.changes
                and self.base == other.base and self.result == other.result)

    def __hash__(self) -> int:
        return hash((self.pass_name, self.base, self.result, len(self.changes)))

    def __repr__(self) -> str:
        return (f"ChangeRecord({self.pass_name!r}, {len(self.changes)} changes, "
                f"{self.base[:15]}… -> {self.result[:15]}…)")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The notebook view: folded text, HTML and JSON (:mod:`metaplan.viewing`)."""
        return notebook_view(self, include, exclude)
