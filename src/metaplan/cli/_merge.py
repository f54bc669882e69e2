"""``metaplan merge`` and ``git-merge``: three-way merge of plans, conflicts listed."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from metaplan.cli._io import json_name, output, to_stdout
from metaplan.jsonio import dumps_pretty
from metaplan.merge import Conflict
from metaplan.merge import merge as merge_plans
from metaplan.outputs import write_many_atomic
from metaplan.plan import Plan, dumps, load
from metaplan.records import dumps_records

__all__ = ["git_merge", "merge", "print_conflicts"]


def print_conflicts(args: argparse.Namespace, conflicts: Sequence[Conflict],
                    names: Sequence[str]) -> None:
    """Every conflict: as text on stdout (``--format json``: one JSON object), naming the
    place (module FQN and key) and the three values."""
    if getattr(args, "format", "text") == "json":
        to_stdout(dumps_pretty({"inputs": [json_name(n) for n in names],
                                "conflicts": [c.to_json() for c in conflicts]}))
        return
    to_stdout(f"{len(conflicts):,} conflict(s); nothing written\n"
              + "".join(f"  {conflict}\n" for conflict in conflicts))


def merge(args: argparse.Namespace) -> int:
    """``metaplan merge BASE OURS THEIRS``: exit 0 merged (written to ``-o``), 1 conflicts
    (nothing written), 2 bad input."""
    base, ours, theirs = load(args.base), load(args.ours), load(args.theirs)
    merged = merge_plans(base, ours, theirs)
    if merged.conflicts:
        print_conflicts(args, merged.conflicts, (args.base, args.ours, args.theirs))
        return 1
    output(args, dumps(merged.plan),
           {args.record: dumps_records([merged.record])} if args.record else None)
    return 0


def git_merge(args: argparse.Namespace) -> int:
    """git's merge driver ``%O %A %B [%P]``: the merge is written to ``%A`` (exit 0); on
    conflict ``%A`` keeps ours, valid JSON, and each conflict is printed (exit 1).

    Both sides added the file (git gives an empty ``%O``): the base is a plan
    with no modules, so what the two added alike merges.
    """
    base = (Plan.from_json({"param_plan": {}, "boundary_classes": {}})
            if os.path.getsize(args.ancestor) == 0 else load(args.ancestor))
    ours, theirs = load(args.current), load(args.other)
    merged = merge_plans(base, ours, theirs)
    name = json_name(args.pathname or args.current)
    if merged.conflicts:
        print(f"metaplan git-merge: {name}: {len(merged.conflicts):,} conflict(s); kept ours",
              file=sys.stderr)
        for conflict in merged.conflicts:
            print(f"  {conflict}", file=sys.stderr)
        return 1
    write_many_atomic({args.current: dumps(merged.plan)})
    print(f"metaplan git-merge: {name}: merged ({len(merged.record):,} changes from theirs)",
          file=sys.stderr)
    return 0
