"""The ``metaplan`` command line: dispatch, exit codes, and an exit that skips teardown.

Exit codes, as diff(1): 0 success (no difference, no violation), 1 a
difference, a violation or a conflict was found, 2 bad input or a refused
replay (one line on stderr, no traceback, no file written). Each command's
module is imported when that command runs, so ``--help`` pays for argparse.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from metaplan.cli._io import one_line
from metaplan.cli._parser import parser
from metaplan.cli._paths import check_paths
from metaplan.errors import (
    ConflictError,
    ContractError,
    InputError,
    PassError,
    VerificationError,
)
from metaplan.files.inputs import describe_size, input_size_limit, max_input_size

__all__ = ["COMMANDS", "console", "main"]

COMMANDS = {
    "normalize": "_normalize:normalize", "trace": "_trace:trace", "replay": "_records:replay",
    "invert": "_records:invert", "explain": "_explain:explain", "diff": "_diff:diff",
    "show": "_diff:show", "git-diff": "_diff:git_diff", "compare": "_compare:compare",
    "bisect": "_bisect:bisect", "verify": "_verify:verify", "hash": "_verify:hash_plans",
    "merge": "_merge:merge", "git-merge": "_merge:git_merge", "mergetool": "_merge:mergetool",
    "git-setup": "_setup:git_setup", "batch": "_batch:batch",
}
"""Command name -> ``module:function`` in :mod:`metaplan.cli`, imported when it runs."""


def _command(name: str) -> Callable[[argparse.Namespace], int]:
    module, function = COMMANDS[name].split(":")
    found: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(f"metaplan.cli.{module}"), function)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the collector's state is kept)."""
    args = parser().parse_args(argv)  # --help and --version stop here, importing little
    from metaplan.frozen import paused_gc

    with paused_gc():  # one short job over one big acyclic tree: collections only cost time
        return _run(args)


def console() -> NoReturn:
    """The installed ``metaplan`` command: :func:`main`, then exit without tearing down the heap.

    Freeing every object of a large plan one by one takes longer than the
    work; the operating system takes the memory back at once. Output is
    flushed first, so nothing written is lost.
    """
    try:
        status = main()
    except SystemExit as exc:  # argparse: --help, --version, a usage error
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        if sys.stdout is not None:  # None: started with standard output closed
            sys.stdout.flush()
    except (OSError, ValueError):
        status = status or 2
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(status)


def _run(args: argparse.Namespace) -> int:
    try:
        with input_size_limit(getattr(args, "max_input_size", None)):  # git-setup: none
            max_input_size()  # a bad METAPLAN_MAX_INPUT_SIZE fails first
            check_paths(args)
            return _command(args.command)(args)
    except VerificationError as exc:
        _say(args, f"verification failed: {exc}")
        return 1
    except ContractError as exc:
        _say(args, f"contract broken: {exc}")
        return 1
    except (InputError, ConflictError, PassError) as exc:
        message = str(exc)
        if isinstance(exc, ConflictError) and args.command == "replay":
            message = (f"replay refused: {_shown_name(args.record)} does not fit "
                       f"{_shown_name(args.plan)}: {message}")
        _say(args, f"error: {message}")
        return 2
    except BrokenPipeError:
        return 0
    except MemoryError:
        _say(args, f"error: out of memory; --max-input-size (now "
                   f"{describe_size(max_input_size())}) bounds what an input may hold")
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        _say(args, f"error: {where}{exc.strerror or exc}")
        return 2


def _shown_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _say(args: argparse.Namespace, message: str) -> None:
    """One line on stderr: ``metaplan CMD: message``, escaped and cut (see :func:`one_line`)."""
    print(one_line(f"metaplan {args.command}: {message}"), file=sys.stderr)
