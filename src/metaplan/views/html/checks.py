"""The verify and merge reports: violations and conflicts folded, modules alike as one
brace pattern (each a ``<details>``, as the diff's groups are; the findings folded by
:func:`metaplan.versions.folding.fold_findings`)."""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from metaplan.algorithms.braces import fold, natural_key
from metaplan.core.invariants import Verification
from metaplan.frozen import MISSING, shorten, thaw
from metaplan.paths import FQN_MAPS, format_path, key_path
from metaplan.versions.folding import Finding, fold_changes, fold_findings, value_key
from metaplan.versions.merging import Conflict, MergeResult
from metaplan.views.html.data import DATA_FORMAT
from metaplan.views.html.groups import Budget
from metaplan.views.html.layout import html_page
from metaplan.views.html.markup import IdMaker, name_text, text
from metaplan.views.html.reports import MEMBER_BUDGET, records_data, section_html, sections_html
from metaplan.views.text import plural

__all__ = ["fold_conflicts", "merge_report", "verify_report"]


def _details(ids: IdMaker, budget: Budget, pattern: str, count: str, change: str, body: str,
             names: Sequence[str], attrs: dict[str, str], item: dict[str, Any]
             ) -> tuple[str, str, dict[str, Any]]:
    gid = ids("g", pattern, change)
    if names:
        if budget.take(names):
            item["members"] = list(names)
        else:
            item["members_omitted"] = len(names)
    marks = " ".join(f'data-{key}="{text(json.dumps([value]))}"' for key, value in attrs.items())
    return gid, (
        f'<details class="grp" id="{text(gid)}" data-gid="{text(gid)}" {marks}><summary>'
        f'<code class="pattern">{text(pattern)}</code><span class="count">{text(count)}'
        f'</span><span class="change">{text(change)}</span></summary><div class="body">{body}'
        f'<p class="sub"><a href="#{text(gid)}">link to this group</a></p></div></details>\n'
    ), item


def _findings_html(kind: str, found: Sequence[Finding], ids: IdMaker, budget: Budget
                   ) -> tuple[str, dict[str, Any]]:
    parts, data = [], {}
    for finding in found:
        count = plural(len(finding.names), "module") if finding.names else "1 place"
        body = f"<p><strong>{text(finding.check)}</strong>: {text(finding.message)}</p>"
        gid, html, item = _details(
            ids, budget, finding.place, count, f"{finding.check}: {finding.message}", body,
            finding.names, {"check": finding.check},
            {kind: finding.place, "check": finding.check, "message": finding.message,
             "count": max(1, len(finding.names))})
        parts.append(html)
        data[gid] = item
    return "".join(parts), data


def verify_report(found: Verification, *, source: str = "PLAN") -> str:
    """``metaplan verify --format html``: the violations and notes, folded."""
    ids, budget = IdMaker(), Budget(MEMBER_BUDGET)
    violations, notes = fold_findings(found.violations), fold_findings(found.notes)
    status = (f"{plural(len(found.violations), 'violation')} in "
              f"{plural(len(violations), 'group')}" if found.violations else "ok")
    summary = f"{source}: {status}; {plural(len(found.notes), 'note')}"
    body = [f'<p class="summary {"bad" if found.violations else "ok"}">{text(summary)}</p>',
            f'<p class="sub">checks: {text(", ".join(found.checks))}</p>']
    sections, groups = [], {}
    for sid, title, chosen in (("violations", "Violations", violations),
                               ("notes", "Notes (they break nothing)", notes)):
        html, data = _findings_html("violation" if sid == "violations" else "note", chosen,
                                    ids, budget)
        heading = f"{title} ({plural(len(chosen), 'group')})"
        body.append(section_html(sid, heading, html or "<p>None.</p>", groups=len(chosen)))
        sections.append({"id": sid, "title": heading, "groups": list(data)})
        groups.update(data)
    page = {"format": DATA_FORMAT, "report": "verify", "title": f"verify {source}",
            "summary": summary, "checks": list(found.checks), "sections": sections,
            "groups": groups,
            "violations": [{"check": v.check, "path": list(v.path), "message": v.message}
                           for v in found.violations],
            "notes": [{"check": n.check, "path": list(n.path), "message": n.message}
                      for n in found.notes]}
    return html_page(f"metaplan verify: {source}", "".join(body), page, filters=("check",))


def _side(value: Any) -> str:
    return "(absent)" if value is MISSING else shorten(value, 120)


def fold_conflicts(conflicts: Iterable[Conflict]) -> list[tuple[str, Conflict, tuple[str, ...]]]:
    """``(place, a sample, modules)``: conflicts alike (the same place in each module, the
    same three values) as one brace pattern, as the text report folds them."""
    alike: dict[tuple[Hashable, ...], tuple[Conflict, list[str]]] = {}
    for conflict in conflicts:
        path = conflict.path
        values = tuple(value_key(v) if v is not MISSING else MISSING
                       for v in (conflict.base, conflict.ours, conflict.theirs))
        if len(path) >= 2 and path[0] in FQN_MAPS:
            alike.setdefault((path[0], path[2:], values), (conflict, []))[1].append(str(path[1]))
        else:
            alike[(path, values)] = (conflict, [])
    out = []
    for sample, names in alike.values():
        ordered = tuple(sorted(names, key=natural_key))
        place = (key_path((sample.path[0], fold(ordered), *sample.path[2:]), quoted=(1,))
                 if ordered else format_path(sample.path))
        out.append((place, sample, ordered))
    return out


def merge_report(merged: MergeResult, *, labels: Sequence[str] = ("BASE", "OURS", "THEIRS")
                 ) -> str:
    """``metaplan merge --format html``: the conflicts with base, ours and theirs side by
    side, and the clean changes (theirs, onto ours) folded as a diff."""
    ids, budget = IdMaker(), Budget(MEMBER_BUDGET)
    folded = fold_conflicts(merged.conflicts)
    summary = (f"{plural(len(merged.conflicts), 'conflict')} in {plural(len(folded), 'group')}"
               f"; {plural(len(merged.record), 'clean change')} from theirs onto ours")
    body = [f'<p class="sub">base <code>{name_text(labels[0])}</code>, ours <code>'
            f'{name_text(labels[1])}</code>, theirs <code>{name_text(labels[2])}</code></p>',
            f'<p class="summary {"bad" if merged.conflicts else "ok"}">{text(summary)}</p>']
    parts, groups = [], {}
    for place, sample, names in folded:
        row = "".join(f"<td><code>{text(_side(getattr(sample, side)))}</code></td>"
                      for side in ("base", "ours", "theirs"))
        table = ('<table class="conflict"><tr><th>base</th><th>ours</th><th>theirs</th></tr>'
                 f"<tr>{row}</tr></table>")
        count = plural(len(names), "module") if names else "1 place"
        change = (f"base {_side(sample.base)[:40]}, ours {_side(sample.ours)[:40]}, theirs "
                  f"{_side(sample.theirs)[:40]}")
        gid, html, item = _details(
            ids, budget, place, count, change, table, names, {"op": "conflict"},
            {"conflict": place, "count": max(1, len(names)),
             **{side: thaw(getattr(sample, side)) for side in ("base", "ours", "theirs")
                if getattr(sample, side) is not MISSING}})
        parts.append(html)
        groups[gid] = item
    sections = [{"id": "conflicts", "title": "Conflicts", "groups": list(groups)}]
    body.append(section_html("conflicts", f"Conflicts ({plural(len(folded), 'group')})",
                             "".join(parts) or "<p>None: the sides merged cleanly.</p>",
                             groups=len(folded)))
    html, found_sections, found = sections_html(fold_changes(merged.record), ids, budget, None,
                                                prefix="clean-")
    body.append(f'<section id="clean">{"<h2>Clean changes (theirs, onto ours)</h2>"}'
                f"{html.replace('<h2>', '<h3>').replace('</h2>', '</h3>') or '<p>None.</p>'}"
                "</section>\n")
    groups.update(found)
    page = {"format": DATA_FORMAT, "report": "merge", "title": "merge", "summary": summary,
            "inputs": list(labels), "sections": sections + found_sections, "groups": groups,
            "conflicts": [c.to_json() for c in merged.conflicts],
            **records_data([merged.record])}
    return html_page(f"metaplan merge: {labels[1]} + {labels[2]}", "".join(body), page)
