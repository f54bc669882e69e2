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
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from metaplan.errors import InputError
from metaplan.frozen import JSONFloat, orjson_default, paused_gc, thaw

__all__ = [
    "dumps_pretty",
    "parse_json",
    "read_json",
    "write_atomic",
    "write_many_atomic",
]

_GZIP_MAGIC = b"\x1f\x8b"
_PRETTY = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(data: bytes | str, *, source: str = "<input>") -> Any:
    """Parse JSON text into raw dicts and lists (floats as ``JSONFloat``)."""
    try:
        with paused_gc():
            return json.loads(data, parse_float=JSONFloat, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            source=source,
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{source}: not valid JSON: {exc}", source=source) from exc


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, gunzipped when it is gzip data (whatever its name)."""
    source = os.fspath(path)
    try:
        data = Path(path).read_bytes()
        if data[:2] == _GZIP_MAGIC:
            data = gzip.decompress(data)
    except FileNotFoundError as exc:
        raise InputError(f"{source}: no such file", source=source) from exc
    except (OSError, EOFError) as exc:
        raise InputError(f"{source}: cannot read: {exc}", source=source) from exc
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


def write_many_atomic(files: Mapping[str, bytes]) -> None:
    """Write several files so that either all of them land or none is touched.

    Every target is checked before anything is written; each regular file is
    written to a temp file beside it and renamed over it, keeping an
    existing file's permissions.
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
            fd, tmp = tempfile.mkstemp(prefix=".metaplan-", dir=os.path.dirname(real))
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
