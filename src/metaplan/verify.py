"""The invariants the code emitter relies on, checked on a plan.

:func:`verify` runs every check and returns the violations found (empty
when the plan is sound). Each :class:`Violation` names its check, the JSON
path it is about and what is wrong there. A verifier is any
``plan -> sequence of Violation``; pipelines run them between passes.

>>> from metaplan.plan import Plan
>>> plan = Plan.from_json({
...     "param_plan": {"a": {"is_boundary": True, "in_src": {"x": {"tp": "R"}}},
...                    "b": {"is_boundary": True, "in_src": {"x": {"tp": "S(0)"}}},
...                    "c": {"is_boundary": True}, "d": "junk"},
...     "boundary_classes": {"a": "MLP", "b": "MLP", "e": "MLP"}})
>>> for violation in verify(plan):  # doctest: +ELLIPSIS
...     print(violation)
entry-object: param_plan["d"]: expected an object, found a string ("junk") (the passes skip it)
boundary-class: param_plan["c"]: a boundary with no class in boundary_classes
class-key: boundary_classes["e"]: no such module in param_plan
single-contract: boundary_classes["b"]: class MLP has 2 boundary contracts: ...
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from metaplan.errors import SpecError, describe, format_path
from metaplan.frozen import canonical_bytes, paused_gc
from metaplan.pipeline import Verifier
from metaplan.plan import Plan

__all__ = ["CHECKS", "CONTRACT_KEYS", "Violation", "parse_checks", "verify"]

CONTRACT_KEYS = ("in_src", "in_dst", "out_src", "out_dst", "out_names")
"""The boundary contract: what every boundary of one class must agree on (params excepted)."""


class Violation(NamedTuple):
    """One broken invariant: which check, where (a JSON path), and what is wrong."""

    check: str
    path: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {format_path(self.path)}: {self.message}"




def _entries(plan: Plan) -> Mapping[str, Any]:
    return plan.index("param_plan")


def _sorted(items: Mapping[str, Any]) -> list[tuple[str, Any]]:
    return [(key, items[key]) for key in sorted(items)]


def entry_objects(plan: Plan) -> list[Violation]:
    """Every ``param_plan`` entry is an object (the seed skips others silently)."""
    return [Violation("entry-object", ("param_plan", fqn),
                      f"expected an object, found {describe(entry)} (the passes skip it)")
            for fqn, entry in _sorted(_entries(plan)) if not hasattr(entry, "get")]


def boundary_classes_resolve(plan: Plan) -> list[Violation]:
    """Every boundary entry (``is_boundary: true``) has a class name in ``boundary_classes``."""
    classes = plan.index("boundary_classes")
    found = []
    for fqn, entry in _entries(plan).items():
        if hasattr(entry, "get") and entry.get("is_boundary") is True:
            name = classes.get(fqn)
            if not isinstance(name, str):
                what = ("no class in boundary_classes" if name is None
                        else f"a class that is {describe(name)}, not a name")
                found.append(Violation("boundary-class", ("param_plan", fqn),
                                       f"a boundary with {what}"))
    return sorted(found)


def class_keys_exist(plan: Plan) -> list[Violation]:
    """Every ``boundary_classes`` key is a module of ``param_plan``."""
    entries = _entries(plan)
    return [Violation("class-key", ("boundary_classes", fqn), "no such module in param_plan")
            for fqn in sorted(plan.index("boundary_classes")) if fqn not in entries]


def _contract(entry: Any) -> bytes:
    return canonical_bytes([entry.get(key) for key in CONTRACT_KEYS])


def single_contract(plan: Plan) -> list[Violation]:
    """All boundary modules of one class share one contract (``params`` may differ).

    Source lowering rewrites the class's ``forward`` once, for every instance;
    two contracts under one class cannot both be honoured. Each boundary
    whose contract differs from that of its class's first boundary (by FQN)
    is a violation.
    """
    entries = _entries(plan)
    by_class: dict[str, dict[bytes, list[str]]] = {}
    for fqn, name in _sorted(plan.index("boundary_classes")):
        entry: Any = entries.get(fqn)
        if isinstance(name, str) and hasattr(entry, "get") and entry.get("is_boundary") is True:
            by_class.setdefault(name, {}).setdefault(_contract(entry), []).append(fqn)
    found = []
    for name, contracts in by_class.items():
        if len(contracts) == 1:
            continue
        first, *others = sorted(contracts.values())
        for group in others:
            for fqn in group:
                found.append(Violation("single-contract", ("boundary_classes", fqn),
                                       _contract_difference(name, len(contracts), first[0],
                                                            entries[first[0]], fqn,
                                                            entries[fqn])))
    return sorted(found)


def _contract_difference(name: str, count: int, fqn_a: str, a: Any, fqn_b: str, b: Any) -> str:
    key = next(key for key in CONTRACT_KEYS
               if canonical_bytes(a.get(key)) != canonical_bytes(b.get(key)))
    shown = [canonical_bytes(entry.get(key)).decode("utf-8", "replace") for entry in (a, b)]
    return (f"class {name} has {count} boundary contracts: {fqn_a} has {key} {shown[0]}, "
            f"{fqn_b} has {shown[1]}")


CHECKS: dict[str, Verifier] = {
    "entry-object": entry_objects,
    "boundary-class": boundary_classes_resolve,
    "class-key": class_keys_exist,
    "single-contract": single_contract,
}
"""Every check :func:`verify` runs, by name, in the order it runs them."""


def parse_checks(text: str | Sequence[str], *, where: str = "checks") -> tuple[str, ...]:
    """Check names from ``"a,b"`` or a list (spaces and snake case allowed), checked.

    >>> parse_checks(" class_key, single-contract,class-key")
    ('class-key', 'single-contract')
    """
    words = text.split(",") if isinstance(text, str) else list(text)
    names: list[str] = []
    for word in words:
        name = str(word).strip().replace("_", "-")
        if name not in CHECKS:
            close = difflib.get_close_matches(name, list(CHECKS), n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise SpecError(f"{where}: unknown check {word.strip()!r}{hint}; known: "
                            f"{', '.join(CHECKS)}", source=where)
        if name not in names:
            names.append(name)
    return tuple(names)


def verify(plan: Plan, checks: str | Sequence[str] | None = None) -> tuple[Violation, ...]:
    """The violations of every check (or of the named ``checks``), in check order."""
    names = tuple(CHECKS) if checks is None else parse_checks(checks)
    with paused_gc():
        return tuple(violation for name in CHECKS if name in names
                     for violation in CHECKS[name](plan))
