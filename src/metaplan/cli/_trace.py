"""``metaplan trace``: every state and record of a run, written to a folder.

The folder belongs to the trace: it holds ``trace.json`` and the files that
``trace.json`` lists (``NNN-<pass>.json``, ``NNN-<pass>.record.json``), and
those are the only files a later trace replaces or removes. A folder holding
anything else (a directory, a link named ``trace.json``, a user's
``123-notes.json``) is refused before anything is written; a link named like
a listed file is replaced, never written through. Temp files a killed trace
left (``.metaplan-*.tmp``) are removed. While a trace runs, it holds a lock
on the folder (``flock``), so a second trace into it is refused, not mixed in.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import stat
from collections.abc import Iterator
from functools import partial
from typing import Any

from metaplan.cli._common import print_stats, run_pipeline
from metaplan.cli._io import json_name
from metaplan.cli._paths import identity, inputs_of
from metaplan.core.plan import dumps
from metaplan.errors import InputError
from metaplan.files.jsonio import dumps_pretty
from metaplan.files.outputs import TEMP_PREFIX, TEMP_SUFFIX, write_many_atomic
from metaplan.records.codec import dumps_records

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, the other checks still hold
    fcntl = None  # type: ignore[assignment]

__all__ = ["MANIFEST", "trace"]

MANIFEST = "trace.json"
_STATE_FILE = re.compile(r"\d{3}-[a-z0-9.-]+\.json")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-") or "pass"


def trace(args: argparse.Namespace) -> int:
    """``metaplan trace``: write the run's states, records and ``trace.json`` to ``-o``."""
    if args.print_pipeline:
        run_pipeline(args)
        return 0
    folder = args.out
    with _locked(folder):
        owned = _owned_files(folder)
        _refuse_inputs_among(args, folder, owned)
        run = run_pipeline(args)
        assert run is not None
        files: dict[str, bytes] = {}
        manifest: list[dict[str, Any]] = []
        states = run.trace.states
        for index, state in enumerate(states):
            pass_name = run.trace.passes[index - 1] if index else ""
            stem = f"{index:03d}-" + (_slug(pass_name) if index else "input")
            files[os.path.join(folder, stem + ".json")] = run.timer.time("dump",
                                                                         partial(dumps, state))
            item: dict[str, Any] = {"index": index, "pass": run.trace.pass_of(index),
                                    "plan": stem + ".json", "hash": state.content_hash}
            if index:
                record = run.trace.records[index - 1]
                files[os.path.join(folder, stem + ".record.json")] = dumps_records([record])
                item.update(record=stem + ".record.json", changes=len(record))
            manifest.append(item)
        files[os.path.join(folder, MANIFEST)] = dumps_pretty({
            "pipeline": run.pipeline.name, "source": json_name(args.plan), "states": manifest})
        listing = "".join(f"{os.path.join(folder, item['plan'])}  {item['hash']}"
                          + (f"  {item['changes']} changes" if "changes" in item else "") + "\n"
                          for item in manifest)
        run.timer.time("write", lambda: write_many_atomic(
            files, stdout=listing.encode("utf-8", "surrogateescape"), follow_symlinks=False))
        _remove(folder, owned - {os.path.basename(path) for path in files})
    print_stats(args, run)
    return 0


@contextlib.contextmanager
def _locked(folder: str) -> Iterator[None]:
    """Hold an exclusive lock on ``folder``, made if missing (and removed if the run fails)."""
    try:
        os.makedirs(folder)
        made = True
    except FileExistsError:
        made = False
    except OSError as exc:
        raise InputError(f"{folder}: cannot make the -o folder: {exc.strerror or exc}",
                         source=folder) from exc
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: -o must be a folder; this is a file", source=folder)
    handle = os.open(folder, os.O_RDONLY)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise InputError(f"{folder}: another metaplan trace is writing into this "
                                 "folder; wait for it to end, or give another -o",
                                 source=folder) from exc
        finished = False
        try:
            yield
            finished = True
        finally:
            if made and not finished:
                with contextlib.suppress(OSError):
                    os.rmdir(folder)  # only if still empty
    finally:
        os.close(handle)


def _listed(folder: str) -> set[str] | None:
    """The state and record files the folder's ``trace.json`` lists; None without a manifest."""
    path = os.path.join(folder, MANIFEST)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            manifest = json.loads(handle.read(1 << 24))
    except (OSError, ValueError, RecursionError):
        return None
    states = manifest.get("states") if isinstance(manifest, dict) else None
    if not isinstance(states, list):
        return None
    names = {state.get(key) for state in states if isinstance(state, dict)
             for key in ("plan", "record")}
    return {name for name in names if isinstance(name, str) and _STATE_FILE.fullmatch(name)}


def _owned_files(folder: str) -> set[str]:
    """The files of an earlier trace in ``folder``, which this one replaces or removes.

    Refuses a folder that holds anything else; removes temp files a killed
    run left (the lock says no other trace is writing them).
    """
    present = set(os.listdir(folder))
    for name in sorted(present):
        if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISREG(os.lstat(os.path.join(folder, name)).st_mode):
                    os.unlink(os.path.join(folder, name))
                    present.discard(name)
    listed = _listed(folder)
    owned = set() if listed is None else {MANIFEST} | {
        name for name in listed & present
        if stat.S_ISREG(os.lstat(os.path.join(folder, name)).st_mode)
        or stat.S_ISLNK(os.lstat(os.path.join(folder, name)).st_mode)}
    foreign = sorted(present - owned, key=lambda name: (name != MANIFEST, name))
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3
                                          else "")
        raise InputError(f"{folder}: -o folder holds files no trace wrote ({shown}): a "
                         f"trace replaces only the files its {MANIFEST} lists; give an empty or "
                         "new folder, or one an earlier trace wrote", source=folder)
    return owned


def _refuse_inputs_among(args: argparse.Namespace, folder: str, owned: set[str]) -> None:
    """An input that is one of the files this trace replaces or removes is refused."""
    files = {identity(os.path.join(folder, name)): name for name in owned
             if not os.path.islink(os.path.join(folder, name))}
    for label, path in inputs_of(args):
        name = files.get(identity(path)) if identity(path) is not None else None
        if name is not None:
            raise InputError(f"{path}: {label} is {name} of the -o folder's earlier trace, "
                             "which this trace replaces or removes: copy it elsewhere first",
                             source=path)


def _remove(folder: str, names: set[str]) -> None:
    """Remove an earlier trace's files this one did not write again (links, not their targets)."""
    for name in sorted(names):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(folder, name))
