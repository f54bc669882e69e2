"""Paths a diff leaves out: ``--ignore`` patterns and the fields every regeneration changes.

A pattern is ``field/FQN-glob/key...`` (``/`` between steps) or a JSON
Pointer (``/`` first, ``~1`` for ``/`` and ``~0`` for ``~`` inside a
step); each step is an ``fnmatch`` glob (case-sensitive; one that specs and
rules refuse, an unclosed ``[``, is refused), matched against the change's
path step by step. A change is ignored when the pattern
matches the start of its path: ``injections`` leaves out every change in
the injections; ``param_plan/*.experts.*/is_boundary`` the flag of every
expert.

>>> rules = parse_ignores(["param_plan/*.experts.*/is_boundary", "/source"])
>>> ignored(("param_plan", "m.experts.3", "is_boundary"), rules)
True
>>> ignored(("param_plan", "m.experts.3"), rules), ignored(("source", "transformers"), rules)
(False, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from metaplan.algorithms.patterns import glob_matcher
from metaplan.core.plan import Plan
from metaplan.core.rules import check_pattern
from metaplan.errors import InputError, parse_path
from metaplan.records.change import Change, ChangeRecord, Key, Path
from metaplan.records.edit import apply_changes
from metaplan.settings import PROVENANCE

__all__ = ["Ignore", "ignored", "parse_ignore", "parse_ignores", "split_ignored",
           "split_provenance"]

Ignore = tuple[str, ...]
"""One pattern: a glob per path step."""


def parse_ignore(text: str) -> Ignore:
    """A pattern's steps, read as :func:`~metaplan.errors.parse_path` reads a path."""
    steps = parse_path(text, "--ignore")
    if not steps or steps == ("",):
        raise InputError("--ignore: an empty pattern would ignore everything; name a field",
                         source="--ignore")
    for step in steps:  # a glob specs and rules refuse (an unclosed '[') is refused here too
        if step:
            check_pattern(step, f"--ignore {text}")
    return steps


def parse_ignores(texts: Iterable[str]) -> tuple[Ignore, ...]:
    """Every pattern of ``texts``, parsed."""
    return tuple(parse_ignore(text) for text in texts)


def ignored(path: Sequence[Key], rules: Iterable[Ignore]) -> bool:
    """Whether some pattern matches the start of ``path``."""
    for rule in rules:
        if len(rule) <= len(path) and all(
                glob_matcher(step)(str(key)) for step, key in zip(rule, path, strict=False)):
            return True
    return False


def split_ignored(base: Plan, record: ChangeRecord, rules: Sequence[Ignore]
                  ) -> tuple[ChangeRecord, tuple[Change, ...]]:
    """The record without the changes ``rules`` ignore, and those changes.

    The record still applies to ``base`` (its base): it then gives ``base``
    with every change but the ignored ones, whose hash is its result. An
    ignored item added to or removed from an array moves the items after it,
    so the kept changes to that array are renumbered (a record's array edits
    come in index order, as :func:`~metaplan.versions.diffing.diff` makes them).
    """
    if not rules:
        return record, ()
    kept: list[Change] = []
    dropped: list[Change] = []
    shifts: dict[Path, int] = {}  # array -> how far its kept items sit from the record's
    for change in record.changes:
        path = change.path
        if ignored(path, rules):
            dropped.append(change)
            if change.op != "set" and path and type(path[-1]) is int:
                at = path[:-1]
                shifts[at] = shifts.get(at, 0) + (1 if change.op == "remove" else -1)
        else:
            kept.append(_shifted(change, shifts) if shifts else change)
    if not dropped:
        return record, ()
    result = apply_changes(base, kept)
    return ChangeRecord(record.pass_name, base, result, kept), tuple(dropped)


def _shifted(change: Change, shifts: dict[Path, int]) -> Change:
    """``change`` with its array indices counted as the kept changes leave the arrays."""
    path = change.path
    moved = tuple(key + shifts.get(path[:n], 0) if type(key) is int else key
                  for n, key in enumerate(path))
    return change if moved == path else change._replace(path=moved)


_PROVENANCE = frozenset(PROVENANCE)


def split_provenance(base: Plan, after: Plan, record: ChangeRecord
                     ) -> tuple[ChangeRecord, tuple[Change, ...]]:
    """The record of ``base`` -> ``after`` without the changes to the plans' provenance
    (:data:`~metaplan.settings.PROVENANCE`: ``signature``, ``codegen_version``, ``source``,
    ``outputs``), and those changes.

    The record still applies to ``base``: it gives ``after`` with ``base``'s provenance,
    whose hash is its result (found in time proportional to those fields, not the plan).
    """
    kept: list[Change] = []
    dropped: list[Change] = []
    for change in record.changes:
        (dropped if change.path and change.path[0] in _PROVENANCE else kept).append(change)
    if not dropped:
        return record, ()
    result = after
    for field in {str(change.path[0]) for change in dropped}:
        result = result.set(field, base[field]) if field in base else result.remove(field)
    return ChangeRecord(record.pass_name, base, result, kept), tuple(dropped)
