"""``metaplan replay`` (and ``--rebase``) and ``metaplan invert``: records applied, undone."""

from __future__ import annotations

import argparse

from metaplan.cli._io import output
from metaplan.cli._merge import print_conflicts
from metaplan.core.plan import dumps, load
from metaplan.passes.chaining import replay as replayed
from metaplan.records.algebra import invert as inverted
from metaplan.records.codec import dumps_records, load_records
from metaplan.versions.merging import rebase

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
        print_conflicts(args, conflicts, (args.plan, args.record))
        return 1
    output(args, dumps(result))
    return 0


def invert(args: argparse.Namespace) -> int:
    """The records that undo the given ones, last first."""
    records = load_records(args.record)
    output(args, dumps_records(inverted(record) for record in reversed(records)))
    return 0
