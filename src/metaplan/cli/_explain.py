"""``metaplan explain``: every change to some modules, in pass order, and why."""

from __future__ import annotations

import argparse

from metaplan.cli._common import print_stats, run_pipeline
from metaplan.cli._io import Timer, json_name, to_stdout
from metaplan.errors import InputError
from metaplan.jsonio import dumps_pretty
from metaplan.plan import load
from metaplan.report import format_explain

__all__ = ["explain"]


def explain(args: argparse.Namespace) -> int:
    """Run the pipeline and say what each named module went through."""
    if args.print_pipeline:
        run_pipeline(args)
        return 0
    timer = Timer()
    plan = timer.time("load", lambda: load(args.plan))
    fqns = list(dict.fromkeys(args.fqns))  # each module once, in the order given
    entries, classes = plan.index("param_plan"), plan.index("boundary_classes")
    missing = [fqn for fqn in fqns if fqn not in entries and fqn not in classes]
    if missing:
        raise InputError(f"{', '.join(missing)}: no such module in {args.plan} (neither in "
                         "param_plan nor in boundary_classes)", source=args.plan)
    run = run_pipeline(args, plan, timer)
    if run is None:
        return 0
    if args.format == "json":
        to_stdout(dumps_pretty({"plan": json_name(args.plan), "modules": [
            {"module": fqn, "changes": [{"pass": name, **change.to_json()}
                                        for name, change in run.trace.explain_module(fqn)]}
            for fqn in fqns]}))
    else:
        to_stdout(format_explain(run.trace, fqns))
    print_stats(args, run)
    return 0
