"""What the commands share: writing outputs, and building a pipeline from options."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from metaplan.errors import InputError
from metaplan.jsonio import read_json
from metaplan.outputs import write_many_atomic, write_stdout
from metaplan.passes.registry import NORMALIZE, build_pipeline, format_passes, parse_passes
from metaplan.pipeline import Pipeline, Trace
from metaplan.plan import Plan, load
from metaplan.report import format_stats
from metaplan.rules import (
    BUILTIN_SPECS,
    InlineRule,
    ModelType,
    SpecRegistry,
    load_rules,
    load_specs,
    model_type_of,
)
from metaplan.settings import FROM_PLAN, ModelTypeSetting
from metaplan.verify import parse_checks, verifier

__all__ = [
    "Run",
    "Settings",
    "Timer",
    "checks_from",
    "json_name",
    "model_type_line",
    "note",
    "one_line",
    "option_of",
    "output",
    "pipeline_from",
    "print_stats",
    "run_pipeline",
    "say",
    "settings_of",
    "to_stdout",
]

T = TypeVar("T")


_CONTROL = {code: f"\\x{code:02x}" for code in (*range(32), *range(127, 160))} | {
    10: "\\n", 13: "\\r", 9: "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"}
MESSAGE_LIMIT = 2000
"""The most characters of a message on stderr; the rest is cut, saying how much."""


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` on one line (control characters escaped), cut to ``limit`` characters.

    >>> one_line("a\\nb"), one_line("x" * 30, 10)
    ('a\\\\nb', 'xxxxxxxxxx... (20 more characters cut)')
    """
    flat = text.translate(_CONTROL)
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}... ({len(flat) - limit} more characters cut)"


def note(args: argparse.Namespace, message: str) -> None:
    """A line on stderr, prefixed with the command."""
    print(one_line(f"metaplan {args.command}: {message}"), file=sys.stderr)


def json_name(path: str) -> str:
    """A file name as Unicode text for a JSON output (undecodable bytes become U+FFFD)."""
    return os.fsencode(path).decode("utf-8", "replace")


def to_stdout(text: bytes | str) -> None:
    """Write to stdout, flushed; a reader that has gone (``| head``) is not an error.

    The command still runs to its end and exits with its own status (a
    ``diff | head`` that differs exits 1, not 0). Text is encoded as file
    names are, so a name that is not UTF-8 is printed as the bytes it is.
    """
    write_stdout(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)


def say(*lines: str) -> None:
    """Lines of text on stdout (see :func:`to_stdout`)."""
    to_stdout("".join(f"{line}\n" for line in lines))


def output(args: argparse.Namespace, text: bytes, also: dict[str, bytes] | None = None) -> None:
    """Write ``text`` to ``-o``, with ``also`` in the same commit; ``-`` (or no ``-o``) is stdout.

    Every output lands, or no file changes (see :mod:`metaplan.outputs`).
    """
    files: dict[str, bytes] = {}
    stdout: bytes | None = None
    for path, data in [(args.output or "-", text), *(also or {}).items()]:
        if path in files:
            raise InputError(f"{path}: given both as -o and as --record: give each output its "
                             "own path", source=path)
        if path != "-":
            files[path] = data
        elif stdout is None:
            stdout = data
        else:
            raise InputError("-: two outputs on standard output: give one of them a file",
                             source="-")
    write_many_atomic(files, stdout=stdout)


class Timer:
    """Named wall times of the steps around a run (load, write), for ``--stats``."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []

    def time(self, name: str, step: Callable[[], T]) -> T:
        """``step()``, timed as ``name``."""
        started = time.perf_counter()
        value = step()
        self.steps.append((name, time.perf_counter() - started))
        return value


class Run(NamedTuple):
    """One pipeline run from the command line: the plan, the pipeline and its trace."""

    plan: Plan
    pipeline: Pipeline
    trace: Trace
    timer: Timer


def option_of(args: argparse.Namespace, name: str, prefix: str) -> Any:
    """``--against-NAME`` when given, else ``--NAME``: compare's B defaults to A's settings."""
    value = getattr(args, f"{prefix}{name}", None)
    return getattr(args, name) if value is None else value


class Settings(NamedTuple):
    """What ``--specs``, ``--rules`` and ``--model-type`` ask for (None: not given)."""

    specs: SpecRegistry | None
    rules: tuple[InlineRule, ...] | None
    model_type: ModelTypeSetting


def settings_of(args: argparse.Namespace, prefix: str = "") -> Settings:
    """The specs and rules files read, and the model type (``FROM_PLAN`` unless given)."""
    specs_path = option_of(args, "specs", prefix)
    rules_path = option_of(args, "rules", prefix)
    given = option_of(args, "model_type", prefix)
    return Settings(load_specs(specs_path) if specs_path else None,
                    load_rules(rules_path) if rules_path else None,
                    FROM_PLAN if given is None else given)


def model_type_line(args: argparse.Namespace, plan: Mapping[str, Any], prefix: str = "") -> str:
    """``model type: X (where it came from)``, and the model type its specs know it as."""
    given = option_of(args, "model_type", prefix)
    found = model_type_of(plan) if given is None else ModelType(given, "--model-type")
    specs_path = option_of(args, "specs", prefix)
    registry = load_specs(specs_path) if specs_path else BUILTIN_SPECS
    canonical = registry.canonical_model_type(found.value)
    alias = f", an alias of {canonical}" if canonical != found.value else ""
    return f"model type: {found.describe()}{alias}"


def pipeline_from(args: argparse.Namespace, prefix: str = "") -> Pipeline:
    """The pipeline the options ask for (``prefix="against_"``: compare's second one)."""
    names = _names(args, prefix)
    specs, rules, model_type = settings_of(args, prefix)
    registry = specs if specs is not None else BUILTIN_SPECS
    if model_type is not FROM_PLAN and all(
            key[1] != registry.canonical_model_type(model_type) for key in registry.specs):
        note(args, f"note: no spec is specific to model type {model_type!r}; the generic "
                   "specs apply")
    built = build_pipeline(names, specs=registry, rules=FROM_PLAN if rules is None else rules,
                           model_type=model_type, label=format_passes(names))
    if getattr(args, "verify_each", False):
        return built.verified(verifier(specs=specs, rules=rules, model_type=model_type))
    return built


def _names(args: argparse.Namespace, prefix: str = "") -> tuple[str, ...]:
    text = option_of(args, "passes", prefix)
    where = "--against-passes" if prefix and getattr(args, f"{prefix}passes") else "--passes"
    return NORMALIZE if text is None else parse_passes(text, where=where)


def checks_from(args: argparse.Namespace) -> tuple[str, ...] | None:
    """``--checks``, read as ``--passes`` is (commas, spaces, snake case), checked."""
    if args.checks is None:
        return None
    return parse_checks(args.checks, where="--checks")


def run_pipeline(args: argparse.Namespace, plan: Plan | None = None,
                 timer: Timer | None = None) -> Run | None:
    """Load the plan and run the asked-for pipeline; None after ``--print-pipeline``."""
    timer = timer if timer is not None else Timer()
    if getattr(args, "print_pipeline", False):
        say(format_passes(_names(args)))
        header = plan if plan is not None or args.model_type is not None else read_json(args.plan)
        note(args, model_type_line(args, header if isinstance(header, Mapping) else {}))
        return None
    plan = plan if plan is not None else timer.time("load", lambda: load(args.plan))
    built = pipeline_from(args)
    trace = built.run(plan)
    return Run(plan, built, trace, timer)


def print_stats(args: argparse.Namespace, run: Run) -> None:
    """The ``--stats`` table on stderr, when asked for."""
    if getattr(args, "stats", False):
        sys.stderr.write(format_stats(run.trace, run.timer.steps)
                         + model_type_line(args, run.plan) + "\n")
