"""The indexed floor: the seed's three stages, pure, on plain dicts, with the same records.

What the fastest straightforward implementation of normalize costs here:
indexed like metaplan (exact patterns looked up, globs only against their
class's FQNs, sub-modules by binary search over sorted FQNs), pure (the
input dicts are never written: each edited entry and map is a copy), and
building the very same :class:`metaplan.Change` records. No persistent
maps, no hashes, no checks. Benchmarks time metaplan against it.
"""

from __future__ import annotations

import fnmatch
import re
from bisect import bisect_left
from typing import Any

from metaplan import Change
from metaplan.core.rules import InlineRule, SpecRegistry

_new = tuple.__new__
_GONE: Any = object()


def floor_normalize(meta: dict[str, Any], rules: tuple[InlineRule, ...], specs: SpecRegistry,
                    model_type: str | None) -> tuple[dict[str, Any], list[list[Change]]]:
    """The normalized meta (a new dict; ``meta`` untouched) and each stage's changes."""
    classes0: dict[str, Any] = meta.get("boundary_classes") or {}
    plan: dict[str, Any] = meta.get("param_plan") or {}
    records = []
    marks = _ep_marks(plan, classes0, rules, specs, model_type)
    plan, classes, changes = _unboundary(plan, classes0, marks)
    records.append(changes)
    external = set(meta.get("external_state_classes") or ())
    marks = {fqn: f"class {cls} is an external-state class: an inline strategy body replaces "
                  "its forward" for fqn, cls in classes.items() if cls in external}
    plan, classes, changes = _unboundary(plan, classes, marks)
    records.append(changes)
    plan, changes = _mark_shared(plan, classes, classes0)
    records.append(changes)
    out = dict(meta)
    out["param_plan"], out["boundary_classes"] = plan, classes
    return out, records


def _ep_marks(plan: dict[str, Any], classes: dict[str, Any], rules: tuple[InlineRule, ...],
              specs: SpecRegistry, model_type: str | None) -> dict[str, str]:
    targets: dict[str, tuple[tuple[str, ...], str, str]] = {}
    by_class: dict[str, list[str]] = {}
    for fqn, cls in classes.items():
        by_class.setdefault(cls, []).append(fqn)
    for rule in rules:
        if rule.local_compute_target is None:
            continue
        spec = specs.lookup(rule.local_compute_target, model_type)
        if spec is None or spec.target_class is None:
            continue
        for pattern in rule.match:
            if any(c in pattern for c in "*?["):
                match = re.compile(fnmatch.translate(pattern)).match
                hits = [f for f in sorted(by_class.get(spec.target_class, ())) if match(f)]
            else:
                hits = [pattern] if classes.get(pattern) == spec.target_class else []
            for fqn in hits:
                if fqn not in targets:
                    targets[fqn] = (spec.strip_boundary_subpatterns, spec.target_class,
                                    f"EP target: rule {pattern!r} -> {spec.target} inlines "
                                    f"class {spec.target_class}")
    marks = {fqn: why for fqn, (_, _, why) in targets.items()}
    if not any(patterns for patterns, _, _ in targets.values()):
        return marks
    fqns = sorted(plan)
    for fqn, (patterns, cls, _) in targets.items():
        matchers = [(re.compile(fnmatch.translate(p)).match,
                     f"sub-module of EP target {fqn} ({cls}) matching strip pattern {p!r}")
                    for p in patterns]
        prefix = fqn + "."
        for i in range(bisect_left(fqns, prefix), len(fqns)):
            sub = fqns[i]
            if not sub.startswith(prefix):
                break
            for match, why in matchers:
                if match(sub[len(prefix):]):
                    marks.setdefault(sub, why)
                    break
    return marks


def _unboundary(plan: dict[str, Any], classes: dict[str, Any], marks: dict[str, str]
                ) -> tuple[dict[str, Any], dict[str, Any], list[Change]]:
    if not marks:
        return plan, classes, []
    plan, classes = dict(plan), dict(classes)
    changes: list[Change] = []
    order = sorted(marks)
    for fqn in order:
        entry = plan.get(fqn)
        if type(entry) is dict:
            old = entry.get("is_boundary", _GONE)
            if old is not False:
                path = ("param_plan", fqn, "is_boundary")
                if old is _GONE:
                    changes.append(_new(Change, ("add", path, None, False, marks[fqn])))
                else:
                    changes.append(_new(Change, ("set", path, old, False, marks[fqn])))
                entry = dict(entry)
                entry["is_boundary"] = False
                plan[fqn] = entry
    for fqn in order:
        cls = classes.pop(fqn, _GONE)
        if cls is not _GONE:
            changes.append(_new(Change, ("remove", ("boundary_classes", fqn), cls, None,
                                         marks[fqn])))
    return plan, classes, changes


def _mark_shared(plan: dict[str, Any], classes: dict[str, Any], before: dict[str, Any]
                 ) -> tuple[dict[str, Any], list[Change]]:
    example: dict[Any, list[str]] = {}
    for fqn, entry in plan.items():
        if type(entry) is dict and entry.get("is_boundary") is False:
            cls = before.get(fqn)
            if cls is not None:
                known = example.setdefault(cls, [])
                known.append(fqn)
    if not example:
        return plan, []
    for known in example.values():
        known.sort()
    plan = dict(plan)
    changes: list[Change] = []
    for fqn, cls in sorted((f, c) for f, c in classes.items() if c in example):
        entry = plan.get(fqn)
        if type(entry) is dict and entry.get("skip_source_lowering") is not True:
            other = next((f for f in example[cls][:2] if f != fqn), None)
            why = (f"class {cls} is shared with non-boundary {other}" if other else
                   f"class {cls} has non-boundary instances (this module is one), so its "
                   "forward is not lowered")
            old = entry.get("skip_source_lowering", _GONE)
            path = ("param_plan", fqn, "skip_source_lowering")
            changes.append(_new(Change, ("add", path, None, True, why) if old is _GONE
                                else ("set", path, old, True, why)))
            entry = dict(entry)
            entry["skip_source_lowering"] = True
            plan[fqn] = entry
    return plan, changes


def floor_diff(a: dict[str, Any], b: dict[str, Any]) -> list[Change]:
    """The changes that turn plain-dict ``a`` into ``b``, as metaplan's diff finds them.

    A straightforward recursive walk over objects in key order, ``True``
    told from ``1`` by comparing types; arrays are values.
    """
    out: list[Change] = []
    _diff_objects(a, b, (), out)
    return out


def _same(x: Any, y: Any) -> bool:
    if type(x) is not type(y):
        return False
    if type(x) is dict:
        return x.keys() == y.keys() and all(_same(v, y[k]) for k, v in x.items())
    if type(x) is list:
        return len(x) == len(y) and all(_same(v, w) for v, w in zip(x, y, strict=True))
    return bool(x == y)


def _diff_objects(x: dict[str, Any], y: dict[str, Any], path: tuple[str, ...],
                  out: list[Change]) -> None:
    for key in sorted(x.keys() | y.keys()):
        here = (*path, key)
        old, new = x.get(key, _GONE), y.get(key, _GONE)
        if new is _GONE:
            out.append(_new(Change, ("remove", here, old, None, "")))
        elif old is _GONE:
            out.append(_new(Change, ("add", here, None, new, "")))
        elif type(old) is dict and type(new) is dict:
            if not _same(old, new):
                _diff_objects(old, new, here, out)
        elif not _same(old, new):
            out.append(_new(Change, ("set", here, old, new, "")))
