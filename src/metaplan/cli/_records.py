"""``metaplan replay`` (and ``--rebase``) and ``metaplan invert``: records applied, undone."""

from __future__ import annotations

import argparse

from metaplan.algebra import invert as inverted
from metaplan.cli._io import output
from metaplan.cli._merge import print_conflicts
from metaplan.merge import rebase
from metaplan.pipeline import replay as replayed
from metaplan.plan import dumps, load
from metaplan.records import dumps_records, load_records

__all__ = ["invert", "replay"]


def replay(args: argparse.Namespace) -> int:
    """Apply the records, checked; with ``--rebase``, what still applies (conflicts: exit 1)."""
    plan = load(args.plan)
    records = load_records(args.record)
    if not args.rebase:
        output(args, dumps(replayed(plan, records)))
        return 0
    result, _, conflicts = rebase(plan, records)
    if conflicts:
        print_conflicts(args, conflicts, (args.record, args.plan))
        return 1
    output(args, dumps(result))
    return 0


def invert(args: argparse.Namespace) -> int:
    """The records that undo the given ones, last first."""
    records = load_records(args.record)
    output(args, dumps_records(inverted(record) for record in reversed(records)))
    return 0
