"""Optional pass ``slim``: upstream's semantics-preserving projection of a plan.

Upstream's emitter writes a slimmed copy of ``param_plan`` into the generated
code (``plan/slim.slim_param_plan_for_emission``); every reader resolves it
to the same placements. As a pass, ``slim``:

- drops each ``"R"`` axis key of every ``{name: {axis: placement}}`` object
  under ``params``, ``in_src``, ``in_dst``, ``out_src`` and ``out_dst``
  (a missing axis resolves to replicate; names are kept, even all-``R``
  ones, since a declared param is still distributed);
- drops ``in_src``, ``in_dst``, ``out_src``, ``out_dst`` and ``is_boundary``
  from every boundary of a class whose emitted form is *identity* (no
  ``local_compute_fn`` or ``inner_wrapper`` injection, and every declared
  transition identity on the plan's ``mesh_dim_names``: upstream
  ``plan/boundary_forms.classify_boundary_form``), and ``region_dispatch`` /
  ``needs_cp_attn`` from them when they are ``false``.

It is not part of ``normalize``: run it by name (``--passes slim``), or
compare two plans modulo it (``metaplan diff A B --passes slim``).

Upstream prunes only classes its modeling source defines: a class the
source imports (``nn.Embedding``, ``nn.Linear`` for ``lm_head``) has no
``forward`` there to leave alone, and keeps its fields. The plan does not
say which classes the source defines, so the names of ``torch.nn`` modules
(:data:`TORCH_NN_CLASSES`) stand in for the imported ones. A class whose
boundaries disagree on their contract, or whose injections conflict, or
with a placement that does not parse, is left as it is too (upstream
refuses to emit it; ``metaplan verify`` says why).

>>> from metaplan.core.plan import Plan
>>> plan = Plan.from_json({"mesh_dim_names": ["tp"], "param_plan": {
...     "norm": {"is_boundary": True, "in_src": {"x": {"tp": "R"}}, "in_dst": {"x": {"tp": "R"}},
...              "params": {"weight": {"tp": "R", "ep": "R"}}, "region_dispatch": False}},
...     "boundary_classes": {"norm": "Qwen3MoeRMSNorm"}})
>>> slim(plan).plan.param_plan["norm"].thaw()
{'params': {'weight': {}}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metaplan.core.emitter import (
    PLACEMENT_FIELDS,
    Placement,
    boundaries_by_class,
    injection_index,
    parse_placement,
)
from metaplan.core.plan import Plan
from metaplan.frozen import canonical_bytes
from metaplan.passes.chaining import Pass
from metaplan.passes.makers import changes_pass, keeping
from metaplan.records.change import Change

__all__ = [
    "BOUNDARY_FIELDS",
    "FLAG_FIELDS",
    "TORCH_NN_CLASSES",
    "identity_classes",
    "is_identity_form",
    "slim",
    "slim_changes",
]

BOUNDARY_FIELDS = ("in_src", "in_dst", "out_src", "out_dst", "is_boundary")
"""What an identity-form boundary loses (upstream ``plan/slim._BOUNDARY_FIELDS``)."""

FLAG_FIELDS = ("region_dispatch", "needs_cp_attn")
"""Flags an identity-form boundary loses when ``false``, the readers' default
(upstream ``plan/slim._FLAG_FIELDS``)."""

TORCH_NN_CLASSES = frozenset((
    "AdaptiveAvgPool1d", "AvgPool1d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d",
    "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "Dropout", "Embedding", "EmbeddingBag",
    "GELU", "GroupNorm", "Identity", "LayerNorm", "Linear", "MultiheadAttention", "ReLU",
    "RMSNorm", "SiLU", "Tanh",
))
"""Class names taken as imported from ``torch.nn``: ``slim`` never prunes them, as upstream
never prunes a class its modeling source does not define."""

_SIDES = (("in_src", "in_dst"), ("out_src", "out_dst"))
_R = Placement("R")


def _named(entry: Mapping[str, Any], field: str) -> Mapping[str, Any]:
    value = entry.get(field) or {}
    return value if isinstance(value, Mapping) else {}


def _resolved(named: Any, axes: Sequence[str]) -> tuple[Placement, ...]:
    """One name's placements on ``axes``, a missing axis as replicate (``resolve_placements``).

    Raises ``ValueError`` for a placement that does not parse.
    """
    if not isinstance(named, Mapping):
        return tuple(_R for _ in axes)
    return tuple(_R if named.get(axis) is None else parse_placement(named[axis])
                 for axis in axes)


def _ep(named: Any) -> str:
    """One name's ``ep`` placement as written, ``R`` when absent (``boundary_forms._ep_axis``)."""
    value = named.get("ep") if isinstance(named, Mapping) else None
    return value if isinstance(value, str) and value else "R"


def is_identity_form(entry: Mapping[str, Any], axes: Sequence[str],
                     injection: Mapping[str, Any] | None = None) -> bool:
    """Whether upstream's emitter leaves this boundary's forward as it is.

    Upstream ``plan/boundary_forms.classify_boundary_form`` returns
    ``identity`` when the class has no ``local_compute_fn`` or
    ``inner_wrapper`` injection and each declared transition
    (``in_src -> in_dst``, ``out_src -> out_dst``, name by name) keeps its
    placements on every axis of ``axes`` (with no axes: keeps its ``ep``
    placement). A placement that does not parse makes it ``False``.

    >>> is_identity_form({"in_src": {"x": {"tp": "R"}}, "in_dst": {"x": {}}}, ["tp"])
    True
    >>> is_identity_form({"out_src": {"y": {"tp": "P(sum)"}}, "out_dst": {"y": {"tp": "R"}}},
    ...                  ["tp"])
    False
    """
    if injection is not None and (injection.get("local_compute_fn") is not None
                                  or injection.get("inner_wrapper") is not None):
        return False
    for src_field, dst_field in _SIDES:
        src, dst = _named(entry, src_field), _named(entry, dst_field)
        for name in set(src) | set(dst):
            if not axes:
                if _ep(src.get(name)) != _ep(dst.get(name)):
                    return False
                continue
            try:
                if _resolved(src.get(name), axes) != _resolved(dst.get(name), axes):
                    return False
            except ValueError:
                return False
    return True


def _axes(plan: Plan) -> tuple[str, ...] | None:
    """The plan's ``mesh_dim_names`` (empty when absent); None when they are not names."""
    names = plan.get("mesh_dim_names") or ()
    if not all(isinstance(name, str) for name in names) or isinstance(names, (str, Mapping)):
        return None
    return tuple(names)


def _without_params(data: Mapping[str, Any]) -> bytes:
    return canonical_bytes({key: value for key, value in data.items() if key != "params"})


def identity_classes(plan: Plan) -> dict[str, list[str]]:
    """Class -> its boundary FQNs, for each class ``slim`` prunes: its emitted form is identity.

    Only classes whose boundaries share one contract and whose injections
    agree (as ``metaplan verify`` checks), and not in :data:`TORCH_NN_CLASSES`,
    are classified.
    """
    axes = _axes(plan)
    if axes is None:
        return {}
    injections = injection_index(plan)[0]
    found = {}
    for name, group in sorted(boundaries_by_class(plan).items()):
        if name in TORCH_NN_CLASSES:
            continue  # imported: no forward in the source to leave alone
        if name in injections and injections[name] is None:
            continue  # conflicting injections: upstream refuses the class
        if len({_without_params(data) for _, data in group}) != 1:
            continue  # two contracts: upstream refuses the class
        if is_identity_form(group[0][1], axes, injections.get(name)):
            found[name] = [fqn for fqn, _ in group]
    return found


_R_WHY = "an R axis: a missing axis resolves to replicate"


Removal = tuple[tuple[str, ...], Any, str]
"""A removal inside one entry: its path below the entry, the old value, why."""


def _strip_r(field: str, value: Any) -> list[Removal]:
    """The ``"R"`` axes of one placement field (``plan/slim.strip_r_axes``)."""
    if not isinstance(value, Mapping):
        return []
    return [((field, name, axis), "R", _R_WHY)
            for name in sorted(value) if isinstance(named := value[name], Mapping)
            for axis in sorted(named) if named[axis] == "R"]


def _prune(data: Mapping[str, Any], name: str) -> list[Removal]:
    """An identity-form boundary's contract fields and false flags."""
    why = (f"class {name} has the identity form: its forward is not rewritten, so its "
           "boundary fields are not read")
    found: list[Removal] = [((key,), data[key], why) for key in BOUNDARY_FIELDS if key in data]
    return found + [((key,), False, f"{why}; false is the readers' default")
                    for key in FLAG_FIELDS if data.get(key) is False]


def _removals(entry: Mapping[str, Any], name: str | None) -> list[Removal]:
    """What ``slim`` removes from one entry (``name``: its class, when pruned)."""
    found = _prune(entry, name) if name is not None else []
    for field in PLACEMENT_FIELDS:
        if field in entry and not (name is not None and field in BOUNDARY_FIELDS):
            found += _strip_r(field, entry[field])
    return found


def slim_changes(plan: Plan) -> list[Change]:
    """The changes of ``slim``, by FQN: pruned fields first, then ``R`` axes of the rest.

    Read through the public API; each distinct entry is worked out once (a
    loaded plan's equal entries are one object).
    """
    pruned = {fqn: name for name, fqns in identity_classes(plan).items() for fqn in fqns}
    entries = plan.index("param_plan")
    known: dict[tuple[int, str | None], tuple[Any, list[Removal]]] = {}
    changes: list[Change] = []
    for fqn in sorted(entries):
        entry = entries[fqn]
        if not isinstance(entry, Mapping):
            continue
        name = pruned.get(fqn)
        seen = known.get((id(entry), name))
        if seen is None or seen[0] is not entry:
            seen = known[(id(entry), name)] = (entry, _removals(entry, name))
        changes += [Change("remove", ("param_plan", fqn, *inner), old, None, why)
                    for inner, old, why in seen[1]]
    return changes


slim: Pass = changes_pass("slim", preserves=keeping().preserves)(slim_changes)
"""The ``slim`` pass (see the module docstring)."""
