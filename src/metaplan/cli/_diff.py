"""``metaplan diff``, ``show`` and ``git-diff``: what changed between two versions of a plan."""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Sequence

from metaplan.cli._io import colour, json_name, one_line, output, paint, quote_name, to_stdout
from metaplan.cli._sides import plan_of, read_side, side_name
from metaplan.cli._style import text_style
from metaplan.core.plan import Plan, load_all, plan_from_file_data
from metaplan.errors import InputError
from metaplan.files.inputs import read_bytes, source_name
from metaplan.files.jsonio import dumps_pretty, parse_json
from metaplan.paths import key_path
from metaplan.records.change import Change, ChangeRecord
from metaplan.records.codec import dumps_records, records_from_json
from metaplan.records.patch import to_json_patch
from metaplan.settings import VOLATILE
from metaplan.versions.diffing import diff as diff_plans
from metaplan.versions.folding import fold_changes, group_to_json
from metaplan.versions.ignoring import (
    Ignore,
    ignored,
    parse_ignores,
    split_ignored,
    split_provenance,
)
from metaplan.views.labels import PLAIN, TextStyle
from metaplan.views.text import change_line, format_diff, format_flat, format_folded, plural

__all__ = ["diff", "git_diff", "line_diff", "record_text", "show"]


def record_text(record: ChangeRecord, style: str, labels: Sequence[str], *,
                hashes: Sequence[str] | None = None, expand: bool = False, note: str = "",
                painted: bool = False, shown: TextStyle = PLAIN,
                provenance: Sequence[Change] = ()) -> bytes:
    """A record as ``diff`` writes it in ``style``: text (folded, or every module with
    ``expand``), ``groups`` (the folded form as JSON), ``json`` (records) or ``jsonpatch``;
    JSON ends in a newline, as text does. ``provenance`` (changes left out of the record, see
    :func:`~metaplan.versions.ignoring.split_provenance`) is shown in the header of text, and
    as its own list in ``groups``."""
    if style == "json":
        return dumps_records([record]) + b"\n"
    if style in ("jsonpatch", "patch"):
        return dumps_pretty(to_json_patch(record)) + b"\n"
    if style == "groups":
        return dumps_pretty({"a": labels[0], "b": labels[1], "changes": len(record),
                             "ignored": note or None,
                             "provenance": [change.to_json() for change in provenance],
                             "groups": [group_to_json(g) for g in fold_changes(record)]}) + b"\n"
    base, result = hashes if hashes is not None else (record.base, record.result)
    body = format_diff(record, style=shown) if expand else format_folded(record, style=shown)
    first, _, rest = body.partition("\n")
    if provenance:
        first += f"; provenance: {plural(len(provenance), 'change')}"
        rest = "".join(f"  {change_line(c, key_path(c.path), style=shown)}\n"
                       for c in provenance).join(("(provenance)\n", rest))
    if note:
        first += f"; {one_line(note)}"
    body = f"{first}\n{rest}"
    old, new = (quote_name(label) for label in labels)  # no name can start a line
    text = f"--- {old}  {base}\n+++ {new}  {result}\n{body}"
    return paint(text, painted).encode("utf-8", "surrogateescape")


def _ignores(args: argparse.Namespace) -> tuple[list[str], str]:
    """The ``--ignore`` patterns (and the volatile fields), and how the summary names them."""
    patterns = list(args.ignore or ())
    said = [f"--ignore {pattern}" for pattern in patterns]
    if args.ignore_volatile:
        patterns += VOLATILE
        said.append("--ignore-volatile")
    return patterns, ", ".join(said)


def _shown_changes(a: Plan, b: Plan, rules: Sequence[Ignore], header: bool
                   ) -> tuple[ChangeRecord, tuple[Change, ...], tuple[Change, ...]]:
    """The record of A -> B a diff shows, the provenance changes for its header (none unless
    ``header``), and the changes ``rules`` ignore (an ignored provenance field among them)."""
    record = diff_plans(a, b)
    provenance: tuple[Change, ...] = ()
    if header:
        record, provenance = split_provenance(a, b, record)
    record, dropped = split_ignored(a, record, rules)
    unseen = tuple(change for change in provenance if ignored(change.path, rules))
    if unseen:
        provenance = tuple(change for change in provenance if change not in unseen)
    return record, provenance, dropped + unseen


def diff(args: argparse.Namespace) -> int:
    """``metaplan diff A B``: exit 0 when they are the same, 1 when they differ."""
    labels = list(args.label or ())
    if len(labels) > 2:
        raise InputError("--label: give it once for A and once for B, not "
                         f"{len(labels)} times", source="--label")
    a, b = load_all([args.a, args.b])
    labels += [json_name(args.a), json_name(args.b)][len(labels):]
    if args.passes is not None:
        from metaplan.passes.registry import build_pipeline, format_passes, parse_passes

        names = parse_passes(args.passes)
        line = build_pipeline(names)  # holds no plan: each side runs it on its own input
        a, b = line.run(a).final, line.run(b).final
        labels = [f"{label} after {format_passes(names)}" for label in labels]
    patterns, said = _ignores(args)
    header = args.format in ("text", "groups", "html") and not args.show_provenance
    record, provenance, dropped = _shown_changes(a, b, parse_ignores(patterns), header)
    note = f"ignored {plural(len(dropped), 'change')} ({said})" if said else ""
    exit_code = 0 if record.is_noop and not provenance else 1
    hashes = (a.content_hash, b.content_hash) if args.format in ("text", "html") else None
    if args.format == "html":
        from metaplan.views.html.reports import diff_report

        page = diff_report(record, labels=labels, hashes=hashes, before=a, after=b, note=note,
                           provenance=provenance)
        output(args, page.encode("utf-8"))
        return exit_code
    output(args, record_text(record, args.format, labels, hashes=hashes, expand=args.expand,
                             note=note, painted=colour(args), shown=text_style(args, a, b),
                             provenance=provenance))
    return exit_code


def show(args: argparse.Namespace) -> int:
    """``metaplan show FILE``: a plan as one line per value (a textconv for git), or a
    records file as folded text. With ``--textconv``, a file that is neither is shown as it
    is (git then diffs its lines) instead of refused."""
    source = source_name(args.file)
    data = read_bytes(args.file)
    try:
        return _show(args, data, source)
    except InputError:
        if not args.textconv:
            raise
        output(args, data)
        return 0


def _show(args: argparse.Namespace, data: bytes, source: str) -> int:
    raw = parse_json(data, source=source)
    if isinstance(raw, dict) and str(raw.get("format", "")).startswith("metaplan.record"):
        records = records_from_json(raw, source=source)
        parts = [record_text(r, "text", (f"{r.pass_name}: before", f"{r.pass_name}: after"),
                             expand=args.expand, painted=colour(args),
                             shown=text_style(args)) for r in records]
        output(args, b"".join(parts))
        return 0
    output(args, format_flat(plan_from_file_data(raw, source=source)).encode(
        "utf-8", "surrogateescape"))
    return 0


def line_diff(old: bytes, new: bytes, labels: Sequence[str]) -> str:
    """A unified line diff, marking a last line without a newline as diff(1) does.

    >>> print(line_diff(b'{"a": 1}', b'{"a": 2}', ("a/x", "b/x")), end="")
    --- a/x
    +++ b/x
    @@ -1 +1 @@
    -{"a": 1}
    \\ No newline at end of file
    +{"a": 2}
    \\ No newline at end of file
    """
    out = []
    for line in difflib.unified_diff(old.decode("utf-8", "replace").splitlines(True),
                                     new.decode("utf-8", "replace").splitlines(True),
                                     quote_name(labels[0]), quote_name(labels[1])):
        out.append(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n")
    return "".join(out)


_GIT_HEADER = ("similarity index ", "dissimilarity index ", "rename from ", "rename to ",
               "copy from ", "copy to ", "index ", "old mode ", "new mode ")
"""The lines git's header for a rename or copy holds (git quotes the paths in them)."""


def _git_header(header: str | None) -> str:
    """git's header lines for a rename or copy, as git prints them (any other line, and any
    control character in one, is dropped or escaped: nothing in it can forge a line)."""
    lines = [one_line(line) for line in (header or "").splitlines()]
    return "".join(f"{line}\n" for line in lines if line.startswith(_GIT_HEADER))


def git_diff(args: argparse.Namespace) -> int:
    """git's external diff: ``PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE``, and
    for a rename or copy ``NEW-PATH HEADER`` after them (1 argument: an unmerged path).

    Prints the folded diff under the path's name (a rename's header as git
    prints it) and exits 0: git takes any other status for a crash and stops
    the whole diff. A side that is no plan is shown as a line diff.
    """
    given = [args.old_file, args.old_hex, args.old_mode, args.new_file, args.new_hex,
             args.new_mode, args.new_path]
    if args.old_file is None:
        to_stdout(f"* Unmerged path {json_name(args.path)}\n")
        return 0
    if None in given[:6]:
        raise InputError(f"git-diff: expected git's 7 arguments (9 for a rename), found "
                         f"{1 + given.index(None)}: configure it as diff.metaplan.command "
                         "'metaplan git-diff' (git adds the arguments)", source="git-diff")
    old_name = json_name(args.path)
    new_name = old_name if args.new_path is None else json_name(args.new_path)
    labels = (f"a/{old_name}", f"b/{new_name}")
    head = f"metaplan diff {quote_name(labels[0])} {quote_name(labels[1])}\n"
    if args.new_path is not None:
        head += _git_header(args.header)
    sides = ((args.old_file, side_name(old_name, "old")),
             (args.new_file, side_name(new_name, "new")))
    try:
        old, new = (read_side(path, name) for path, name in sides)
    except InputError as exc:  # past the size limit, unreadable: say so, and let git go on
        to_stdout(f"{head}metaplan git-diff: no diff shown: {one_line(str(exc))}\n")
        return 0
    try:
        a, b = (plan_of(data, name, empty_is_plan=path == os.devnull)
                for data, (path, name) in zip((old, new), sides, strict=True))
    except InputError as exc:
        to_stdout(f"{head}metaplan git-diff: not a plan, shown line by line: "
                  f"{one_line(str(exc))}\n" + line_diff(old, new, labels))
        return 0
    record, provenance = split_provenance(a, b, diff_plans(a, b))
    to_stdout(head.encode("utf-8", "surrogateescape")
              + record_text(record, "text", labels, hashes=(a.content_hash, b.content_hash),
                            painted=colour(args), shown=text_style(args, a, b),
                            provenance=provenance))
    return 0
