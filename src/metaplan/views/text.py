"""Text for people: a record grouped by module, a module's history, per-pass stats.

>>> from metaplan.core.plan import Plan
>>> from metaplan.versions.diffing import diff
>>> a = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "params": {"w.x": 1}}},
...                     "boundary_classes": {"m": "MLP"}, "model_type": "x"})
>>> b = Plan.from_json({"param_plan": {"m": {"is_boundary": False, "params": {"w.x": 2}}},
...                     "boundary_classes": {}, "model_type": "y"})
>>> print(format_diff(diff(a, b)), end="")
4 changes: 1 module (3 changes), 1 top-level change
(top level)
  ~ model_type: "x" -> "y"
m
  ~ is_boundary: true -> false
  ~ params["w.x"]: 1 -> 2
  - class: "MLP"
>>> print(format_folded(diff(a, b)), end="")
4 changes: 1 module in 1 group, 1 top-level change
(top level)
  ~ model_type: "x" -> "y"
m
  ~ is_boundary: true -> false
  ~ params["w.x"]: 1 -> 2
  - class: "MLP"

A module heading is the FQN as it is, or a JSON string when it could be
read as something else: when it is empty, holds a character a terminal
acts on (a newline, an escape), white space, a quote or a parenthesis, or
begins with ``+``, ``-``, ``~``, ``@``, ``.`` or ``!`` (so no module reads as
the ``(top level)`` heading, a change line, a ``---``/``+++`` header or a
``... and N more`` line). A folded heading is a brace pattern, quoted by the
same rule (its braces and commas are the pattern's); in an expanded heading
a brace or a comma is the name's, so it is quoted too.

>>> printable("model.layers.3"), printable("(top level)"), printable("+ x: 1")
('model.layers.3', '"(top level)"', '"+ x: 1"')
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pyrsistent import PVector

from metaplan.algorithms.braces import fold, natural_key
from metaplan.core.plan import Plan
from metaplan.frozen import MISSING, canonical_bytes, json_equal
from metaplan.paths import FQN_MAPS, format_path, key_path
from metaplan.records.change import Change, ChangeRecord
from metaplan.versions.folding import Finding, Group, Values, fold_changes
from metaplan.views.labels import PLAIN, TextStyle

if TYPE_CHECKING:  # types only: a diff's text needs no pipeline and no merge
    from metaplan.passes.chaining import Trace
    from metaplan.versions.merging import Conflict

__all__ = [
    "change_line",
    "finding_line",
    "format_conflicts",
    "format_diff",
    "format_explain",
    "format_flat",
    "format_folded",
    "format_stats",
    "group_lines",
    "plural",
    "printable",
    "values_text",
]

_TOP = "(top level)"


def _where(change: Change) -> tuple[str | None, str]:
    """``(group, label)``: the module (None: the top level) a change is about, and what in
    it."""
    path = change.path
    if len(path) >= 2 and path[0] in FQN_MAPS:
        fqn = str(path[1])
        if path[0] == "boundary_classes":
            return fqn, "class"
        return fqn, key_path(path[2:]) or "entry"
    return None, key_path(path)


def change_line(change: Change, label: str | None = None, *, style: TextStyle = PLAIN) -> str:
    """``~ label: old -> new`` (``+`` for an add, ``-`` for a removal); an injection's line
    ends with its ``match`` when the style knows it."""
    label = label if label is not None else "/".join(map(str, change.path))
    cut, about = style.cut, style.about(change.path)
    if change.op == "add":
        return f"+ {label}: {cut(change.new)}{about}"
    if change.op == "remove":
        return f"- {label}: {cut(change.old)}{about}"
    return f"~ {label}: {cut(change.old)} -> {cut(change.new)}{about}"


_QUOTED = re.compile(r"\A(?:[-+~@.!]|\Z)|[\s()\"']")
_QUOTED_NAME = re.compile(r"\A(?:[-+~@.!]|\Z)|[\s()\"'{},\\]")


def printable(name: str, *, pattern: bool = False) -> str:
    """A module name (a brace ``pattern`` in folded text) as a heading shows it: as it is,
    or as a JSON string when it could be read as report syntax (see the module's doc).

    >>> printable("model.layers.3"), printable("a\\nb"), printable(""), printable("m.{a,b}")
    ('model.layers.3', '"a\\\\nb"', '""', '"m.{a,b}"')
    >>> printable("m.{a,b}", pattern=True)
    'm.{a,b}'
    """
    plain = name.isprintable() and not (_QUOTED if pattern else _QUOTED_NAME).search(name)
    return name if plain else json.dumps(name)


def plural(count: int, word: str) -> str:
    """``count`` (with thousands separators) and ``word``, with an s unless there is one."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def format_diff(record: ChangeRecord, *, limit: int | None = None,
                style: TextStyle = PLAIN) -> str:
    """The record as text: top-level fields first, then one group per module, by FQN.

    ``limit`` caps the modules shown (the summary line still counts them all).
    """
    groups: dict[str, list[str]] = {}
    top: list[str] = []
    for change in sorted(record.changes, key=lambda c: c.path[0] == "boundary_classes"):
        group, label = _where(change)
        line = change_line(change, label, style=style)
        if group is None:
            top.append(line)
        else:
            groups.setdefault(group, []).append(line)
    in_modules = sum(map(len, groups.values()))
    lines = [f"{plural(len(record), 'change')}: {plural(len(groups), 'module')} "
             f"({plural(in_modules, 'change')}), {plural(len(top), 'top-level change')}"]
    if top:
        lines += [_TOP, *(f"  {line}" for line in top)]
    fqns = sorted(groups, key=natural_key)
    for fqn in fqns if limit is None else fqns[:limit]:
        lines += [printable(fqn), *(f"  {line}" for line in groups[fqn])]
    if limit is not None and len(fqns) > limit:
        lines.append(f"... and {plural(len(fqns) - limit, 'more module')}")
    return "\n".join(lines) + "\n"


def values_text(values: Values | None, style: TextStyle = PLAIN) -> str:
    """A folded change's old or new values as shown: the value (cut by ``style``), or
    ``(N distinct values)``; empty for None (no such side)."""
    if values is None:
        return ""
    return style.cut(values.value) if values.distinct == 1 \
        else f"({values.distinct} distinct values)"


def group_lines(group: Group, *, style: TextStyle = PLAIN) -> list[str]:
    """A folded group's changes as the text diff shows them, one line each, unindented:
    ``~ is_boundary: true -> false``, ``- class: "MLP"``, ``+ items: PATTERN  (N items)``.

    >>> from metaplan.versions.folding import Line
    >>> line = Line("param_plan", "is_boundary", "set", Values(1, True), Values(2, None))
    >>> group_lines(Group("modules", "", "m.{1,2}", ("m.1", "m.2"), 2, (line,)))
    ['~ is_boundary: true -> (2 distinct values)']
    """
    if group.kind == "items":
        sign = "+" if group.lines[0].op == "add" else "-"
        return [f"{sign} {group.field} items: {group.pattern}  ({plural(group.size, 'item')})"]
    lines = []
    for line in group.lines:
        label = line.label
        if line.op == "add":
            text = f"+ {label}: {values_text(line.new, style)}"
        elif line.op == "remove":
            text = f"- {label}: {values_text(line.old, style)}"
        else:
            text = f"~ {label}: {values_text(line.old, style)} -> {values_text(line.new, style)}"
        if group.kind == "paths" and group.size > 1:
            text += f"  ({plural(group.size, 'change')})"
        if group.kind == "paths":
            text += style.about_pattern(group.pattern)
        lines.append(text)
    return lines


def format_folded(record: ChangeRecord, groups: list[Group] | None = None, *,
                  style: TextStyle = PLAIN) -> str:
    """The record as text a person can read: modules changed alike as one brace pattern.

    See :mod:`metaplan.versions.folding`; :func:`format_diff` lists every module instead.
    """
    groups = fold_changes(record) if groups is None else groups
    modules = [group for group in groups if group.kind == "modules"]
    top = [group for group in groups if group.kind != "modules"]
    touched = sum(group.size for group in modules)
    in_top = sum(group.size for group in top)  # changes, as format_diff counts them
    lines = [f"{plural(len(record), 'change')}: {plural(touched, 'module')} in "
             f"{plural(len(modules), 'group')}, {plural(in_top, 'top-level change')}"]
    if top:
        lines.append(_TOP)
        for group in top:
            lines += [f"  {text}" for text in group_lines(group, style=style)]
    for group in modules:
        lines.append(printable(group.pattern, pattern=True)
                     + (f"  ({plural(group.size, 'module')})" if group.size > 1 else ""))
        lines += [f"  {text}" for text in group_lines(group, style=style)]
    return "\n".join(lines) + "\n"


def format_flat(plan: Plan) -> str:
    """The plan as one line per value, ``path = JSON``, keys in natural order: stable text
    that a line diff (``git diff`` with a textconv, blame) reads well.

    >>> print(format_flat(Plan.from_json({"param_plan": {"m.2": {"p": [1]}, "m.10": {}}})), end="")
    param_plan["m.2"].p[0] = 1
    param_plan["m.10"] = {}
    """
    lines: list[str] = []
    maps = plan.map_fields
    for field in sorted(plan, key=natural_key):
        if field not in maps:
            lines += _flat(field, plan[field])
            continue
        index = plan.index(field)
        if not index:  # an empty map is a value too
            lines.append(f"{field} = {{}}")
            continue
        known: dict[int, tuple[Any, list[str]]] = {}
        for fqn in sorted(index, key=natural_key):
            value = index[fqn]
            seen = known.get(id(value))
            if seen is None or seen[0] is not value:
                seen = known[id(value)] = (value, _flat("", value))
            head = key_path((field, fqn), quoted=(1,))
            lines += [head + line for line in seen[1]]
    return "".join(f"{line}\n" for line in lines)


def _flat(prefix: str, value: Any) -> list[str]:
    """``prefix...path = JSON`` for every leaf of ``value`` (an empty object or array is one)."""
    if isinstance(value, Mapping) and value:
        return [line for key in sorted(value, key=natural_key)
                for line in _flat(prefix + _step(key), value[key])]
    if isinstance(value, (list, tuple, PVector)) and value:
        return [line for i, item in enumerate(value) for line in _flat(f"{prefix}[{i}]", item)]
    return [f"{prefix} = {canonical_bytes(value).decode('utf-8', 'replace')}"]


def _step(key: str) -> str:
    return f".{key}" if key.isidentifier() else f"[{json.dumps(key)}]"


def _value_key(value: Any) -> Any:
    return MISSING if value is MISSING else canonical_bytes(value)


def _side(value: Any, style: TextStyle) -> str:
    return "(absent)" if value is MISSING else style.cut(value, 60)


def _differing(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The keys, sorted, where two objects hold different values (or one holds none)."""
    return [key for key in sorted({*a, *b})
            if not json_equal(a.get(key, MISSING), b.get(key, MISSING))]


def _clash(conflict: Conflict, style: TextStyle) -> str:
    """The three values of a conflict; for objects, only the keys where the sides differ."""
    base, ours, theirs = conflict.base, conflict.ours, conflict.theirs
    show = functools.partial(_side, style=style)
    if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
        old = base if isinstance(base, Mapping) else {}
        keys = _differing(ours, theirs)
        parts = [f"{key}: base {show(old.get(key, MISSING))}, ours "
                 f"{show(ours.get(key, MISSING))}, theirs {show(theirs.get(key, MISSING))}"
                 for key in keys[:3]]
        more = f"; and {plural(len(keys) - 3, 'more key')}" if len(keys) > 3 else ""
        return "the sides differ at " + "; ".join(parts) + more
    for side, kept, gone in (("ours", ours, theirs), ("theirs", theirs, ours)):
        if isinstance(base, Mapping) and isinstance(kept, Mapping) and gone is MISSING:
            other = "theirs" if side == "ours" else "ours"
            keys = _differing(base, kept)
            return (f"{other} removed it; {side} changed " + ", ".join(
                f"{key} ({show(base.get(key, MISSING))} -> {show(kept.get(key, MISSING))})"
                for key in keys[:3]) + (f", and {len(keys) - 3} more" if len(keys) > 3 else ""))
    return f"base {show(base)}, ours {show(ours)}, theirs {show(theirs)}"


def format_conflicts(conflicts: Sequence[Conflict], *, style: TextStyle = PLAIN) -> str:
    """Conflicts as text: modules that conflict alike folded into one brace pattern, each
    place with its base, ours and theirs values (for objects, where the sides differ)."""
    groups: dict[tuple[Any, ...], tuple[Conflict, list[str]]] = {}
    for conflict in conflicts:
        path = conflict.path
        values = tuple(_value_key(v) for v in (conflict.base, conflict.ours, conflict.theirs))
        if len(path) >= 2 and path[0] in FQN_MAPS:
            key: tuple[Any, ...] = (path[0], path[2:], values)
            groups.setdefault(key, (conflict, []))[1].append(str(path[1]))
        else:
            groups[(path, values)] = (conflict, [])
    lines = [f"{plural(len(conflicts), 'conflict')}"]
    for sample, names in groups.values():
        path = sample.path
        if names:
            place = key_path((path[0], fold(names), *path[2:]), quoted=(1,))
            count = f"  ({plural(len(names), 'module')})" if len(names) > 1 else ""
        else:
            place, count = format_path(path), style.about(path)
        lines.append(f"  {place}: {_clash(sample, style)}{count}")
    return "\n".join(lines) + "\n"


def finding_line(finding: Finding, *, note: bool = False) -> str:
    """A folded violation (a ``note``) as one line: ``check: place: message`` (``note:``
    first), and the count of modules when there are more than one, as the diff counts
    them.

    >>> from metaplan.versions.folding import fold_findings
    >>> from metaplan.core.invariants import Violation
    >>> print(finding_line(*fold_findings(Violation("c", ("param_plan", f"m.{i}"), "bad")
    ...                                   for i in range(3, 61))))
    c: param_plan["m.{3..60}"]: bad  (58 modules)
    """
    count = f"  ({plural(len(finding.names), 'module')})" if len(finding.names) > 1 else ""
    return f"{'note: ' if note else ''}{finding.check}: {finding.place}: {finding.message}{count}"


def format_explain(trace: Trace, fqns: Iterable[str], *, style: TextStyle = PLAIN) -> str:
    """Every change to each module's entry and class, in pipeline order, with its why."""
    lines = []
    for fqn in fqns:
        found = trace.explain_module(fqn)
        lines.append(printable(fqn) if found else f"{printable(fqn)}: no pass changes it")
        for step, (pass_name, change) in enumerate(found, 1):
            _, label = _where(change)
            lines.append(f"  {step}. {pass_name}: {change_line(change, label, style=style)}")
            lines.append(f"     why: {change.why}")
    return "\n".join(lines) + "\n"


def format_stats(trace: Trace, extra: Sequence[tuple[str, float]] = ()) -> str:
    """Per pass: changes, modules touched and wall time; ``extra`` adds timed steps."""
    rows = [("pass", "changes", "modules", "ms")]
    for name, record, seconds in zip(trace.passes, trace.records, trace.seconds, strict=False):
        modules = len({change.path[1] for change in record.changes
                       if len(change.path) >= 2 and change.path[0] in FQN_MAPS})
        rows.append((name, str(len(record)), str(modules), f"{seconds * 1e3:.1f}"))
    steps: dict[str, float] = {}
    for name, seconds in extra:  # several dumps are one row
        steps[name] = steps.get(name, 0.0) + seconds
    rows += [(name, "", "", f"{seconds * 1e3:.1f}") for name, seconds in steps.items()]
    total = sum(trace.seconds) + sum(seconds for _, seconds in extra)
    rows.append(("total", str(sum(map(len, trace.records))), "", f"{total * 1e3:.1f}"))
    width = max(len(row[0]) for row in rows)
    return "".join(f"{row[0]:<{width}}  {row[1]:>8}  {row[2]:>8}  {row[3]:>8}\n"
                   for row in rows)
