"""How the text reports show values and name injections: :class:`TextStyle`.

A report cuts a long value at a width (``--width N``; 0 never cuts) and
names an injection, which a path knows only by its item number, by the
module its ``match`` names:

>>> from metaplan.core.plan import Plan
>>> plan = Plan.from_json({"injections": [{"match": "model.layers.3.mlp", "ep_size": 8}]})
>>> style = TextStyle(width=0, injections=injection_matches(plan))
>>> style.about(("injections", 0, "ep_size")), style.about(("injections", 1))
('  (match: model.layers.3.mlp)', '')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from metaplan.algorithms.braces import expand, fold, natural_key
from metaplan.frozen import shorten

__all__ = ["PLAIN", "TextStyle", "injection_matches"]

_ITEM = re.compile(r"\Ainjections\[(\d+)\]")


def injection_matches(*plans: Mapping[str, Any]) -> dict[int, str]:
    """Each injection's item number and its ``match``, from the first plan that has it.

    >>> injection_matches({"injections": [{"match": "a"}, {"x": 1}]},
    ...                   {"injections": [{"match": "b"}, {"match": "c"}, {"match": 3}]})
    {0: 'a', 1: 'c'}
    """
    found: dict[int, str] = {}
    for plan in plans:
        items = plan.get("injections")
        if not isinstance(items, Sequence) or isinstance(items, str):
            continue
        for i, item in enumerate(items):
            match = item.get("match") if isinstance(item, Mapping) else None
            if isinstance(match, str):
                found.setdefault(i, match)
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class TextStyle:
    """``width``: where a value is cut (``None``: each report's own, 80 or 60; 0: never);
    ``injections``: item number -> ``match``, to name the injections changes touch."""

    width: int | None = None
    injections: Mapping[int, str] = field(default_factory=dict)

    def cut(self, value: Any, default: int = 80) -> str:
        """``value`` as compact JSON, cut at this style's width (``default`` when unset)."""
        return shorten(value, default if self.width is None else self.width)

    def about(self, path: Sequence[Any]) -> str:
        """``  (match: MODULE)`` for a path into an injection whose match is known, or ''."""
        if len(path) >= 2 and path[0] == "injections" and isinstance(path[1], int):
            return self._named([path[1]])
        return ""

    def about_pattern(self, pattern: str) -> str:
        """The same for a folded path pattern (``injections[{3..5}].ep_size``): the matches
        of the items it names, folded."""
        if not self.injections or not pattern.startswith("injections["):
            return ""
        numbers = {int(m[1]) for word in expand(pattern) if (m := _ITEM.match(word))}
        return self._named(sorted(numbers))

    def _named(self, numbers: Iterable[int]) -> str:
        names = [self.injections[n] for n in numbers if n in self.injections]
        if not names:
            return ""
        return f"  (match: {fold(sorted(set(names), key=natural_key))})"


PLAIN = TextStyle()
"""The reports' defaults: values cut at their usual width, injections by number alone."""
