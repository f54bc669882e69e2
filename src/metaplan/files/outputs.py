"""Writing outputs: all of a command's outputs land together, or none changes.

The order of :func:`write_many_atomic` is what makes that hold:

1. every target is checked (a folder, a missing folder, a path too long, a
   symlink loop, two outputs naming one file: refused, nothing written);
2. each regular file's content is written to a temp file beside it
   (``.metaplan-XXXXXXXX.tmp``);
3. devices and pipes (``/dev/null``, a FIFO) and standard output, which
   cannot be replaced by a rename or taken back, are written next: if one
   fails, the temp files are removed and no regular file has changed;
4. the temp files are renamed over their targets, one after the other.

So a write that fails after a regular file changed is impossible by
construction; what remains is the window between two renames of step 4: a
kill there (or a rename refused by the file system, which names the files
already replaced) lands the first files only. Each rename is atomic, so no
file is ever seen half written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Mapping
from typing import NamedTuple

from metaplan.errors import InputError

__all__ = [
    "STDOUT",
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "Target",
    "check_output",
    "write_atomic",
    "write_many_atomic",
    "write_stdout",
]

STDOUT = "<stdout>"
"""How errors name standard output."""

TEMP_PREFIX = ".metaplan-"
TEMP_SUFFIX = ".tmp"


class Target(NamedTuple):
    """Where an output path writes, and what is there now."""

    path: str
    real: str  # the file to replace, or to write in place
    in_place: bool  # a device or a pipe
    identity: tuple[int, int] | None  # (st_dev, st_ino) of what is there
    mode: int | None  # the permission bits of a regular file there, kept by the new one
    gzipped: bool = False  # a regular file there holds gzip data: the new one does too


def _refused(path: str, why: str) -> InputError:
    return InputError(f"{path}: cannot write: {why}", source=path)


def check_output(path: str, *, follow_symlinks: bool = True) -> Target:
    """Check that ``path`` can be written, before anything is; where it writes.

    With ``follow_symlinks`` (``-o``, ``--record``) a symlink is written
    through; without it (the files of a trace folder) a link is replaced by
    the new file and what it pointed to is left alone. A device or a pipe is
    written in place: renaming a file over it would replace it.
    """
    try:
        real = os.path.realpath(path) if follow_symlinks else os.path.abspath(path)
        info = os.stat(real) if follow_symlinks else os.lstat(real)
    except FileNotFoundError:
        info = None
        if follow_symlinks:  # /dev/stdout, /dev/fd/N of a pipe: a link only the kernel follows
            real, info = _magic_link(path, real)
    except OSError as exc:
        raise _refused(path, exc.strerror or str(exc)) from exc
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise _refused(path, "it is a directory")
    folder = os.path.dirname(real)
    try:
        folder_ok = stat.S_ISDIR(os.stat(folder).st_mode)
    except OSError as exc:
        if not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
            raise _refused(path, f"{folder}: {exc.strerror or exc}") from exc
        folder_ok = False
    if not folder_ok:
        raise _refused(path, f"no folder {folder}")
    if info is None:
        return Target(path, real, False, None, None)
    regular = stat.S_ISREG(info.st_mode)
    return Target(path, real, not (regular or stat.S_ISLNK(info.st_mode)),
                  (info.st_dev, info.st_ino), stat.S_IMODE(info.st_mode) if regular else None,
                  regular and _holds_gzip(real))


def _magic_link(path: str, real: str) -> tuple[str, os.stat_result | None]:
    """``(path, its stat)`` when the kernel finds what ``realpath`` could not (``/dev/fd/N``
    of a pipe reads as ``pipe:[INODE]``, no path), else ``(real, None)``: a new file."""
    try:
        return os.path.abspath(path), os.stat(path)
    except FileNotFoundError:
        return real, None


def _holds_gzip(path: str) -> bool:
    """Whether the file at ``path`` starts as gzip data does (unreadable: no)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def _encode(target: Target, data: bytes) -> bytes:
    """``data`` gzipped for a ``.gz`` path, or over a file that holds gzip data (an output
    keeps the encoding of the file it replaces: git's ``%A`` of a ``.json.gz`` plan)."""
    if not (target.path.endswith(".gz") or target.gzipped):
        return data
    import gzip  # only a .gz output needs it

    return gzip.compress(data, compresslevel=6, mtime=0)


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` (gzipped for ``.gz``, or over gzip data) via a temp file
    and rename."""
    write_many_atomic({os.fspath(path): data})


def _check_all(files: Mapping[str, bytes], follow_symlinks: bool) -> list[Target]:
    targets = [check_output(path, follow_symlinks=follow_symlinks) for path in files]
    seen: dict[object, str] = {}
    for target in targets:
        for key in {target.real, target.identity} - {None}:
            if key in seen and seen[key] != target.path:
                raise InputError(f"{target.path}: the same file as {seen[key]}: give each "
                                 "output its own path", source=target.path)
            seen[key] = target.path
    return targets


def write_many_atomic(files: Mapping[str, bytes], *, stdout: bytes | None = None,
                      follow_symlinks: bool = True) -> None:
    """Write several files (and ``stdout``) so that all of them land or no file changes.

    See the module's docstring for the order that makes it so. A path ending
    in ``.gz`` is gzipped; an existing file keeps its permission bits, and its encoding
    (gzip data is replaced by gzip data, whatever the name).
    """
    targets = _check_all(files, follow_symlinks)
    payloads = [_encode(target, data) for target, data in zip(targets, files.values(),
                                                                  strict=True)]
    staged: dict[str, Target] = {}
    done: list[str] = []
    current = STDOUT
    try:
        for target, payload in zip(targets, payloads, strict=True):
            current = target.path
            if not target.in_place:
                fd, tmp = _mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX,
                                           dir=os.path.dirname(target.real))
                staged[tmp] = target
                with os.fdopen(fd, "wb") as handle:
                    handle.write(payload)
                os.chmod(tmp, _new_mode() if target.mode is None else target.mode)
        for target, payload in zip(targets, payloads, strict=True):
            current = target.path
            if target.in_place:
                with open(target.real, "wb") as handle:
                    handle.write(payload)
        if stdout is not None:
            current = STDOUT
            write_stdout(stdout)
        for tmp, target in list(staged.items()):
            current = target.path
            os.replace(tmp, target.real)
            del staged[tmp]
            done.append(target.path)
    except OSError as exc:
        already = f" ({', '.join(done)} already replaced)" if done else ""
        raise _refused(current, f"{exc.strerror or exc}{already}") from exc
    finally:
        for tmp in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_stdout(data: bytes) -> None:
    """Write ``data`` to standard output, flushed.

    A reader that has gone (``| head``) is not an error: the rest is dropped
    and the command goes on to its own exit status. A closed or full
    standard output is an :class:`~metaplan.errors.InputError`.
    """
    stream = sys.stdout
    if stream is None:
        raise _refused(STDOUT, "standard output is closed")
    try:
        stream.flush()
        stream.buffer.write(data)
        stream.buffer.flush()
    except BrokenPipeError:
        _discard_stdout()
    except (OSError, ValueError) as exc:
        _discard_stdout()
        raise _refused(STDOUT, getattr(exc, "strerror", None) or str(exc)) from exc


def _discard_stdout() -> None:
    """Point standard output at the null device, so the flush at exit cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fileno = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fileno)
        os.close(devnull)


def _new_mode() -> int:
    """The permission bits of a new file: ``0o666`` less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _mkstemp(*, prefix: str, suffix: str, dir: str) -> tuple[int, str]:
    """``tempfile.mkstemp``, imported when a file is first written (``--help`` writes none)."""
    import tempfile

    return tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=dir)
