"""What the commands share: writing outputs, and building a pipeline from options."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from metaplan.errors import InputError
from metaplan.jsonio import write_many_atomic
from metaplan.passes import FROM_PLAN
from metaplan.passes.registry import NORMALIZE, build_pipeline, format_passes, parse_passes
from metaplan.pipeline import Pipeline, Trace
from metaplan.plan import Plan, load
from metaplan.report import format_stats
from metaplan.rules import BUILTIN_SPECS, load_rules, load_specs
from metaplan.verify import verify

__all__ = ["Run", "Timer", "note", "output", "pipeline_from", "run_pipeline", "to_stdout"]

T = TypeVar("T")


def note(args: argparse.Namespace, message: str) -> None:
    """A line on stderr, prefixed with the command."""
    print(f"metaplan {args.command}: {message}", file=sys.stderr)


def to_stdout(text: bytes) -> None:
    """Write bytes to stdout, flushed."""
    sys.stdout.buffer.write(text)
    sys.stdout.buffer.flush()


def output(args: argparse.Namespace, text: bytes, also: dict[str, bytes] | None = None) -> None:
    """Write ``text`` to ``-o`` (``-`` or none: stdout), with ``also`` in the same commit."""
    outputs = dict(also or {})
    to_file = args.output not in (None, "-")
    if to_file:
        if args.output in outputs:
            raise InputError(f"{args.output}: given both as -o and as --record: give each "
                             "output its own path", source=args.output)
        outputs[args.output] = text
    if outputs:
        write_many_atomic(outputs)
    if not to_file:
        to_stdout(text)


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


def _model_type(args: argparse.Namespace, prefix: str) -> Any:
    value = getattr(args, f"{prefix}model_type")
    return FROM_PLAN if value is None else value


def pipeline_from(args: argparse.Namespace, plan: Plan, prefix: str = "") -> Pipeline:
    """The pipeline the options ask for (``prefix="against_"``: compare's second one)."""
    passes_text = getattr(args, f"{prefix}passes")
    specs_path = getattr(args, f"{prefix}specs")
    rules_path = getattr(args, f"{prefix}rules")
    names = parse_passes(passes_text) if passes_text else NORMALIZE
    specs = load_specs(specs_path) if specs_path else None
    rules = load_rules(rules_path) if rules_path else None
    model_type = _model_type(args, prefix)
    registry = specs if specs is not None else BUILTIN_SPECS
    if model_type is not FROM_PLAN and all(key[1] != model_type for key in registry.specs):
        note(args, f"note: no spec is specific to model type {model_type!r}; the generic "
                   "specs apply")
    built = build_pipeline(names, plan, specs=specs, rules=rules, model_type=model_type,
                           label=format_passes(names))
    return built.verified(verify) if getattr(args, "verify_each", False) else built


def run_pipeline(args: argparse.Namespace, plan: Plan | None = None,
                 timer: Timer | None = None) -> Run | None:
    """Load the plan and run the asked-for pipeline; None after ``--print-pipeline``."""
    timer = timer if timer is not None else Timer()
    if getattr(args, "print_pipeline", False):
        names = parse_passes(args.passes) if args.passes else NORMALIZE
        to_stdout((format_passes(names) + "\n").encode())
        return None
    plan = plan if plan is not None else timer.time("load", lambda: load(args.plan))
    built = pipeline_from(args, plan)
    trace = built.run(plan)
    return Run(plan, built, trace, timer)


def print_stats(args: argparse.Namespace, run: Run) -> None:
    """The ``--stats`` table on stderr, when asked for."""
    if getattr(args, "stats", False):
        sys.stderr.write(format_stats(run.trace, run.timer.steps))
