"""The algebra of records: invert one, compose several.

>>> from metaplan.records.change import Change, ChangeRecord
>>> r = ChangeRecord("p", "sha256:a", "sha256:b", (Change("add", ("x",), None, 1, "w"),))
>>> invert(r).changes[0].op, invert(r).base, invert(invert(r)) == r
('remove', 'sha256:b', True)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from metaplan.errors import ConflictError
from metaplan.records.change import ChangeRecord

__all__ = ["compose", "invert"]


def invert(record: ChangeRecord) -> ChangeRecord:
    """The record that undoes ``record``: inverse changes in reverse order, hashes swapped.

    Named ``invert(NAME)``; inverting that gives back ``NAME`` (an involution).
    """
    changes = tuple(change.inverse() for change in reversed(record.changes))
    return ChangeRecord(_inverted_name(record.pass_name), record.result, record.base, changes)


def _inverted_name(name: str) -> str:
    if name.startswith("invert(") and name.endswith(")"):
        return name[len("invert("):-1]
    return f"invert({name})"


def compose(records: Iterable[ChangeRecord], *, name: str | None = None) -> ChangeRecord:
    """One record doing what ``records`` do in sequence; each must start where the last ended.

    Named ``name``, else the records' names joined by `` | ``.
    """
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
    label = name if name is not None else " | ".join(record.pass_name for record in records)
    return ChangeRecord(label, records[0].base, records[-1].result, changes)
