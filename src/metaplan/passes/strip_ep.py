"""Stage 1: strip the boundaries an inline expert-parallel strategy forward owns.

An EP strategy forward replaces its target class's ``forward`` and calls the
sub-modules directly, so the target itself and the sub-modules its spec names
(``strip_boundary_subpatterns``, e.g. ``experts.*``, ``shared_experts``) are
marked ``is_boundary: false`` and leave ``boundary_classes``. Their
``param_plan`` entries stay, so parameter sharding still applies.

Indexed, not all-pairs: exact-FQN patterns are lookups, glob patterns only
meet the FQNs of the spec's target class, and sub-modules are found by a
binary search over the sorted FQNs.

Unlike the seed, each spec's own strip patterns apply to that spec's own
targets (the seed applies the last non-empty spec's patterns to every
target); the two agree whenever one spec is in play.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from metaplan.changes import Change
from metaplan.frozen import mirror
from metaplan.passes._edits import unboundary
from metaplan.pipeline import ChangesPass
from metaplan.plan import Plan
from metaplan.rules import (
    BUILTIN_SPECS,
    InlineRule,
    SpecRegistry,
    StrategySpec,
    model_type_of,
    rules_from_plan,
)

__all__ = ["FROM_PLAN", "EPTarget", "StripEPSubBoundaries", "find_ep_targets",
           "strip_ep_sub_boundaries"]


class _FromPlan:
    __slots__ = ()

    def __repr__(self) -> str:
        return "FROM_PLAN"


FROM_PLAN: Any = _FromPlan()
"""Take the setting from the plan: its ``injections`` for rules, its ``model_type``."""

_GLOB_CHARS = re.compile(r"[*?\[]")


@functools.lru_cache(maxsize=4096)
def _matcher(pattern: str) -> Callable[[str], Any]:
    """``fnmatch`` semantics (case-sensitive, as on POSIX), compiled once."""
    return re.compile(fnmatch.translate(pattern)).match


@dataclass(frozen=True)
class EPTarget:
    """An EP target FQN, the patterns of the specs that matched it, and why."""

    fqn: str
    target_class: str
    strip_patterns: tuple[str, ...]
    why: str


def _resolve(rules: Iterable[InlineRule], specs: SpecRegistry,
             model_type: str | None) -> list[tuple[str, StrategySpec]]:
    """``(pattern, spec)`` for every rule pattern whose target resolves to a class."""
    out: list[tuple[str, StrategySpec]] = []
    for rule in rules:
        target = rule.local_compute_target
        if target is None:
            continue
        spec = specs.lookup(target, model_type)
        if spec is None or spec.target_class is None:
            continue
        out.extend((pattern, spec) for pattern in rule.match)
    return out


def find_ep_targets(classes: Mapping[str, Any], rules: Iterable[InlineRule],
                    specs: SpecRegistry, model_type: str | None) -> dict[str, EPTarget]:
    """FQN -> :class:`EPTarget` for every module a rule's spec claims."""
    found: dict[str, EPTarget] = {}

    def claim(fqn: str, pattern: str, spec: StrategySpec) -> None:
        known = found.get(fqn)
        if known is None:
            why = (f"EP target: rule {pattern!r} -> {spec.target} inlines class "
                   f"{spec.target_class}")
            found[fqn] = EPTarget(fqn, spec.target_class or "", spec.strip_boundary_subpatterns,
                                  why)
        else:
            extra = tuple(p for p in spec.strip_boundary_subpatterns
                          if p not in known.strip_patterns)
            if extra:
                found[fqn] = EPTarget(fqn, known.target_class, known.strip_patterns + extra,
                                      known.why)

    globs: dict[str, list[tuple[str, StrategySpec]]] = {}
    for pattern, spec in _resolve(rules, specs, model_type):
        assert spec.target_class is not None
        if _GLOB_CHARS.search(pattern):
            globs.setdefault(spec.target_class, []).append((pattern, spec))
        elif classes.get(pattern) == spec.target_class:
            claim(pattern, pattern, spec)
    if globs:
        by_class: dict[str, list[str]] = {}
        for fqn, cls in classes.items():
            if type(cls) is str and cls in globs:
                by_class.setdefault(cls, []).append(fqn)
        for cls, items in globs.items():
            fqns = sorted(by_class.get(cls, ()))
            for pattern, spec in items:
                match = _matcher(pattern)
                for fqn in fqns:
                    if match(fqn):
                        claim(fqn, pattern, spec)
    return found


def _sub_modules(fqns: list[str], target: EPTarget, marks: dict[str, str]) -> None:
    """Add each FQN under ``target`` whose suffix matches a strip pattern to ``marks``."""
    prefix = target.fqn + "."
    rules = [(_matcher(pattern), f"sub-module of EP target {target.fqn} ({target.target_class})"
              f" matching strip pattern {pattern!r}") for pattern in target.strip_patterns]
    start = len(prefix)
    for i in range(bisect_left(fqns, prefix), len(fqns)):
        fqn = fqns[i]
        if not fqn.startswith(prefix):
            break
        suffix = fqn[start:]
        for match, why in rules:
            if match(suffix):
                if fqn not in marks:
                    marks[fqn] = why
                break


@dataclass(frozen=True, repr=False)
class StripEPSubBoundaries(ChangesPass):
    """The seed's ``_strip_ep_sub_boundaries`` as a pure pass."""

    name: ClassVar[str] = "strip_ep_sub_boundaries"
    rules: tuple[InlineRule, ...] | None = None
    specs: SpecRegistry = BUILTIN_SPECS
    model_type: Any = FROM_PLAN

    def changes(self, plan: Plan) -> list[Change]:
        rules = rules_from_plan(plan) if self.rules is None else self.rules
        model_type = model_type_of(plan).value if self.model_type is FROM_PLAN else self.model_type
        classes = mirror(plan.boundary_classes)
        targets = find_ep_targets(classes, rules, self.specs, model_type)
        if not targets:
            return []
        marks = {fqn: target.why for fqn, target in targets.items()}
        if any(target.strip_patterns for target in targets.values()):
            fqns = sorted(mirror(plan.param_plan))
            for target in targets.values():
                _sub_modules(fqns, target, marks)
        return unboundary(plan, marks)

    def __repr__(self) -> str:
        rules = "from plan" if self.rules is None else f"{len(self.rules)} rules"
        return (f"strip_ep_sub_boundaries(rules=<{rules}>, specs={self.specs!r}, "
                f"model_type={self.model_type!r})")


def strip_ep_sub_boundaries(*, rules: Iterable[InlineRule] | None = None,
                            specs: SpecRegistry | None = None,
                            model_type: Any = FROM_PLAN) -> StripEPSubBoundaries:
    """Stage 1. ``rules=None`` reads the plan's injections; ``model_type``: the plan's."""
    return StripEPSubBoundaries(None if rules is None else tuple(rules),
                                BUILTIN_SPECS if specs is None else specs, model_type)
