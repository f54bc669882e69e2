"""What a command reads and writes, checked before anything is read.

An output may not be one of the command's inputs (the same path, or the
same file through a link or a hard link: compared by device and inode),
standard input can be read once, standard output can take one output, and
each output path must be writable (:func:`~metaplan.files.outputs.check_output`).
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Iterator

from metaplan.errors import InputError
from metaplan.files.inputs import STDIN
from metaplan.files.outputs import check_output

__all__ = ["check_paths", "identity", "inputs_of", "outputs_of"]

_INPUTS = (("plan", "PLAN"), ("a", "A"), ("b", "B"), ("specs", "--specs"), ("rules", "--rules"),
           ("against_specs", "--against-specs"), ("against_rules", "--against-rules"),
           ("matches", "--matches"), ("base", "BASE"), ("ours", "OURS"), ("theirs", "THEIRS"),
           ("file", "FILE"), ("local", "LOCAL"), ("remote", "REMOTE"))
_RECORD_READERS = ("replay", "invert")


def inputs_of(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """``(option, path)`` for every file the command reads."""
    for attr, label in _INPUTS:
        path = getattr(args, attr, None)
        if path is not None:
            yield label, path
    if args.command in _RECORD_READERS:
        yield "REC", args.record
    for path in getattr(args, "plans", None) or ():
        yield "PLAN", path


def outputs_of(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """``(option, path)`` for every output; ``-`` is standard output.

    Without ``-o``, the main output (when the command has one) goes to
    standard output too.
    """
    if hasattr(args, "output"):
        yield "-o", args.output or "-"
    if args.command in ("normalize", "merge") and args.record is not None:
        yield "--record", args.record
    if args.command == "normalize" and args.report is not None:
        yield "--report", args.report
    if args.command == "mergetool":
        yield "MERGED", args.merged


def identity(path: str) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of a regular file at ``path`` (links followed), else None."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def check_paths(args: argparse.Namespace) -> None:
    """Refuse, before anything is read, outputs that would destroy an input or collide."""
    inputs = list(inputs_of(args))
    outputs = list(outputs_of(args))
    from_stdin = [label for label, path in inputs if path == STDIN]
    if len(from_stdin) > 1:
        raise InputError(f"{' and '.join(from_stdin)}: each reads standard input (-), which can "
                         "be read once: give all but one of them a file", source=STDIN)
    to_stdout = [label for label, path in outputs if path == "-"]
    if len(to_stdout) > 1:
        raise InputError(f"{' and '.join(to_stdout)}: both write to standard output (-o without "
                         "a file writes there too): give one of them a file", source="-")
    read = [(label, path, identity(path)) for label, path in inputs if path != STDIN]
    written: dict[object, str] = {}
    for option, path in outputs:
        if path == "-":
            continue
        target = check_output(path)
        for label, source, same in read:
            if (same is not None and same == target.identity) or source == path:
                raise InputError(f"{path}: {option} names the input {label} {source} (the same "
                                 f"file): writing it would destroy what is read; give {option} "
                                 "another path", source=path)
        for key in (target.real, target.identity):
            if key is not None and written.setdefault(key, option) != option:
                raise InputError(f"{path}: given both as {written[key]} and as {option} (the "
                                 "same file): give each output its own path", source=path)
