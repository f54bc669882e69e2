"""Records as RFC 6902 JSON Patch.

Each change is a patch operation at the JSON Pointer of its path (array
items by number), with a ``test`` of the old value before each ``replace``
and ``remove``, so a patch applied to the wrong document fails instead of
corrupting it.

>>> from metaplan.change import Change, ChangeRecord
>>> record = ChangeRecord("p", "sha256:a", "sha256:b",
...                       (Change("set", ("injections", 5, "ep_size"), 8, 16, ""),))
>>> to_json_patch(record)  # doctest: +NORMALIZE_WHITESPACE
[{'op': 'test', 'path': '/injections/5/ep_size', 'value': 8},
 {'op': 'replace', 'path': '/injections/5/ep_size', 'value': 16}]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metaplan.change import ChangeRecord, Key
from metaplan.frozen import thaw

__all__ = ["pointer", "to_json_patch"]


def pointer(path: Sequence[Key]) -> str:
    """The RFC 6901 JSON Pointer of ``path`` (``~`` and ``/`` escaped)."""
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in path)


def to_json_patch(record: ChangeRecord) -> list[dict[str, Any]]:
    """The record as an RFC 6902 JSON Patch, with a ``test`` before each removal or replace."""
    patch: list[dict[str, Any]] = []
    for change in record.changes:
        where = pointer(change.path)
        if change.op != "add":
            patch.append({"op": "test", "path": where, "value": thaw(change.old)})
        if change.op == "remove":
            patch.append({"op": "remove", "path": where})
        else:
            op = "add" if change.op == "add" else "replace"
            patch.append({"op": op, "path": where, "value": thaw(change.new)})
    return patch
