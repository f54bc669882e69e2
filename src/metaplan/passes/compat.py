"""An in-place drop-in for the seed's ``normalize_inline_meta``.

For callers that hold a mutable meta (an object with attributes, as the seed
expects, or a plain dict). The work is done by the pure passes; their
changes are then written back into the caller's containers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyrsistent import pmap

from metaplan.core.plan import Plan
from metaplan.core.rules import BUILTIN_SPECS, InlineRule, SpecRegistry
from metaplan.errors import InputError
from metaplan.frozen import JSONMap, freeze_owned
from metaplan.passes.normal_form import normalize_pipeline
from metaplan.records.change import Change

__all__ = ["normalize_inline_meta"]


def _read(meta: Any, name: str) -> Any:
    if isinstance(meta, Mapping):
        return meta.get(name)
    return getattr(meta, name, None)


def _as_rule(rule: Any) -> InlineRule:
    if isinstance(rule, InlineRule):
        return rule
    match = getattr(rule, "match", None)
    if isinstance(match, str):
        match = (match,)
    if match is None:
        raise InputError(f"rule {rule!r} has no match patterns")
    return InlineRule(match=tuple(match),
                      local_compute_target=getattr(rule, "local_compute_target", None))


def _plan_over(param_plan: dict[str, Any], classes: dict[str, Any], external: Any) -> Plan:
    """A plan viewing the caller's containers; never kept past this call.

    Any ``dict`` (subclasses too, as the seed's ``isinstance`` check has it)
    is an entry the passes may edit; class names and external-state classes
    are taken as they are (``str`` subclasses too).
    """
    entries = {fqn: JSONMap.over(entry) if isinstance(entry, dict) else freeze_owned(entry)
               for fqn, entry in param_plan.items()}
    fields = {"param_plan": pmap(entries), "boundary_classes": pmap(classes),
              "external_state_classes": freeze_owned(list(external))}
    return Plan(pmap(fields))


def _write_back(changes: Iterable[Change], param_plan: dict[str, Any],
                classes: dict[str, Any]) -> None:
    for change in changes:
        head, fqn = change.path[0], str(change.path[1])
        if head == "boundary_classes":
            classes.pop(fqn, None)
        else:
            param_plan[fqn][change.path[2]] = change.new


def normalize_inline_meta(meta: Any, rules: Iterable[Any], model_type: str | None = None, *,
                          specs: SpecRegistry = BUILTIN_SPECS) -> None:
    """Align ``meta`` in place with the inline-generated source shape, as the seed does.

    ``rules`` are :class:`~metaplan.core.rules.InlineRule` s or any objects with
    ``match`` and ``local_compute_target``; ``model_type`` is used as given
    (``None`` looks specs up with no model type, as the seed does). Records
    are kept but never hashed, so values JSON cannot hold (sets, say) pass
    through as the seed lets them.
    """
    param_plan = _read(meta, "param_plan") or {}
    classes = _read(meta, "boundary_classes") or {}
    external = _read(meta, "external_state_classes") or ()
    if not isinstance(param_plan, dict) or not isinstance(classes, dict):
        raise InputError("meta.param_plan and meta.boundary_classes must be dicts")
    plan = _plan_over(param_plan, classes, external)
    stages = normalize_pipeline(rules=[_as_rule(r) for r in rules], specs=specs,
                                model_type=model_type)
    trace = stages.run(plan)
    _write_back((change for record in trace.records for change in record.changes),
                param_plan, classes)
