"""Reading input bytes: files, stdin (``-``), gzip data, and the size limit on all of them.

Every input is read whole, so every input is bounded: a file (or the data a
gzip stream expands to) larger than :func:`max_input_size` is refused as
soon as the limit is passed, never after memory is exhausted. Gzip data is
decompressed in chunks of at most 16 MiB, so a small file that expands to
gigabytes costs the limit and not more.

>>> parse_size("512M"), parse_size("2GiB"), parse_size("1000")
(536870912, 2147483648, 1000)
>>> describe_size(1 << 30)
'1 GiB (1073741824 bytes)'
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import BinaryIO

from metaplan.errors import InputError

__all__ = [
    "DEFAULT_MAX_INPUT_SIZE",
    "ENV_MAX_INPUT_SIZE",
    "STDIN",
    "describe_size",
    "input_size_limit",
    "max_input_size",
    "parse_size",
    "read_bytes",
    "source_name",
]

DEFAULT_MAX_INPUT_SIZE = 1 << 30
"""1 GiB: twice the largest plan in use (1M module entries is ~0.5 GB of JSON).

Loading takes ~5.4x a file's size in memory (measured on DeepSeek-V3), so
1 GiB of JSON already needs ~6 GB: anything larger is a mistake or a bomb
far more often than a plan. Raise it with ``--max-input-size`` or
:data:`ENV_MAX_INPUT_SIZE`.
"""

ENV_MAX_INPUT_SIZE = "METAPLAN_MAX_INPUT_SIZE"
"""The environment variable that sets the limit (as :func:`parse_size` reads it)."""

STDIN = "-"
"""The path that names standard input."""

_GZIP_MAGIC = b"\x1f\x8b"
_READ_CHUNK = 1 << 20
_INFLATE_IN = 1 << 18  # compressed bytes fed at a time, so unconsumed tails stay small
_INFLATE_OUT = 1 << 24  # the most one step of decompression may produce
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)

_limit: ContextVar[int | None] = ContextVar("metaplan_max_input_size", default=None)


def parse_size(text: str, where: str = "--max-input-size") -> int:
    """A size in bytes from ``1073741824``, ``512M``, ``4G`` or ``4GiB`` (units of 1024)."""
    found = _SIZE.fullmatch(text)
    size = int(found[1]) * _UNITS[found[2].upper()] if found else 0
    if size < 1:
        raise InputError(f"{where}: expected a size such as 4G, 512M or 1000000 (bytes; K, M, "
                         f"G, T are powers of 1024), found {text[:40]!r}", source=where)
    return size


def describe_size(size: int) -> str:
    """``1 GiB (1073741824 bytes)``: the largest whole unit, then the exact count."""
    for unit in "TGMK":
        if size >= _UNITS[unit] and size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]} {unit}iB ({size} bytes)"
    return f"{size} bytes"


def max_input_size() -> int:
    """The limit in force: :func:`input_size_limit`'s, else the environment's, else 1 GiB."""
    limit = _limit.get()
    if limit is not None:
        return limit
    text = os.environ.get(ENV_MAX_INPUT_SIZE)
    return DEFAULT_MAX_INPUT_SIZE if not text else parse_size(text, ENV_MAX_INPUT_SIZE)


@contextlib.contextmanager
def input_size_limit(size: int | None) -> Iterator[None]:
    """Within the block, inputs may be ``size`` bytes (None: the default rule)."""
    token = _limit.set(size)
    try:
        yield
    finally:
        _limit.reset(token)


def source_name(path: str | os.PathLike[str]) -> str:
    """How errors name an input: its path, or ``<stdin>`` for ``-``."""
    name = os.fspath(path)
    return "<stdin>" if name == STDIN else name


def _too_big(source: str, limit: int, what: str) -> InputError:
    return InputError(f"{source}: {what} the input limit of {describe_size(limit)}; raise "
                      f"it with --max-input-size or {ENV_MAX_INPUT_SIZE} if this is a plan",
                      source=source)


def _read_upto(handle: BinaryIO, limit: int, source: str, total: int = 0) -> bytes:
    """All of ``handle``, refused as soon as ``total`` (the bytes already read) and what it
    reads pass ``limit`` bytes."""
    chunks: list[bytes] = []
    while True:
        chunk = handle.read(_READ_CHUNK)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise _too_big(source, limit, "more bytes than")
        chunks.append(chunk)


def _read_raw(path: str, source: str, limit: int) -> bytes:
    if path == STDIN:
        stream = sys.stdin
        if stream is None:
            raise InputError(f"{source}: cannot read: standard input is closed", source=source)
        return _read_upto(stream.buffer, limit, source)
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return _read_upto(handle, limit, source)
        if info.st_size > limit:
            raise _too_big(source, limit, f"{info.st_size} bytes, more than")
        data = handle.read(info.st_size + 1)  # one read of the whole file (and one past it)
        if len(data) <= info.st_size:
            return data
        if len(data) > limit:  # it grew while being read
            raise _too_big(source, limit, "more bytes than")
        return data + _read_upto(handle, limit, source, len(data))


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes (``-``: standard input), gunzipped when it is gzip data.

    Gzip is recognised by its first two bytes, whatever the name; every
    member must decompress whole, and nothing but another member may follow
    one. Both the bytes read and the bytes they expand to are bounded by
    :func:`max_input_size`.
    """
    path = os.fspath(path)
    source = source_name(path)
    limit = max_input_size()
    try:
        data = _read_raw(path, source, limit)
    except FileNotFoundError as exc:
        raise InputError(f"{source}: no such file", source=source) from exc
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {exc.strerror or exc}", source=source) from exc
    if data[:2] == _GZIP_MAGIC:
        return _gunzip(data, source, limit)
    return data


def _gunzip(data: bytes, source: str, limit: int) -> bytes:
    """Every gzip member of ``data``, decompressed in bounded steps."""
    chunks: list[bytes] = []
    total = 0
    pieces = _inflate(data)
    while total <= limit:
        try:
            chunk = next(pieces, None)
        except (zlib.error, EOFError, ValueError) as exc:
            raise InputError(f"{source}: cannot read: it starts as gzip data but does not "
                             f"decompress ({exc or type(exc).__name__})", source=source) from exc
        if chunk is None:
            return b"".join(chunks)
        total += len(chunk)
        chunks.append(chunk)
    raise _too_big(source, limit, "gzip data that expands to more than")


def _inflate(data: bytes) -> Iterator[bytes]:
    """The decompressed pieces of gzip ``data`` (one member or several), each at most 16 MiB."""
    view = memoryview(data)
    while True:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        pending = b""
        while not inflater.eof:
            if not pending and view:
                pending, view = bytes(view[:_INFLATE_IN]), view[_INFLATE_IN:]
            chunk = inflater.decompress(pending, _INFLATE_OUT)
            pending = inflater.unconsumed_tail
            if chunk:
                yield chunk
            elif not pending and not view and not inflater.eof:
                raise EOFError("the compressed data ends before the end of its stream")
        rest = inflater.unused_data + bytes(view)
        if not rest:
            return
        if rest[:2] != _GZIP_MAGIC:
            raise ValueError(f"{len(rest)} bytes that are not gzip data follow the stream")
        view = memoryview(rest)
