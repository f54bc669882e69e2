"""``metaplan merge``, ``git-merge`` and ``mergetool``: three-way merges that lose no change.

A merge with conflicts still holds every clean change of both sides, with
ours' value at each conflicting place; ``--ours`` / ``--theirs`` settle the
conflicts to one side, and ``mergetool`` asks about each on a terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from metaplan.cli._io import json_name, note, output, say_json
from metaplan.cli._sides import load_side, side_name
from metaplan.cli._style import text_style
from metaplan.core.plan import Plan, dumps, load, load_all
from metaplan.errors import InputError
from metaplan.files.outputs import write_many_atomic
from metaplan.records.codec import dumps_records
from metaplan.versions.merging import Conflict, MergeResult, Resolve, Side
from metaplan.versions.merging import merge as merge_plans
from metaplan.views.labels import PLAIN, TextStyle
from metaplan.views.text import format_conflicts, plural

__all__ = ["git_merge", "merge", "mergetool", "print_conflicts"]


def print_conflicts(args: argparse.Namespace, conflicts: Sequence[Conflict],
                    names: Sequence[str], done: str = "nothing written", *,
                    style: TextStyle = PLAIN) -> None:
    """Every conflict, naming the place (module FQN and key) and the three values: text on
    stderr (stdout is where a merged plan goes), or with ``--format json`` one JSON object
    on stdout, for tools."""
    if getattr(args, "format", "text") == "json":
        say_json({"inputs": [json_name(n) for n in names],
                  "conflicts": [c.to_json() for c in conflicts]})
        return
    text = format_conflicts(conflicts, style=style)
    first, _, rest = text.partition("\n")
    sys.stderr.write(f"metaplan {args.command}: {first}; {done}\n{rest}")


class _Counted:
    """A side for every conflict, counting them (for the note that says how many)."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.count = 0

    def __call__(self, conflict: Conflict) -> Side:
        self.count += 1
        return self.side


def _side(args: argparse.Namespace) -> _Counted | None:
    side: Side | None = args.side
    return None if side is None else _Counted(side)


def _settled(args: argparse.Namespace, chosen: _Counted | None) -> None:
    if chosen is not None and chosen.count:
        note(args, f"{plural(chosen.count, 'conflict')} settled to {chosen.side}")


def merge(args: argparse.Namespace) -> int:
    """``metaplan merge BASE OURS THEIRS``: exit 0 merged (written to ``-o``), 1 conflicts
    (nothing written), 2 bad input. ``--ours`` / ``--theirs`` settle every conflict."""
    base, ours, theirs = load_all([args.base, args.ours, args.theirs])
    chosen = _side(args)
    merged = merge_plans(base, ours, theirs, resolve=chosen)
    if args.format == "html":
        from metaplan.views.html.checks import merge_report

        names = [json_name(path) for path in (args.base, args.ours, args.theirs)]
        output(args, merge_report(merged, labels=names).encode(),
               {args.record: dumps_records([merged.record])} if args.record else None)
        _settled(args, chosen)
        return 1 if merged.conflicts else 0
    if merged.conflicts:
        print_conflicts(args, merged.conflicts, (args.base, args.ours, args.theirs),
                        "nothing written (--ours or --theirs settles them)",
                        style=text_style(args, base, ours, theirs))
        return 1
    output(args, dumps(merged.plan),
           {args.record: dumps_records([merged.record])} if args.record else None)
    _settled(args, chosen)
    return 0


def git_merge(args: argparse.Namespace) -> int:
    """git's merge driver ``%O %A %B [%P]``: the merge is written to ``%A``: exit 0 when
    clean; on conflicts every clean change of both sides with ours at each conflict, each
    conflict printed, exit 1 (git marks the file unmerged).

    Both sides added the file (git gives an empty ``%O``): the base is a plan
    with no modules, so what the two added alike merges.
    """
    name = json_name(args.pathname or args.current)
    base, ours, theirs = (load_side(path, side_name(name, side), empty_is_plan=side == "base")
                          for path, side in ((args.ancestor, "base"), (args.current, "ours"),
                                             (args.other, "theirs")))
    merged = merge_plans(base, ours, theirs)
    write_many_atomic({args.current: dumps(merged.plan)})
    if merged.conflicts:
        style = text_style(args, base, ours, theirs)
        first, _, rest = format_conflicts(merged.conflicts, style=style).partition("\n")
        taken = plural(len(merged.record), "change")
        sys.stderr.write(f"metaplan git-merge: {name}: {first}; wrote every clean change of "
                         f"both sides, ours at each conflict ({taken} from theirs); settle "
                         f"them with git mergetool --tool=metaplan\n{rest}")
        return 1
    print(f"metaplan git-merge: {name}: merged ({plural(len(merged.record), 'change')} from "
          "theirs)",
          file=sys.stderr)
    return 0


_CHOICES: dict[str, Side | None] = {"o": "ours", "t": "theirs", "b": "base", "l": None}


def _ask(stream: TextIO, total: int, style: TextStyle = PLAIN) -> Resolve:
    """A resolver that asks on stderr and reads each answer from ``stream``."""
    asked = 0

    def pick(conflict: Conflict) -> Side | None:
        nonlocal asked
        asked += 1
        text = format_conflicts([conflict], style=style).partition("\n")[2].strip()
        sys.stderr.write(f"conflict {asked} of {total}: {text}\n")
        for _ in range(3):
            sys.stderr.write("keep [o]urs, [t]heirs, [b]ase, or [l]eave it? ")
            sys.stderr.flush()
            answer = stream.readline()
            if not answer:  # end of input: leave this and every later one
                sys.stderr.write("\n")
                return None
            choice = answer.strip().lower()[:1]
            if choice in _CHOICES:
                return _CHOICES[choice]
        return None

    return pick


def _hand_edited(path: str, partial: Plan) -> Plan | None:
    """What ``MERGED`` holds when it is a plan that differs from what the merge driver wrote
    (edits made by hand while the conflict was open), else None."""
    try:
        if os.path.getsize(path) == 0:
            return None
        found = load(path)
    except FileNotFoundError:
        return None
    except InputError:  # not a plan (git's own text merge, with markers): nothing to keep
        return None
    return None if found == partial else found


def mergetool(args: argparse.Namespace) -> int:
    """git's mergetool ``BASE LOCAL REMOTE MERGED``: merge again, settle the conflicts (to a
    side, or as answered on a terminal), write ``MERGED``; exit 0 when none is left.

    Edits made by hand to ``MERGED`` since the merge driver wrote it are kept:
    the settled merge is merged with them (refused, nothing written, where the
    two change one place differently).
    """
    name = json_name(args.merged)  # git's copies of the sides are named for it, in its folder
    base, ours, theirs = (load_side(path, side_name(name, f"{side}, {json_name(path)}"),
                                    empty_is_plan=side == "base")
                          for path, side in ((args.base, "base"), (args.local, "ours"),
                                             (args.remote, "theirs")))
    partial = merge_plans(base, ours, theirs)
    chosen = _side(args)
    resolve: Resolve = chosen
    if chosen is None and partial.conflicts and (args.ask or sys.stdin.isatty()):
        resolve = _ask(sys.stdin, len(partial.conflicts), text_style(args, base, ours, theirs))
    settled = (merge_plans(base, ours, theirs, resolve=resolve)
               if resolve is not None and partial.conflicts else partial)
    result = _keep_hand_edits(args, partial.plan, settled)
    if result is None:
        return 1
    write_many_atomic({args.merged: dumps(result)})
    _settled(args, chosen)
    if settled.conflicts:
        print_conflicts(args, settled.conflicts, (args.base, args.local, args.remote),
                        f"wrote {name} with ours at each (still unmerged)",
                        style=text_style(args, base, ours, theirs))
        return 1
    note(args, f"{name}: merged, every conflict settled")
    return 0


def _keep_hand_edits(args: argparse.Namespace, partial: Plan, settled: MergeResult
                     ) -> Plan | None:
    """The settled plan, with the hand edits made to ``MERGED`` (None: they clash)."""
    edited = _hand_edited(args.merged, partial)
    if edited is None:
        return settled.plan
    kept = merge_plans(partial, edited, settled.plan)
    if kept.conflicts:
        print_conflicts(args, kept.conflicts, (args.merged, args.merged, args.merged),
                        f"{json_name(args.merged)} was edited by hand where the settled "
                        "merge changes it; nothing written (edit it, or run git checkout "
                        "--merge on it first)")
        return None
    note(args, f"{json_name(args.merged)}: kept the edits made to it by hand")
    return kept.plan
