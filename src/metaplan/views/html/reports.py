"""The diff, verify and merge reports: whole HTML pages, one renderer behind them all.

Each is a function of its result (a record, a verification, a merge), so
the same input gives the same bytes. The run report is in
:mod:`metaplan.views.html.runs`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from metaplan.core.plan import Plan
from metaplan.paths import key_path
from metaplan.records.change import Change, ChangeRecord
from metaplan.records.codec import dumps_records
from metaplan.versions.folding import Group, fold_changes
from metaplan.views.html.data import DATA_FORMAT
from metaplan.views.html.groups import Budget, render_groups
from metaplan.views.html.layout import html_page
from metaplan.views.html.markup import IdMaker, element, name_text, text
from metaplan.views.html.svg import module_states, picture_html
from metaplan.views.html.unchanged import unchanged_html
from metaplan.views.text import change_line, format_folded, plural

__all__ = ["MEMBER_BUDGET", "RECORD_LIMIT", "diff_report", "records_data", "section_html",
           "sections_html"]

MEMBER_BUDGET = 3_000_000
"""Characters of member names a page embeds in its data; past it a group says how many."""

RECORD_LIMIT = 5_000
"""The most changes a report embeds as records (past it: ``records_omitted``)."""


def records_data(records: Sequence[ChangeRecord]) -> dict[str, Any]:
    """``{"records": ...}`` as ``--format json`` writes them, or ``null`` and why not."""
    total = sum(map(len, records))
    if total > RECORD_LIMIT:
        return {"records": None,
                "records_omitted": f"{total:,} changes, past the {RECORD_LIMIT:,} a report "
                                   "embeds: metaplan diff --format json writes them all"}
    return {"records": json.loads(dumps_records(list(records)))}


def section_html(sid: str, title: str, body: str, *, groups: int = 0) -> str:
    """A ``<section>`` with a heading; ``groups`` marks one the search filters."""
    marker = ' data-groups=""' if groups else ""
    return f'<section id="{text(sid)}"{marker}>{element("h2", title)}{body}</section>\n'


def sections_html(groups: Sequence[Group], ids: IdMaker, budget: Budget,
                  record: ChangeRecord | None, *, prefix: str = "",
                  pass_name: str | None = None) -> tuple[str, list[dict[str, Any]],
                                                         dict[str, Any]]:
    """The top-level and module sections of a folded record: HTML, the sections' data, the
    groups' data."""
    top = [g for g in groups if g.kind != "modules"]
    modules = [g for g in groups if g.kind == "modules"]
    html_parts, sections, data = [], [], {}
    for name, title, chosen in (("top", "Top-level fields", top), ("modules", "Modules", modules)):
        if not chosen:
            continue
        body, found = render_groups(chosen, ids, budget, record=record, pass_name=pass_name)
        sid = f"{prefix}{name}"
        heading = f"{title} ({len(chosen)} group{'s' if len(chosen) != 1 else ''})"
        html_parts.append(section_html(sid, heading, body, groups=len(chosen)))
        sections.append({"id": sid, "title": heading, "groups": list(found)})
        data.update(found)
    return "".join(html_parts), sections, data


def diff_report(record: ChangeRecord, *, labels: Sequence[str] = ("A", "B"),
                hashes: Sequence[str] | None = None, before: Plan | None = None,
                after: Plan | None = None, note: str = "", why: bool = False,
                provenance: Sequence[Change] = ()) -> str:
    """``metaplan diff --format html``: the record folded as the text diff folds it, the changes
    to the plans' provenance (left out of the record) in its header. With ``before`` and
    ``after``: the modules no change touches (folded, behind "show unchanged") and a picture
    of the plan."""
    groups = fold_changes(record)
    summary = format_folded(record, groups).partition("\n")[0]
    if provenance:
        summary += f"; provenance: {plural(len(provenance), 'change')}"
    summary += f"; {note}" if note else ""
    ids, budget = IdMaker(), Budget(MEMBER_BUDGET)
    base, result = hashes if hashes is not None else ("", "")
    head = (f'<p class="sub">from <code>{name_text(labels[0])}</code> {text(base)}<br>'
            f'to <code>{name_text(labels[1])}</code> {text(result)}</p>'
            f'<p class="summary">{text(summary)}</p>')
    if provenance:
        head += ('<p class="sub">provenance: ' + "<br>".join(
            f"<code>{text(change_line(c, key_path(c.path)))}</code>" for c in provenance)
            + "</p>")
    body, sections, data = sections_html(groups, ids, budget, record if why else None)
    if not groups:
        body = "<p>No change: the plans are the same.</p>"
    picture, unchanged = "", ""
    same: dict[str, Any] = {}
    if before is not None and after is not None:
        picture = picture_html(before, after, record.changes)
        states = module_states(before, after, record.changes)
        unchanged, same = unchanged_html(
            after, {name for name, state in states.items() if state == "untouched"}, ids, budget)
    page_data: dict[str, Any] = {
        "format": DATA_FORMAT, "report": "diff", "title": f"{labels[0]} -> {labels[1]}",
        "summary": summary, "a": labels[0], "b": labels[1], "sections": sections,
        "groups": data, "provenance": [change.to_json() for change in provenance],
        **records_data([record])}
    if same:
        page_data["unchanged"] = same
    if picture:
        picture = section_html("picture", "Picture of the plan", picture)
    return html_page(f"metaplan diff: {labels[0]} -> {labels[1]}",
                     head + body + unchanged + picture, page_data, show_unchanged=bool(same))

