"""Plan: a frozen ``codegen_meta.json`` held as persistent maps.

The top level is a ``PMap`` of every field the file had, known or not.
``param_plan`` and ``boundary_classes`` are ``PMap`` s keyed by module FQN;
entries are :class:`~metaplan.frozen.JSONMap` s. Nothing in a plan can be
changed in place; every edit returns a new plan sharing all it did not touch.

>>> plan = Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
...                        "boundary_classes": {"m": "MLP"}, "extra": [1]})
>>> plan.param_plan["m"]["is_boundary"], plan["extra"][0], len(plan.boundary_classes)
(True, 1, 1)
>>> plan.set("extra", [1]) is plan
True
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pyrsistent import PMap, PVector, pmap, pvector

from metaplan.digest import DigestState, Touched, field_digests, plan_digest
from metaplan.errors import PlanError, describe
from metaplan.frozen import (
    freeze_owned,
    json_equal,
    paused_gc,
    pmap_of,
    to_raw,
)
from metaplan.inputs import source_name
from metaplan.jsonio import check_tree, dumps_pretty, parse_json, read_bytes, write_atomic
from metaplan.rules import check_plan_rules

__all__ = [
    "Plan",
    "check_entries",
    "check_value",
    "dump",
    "dumps",
    "freeze_field",
    "load",
    "loads",
]

_EMPTY: PMap[Any, Any] = pmap()
_MAP_FIELDS = ("param_plan", "boundary_classes")
_LIST_FIELDS = ("external_state_classes", "injections", "module_overrides")


class Plan(Mapping[str, Any]):
    """An immutable plan: a mapping of top-level field -> frozen value.

    Build one with :func:`load`, :func:`loads` or :meth:`Plan.from_json`.
    """

    __slots__ = ("_derived", "_digests", "_fields", "_hash")

    _fields: PMap[Any, Any]
    _hash: str | None
    _digests: DigestState | None
    _derived: tuple[DigestState, Touched] | None

    def __init__(self, fields: PMap[Any, Any] = _EMPTY) -> None:
        self._fields = fields
        self._hash = None
        self._digests = None
        self._derived = None

    @classmethod
    def _edited(cls, fields: PMap[Any, Any], parent: Plan, touched: Touched) -> Plan:
        """A plan over ``fields``: ``parent``'s, but for the ``touched`` keys per field.

        Its hash is then derived from the parent's in time proportional to
        the touched keys (when the parent's hash is known).
        """
        plan = cls(fields)
        if parent._digests is not None:
            plan._derived = (parent._digests, touched)
        return plan

    # construction -------------------------------------------------------

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], *, source: str | None = None) -> Plan:
        """A plan from JSON-shaped data; the data is copied, never referenced.

        The fields the passes read are checked as :func:`freeze_field` says;
        entries are kept as they are (``is_boundary: 1`` included, which
        :func:`loads` refuses in a file). An object without ``param_plan`` is
        an empty plan here (a file must have one); one that looks like a
        records, specs or rules file is refused, as :func:`loads` does.
        """
        if not isinstance(obj, Mapping):
            raise PlanError(f"a plan is a JSON object, found {describe(obj)}", source=source)
        try:
            raw = to_raw(obj)
        except (TypeError, ValueError, RecursionError) as exc:
            message = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
            raise PlanError(f"not JSON data: {message}", source=source) from exc
        check_tree(raw, source)
        return cls._from_raw(raw, source=source)

    @classmethod
    def _from_raw(cls, raw: Any, *, source: str | None = None) -> Plan:
        """A plan over raw data that no one else references (just parsed): no copy."""
        if not isinstance(raw, dict):
            raise PlanError(f"a plan is a JSON object, found {describe(raw)}", source=source)
        if "param_plan" not in raw:
            _refuse_other_files(raw, source)
        return cls(pmap({key: freeze_field(key, value, source) for key, value in raw.items()}))

    def _evolve(self, fields: PMap[Any, Any]) -> Plan:
        """This plan if ``fields`` is its own map, else a plan over ``fields``."""
        return self if fields is self._fields else Plan(fields)

    # the mapping --------------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._fields))

    def __len__(self) -> int:
        return len(self._fields)

    def __contains__(self, key: object) -> bool:
        return key in self._fields

    @property
    def fields(self) -> PMap[Any, Any]:
        """The top-level ``PMap`` of field -> frozen value."""
        return self._fields

    @property
    def param_plan(self) -> PMap[Any, Any]:
        """Module FQN -> entry (a ``JSONMap``, or whatever non-object the file held)."""
        return self._fields.get("param_plan") or _EMPTY

    @property
    def boundary_classes(self) -> PMap[Any, Any]:
        """Module FQN -> class name, for every planned module."""
        return self._fields.get("boundary_classes") or _EMPTY

    @property
    def external_state_classes(self) -> PVector[Any]:
        """Classes whose forward an inline strategy body replaces."""
        return self._fields.get("external_state_classes") or pvector()

    @property
    def model_type(self) -> str | None:
        """The plan's own ``model_type`` field, when it is a string."""
        value = self._fields.get("model_type")
        return value if isinstance(value, str) else None

    def set(self, key: str, value: Any) -> Plan:
        """A plan with top-level ``key`` bound to (a frozen copy of) ``value``."""
        old = self._fields.get(key, _ABSENT)
        if old is not _ABSENT and json_equal(old, value):
            return self
        return Plan(self._fields.set(key, freeze_field(key, to_raw(value), None)))

    def remove(self, key: str) -> Plan:
        """A plan without top-level ``key``; this plan if it has none."""
        return self._evolve(self._fields.discard(key))

    # identity -----------------------------------------------------------

    @property
    def content_hash(self) -> str:
        """``sha256:`` of the plan's content, stable across runs and key order.

        See :mod:`metaplan.digest`: plain fields are hashed as canonical JSON,
        FQN maps as a sum of per-key digests, so an edited plan's hash costs
        what the edit touched.
        """
        if self._hash is None:
            self._digests = field_digests(self._fields, self._derived)
            self._derived = None
            self._hash = plan_digest(self._digests)
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Plan):
            return self._fields is other._fields or self.content_hash == other.content_hash
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def __repr__(self) -> str:
        model = self._fields.get("model_type")
        return (f"Plan(model_type={model!r}, entries={len(self.param_plan)}, "
                f"hash={self.content_hash[:19]}…)")

    def to_json(self) -> dict[str, Any]:
        """A fresh, mutable deep copy as plain dicts and lists."""
        from metaplan.frozen import thaw

        return {key: thaw(value) for key, value in self._fields.items()}


_ABSENT: Any = object()

_OTHER_FILES = (
    ("records", "a records file", "replay it on its plan (metaplan replay PLAN REC) or invert "
                                  "it (metaplan invert REC)"),
    ("specs", "a specs file", "give it with --specs"),
    ("rules", "a rules file", "give it with --rules"),
    ("states", "a trace's trace.json", "its states are the NNN-*.json files beside it"),
)


def _refuse_other_files(raw: dict[str, Any], source: str | None) -> None:
    """Refuse an object without ``param_plan`` that is another of metaplan's files."""
    if str(raw.get("format", "")).startswith("metaplan.record"):
        key, what, use = _OTHER_FILES[0]
        found = f'"format": "{str(raw["format"])[:40]}"'
    else:
        key, what, use = next((item for item in _OTHER_FILES if item[0] in raw), ("", "", ""))
        found = f'"{key}" and no "param_plan"'
    if key:
        raise PlanError(f"not a plan: this is {what} (it has {found}); {use}", source=source)


def _require_param_plan(raw: dict[str, Any], source: str | None) -> None:
    """A plan file has a ``param_plan`` object: any other JSON object is not a plan."""
    if raw.get("param_plan") is not None:
        return
    if "param_plan" in raw:
        found = "found null"
    elif raw:
        keys = ", ".join(repr(key[:40]) for key in sorted(raw)[:6])
        found = f"found an object without it (keys: {keys}{', ...' if len(raw) > 6 else ''})"
    else:
        found = "found an empty object"
    raise PlanError(f"not a plan: a plan (codegen_meta.json) has a param_plan object of FQN -> "
                    f"entry; {found}", path=("param_plan",), source=source)


def freeze_field(key: str, value: Any, source: str | None = None) -> Any:
    """Freeze one owned raw top-level value, checking the shape the passes rely on.

    ``param_plan`` and ``boundary_classes`` are objects keyed by FQN, class
    names (``boundary_classes`` values, ``external_state_classes`` items)
    strings, ``injections`` and ``module_overrides`` arrays of rules (see
    :func:`~metaplan.rules.check_plan_rules`), ``model_type`` a string; each
    may be null. Any other field is kept as it is.
    """
    if value is None:
        return None
    if key in _MAP_FIELDS:
        if type(value) is not dict:
            raise PlanError(f"must be an object of FQN -> value, found {describe(value)}",
                            path=(key,), source=source)
        if key == "boundary_classes":
            _check_class_names(value.items(), key, source)
        return pmap_of(value)
    if key in _LIST_FIELDS:
        if type(value) is not list:
            raise PlanError(f"must be an array, found {describe(value)}", path=(key,),
                            source=source)
        if key == "external_state_classes":
            _check_class_names(enumerate(value), key, source)
        else:
            check_plan_rules(key, value, source)
    elif key == "model_type" and type(value) is not str:
        raise PlanError(f"must be a string (the model type specs are looked up by) or null, "
                        f"found {describe(value)}", path=(key,), source=source)
    return freeze_owned(value)


def _check_class_names(items: Any, key: str, source: str | None) -> None:
    """Class names are strings: anything else never matches a spec, or matches by accident."""
    for where, name in items:
        if type(name) is not str:
            raise PlanError(f"a class name is a string, found {describe(name)}"
                            + (" (drop the entry for a module without one)" if name is None
                               else ""), path=(key, where), source=source)


def check_entries(param_plan: Any, source: str | None = None) -> None:
    """In object entries, ``is_boundary`` (when present) is exactly ``true`` or ``false``.

    The seed reads an entry as non-boundary only when the flag ``is False``,
    so ``0``, ``"false"`` or ``null`` in a file would silently count as a
    boundary. Entries that are not objects are kept and skipped, as the seed
    does. (~2 ms on 15k entries.)
    """
    if type(param_plan) is not dict:
        return
    for fqn, entry in param_plan.items():
        if type(entry) is dict:
            flag = entry.get("is_boundary", False)
            if flag is not False and flag is not True:
                raise PlanError(f"must be true or false, found {describe(flag)}",
                                path=("param_plan", fqn, "is_boundary"), source=source)


def check_value(path: Sequence[Any], value: Any, source: str | None = None) -> None:
    """``value``, set at ``path``, has the shape a plan file must have there.

    Records read from a file are checked with it, so a replay cannot make a
    plan that loading would refuse (an ``is_boundary`` of ``1``, a class
    name that is a number).
    """
    if not path or not isinstance(path[0], str):
        return
    field, depth = path[0], len(path)
    if depth == 1:
        raw = to_raw(value)
        freeze_field(field, raw, source)
        if field == "param_plan":
            check_entries(raw, source)
    elif field == "param_plan" and depth == 2:
        check_entries({path[1]: to_raw(value)}, source)
    elif field == "param_plan" and depth == 3 and path[2] == "is_boundary":
        check_entries({path[1]: {"is_boundary": value}}, source)
    elif field == "boundary_classes" and depth == 2:
        _check_class_names([(path[1], value)], field, source)


def loads(data: bytes | str, *, source: str = "<input>") -> Plan:
    """Parse a plan from JSON text, checking every field the passes read.

    Raises :class:`~metaplan.errors.InputError` (a ``PlanError`` or
    ``SpecError`` naming ``source`` and the JSON path) for bad input.
    """
    with paused_gc():
        raw = parse_json(data, source=source)
        if type(raw) is dict:
            check_entries(raw.get("param_plan"), source)
        plan = Plan._from_raw(raw, source=source)
        _require_param_plan(raw, source)
        return plan


def load(path: str | os.PathLike[str]) -> Plan:
    """Read a plan from a ``codegen_meta.json`` (or ``.json.gz``) file; ``-`` is stdin."""
    return loads(read_bytes(path), source=source_name(path))


def dumps(plan: Plan) -> bytes:
    """The plan as ``json.dumps(obj, indent=2, sort_keys=True)`` would write it."""
    return dumps_pretty(plan.fields)


def dump(plan: Plan, path: str | os.PathLike[str]) -> None:
    """Write the plan to ``path`` (gzipped for ``.gz``), atomically."""
    write_atomic(path, dumps(plan))
