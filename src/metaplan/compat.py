"""An in-place drop-in for the seed's ``normalize_inline_meta``.

For callers that hold a mutable meta (an object with attributes, as the seed
expects, or a plain dict). The work is done by the pure passes; their
changes are then written back into the caller's containers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyrsistent import pmap

from metaplan.changes import Change, apply_changes
from metaplan.errors import InputError
from metaplan.frozen import JSONMap, freeze_owned, pmap_of, pmap_with_mirror
from metaplan.normalize import normalize_pipeline
from metaplan.passes import FROM_PLAN
from metaplan.pipeline import ChangesPass
from metaplan.plan import Plan
from metaplan.rules import InlineRule, SpecRegistry

__all__ = ["normalize_inline_meta"]

_FIELDS = ("param_plan", "boundary_classes", "external_state_classes")


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
    is an entry the passes may edit.
    """
    entries = pmap_with_mirror({fqn: JSONMap._adopt(entry) if isinstance(entry, dict)
                                else freeze_owned(entry) for fqn, entry in param_plan.items()})
    fields = {"param_plan": entries, "boundary_classes": pmap_of(dict(classes)),
              "external_state_classes": freeze_owned(list(external))}
    return Plan(pmap(fields))


def _write_back(changes: Iterable[Change], param_plan: dict[str, Any],
                classes: dict[str, Any]) -> None:
    for change in changes:
        head, fqn = change.path[0], change.path[1]
        if head == "boundary_classes":
            classes.pop(fqn, None)
        else:
            param_plan[fqn][change.path[2]] = change.new


def normalize_inline_meta(meta: Any, rules: Iterable[Any], model_type: str | None = None, *,
                          specs: SpecRegistry | None = None) -> None:
    """Align ``meta`` in place with the inline-generated source shape, as the seed does.

    ``rules`` are :class:`~metaplan.rules.InlineRule` s or any objects with
    ``match`` and ``local_compute_target``; ``model_type`` is used as given
    (``None`` looks specs up with ``model_type=None``, as the seed does).
    """
    param_plan = _read(meta, "param_plan") or {}
    classes = _read(meta, "boundary_classes") or {}
    external = _read(meta, "external_state_classes") or ()
    if not isinstance(param_plan, dict) or not isinstance(classes, dict):
        raise InputError("meta.param_plan and meta.boundary_classes must be dicts")
    plan = _plan_over(param_plan, classes, external)
    stages = normalize_pipeline(plan, rules=[_as_rule(r) for r in rules], specs=specs,
                                model_type=FROM_PLAN if model_type is None else model_type)
    changes: list[Change] = []
    for stage in stages:  # no records, so no hashing: any Python value the seed takes works
        assert isinstance(stage, ChangesPass)
        step = list(stage.changes(plan))
        plan = apply_changes(plan, step)
        changes += step
    _write_back(changes, param_plan, classes)
