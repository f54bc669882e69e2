"""JSON in and out: gzip-aware files, exact stdlib-compatible output, atomic writes.

Reading uses the stdlib parser (orjson silently turns integers past 64 bits
into floats); floats come back as :class:`~metaplan.frozen.JSONFloat`.
Writing uses orjson, whose ``OPT_INDENT_2 | OPT_SORT_KEYS`` output is byte for
byte ``json.dumps(obj, indent=2, sort_keys=True)`` for ASCII text and 64-bit
integers; anything else falls back to the stdlib writer.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import stat
import tempfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from metaplan.errors import InputError, format_path
from metaplan.frozen import JSONFloat, orjson_default, paused_gc, thaw

__all__ = [
    "MAX_DEPTH",
    "check_tree",
    "dumps_pretty",
    "dumps_pretty_stdlib",
    "parse_json",
    "read_bytes",
    "read_json",
    "write_atomic",
    "write_many_atomic",
]

_GZIP_MAGIC = b"\x1f\x8b"
_PRETTY = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


MAX_DEPTH = 254
"""How deep a JSON document may nest, the outermost value being level 1.

orjson's limit: every writer and hash here relies on orjson, and plans nest
a handful of levels.
"""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (plans hold finite numbers only)")


def parse_json(data: bytes | str, *, source: str = "<input>") -> Any:
    """Parse JSON text into raw dicts and lists (floats as ``JSONFloat``), checked by
    :func:`check_tree`; any failure is an :class:`~metaplan.errors.InputError` naming ``source``.
    """
    if not data.strip():
        raise InputError(f"{source}: empty file: expected a JSON object", source=source)
    try:
        with paused_gc():
            raw = json.loads(data, parse_float=JSONFloat, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: not valid JSON: {exc.msg.removesuffix(' at')} at line {exc.lineno}, "
            f"column {exc.colno}",
            source=source,
        ) from exc
    except RecursionError as exc:
        raise InputError(f"{source}: nested more than {MAX_DEPTH} levels "
                         "deep (plans nest a handful)", source=source) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{source}: not valid JSON: {exc}", source=source) from exc
    check_tree(raw, source)
    return raw


def _finite(value: float) -> None:
    if not math.isfinite(value):
        raise ValueError("not finite")


def check_tree(raw: Any, source: str | None = None) -> None:
    """Refuse raw JSON data nested past :data:`MAX_DEPTH` or holding a non-finite number.

    ``1e400`` parses as infinity, which no JSON writer can give back. One
    orjson pass in C checks both (~8 ms on 15k entries); only when it fails
    does a walk find the path, or find that the failure was a big integer
    or a lone surrogate, which are fine.
    """
    try:
        orjson.dumps(raw, default=_finite)
    except TypeError:
        _walk(raw, source)


def _walk(raw: Any, source: str | None) -> None:
    where = f"{source}: " if source else ""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(raw, ())]
    while stack:
        value, path = stack.pop()
        kind = type(value)
        if (kind is dict or kind is list) and len(path) >= MAX_DEPTH:
            shown = format_path(path[:6]) + "..."
            raise InputError(f"{where}{shown}: nested more than {MAX_DEPTH} levels deep (plans "
                             "nest a handful)", source=source)
        if kind is dict:
            stack.extend((item, (*path, key)) for key, item in value.items())
        elif kind is list:
            stack.extend((item, (*path, i)) for i, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{where}{format_path(path)}: {float.__repr__(value)} is not a JSON "
                             "number (a literal past the float range reads as infinity); plans "
                             "hold finite numbers only", source=source)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, gunzipped when it is gzip data (whatever its name)."""
    source = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"{source}: no such file", source=source) from exc
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {exc.strerror or exc}", source=source) from exc
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{source}: cannot read: it starts as gzip data but does not "
                             f"decompress ({exc or type(exc).__name__})", source=source) from exc
    return data


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read a ``.json`` or ``.json.gz`` file into raw JSON data."""
    return parse_json(read_bytes(path), source=os.fspath(path))


def dumps_pretty(value: Any) -> bytes:
    """Bytes identical to ``json.dumps(value, indent=2, sort_keys=True)``, fast.

    For frozen or parsed data, whose floats are ``JSONFloat`` s (a bare
    ``float`` is written as orjson writes it).

    >>> from metaplan.frozen import freeze
    >>> value = {"b": [1, 2.5e-07, 1e16], "a": {}}
    >>> dumps_pretty(freeze(value)).decode() == json.dumps(value, indent=2, sort_keys=True)
    True
    """
    try:
        out = orjson.dumps(value, default=orjson_default, option=_PRETTY)
    except TypeError:  # an integer past 64 bits
        return dumps_pretty_stdlib(value)
    if out.isascii() and b"\x7f" not in out:
        return out
    return dumps_pretty_stdlib(value)  # the stdlib escapes non-ASCII and DEL


def dumps_pretty_stdlib(value: Any) -> bytes:
    """The reference writer: ``json.dumps(indent=2, sort_keys=True)``."""
    return json.dumps(thaw(value), indent=2, sort_keys=True).encode()


def _encode(path: str, data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0) if path.endswith(".gz") else data


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` (gzipped for ``.gz``) via a temp file and rename."""
    write_many_atomic({os.fspath(path): data})


def _target(path: str) -> tuple[str, bool]:
    """Where ``path`` really writes (symlinks followed), and whether to write it in place.

    A device or a pipe (``/dev/null``, a FIFO) is written directly: renaming
    a temp file over it would replace it with a regular file.
    """
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise InputError(f"{path}: cannot write: it is a directory", source=path)
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise InputError(f"{path}: cannot write: no folder {folder}", source=path)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real, False
    return real, not stat.S_ISREG(mode)


_TEMP_SUFFIX = ".tmp"


def write_many_atomic(files: Mapping[str, bytes]) -> None:
    """Write several files so that either all of them land or none is touched.

    Every target is checked before anything is written; each regular file is
    written to a temp file beside it (``.metaplan-XXXXXXXX.tmp``) and renamed
    over it, keeping an existing file's permissions. On an error every temp
    file is removed; a process killed mid-write can only leave such a temp
    file behind, never a partial target. (A kill between two renames lands
    the first file only: the renames are atomic one by one.)
    """
    targets = {path: _target(path) for path in files}
    seen: dict[str, str] = {}
    for path, (real, _) in targets.items():
        if real in seen:
            raise InputError(f"{path}: the same file as {seen[real]}: give each output its own "
                             "path", source=path)
        seen[real] = path
    staged: list[tuple[str, str, str]] = []
    direct: list[tuple[str, bytes]] = []
    try:
        for path, data in files.items():
            real, in_place = targets[path]
            payload = _encode(path, data)
            if in_place:
                direct.append((real, payload))
                continue
            fd, tmp = tempfile.mkstemp(prefix=".metaplan-", suffix=_TEMP_SUFFIX,
                                       dir=os.path.dirname(real))
            staged.append((tmp, real, path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
            os.chmod(tmp, _mode_for(real))
        for tmp, real, _ in staged:
            os.replace(tmp, real)
        for real, payload in direct:
            with open(real, "wb") as handle:
                handle.write(payload)
    except OSError as exc:
        for tmp, _, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        where = ", ".join(files)
        raise InputError(f"{where}: cannot write: {exc.strerror or exc}", source=where) from exc


def _mode_for(path: str) -> int:
    """An existing file's permission bits, else the umask's default for a new file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
