"""Reading several large inputs at once: each after the first in a forked child process.

A ``metaplan diff A B`` spends most of its time parsing two files, one after
the other, on a machine with more than one core. :func:`read_side_by_side`
runs ``read(path)`` for every path, the first here and each other in a child
forked for it, whose result comes back pickled through a pipe (a plan's equal
entries are shared, so the pickle is a fifth of the text), and ``then`` on
each result here, in order. It is only an acceleration: the results are
what ``[then(read(path)) for path in paths]`` gives,
and a child that fails in any way (bad input, a signal, a full pipe, a result
that does not pickle) is forgotten and its path read here, in order, so every
error is raised here, as the sequential reads would raise it, and nothing
a child says is ever shown.

Children are forked only where that is safe and pays: POSIX, more than one
core, no other thread running (a fork copies a lock another thread holds),
a regular file holding at least :data:`FORK_FROM` bytes of text, gzipped or
not (standard input is read here).

>>> read_side_by_side(len, ["ab", "c"], then=lambda n: n * 10)
[20, 10]
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import stat
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["FORK_FROM", "read_side_by_side"]

FORK_FROM = 4 << 20
"""Texts shorter than this are read here: a fork and a pickle cost more than they save."""

T = TypeVar("T")
R = TypeVar("R")
P = TypeVar("P", bound="str | os.PathLike[str]")


def read_side_by_side(read: Callable[[P], T], paths: Sequence[P], *,
                      then: Callable[[T], R]) -> list[R]:
    """``[then(read(path)) for path in paths]``, each path after the first read in a child
    (``then`` runs here, path by path, so the first error raised is the sequential one)."""
    children = [_Child.start(read, path) if index and _worth_a_child(path) else None
                for index, path in enumerate(paths)]
    try:
        return [then(read(path) if child is None else child.result(read))
                for path, child in zip(paths, children, strict=True)]
    finally:
        for child in children:
            if child is not None:
                child.close()


def _worth_a_child(path: str | os.PathLike[str]) -> bool:
    if not hasattr(os, "fork") or _cores() < 2 or threading.active_count() > 1:
        return False
    try:
        found = os.stat(path)
        return stat.S_ISREG(found.st_mode) and _text_size(path, found.st_size) >= FORK_FROM
    except (OSError, ValueError):
        return False  # read here, which says what is wrong


def _text_size(path: str | os.PathLike[str], size: int) -> int:
    """The size of the text a file holds: for gzip data, the size its (last) member says it
    expands to (RFC 1952's ISIZE, modulo 4 GiB); else the file's size."""
    with open(path, "rb") as file:
        if file.read(2) != b"\x1f\x8b" or size < 18:
            return size
        file.seek(-4, os.SEEK_END)
        return int.from_bytes(file.read(4), "little")


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


class _Child(Generic[P, T]):
    """One forked reader: its process, the pipe it answers on, and the path it reads."""

    __slots__ = ("path", "pid", "pipe")

    def __init__(self, pid: int, pipe: int, path: P) -> None:
        self.pid, self.pipe, self.path = pid, pipe, path

    @classmethod
    def start(cls, read: Callable[[P], T], path: P) -> _Child[P, T] | None:
        """Fork a child that reads ``path`` and writes the pickled result; None if no fork."""
        try:
            out, into = os.pipe()
            pid = os.fork()
        except OSError:
            return None
        if pid == 0:  # the child: nothing it does may return into the parent's code
            os.close(out)
            _answer(into, read, path)
        os.close(into)
        return cls(pid, out, path)

    def result(self, read: Callable[[P], T]) -> T:
        """The child's result, or ``read(path)`` here when it has none."""
        with os.fdopen(self.pipe, "rb", closefd=True) as answer:
            self.pipe = -1
            data = answer.read()
        status = self._reaped()
        if status == 0 and data:
            with contextlib.suppress(Exception):
                found: T = pickle.loads(data)
                return found
        return read(self.path)

    def close(self) -> None:
        """Stop the child if it is still running (this process is raising) and reap it."""
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self._reaped()

    def _reaped(self) -> int:
        pid, self.pid = self.pid, 0
        if not pid:
            return -1
        with contextlib.suppress(ChildProcessError):
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        return -1


def _answer(into: int, read: Callable[[P], T], path: P) -> None:
    """In the child: write ``read(path)`` pickled to ``into`` and exit 0; exit 1 on anything."""
    code = 1
    try:
        data = pickle.dumps(read(path), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(into, "wb", closefd=True) as answer:
            answer.write(data)
        code = 0
    except BaseException:  # the parent reads the path again and says why
        pass
    finally:
        os._exit(code)
