"""The ``metaplan`` command line: its options, and the exit codes of every command.

Exit codes, as diff(1): 0 success (no difference, no violation), 1 a
difference or a violation was found, 2 bad input or a refused replay (one
line on stderr, no traceback, no file written).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from metaplan.cli._commands import COMMANDS
from metaplan.cli._common import one_line
from metaplan.cli._paths import check_paths
from metaplan.errors import ConflictError, InputError, PassError, VerificationError
from metaplan.frozen import paused_gc
from metaplan.inputs import (
    DEFAULT_MAX_INPUT_SIZE,
    ENV_MAX_INPUT_SIZE,
    describe_size,
    input_size_limit,
    max_input_size,
    parse_size,
)
from metaplan.passes.registry import PASSES
from metaplan.verify import CHECKS
from metaplan.version import __version__

__all__ = ["console", "main"]

_PASS_LIST = ", ".join(PASSES)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr, as every other error is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, one_line(f"{self.prog}: error: {message} (see {self.prog} --help)") + "\n")


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--max-input-size: ")) from exc


def _pipeline_options(sub: argparse.ArgumentParser, *, plan: bool = True,
                      prefix: str = "") -> None:
    """PLAN and the options that choose and configure the passes."""
    if plan:
        sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
    dash = f"--{prefix}"
    sub.add_argument(f"{dash}specs", metavar="F",
                     help="strategy specs JSON (default: the built-in registry)")
    sub.add_argument(f"{dash}rules", metavar="F",
                     help="inline rules JSON (default: from the plan's injections)")
    sub.add_argument(f"{dash}model-type", metavar="T",
                     help="model type for spec lookup (default: the plan's model_type, else "
                          "model_class, else source.architecture)")
    sub.add_argument(f"{dash}passes", metavar="SPEC",
                     help=f"comma-separated passes to run (default: normalize, the three "
                          f"stages): {_PASS_LIST}")


def _run_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--print-pipeline", action="store_true",
                     help="print the pipeline spec that would run, and stop")
    sub.add_argument("--verify-each", action="store_true",
                     help="verify the input and every pass's result; stop at the first "
                          "violation, naming the pass (exit 1)")
    sub.add_argument("--stats", action="store_true",
                     help="print each pass's changes and wall time on stderr")


def _out_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")


def _format_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--format", choices=("text", "json", "jsonpatch", "patch"), default="text",
                     help="text (grouped by module; default), json (a records file replay "
                          "takes), or jsonpatch (RFC 6902, with test ops)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="metaplan",
        description="Normalize frozen parallelization plans (codegen_meta.json) with pure, "
                    "recorded passes. Exit 0: done (no difference, no violation); 1: a "
                    "difference or violation found; 2: bad input.")
    parser.add_argument("--version", action="version", version=f"metaplan {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=_Parser)

    sub = commands.add_parser("normalize", help="normalize a plan as the seed does")
    _pipeline_options(sub)
    _run_options(sub)
    _out_option(sub)
    sub.add_argument("--record", metavar="REC", help="also write the change records here")
    sub.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")

    sub = commands.add_parser("trace", help="write every state and record of a run to a folder")
    _pipeline_options(sub)
    _run_options(sub)
    sub.add_argument("--out", metavar="DIR", required=True,
                     help="folder for 000-input.json, 001-<pass>.json, 001-<pass>.record.json"
                          ", ... and trace.json")

    sub = commands.add_parser("replay", help="apply change records to a plan, checked")
    sub.add_argument("plan", metavar="PLAN", help="the plan the records were made on")
    sub.add_argument("record", metavar="REC", help="records file (normalize --record, diff)")
    _out_option(sub)

    sub = commands.add_parser("invert", help="write the records that undo REC")
    sub.add_argument("record", metavar="REC", help="records file to invert")
    _out_option(sub)

    sub = commands.add_parser("explain", help="every change to some modules, with its pass and "
                                              "why")
    _pipeline_options(sub, plan=False)
    _run_options(sub)
    sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
    sub.add_argument("fqns", metavar="FQN", nargs="+",
                     help="module FQNs, e.g. model.layers.3.mlp")

    sub = commands.add_parser("diff", help="the changes that turn plan A into plan B "
                                           "(exit 1 when they differ)")
    sub.add_argument("a", metavar="A", help="the plan to start from")
    sub.add_argument("b", metavar="B", help="the plan to arrive at")
    sub.add_argument("--passes", metavar="SPEC",
                     help="run these passes on both plans first, then diff: compare them modulo "
                          "a projection (e.g. slim) or a normalization")
    _format_option(sub)
    _out_option(sub)
    sub.add_argument("--exit-code", action="store_true", help=argparse.SUPPRESS)

    sub = commands.add_parser(
        "compare", help="run two versions of a pipeline on one plan; report the first pass "
                        "whose output differs (exit 1)",
        description="Pipeline A is what --specs, --rules, --model-type and --passes describe; "
                    "pipeline B takes each --against-* option instead, and A's setting where "
                    "none is given.")
    _pipeline_options(sub)
    _pipeline_options(sub, plan=False, prefix="against-")
    _format_option(sub)

    sub = commands.add_parser("bisect", help="the first state of a run that fails verification "
                                             "(or matches --path/--hash/--matches)")
    _pipeline_options(sub)
    _run_options(sub)
    what = sub.add_mutually_exclusive_group()
    what.add_argument("--checks", metavar="C",
                      help="find the first state failing these verify checks (comma-separated; "
                           "the default, with all checks)")
    what.add_argument("--path", metavar="P",
                      help="a value's path, e.g. param_plan/model.layers.3.mlp/is_boundary "
                           "(or a JSON Pointer): find where it first changes, or first equals "
                           "--value")
    what.add_argument("--hash", metavar="H", help="find the state with this content hash")
    what.add_argument("--matches", metavar="PLAN", help="find the state equal to this plan")
    sub.add_argument("--value", metavar="JSON", help="with --path: the value to find")

    sub = commands.add_parser("verify", help="check the invariants the code emitter relies on "
                                             "(exit 1 with a list when violated)")
    sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
    sub.add_argument("--checks", metavar="C",
                     help=f"comma-separated checks (default: all but spec-coverage, which "
                          f"--specs or --rules add): {', '.join(CHECKS)}")
    sub.add_argument("--specs", metavar="F",
                     help="strategy specs JSON for spec-coverage (default: the built-in registry)")
    sub.add_argument("--rules", metavar="F",
                     help="inline rules JSON for spec-coverage (default: the plan's injections)")
    sub.add_argument("--model-type", metavar="T",
                     help="model type for spec-coverage (default: the plan's model_type, else "
                          "model_class, else source.architecture)")
    sub.add_argument("--format", choices=("text", "json"), default="text")

    sub = commands.add_parser("hash", help="print the content hash of plans")
    sub.add_argument("plans", metavar="PLAN", nargs="+", help="plans to hash")
    for sub in commands.choices.values():
        sub.add_argument("--max-input-size", metavar="SIZE", type=_size,
                         help=f"refuse an input (or what its gzip data expands to) larger than "
                              f"this, e.g. 4G (default: {ENV_MAX_INPUT_SIZE}, else "
                              f"{describe_size(DEFAULT_MAX_INPUT_SIZE).split(' (')[0]})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the collector's state is kept)."""
    args = _parser().parse_args(argv)
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
        with input_size_limit(args.max_input_size):
            max_input_size()  # a bad METAPLAN_MAX_INPUT_SIZE fails first
            check_paths(args)
            return COMMANDS[args.command](args)
    except VerificationError as exc:
        _say(args, f"verification failed: {exc}")
        return 1
    except (InputError, ConflictError, PassError) as exc:
        message = str(exc)
        if isinstance(exc, ConflictError):
            message = (f"replay refused: {getattr(args, 'record', 'the records')} does not fit "
                       f"{getattr(args, 'plan', 'the plan')}: {message}")
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


def _say(args: argparse.Namespace, message: str) -> None:
    """One line on stderr: ``metaplan CMD: message``, escaped and cut (see :func:`one_line`)."""
    print(one_line(f"metaplan {args.command}: {message}"), file=sys.stderr)
