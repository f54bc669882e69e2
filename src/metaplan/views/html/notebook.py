"""Notebook views: ``text/plain`` (the folded text), ``text/html`` (the reports' renderer in
its collapsed summary mode: no script, no data, no member lists) and ``application/json``.

The HTML reads in an untrusted notebook and on a renderer that strips
scripts and styles: each group is a ``<details>`` whose ``<summary>`` is its
pattern, count and change. A 15k-module plan's view is a few kilobytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from metaplan.core.invariants import Verification
from metaplan.core.plan import Plan
from metaplan.passes.trace import Trace
from metaplan.records.change import ChangeRecord
from metaplan.versions.folding import Group, fold_changes, fold_findings, group_to_json
from metaplan.versions.merging import MergeResult
from metaplan.views.html.checks import fold_conflicts
from metaplan.views.html.groups import summary_html
from metaplan.views.html.layout import html_fragment
from metaplan.views.html.markup import name_text, pattern_text, text
from metaplan.views.html.runs import verify_status
from metaplan.views.html.unchanged import Alike, alike_modules, planned_as
from metaplan.views.text import (
    finding_line,
    format_conflicts,
    format_folded,
    format_stats,
    plural,
    printable,
)

__all__ = ["PlanGroup", "mimebundle", "plan_groups"]

PlanGroup = tuple[str, str, int, str, bool | None]
"""``(pattern, class, count, first name, is_boundary)`` of modules planned alike."""

_GROUPS_SHOWN = 50


def plan_groups(plan: Plan) -> list[PlanGroup]:
    """The plan's modules folded by class and ``is_boundary``, in natural order."""
    return [(g.pattern, g.cls, len(g.names), g.names[0], g.is_boundary)
            for g in alike_modules(plan)]


def _plan(plan: Plan) -> tuple[str, str, Any]:
    groups = plan_groups(plan)
    head = (f"{plan!r}: {plural(sum(g[2] for g in groups), 'module')} in "
            f"{plural(len(groups), 'group')}")

    def said(group: PlanGroup) -> str:
        return planned_as(Alike(group[0], (), group[1], group[4]))
    lines = [head] + [f"  {printable(g[0])}  ({plural(g[2], 'module')})  {said(g)}"
                      for g in groups]
    rows = "".join(f"<tr><td><code>{pattern_text(g[0])}</code></td><td>{g[2]:,}</td>"
                   f"<td>{text(said(g))}</td></tr>" for g in groups[:_GROUPS_SHOWN])
    more = (f"<p>and {plural(len(groups) - _GROUPS_SHOWN, 'more group')}</p>"
            if len(groups) > _GROUPS_SHOWN else "")
    html = html_fragment(head, "<table><tr><th>modules</th><th>count</th><th>planned as</th>"
                               f"</tr>{rows}</table>{more}")
    data = {"model_type": plan.get("model_type"), "hash": plan.content_hash,
            "groups": [{"modules": g[0], "count": g[2], "class": g[1] or None,
                        "is_boundary": g[4]} for g in groups]}
    return "\n".join(lines), html, data


def _groups_html(groups: list[Group]) -> str:
    shown = "".join(f"<details><summary>{summary_html(g)}</summary></details>"
                    for g in groups[:_GROUPS_SHOWN])
    if len(groups) > _GROUPS_SHOWN:
        shown += f"<p>and {plural(len(groups) - _GROUPS_SHOWN, 'more group')}</p>"
    return shown


def _record(record: ChangeRecord) -> tuple[str, str, Any]:
    groups = fold_changes(record)
    folded = format_folded(record, groups)
    html = html_fragment(f"{record.pass_name}: {folded.partition(chr(10))[0]}",
                         _groups_html(groups))
    return folded.rstrip("\n"), html, {"pass": record.pass_name, "changes": len(record),
                                       "groups": [group_to_json(g) for g in groups]}


def _trace(trace: Trace) -> tuple[str, str, Any]:
    parts = []
    for number, record in enumerate(trace.records, 1):
        title = f"{number}. {record.pass_name}: {plural(len(record), 'change')}"
        parts.append(f"<details><summary>{text(title)}</summary>"
                     f"{_groups_html(fold_changes(record))}</details>" if len(record)
                     else f"<div>{text(title)}</div>")
    total = sum(map(len, trace.records))
    html = html_fragment(f"Trace: {len(trace.passes)} passes, {plural(total, 'change')}",
                         "".join(parts))
    data = {"passes": [{"pass": r.pass_name, "changes": len(r),
                        "groups": [group_to_json(g) for g in fold_changes(r)]}
                       for r in trace.records]}
    plain = format_stats(trace) + "".join(
        f"{number}. {record.pass_name}: {format_folded(record)}"
        for number, record in enumerate(trace.records, 1) if len(record))
    return plain.rstrip("\n"), html, data


def _merge(merged: MergeResult) -> tuple[str, str, Any]:
    conflicts = fold_conflicts(merged.conflicts)
    rows = "".join(f"<details><summary><code>{name_text(place)}</code> "
                   f"({plural(max(1, len(names)), 'module')})</summary>"
                   f"<div>{text(str(sample).partition(': ')[2])}</div></details>"
                   for place, sample, names in conflicts[:_GROUPS_SHOWN])
    head = (f"Merge: {plural(len(merged.conflicts), 'conflict')}, "
            f"{plural(len(merged.record), 'clean change')} from theirs")
    record = _record(merged.record)
    plain = head + ("\n" + format_conflicts(merged.conflicts).rstrip("\n")
                    if merged.conflicts else "") + "\n" + record[0]
    return plain, html_fragment(head, rows + record[1]), {
        "conflicts": [c.to_json() for c in merged.conflicts], "clean": record[2]}


def _verification(found: Verification) -> tuple[str, str, Any]:
    head = f"Verification: {verify_status(found)}; {plural(len(found.notes), 'note')}"
    folded = fold_findings([*found.violations, *found.notes])
    lines = [head] + [f"  {finding_line(f)}" for f in folded]
    rows = "".join(f"<details><summary><code>{name_text(f.place)}</code> {text(f.check)}"
                   f"</summary><div>{text(f.message)}</div></details>"
                   for f in folded[:_GROUPS_SHOWN])
    data = {"checks": list(found.checks),
            "violations": [{"check": v.check, "path": list(v.path), "message": v.message}
                           for v in found.violations],
            "notes": [{"check": n.check, "path": list(n.path), "message": n.message}
                      for n in found.notes]}
    return "\n".join(lines), html_fragment(head, rows), data


def mimebundle(value: object, include: Iterable[str] | None = None,
               exclude: Iterable[str] | None = None) -> dict[str, Any]:
    """The three views of a ``Plan``, ``ChangeRecord``, ``Trace``, ``MergeResult`` or
    ``Verification``, limited to ``include`` and without ``exclude`` (IPython's)."""
    if isinstance(value, Plan):
        plain, html, data = _plan(value)
    elif isinstance(value, ChangeRecord):
        plain, html, data = _record(value)
    elif isinstance(value, Trace):
        plain, html, data = _trace(value)
    elif isinstance(value, MergeResult):
        plain, html, data = _merge(value)
    elif isinstance(value, Verification):
        plain, html, data = _verification(value)
    else:
        raise TypeError(f"no notebook view of {type(value).__name__}: expected a Plan, "
                        "ChangeRecord, Trace, MergeResult or Verification")
    bundle = {"text/plain": plain, "text/html": html, "application/json": data}
    wanted = set(include) if include is not None else set(bundle)
    dropped = set(exclude) if exclude is not None else set()
    return {kind: view for kind, view in bundle.items() if kind in wanted - dropped}
