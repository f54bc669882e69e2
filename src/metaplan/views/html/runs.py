"""The run report (``metaplan normalize --report``): every pass with its change count, time
and verify status; each pass's folded changes with their why and a picture of what it
did; every module's history; a picture of the whole run.

Passes that changed nothing are collapsed into one line. Two runs give the
same bytes: the times, the one part that would differ, are left out unless
asked for (``seconds=True``, ``metaplan normalize --report-times``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from metaplan.core.invariants import Verification, verification
from metaplan.core.plan import Plan
from metaplan.passes.trace import Trace
from metaplan.paths import FQN_MAPS
from metaplan.records.change import Change
from metaplan.versions.folding import fold_changes
from metaplan.views.html.data import DATA_FORMAT
from metaplan.views.html.groups import Budget
from metaplan.views.html.history import History, history_groups
from metaplan.views.html.layout import html_page
from metaplan.views.html.markup import IdMaker, element, name_text, pattern_text, text
from metaplan.views.html.reports import MEMBER_BUDGET, records_data, section_html, sections_html
from metaplan.views.html.svg import NO_PICTURE, picture_html
from metaplan.views.text import plural

__all__ = ["history_html", "run_report", "verify_status"]

Checker = Callable[[Plan], Verification]


def verify_status(found: Verification) -> str:
    """``ok``, or ``N violations (check: n, ...)``."""
    if not found.violations:
        return "ok"
    counts: dict[str, int] = {}
    for violation in found.violations:
        counts[violation.check] = counts.get(violation.check, 0) + 1
    return (f"{plural(len(found.violations), 'violation')} ("
            + ", ".join(f"{name}: {n}" for name, n in counts.items()) + ")")


def _statuses(trace: Trace, check: Checker | None) -> list[str]:
    if check is None:
        return ["" for _ in trace.states]
    known: dict[int, str] = {}  # a pass that changed nothing returns its input: checked once
    out = []
    for state in trace.states:
        if id(state) not in known:
            known[id(state)] = verify_status(check(state))
        out.append(known[id(state)])
    return out


def _passes(count: int) -> str:
    return f"{count:,} pass" + ("" if count == 1 else "es")


def _modules(changes: Sequence[Change]) -> int:
    return len({c.path[1] for c in changes if len(c.path) >= 2 and c.path[0] in FQN_MAPS})


def _passes_table(trace: Trace, statuses: Sequence[str], seconds: bool) -> tuple[str, list[Any]]:
    head = "<tr><th>#</th><th>pass</th><th>changes</th><th>modules</th>" + (
        "<th>ms</th>" if seconds else "") + "<th>verify (its result)</th></tr>"
    rows = ["<tr><td class=\"num\">0</td><td>(input)</td><td></td><td></td>"
            + ("<td></td>" if seconds else "") + _status_cell(statuses[0]) + "</tr>"]
    data = []
    for number, (name, record) in enumerate(zip(trace.passes, trace.records, strict=True), 1):
        took = trace.seconds[number - 1] if len(trace.seconds) >= number else 0.0
        link = f'<a href="#pass-{number}">{text(name)}</a>' if len(record) else text(name)
        rows.append(f'<tr><td class="num">{number}</td><td>{link}</td>'
                    f'<td class="num">{len(record):,}</td>'
                    f'<td class="num">{_modules(record.changes):,}</td>'
                    + (f'<td class="num">{took * 1e3:.1f}</td>' if seconds else "")
                    + _status_cell(statuses[number]) + "</tr>")
        item: dict[str, Any] = {"pass": name, "changes": len(record),
                                "modules": _modules(record.changes),
                                "verify": statuses[number] or None}
        if seconds:
            item["seconds"] = round(took, 6)
        data.append(item)
    return f'<table class="passes">{head}{"".join(rows)}</table>', data


def _status_cell(status: str) -> str:
    if not status:
        return "<td>not checked</td>"
    return f'<td class="{"ok" if status == "ok" else "bad"}">{text(status)}</td>'


def history_html(histories: Sequence[History], ids: IdMaker, budget: Budget
                 ) -> tuple[str, dict[str, Any]]:
    """Each history as a ``<details>``: the modules' pattern, count and passes; the steps."""
    parts, data = [], {}
    for history in histories:
        gid = ids("h", history.pattern)
        passes = list(dict.fromkeys(step.pass_name for step in history.steps))
        said = ", ".join(passes)
        steps = "".join(
            f'<li><span class="pass">{text(step.pass_name)}</span>: <code>{text(step.text)}'
            "</code>" + (f'<br><span class="why">why: {text(step.why)}</span>' if step.why
                         else "") + "</li>" for step in history.steps)
        attrs = f'data-pass="{text(json.dumps(sorted(set(passes))))}"'
        parts.append(
            f'<details class="grp history" id="{text(gid)}" data-gid="{text(gid)}" {attrs}>'
            f'<summary><code class="pattern">{pattern_text(history.pattern)}</code>'
            f'<span class="count">{plural(len(history.names), "module")}</span>'
            f'<span class="change">{text(plural(len(history.steps), "change"))} by '
            f'{text(said)}</span></summary><div class="body"><ol class="steps">{steps}</ol>'
            f'<p class="sub"><a href="#{text(gid)}">link to this history</a></p></div>'
            "</details>\n")
        item: dict[str, Any] = {"history": history.pattern, "count": len(history.names),
                                "steps": [{"pass": s.pass_name, "change": s.text, "why": s.why}
                                          for s in history.steps]}
        if budget.take(history.names):
            item["members"] = list(history.names)
        else:
            item["members_omitted"] = len(history.names)
        data[gid] = item
    return "".join(parts), data


def _pass_picture(trace: Trace, number: int) -> str:
    """Pass ``number``'s picture (the state before it -> the state it made), in an open
    ``<details>``."""
    record = trace.records[number - 1]
    picture = picture_html(trace.states[number - 1], trace.states[number], record.changes)
    said = (f"Picture of what pass {number} ({trace.passes[number - 1]}) did: "
            f"{plural(_modules(record.changes), 'module')} it touched, coloured")
    return (f'<details class="pass-picture" id="pass-{number}-picture" open>'
            f"<summary>{text(said)}</summary>{picture}</details>")


def run_report(trace: Trace, *, source: str = "PLAN", pipeline: str = "",
               check: Checker | None = verification, seconds: bool = False) -> str:
    """The run as one HTML page: passes, their folded changes, module histories, a picture.

    ``check`` verifies each state (default: :func:`metaplan.core.invariants.verification`'s
    default checks; ``None``: no column); ``seconds=True`` adds each pass's time (ms), so
    two runs no longer give the same bytes.
    """
    ids, budget = IdMaker(), Budget(MEMBER_BUDGET)
    statuses = _statuses(trace, check)
    table, passes = _passes_table(trace, statuses, seconds)
    total = sum(map(len, trace.records))
    idle = [name for name, record in zip(trace.passes, trace.records, strict=True)
            if not len(record)]
    summary = (f"{_passes(len(trace.passes))}, {plural(total, 'change')}"
               + (f"; {_passes(len(idle))} changed nothing" if idle else ""))
    body = [f'<p class="sub">input <code>{name_text(source)}</code>'
            + (f"; pipeline <code>{text(pipeline)}</code>" if pipeline else "") + "</p>",
            f'<p class="summary">{text(summary)}</p>', section_html("passes", "Passes", table)]
    if idle:
        body.append(f"<details><summary>{text(_passes(len(idle)))} changed nothing"
                    "</summary><ul>" + "".join(f"<li>{text(name)}</li>" for name in idle)
                    + "</ul></details>")
    changes = [c for record in trace.records for c in record.changes]
    whole = picture_html(trace.input, trace.final, changes)
    sections, groups = [], {}
    for number, (name, record) in enumerate(zip(trace.passes, trace.records, strict=True), 1):
        if not len(record):
            continue
        html, found_sections, found = sections_html(fold_changes(record), ids, budget, record,
                                                    prefix=f"pass-{number}-", pass_name=name)
        heading = f"{number}. {name}: {plural(len(record), 'change')}"
        picture = "" if whole == NO_PICTURE else _pass_picture(trace, number)
        body.append(f'<section id="pass-{number}">{element("h2", heading)}'
                    f"{html.replace('<h2>', '<h3>').replace('</h2>', '</h3>')}{picture}"
                    "</section>\n")
        sections += found_sections
        groups.update(found)
    histories = history_groups(trace)
    html, found = history_html(histories, ids, budget)
    body.append(section_html(
        "history", f"Module histories ({plural(len(histories), 'group')}; search an FQN)",
        "<p class=\"sub\">Every pass that touched a module, old -> new; modules with the same "
        "history folded into one pattern.</p>" + html, groups=len(histories)))
    sections.append({"id": "history", "title": "Module histories", "groups": list(found)})
    groups.update(found)
    body.append(section_html("picture", "Picture of the plan (input -> result)", whole))
    data = {"format": DATA_FORMAT, "report": "run", "title": f"run on {source}",
            "summary": summary, "source": source, "pipeline": pipeline, "passes": passes,
            "sections": sections, "groups": groups, **records_data(trace.records)}
    return html_page(f"metaplan run: {source}", "".join(body), data,
                     filters=("op", "field", "key", "pass"))
