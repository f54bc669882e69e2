"""How upstream's code emitter reads a plan: boundaries, their classes, injections, placements.

hyper-parallel's ``codegen`` emits code from a plan and reads it in a few
fixed ways; this module reads it the same way, for the checks of
:mod:`metaplan.core.invariants` and the ``slim`` pass:

- :func:`is_boundary_entry`: which entries are boundaries
  (``plan/boundary_forms.is_boundary_entry``);
- :func:`class_of` and :func:`boundaries_by_class`: the class that owns a
  boundary's forward, and each class's boundaries
  (``emit/parallel._class_for_fqn``, ``_group_boundaries_by_class``);
- :func:`injection_index`: each class's injection keys, and where two
  injections of one class disagree (``emit/parallel._index_injections_by_class``);
- :func:`parse_placement`: a placement string (``plan/freeze.parse_placement``).

>>> is_boundary_entry({"out_names": ["y"]}), parse_placement("SS(0,2)")
(True, Placement(kind='SS', dim=0, arg=2))
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from pyrsistent import PVector

from metaplan.core.plan import Plan
from metaplan.frozen import JSONMap, canonical_bytes, to_raw

__all__ = [
    "CONTRACT_KEYS",
    "INJECTION_KEYS",
    "PLACEMENT_FIELDS",
    "InjectionConflict",
    "Placement",
    "array",
    "boundaries_by_class",
    "class_of",
    "injection_index",
    "is_boundary_entry",
    "is_boundary_raw",
    "object_entries",
    "parse_placement",
    "parsed",
    "raw_entry",
    "shards",
]

CONTRACT_KEYS = ("in_src", "in_dst", "out_src", "out_dst", "out_names")
"""The layout-contract keys: an entry without ``is_boundary`` is a boundary when one is
non-empty (upstream ``boundary_forms._ENTRY_META_FIELDS``)."""

INJECTION_KEYS = ("inner_wrapper", "inner_target", "inner_out_src", "local_compute_fn")
"""The injection keys every injection of one class must agree on (upstream
``emit/parallel._INJECTION_KEYS``)."""

PLACEMENT_FIELDS = ("params", "in_src", "in_dst", "out_src", "out_dst")
"""Entry fields holding ``{name: {axis: placement}}`` (upstream ``plan/slim._PLACEMENT_FIELDS``)."""


# entries -----------------------------------------------------------------------


def array(value: Any) -> Sequence[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, (list, tuple, PVector)) else ()


def raw_entry(entry: Any) -> Any:
    """An entry's raw dict (read it, never write it); anything else as it is."""
    if type(entry) is JSONMap:
        return entry._data
    return to_raw(entry) if isinstance(entry, Mapping) else entry


def object_entries(plan: Plan) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(fqn, raw entry)`` for every object entry of ``param_plan``, in no particular order.

    Equal entries of a loaded plan are one object: callers may cache by it.
    """
    for fqn, entry in plan.index("param_plan").items():
        if type(entry) is JSONMap:
            yield fqn, entry._data
        elif isinstance(entry, Mapping):
            yield fqn, to_raw(entry)


def is_boundary_raw(data: Mapping[str, Any]) -> bool:
    """:func:`is_boundary_entry` of an entry's raw dict."""
    flag = data.get("is_boundary")
    if flag is not None:
        return bool(flag)
    return any(data.get(key) for key in CONTRACT_KEYS)


def is_boundary_entry(entry: Any) -> bool:
    """Whether an entry is a boundary, as upstream's emitter and installer decide it.

    An explicit ``is_boundary`` wins, by truthiness; without one (or with
    ``null``), an entry is a boundary when any of :data:`CONTRACT_KEYS` is
    non-empty. Not an object: not a boundary. (Upstream
    ``plan/boundary_forms.is_boundary_entry``.)

    >>> [is_boundary_entry(e) for e in ({"is_boundary": 1}, {"is_boundary": False,
    ...  "in_src": {"x": {}}}, {"out_names": ["y"]}, {"in_src": {}}, "junk")]
    [True, False, True, False, False]
    """
    if type(entry) is not JSONMap and not isinstance(entry, Mapping):
        return False
    return is_boundary_raw(raw_entry(entry))


def class_of(classes: Mapping[str, Any], fqn: str) -> str | None:
    """The class upstream's emitter resolves for ``fqn``: a non-empty name, else None.

    (Upstream ``emit/parallel._class_for_fqn`` reads ``boundary_classes``
    first; its fall-backs read the modeling source, which a plan does not hold.)
    """
    name = classes.get(fqn)
    return name if isinstance(name, str) and name else None


def boundaries_by_class(plan: Plan) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Class -> ``(fqn, raw entry)`` of each of its boundaries, sorted by FQN.

    Boundaries with no class name are left out (``verify``'s ``boundary-class``
    reports them). Upstream groups them so
    (``emit/parallel._group_boundaries_by_class``), then rewrites one
    ``forward`` per class.
    """
    classes = plan.index("boundary_classes")
    members: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for fqn, data in object_entries(plan):
        name = class_of(classes, fqn)
        if name is not None and is_boundary_raw(data):
            members.setdefault(name, []).append((fqn, data))
    for group in members.values():
        group.sort(key=lambda item: item[0])
    return members


# injections --------------------------------------------------------------------


class InjectionConflict(NamedTuple):
    """Injection ``at`` sets ``key`` of class ``class_name`` otherwise than injection ``first``."""

    class_name: str
    key: str
    at: int
    match: str
    value: bytes
    first: int
    first_match: str
    first_value: bytes


def injection_index(plan: Plan) -> tuple[dict[str, dict[str, Any] | None],
                                         list[InjectionConflict]]:
    """Each class's injection keys (the union over its injections; None on a conflict),
    and the conflicts.

    As upstream ``emit/parallel._index_injections_by_class``: an injection's
    ``match`` is read as an FQN and resolved through ``boundary_classes`` (a
    glob, or an FQN with no class, resolves to none and is skipped); of
    :data:`INJECTION_KEYS`, the first injection of a class to set a key fixes
    its value (compared as canonical JSON).
    """
    classes = plan.index("boundary_classes")
    index: dict[str, dict[str, Any] | None] = {}
    first: dict[tuple[str, str], tuple[int, str, bytes]] = {}
    conflicts = []
    for i, injection in enumerate(array(plan.get("injections"))):
        match = injection.get("match") if isinstance(injection, Mapping) else None
        if not isinstance(match, str) or not match:
            continue
        name = class_of(classes, match)
        if name is None:
            continue
        for key in INJECTION_KEYS:
            if key not in injection:
                continue
            value = canonical_bytes(injection[key])
            known = first.setdefault((name, key), (i, match, value))
            keys = index.setdefault(name, {})
            if keys is not None:
                keys.setdefault(key, injection[key])
            if known[2] != value:
                index[name] = None
                conflicts.append(InjectionConflict(name, key, i, match, value, *known))
    return index, conflicts


# placements --------------------------------------------------------------------


class Placement(NamedTuple):
    """A parsed placement string: ``R``, ``S(dim)``, ``P(op)`` or ``SS(dim,factor)``.

    ``dim`` is the number as written: a negative one is an uneven shard of
    dim ``-dim - 1`` to current writers.
    """

    kind: str
    dim: int | None = None
    arg: str | int | None = None


_FORM = re.compile(r"([SP]|SS)\((.*)\)", re.S)


def parse_placement(text: str) -> Placement:
    """Parse a placement string as upstream ``plan/freeze.parse_placement`` does.

    >>> parse_placement("S(-1)"), parse_placement("SS(1, 2)"), parse_placement("P(sum)")
    (Placement(kind='S', dim=-1, arg=None), Placement(kind='SS', dim=1, arg=2), \
Placement(kind='P', dim=None, arg='sum'))
    >>> parse_placement("S(1,2)")
    Traceback (most recent call last):
    ValueError: a shard takes one dim, S(1,2) has 2 arguments
    """
    if not isinstance(text, str) or not text:
        raise ValueError("an empty placement")
    if text == "R":
        return Placement("R")
    match = _FORM.fullmatch(text)
    if match is None:
        raise ValueError(f"unknown form {text}")
    kind, args = match.groups()
    if kind == "P":
        if not args:
            raise ValueError(f"a partial names its reduce op, as P(sum); {text} has none")
        return Placement("P", None, args)
    parts = [part.strip() for part in args.split(",")]
    try:
        dim = int(parts[0])
    except ValueError:
        raise ValueError(f"{text} has no integer dim") from None
    if kind == "S":
        if len(parts) != 1:
            raise ValueError(f"a shard takes one dim, {text} has {len(parts)} arguments")
        return Placement("S", dim)
    if len(parts) != 2:
        raise ValueError(f"a strided shard is SS(dim,factor), {text} has {len(parts)} "
                         "argument(s)")
    try:
        factor = int(parts[1])
    except ValueError:
        raise ValueError(f"{text} has no integer split factor") from None
    return Placement("SS", dim, factor)


@functools.lru_cache(maxsize=4096)
def parsed(text: str) -> Placement | str:
    """:func:`parse_placement`'s result, or why it fails (cached: plans repeat a few strings)."""
    try:
        return parse_placement(text)
    except ValueError as exc:
        return str(exc)


@functools.lru_cache(maxsize=4096)
def shards(text: str) -> bool:
    """Whether placement ``text`` parses as S, SS or P (upstream ``freeze._is_sharded``)."""
    found = parsed(text)
    return isinstance(found, Placement) and found.kind != "R"
