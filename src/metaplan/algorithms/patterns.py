"""Module patterns from the command line: brace patterns and globs over a plan's FQNs.

A pattern is first brace-expanded (:func:`metaplan.algorithms.braces.expand`), then each
word is a glob when it holds ``*``, ``?`` or ``[`` (``fnmatch``, case-sensitive;
``*`` crosses dots) and a name otherwise. What a pattern matches comes in the
order of ``names`` (the plan's); a word that matches nothing is reported with
the closest name:

>>> names = ("lm_head", "model.layers.0.mlp", "model.layers.1.mlp", "model.norm")
>>> found = match_names(["model.layers.*.mlp", "lm_haed", "model.{norm,nrom}"], names)
>>> found.names
('model.layers.0.mlp', 'model.layers.1.mlp', 'model.norm')
>>> [(u.pattern, u.words, u.suggestion) for u in found.unmatched]
[('lm_haed', ('lm_haed',), 'lm_head'), ('model.{norm,nrom}', ('model.nrom',), 'model.norm')]
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from metaplan.algorithms.braces import count, expand, fold
from metaplan.names import closest

__all__ = ["MAX_WORDS", "Matches", "Unmatched", "glob_matcher", "is_glob", "match_names"]

MAX_WORDS = 1_000_000
"""The most words one pattern may expand to (``{0..99999999}`` is refused, not built)."""

_SUGGESTED = 64
"""Unmatched words of one pattern past this many get no did-you-mean (each costs a scan)."""


@dataclass(frozen=True)
class Unmatched:
    """A pattern some of whose words match no name; ``suggestion`` folds the closest names.

    ``whole`` is true when no word of the pattern matched anything.
    """

    pattern: str
    words: tuple[str, ...]
    suggestion: str | None
    whole: bool


@dataclass(frozen=True)
class Matches:
    """The names the patterns match (each once, per pattern in ``names``' order) and the misses."""

    names: tuple[str, ...]
    unmatched: tuple[Unmatched, ...]


@functools.lru_cache(maxsize=4096)
def glob_matcher(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """A test of whole names against ``pattern`` with ``fnmatch`` semantics, case-sensitive
    as on POSIX (``fnmatch.fnmatchcase``), compiled once.

    >>> test = glob_matcher("model.layers.[0-2].mlp")
    >>> bool(test("model.layers.1.mlp")), bool(test("model.layers.1.mlp.x"))
    (True, False)
    """
    return re.compile(fnmatch.translate(pattern)).match


def is_glob(word: str) -> bool:
    """Whether ``word`` is an ``fnmatch`` glob rather than a name.

    >>> is_glob("model.layers.*.mlp"), is_glob("model.layers.[0-2].mlp"), is_glob("lm_head")
    (True, True, False)
    """
    return any(c in word for c in "*?[")


def match_names(patterns: Iterable[str], names: Sequence[str]) -> Matches:
    """What each of ``patterns`` matches among ``names``; raises ``ValueError`` on a bad one.

    A bad pattern is an unclosed brace and the like (see :func:`~metaplan.algorithms.braces.expand`)
    or one that expands to more than :data:`MAX_WORDS` words.
    """
    position = {name: i for i, name in enumerate(names)}
    found: dict[str, None] = {}
    unmatched = []
    for pattern in patterns:
        hits, missed = _match(pattern, names, position)
        found.update(dict.fromkeys(names[i] for i in sorted(hits)))
        if missed:
            close = [c for c in (_suggest(w, names) for w in missed[:_SUGGESTED]) if c is not None]
            unmatched.append(Unmatched(pattern, tuple(missed), fold(close) if close else None,
                                       whole=not hits))
    return Matches(tuple(found), tuple(unmatched))


def _match(pattern: str, names: Sequence[str],
           position: dict[str, int]) -> tuple[set[int], list[str]]:
    """The positions of the names ``pattern`` matches, and its words that match none."""
    if count(pattern) > MAX_WORDS:
        raise ValueError(f"{pattern}: expands to {count(pattern):,} words, more than "
                         f"{MAX_WORDS:,}: narrow its ranges")
    hits: set[int] = set()
    missed: list[str] = []
    for word in dict.fromkeys(expand(pattern)):
        if is_glob(word):
            test = glob_matcher(word)
            matched = [i for i, name in enumerate(names) if test(name)]
        else:
            matched = [position[word]] if word in position else []
        if not matched:
            missed.append(word)
        hits.update(matched)
    return hits, missed


def _suggest(word: str, names: Sequence[str]) -> str | None:
    """The closest name to a name; for a glob, the glob with its literal start corrected.

    >>> _suggest("model.layerz.*", ["lm_head", "model.layers.0"]), _suggest("x*", ["lm_head"])
    ('model.layers.*', None)
    """
    if not is_glob(word):
        return closest(word, names)
    start = re.split(r"[*?\[]", word, maxsplit=1)[0]
    close = closest(start, list(dict.fromkeys(name[:len(start)] for name in names)))
    if close is None or close == start:
        return None
    fixed = close + word[len(start):]
    test = glob_matcher(fixed)
    return fixed if any(test(name) for name in names) else None
