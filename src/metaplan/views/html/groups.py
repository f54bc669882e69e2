"""Folded groups as HTML: one ``<details>`` each, its ``<summary>`` the brace pattern,
the count and the change; the members compactly (one brace pattern per prefix), up to
a budget, then "N more".

The groups are :func:`metaplan.versions.folding.fold_changes`'s, the lines the text
diff's (:func:`metaplan.views.text.group_lines`): the HTML report and the text
report show the same groups.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from metaplan.algorithms.braces import fold, natural_key
from metaplan.paths import FQN_MAPS
from metaplan.records.change import Change, ChangeRecord
from metaplan.versions.folding import Group, group_to_json
from metaplan.views.html.markup import IdMaker, pattern_text, text
from metaplan.views.text import group_lines, plural, values_text

__all__ = ["MEMBER_ROWS", "Budget", "changes_by_module", "group_html", "member_rows",
           "members_html", "render_groups", "summary_html"]

MEMBER_ROWS = 16
"""Member rows (one brace pattern per prefix) a group shows before "N more"."""

_SIGN = {"add": "+", "remove": "-", "set": "~"}
_PREFIX = re.compile(r"\D*\d+")


class Budget:
    """How many characters of member names a page may still embed in its data."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def take(self, names: Sequence[str]) -> bool:
        """Whether ``names`` fit (and are now counted), else False (nothing counted)."""
        need = sum(len(name) + 3 for name in names)
        if need > self.left:
            return False
        self.left -= need
        return True


def changes_by_module(changes: Iterable[Change]) -> dict[str, list[Change]]:
    """Module FQN -> its changes (entry and class), in record order."""
    found: dict[str, list[Change]] = {}
    for change in changes:
        path = change.path
        if len(path) >= 2 and path[0] in FQN_MAPS:
            found.setdefault(str(path[1]), []).append(change)
    return found


def member_rows(names: Sequence[str]) -> list[tuple[str, int]]:
    """The names as brace patterns, one per prefix up to the first number, in natural order:
    ``model.layers.3.mlp.{experts.{0..255},shared_experts}``, then layer 4's...

    >>> member_rows(["m.1.a", "m.1.b", "m.2.a", "n"])
    [('m.1.{a,b}', 2), ('m.2.a', 1), ('n', 1)]
    """
    chunks: dict[str, list[str]] = {}
    for name in names:
        found = _PREFIX.match(name)
        chunks.setdefault(found.group(0) if found else name, []).append(name)
    return [(fold(chunks[key]), len(chunks[key])) for key in sorted(chunks, key=natural_key)]


def _noun(group: Group) -> str:
    return {"modules": "module", "paths": "change", "items": "item"}[group.kind]


def summary_html(group: Group, *, lines_shown: int = 2) -> str:
    """The ``<summary>``'s content: the pattern, the count, the change (its first lines)."""
    said = group_lines(group)
    if group.kind == "paths":  # the count is shown apart
        said = [line.rsplit("  (", 1)[0] for line in said]
    change = "; ".join(said[:lines_shown])
    if len(said) > lines_shown:
        change += f"; and {plural(len(said) - lines_shown, 'more change')}"
    return (f'<code class="pattern">{pattern_text(group.pattern)}</code>'
            f'<span class="count">{plural(group.size, _noun(group))}</span>'
            f'<span class="change">{text(change)}</span>')


def _lines_table(group: Group) -> str:
    rows = ["<tr><th>op</th><th>field</th><th>key</th><th>old</th><th>new</th></tr>"]
    for line in group.lines:
        rows.append(f'<tr><td class="op-{text(line.op)}">{_SIGN.get(line.op, "")} '
                    f"{text(line.op)}</td><td>{text(line.field or group.field)}</td>"
                    f"<td><code>{text(line.label)}</code></td>"
                    f"<td><code>{text(values_text(line.old))}</code></td>"
                    f"<td><code>{text(values_text(line.new))}</code></td></tr>")
    return f'<table class="lines">{"".join(rows)}</table>'


def members_html(names: Sequence[str], noun: str, rows: int = MEMBER_ROWS) -> str:
    """The names as :func:`member_rows`, ``rows`` of them, then "and N more rows" (nothing
    for one name or none)."""
    if len(names) <= 1:
        return ""
    found = member_rows(names)
    items = "".join(f"<li><code>{pattern_text(pattern)}</code>"
                    + (f" <span class=\"count\">{count:,}</span>" if count > 1 else "") + "</li>"
                    for pattern, count in found[:rows])
    out = (f"<p>{text(plural(len(names), noun))}, by prefix:</p>"
           f'<ul class="members">{items}</ul>')
    if len(found) > rows:
        rest = sum(count for _, count in found[rows:])
        out += (f'<p class="more" data-rest="{rest}">and '
                f"{text(plural(len(found) - rows, 'more row'))} ({text(plural(rest, noun))}): "
                "all are in the pattern above, and each one in this file's data</p>")
    else:
        out += (f'<p class="more" data-rest="0">every {text(noun)} listed by name in this '
                "file's data</p>")
    return out


def _filters(group: Group, pass_name: str | None) -> dict[str, str]:
    attrs = {"data_op": json.dumps(sorted({line.op for line in group.lines})),
             "data_field": json.dumps(sorted({line.field or group.field for line in group.lines})),
             "data_key": json.dumps(sorted({line.label for line in group.lines}))}
    if pass_name is not None:
        attrs["data_pass"] = json.dumps([pass_name])
    return attrs


def group_html(group: Group, gid: str, *, why: str = "", pass_name: str | None = None,
               rows: int = MEMBER_ROWS, extra: str = "") -> str:
    """One group as a ``<details>`` (closed), its id ``gid``."""
    attrs = " ".join(f'data-{key[5:]}="{text(value)}"'
                     for key, value in _filters(group, pass_name).items())
    body = _lines_table(group)
    if why:
        body += f'<p class="why">why: {text(why)}</p>'
    body += extra + (members_html(group.names, _noun(group), rows) if group.size > 1 else "")
    body += f'<p class="sub"><a href="#{text(gid)}">link to this group</a></p>'
    return (f'<details class="grp" id="{text(gid)}" data-gid="{text(gid)}" {attrs}>'
            f"<summary>{summary_html(group)}</summary><div class=\"body\">{body}</div></details>\n")


def _why(group: Group, by_module: Mapping[str, list[Change]], top: Sequence[Change]) -> str:
    if group.kind == "modules":
        reasons = {c.why for name in group.names for c in by_module.get(name, ()) if c.why}
    else:
        ops = {line.op for line in group.lines}
        reasons = {c.why for c in top if c.why and str(c.path[0]) == group.field and c.op in ops}
    return fold(sorted(reasons)) if reasons else ""


def render_groups(groups: Sequence[Group], ids: IdMaker, budget: Budget, *,
                  record: ChangeRecord | None = None, pass_name: str | None = None,
                  rows: int = MEMBER_ROWS) -> tuple[str, dict[str, dict[str, Any]]]:
    """The groups' HTML and their data (``{id: group}``, see :mod:`metaplan.views.html.data`).

    With ``record``, each group says why (its changes' reasons, folded).
    """
    by_module = changes_by_module(record.changes) if record is not None else {}
    top = [c for c in record.changes if c.path[0] not in FQN_MAPS] if record else []
    parts, data = [], {}
    for group in groups:
        gid = ids("g", pass_name or "", group.kind, group.field, group.pattern)
        why = _why(group, by_module, top) if record is not None else ""
        item = group_to_json(group)
        if why:
            item["why"] = why
        if pass_name is not None:
            item["pass"] = pass_name
        if group.names:
            if budget.take(group.names):
                item["members"] = list(group.names)
            else:
                item["members_omitted"] = len(group.names)
        data[gid] = item
        parts.append(group_html(group, gid, why=why, pass_name=pass_name, rows=rows))
    return "".join(parts), data
