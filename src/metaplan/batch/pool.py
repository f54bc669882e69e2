"""Many plans at once: a function over plan files on any executor, in input order, once per content.

:func:`map_plans` calls ``fn(path)`` for each path (or tuple of paths,
for functions of several plans) and yields the results in input order.
Workers receive paths, never plans: a plan is read where it is used, so
nothing large crosses a process boundary on the way in.

Each distinct content is computed once (``dedupe=True``). The key is the
SHA-256 of each file's **decoded bytes**: the text after gzip is undone,
read in this process under the input size limit in force. So a plan and
its ``.gz`` copy share a key, and so do two files with the same text under
different names; two files holding equal plans written differently
(indentation, key order) do not, and are computed once each (their
results then carry the same content hash). Hashing the bytes costs a read
and ~3 ms per 10 MB, where the plan's own ``content_hash`` would cost a
full parse here, in one process, before any worker starts. A path that
cannot be read gets no key: ``fn`` is called on it alone, so it reports
the problem as it reports any other.

Any :class:`concurrent.futures.Executor` runs the calls: the default is a
:class:`~concurrent.futures.ProcessPoolExecutor` with ``os.cpu_count()``
workers (shut down at the end), :data:`IN_PROCESS` runs them here one at a
time as the results are asked for, and an executor of Ray or Dask spreads
them over a cluster (``ray.util.multiprocessing``'s pool is not an
``Executor``; Ray's ``RayExecutor`` and Dask's ``Client.get_executor()``
are)::

    with distributed.Client(address).get_executor() as executor:
        results = list(map_plans(check, paths, executor=executor))

``fn`` must be picklable for a process pool (a module-level function, or
a ``functools.partial`` of one). When the caller stops early, or an
exception (``KeyboardInterrupt``) stops the loop, every call not started is
cancelled, and an executor made here is shut down with
``cancel_futures=True``.

>>> from concurrent.futures import ThreadPoolExecutor
>>> with ThreadPoolExecutor(2) as pool:
...     list(map_plans(len, ["a", "bb", "a"], executor=pool))
[1, 2, 1]
"""

from __future__ import annotations

import enum
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import TypeAlias, TypeVar

from metaplan.files.inputs import read_bytes

__all__ = ["IN_PROCESS", "InProcess", "PlanPaths", "content_key", "map_plans"]

R = TypeVar("R")

PlanPaths: TypeAlias = "str | os.PathLike[str] | tuple[str | os.PathLike[str], ...]"
"""What ``fn`` is given: a path, or a tuple of paths (a pair to diff)."""


class InProcess(enum.Enum):
    """The one member :data:`IN_PROCESS`: run the calls in this process, one at a time."""

    IN_PROCESS = "in-process"

    def __repr__(self) -> str:
        return "IN_PROCESS"


IN_PROCESS = InProcess.IN_PROCESS
"""``executor=IN_PROCESS``: no pool; each call runs here when its result is asked for."""


def content_key(item: PlanPaths) -> str | None:
    """The dedupe key of a path (or tuple of paths): SHA-256 of the decoded bytes, or None
    when a file cannot be read (``fn`` is then left to say why).

    >>> content_key(os.devnull)
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    paths = item if isinstance(item, tuple) else (item,)
    parts = []
    for path in paths:
        try:
            parts.append(hashlib.sha256(read_bytes(path)).hexdigest())
        except (OSError, ValueError, MemoryError):  # InputError is a ValueError
            return None
    return parts[0] if len(parts) == 1 else ",".join(parts)


def _call(fn: Callable[[PlanPaths], R], item: PlanPaths) -> Future[R]:
    """``fn(item)`` as a finished future (its exception kept, as an executor keeps it)."""
    done: Future[R] = Future()
    try:
        done.set_result(fn(item))
    except Exception as exc:
        done.set_exception(exc)
    return done


def map_plans(fn: Callable[[PlanPaths], R], paths: Iterable[PlanPaths], *,
              executor: Executor | InProcess | None = None, dedupe: bool = True,
              keys: Sequence[str | None] | None = None) -> Iterator[R]:
    """``fn(path)`` for each of ``paths``, yielded in input order, each distinct content once.

    A path whose content (see :func:`content_key`) an earlier path holds
    yields the result ``fn`` gave for that first path, without a call. An
    exception raised by ``fn`` is raised when its result is reached.
    ``executor``: any ``concurrent.futures.Executor`` (left running), None
    for a process pool of ``os.cpu_count()`` workers (shut down at the end),
    or :data:`IN_PROCESS`. ``keys``: each path's dedupe key, when the caller has them
    (to count the distinct contents, say); None is a key shared with no other path.
    """
    items = list(paths)
    if not dedupe:
        keys = [None] * len(items)
    elif keys is None:
        keys = [content_key(item) for item in items]
    elif len(keys) != len(items):
        raise ValueError(f"map_plans: expected one key per path ({len(items)}), found "
                         f"{len(keys)}")
    if executor is IN_PROCESS:
        yield from _in_process(fn, items, keys)
        return
    owned = executor is None
    pool: Executor = ProcessPoolExecutor(os.cpu_count()) if executor is None else executor
    futures: list[Future[R] | None] = []
    try:
        first: dict[str, Future[R]] = {}
        for item, key in zip(items, keys, strict=True):
            found = first.get(key) if key is not None else None
            if found is None:
                found = pool.submit(fn, item)
                if key is not None:
                    first[key] = found
            futures.append(found)
        del first
        for i, future in enumerate(futures):
            assert future is not None
            futures[i] = None  # a result is let go once no later path shares it
            yield future.result()
    finally:
        for left in futures:
            if left is not None:
                left.cancel()
        if owned:
            pool.shutdown(wait=True, cancel_futures=True)


def _in_process(fn: Callable[[PlanPaths], R], items: list[PlanPaths],
                keys: Sequence[str | None]) -> Iterator[R]:
    last = {key: i for i, key in enumerate(keys) if key is not None}
    kept: dict[str, Future[R]] = {}
    for i, (item, key) in enumerate(zip(items, keys, strict=True)):
        found = kept.get(key) if key is not None else None
        if found is None:
            found = _call(fn, item)
            if key is not None:
                kept[key] = found
        if key is not None and last[key] == i:
            del kept[key]
        yield found.result()
