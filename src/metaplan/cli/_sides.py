"""The files git's drivers are given, read under the names a person knows.

git hands its drivers temporary files (``.merge_file_XXXXXX``,
``/tmp/git-blob-XXXXXX/...``); an error about one names the path in the
tree and the side instead: ``model/codegen_meta.json (theirs): not valid
JSON at line 3 ...``.
"""

from __future__ import annotations

import os

from metaplan.core.plan import Plan, loads
from metaplan.errors import InputError
from metaplan.files.inputs import read_bytes, source_name

__all__ = ["load_side", "plan_of", "read_side", "side_name"]


def side_name(path: str, side: str) -> str:
    """``path (side)``: how a message names one side of a driver's input."""
    return f"{path} ({side})"


def _renamed(exc: InputError, path: str, name: str) -> InputError:
    """``exc`` with ``path``'s name (where it begins the message) replaced by ``name``."""
    message, shown = str(exc), source_name(path)
    found = message.removeprefix(f"{shown}: ") if message.startswith(f"{shown}: ") else message
    return InputError(f"{name}: {found}", source=name)


def read_side(path: str, name: str) -> bytes:
    """The bytes of ``path`` (``/dev/null``: none), an error naming ``name`` instead."""
    if path == os.devnull:
        return b""
    try:
        return read_bytes(path)
    except InputError as exc:
        raise _renamed(exc, path, name) from exc


def plan_of(data: bytes, name: str, *, empty_is_plan: bool = False) -> Plan:
    """The plan ``data`` holds, errors naming ``name``; with ``empty_is_plan``, no bytes (an
    empty file, ``/dev/null``) is the plan with no modules."""
    if empty_is_plan and not data:
        return Plan.from_json({"param_plan": {}, "boundary_classes": {}})
    return loads(data, source=name)


def load_side(path: str, name: str, *, empty_is_plan: bool = False) -> Plan:
    """The plan at ``path`` (see :func:`plan_of`), every error naming ``name``."""
    return plan_of(read_side(path, name), name, empty_is_plan=empty_is_plan)
