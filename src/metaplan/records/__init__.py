"""Changes and their records: ``Change`` / ``ChangeRecord``, their JSON (``codec``), invert and
compose (``algebra``), JSON Patch (``patch``) and the one edit engine (``edit``).

The names of 0.3's ``metaplan.records`` module (``dumps_records``, ...) are
still here for one minor version, as deprecated aliases of
:mod:`metaplan.records.codec` (each warns once).
"""

from __future__ import annotations

from typing import Any

__all__: list[str] = []

_CODEC = frozenset({
    "LEGACY_FORMATS", "RECORDS_FORMAT", "RECORD_FORMAT", "change_from_json", "dump_records",
    "dumps_records", "load_records", "loads_records", "record_from_json", "record_to_json",
    "records_from_json", "records_to_json"})


def __getattr__(name: str) -> Any:
    if name not in _CODEC:
        raise AttributeError(f"module 'metaplan.records' has no attribute {name!r}")
    import importlib

    from metaplan._moved import moved_warning

    moved_warning(f"metaplan.records.{name}", f"metaplan.records.codec.{name}")
    value = getattr(importlib.import_module("metaplan.records.codec"), name)
    globals()[name] = value
    return value
