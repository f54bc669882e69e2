"""The keys upstream's generator writes into plan entries and injections, and their types.

Upstream keeps one table of the fields that cross from its sharding specs into
``codegen_meta.json`` (``plan/spec_fields.py`` of hyper-parallel's codegen);
this module is that table as metaplan reads it: for each key of a
``param_plan`` entry and of an ``injections`` item, what its value must be.
The ``schema`` check of :mod:`metaplan.core.invariants` reports a value of another
type, naming the path and the type expected; a key not listed is allowed.

An explicit empty container is meaningful (upstream writes ``params``,
``tp_divide_attrs`` and the placement maps whenever they are not ``None``:
``params: {}`` shards nothing, ``tp_divide_attrs: []`` clears an inherited
declaration), so every pass, diff, merge and projection keeps one as it is.

>>> [key for key, _ in ENTRY_FIELDS][:3]
['params', 'in_src', 'in_dst']
>>> expected("ep_size", 8, INJECTION_TYPES), expected("ep_size", True, INJECTION_TYPES)
(None, 'an integer')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from metaplan.frozen import is_array, is_object

__all__ = [
    "ENTRY_FIELDS",
    "ENTRY_TYPES",
    "EXPLICIT_EMPTY_KEYS",
    "INJECTION_FIELDS",
    "INJECTION_TYPES",
    "Kind",
    "expected",
]

Kind = tuple[str, Callable[[Any], bool]]
"""What a value must be: its description for a message, and the test."""




def _strings(value: Any) -> bool:
    return is_array(value) and all(isinstance(item, str) for item in value)


def _target(value: Any) -> bool:
    return isinstance(value, str) or is_object(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_BOOLEAN: Kind = ("a boolean", lambda value: isinstance(value, bool))
_NAMES: Kind = ("an array of strings", _strings)
_PLACEMENTS: Kind = ("an object of name -> {axis: placement}", is_object)  # inside: placement
_TARGET: Kind = ("a string or an object (a target)", _target)

ENTRY_FIELDS: tuple[tuple[str, Kind], ...] = (
    ("params", _PLACEMENTS),
    ("in_src", _PLACEMENTS),
    ("in_dst", _PLACEMENTS),
    ("out_src", _PLACEMENTS),
    ("out_dst", _PLACEMENTS),
    ("out_names", _NAMES),  # its order is meaningful: outputs are resolved by position
    ("tp_divide_attrs", _NAMES),
    ("region_dispatch", _BOOLEAN),
    ("deferred_bias_params", _NAMES),
    ("skip_source_lowering", _BOOLEAN),
    ("needs_cp_attn", _BOOLEAN),
)
"""The keys of a ``param_plan`` entry, in upstream's order, with their types.

``is_boundary`` is not here: loading a file already refuses anything but
``true`` or ``false`` (:func:`metaplan.core.shape.check_entries`), and a plan
built in Python may hold any value upstream reads by truthiness."""

INJECTION_FIELDS: tuple[tuple[str, Kind], ...] = (
    ("match", ("a string (an FQN or a glob)", lambda value: isinstance(value, str))),
    ("inner_wrapper", _TARGET),
    ("inner_target", ("a string", lambda value: isinstance(value, str))),
    ("inner_out_src", _TARGET),
    ("local_compute_fn", _TARGET),
    ("ep_stack", ("an array of axis names or an object",
                  lambda value: _strings(value) or is_object(value))),
    ("ep_size", ("an integer", _integer)),
)
"""The keys of an ``injections`` item, in upstream's order, with their types."""

ENTRY_TYPES: dict[str, Kind] = dict(ENTRY_FIELDS)
INJECTION_TYPES: dict[str, Kind] = dict(INJECTION_FIELDS)

EXPLICIT_EMPTY_KEYS = ("params", "tp_divide_attrs")
"""Entry keys whose explicit empty value means something of its own (not "absent")."""


def expected(key: str, value: Any, types: Mapping[str, Kind]) -> str | None:
    """What ``value`` of ``key`` should be when it is not that (``None``: fine or unknown)."""
    kind = types.get(key)
    if kind is None or kind[1](value):
        return None
    return kind[0]
