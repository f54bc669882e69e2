"""What the pipeline commands share: settings from options, building and running a pipeline."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from metaplan.cli._io import Timer, note, say
from metaplan.core.invariants import parse_checks, verifier
from metaplan.core.plan import Plan, load
from metaplan.core.rules import (
    BUILTIN_SPECS,
    ModelType,
    load_rules,
    load_specs,
    model_type_of,
)
from metaplan.files.jsonio import read_json
from metaplan.passes.chaining import Pipeline, Trace
from metaplan.passes.registry import (
    NORMALIZE,
    Settings,
    build_pipeline,
    format_passes,
    parse_passes,
)
from metaplan.settings import FROM_PLAN

__all__ = [
    "Run",
    "checks_from",
    "model_type_line",
    "option_of",
    "pipeline_from",
    "print_stats",
    "run_pipeline",
    "settings_of",
]


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


def settings_of(args: argparse.Namespace, prefix: str = "") -> Settings:
    """What ``--specs``, ``--rules`` and ``--model-type`` ask for: the specs and rules files
    read (``BUILTIN_SPECS`` and ``FROM_PLAN`` unless given), and
    the model type (``FROM_PLAN`` unless given)."""
    specs_path = option_of(args, "specs", prefix)
    rules_path = option_of(args, "rules", prefix)
    given = option_of(args, "model_type", prefix)
    return Settings(load_specs(specs_path) if specs_path else BUILTIN_SPECS,
                    load_rules(rules_path) if rules_path else FROM_PLAN,
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


def pipeline_from(args: argparse.Namespace, prefix: str = "", *,
                  notes: list[str] | None = None) -> Pipeline:
    """The pipeline the options ask for (``prefix="against_"``: compare's second one).

    Its notes are printed, or added to ``notes`` (for a command that checks
    every argument before it prints anything)."""
    names = _names(args, prefix)
    specs, rules, model_type = settings_of(args, prefix)
    if model_type is not FROM_PLAN and all(
            key[1] != specs.canonical_model_type(model_type) for key in specs.specs):
        said = (f"note: no spec is specific to model type {model_type!r}; the generic specs "
                "apply")
        if notes is None:
            note(args, said)
        else:
            notes.append(said)
    built = build_pipeline(names, specs=specs, rules=rules, model_type=model_type,
                           label=format_passes(names))
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
    trace = built.run(plan, contracts=getattr(args, "check_contracts", False))
    return Run(plan, built, trace, timer)


def print_stats(args: argparse.Namespace, run: Run) -> None:
    """The ``--stats`` table on stderr, when asked for."""
    if getattr(args, "stats", False):
        from metaplan.views.text import format_stats  # the text layer: only when asked for

        sys.stderr.write(format_stats(run.trace, run.timer.steps)
                         + model_type_line(args, run.plan) + "\n")
