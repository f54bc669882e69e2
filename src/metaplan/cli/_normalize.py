"""``metaplan normalize``: the seed's result, with records on request."""

from __future__ import annotations

import argparse

from metaplan.cli._common import print_stats, run_pipeline
from metaplan.cli._io import json_name, note, output
from metaplan.core.plan import dumps
from metaplan.errors import InputError
from metaplan.records.codec import dumps_records

__all__ = ["normalize"]


def normalize(args: argparse.Namespace) -> int:
    """Run the pipeline; write the plan to ``-o`` (and the records to ``--record``)."""
    if args.report_times and not args.report:
        raise InputError("--report-times puts the times in the --report page: give --report "
                         "HTML too")
    run = run_pipeline(args)
    if run is None:
        return 0
    plan, records = run.trace.final, run.trace.records
    text = run.timer.time("dump", lambda: dumps(plan))
    also = {args.record: dumps_records(records)} if args.record else {}
    if args.report:
        from metaplan.views.html.runs import run_report

        also[args.report] = run.timer.time("report", lambda: run_report(
            run.trace, source=json_name(args.plan), pipeline=run.pipeline.name,
            seconds=args.report_times).encode())
    run.timer.time("write", lambda: output(args, text, also or None))
    if args.output not in (None, "-") and not args.quiet:
        counts = ", ".join(f"{r.pass_name}: {len(r)}" for r in records)
        note(args, f"wrote {args.output} ({plan.content_hash}); changes: {counts}")
    print_stats(args, run)
    return 0
