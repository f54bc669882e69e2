"""Lists of names from the command line (``--passes``, ``--checks``), with did-you-mean.

>>> parse_names("strip_ep, b", ("strip-ep", "b", "c"), what="pass", where="--passes")
('strip-ep', 'b')
>>> parse_names("stirp-ep", ("strip-ep", "b"), what="pass", where="-p")
Traceback (most recent call last):
...
metaplan.errors.SpecError: -p: unknown pass 'stirp-ep' (did you mean strip-ep?); known: strip-ep, b
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from metaplan.errors import SpecError

__all__ = ["closest", "parse_names"]


def parse_names(text: str | Sequence[str], known: Sequence[str], *, what: str, where: str,
                groups: Mapping[str, Sequence[str]] | None = None, note: str = "",
                unique: bool = False) -> tuple[str, ...]:
    """The names in ``text`` (comma-separated, or a list), each checked against ``known``.

    Spaces around a name are dropped and ``_`` reads as ``-``; a name in
    ``groups`` stands for its members; with ``unique`` each name is kept once.
    An unknown or empty name is a :class:`SpecError` naming ``where``, with
    the closest known name, then the known ones (and ``note``).
    """
    groups = groups or {}
    words = text.split(",") if isinstance(text, str) else list(text)
    names: list[str] = []
    for word in words:
        name = str(word).strip().replace("_", "-")
        found = groups.get(name) or ((name,) if name in known else None)
        if found is None:
            hint = _unknown(str(word).strip(), [*known, *groups], what)
            raise SpecError(f"{where}: {hint}; known: {', '.join(known)}{note}", source=where)
        names.extend(n for n in found if not (unique and n in names))
    return tuple(names)


def _unknown(word: str, choices: Sequence[str], what: str) -> str:
    if not word:
        return f"an empty {what} name (two commas, or a comma at an end?)"
    close = closest(word.replace("_", "-"), choices)
    return f"unknown {what} {word!r}" + (f" (did you mean {close}?)" if close else "")


def closest(word: str, choices: Sequence[str]) -> str | None:
    """The choice closest to ``word``, when one is close enough to suggest.

    >>> closest("limt", ("limit", "size")), closest("zzz", ("limit",))
    ('limit', None)
    """
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.4)
    return close[0] if close else None
