"""Records as RFC 6902 JSON Patch.

Each change is a patch operation at the JSON Pointer of its path (array
items by number), with a ``test`` of the old value before each ``replace``
and ``remove``, so a patch applied to the wrong document fails instead of
corrupting it.

>>> from metaplan.records.change import Change, ChangeRecord
>>> record = ChangeRecord("p", "sha256:a", "sha256:b",
...                       (Change("set", ("injections", 5, "ep_size"), 8, 16, ""),))
>>> to_json_patch(record)  # doctest: +NORMALIZE_WHITESPACE
[{'op': 'test', 'path': '/injections/5/ep_size', 'value': 8},
 {'op': 'replace', 'path': '/injections/5/ep_size', 'value': 16}]
"""

from __future__ import annotations

from typing import Any

from metaplan.frozen import thaw
from metaplan.paths import pointer
from metaplan.records.change import ChangeRecord

__all__ = ["to_json_patch"]


_FLAT = (str, int, bool, type(None))


def to_json_patch(record: ChangeRecord) -> list[dict[str, Any]]:
    """The record as an RFC 6902 JSON Patch, with a ``test`` before each removal or replace."""
    patch: list[dict[str, Any]] = []
    append, join = patch.append, "/".join
    for op, path, old, new, _ in record.changes:
        try:  # pointer(path) inlined for text keys, none holding "~" or "/"
            where = join(path)  # type: ignore[arg-type]  # an int raises, below
        except TypeError:  # an array index
            where = "~"
        where = pointer(path) if "~" in where or where.count("/") >= len(path) else f"/{where}"
        if op != "add":
            append({"op": "test", "path": where,
                    "value": old if type(old) in _FLAT else thaw(old)})
        if op == "remove":
            append({"op": "remove", "path": where})
        else:
            append({"op": "add" if op == "add" else "replace", "path": where,
                    "value": new if type(new) in _FLAT else thaw(new)})
    return patch
