"""The field checks rules and specs are read with: each returns the field's value, or raises
a :class:`~metaplan.errors.SpecError` that names where it is and what was found."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pyrsistent import PVector

from metaplan.errors import SpecError, describe

__all__ = ["check_pattern", "found_instead", "match_field", "object_field", "pattern_field",
           "string_field", "target_field"]


def object_field(value: Any, where: str, what: str, known: tuple[str, ...]) -> Mapping[str, Any]:
    """``value`` if it is an object of ``known`` keys only; ``what`` names it (``rule``)."""
    if not isinstance(value, Mapping):
        raise SpecError(f"{where}: a {what} is an object, found {describe(value)}", source=where)
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise SpecError(f"{where}: unknown {what} field(s) {unknown}; known: {list(known)}",
                        source=where)
    return value


def string_field(value: Any, where: str, *, optional: bool = False) -> str | None:
    """``value`` if it is a string (or, where ``optional``, null)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        need = "a string or null" if optional else "a string"
        raise SpecError(f"{where}: must be {need}, found {describe(value)}", source=where)
    return value


def check_pattern(pattern: Any, where: str) -> str:
    """``pattern`` if it is a usable FQN glob, else a :class:`SpecError` saying why.

    A pattern is a non-empty ``fnmatch`` string, and each ``[`` opens a
    character class closed by a ``]``: fnmatch reads an unclosed ``[`` as a
    literal bracket, which no module FQN holds, so the pattern would silently
    match nothing.

    >>> check_pattern("experts.[0-3]", "p")
    'experts.[0-3]'
    >>> check_pattern("experts.[0-3", "p")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    metaplan.errors.SpecError: p: invalid glob pattern "experts.[0-3": the '[' at 8 is never ...
    """
    if not isinstance(pattern, str):
        raise SpecError(f"{where}: a glob pattern is a string, found {describe(pattern)}",
                        source=where)
    if not pattern:
        raise SpecError(f"{where}: invalid glob pattern \"\": an empty pattern matches no "
                        "module", source=where)
    start = pattern.find("[")
    while start != -1:
        end = start + 1  # fnmatch.translate's scan: "[!" and a leading "]" belong to the class
        if pattern.startswith("!", end):
            end += 1
        if pattern.startswith("]", end):
            end += 1
        end = pattern.find("]", end)
        if end == -1:
            shown = json.dumps(pattern)
            raise SpecError(f"{where}: invalid glob pattern {shown}: the '[' at {start} is "
                            "never closed by ']' (an unclosed '[' matches a literal bracket, "
                            "and no FQN has one)", source=where)
        start = pattern.find("[", end + 1)
    return pattern


def pattern_field(value: Any, where: str, *, bare: bool = True) -> tuple[str, ...]:
    """Glob patterns: an array of them (or, where ``bare``, one string or null)."""
    if bare and value is None:
        return ()
    if bare and isinstance(value, str):
        return (check_pattern(value, where),)
    if not isinstance(value, (list, tuple, PVector)):
        need = "a string or an array of strings" if bare else "an array of strings"
        hint = f': write [{json.dumps(value)}]' if isinstance(value, str) else ""
        raise SpecError(f"{where}: must be {need} (glob patterns), found {describe(value)}"
                        f"{hint}", source=where)
    return tuple(check_pattern(item, f"{where}[{i}]") for i, item in enumerate(value))


def match_field(value: Any, where: str, what: str) -> tuple[str, ...]:
    """The patterns of a ``match`` (see :func:`pattern_field`): at least one."""
    match = pattern_field(value, where)
    if not match:
        raise SpecError(f"{where}: {what} needs at least one pattern, found {describe(value)}",
                        source=where)
    return match


def target_field(value: Any, where: str) -> str | None:
    """A target written as a string, or as an object's ``_target_`` / ``target`` key."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        target = value.get("_target_") or value.get("target")
        return string_field(target, f"{where}._target_", optional=True)
    raise SpecError(f"{where}: must be a string or an object with _target_, found "
                    f"{describe(value)}", source=where)


def found_instead(obj: Any, key: str) -> str:
    """What a specs or rules file held instead of ``{key: [...]}``."""
    if not isinstance(obj, Mapping):
        return describe(obj)
    if key in obj:
        return f'an object with "{key}": {describe(obj[key])}'
    return f"an object with keys {sorted(obj)}"
