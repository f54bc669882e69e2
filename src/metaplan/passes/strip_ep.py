"""Stage 1: strip the boundaries an inline expert-parallel strategy forward owns.

An EP strategy forward replaces its target class's ``forward`` and calls the
sub-modules directly, so the target itself and the sub-modules its spec names
(``strip_boundary_subpatterns``, e.g. ``experts.*``, ``shared_experts``) are
marked ``is_boundary: false`` and leave ``boundary_classes``. Their
``param_plan`` entries stay, so parameter sharding still applies.

Indexed, not all-pairs: exact-FQN patterns are lookups; a glob pattern only
meets the FQNs of its spec's target class that share its literal prefix or
suffix (found by binary search); sub-modules are found by a binary search
over the sorted FQNs.

Unlike the seed, each spec's own strip patterns apply to that spec's own
targets (the seed applies the last non-empty spec's patterns to every
target); the two agree whenever one spec is in play.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from metaplan.algorithms.patterns import glob_matcher
from metaplan.core.plan import Plan
from metaplan.core.rules import (
    BUILTIN_SPECS,
    InlineRule,
    SpecRegistry,
    StrategySpec,
    model_type_of,
    rules_from_plan,
)
from metaplan.passes._edits import unboundary
from metaplan.passes.makers import EditPass, keeping
from metaplan.passes.steps import Contract
from metaplan.records.edit import Edit
from metaplan.settings import FROM_PLAN, FromPlan, ModelTypeSetting, refuse_none

__all__ = ["EPTarget", "StripEPSubBoundaries", "find_ep_targets", "resolve_model_type",
           "strip_ep_sub_boundaries"]

_GLOB_START = re.compile(r"[*?\[]")
_GLOB_END = re.compile(r"[*?\[\]][^*?\[\]]*\Z")


def resolve_model_type(setting: ModelTypeSetting, plan: Plan) -> str | None:
    """The model type a setting names: the plan's own for :data:`FROM_PLAN`, read as
    upstream reads it (:func:`~metaplan.core.rules.model_type_of`)."""
    return model_type_of(plan).value if setting is FROM_PLAN else setting


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


class _Names:
    """Names sorted forwards and backwards: the ones with a literal prefix or suffix, fast."""

    def __init__(self, names: Iterable[str]) -> None:
        self.forward = sorted(names)
        self.backward = sorted(name[::-1] for name in self.forward)

    def candidates(self, pattern: str) -> Sequence[str]:
        """The names that could match ``pattern``: those with its literal prefix or suffix."""
        start = _GLOB_START.search(pattern)
        prefix = pattern[:start.start()] if start else pattern
        end = _GLOB_END.search(pattern)
        suffix = pattern[end.start() + 1:][::-1] if end else ""
        lo, hi = _span(self.forward, prefix)
        rlo, rhi = _span(self.backward, suffix)
        if hi - lo <= rhi - rlo:
            return self.forward[lo:hi]
        return [name[::-1] for name in self.backward[rlo:rhi]]


def _span(names: list[str], prefix: str) -> tuple[int, int]:
    """The slice of sorted ``names`` that start with ``prefix``."""
    lo = bisect_left(names, prefix)
    stem = prefix.rstrip("\U0010ffff")
    if not stem:
        return lo, len(names)
    return lo, bisect_left(names, stem[:-1] + chr(ord(stem[-1]) + 1), lo)


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
    seen: set[tuple[str, StrategySpec]] = set()
    for pattern, spec in _resolve(rules, specs, model_type):
        assert spec.target_class is not None
        if _GLOB_START.search(pattern):
            if (pattern, spec) not in seen:  # a repeat claims nothing new: match it once
                seen.add((pattern, spec))
                globs.setdefault(spec.target_class, []).append((pattern, spec))
        elif classes.get(pattern) == spec.target_class:
            claim(pattern, pattern, spec)
    if globs:
        by_class: dict[str, list[str]] = {}
        for fqn, cls in classes.items():
            if isinstance(cls, str) and cls in globs:  # str subclasses too, as the seed compares
                by_class.setdefault(cls, []).append(fqn)
        for cls, items in globs.items():
            names = _Names(by_class.get(cls, ()))
            for pattern, spec in items:
                match = glob_matcher(pattern)
                for fqn in sorted(names.candidates(pattern)):
                    if match(fqn):
                        claim(fqn, pattern, spec)
    return found


def _sub_modules(fqns: list[str], target: EPTarget, marks: dict[str, str],
                 matched: dict[tuple[str, ...], dict[str, int]]) -> None:
    """Add each FQN under ``target`` whose suffix matches a strip pattern to ``marks``.

    ``matched`` remembers, per tuple of patterns, which pattern each suffix
    matched first (-1: none): the 58 MoE layers of a plan share their
    patterns and their experts' suffixes, so each suffix is matched once.
    """
    prefix = target.fqn + "."
    patterns = tuple(target.strip_patterns)
    rules = [glob_matcher(pattern) for pattern in patterns]
    known = matched.setdefault(patterns, {})
    whys = [f"sub-module of EP target {target.fqn} ({target.target_class}) matching strip "
            f"pattern {pattern!r}" for pattern in patterns]
    start = len(prefix)
    for i in range(bisect_left(fqns, prefix), len(fqns)):
        fqn = fqns[i]
        if not fqn.startswith(prefix):
            break
        suffix = fqn[start:]
        which = known.get(suffix)
        if which is None:
            which = known[suffix] = next(
                (n for n, match in enumerate(rules) if match(suffix)), -1)
        if which >= 0 and fqn not in marks:
            marks[fqn] = whys[which]


@dataclass(frozen=True, repr=False)
class StripEPSubBoundaries(EditPass):
    """The seed's ``_strip_ep_sub_boundaries`` as a pure pass."""

    name: ClassVar[str] = "strip_ep_sub_boundaries"
    contract: ClassVar[Contract] = keeping(())
    rules: tuple[InlineRule, ...] | FromPlan = FROM_PLAN
    specs: SpecRegistry = BUILTIN_SPECS
    model_type: ModelTypeSetting = FROM_PLAN

    def edit(self, edit: Edit) -> None:
        plan = edit.plan
        rules = rules_from_plan(plan) if self.rules is FROM_PLAN else self.rules
        model_type = resolve_model_type(self.model_type, plan)
        targets = find_ep_targets(plan.index("boundary_classes"), rules, self.specs,
                                  model_type)
        if not targets:
            return
        marks = {fqn: target.why for fqn, target in targets.items()}
        if any(target.strip_patterns for target in targets.values()):
            fqns = sorted(plan.index("param_plan"))
            matched: dict[tuple[str, ...], dict[str, int]] = {}
            for target in targets.values():
                _sub_modules(fqns, target, marks, matched)
        unboundary(edit, marks)

    def __repr__(self) -> str:
        rules = "FROM_PLAN" if self.rules is FROM_PLAN else f"<{len(self.rules)} rules>"
        return (f"strip_ep_sub_boundaries(rules={rules}, specs={self.specs!r}, "
                f"model_type={self.model_type!r})")


def strip_ep_sub_boundaries(*, rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
                            specs: SpecRegistry = BUILTIN_SPECS,
                            model_type: ModelTypeSetting = FROM_PLAN) -> StripEPSubBoundaries:
    """Stage 1. By default the rules come from the plan's injections and the model type
    is the plan's (:data:`FROM_PLAN`); ``model_type=None`` means none."""
    refuse_none("strip_ep_sub_boundaries", specs=specs, rules=rules)
    return StripEPSubBoundaries(rules if isinstance(rules, FromPlan) else tuple(rules),
                                specs, model_type)
