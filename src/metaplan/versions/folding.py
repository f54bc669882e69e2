"""Changes folded into groups a person can read: numbered modules as one brace pattern.

Changes to modules (``param_plan`` entries and ``boundary_classes``) are
grouped by what happens to each module: the modules whose changes are the
same (same keys, ops, old and new values) form one group, named by one
bash brace pattern (:func:`metaplan.algorithms.braces.fold`) that expands to exactly
them: ``model.layers.{3..60}.mlp.experts.{0..255}``. Where many groups
differ only in their values (the same keys changed the same way), they are
folded into one, each value shown when the modules agree on it and
summarized (``3 distinct values``) when not.

Changes outside the FQN maps (top-level fields) are grouped by their path
with item numbers folded (``injections[{3..5}].ep_size``); strings added to
or removed from an array (``frozen_sharded_params``) are folded the same
way as module names.

>>> from metaplan.records.change import Change, ChangeRecord
>>> changes = [Change("set", ("param_plan", f"m.layers.{i}.mlp", "is_boundary"), True, False)
...            for i in range(3, 61)]
>>> (group,) = fold_changes(ChangeRecord("diff", "a", "b", changes))
>>> group.pattern, group.size, group.lines[0].label
('m.layers.{3..60}.mlp', 58, 'is_boundary')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from metaplan.algorithms.braces import NaturalKey, fold, fold_first, natural_key
from metaplan.frozen import JSONMap, canonical_bytes, thaw
from metaplan.paths import FQN_MAPS, format_path, key_path
from metaplan.records.change import Change, ChangeRecord

if TYPE_CHECKING:
    from metaplan.core.invariants import Note, Violation

__all__ = ["FQN_FIELDS", "Finding", "Group", "Line", "Values", "fold_changes", "fold_findings",
           "group_to_json", "value_key"]

FQN_FIELDS = FQN_MAPS  # the name views and tests read
_MERGE_PAST = 3  # more groups than this that differ in values only are folded into one


class Values(NamedTuple):
    """What a group's modules hold at one place: one value, or how many distinct ones."""

    distinct: int
    value: Any  # the value when ``distinct == 1``

    def to_json(self) -> Any:
        """The value, or ``{"distinct": N}``."""
        return thaw(self.value) if self.distinct == 1 else {"distinct": self.distinct}


class Line(NamedTuple):
    """One change as a group shows it: the field, where in the module (or field), op, values."""

    field: str
    label: str
    op: str
    old: Values | None  # None: the op has no old value (add)
    new: Values | None  # None: the op has no new value (remove)


class Group(NamedTuple):
    """Modules, paths of a top-level field, or items of an array, changed alike; and how.

    ``kind`` is ``"modules"`` (``pattern`` names exactly ``names``, the
    modules), ``"paths"`` (``pattern`` names the changed paths of the top-level
    field ``field``) or ``"items"`` (``pattern`` names exactly the strings
    ``names``, added to or removed from the array ``field``).
    """

    kind: str
    field: str
    pattern: str
    names: tuple[str, ...]
    size: int
    lines: tuple[Line, ...]


def value_key(value: Any) -> Hashable:
    """A key equal for values equal as JSON (``1`` is not ``true``): an object by its cached
    canonical bytes."""
    kind = type(value)
    if kind is str or value is None:
        return value  # type: ignore[no-any-return]
    if kind is JSONMap:
        return value.canonical()  # type: ignore[no-any-return]
    if kind is bool or kind is int:
        return (kind.__name__, value)
    return canonical_bytes(value)


@functools.lru_cache(maxsize=4096)
def _inner(rest: tuple[Any, ...]) -> str:
    return key_path(rest) or "entry"


def _identity(value: Any) -> Hashable:
    """A flat value as itself (with its type: ``1`` is not ``true``), any other by its id."""
    kind = type(value)
    return (kind, value) if kind is str or kind is bool or kind is int or value is None \
        else id(value)


def _label(change: Change) -> tuple[str, str]:
    """``(field, label)`` of a change to a module: the entry's key path, or ``class``."""
    if change.path[0] == "boundary_classes":
        return "boundary_classes", "class"
    return "param_plan", _inner(change.path[2:])


def fold_changes(record: ChangeRecord | Iterable[Change]) -> list[Group]:
    """The record's changes as groups: modules first (in natural order of their first
    name), then top-level fields."""
    changes = record.changes if isinstance(record, ChangeRecord) else tuple(record)
    by_module: dict[str, list[Change]] = {}
    top: list[Change] = []
    for change in changes:
        path = change.path
        if len(path) >= 2 and path[0] in FQN_FIELDS:
            by_module.setdefault(str(path[1]), []).append(change)
        else:
            top.append(change)
    ordered = sorted(_module_groups(by_module), key=lambda pair: pair[0])
    return [group for _, group in ordered] + _top_groups(top)


def _module_groups(by_module: dict[str, list[Change]]) -> list[tuple[NaturalKey, Group]]:
    """The modules' groups, each with the natural key of its first name (their order)."""
    exact: dict[tuple[Hashable, ...], list[str]] = {}
    shapes: dict[tuple[Hashable, ...], list[tuple[Hashable, ...]]] = {}
    sample: dict[tuple[Hashable, ...], list[Change]] = {}
    described: dict[tuple[Any, ...], tuple[tuple[str, str, str], tuple[Any, ...]]] = {}
    for fqn, ordered in by_module.items():
        if len(ordered) > 1 and ordered[0].path[0] == "boundary_classes":
            ordered.append(ordered.pop(0))  # the entry's changes, then the class's (one)
        parts: list[tuple[tuple[str, str, str], tuple[Any, ...]]] = []
        for c in ordered:  # modules changed alike share their changes' inner paths and values
            seen = (c.path[0], c.path[2:], c.op, _identity(c.old), _identity(c.new))
            known_part = described.get(seen)
            if known_part is None:
                known_part = described[seen] = ((*_label(c), c.op),
                                                (value_key(c.old), value_key(c.new), c.old, c.new))
            parts.append(known_part)
        shape = tuple(part[0] for part in parts)
        signature = (*shape, *(part[1][:2] for part in parts))
        known = exact.get(signature)
        if known is None:
            exact[signature] = [fqn]
            shapes.setdefault(shape, []).append(signature)
            sample[signature] = ordered
        else:
            known.append(fqn)
    groups: list[tuple[NaturalKey, Group]] = []
    for shape_key, signatures in shapes.items():
        if len(signatures) <= _MERGE_PAST:
            groups += [_group(exact[sig], [[c] for c in sample[sig]]) for sig in signatures]
            continue
        names = [fqn for sig in signatures for fqn in exact[sig]]
        slots: list[list[Change]] = [[] for _ in shape_key]
        for fqn in names:
            for slot, change in zip(slots, by_module[fqn], strict=True):
                slot.append(change)
        groups.append(_group(names, slots))
    return groups


def _group(names: Sequence[str], slots: Sequence[Sequence[Change]]) -> tuple[NaturalKey, Group]:
    ordered = tuple(sorted(names))
    pattern, lead = fold_first(ordered)
    lines = []
    for slot in slots:
        first = slot[0]
        field, label = _label(first)
        lines.append(Line(field, label, first.op,
                          None if first.op == "add" else _values(c.old for c in slot),
                          None if first.op == "remove" else _values(c.new for c in slot)))
    return natural_key(lead), Group("modules", "", pattern, ordered, len(ordered), tuple(lines))


def _values(values: Iterable[Any]) -> Values:
    seen: dict[Hashable, Any] = {}
    for value in values:
        seen.setdefault(value_key(value), value)
    first = next(iter(seen.values()))
    return Values(len(seen), first)


def _top_groups(changes: list[Change]) -> list[Group]:
    """Top-level changes: string items added or removed folded by value, the rest by path."""
    items: dict[tuple[str, str], dict[str, None]] = {}  # a string twice: the second by path
    paths: dict[tuple[str, str, str, Hashable, Hashable], list[Change]] = {}
    order: list[tuple[Any, ...]] = []
    for change in changes:
        path = change.path
        field = str(path[0])
        value = change.new if change.op == "add" else change.old
        if (len(path) == 2 and isinstance(path[1], int) and change.op != "set"
                and isinstance(value, str) and value not in items.get((field, change.op), ())):
            slot = (field, change.op)
            if slot not in items:
                items[slot] = {}
                order.append(slot)
            items[slot][value] = None
            continue
        label = key_path(path)
        shape = (field, _numbers_out(label), change.op, value_key(change.old),
                 value_key(change.new))
        if shape not in paths:
            paths[shape] = []
            order.append(shape)
        paths[shape].append(change)
    groups = []
    for slot in order:
        if len(slot) == 2:
            values = tuple(items[slot])
            field, op = slot
            line = Line(field, "items", op, None, None)
            groups.append(Group("items", field, fold(values), values, len(values), (line,)))
        else:
            found = paths[slot]
            first = found[0]
            label = fold(key_path(c.path) for c in found)
            line = Line(str(first.path[0]), label, first.op,
                        None if first.op == "add" else Values(1, first.old),
                        None if first.op == "remove" else Values(1, first.new))
            groups.append(Group("paths", line.field, label, (), len(found), (line,)))
    return groups


def _numbers_out(label: str) -> str:
    """A path's text with its item numbers blanked: paths alike but for them group together."""
    out, inside = [], False
    for char in label:
        if char == "[":
            inside = True
        elif char == "]":
            inside = False
        elif inside and char.isdigit():
            continue
        out.append(char)
    return "".join(out)


def group_to_json(group: Group) -> dict[str, Any]:
    """A group as ``--format groups`` writes it.

    Modules: ``{"modules": PATTERN, "count": N, "changes": [{"field", "key", "op", "old"?,
    "new"?}]}``, an old or new value the modules disagree on being ``{"distinct": N}``;
    paths of a top-level field: ``{"field", "paths": PATTERN, "count", "changes"}``; strings
    added to or removed from an array: ``{"field", "op", "items": PATTERN, "count"}``.
    """
    if group.kind == "items":
        return {"field": group.field, "op": group.lines[0].op, "items": group.pattern,
                "count": group.size}
    changes = []
    for line in group.lines:
        item: dict[str, Any] = {"field": line.field, "key": line.label, "op": line.op}
        if line.old is not None:
            item["old"] = line.old.to_json()
        if line.new is not None:
            item["new"] = line.new.to_json()
        changes.append(item)
    if group.kind == "paths":
        return {"field": group.field, "paths": group.pattern, "count": group.size,
                "changes": changes}
    return {"modules": group.pattern, "count": group.size, "changes": changes}


_HOLE = "\x00"  # where a finding's message named its module


class Finding(NamedTuple):
    """Violations (or notes) alike: the check, the place and message with the modules'
    pattern in them, and the modules (empty: one place outside the FQN maps).

    ``path`` is the path with the module left out (``path[1]`` of each member's),
    ``template`` the message with each mention of the module as ``\\x00`` (empty when
    the message is one module's, as it is): :meth:`expand` gives back exactly the
    findings folded.
    """

    check: str
    place: str
    message: str
    names: tuple[str, ...]
    path: tuple[Any, ...] = ()
    template: str = ""

    def expand(self) -> list[tuple[str, tuple[Any, ...], str]]:
        """``(check, path, message)`` of each finding folded into this one."""
        if not self.names:
            return [(self.check, self.path, self.message)]
        return [(self.check, (self.path[0], name, *self.path[1:]),
                 self.template.replace(_HOLE, name) if self.template else self.message)
                for name in self.names]


@functools.lru_cache(maxsize=4096)
def _mention(fqn: str) -> re.Pattern[str]:
    """The module's name as a whole name in a message (not part of a longer one)."""
    return re.compile(r"(?<![\w.])" + re.escape(fqn) + r"(?!\w|\.\w)")


def fold_findings(found: Iterable[Violation | Note]) -> list[Finding]:
    """Violations or notes alike but for their module folded into one, in first-seen order.

    >>> from metaplan.core.invariants import Violation
    >>> found = fold_findings([Violation("c", ("param_plan", f"m.{i}", "k"), f"m.{i} is bad")
    ...                        for i in range(3)])
    >>> [(f.place, f.message, len(f.names)) for f in found]
    [('param_plan["m.{0..2}"].k', 'm.{0..2} is bad', 3)]
    """
    alike: dict[tuple[Any, ...], list[str]] = {}
    alone: dict[tuple[Any, ...], Finding] = {}
    order: list[tuple[Any, ...]] = []
    for item in found:
        path, message = item.path, item.message
        key: tuple[Any, ...]
        if len(path) >= 2 and path[0] in FQN_FIELDS and isinstance(path[1], str) and path[1]:
            fqn = path[1]
            template = _mention(fqn).sub(_HOLE, message) if _HOLE not in message else None
            key = (item.check, path[0], tuple(path[2:]),
                   template if template is not None else (message, fqn))
            if key not in alike:
                alike[key] = []
                order.append(key)
            alike[key].append(fqn)
        else:
            key = (item.check, tuple(path), message, len(order))
            alone[key] = Finding(item.check, format_path(path), message, (), tuple(path),
                                 message)
            order.append(key)
    out = []
    for key in order:
        if key in alone:
            out.append(alone[key])
            continue
        check, field, inner, template = key
        names = tuple(sorted(alike[key], key=natural_key))
        pattern = fold(names)
        place = key_path((field, pattern, *inner), quoted=(1,))
        if not isinstance(template, str):  # a message holding the hole itself: as it is
            out.append(Finding(check, place, template[0], names, (field, *inner), ""))
            continue
        out.append(Finding(check, place, template.replace(_HOLE, pattern), names,
                           (field, *inner), template))
    return out
