"""Records as JSON: the records files ``normalize --record``, ``diff`` and ``replay`` share.

A records file is ``{"format": "metaplan.records/2", "records": [...]}``;
each record ``{"format": "metaplan.record/2", "pass", "base", "result",
"changes": [...]}``: a record's and a change's own JSON are their types'
(``to_json()`` / ``from_json()``), this module reads and writes files of
them. Version 2 paths may hold integers (array items) and its hashes are
those of :mod:`metaplan.core.digest` 2; version-1 files (string paths, the
first digest) are still read, and replayed with every old value checked but
no hash check, since their hashes are of the old digest.

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

from metaplan.errors import InputError, describe
from metaplan.files.inputs import source_name
from metaplan.files.jsonio import MAX_DEPTH, dumps_pretty, parse_json, read_bytes, write_atomic
from metaplan.records.change import (
    LEGACY_FORMATS,
    RECORD_FORMAT,
    RECORDS_FORMAT,
    Change,
    ChangeRecord,
)

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

_RECORDS_FORMATS = (RECORDS_FORMAT, LEGACY_FORMATS[1])
_RECORD_FORMATS = (RECORD_FORMAT, LEGACY_FORMATS[0])

record_to_json = ChangeRecord.to_json
"""A record's JSON form (:meth:`ChangeRecord.to_json`)."""
record_from_json = ChangeRecord.from_json
"""A record from its JSON form (:meth:`ChangeRecord.from_json`)."""
change_from_json = Change.from_json
"""A change from its JSON form (:meth:`Change.from_json`)."""


def records_to_json(records: Iterable[ChangeRecord]) -> dict[str, Any]:
    """``{"format": "metaplan.records/2", "records": [...]}``."""
    return {"format": RECORDS_FORMAT, "records": [r.to_json() for r in records]}


def records_from_json(obj: Any, *, source: str = "records") -> tuple[ChangeRecord, ...]:
    """Records from a records file, or from a single record object."""
    if isinstance(obj, Mapping) and "param_plan" in obj:
        raise InputError(f"{source}: not records: this is a plan (it has param_plan); records "
                         "are what normalize --record or diff --format json write", source=source)
    if isinstance(obj, Mapping) and obj.get("format") in _RECORD_FORMATS:
        return (ChangeRecord.from_json(obj, where=source),)
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
    return tuple(ChangeRecord.from_json(item, where=f"{source}: records[{i}]")
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
