"""Reading several large inputs at once: each after the first in a forked child process.

A ``metaplan diff A B`` spends most of its time parsing two files, one after
the other, on a machine with more than one core. :func:`read_side_by_side`
gives ``here(path, None)`` for the first path, computed here, and for each
other path ``here(path, child(path))``, where ``child(path)`` (bytes: a
plan's parsed data as JSON, its equal entries written once, a fifth of the
text) ran in a child forked for it while this process read the first. It is
only an acceleration: ``here`` gets ``None`` instead of bytes whenever a
child fails in any way (bad input, a signal, an exception), and then does
all the work itself, so every error is raised here, path by path, as the
sequential reads would raise it, and nothing a child says is ever shown.
The bytes are data, never code or objects: ``here`` parses them as JSON.

Children are forked only where that is safe and pays: POSIX, a core idle
(more than one, and the tasks running now leave one), no other thread running
(a fork copies a lock another thread holds), a regular file holding at least
:data:`FORK_FROM` bytes of text, gzipped or not (standard input is read here).

>>> read_side_by_side(["ab", "c"], child=str.encode, here=lambda path, data: (path, data))
[('ab', None), ('c', None)]
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["FORK_FROM", "read_side_by_side"]

FORK_FROM = 4 << 20
"""Texts shorter than this are read here: a fork and a pipe cost more than they save."""

R = TypeVar("R")
P = TypeVar("P", bound="str | os.PathLike[str]")


def read_side_by_side(paths: Sequence[P], *, child: Callable[[P], bytes],
                      here: Callable[[P, bytes | None], R]) -> list[R]:
    """``here(path, bytes or None)`` for each path, in order; see the module's doc."""
    children = [_Child.start(child, path) if index and _worth_a_child(path) else None
                for index, path in enumerate(paths)]
    try:
        return [here(path, None) if forked is None else _settled(forked, here)
                for path, forked in zip(paths, children, strict=True)]
    finally:
        for forked in children:
            if forked is not None:
                forked.close()


def _settled(forked: _Child[P], here: Callable[[P, bytes | None], R]) -> R:
    """``here(path, answer)`` with the child's answer; ``here(path, None)`` instead (whatever
    the first gave or raised) if the child did not finish well.

    The child is reaped after its answer is used: its exit (the kernel letting its
    memory go) runs on its core meanwhile, instead of being waited for first.
    """
    answer = forked.answer()
    try:
        found = here(forked.path, answer)
    except BaseException:
        if forked.exited_well():
            raise
        return here(forked.path, None)
    return found if forked.exited_well() else here(forked.path, None)


def _worth_a_child(path: str | os.PathLike[str]) -> bool:
    if not hasattr(os, "fork") or not _idle_core() or threading.active_count() > 1:
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


def _idle_core() -> bool:
    """Whether a core is free for a child: more than one, and the tasks running now (this
    process among them) leave one idle. On a busy machine a child only competes with its
    parent, and the fork and the copies it makes cost more than it saves."""
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return cores >= 2 and _running() <= cores - 1


_LOADAVG = "/proc/loadavg"
"""Linux's load file: its fourth field counts the tasks running now, ``running/all``."""


def _running() -> float:
    """How many tasks are running: now, where Linux says (this process is one of them); else
    the last minute's load average; 0 where neither is known.

    Not the load average where the count is known: a minute's average stays high for a
    minute after a burst of work, or through a loop of short commands one after another,
    while a core sits idle.
    """
    try:
        with open(_LOADAVG, "rb") as file:
            return float(int(file.read().split()[3].split(b"/")[0]))
    except (OSError, IndexError, ValueError):
        pass
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


class _Child(Generic[P]):
    """One forked reader: its process, the pipe it answers on, and the path it reads."""

    __slots__ = ("path", "pid", "pipe")

    def __init__(self, pid: int, pipe: int, path: P) -> None:
        self.pid, self.pipe, self.path = pid, pipe, path

    @classmethod
    def start(cls, work: Callable[[P], bytes], path: P) -> _Child[P] | None:
        """Fork a child that writes ``work(path)`` to a pipe; None if no fork."""
        try:
            out, into = os.pipe()
        except OSError:  # out of descriptors
            return None
        try:
            pid = os.fork()
        except OSError:  # out of processes or memory: this path is read here
            os.close(out)
            os.close(into)
            return None
        if pid == 0:  # the child: nothing it does may return into the parent's code
            os.close(out)
            _answer(into, work, path)
        os.close(into)
        return cls(pid, out, path)

    def answer(self) -> bytes:
        """What the child wrote (all of it, if it finishes well: see :meth:`exited_well`)."""
        with os.fdopen(self.pipe, "rb", closefd=True) as answer:
            self.pipe = -1
            return answer.read()

    def exited_well(self) -> bool:
        """Reap the child: whether it exited 0 (having written its whole answer)."""
        return self._reaped() == 0

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


def _answer(into: int, work: Callable[[P], bytes], path: P) -> None:
    """In the child: write ``work(path)`` to ``into`` and exit 0; exit 1 on anything."""
    code = 1
    try:
        data = work(path)
        with os.fdopen(into, "wb", closefd=True) as answer:
            answer.write(data)
        code = 0
    except BaseException:  # the parent reads the path again and says why
        pass
    finally:
        os._exit(code)
