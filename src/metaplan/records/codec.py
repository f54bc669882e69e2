"""Records as JSON: the records files ``normalize --record``, ``diff`` and ``replay`` share.

A records file is ``{"format": "metaplan.records/2", "records": [...]}``;
each record ``{"format": "metaplan.record/2", "pass", "base", "result",
"changes": [...]}``. Version 2 paths may hold integers (array items) and
its hashes are those of :mod:`metaplan.core.digest` 2; version-1 files (string
paths, the first digest) are still read, and replayed with every old value
checked but no hash check, since their hashes are of the old digest.

>>> from metaplan.records.change import Change, ChangeRecord
>>> record = ChangeRecord("demo", "sha256:a", "sha256:b",
...                       (Change("set", ("injections", 0, "ep_size"), 8, 16, "why"),))
>>> loads_records(dumps_records([record])) == (record,)
True
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from metaplan.core.shape import check_value
from metaplan.errors import InputError, describe
from metaplan.files.inputs import source_name
from metaplan.files.jsonio import MAX_DEPTH, dumps_pretty, parse_json, read_bytes, write_atomic
from metaplan.frozen import freeze, shorten
from metaplan.records.change import LEGACY_HASH, OPS, Change, ChangeRecord

__all__ = [
    "LEGACY_FORMATS",
    "RECORDS_FORMAT",
    "RECORD_FORMAT",
    "change_from_json",
    "dump_records",
    "dumps_records",
    "load_records",
    "loads_records",
    "record_from_json",
    "record_to_json",
    "records_from_json",
    "records_to_json",
]

RECORD_FORMAT = "metaplan.record/2"
RECORDS_FORMAT = "metaplan.records/2"
LEGACY_FORMATS = ("metaplan.record/1", "metaplan.records/1")
"""Formats still read: string paths and hashes of the first digest (not checked on replay)."""

_RECORD_FORMATS = (RECORD_FORMAT, LEGACY_FORMATS[0])
_RECORDS_FORMATS = (RECORDS_FORMAT, LEGACY_FORMATS[1])


def record_to_json(record: ChangeRecord) -> dict[str, Any]:
    """Plain JSON data; :func:`record_from_json` reads it back."""
    return {"format": RECORD_FORMAT, "pass": record.pass_name, "base": record.base,
            "result": record.result, "changes": [c.to_json() for c in record.changes]}


def record_from_json(obj: Any, *, where: str = "record") -> ChangeRecord:
    """Read a record from its JSON form, checking its shape and format."""
    if not isinstance(obj, Mapping):
        raise InputError(f"{where}: a record is an object, found {describe(obj)}")
    found = obj.get("format", RECORD_FORMAT)
    if found not in _RECORD_FORMATS:
        raise InputError(f'{where}.format: expected "{RECORD_FORMAT}" (or the older '
                         f'"{LEGACY_FORMATS[0]}"), found {describe(found)}')
    for key in ("pass", "base", "result"):
        if not isinstance(obj.get(key), str):
            raise InputError(f"{where}.{key}: must be a string, found {describe(obj.get(key))}")
    items = obj.get("changes")
    if not isinstance(items, list):
        raise InputError(f"{where}.changes: must be an array, found {describe(items)}")
    legacy = found != RECORD_FORMAT
    changes = tuple(change_from_json(item, f"{where}.changes[{i}]", legacy=legacy)
                    for i, item in enumerate(items))
    base, result = obj["base"], obj["result"]
    if legacy:
        base, result = LEGACY_HASH + base, LEGACY_HASH + result
    return ChangeRecord(obj["pass"], base, result, changes)


def change_from_json(obj: Any, where: str, *, legacy: bool = False) -> Change:
    """One change of a record, checked: its op, path, values, and what it sets is plan-shaped."""
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
        raise InputError(f"{where}.path: must be a non-empty array of {need}, starting with a "
                         f"field name, found {_shown(path)}")
    if any(type(key) is int and key < 0 for key in path):
        raise InputError(f"{where}.path: array item numbers are 0 or more, found {path}")
    for key in ("old",) if op == "remove" else ("new",) if op == "add" else ("old", "new"):
        if key not in obj:
            raise InputError(f"{where}: a {op} change needs {key!r}")
    if op != "remove":
        check_value(path, obj.get("new"), f"{where}.new")
    why = obj.get("why", "")
    return Change(op, tuple(path), freeze(obj.get("old")), freeze(obj.get("new")),
                  why if isinstance(why, str) else str(why))


def _shown(value: Any) -> str:
    try:
        return shorten(value)
    except (TypeError, ValueError):
        return describe(value)


def records_to_json(records: Iterable[ChangeRecord]) -> dict[str, Any]:
    """``{"format": "metaplan.records/2", "records": [...]}``."""
    return {"format": RECORDS_FORMAT, "records": [record_to_json(r) for r in records]}


def records_from_json(obj: Any, *, source: str = "records") -> tuple[ChangeRecord, ...]:
    """Records from a records file, or from a single record object."""
    if isinstance(obj, Mapping) and "param_plan" in obj:
        raise InputError(f"{source}: not records: this is a plan (it has param_plan); records "
                         "are what normalize --record or diff --format json write", source=source)
    if isinstance(obj, Mapping) and obj.get("format") in _RECORD_FORMATS:
        return (record_from_json(obj, where=source),)
    if not isinstance(obj, Mapping) or not isinstance(obj.get("records"), list):
        found = (f"an object with keys {sorted(obj)[:6]}" if isinstance(obj, Mapping)
                 else describe(obj))
        raise InputError(f'{source}: expected {{"format": "{RECORDS_FORMAT}", "records": '
                         f"[...]}} or a single record, found {found}", source=source)
    found = obj.get("format", RECORDS_FORMAT)
    if found not in _RECORDS_FORMATS:
        raise InputError(f'{source}: format: expected "{RECORDS_FORMAT}" (a records file; or '
                         f'the older "{LEGACY_FORMATS[1]}") or "{RECORD_FORMAT}" (one record), '
                         f"found {describe(found)}", source=source)
    return tuple(record_from_json(item, where=f"{source}: records[{i}]")
                 for i, item in enumerate(obj["records"]))


def dumps_records(records: Iterable[ChangeRecord]) -> bytes:
    """Records as indented, sorted JSON."""
    return dumps_pretty(records_to_json(records))


_WRAPPER = 5
"""The levels a records file puts around a change's value (the file, its records, a record,
its changes, the change): a value a plan may hold at any path fits in a record of it."""


def loads_records(data: bytes | str, *, source: str = "records") -> tuple[ChangeRecord, ...]:
    """Parse records from JSON text.

    The file may nest :data:`~metaplan.files.jsonio.MAX_DEPTH` levels past its
    wrapper, so every record of plans that load reads back; a change that
    would nest a plan past that limit is still refused when it is applied.
    """
    return records_from_json(parse_json(data, source=source, depth=MAX_DEPTH + _WRAPPER),
                             source=source)


def load_records(path: str | os.PathLike[str]) -> tuple[ChangeRecord, ...]:
    """Read records from a file (``.json`` or ``.json.gz``; ``-`` is stdin)."""
    return loads_records(read_bytes(path), source=source_name(path))


def dump_records(records: Iterable[ChangeRecord], path: str | os.PathLike[str]) -> None:
    """Write records to ``path`` atomically."""
    write_atomic(path, dumps_records(records))
