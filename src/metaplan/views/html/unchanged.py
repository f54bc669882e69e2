"""Modules planned alike, folded: the notebook's view of a plan and the diff report's
"show unchanged" section.

Modules with the same class and ``is_boundary`` are one group, its pattern
the brace pattern of their names (``model.layers.{3..60}.mlp``). In the
diff report, the modules no change touches are such groups, each a closed
``<details>`` inside one closed ``<details>``: it reads with no script, and
the script hides it behind a "show unchanged" box.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from metaplan.algorithms.braces import fold, natural_key
from metaplan.core.plan import Plan
from metaplan.views.html.groups import Budget, members_html
from metaplan.views.html.markup import IdMaker, pattern_text, text
from metaplan.views.text import plural

__all__ = ["Alike", "alike_modules", "planned_as", "unchanged_html"]


class Alike(NamedTuple):
    """Modules planned alike: their pattern, names (in natural order), class and flag."""

    pattern: str
    names: tuple[str, ...]
    cls: str
    is_boundary: bool | None


def alike_modules(plan: Plan, only: Collection[str] | None = None) -> list[Alike]:
    """The plan's modules (those in ``only``, when given) folded by class and
    ``is_boundary``, in natural order of their first names."""
    entries = plan.index("param_plan") if "param_plan" in plan else {}
    classes = plan.index("boundary_classes") if "boundary_classes" in plan else {}
    alike: dict[tuple[str, bool | None], list[str]] = {}
    for fqn in {*entries, *classes}:
        if only is not None and fqn not in only:
            continue
        entry = entries.get(fqn)
        flag = entry.get("is_boundary") if isinstance(entry, Mapping) else None
        alike.setdefault((str(classes.get(fqn, "")), flag if isinstance(flag, bool) else None),
                         []).append(fqn)
    found = []
    for (cls, flag), names in alike.items():
        names.sort(key=natural_key)
        found.append(Alike(fold(names), tuple(names), cls, flag))
    found.sort(key=lambda group: natural_key(group.names[0]))
    return found


def planned_as(group: Alike) -> str:
    """``class MLP, boundary``: how the group's modules are planned (``""``: no class or
    flag)."""
    flag = {True: "boundary", False: "not a boundary", None: ""}[group.is_boundary]
    return ", ".join(part for part in (f"class {group.cls}" if group.cls else "", flag) if part)


def _group_html(group: Alike, gid: str) -> str:
    said = "unchanged" + (f"; {planned_as(group)}" if planned_as(group) else "")
    return (f'<details class="grp unchanged" id="{text(gid)}" data-gid="{text(gid)}">'
            f'<summary><code class="pattern">{pattern_text(group.pattern)}</code>'
            f'<span class="count">{plural(len(group.names), "module")}</span>'
            f'<span class="change">{text(said)}</span></summary><div class="body">'
            f"{members_html(group.names, 'module')}"
            f'<p class="sub"><a href="#{text(gid)}">link to this group</a></p></div>'
            "</details>\n")


def unchanged_html(after: Plan, names: Collection[str], ids: IdMaker, budget: Budget
                   ) -> tuple[str, dict[str, Any]]:
    """The ``unchanged`` section (``""`` for no names) and its data: ``{"count", "groups":
    {id: {"modules", "count", "class", "is_boundary", "members" or "members_omitted"}}}``."""
    if not names:
        return "", {}
    groups = alike_modules(after, names)
    parts, data = [], {}
    for group in groups:
        gid = ids("u", group.pattern, group.cls, json.dumps(group.is_boundary))
        item: dict[str, Any] = {"modules": group.pattern, "count": len(group.names),
                                "class": group.cls or None, "is_boundary": group.is_boundary}
        if budget.take(group.names):
            item["members"] = list(group.names)
        else:
            item["members_omitted"] = len(group.names)
        data[gid] = item
        parts.append(_group_html(group, gid))
    count = sum(len(group.names) for group in groups)
    said = f"{plural(count, 'unchanged module')} in {plural(len(groups), 'group')}"
    html = (f'<section id="unchanged"><h2>Unchanged modules ({text(said)})</h2>'
            f'<details id="unchanged-list"><summary>{text(said)}, folded by class and '
            "is_boundary: in both plans, no change touches them</summary>"
            f'{"".join(parts)}</details></section>\n')
    return html, {"count": count, "groups": data}
