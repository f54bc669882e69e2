"""``metaplan explain``: every change to some modules, in pass order, and why."""

from __future__ import annotations

import argparse

from metaplan.algorithms.braces import fold
from metaplan.algorithms.patterns import Unmatched, is_glob, match_names
from metaplan.cli._common import print_stats, run_pipeline
from metaplan.cli._io import Timer, json_name, note, say_json, to_stdout
from metaplan.cli._style import text_style
from metaplan.core.plan import load
from metaplan.errors import InputError
from metaplan.views.text import format_explain

__all__ = ["explain"]


def explain(args: argparse.Namespace) -> int:
    """Run the pipeline and say what each module the patterns name went through.

    Every pattern that matches no module is named on stderr (exit 2), after
    the modules that were found are explained.
    """
    if args.print_pipeline:
        run_pipeline(args)
        return 0
    timer = Timer()
    plan = timer.time("load", lambda: load(args.plan))
    modules = list(dict.fromkeys([*plan.index("param_plan"), *plan.index("boundary_classes")]))
    try:
        matches = match_names(args.fqns, modules)
    except ValueError as exc:
        raise InputError(f"FQN: {exc}", source="FQN") from exc
    fqns = matches.names
    run = run_pipeline(args, plan, timer) if fqns else None
    if run is not None and args.format == "json":
        say_json({"plan": json_name(args.plan), "modules": [
            {"module": fqn, "changes": [{"pass": name, **change.to_json()}
                                        for name, change in run.trace.explain_module(fqn)]}
            for fqn in fqns], "unknown": [
            {"pattern": miss.pattern, "unmatched": list(miss.words),
             "did_you_mean": miss.suggestion} for miss in matches.unmatched]})
    elif run is not None:
        to_stdout(format_explain(run.trace, fqns, style=text_style(args, plan)))
    if run is not None:
        print_stats(args, run)
    for miss in matches.unmatched:
        note(args, f"error: {_unknown(miss, args.plan)}")
    return 2 if matches.unmatched else 0


def _unknown(miss: Unmatched, plan: str) -> str:
    """``PATTERN[: WORDS]: no such module in PLAN (...; did you mean X?)``."""
    subject = miss.pattern if miss.whole else f"{miss.pattern}: {fold(miss.words)}"
    found = "matches no module" if any(map(is_glob, miss.words)) else "no such module"
    hint = f"; did you mean {miss.suggestion}?" if miss.suggestion else ""
    return f"{subject}: {found} in {plan} (neither in param_plan nor in boundary_classes{hint})"
