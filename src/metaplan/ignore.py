"""Paths a diff leaves out: ``--ignore`` patterns and the fields every regeneration changes.

A pattern is ``field/FQN-glob/key...`` (``/`` between steps) or a JSON
Pointer (``/`` first, ``~1`` for ``/`` and ``~0`` for ``~`` inside a
step); each step is an ``fnmatch`` glob (case-sensitive), matched against
the change's path step by step. A change is ignored when the pattern
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

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from metaplan.change import Change, ChangeRecord, Key, parse_path
from metaplan.edit import apply_changes
from metaplan.errors import InputError
from metaplan.plan import Plan

__all__ = ["Ignore", "ignored", "parse_ignore", "parse_ignores", "split_ignored"]

Ignore = tuple[str, ...]
"""One pattern: a glob per path step."""


@functools.lru_cache(maxsize=1024)
def _matcher(step: str) -> Callable[[str], Any]:
    return re.compile(fnmatch.translate(step)).match


def parse_ignore(text: str) -> Ignore:
    """A pattern's steps, read as :func:`~metaplan.change.parse_path` reads a path."""
    steps = parse_path(text, "--ignore")
    if not steps or steps == ("",):
        raise InputError("--ignore: an empty pattern would ignore everything; name a field",
                         source="--ignore")
    return steps


def parse_ignores(texts: Iterable[str]) -> tuple[Ignore, ...]:
    """Every pattern of ``texts``, parsed."""
    return tuple(parse_ignore(text) for text in texts)


def ignored(path: Sequence[Key], rules: Iterable[Ignore]) -> bool:
    """Whether some pattern matches the start of ``path``."""
    for rule in rules:
        if len(rule) <= len(path) and all(
                _matcher(step)(str(key)) for step, key in zip(rule, path, strict=False)):
            return True
    return False


def split_ignored(base: Plan, record: ChangeRecord, rules: Sequence[Ignore]
                  ) -> tuple[ChangeRecord, tuple[Change, ...]]:
    """The record without the changes ``rules`` ignore, and those changes.

    The record still applies to ``base`` (its base): it then gives ``base``
    with every change but the ignored ones, whose hash is its result.
    """
    if not rules:
        return record, ()
    kept: list[Change] = []
    dropped: list[Change] = []
    for change in record.changes:
        (dropped if ignored(change.path, rules) else kept).append(change)
    if not dropped:
        return record, ()
    result = apply_changes(base, kept)
    return ChangeRecord(record.pass_name, base, result, kept), tuple(dropped)
