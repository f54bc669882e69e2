"""Change records: what a pass changed, the old and new values, and why.

A :class:`Change` is plain data: an op (``add`` / ``remove`` / ``set``), a path
of keys from the plan's root, the old and the new value, and a short *why*.
A :class:`ChangeRecord` is one pass's changes plus the content hashes of the
plan before and after. Records round-trip through JSON, :func:`apply` replays
one on a plan (checking every old value and the base hash), :func:`invert`
undoes one and :func:`compose` chains several.

Paths walk objects only: a JSON array is one value, changed as a whole.

>>> from metaplan.plan import Plan, check_value, freeze_field
>>> plan = Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
>>> change = Change("set", ("param_plan", "m", "is_boundary"), True, False, "example")
>>> new = apply_changes(plan, (change,))
>>> new.param_plan["m"]["is_boundary"], plan.param_plan["m"]["is_boundary"]
(False, True)
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from pyrsistent import PMap

from metaplan.errors import ConflictError, InputError, describe, format_path
from metaplan.frozen import (
    JSONMap,
    freeze,
    freeze_owned,
    frozen,
    json_equal,
    mirror,
    pmap_with_mirror,
    remember_mirror,
    thaw,
    to_raw,
)
from metaplan.inputs import source_name
from metaplan.jsonio import dumps_pretty, parse_json, read_bytes, write_atomic
from metaplan.plan import Plan, check_value, freeze_field

__all__ = [
    "Change",
    "ChangeRecord",
    "apply",
    "apply_changes",
    "compose",
    "dump_records",
    "dumps_records",
    "invert",
    "load_records",
    "loads_records",
    "make_record",
    "records_from_json",
    "records_to_json",
    "to_json_patch",
]

RECORD_FORMAT = "metaplan.record/1"
RECORDS_FORMAT = "metaplan.records/1"
_FORMATS = (RECORD_FORMAT, RECORDS_FORMAT)
_OPS = ("add", "remove", "set")


class Change(NamedTuple):
    """One edit at ``path``: ``set`` replaces ``old`` by ``new``, ``add`` / ``remove`` a key."""

    op: str
    path: tuple[str, ...]
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


@dataclass(frozen=True)
class ChangeRecord:
    """One pass's changes and the content hashes of the plan before and after."""

    pass_name: str
    base: str
    result: str
    changes: tuple[Change, ...] = ()

    def __len__(self) -> int:
        return len(self.changes)

    def __bool__(self) -> bool:
        return True

    @property
    def is_noop(self) -> bool:
        """Whether the pass changed nothing."""
        return not self.changes

    def touching(self, prefix: Sequence[str]) -> tuple[Change, ...]:
        """The changes at ``prefix`` or below it (or above it: a change that replaced it)."""
        n = len(prefix)
        pre = tuple(prefix)
        return tuple(c for c in self.changes if c.path[:n] == pre or pre[:len(c.path)] == c.path)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; :meth:`from_json` reads it back."""
        return {"format": RECORD_FORMAT, "pass": self.pass_name, "base": self.base,
                "result": self.result, "changes": [c.to_json() for c in self.changes]}

    @classmethod
    def from_json(cls, obj: Any, *, where: str = "record") -> ChangeRecord:
        """Read a record from its JSON form, checking its shape."""
        if not isinstance(obj, Mapping):
            raise InputError(f"{where}: a record is an object, found {type(obj).__name__}")
        if obj.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise InputError(f'{where}.format: expected "{RECORD_FORMAT}", found '
                             f"{describe(obj['format'])}")
        for key in ("pass", "base", "result"):
            if not isinstance(obj.get(key), str):
                raise InputError(f"{where}.{key}: must be a string, found {obj.get(key)!r}")
        items = obj.get("changes")
        if not isinstance(items, (list, tuple)):
            raise InputError(f"{where}.changes: must be an array, found {items!r}")
        changes = tuple(_change_from_json(item, f"{where}.changes[{i}]")
                        for i, item in enumerate(items))
        return cls(obj["pass"], obj["base"], obj["result"], changes)

    def __repr__(self) -> str:
        return (f"ChangeRecord({self.pass_name!r}, {len(self.changes)} changes, "
                f"{self.base[:15]}… -> {self.result[:15]}…)")


def _change_from_json(obj: Any, where: str) -> Change:
    if not isinstance(obj, Mapping):
        raise InputError(f"{where}: a change is an object, found {obj!r}")
    op = obj.get("op")
    if op not in _OPS:
        raise InputError(f"{where}.op: must be one of {list(_OPS)}, found {op!r}")
    path = obj.get("path")
    if (not isinstance(path, (list, tuple)) or not path
            or not all(isinstance(key, str) for key in path)):
        raise InputError(f"{where}.path: must be a non-empty array of keys, found {path!r}")
    for key in ("old",) if op == "remove" else ("new",) if op == "add" else ("old", "new"):
        if key not in obj:
            raise InputError(f"{where}: a {op} change needs {key!r}")
    if op != "remove":
        check_value(path, obj.get("new"), f"{where}.new")
    why = obj.get("why", "")
    return Change(op, tuple(path), freeze(obj.get("old")), freeze(obj.get("new")),
                  why if isinstance(why, str) else str(why))


# applying ------------------------------------------------------------------

_MISSING: Any = object()
_REBUILD_FRACTION = 8  # past 1/8 of a map changed, rebuilding beats an evolver


class _Work:
    """A private working copy of one map (a PMap or a JSONMap) along the changed paths.

    ``items`` is a dict copy of the map's items, ``kids`` the working copies of
    the children changes descend into; :meth:`finish` freezes it all back,
    sharing every untouched value with the original.
    """

    __slots__ = ("base", "items", "kids", "raw", "store", "touched")

    def __init__(self, base: Any, path: Sequence[str]) -> None:
        if type(base) is JSONMap:
            self.raw = True
            self.items = dict(base._data)
            self.store = _store_raw
        elif isinstance(base, PMap):
            self.raw = False
            self.items = mirror(base).copy()
            self.store = _store_field if not path else _store_frozen
        else:
            _not_an_object(base, tuple(path))
        self.base = base
        self.kids: dict[str, _Work] = {}
        self.touched: set[str] = set()

    def child(self, key: str, path: Sequence[str], depth: int) -> _Work:
        kid = self.kids.get(key)
        if kid is None:
            value = self.items.get(key, _MISSING)
            if value is _MISSING:
                _not_an_object(value, tuple(path[:depth + 1]))
            if self.raw and type(value) is dict:
                value = JSONMap._adopt(value)
            kid = self.kids[key] = _Work(value, path[:depth + 1])
            self.touched.add(key)
        return kid

    def terminal(self, change: Change) -> None:
        key = change.path[-1]
        if self.kids and key in self.kids:
            self.items[key] = self._keep(key, self.kids.pop(key).finish())
        _edit_dict(self.items, key, change, self.raw, self.store)
        self.touched.add(key)

    def _keep(self, key: str, value: Any) -> Any:
        """A finished child, as this map holds it: raw inside a JSONMap, frozen in a PMap."""
        return value._data if self.raw and type(value) is JSONMap else value

    def finish(self) -> Any:
        items = self.items
        if self.kids:
            for key, kid in self.kids.items():
                items[key] = self._keep(key, kid.finish())
            self.kids = {}
        if self.raw:
            return JSONMap._adopt(items)
        return _persist(self.base, items, self.touched)


def _persist(base: PMap[Any, Any], items: dict[str, Any], touched: set[str]) -> PMap[Any, Any]:
    """The PMap holding ``items``: ``base`` edited at ``touched`` keys, ``items`` its mirror.

    Past 1/8 of the keys touched, rebuilding from the patched mirror beats an
    evolver; below it, the evolver shares the untouched trie.
    """
    if len(touched) * _REBUILD_FRACTION >= len(base):
        return pmap_with_mirror(items)
    evolver = base.evolver()
    had = mirror(base)
    for key in touched:
        value = items.get(key, _MISSING)
        if value is _MISSING:
            if key in had:
                evolver.remove(key)
        else:
            evolver.set(key, value)
    result = evolver.persistent()
    remember_mirror(result, items)
    return result


def _store_raw(key: str, value: Any) -> Any:
    """A value to hold inside a JSONMap: a private raw copy."""
    return to_raw(value)


def _store_frozen(key: str, value: Any) -> Any:
    """A value to hold in a PMap: immutable, copied if the caller's was not."""
    return frozen(value)


def _store_field(key: str, value: Any) -> Any:
    """A top-level field: frozen and checked as loading does (FQN maps become PMaps)."""
    return freeze_field(key, to_raw(value))


def _edit_dict(items: dict[str, Any], key: str, change: Change, raw: bool,
               store: Callable[[str, Any], Any]) -> None:
    """Check ``change`` against ``items[key]`` (raw values when ``raw``), then make it."""
    current = items.get(key, _MISSING)
    if current is not change.old or change.op == "add":
        _check(change, freeze_owned(current) if raw else current)
    if change.op == "remove":
        del items[key]
    else:
        items[key] = store(key, change.new)


def _short(value: Any) -> str:
    text = repr(thaw(value))
    return text if len(text) <= 80 else text[:77] + "..."


def _check(change: Change, current: Any) -> None:
    """Raise unless ``current`` (``_MISSING`` when absent) is what ``change`` expects."""
    if change.op == "add":
        if current is not _MISSING:
            raise ConflictError(f"{format_path(change.path)}: the record adds it, but the plan "
                                f"already has {_short(current)}", path=change.path,
                                found=current)
    elif current is _MISSING:
        raise ConflictError(f"{format_path(change.path)}: the record expects "
                            f"{_short(change.old)}, but the plan has no such key",
                            path=change.path, expected=change.old)
    elif current is not change.old and not json_equal(current, change.old):
        raise ConflictError(f"{format_path(change.path)}: the record expects "
                            f"{_short(change.old)}, but the plan has {_short(current)}",
                            path=change.path, expected=change.old, found=current)


def apply_changes(plan: Plan, changes: Sequence[Change]) -> Plan:
    """Apply ``changes`` in order, checking each old value; no hash checks."""
    if not changes:
        return plan
    for change in changes:
        if change.op not in _OPS or type(change.path) is not tuple or not change.path:
            raise ValueError(f"not a change: {change!r}; op is one of {list(_OPS)} and path a "
                             "non-empty tuple of keys")
    shallow = _apply_shallow(plan, changes)
    if shallow is not None:
        return shallow
    root = _Work(plan.fields, ())
    for change in changes:
        path = change.path
        work = root
        for i in range(len(path) - 1):
            work = work.child(path[i], path, i)
        work.terminal(change)
    return Plan(root.finish())


def _apply_shallow(plan: Plan, changes: Sequence[Change]) -> Plan | None:
    """The shape passes make: keys of FQN maps and keys of their entries, in one sweep.

    Same semantics as the general walk (checked, in order), without a working
    copy per entry: each touched entry is one patched dict copy. ``None`` when
    a change has another shape (the caller then takes the general walk).
    """
    fields = mirror(plan.fields)
    work: dict[str, tuple[dict[str, Any], dict[str, dict[str, Any]], set[str]]] = {}
    for change in changes:
        path = change.path
        depth = len(path)
        if depth != 3 and depth != 2:
            return None
        field = path[0]
        state = work.get(field)
        if state is None:
            base = fields.get(field)
            if not isinstance(base, PMap):
                return None
            state = work[field] = (mirror(base).copy(), {}, set())
        items, copies, touched = state
        key = path[1]
        if depth == 2:
            if key in copies:
                items[key] = JSONMap._adopt(copies.pop(key))
            if change.op == "remove" and items.get(key, _MISSING) is change.old:
                del items[key]  # the class-map removals passes make: checked by identity
            else:
                _edit_dict(items, key, change, False, _store_frozen)
            touched.add(key)
            continue
        data = copies.get(key)
        if data is None:
            entry = items.get(key, _MISSING)
            if type(entry) is not JSONMap:
                _not_an_object(entry, path[:2])
            data = copies[key] = dict(entry._data)
            touched.add(key)
        leaf, new = path[2], change.new
        if change.op == "set" and data.get(leaf, _MISSING) is change.old and type(new) is bool:
            data[leaf] = new  # the flag flips passes make: checked by identity
        else:
            _edit_dict(data, leaf, change, True, _store_raw)
    evolver = plan.fields.evolver()
    new_fields = dict(fields)
    for field, (items, copies, touched) in work.items():
        for key, data in copies.items():
            items[key] = JSONMap._adopt(data)
        value = _persist(fields[field], items, touched)
        evolver.set(field, value)
        new_fields[field] = value
    result = evolver.persistent()
    remember_mirror(result, new_fields)
    return Plan._edited(result, plan, {field: state[2] for field, state in work.items()})


def _not_an_object(value: Any, path: tuple[str, ...]) -> None:
    """Raise the conflict for descending into ``value`` (``_MISSING`` when absent)."""
    if value is _MISSING:
        raise ConflictError(f"{format_path(path)}: the record changes it, but the plan has no "
                            "such key", path=path)
    raise ConflictError(f"{format_path(path)}: expected an object to descend into, found "
                        f"{_short(value)}", path=path, found=value)


def apply(plan: Plan, record: ChangeRecord, *, check_hash: bool = True) -> Plan:
    """Replay ``record`` on ``plan``; refuse a plan it was not made on.

    Every change's old value is checked first (a :class:`ConflictError` names
    the first conflicting path), then the plan's content hash against the
    record's base, and the result's against the record's result.
    """
    if check_hash:
        plan.content_hash  # noqa: B018 - known first, the result's is derived from it
    try:
        result = apply_changes(plan, record.changes)
    except ConflictError as exc:
        raise ConflictError(f"record {record.pass_name!r}: {exc}", path=exc.path,
                            expected=exc.expected, found=exc.found,
                            record=record.pass_name) from None
    if check_hash:
        if plan.content_hash != record.base:
            raise ConflictError(
                f"record {record.pass_name!r} was made on plan {record.base}, not on "
                f"{plan.content_hash}: every changed path matches, so the plans differ "
                "elsewhere", expected=record.base, found=plan.content_hash,
                record=record.pass_name)
        if result.content_hash != record.result:
            raise ConflictError(
                f"record {record.pass_name!r} should give plan {record.result}, but gave "
                f"{result.content_hash}: the record is inconsistent", expected=record.result,
                found=result.content_hash, record=record.pass_name)
    return result


def make_record(pass_name: str, plan: Plan, changes: Iterable[Change]) -> tuple[Plan, ChangeRecord]:
    """Apply ``changes`` to ``plan`` and record them; no changes give back ``plan`` itself."""
    changes = tuple(changes)
    base = plan.content_hash  # first: the result's hash is then derived from it
    result = apply_changes(plan, changes)
    return result, ChangeRecord(pass_name, base, result.content_hash, changes)


def invert(record: ChangeRecord) -> ChangeRecord:
    """The record that undoes ``record``: inverse changes in reverse order, hashes swapped."""
    changes = tuple(change.inverse() for change in reversed(record.changes))
    return ChangeRecord(_inverted_name(record.pass_name), record.result, record.base, changes)


def _inverted_name(name: str) -> str:
    if name.startswith("invert(") and name.endswith(")"):
        return name[len("invert("):-1]
    return f"invert({name})"


def compose(records: Iterable[ChangeRecord], *, name: str | None = None) -> ChangeRecord:
    """One record doing what ``records`` do in sequence; each must start where the last ended."""
    records = tuple(records)
    if not records:
        raise ValueError("compose needs at least one record")
    for before, after in itertools.pairwise(records):
        if before.result != after.base:
            raise ConflictError(
                f"cannot compose {before.pass_name!r} then {after.pass_name!r}: the first "
                f"ends at {before.result}, the second starts at {after.base}",
                expected=before.result, found=after.base, record=after.pass_name)
    changes = tuple(change for record in records for change in record.changes)
    label = name or " | ".join(record.pass_name for record in records)
    return replace(records[0], pass_name=label, result=records[-1].result, changes=changes)


# JSON ----------------------------------------------------------------------


def records_to_json(records: Iterable[ChangeRecord]) -> dict[str, Any]:
    """``{"format": "metaplan.records/1", "records": [...]}``."""
    return {"format": RECORDS_FORMAT, "records": [record.to_json() for record in records]}


def records_from_json(obj: Any, *, source: str = "records") -> tuple[ChangeRecord, ...]:
    """Records from a records file, or from a single record object."""
    if isinstance(obj, Mapping) and obj.get("format", RECORDS_FORMAT) not in _FORMATS:
        raise InputError(f'{source}: format: expected "{RECORDS_FORMAT}" (a records file) or '
                         f'"{RECORD_FORMAT}" (one record), found {describe(obj["format"])}',
                         source=source)
    if isinstance(obj, Mapping) and "param_plan" in obj:
        raise InputError(f"{source}: not records: this is a plan (it has param_plan); records "
                         "are what normalize --record or diff --format json write", source=source)
    if isinstance(obj, Mapping) and obj.get("format") == RECORD_FORMAT:
        return (ChangeRecord.from_json(obj, where=source),)
    if not isinstance(obj, Mapping) or not isinstance(obj.get("records"), list):
        found = (f"an object with keys {sorted(obj)[:6]}" if isinstance(obj, Mapping)
                 else type(obj).__name__)
        raise InputError(f'{source}: expected {{"format": "{RECORDS_FORMAT}", "records": '
                         f"[...]}} or a single record, found {found}", source=source)
    return tuple(ChangeRecord.from_json(item, where=f"{source}: records[{i}]")
                 for i, item in enumerate(obj["records"]))


def dumps_records(records: Iterable[ChangeRecord]) -> bytes:
    """Records as indented, sorted JSON."""
    return dumps_pretty(records_to_json(records))


def loads_records(data: bytes | str, *, source: str = "records") -> tuple[ChangeRecord, ...]:
    """Parse records from JSON text."""
    return records_from_json(parse_json(data, source=source), source=source)


def load_records(path: str | os.PathLike[str]) -> tuple[ChangeRecord, ...]:
    """Read records from a file (``.json`` or ``.json.gz``; ``-`` is stdin)."""
    return loads_records(read_bytes(path), source=source_name(path))


def dump_records(records: Iterable[ChangeRecord], path: str | os.PathLike[str]) -> None:
    """Write records to ``path`` atomically."""
    write_atomic(path, dumps_records(records))


def _pointer(path: Sequence[str]) -> str:
    return "".join("/" + key.replace("~", "~0").replace("/", "~1") for key in path)


def to_json_patch(record: ChangeRecord) -> list[dict[str, Any]]:
    """The record as an RFC 6902 JSON Patch, with a ``test`` before each removal or replace."""
    patch: list[dict[str, Any]] = []
    for change in record.changes:
        pointer = _pointer(change.path)
        if change.op != "add":
            patch.append({"op": "test", "path": pointer, "value": thaw(change.old)})
        if change.op == "remove":
            patch.append({"op": "remove", "path": pointer})
        else:
            op = "add" if change.op == "add" else "replace"
            patch.append({"op": op, "path": pointer, "value": thaw(change.new)})
    return patch
