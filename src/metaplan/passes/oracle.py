"""The seed algorithm, transcribed line for line: the reference metaplan is held to.

``reference_normalize`` mutates a plain-dict meta in place exactly as the
seed's ``normalize_inline_meta`` does (all-pairs ``fnmatch`` loops, one
``strip_patterns`` for every rule), reading fields as dict keys instead of
attributes. Tests compare every pass against it; benchmarks time it as the
baseline. It is deliberately not optimized.

``per_spec_patterns=True`` makes the one documented change metaplan makes:
each spec's strip patterns apply to the targets that spec claimed (the seed
applies the last non-empty spec's patterns to every target).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fnmatch import fnmatch
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the oracle runs on the stdlib alone, so a benchmark can time it bare
    from metaplan.core.rules import InlineRule, SpecRegistry, StrategySpec

__all__ = ["REFERENCE_STAGES", "reference_normalize", "reference_stage"]

REFERENCE_STAGES = ("strip_ep_sub_boundaries", "strip_external_state_boundaries",
                    "mark_shared_class_boundaries")
"""The seed's three stages, in order: the names :func:`reference_stage` takes."""


def reference_normalize(meta: dict[str, Any], rules: Iterable[InlineRule],
                        model_type: str | None = None, *,
                        specs: SpecRegistry | None = None,
                        per_spec_patterns: bool = False) -> None:
    """The seed's ``normalize_inline_meta`` on a dict ``meta``, in place.

    ``specs`` is anything with ``lookup(target, model_type)``; by default the
    built-in registry.
    """
    rules = tuple(rules)
    full_class_map = dict(meta.get("boundary_classes") or {})
    _strip_ep_sub_boundaries(meta, rules, model_type, _lookup(specs), per_spec_patterns)
    _strip_external_state_boundaries(meta)
    _mark_shared_class_boundaries(meta, full_class_map)


def reference_stage(name: str, meta: dict[str, Any], rules: Iterable[InlineRule] = (),
                    model_type: str | None = None, *, specs: SpecRegistry | None = None,
                    per_spec_patterns: bool = False) -> None:
    """One of the seed's stages (:data:`REFERENCE_STAGES`) run alone on a dict ``meta``, in place.

    Run alone, the shared-class stage reads ``meta``'s own class map (what
    the stage reads when a run starts with it); the other settings are
    :func:`reference_normalize`'s, read by the EP stage only.
    """
    if name == "strip_ep_sub_boundaries":
        _strip_ep_sub_boundaries(meta, tuple(rules), model_type, _lookup(specs),
                                 per_spec_patterns)
    elif name == "strip_external_state_boundaries":
        _strip_external_state_boundaries(meta)
    elif name == "mark_shared_class_boundaries":
        _mark_shared_class_boundaries(meta, dict(meta.get("boundary_classes") or {}))
    else:
        raise ValueError(f"reference_stage: unknown stage {name!r}; the stages are "
                         f"{', '.join(REFERENCE_STAGES)}")


def _lookup(specs: SpecRegistry | None) -> Callable[[str, str | None], StrategySpec | None]:
    """``specs.lookup``; by default the built-in registry's."""
    if specs is None:
        from metaplan.core.rules import BUILTIN_SPECS

        specs = BUILTIN_SPECS
    return specs.lookup


def _strip_external_state_boundaries(meta: dict[str, Any]) -> None:
    external_classes = set(meta.get("external_state_classes") or ())
    boundary_classes = meta.get("boundary_classes") or {}
    param_plan = meta.get("param_plan") or {}
    for fqn, class_name in list(boundary_classes.items()):
        if class_name not in external_classes:
            continue
        entry = param_plan.get(fqn)
        if isinstance(entry, dict):
            entry["is_boundary"] = False
        boundary_classes.pop(fqn)


def _strip_ep_sub_boundaries(
    meta: dict[str, Any], rules: tuple[InlineRule, ...], model_type: str | None,
    strategy_spec: Callable[[str, str | None], StrategySpec | None],
    per_spec_patterns: bool,
) -> None:
    param_plan = meta.get("param_plan") or {}
    boundary_classes = meta.get("boundary_classes") or {}
    ep_fqns: set[str] = set()
    strip_patterns: tuple[str, ...] = ()
    own_patterns: dict[str, list[str]] = {}  # per_spec_patterns: ep fqn -> its specs' patterns
    for rule in rules:
        target = rule.local_compute_target
        if target is None:
            continue
        spec = strategy_spec(target, model_type)
        if spec is None or spec.target_class is None:
            continue
        if spec.strip_boundary_subpatterns:
            strip_patterns = spec.strip_boundary_subpatterns
        for pattern in rule.match:
            for fqn, cls in boundary_classes.items():
                if fnmatch(fqn, pattern) and cls == spec.target_class:
                    ep_fqns.add(fqn)
                    own_patterns.setdefault(fqn, []).extend(spec.strip_boundary_subpatterns)
    if not ep_fqns:
        return
    mark_fqns: set[str] = set()
    for ep_fqn in ep_fqns:
        mark_fqns.add(ep_fqn)
        if per_spec_patterns:
            strip_patterns = tuple(own_patterns[ep_fqn])
        if not strip_patterns:
            continue
        sub_prefix = ep_fqn + "."
        for fqn in list(param_plan):
            if not fqn.startswith(sub_prefix):
                continue
            local_suffix = fqn[len(sub_prefix):]
            for pat in strip_patterns:
                if fnmatch(local_suffix, pat):
                    mark_fqns.add(fqn)
                    break
    for fqn in mark_fqns:
        entry = param_plan.get(fqn)
        if isinstance(entry, dict):
            entry["is_boundary"] = False
        boundary_classes.pop(fqn, None)


def _mark_shared_class_boundaries(meta: dict[str, Any], full_class_map: dict[str, str]) -> None:
    param_plan = meta.get("param_plan") or {}
    boundary_classes = meta.get("boundary_classes") or {}

    non_boundary_classes: set[str] = set()
    for fqn, entry in param_plan.items():
        if not isinstance(entry, dict):
            continue
        if entry.get("is_boundary") is False:
            cls = full_class_map.get(fqn)
            if cls is not None:
                non_boundary_classes.add(cls)

    if not non_boundary_classes:
        return

    for fqn, class_name in list(boundary_classes.items()):
        if class_name not in non_boundary_classes:
            continue
        entry = param_plan.get(fqn)
        if isinstance(entry, dict):
            entry["skip_source_lowering"] = True
