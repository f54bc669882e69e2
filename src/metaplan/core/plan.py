"""Plan: a frozen ``codegen_meta.json`` held as persistent maps.

The top level is a ``PMap`` of every field the file had, known or not.
``param_plan`` and ``boundary_classes`` are ``PMap`` s keyed by module FQN
(the FQN maps); entries are :class:`~metaplan.frozen.JSONMap` s. Nothing in a
plan can be changed in place; every edit (:class:`metaplan.records.edit.Edit`)
returns a new plan sharing all it did not touch.

A ``PMap`` read is pure Python (about 0.8 µs here), so each plan also owns a
*read index* per FQN map: a plain dict with the same items, read through
:meth:`Plan.index` at C speed. It is built on first use, or, for a plan made
by an edit, copied from its parent's index and patched with the edit. It
belongs to the plan: no global table, nothing shared between plans.

>>> plan = Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
...                        "boundary_classes": {"m": "MLP"}, "extra": [1]})
>>> plan.index("param_plan")["m"]["is_boundary"], plan["extra"][0]
(True, 1)
>>> plan.set("extra", [1]) is plan
True
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from pyrsistent import PMap, PVector, pmap, pvector

from metaplan.core.digest import DigestState, Touched, derive, digest_all, hexdigest
from metaplan.core.rules import model_type_of
from metaplan.core.shape import check_entries, check_field, refuse_other_files, require_param_plan
from metaplan.errors import PlanError, as_path, describe
from metaplan.files.inputs import source_name
from metaplan.files.jsonio import check_tree, decode_text, dumps_pretty, read_bytes, write_atomic
from metaplan.files.packing import pack, unpack
from metaplan.files.side_by_side import read_side_by_side
from metaplan.files.streaming import parse_plan_text
from metaplan.frozen import (
    MISSING,
    freeze_owned,
    interned,
    json_equal,
    paused_gc,
    step,
    thaw,
    to_raw,
    walk,
    writable,
)
from metaplan.paths import FQN_MAPS
from metaplan.viewing import notebook_view

__all__ = ["FQN_MAPS", "Index", "PatchedIndex", "Plan", "dump", "dumps", "frozen_field", "load",
           "load_all", "loads", "plan_from_file_data"]

"""The fields keyed by module FQN, held as ``PMap`` s with a read index each."""

_EMPTY: PMap[Any, Any] = pmap()
_NO_ITEMS: Mapping[str, Any] = MappingProxyType({})


def frozen_field(name: str, raw: Any) -> Any:
    """Freeze one owned raw top-level value: an FQN map object becomes a ``PMap``.

    Equal entries of an FQN map are shared as one object (see
    :func:`~metaplan.frozen.interned`). No shape is checked here; see
    :mod:`metaplan.core.shape` for what a plan file must hold.
    """
    if name in FQN_MAPS and type(raw) is dict:
        return pmap(interned(raw))
    return freeze_owned(raw)


class PatchedIndex:
    """An FQN map's index as a base index and a patch over it (``MISSING``: removed).

    A plan's index not yet built, and, in a subclass, the edit engine's
    working copy of a map: the one overlay type.
    """

    __slots__ = ("base", "items", "patch")

    def __init__(self, base: dict[str, Any], patch: dict[str, Any] | None = None) -> None:
        self.base = base
        self.patch: dict[str, Any] = {} if patch is None else patch
        self.items: dict[str, Any] | None = None

    def get(self, key: Any) -> Any:
        """The value at ``key`` with the patch applied (``MISSING``: none)."""
        value = self.patch.get(key, _UNPATCHED)
        return self.base.get(key, MISSING) if value is _UNPATCHED else value

    def overlaid(self) -> dict[str, Any]:
        """A new index: the base with the patch applied, as the patch is now."""
        items = self.base.copy()
        for key, value in self.patch.items():
            if value is MISSING:
                items.pop(key, None)  # a key added, then removed, by one edit is in no base
            else:
                items[key] = value
        return items

    def build(self) -> dict[str, Any]:
        """:meth:`overlaid`, made once (the patch of a plan's index never changes)."""
        if self.items is None:
            self.items = self.overlaid()
        return self.items


_UNPATCHED: Any = object()

Index = dict[str, Any] | PatchedIndex
"""An FQN map's read index, or how to build it."""

_REBUILD_FRACTION = 8  # past 1/8 of a map changed, rebuilding beats an evolver


def _evolved(current: PMap[Any, Any], patch: Mapping[str, Any]) -> PMap[Any, Any]:
    evolver = current.evolver()
    for key, value in patch.items():
        if value is MISSING:
            if key in current:
                evolver.remove(key)
        else:
            evolver.set(key, value)
    return evolver.persistent()


class Plan(Mapping[str, Any]):
    """An immutable plan: a mapping of top-level field -> frozen value.

    Build one with :func:`load`, :func:`loads` or :meth:`Plan.from_json`;
    ``Plan(fields)`` wraps a ``PMap`` of frozen values (FQN maps as ``PMap`` s)
    as it is. Each FQN map is held as its read index; its ``PMap`` is built
    when first asked for (``plan.param_plan``, ``plan.fields``), or evolved
    from the parent's by an edit that changed a few keys of it.
    """

    __slots__ = ("__weakref__", "_digest", "_fields", "_hash", "_indexes", "_parent",
                 "_plain", "_pmaps")

    _plain: PMap[Any, Any]
    _indexes: dict[str, Index]
    _pmaps: dict[str, PMap[Any, Any]]
    _fields: PMap[Any, Any] | None
    _digest: DigestState | None
    _hash: str | None
    _parent: tuple[weakref.ref[Plan], Touched] | None

    def __init__(self, fields: PMap[Any, Any] = _EMPTY) -> None:
        pmaps = {name: fields[name] for name in FQN_MAPS if isinstance(fields.get(name), PMap)}
        indexes: dict[str, Index] = {
            name: interned(to_raw(fields[name])) for name in FQN_MAPS
            if name not in pmaps and isinstance(fields.get(name), Mapping)}  # e.g. freeze()'s
        plain = fields
        for name in (*pmaps, *indexes):
            plain = plain.remove(name)
        self._setup(plain, indexes, pmaps)
        self._fields = fields if not indexes else None

    def _setup(self, plain: PMap[Any, Any], indexes: dict[str, Index],
               pmaps: dict[str, PMap[Any, Any]]) -> None:
        self._plain = plain
        self._indexes = indexes
        self._pmaps = pmaps
        self._fields = None
        self._digest = None
        self._hash = None
        self._parent = None

    @classmethod
    def _made(cls, plain: PMap[Any, Any], indexes: dict[str, Index],
              pmaps: dict[str, PMap[Any, Any]] | None = None) -> Plan:
        """A plan over ``plain`` fields and FQN maps held as ``indexes`` (and built ``pmaps``)."""
        plan = cls.__new__(cls)
        plan._setup(plain, indexes, pmaps or {})
        return plan

    @classmethod
    def derived(cls, parent: Plan, plain: PMap[Any, Any], indexes: dict[str, Index],
                pmaps: dict[str, PMap[Any, Any]], touched: Touched) -> Plan:
        """A plan made from ``parent`` by an edit (the constructor
        :mod:`metaplan.records.edit` uses).

        ``plain`` are its top-level fields but the FQN maps, which ``indexes``
        hold (a dict, or a parent's index and a patch to build it from when
        first read), with the ``PMap`` s the edit already has. ``touched``
        says which fields changed (for an FQN map, which keys); the plan's
        hash is derived from the parent's, when that is known by then, in
        time proportional to the edit.
        """
        plan = cls._made(plain, indexes, pmaps)
        plan._parent = (weakref.ref(parent), touched)
        return plan

    def successor(self, plain: Mapping[str, Any], whole: Mapping[str, dict[str, Any]],
                  patched: Mapping[str, dict[str, Any]]) -> Plan:
        """The plan an edit of this one makes, as pyrsistent's ``evolver.persistent()``.

        ``plain`` holds the new frozen top-level values (``MISSING``: the field
        is gone), ``whole`` the FQN maps given new items (dicts nothing else
        holds), ``patched`` the FQN maps changed by a patch over this plan's
        index (``MISSING``: a key removed). This plan is unchanged: the new
        one shares what was not edited, and its hash is derived from this
        one's in time proportional to the edit.
        """
        fields = self._plain.evolver()
        indexes = dict(self._indexes)
        pmaps = dict(self._pmaps)
        touched: dict[str, Iterable[str] | None] = {}
        for field in (*plain, *whole, *patched):
            indexes.pop(field, None)
            if field in self._plain:
                fields.remove(field)
        for field, value in plain.items():
            pmaps.pop(field, None)
            touched[field] = None
            if value is not MISSING:
                fields.set(field, value)
        for field, items in whole.items():
            pmaps.pop(field, None)
            indexes[field] = items
            touched[field] = None
        for field, patch in patched.items():
            parent_pmap = pmaps.pop(field, None)
            base = self._items(field)
            touched[field] = patch.keys()
            if len(patch) * _REBUILD_FRACTION >= len(base):
                indexes[field] = PatchedIndex(base, patch).build()
                continue
            indexes[field] = PatchedIndex(base, patch)
            if parent_pmap is not None:
                pmaps[field] = _evolved(parent_pmap, patch)
        return Plan.derived(self, fields.persistent(), indexes, pmaps, touched)

    def raw_index(self, field: str) -> dict[str, Any]:
        """An FQN map's read index itself, not a view: for the edit engine
        (:mod:`metaplan.records.edit`), which reads it and never changes it."""
        return self._items(field)

    def plain_value(self, field: str) -> Any:
        """A top-level field held as it is (not as an FQN map's index), or ``MISSING``."""
        return self._plain.get(field, MISSING)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], *, source: str | None = None) -> Plan:
        """A plan from JSON-shaped data; the data is copied, never referenced.

        The fields the passes read are checked as :mod:`metaplan.core.shape`
        says (a :class:`~metaplan.errors.PlanError` names the path); entries
        are kept as they are (``is_boundary: 1`` included, which
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
        if type(raw) is not dict:
            raise PlanError(f"a plan is a JSON object, found {describe(raw)}", source=source)
        refuse_other_files(raw, source)
        plain: dict[str, Any] = {}
        indexes: dict[str, Index] = {}
        for key, value in raw.items():
            check_field(key, value, source)
            if key in FQN_MAPS and type(value) is dict:
                indexes[key] = interned(value)
            else:
                plain[key] = freeze_owned(value)
        return cls._made(pmap(plain), indexes)

    # the mapping --------------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        if key in self._indexes or key in self._pmaps:
            return self._pmap(key)
        return self._plain[key]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted([*self._plain, *self.map_fields]))

    def __len__(self) -> int:
        return len(self._plain) + len(self.map_fields)

    def __contains__(self, key: object) -> bool:
        return key in self._plain or key in self._indexes or key in self._pmaps

    @property
    def map_fields(self) -> tuple[str, ...]:
        """The FQN maps this plan holds as objects (of ``param_plan``, ``boundary_classes``)."""
        return tuple(name for name in FQN_MAPS if name in self._indexes or name in self._pmaps)

    @property
    def fields(self) -> PMap[Any, Any]:
        """The top-level ``PMap`` of field -> frozen value (FQN maps as ``PMap`` s)."""
        if self._fields is None:
            self._fields = self._plain.update({name: self._pmap(name)
                                               for name in self.map_fields})
        return self._fields

    @property
    def param_plan(self) -> PMap[Any, Any]:
        """Module FQN -> entry (a ``JSONMap``, or whatever non-object the file held)."""
        return self._pmap("param_plan") if "param_plan" in self.map_fields else _EMPTY

    @property
    def boundary_classes(self) -> PMap[Any, Any]:
        """Module FQN -> class name, for every planned module."""
        return (self._pmap("boundary_classes") if "boundary_classes" in self.map_fields
                else _EMPTY)

    @property
    def external_state_classes(self) -> PVector[Any]:
        """Classes whose forward an inline strategy body replaces."""
        value = self._plain.get("external_state_classes")
        return value if isinstance(value, PVector) else pvector()

    @property
    def model_type(self) -> str | None:
        """The plan's model type as upstream's emitter reads it: ``model_type_of(plan).value``.

        Its ``model_type``, else ``model_class``, else ``source.architecture``
        (see :func:`~metaplan.core.rules.model_type_of`, which also says which).

        >>> Plan.from_json({"model_class": "DeepseekV3ForCausalLM"}).model_type
        'DeepseekV3ForCausalLM'
        """
        return model_type_of(self).value

    def index(self, field: str) -> Mapping[str, Any]:
        """The FQN map ``field`` as a read-only dict view: C-speed lookups and iteration.

        Passes read plans through it (``plan.index("param_plan").get(fqn)``);
        it holds the same items as the ``PMap``. A field that is absent (or
        null) reads as empty.
        """
        return MappingProxyType(self._items(field))

    def _items(self, field: str) -> dict[str, Any]:
        known = self._indexes.get(field)
        if type(known) is dict:
            return known
        if known is not None:
            assert isinstance(known, PatchedIndex)
            items = known.build()
        elif field in self._pmaps:
            items = dict(self._pmaps[field].items())
        elif field in FQN_MAPS:
            return {}
        else:
            raise KeyError(f"{field!r} is not an FQN map; index() reads "
                           f"{' and '.join(FQN_MAPS)}")
        self._indexes[field] = items
        return items

    def _pmap(self, field: str) -> PMap[Any, Any]:
        built = self._pmaps.get(field)
        if built is None:
            built = self._pmaps[field] = pmap(self._items(field))
        return built

    def at(self, path: str | Sequence[Any], default: Any = MISSING) -> Any:
        """The value at ``path`` (a field, then object keys and array item numbers), or
        ``default`` when there is none.

        Each step is read by :func:`~metaplan.frozen.step` (an item number may be
        a digit string); a string path is the command's ``field/FQN/key`` or a
        JSON Pointer (:func:`~metaplan.errors.parse_path`), so
        ``plan.at("injections/0/match") == plan.at(("injections", 0, "match"))``.

        >>> Plan.from_json({"param_plan": {"m": {"p": [1, 2]}}}).at(("param_plan", "m", "p", 1))
        2
        """
        path = as_path(path)
        if not path:
            return default
        field = path[0]
        if type(field) is str and (field in self._indexes or field in self._pmaps):
            if len(path) == 1:
                return self._pmap(field)
            value = walk(step(self._items(field), path[1]), path[2:])
        else:
            value = walk(self._plain, path)
        return default if value is MISSING else value

    def set(self, key: str, value: Any) -> Plan:
        """A plan with top-level ``key`` bound to (a frozen copy of) ``value``.

        ``key`` is a field name: a value inside the plan is set by
        :func:`metaplan.records.edit.set_in` (a ``TypeError`` here says so).
        """
        _field_name(key, "set", "set_in(plan, path, value)")
        if key in self and json_equal(self[key], value):
            return self
        raw = to_raw(value)
        check_field(key, raw)
        plain, indexes = self._plain, self._kept_maps(key)
        pmaps = {name: built for name, built in self._pmaps.items() if name != key}
        if key in FQN_MAPS and type(raw) is dict:
            indexes[key] = interned(raw)
            plain = plain.discard(key)
        else:
            plain = plain.set(key, freeze_owned(raw))
        return Plan._made(plain, indexes, pmaps)

    def remove(self, key: str) -> Plan:
        """A plan without top-level ``key``; this plan if it has none.

        ``key`` is a field name: a value inside the plan is removed by
        :func:`metaplan.records.edit.remove_in` (a ``TypeError`` here says so).
        """
        _field_name(key, "remove", "remove_in(plan, path)")
        if key not in self:
            return self
        pmaps = {name: built for name, built in self._pmaps.items() if name != key}
        return Plan._made(self._plain.discard(key), self._kept_maps(key), pmaps)

    def _kept_maps(self, dropped: str) -> dict[str, Index]:
        """The read indexes of every FQN map but ``dropped`` (built from PMaps if need be)."""
        return {name: self._indexes.get(name) or self._items(name)
                for name in self.map_fields if name != dropped}

    # identity -----------------------------------------------------------

    @property
    def content_hash(self) -> str:
        """``sha256:`` of the plan's content, stable across runs, machines and key order.

        Computed when first read (see :mod:`metaplan.core.digest`); for a plan
        made by an edit of a plan whose hash is known, in time proportional
        to the edit.
        """
        if self._hash is None:
            state = None
            maps = self.map_fields
            if self._parent is not None:
                parent = self._parent[0]()
                if parent is not None and parent._digest is not None:
                    state = derive(parent._digest, self._plain, maps, self._items,
                                   self._parent[1])
            if state is None:
                state = digest_all(self._plain, maps, self._items)
            self._digest, self._parent = state, None
            self._hash = hexdigest(state)
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Plan):
            return self.content_hash == other.content_hash
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def __repr__(self) -> str:
        model = self._plain.get("model_type")
        return (f"Plan(model_type={model!r}, entries={len(self._items('param_plan'))}, "
                f"hash={self.content_hash[:19]}…)")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The notebook view: folded text, HTML and JSON (:mod:`metaplan.viewing`)."""
        return notebook_view(self, include, exclude)

    def to_json(self) -> dict[str, Any]:
        """A fresh, mutable deep copy as plain dicts and lists."""
        out = {key: thaw(value) for key, value in self._plain.items()}
        out.update({name: thaw(self._items(name)) for name in self.map_fields})
        return out

    def _writable(self) -> dict[str, Any]:
        """The top level with each FQN map as its read index: what the writers serialize."""
        out = dict(self._plain.items())
        out.update({name: writable(self._items(name)) for name in self.map_fields})
        return out


def _field_name(key: Any, method: str, instead: str) -> None:
    """Refuse a key of ``Plan.set`` / ``Plan.remove`` that is not a field name (TypeError)."""
    if type(key) is not str:
        raise TypeError(f"Plan.{method}: expected a top-level field name (a str), found "
                        f"{key!r}; for a value inside the plan, write its path as a tuple "
                        f"of keys and call metaplan.{instead}")


def loads(data: bytes | str, *, source: str = "<input>") -> Plan:
    """Parse a plan from JSON text, checking every field the passes read.

    Raises :class:`~metaplan.errors.InputError` (a ``PlanError`` or
    ``SpecError`` naming ``source`` and the JSON path) for bad input.
    """
    with paused_gc():
        text = decode_text(data, source)
        return plan_from_file_data(parse_plan_text(text, source), source=source)


def plan_from_file_data(raw: Any, *, source: str = "<input>") -> Plan:
    """A plan over JSON data just parsed from a plan file (no copy), checked as
    :func:`loads` checks it: a ``param_plan`` object, flags that are booleans, every field
    the passes read."""
    if type(raw) is dict:
        check_entries(raw.get("param_plan"), source)
    plan = Plan._from_raw(raw, source=source)
    require_param_plan(raw, source)
    return plan


def load(path: str | os.PathLike[str]) -> Plan:
    """Read a plan from a ``codegen_meta.json`` (or ``.json.gz``) file; ``-`` is stdin.

    The file's bytes are let go once decoded, before the text is parsed.
    """
    source = source_name(path)
    return loads(decode_text(read_bytes(path), source), source=source)


def load_all(paths: Sequence[str | os.PathLike[str]]) -> list[Plan]:
    """``[load(path) for path in paths]``: the same plans, the same first error; large files
    after the first are parsed side by side with it, in forked children, where that pays
    (see :mod:`metaplan.files.side_by_side`)."""
    return read_side_by_side(paths, child=_packed, here=_unpacked)


def _packed(path: str | os.PathLike[str]) -> bytes:
    """In a child: the plan file's parsed data, packed (its equal entries written once)."""
    source = source_name(path)
    with paused_gc():
        return pack(parse_plan_text(decode_text(read_bytes(path), source), source))


def _unpacked(path: str | os.PathLike[str], packed: bytes | None) -> Plan:
    """The plan a child packed, checked as :func:`load` checks it; without one (or with
    anything wrong in it), :func:`load`'s own."""
    if packed is not None:
        with paused_gc():
            try:
                raw = unpack(packed)
            except (ValueError, TypeError, KeyError, IndexError):
                raw = None
            if raw is not None:
                return plan_from_file_data(raw, source=source_name(path))
    return load(path)


def dumps(plan: Plan) -> bytes:
    """The plan as ``json.dumps(obj, indent=2, sort_keys=True)`` would write it."""
    return dumps_pretty(plan._writable())


def dump(plan: Plan, path: str | os.PathLike[str]) -> None:
    """Write the plan to ``path`` (gzipped for ``.gz``), atomically."""
    write_atomic(path, dumps(plan))
