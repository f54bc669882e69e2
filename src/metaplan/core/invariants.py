"""The invariants the code emitter checks, checked on a plan before it gets there.

Each check mirrors one that upstream hyper-parallel's codegen enforces when
it emits code from a plan (``emit/parallel.py``, ``plan/boundary_forms.py``,
``plan/freeze.py``, ``check/preflight.py``, ``meta.py``,
``inline/pipeline.py``), so a plan that passes :func:`verify` is not rejected
downstream for any of these reasons. :func:`verify` returns the violations
found (empty when the plan is sound); each :class:`Violation` names its
check, the JSON path it is about and what is wrong there. Some findings are
only :class:`Note` s (a negative shard dim, which two writers read
differently): :func:`verification` returns them beside the violations.

A verifier is any ``plan -> sequence of Violation``; pipelines run them
between passes (:func:`verifier` builds one with settings).

>>> from metaplan.core.plan import Plan
>>> plan = Plan.from_json({
...     "param_plan": {"a": {"is_boundary": True, "in_src": {"x": {"tp": "R"}}},
...                    "b": {"is_boundary": True, "in_src": {"x": {"tp": "S(0)"}}},
...                    "c": {"out_names": ["y"]}, "d": "junk"},
...     "boundary_classes": {"a": "MLP", "b": "MLP", "e": "MLP"}})
>>> for violation in verify(plan):  # doctest: +ELLIPSIS
...     print(violation)
entry-object: param_plan["d"]: expected an object, found a string ("junk") (the passes skip it)
boundary-class: param_plan["c"]: a boundary (no is_boundary; it has out_names) with no class ...
class-key: boundary_classes["e"]: no such module in param_plan
single-contract: boundary_classes["b"]: class MLP has 2 boundary contracts: ...
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from metaplan.core.emitter import (
    CONTRACT_KEYS,
    PLACEMENT_FIELDS,
    Placement,
    array,
    boundaries_by_class,
    class_of,
    injection_index,
    is_boundary_raw,
    object_entries,
    parsed,
    raw_entry,
)
from metaplan.core.emitter import shards as placement_shards
from metaplan.core.plan import Plan
from metaplan.core.rules import BUILTIN_SPECS, InlineRule, SpecRegistry, model_type_of
from metaplan.errors import describe
from metaplan.fields import ENTRY_TYPES, INJECTION_TYPES, expected
from metaplan.frozen import MISSING, JSONMap, canonical_bytes, is_array, is_object, paused_gc, shown
from metaplan.names import parse_names
from metaplan.paths import format_path
from metaplan.settings import FROM_PLAN, FromPlan, ModelTypeSetting, refuse_none
from metaplan.viewing import notebook_view

__all__ = [
    "CHECKS",
    "DEFAULT_CHECKS",
    "NORMAL_FORM_CHECKS",
    "NOTE_CHECKS",
    "Check",
    "Context",
    "Findings",
    "Note",
    "Runs",
    "Verification",
    "Verifier",
    "Violation",
    "boundary_classes_resolve",
    "boundary_readings",
    "class_keys_exist",
    "entry_objects",
    "external_state_stripped",
    "frozen_sharded_params",
    "injection_agreement",
    "non_empty",
    "parse_checks",
    "placements",
    "schema",
    "sharded_params",
    "shared_classes_marked",
    "single_contract",
    "spec_coverage",
    "verification",
    "verifier",
    "verify",
]

Verifier = Callable[[Plan], Iterable[Any]]
"""A check run between passes: ``plan -> violations`` (empty: the plan is sound)."""


class Violation(NamedTuple):
    """One broken invariant: which check, where (a JSON path), and what is wrong."""

    check: str
    path: tuple[Any, ...]
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {format_path(self.path)}: {self.message}"


class Note(NamedTuple):
    """Something a check found worth reading that breaks nothing (the exit status stays 0)."""

    check: str
    path: tuple[Any, ...]
    message: str

    def __str__(self) -> str:
        return f"note: {self.check}: {format_path(self.path)}: {self.message}"


class Verification(NamedTuple):
    """What :func:`verification` found: the violations, the notes, and the checks run."""

    violations: tuple[Violation, ...]
    notes: tuple[Note, ...]
    checks: tuple[str, ...]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The notebook view: folded text, HTML and JSON (:mod:`metaplan.viewing`)."""
        return notebook_view(self, include, exclude)


# reading entries -------------------------------------------------------------


def _entries(plan: Plan) -> Mapping[str, Any]:
    return plan.index("param_plan")


def _why_boundary(data: dict[str, Any]) -> str:
    """Why :func:`~metaplan.core.emitter.is_boundary_entry` holds for a raw entry, for a message."""
    flag = data.get("is_boundary")
    if flag is not None:
        return "" if flag is True else f" (is_boundary is {describe(flag)}, which is truthy)"
    keys = [key for key in CONTRACT_KEYS if data.get(key)]
    return f" (no is_boundary; it has {', '.join(keys)})"


# entry-object, boundary-class, class-key ---------------------------------------


def entry_objects(plan: Plan) -> list[Violation]:
    """Every ``param_plan`` entry is an object (the seed skips others silently)."""
    return sorted(Violation("entry-object", ("param_plan", fqn),
                            f"expected an object, found {describe(entry)} (the passes skip it)")
                  for fqn, entry in _entries(plan).items()
                  if type(entry) is not JSONMap and not isinstance(entry, Mapping))


def boundary_classes_resolve(plan: Plan) -> list[Violation]:
    """Every boundary (by :func:`is_boundary_entry`) has a class name in ``boundary_classes``.

    Upstream ``emit/parallel._group_boundaries_by_class`` fails on a boundary
    whose class it cannot resolve: its forward would never be rewritten,
    silently dropping its redistribution.
    """
    classes = plan.index("boundary_classes")
    found = []
    for fqn, data in object_entries(plan):
        if is_boundary_raw(data) and class_of(classes, fqn) is None:
            name = classes.get(fqn)
            what = ("no class in boundary_classes" if name is None
                    else f"a class that is {describe(name)}, not a class name")
            found.append(Violation("boundary-class", ("param_plan", fqn),
                                   f"a boundary{_why_boundary(data)} with {what}; add its "
                                   "class, or mark it is_boundary: false"))
    return sorted(found)


def class_keys_exist(plan: Plan) -> list[Violation]:
    """Every ``boundary_classes`` key is a module of ``param_plan``."""
    entries = _entries(plan)
    return [Violation("class-key", ("boundary_classes", fqn), "no such module in param_plan")
            for fqn in sorted(plan.index("boundary_classes")) if fqn not in entries]


# single-contract ---------------------------------------------------------------


def _contract(data: dict[str, Any]) -> bytes:
    """A raw entry without ``params``, as canonical JSON."""
    if "params" in data:
        data = dict(data)
        del data["params"]
    return canonical_bytes(data)


def single_contract(plan: Plan) -> list[Violation]:
    """All boundaries of one class have identical entries, ``params`` excepted.

    Source lowering rewrites the class's ``forward`` once, for every
    instance; two contracts under one class cannot both be honoured, whatever
    key differs (``in_src``, ``region_dispatch``, ``needs_cp_attn``,
    ``skip_source_lowering`` or a key added later). Each boundary whose entry
    differs from that of its class's first boundary (by FQN) is a violation.
    (Upstream ``emit/parallel._verify_class_contract``.)
    """
    entries = _entries(plan)
    found = []
    known: dict[int, bytes] = {}  # equal entries of a loaded plan are one object
    for name, group in boundaries_by_class(plan).items():
        if len(group) == 1:
            continue
        contracts: dict[bytes, list[str]] = {}
        for fqn, data in group:
            contract = known.get(id(data))
            if contract is None:
                contract = known[id(data)] = _contract(data)
            contracts.setdefault(contract, []).append(fqn)
        if len(contracts) == 1:
            continue
        first, *others = sorted(sorted(fqns) for fqns in contracts.values())
        for fqns in others:
            for fqn in fqns:
                found.append(Violation("single-contract", ("boundary_classes", fqn),
                                       _contract_difference(name, len(contracts), first[0],
                                                            entries[first[0]], fqn,
                                                            entries[fqn])))
    return sorted(found)


def _contract_difference(name: str, count: int, fqn_a: str, a: Any, fqn_b: str, b: Any) -> str:
    raw_a, raw_b = raw_entry(a), raw_entry(b)
    keys = sorted((set(raw_a) | set(raw_b)) - {"params"})
    key = next(key for key in keys
               if shown(raw_a.get(key, MISSING), 0) != shown(raw_b.get(key, MISSING), 0))
    return (f"class {name} has {count} boundary contracts: {fqn_a} has {key} "
            f"{shown(raw_a.get(key, MISSING), 0)}, {fqn_b} has {shown(raw_b.get(key, MISSING), 0)}"
            " (all boundaries of a class share one forward; only params may differ)")


# injection-agreement -----------------------------------------------------------


def injection_agreement(plan: Plan) -> list[Violation]:
    """Injections whose ``match`` resolves to one class agree on :data:`INJECTION_KEYS`.

    See :func:`~metaplan.core.emitter.injection_index` for how an injection finds
    its class; each injection that sets a key to another value than the
    class's first is a violation (upstream
    ``emit/parallel._index_injections_by_class``).
    """
    return [Violation("injection-agreement", ("injections", c.at, c.key),
                      f"class {c.class_name} has conflicting {c.key}: injections[{c.first}] "
                      f"(match {c.first_match}) has {c.first_value.decode('utf-8', 'replace')}, "
                      f"this one (match {c.match}) has {c.value.decode('utf-8', 'replace')}; "
                      "one class has one forward, so give its injections one value")
            for c in injection_index(plan)[1]]


# spec-coverage -----------------------------------------------------------------


def _target_of(value: Any) -> str | None:
    """A target written as a string or as an object's ``_target_`` / ``target``."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, Mapping):
        target = value.get("_target_") or value.get("target")
        return target if isinstance(target, str) and target else None
    return None


def _strategy_targets(plan: Plan, rules: Sequence[InlineRule] | FromPlan,
                      ) -> list[tuple[str, tuple[Any, ...]]]:
    """``(target, where)`` for every strategy target the rules name.

    From the plan (:data:`FROM_PLAN`): each injection's ``local_compute_fn`` and
    ``inner_wrapper``, as upstream ``inline/yaml_rules.collect_inline_rules``
    reads them; else each rule's ``local_compute_target`` and
    ``inner_wrapper_target`` (``where`` is then ``rules[i]...``).
    """
    found: list[tuple[str, tuple[Any, ...]]] = []
    if rules is FROM_PLAN:
        for i, injection in enumerate(array(plan.get("injections"))):
            if isinstance(injection, Mapping):
                for key in ("local_compute_fn", "inner_wrapper"):
                    target = _target_of(injection.get(key))
                    if target is not None:
                        found.append((target, ("injections", i, key)))
        return found
    for i, rule in enumerate(rules):
        for key in ("local_compute_target", "inner_wrapper_target"):
            target = getattr(rule, key)
            if target is not None:
                found.append((target, ("rules", i, key)))
    return found


def spec_coverage(plan: Plan, *, specs: SpecRegistry = BUILTIN_SPECS,
                  rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
                  model_type: ModelTypeSetting = FROM_PLAN) -> list[Violation]:
    """Every strategy target the rules name has a strategy spec; all gaps at once.

    Rules default to the plan's injections (:data:`FROM_PLAN`; ``()``: none),
    specs to the built-in registry, the model type to the plan's
    (:func:`~metaplan.core.rules.model_type_of`; ``None``: none). One violation
    per uncovered target, at the first place that names it. (Upstream
    ``inline/pipeline._require_inline_coverage``: "reporting all gaps at
    once keeps one fix cycle from hiding the next".)
    """
    refuse_none("spec_coverage", specs=specs, rules=rules)
    value: str | None
    if model_type is FROM_PLAN:
        value, source = model_type_of(plan)
        where = f" from the plan's {source}" if value is not None else ""
    else:
        value, where = model_type, ""
    canonical = specs.canonical_model_type(value)
    alias = f", read as {canonical!r}" if canonical != value else ""
    gaps: dict[str, list[tuple[Any, ...]]] = {}
    for target, path in _strategy_targets(plan, _settled(rules)):
        if specs.lookup(target, value) is None:
            gaps.setdefault(target, []).append(path)
    found = []
    for number, target in enumerate(sorted(gaps), 1):
        paths = gaps[target]
        also = (f"; also named at {', '.join(format_path(p) for p in paths[1:4])}"
                + (f" and {len(paths) - 4} more" if len(paths) > 4 else "")
                if len(paths) > 1 else "")
        found.append(Violation(
            "spec-coverage", paths[0],
            f"no strategy spec for {target} (model type {value!r}{where}{alias}; gap {number} "
            f"of {len(gaps)}){also}; add a spec for it (--specs), or fix the target"))
    return found


# non-empty, frozen-sharded-params ------------------------------------------------


def non_empty(plan: Plan) -> list[Violation]:
    """``param_plan`` has at least one entry (upstream ``check/preflight.verify_param_plan``).

    Generation always freezes a plan, and an all-replicate one still records
    every parameter: an empty ``param_plan`` means derivation failed.
    """
    if len(plan.param_plan):
        return []
    return [Violation("non-empty", ("param_plan",),
                      "no module entries: generation always freezes a plan (even an "
                      "all-replicate one lists every parameter), so derivation failed or was "
                      "skipped; regenerate the plan")]


def sharded_params(plan: Plan) -> list[str]:
    """``FQN.param`` of every param with a non-``R`` placement, sorted, each once.

    (Upstream ``plan/freeze.expand_frozen_sharded_params``, on the frozen plan.)
    """
    return sorted(_walk(plan).sharded)


def _some(items: Sequence[str], count: int = 3) -> str:
    shown = ", ".join(items[:count])
    return shown + (f" and {len(items) - count} more" if len(items) > count else "")


def frozen_sharded_params(plan: Plan, sharded: set[str] | None = None) -> list[Violation]:
    """``frozen_sharded_params``, when present, is exactly :func:`sharded_params`.

    ``sharded`` is that set, when the caller has it already.
    """
    if "frozen_sharded_params" not in plan:
        return []
    listed = plan["frozen_sharded_params"]
    path = ("frozen_sharded_params",)
    if not is_array(listed) or not all(isinstance(item, str) for item in listed):
        return [Violation("frozen-sharded-params", path,
                          f"must be an array of parameter FQNs, found {describe(listed)}")]
    wanted, have = _walk(plan).sharded if sharded is None else sharded, set(listed)
    if have == wanted and len(listed) == len(have) and all(
            a < b for a, b in itertools.pairwise(listed)):
        return []
    problems = []
    missing = sorted(wanted - have)
    if missing:
        problems.append(f"{len(missing)} sharded param(s) not listed ({_some(missing)})")
    extra = sorted(have - wanted)
    if extra:
        problems.append(f"{len(extra)} listed but with no S/SS/P placement ({_some(extra)})")
    if len(listed) != len(have):
        problems.append(f"{len(listed) - len(have)} listed twice")
    if not problems:
        problems.append("the right names, out of order")
    return [Violation("frozen-sharded-params", path,
                      "must list FQN.param of every param with a non-R placement, sorted: "
                      + "; ".join(problems))]


# placement ---------------------------------------------------------------------


def _mesh_axes(plan: Plan) -> tuple[frozenset[str] | None, list[Violation]]:
    """The axes placements may name (None: any), and a violation if the field is odd."""
    names = plan.get("mesh_dim_names")
    if names is None or (is_array(names) and not names):
        return None, []
    if is_array(names) and all(isinstance(name, str) for name in names):
        return frozenset(names), []
    return None, [Violation("placement", ("mesh_dim_names",),
                            f"must be an array of axis names, found {describe(names)}")]


_FORMS = "R, S(dim), P(reduce_op) or SS(dim,factor)"


class _Walk(NamedTuple):
    """One pass over every placement: the placement check's findings, and the sharded params."""

    violations: list[Violation]
    notes: list[Note]
    sharded: set[str]


class _Scan(NamedTuple):
    """What one entry holds, wherever it is: ``(kind, path under the entry, message)``
    findings, and the names of its params that shard."""

    findings: list[tuple[str, tuple[Any, ...], str]]
    sharded: list[str]


class _Judge:
    """Judges the placements of entries; remembers the ``(axis, placement)`` pairs known fine."""

    def __init__(self, axes: frozenset[str] | None) -> None:
        self.axes = axes
        self.fine: set[tuple[str, str]] = set()
        self.shard: set[tuple[str, str]] = set()  # fine pairs that shard (S, SS, P)

    def scan(self, data: dict[str, Any]) -> _Scan:
        """One entry's placement findings and sharded params (a subset test passes an
        ``{axis: placement}`` object whose pairs are all known fine: the fast path, in C)."""
        scan = _Scan([], [])
        for field in PLACEMENT_FIELDS:
            value = data.get(field)
            if value is None:
                continue
            if type(value) is not dict:
                scan.findings.append(("violation", (field,), "expected an object of name -> "
                                      f"{{axis: placement}}, found {describe(value)}"))
                continue
            for name, named in value.items():
                if type(named) is dict:
                    try:
                        known = named.items() <= self.fine
                    except TypeError:  # an unhashable value: the slow path says what it is
                        known = False
                    shards = (not self.shard.isdisjoint(named.items()) if known
                              else self._named((field, name), named, scan))
                    if shards and field == "params":
                        scan.sharded.append(name)
                elif named is not None:
                    scan.findings.append(("violation", (field, name), "expected an object of "
                                          'axis -> placement, e.g. {"tp": "S(0)"}, found '
                                          f"{describe(named)}"))
        return scan

    def _named(self, at: tuple[Any, ...], named: dict[str, Any], scan: _Scan) -> bool:
        """Judge each placement of one ``{axis: placement}``; whether any shards."""
        shards = False
        for axis, text in named.items():
            if type(text) is not str:
                if text is not None:
                    scan.findings.append(("violation", (*at, axis), "a placement is a string "
                                          f"({_FORMS}), found {describe(text)}"))
                continue
            if text != "R" and placement_shards(text):
                self.shard.add((axis, text))
                shards = True
            verdict = _judge(axis, text, self.axes)
            if verdict is None:
                self.fine.add((axis, text))
            else:  # a note too is made at each place, so it never joins the fine pairs
                scan.findings.append((verdict[0], (*at, axis), verdict[1]))
        return shards


def _walk(plan: Plan) -> _Walk:
    """Check every placement (see :func:`placements`) and collect :func:`sharded_params`.

    Equal entries of a loaded plan are one object (15,089 entries, 6 objects
    on DeepSeek-V3): each object is scanned once.
    """
    axes, found = _mesh_axes(plan)
    walk = _Walk(found, [], set())
    judge = _Judge(axes)
    scans: dict[int, _Scan] = {}  # id -> scan; every entry outlives the walk
    for fqn, data in object_entries(plan):
        scan = scans.get(id(data))
        if scan is None:
            scan = scans[id(data)] = judge.scan(data)
        for kind, under, message in scan.findings:
            path = ("param_plan", fqn, *under)
            if kind == "note":
                walk.notes.append(Note("placement", path, message))
            else:
                walk.violations.append(Violation("placement", path, message))
        if scan.sharded:
            walk.sharded.update([f"{fqn}.{name}" if name else fqn for name in scan.sharded])
    walk.violations.sort()
    walk.notes.sort()
    return walk


def _judge(axis: str, text: str, axes: frozenset[str] | None) -> tuple[str, str] | None:
    """``("violation" | "note", message)`` for one placement on one axis, or None."""
    found = parsed(text)
    if not isinstance(found, Placement):
        return "violation", f"{json.dumps(text)} does not parse: {found}; write {_FORMS}"
    if axes is not None and axis not in axes:
        return "violation", (f"axis {json.dumps(axis)} is not in mesh_dim_names "
                             f"[{', '.join(sorted(axes))}]: the runtime resolves placements "
                             "on those axes only, so this one would be silently ignored")
    if found.dim is not None and found.dim < 0:
        return "note", (f"{text} has a negative dim: an uneven shard of dim {-found.dim - 1} "
                        "to current writers (upstream placement_to_string), dim "
                        f"{found.dim} from the end to older ones; check which wrote this plan")
    return None


def placements(plan: Plan) -> list[Violation]:
    """Every placement parses (``R``, ``S(d)``, ``P(op)``, ``SS(d,f)``) and names an active axis.

    Placements are the ``{name: {axis: placement}}`` objects under
    :data:`PLACEMENT_FIELDS` of every entry; each string must parse as
    upstream ``plan/freeze.parse_placement`` parses it, and its axis must be
    in ``mesh_dim_names`` when the plan has them. Negative dims are notes
    (see :func:`verification`).
    """
    return _walk(plan).violations


# schema ------------------------------------------------------------------------


_STRING_FIELDS = ("codegen_version", "signature", "yaml_path", "yaml_sha256")
_OBJECT_FIELDS = ("source", "parallel_dims", "outputs")
_STRING_LISTS = ("not_covered", "remote_siblings", "external_state_classes")


def _schema_field(key: str, value: Any) -> list[Violation]:
    """The violations of one present top-level field (upstream ``meta.validate_meta_schema``)."""
    def bad(path: tuple[Any, ...], need: str, found: Any) -> Violation:
        return Violation("schema", path, f"must be {need}, found {describe(found)}")

    if key in _STRING_FIELDS:
        return [] if isinstance(value, str) else [bad((key,), "a string", value)]
    if key in _OBJECT_FIELDS:
        return [] if is_object(value) else [bad((key,), "an object", value)]
    if key == "entrypoints":
        if not is_object(value):
            return [bad((key,), "an object of name -> function name", value)]
        return [bad((key, name), "a string (a function name)", item)
                for name, item in sorted(value.items()) if not isinstance(item, str)]
    if key == "covered":
        if not is_object(value):
            return [bad((key,), "an object with a boolean sharding_plan", value)]
        flag = value.get("sharding_plan")
        return [] if isinstance(flag, bool) else [bad((key, "sharding_plan"), "a boolean",
                                                      flag)]
    if key in _STRING_LISTS or key == "module_overrides":
        need, ok = (("an object", is_object) if key == "module_overrides"
                    else ("a string", lambda item: isinstance(item, str)))
        if not is_array(value):
            return [bad((key,), f"an array (of items that are {need})", value)]
        return [bad((key, i), need, item) for i, item in enumerate(value) if not ok(item)]
    return []


def _entry_schema(fqn: str, data: Mapping[str, Any]) -> list[Violation]:
    """The keys of one entry whose values are not what upstream writes there."""
    return [Violation("schema", ("param_plan", fqn, key),
                      f"must be {need}, found {describe(data[key])}")
            for key in sorted(data) if (need := expected(key, data[key], ENTRY_TYPES))]


def _injection_schema(plan: Plan) -> list[Violation]:
    """The keys of each injection whose values are not what upstream writes there."""
    items = plan.get("injections")
    if items is None or not is_array(items):
        return []
    return [Violation("schema", ("injections", i, key),
                      f"must be {need}, found {describe(item[key])}")
            for i, item in enumerate(items) if is_object(item)
            for key in sorted(item) if (need := expected(key, item[key], INJECTION_TYPES))]


def schema(plan: Plan) -> list[Violation]:
    """The fields upstream's ``meta.validate_meta_schema`` types, where present, have those types.

    Strings: ``codegen_version``, ``signature``, ``yaml_path``,
    ``yaml_sha256``; objects: ``source``, ``parallel_dims``, ``outputs``;
    ``entrypoints`` an object of strings; ``covered`` an object with a
    boolean ``sharding_plan``; arrays of strings: ``not_covered``,
    ``remote_siblings``, ``external_state_classes``; ``module_overrides`` an
    array of objects. (A missing field is not reported: plans made by hand,
    or by tests, often lack the four required strings.) The keys of every
    entry and injection that upstream's field table lists have its types
    (:mod:`metaplan.fields`; other keys are allowed); equal entries are
    checked once.
    """
    found = [violation for key in sorted(plan) for violation in _schema_field(key, plan[key])]
    seen: dict[int, bool] = {}  # id -> clean; every entry outlives the check
    for fqn, data in object_entries(plan):
        if seen.get(id(data)) is not True:
            bad = _entry_schema(fqn, data)
            seen[id(data)] = not bad
            found += bad
    found += _injection_schema(plan)
    return sorted(found)


# boundary-reading ----------------------------------------------------------------


def boundary_readings(plan: Plan) -> list[Note]:
    """Entries without ``is_boundary`` that upstream's runtime and emitter read differently.

    The runtime rebuilds a missing ``is_boundary`` as true (plans from before
    the flag); the emitter derives it from the contract fields
    (:func:`~metaplan.core.emitter.is_boundary_raw`). An entry with no flag and
    no contract is a boundary to one and not to the other: a note (a
    violation with ``strict``), saying which way each reads it.
    """
    seen: dict[int, bool] = {}
    found = []
    for fqn, data in object_entries(plan):
        split = seen.get(id(data))
        if split is None:
            split = seen[id(data)] = "is_boundary" not in data and not is_boundary_raw(data)
        if split:
            found.append(Note("boundary-reading", ("param_plan", fqn), (
                "no is_boundary: upstream's runtime reads it as a boundary (true, the default "
                "for plans from before the flag), its emitter as not one (no contract field); "
                "write is_boundary explicitly")))
    return found


# external-state, shared-class (what normalize establishes) -----------------------


def external_state_stripped(plan: Plan) -> list[Violation]:
    """No module of an external-state class is in ``boundary_classes``.

    An inline strategy body replaces such a class's forward; a boundary
    wrapper for it would rewrite the very forward the inline patch
    installed (the seed's ``_strip_external_state_boundaries``).
    """
    external = set(plan.external_state_classes)
    return [Violation("external-state", ("boundary_classes", fqn),
                      f"class {cls} is an external-state class (an inline strategy body "
                      "replaces its forward), so it cannot be a boundary; strip it "
                      "(pass strip-external-state-boundaries)")
            for fqn, cls in sorted(plan.index("boundary_classes").items())
            if cls in external]


def shared_classes_marked(plan: Plan) -> list[Violation]:
    """A boundary whose class a non-boundary module shares has ``skip_source_lowering``.

    Source lowering rewrites ``class.forward``, which every instance
    inherits; a non-boundary instance (``is_boundary: false``) would inherit
    a boundary body it cannot run, and fail at train time (the seed's
    ``_mark_shared_class_boundaries``).
    """
    classes = plan.index("boundary_classes")
    example: dict[Any, str] = {}
    for fqn, data in object_entries(plan):
        cls = classes.get(fqn) if data.get("is_boundary") is False else None
        if cls is not None and (cls not in example or fqn < example[cls]):
            example[cls] = fqn
    found = [Violation("shared-class", ("param_plan", fqn),
                       f"a boundary of class {classes[fqn]}, which non-boundary "
                       f"{example[classes[fqn]]} shares, is not marked skip_source_lowering: "
                       "true; lowering its class's forward breaks that instance (pass "
                       "mark-shared-class-boundaries)")
             for fqn, data in object_entries(plan)
             if example and classes.get(fqn) in example and is_boundary_raw(data)
             and data.get("skip_source_lowering") is not True]
    return sorted(found)


# the registry -------------------------------------------------------------------


class Findings(NamedTuple):
    """What one check found in a plan: violations, and notes (which break nothing)."""

    violations: Sequence[Violation]
    notes: Sequence[Note] = ()


class Context:
    """What the checks of one verification share: the plan, the settings ``spec-coverage``
    reads, and one walk of every placement (made when a check first asks for it)."""

    def __init__(self, plan: Plan, *, specs: SpecRegistry = BUILTIN_SPECS,
                 rules: tuple[InlineRule, ...] | FromPlan = FROM_PLAN,
                 model_type: ModelTypeSetting = FROM_PLAN) -> None:
        self.plan, self.specs, self.rules, self.model_type = plan, specs, rules, model_type

    @functools.cached_property
    def walk(self) -> _Walk:
        return _walk(self.plan)


Runs = Literal["always", "with settings", "when asked"]
"""When :func:`verify` runs a check unless told which: ``always``; ``with settings``: when
the specs or rules given are not the defaults; ``when asked``: only when named."""


@dataclass(frozen=True)
class Check:
    """A check by name: what it finds in a :class:`Context`, and when it runs.

    Called on a plan it is a :data:`Verifier` (``plan -> violations``) with the
    default settings; a check whose findings are all notes (``notes_only``)
    reports them as its violations then, or it could never fail.
    """

    name: str
    find: Callable[[Context], Findings]
    runs: Runs = "always"
    notes_only: bool = False

    def __call__(self, plan: Plan) -> list[Violation]:
        found = self.find(Context(plan))
        if self.notes_only:
            return [Violation(*note) for note in found.notes]
        return list(found.violations)


def _of_plan(check: Callable[[Plan], list[Violation]]) -> Callable[[Context], Findings]:
    """A check that reads the plan alone."""
    return lambda context: Findings(check(context.plan))


def _find_spec_coverage(context: Context) -> Findings:
    return Findings(spec_coverage(context.plan, specs=context.specs, rules=context.rules,
                                  model_type=context.model_type))


def _find_frozen_sharded_params(context: Context) -> Findings:
    if "frozen_sharded_params" not in context.plan:  # nothing to compare: no walk needed
        return Findings([])
    return Findings(frozen_sharded_params(context.plan, context.walk.sharded))


def _find_placements(context: Context) -> Findings:
    return Findings(context.walk.violations, context.walk.notes)


def _find_boundary_readings(context: Context) -> Findings:
    return Findings([], boundary_readings(context.plan))


CHECKS: dict[str, Check] = {check.name: check for check in (
    Check("entry-object", _of_plan(entry_objects)),
    Check("boundary-class", _of_plan(boundary_classes_resolve)),
    Check("class-key", _of_plan(class_keys_exist)),
    Check("single-contract", _of_plan(single_contract)),
    Check("injection-agreement", _of_plan(injection_agreement)),
    Check("spec-coverage", _find_spec_coverage, runs="with settings"),
    Check("non-empty", _of_plan(non_empty)),
    Check("frozen-sharded-params", _find_frozen_sharded_params),
    Check("placement", _find_placements),
    Check("schema", _of_plan(schema)),
    Check("boundary-reading", _find_boundary_readings, notes_only=True),
    Check("external-state", _of_plan(external_state_stripped), runs="when asked"),
    Check("shared-class", _of_plan(shared_classes_marked), runs="when asked"),
)}
"""Every check by name, in the order they run; each is a :class:`Check` (a verifier when
called on a plan: ``spec-coverage`` then uses the built-in specs, the plan's rules and
model type)."""

NOTE_CHECKS = tuple(name for name, check in CHECKS.items() if check.notes_only)
"""Checks whose findings are notes (they break nothing) unless a verification is ``strict``;
called on its own as a verifier, such a check reports them as violations."""

NORMAL_FORM_CHECKS = tuple(name for name, check in CHECKS.items() if check.runs == "when asked")
"""What ``normalize`` establishes (contracts of its stages 2 and 3): a plan as frozen fails
them, so they run only when asked for."""

DEFAULT_CHECKS = tuple(name for name, check in CHECKS.items() if check.runs == "always")
"""What :func:`verify` runs unless told otherwise: ``spec-coverage`` only runs when the specs
are not :data:`~metaplan.core.rules.BUILTIN_SPECS` or the rules not :data:`FROM_PLAN`, or it is
asked for (the built-in registry knows two archetypes); the :data:`NORMAL_FORM_CHECKS` only
when asked for."""


def parse_checks(text: str | Sequence[str], *, where: str = "checks") -> tuple[str, ...]:
    """Check names from ``"a,b"`` or a list (spaces and snake case allowed), checked.

    >>> parse_checks(" class_key, single-contract,class-key")
    ('class-key', 'single-contract')
    """
    return parse_names(text, tuple(CHECKS), what="check", where=where, unique=True)


def _settled(rules: Iterable[InlineRule] | FromPlan) -> tuple[InlineRule, ...] | FromPlan:
    """The rules as a tuple (read once), or :data:`FROM_PLAN`."""
    return rules if isinstance(rules, FromPlan) else tuple(rules)


def _chosen(checks: str | Sequence[str] | None, specs: SpecRegistry,
            rules: tuple[InlineRule, ...] | FromPlan) -> tuple[str, ...]:
    """The checks to run: those named, else the defaults (with ``spec-coverage`` for settings
    of its own: passing the defaults is not passing them)."""
    if checks is not None:
        return parse_checks(checks)
    runs = ("always",) if specs is BUILTIN_SPECS and rules is FROM_PLAN else (
        "always", "with settings")
    return tuple(name for name, check in CHECKS.items() if check.runs in runs)


def verification(plan: Plan, checks: str | Sequence[str] | None = None, *,
                 specs: SpecRegistry = BUILTIN_SPECS,
                 rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
                 model_type: ModelTypeSetting = FROM_PLAN,
                 strict: bool = False) -> Verification:
    """The violations and notes of the named ``checks``, in check order.

    ``checks=None`` runs :data:`DEFAULT_CHECKS`, plus ``spec-coverage`` when
    ``specs`` is not :data:`~metaplan.core.rules.BUILTIN_SPECS` or ``rules`` is not
    :data:`FROM_PLAN` (so passing the defaults equals not passing them).
    ``spec-coverage`` looks the rules (default: the plan's injections; ``()``:
    none) up in ``specs`` (default: the built-in registry) under
    ``model_type`` (default: the plan's, see
    :func:`~metaplan.core.rules.model_type_of`; ``None``: none). ``None`` is no
    setting for ``rules`` or ``specs`` (a ``TypeError`` says what to pass).
    Notes (``placement``'s negative dims, ``boundary-reading``) break
    nothing, unless ``strict``: then each is a violation of its check.
    """
    refuse_none("verification", specs=specs, rules=rules)
    rule_list = _settled(rules)
    names = _chosen(checks, specs, rule_list)
    context = Context(plan, specs=specs, rules=rule_list, model_type=model_type)
    violations: list[Violation] = []
    notes: list[Note] = []
    with paused_gc():
        for name, check in CHECKS.items():
            if name in names:
                found = check.find(context)
                violations += found.violations
                if strict:
                    violations += [Violation(*note) for note in found.notes]
                else:
                    notes += found.notes
    return Verification(tuple(violations), tuple(sorted(notes)),
                        tuple(n for n in CHECKS if n in names))


def verify(plan: Plan, checks: str | Sequence[str] | None = None, *,
           specs: SpecRegistry = BUILTIN_SPECS,
           rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
           model_type: ModelTypeSetting = FROM_PLAN,
           strict: bool = False) -> tuple[Violation, ...]:
    """The violations of every default check (or of the named ``checks``), in check order.

    See :func:`verification`, which also returns the notes (violations when ``strict``).
    """
    refuse_none("verify", specs=specs, rules=rules)
    return verification(plan, checks, specs=specs, rules=rules, model_type=model_type,
                        strict=strict).violations


@dataclass(frozen=True)
class _Verify:
    checks: tuple[str, ...] | None
    specs: SpecRegistry
    rules: tuple[InlineRule, ...] | FromPlan
    model_type: ModelTypeSetting

    @property
    def __name__(self) -> str:
        return repr(self)

    def __call__(self, plan: Plan) -> tuple[Violation, ...]:
        return verify(plan, self.checks, specs=self.specs, rules=self.rules,
                      model_type=self.model_type)

    def __repr__(self) -> str:
        settings = [] if self.checks is None else [f"checks={self.checks!r}"]
        if self.specs is not BUILTIN_SPECS:
            settings.append(f"specs={self.specs!r}")
        if not isinstance(self.rules, FromPlan):
            settings.append(f"rules=<{len(self.rules)} rules>")
        if self.model_type is not FROM_PLAN:
            settings.append(f"model_type={self.model_type!r}")
        return f"verify({', '.join(settings)})"


def verifier(checks: str | Sequence[str] | None = None, *,
             specs: SpecRegistry = BUILTIN_SPECS,
             rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
             model_type: ModelTypeSetting = FROM_PLAN) -> Verifier:
    """:func:`verify` with these settings, as a verifier for ``pipeline.verified(...)``.

    Its repr shows the settings that are not the defaults:

    >>> verifier("class-key", model_type="qwen3_moe", specs=BUILTIN_SPECS)
    verify(checks=('class-key',), model_type='qwen3_moe')
    """
    refuse_none("verifier", specs=specs, rules=rules)
    return _Verify(None if checks is None else parse_checks(checks), specs, _settled(rules),
                   model_type)
