"""Versions of one plan, for diffs, folding and merges: a plan and edited versions of it
(two sides editing alike, unalike or disjoint parts), and set-valued fields merged."""

from __future__ import annotations

import copy
from typing import Any, NamedTuple

from hypothesis import strategies as st

from metaplan.algorithms.braces import group_key
from metaplan.paths import FQN_MAPS
from metaplan.testing.strategies import CLASSES, PLACEMENTS, TARGETS, plan_dicts

__all__ = [
    "PlanVersions",
    "edited_plan_dicts",
    "plan_pairs",
    "plan_versions",
    "set_versions",
    "versioned_plan_dicts",
]

_BOOLS = st.booleans()
_PLACEMENT = st.sampled_from(PLACEMENTS)
_TENTH = st.integers(0, 9)



_OUT_NAMES = ("output", "aux_loss", "router_logits", "hidden_states", "attn_weights")
_EP_SIZES = st.sampled_from((4, 8, 16, 32))
_SWITCHES = st.sampled_from(("is_boundary", "skip_source_lowering", "region_dispatch"))
_EDITS = st.lists(st.sampled_from(("alike", "unalike", "classes", "remove", "add", "kind",
                                   "out_names", "injections", "frozen", "externals", "top")),
                  max_size=5)
_FIELD_SIDES = {"injections": 0, "codegen_version": 0, "module_overrides": 0, "signature": 0,
                "frozen_sharded_params": 1, "external_state_classes": 1, "model_type": 1}
"""Which side (see :func:`edited_plan_dicts`) may edit each top-level field."""


def _module_side(fqn: str) -> int:
    """The side (0 or 1) that owns a module when two sides edit disjoint parts of a plan."""
    return sum(map(ord, fqn)) % 2


@st.composite
def versioned_plan_dicts(draw: st.DrawFn, *, max_layers: int = 4) -> dict[str, Any]:
    """A :func:`plan_dicts` plan (boolean flags) with the arrays versions of real plans edit:
    ``out_names`` inside some entries, ``module_overrides`` objects with a ``match``, and
    ``frozen_sharded_params`` as numbered ``FQN.weight`` strings, sorted."""
    meta = copy.deepcopy(draw(plan_dicts(odd_flags=False, max_layers=max_layers)))
    for _, entry in sorted(meta["param_plan"].items()):
        if isinstance(entry, dict) and draw(_TENTH) < 3:
            entry["out_names"] = draw(st.lists(st.sampled_from(_OUT_NAMES), min_size=1,
                                               max_size=4, unique=True))
    modules = sorted(meta["boundary_classes"]) or ["lm_head"]
    meta["module_overrides"] = [
        {"match": fqn, "dtype": draw(st.sampled_from(("bf16", "fp32")))}
        for fqn in draw(st.lists(st.sampled_from(modules), max_size=3, unique=True))]
    meta["frozen_sharded_params"] = sorted(
        f"{fqn}.weight" for fqn, entry in meta["param_plan"].items()
        if isinstance(entry, dict) and "params" in entry)
    return meta


def _some(draw: st.DrawFn, items: list[Any], *, min_size: int = 1) -> list[Any]:
    """A sub-list of ``items`` (in their order), empty when ``items`` is."""
    if not items:
        return []
    picked = draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
    chosen = [item for item, keep in zip(items, picked, strict=True) if keep]
    return chosen if len(chosen) >= min_size else items[:min_size]


class _Scope(NamedTuple):
    """What one edit may touch: modules by FQN, top-level fields by name."""

    side: int | None

    def module(self, fqn: str) -> bool:
        return self.side is None or _module_side(fqn) == self.side

    def field(self, name: str) -> bool:
        return self.side is None or _FIELD_SIDES.get(name) == self.side


def _entries(meta: dict[str, Any], scope: _Scope) -> list[str]:
    return [fqn for fqn, entry in sorted(meta["param_plan"].items())
            if isinstance(entry, dict) and scope.module(fqn)]


def _edit_alike(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """One flag set to one value on numbered modules of one kind (``layers.*.mlp``)."""
    fqns = _entries(meta, scope)
    if not fqns:
        return
    kinds = sorted({group_key(fqn) for fqn in fqns})
    kind = draw(st.sampled_from(kinds))
    key, value = draw(_SWITCHES), draw(_BOOLS)
    for fqn in _some(draw, [fqn for fqn in fqns if group_key(fqn) == kind]):
        meta["param_plan"][fqn][key] = value


def _edit_unalike(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """A param's placement set on several modules, each to a value of its own."""
    for fqn in _some(draw, _entries(meta, scope)):
        params = meta["param_plan"][fqn].setdefault("params", {})
        params["weight"] = {"tp": draw(_PLACEMENT)}


def _edit_classes(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """Classes renamed alike, or dropped."""
    fqns = [fqn for fqn in sorted(meta["boundary_classes"]) if scope.module(fqn)]
    new = draw(st.sampled_from((*CLASSES, None)))
    for fqn in _some(draw, fqns):
        if new is None:
            del meta["boundary_classes"][fqn]
        else:
            meta["boundary_classes"][fqn] = new


def _edit_remove(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """Modules removed from ``param_plan``, ``boundary_classes`` or both."""
    fqns = sorted(fqn for fqn in {*meta["param_plan"], *meta["boundary_classes"]}
                  if scope.module(fqn))
    where = draw(st.sampled_from(("both", "both", "param_plan", "boundary_classes")))
    for fqn in _some(draw, fqns):
        for field in FQN_MAPS:
            if where in ("both", field):
                meta[field].pop(fqn, None)


def _edit_add(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """New numbered experts (``model.layers.I.mlp.experts.E``), alike or each its own."""
    layers = draw(st.lists(st.integers(0, 5), min_size=1, max_size=3, unique=True))
    experts = draw(st.lists(st.integers(40, 47), min_size=1, max_size=4, unique=True))
    alike = draw(_BOOLS)
    shared = {"is_boundary": True, "params": {"weight": {"tp": "S(0)"}}}
    for layer in sorted(layers):
        for expert in sorted(experts):
            fqn = f"model.layers.{layer}.mlp.experts.{expert}"
            if not scope.module(fqn):
                continue
            meta["param_plan"][fqn] = copy.deepcopy(shared) if alike else {
                "is_boundary": draw(_BOOLS), "params": {"weight": {"tp": draw(_PLACEMENT)}}}
            meta["boundary_classes"][fqn] = "MLP"


def _edit_kind(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """An entry turned into something else than an object, or back."""
    fqns = [fqn for fqn in sorted(meta["param_plan"]) if scope.module(fqn)]
    if fqns:
        fqn = draw(st.sampled_from(fqns))
        entry = meta["param_plan"][fqn]
        meta["param_plan"][fqn] = draw(st.sampled_from((None, "opaque", ["weight"]))) \
            if isinstance(entry, dict) else {"is_boundary": False}


def _edit_list(draw: st.DrawFn, items: list[Any], pool: st.SearchStrategy[Any]) -> None:
    """Items of one array inserted, removed, replaced or moved, in place."""
    for how in draw(st.lists(st.sampled_from(("insert", "remove", "replace", "move")),
                             min_size=1, max_size=3)):
        if how == "insert" or not items:
            items.insert(draw(st.integers(0, len(items))), draw(pool))
        elif how == "remove":
            del items[draw(st.integers(0, len(items) - 1))]
        elif how == "replace":
            items[draw(st.integers(0, len(items) - 1))] = draw(pool)
        else:
            items.insert(draw(st.integers(0, len(items) - 1)),
                         items.pop(draw(st.integers(0, len(items) - 1))))


def _edit_out_names(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """Strings of an array inside entries (``out_names``) edited, or a new array."""
    for fqn in _some(draw, _entries(meta, scope)):
        _edit_list(draw, meta["param_plan"][fqn].setdefault("out_names", []),
                   st.sampled_from(_OUT_NAMES))


def _edit_injections(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """Injections edited inside (``ep_size``, a new key, their ``ep_stack`` array), added,
    removed or reordered; or ``module_overrides`` items edited."""
    if not scope.field("injections"):
        return
    injections = meta["injections"]
    how = draw(st.sampled_from(("inside", "inside", "stack", "add", "remove", "reorder",
                                "overrides")))
    if how == "overrides" or (how != "add" and not injections):
        overrides = meta.setdefault("module_overrides", [])
        if overrides and draw(_BOOLS):
            draw(st.sampled_from(overrides))["dtype"] = "fp8"
        else:
            overrides.append({"match": f"model.layers.{draw(_TENTH)}.self_attn", "dtype": "fp8"})
    elif how == "inside":
        for injection in _some(draw, injections):
            injection["ep_size"] = draw(_EP_SIZES)
            if draw(_TENTH) == 0:
                injection["use_grouped_gemm"] = True
    elif how == "stack":
        injection = draw(st.sampled_from(injections))
        _edit_list(draw, injection.setdefault("ep_stack", ["tp"]),
                   st.sampled_from(("tp", "ep", "dp", "cp")))
    elif how == "add":
        injections.insert(draw(st.integers(0, len(injections))),
                          {"match": f"model.layers.{draw(st.integers(10, 19))}.mlp",
                           "local_compute_fn": draw(st.sampled_from(TARGETS)),
                           "ep_size": draw(_EP_SIZES)})
    elif how == "remove":
        del injections[draw(st.integers(0, len(injections) - 1))]
    else:
        order = draw(st.permutations(range(len(injections))))
        injections[:] = [injections[i] for i in order]


def _edit_frozen(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """Numbered strings added to and removed from ``frozen_sharded_params`` (kept sorted)."""
    if not scope.field("frozen_sharded_params"):
        return
    listed = set(meta["frozen_sharded_params"])
    listed -= set(_some(draw, sorted(listed), min_size=0))
    layers = draw(st.lists(st.integers(0, 7), max_size=4, unique=True))
    kinds = draw(st.lists(st.sampled_from(("down_proj", "gate_proj", "up_proj")), min_size=1,
                          max_size=3, unique=True))
    listed |= {f"model.layers.{layer}.mlp.experts.{expert}.{kind}.weight"
               for layer in layers for expert in range(draw(st.integers(1, 4))) for kind in kinds}
    meta["frozen_sharded_params"] = sorted(listed)


def _edit_externals(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """A top-level array of strings, unsorted (``external_state_classes``), edited."""
    if scope.field("external_state_classes"):
        _edit_list(draw, meta["external_state_classes"], st.sampled_from(CLASSES))


def _edit_top(draw: st.DrawFn, meta: dict[str, Any], scope: _Scope) -> None:
    """Top-level scalars: the generator's version, the signature, the model type."""
    if scope.field("codegen_version"):
        meta["codegen_version"] = draw(st.sampled_from(("1", "2", "3")))
        meta["signature"] = draw(st.sampled_from(("0" * 64, "f" * 64)))
    if scope.field("model_type"):
        value = draw(st.sampled_from(("deepseek_v3", "qwen3_moe", None, "absent")))
        if value == "absent":
            meta.pop("model_type", None)
        else:
            meta["model_type"] = value


_EDITORS = {
    "alike": _edit_alike, "unalike": _edit_unalike, "classes": _edit_classes,
    "remove": _edit_remove, "add": _edit_add, "kind": _edit_kind, "out_names": _edit_out_names,
    "injections": _edit_injections, "frozen": _edit_frozen, "externals": _edit_externals,
    "top": _edit_top,
}


@st.composite
def edited_plan_dicts(draw: st.DrawFn, meta: dict[str, Any], *, side: int | None = None
                      ) -> dict[str, Any]:
    """A new version of plan dict ``meta`` (a deep copy, edited; ``meta`` is untouched).

    Up to five edits of the kinds versions of real plans differ by: numbered
    modules changed alike (one flag, one value) and unalike (a placement
    each), classes renamed or dropped, modules removed and added, an entry
    turned into a non-object, strings of ``out_names`` arrays inside entries,
    injections edited inside, added, removed or reordered (and their
    ``ep_stack`` arrays), ``module_overrides`` items, numbered strings added
    to and removed from ``frozen_sharded_params``, ``external_state_classes``
    edited as a sequence, and top-level scalars. Maybe none: then the copy
    equals ``meta``.

    ``side=0`` or ``side=1`` edits only that side's half of the plan (half
    the modules, by FQN, and some top-level fields each): two versions made
    with different sides touch disjoint paths.
    """
    new = copy.deepcopy(meta)
    scope = _Scope(side)
    for name in draw(_EDITS):
        _EDITORS[name](draw, new, scope)
    return new


@st.composite
def plan_pairs(draw: st.DrawFn, *, max_layers: int = 4
               ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two versions of one plan: a :func:`versioned_plan_dicts` plan and an edit of it
    (:func:`edited_plan_dicts`)."""
    before = draw(versioned_plan_dicts(max_layers=max_layers))
    return before, draw(edited_plan_dicts(before))


class PlanVersions(NamedTuple):
    """A base plan dict and two versions made from it, as two branches would."""

    base: dict[str, Any]
    ours: dict[str, Any]
    theirs: dict[str, Any]


@st.composite
def plan_versions(draw: st.DrawFn, *, disjoint: bool = False, max_layers: int = 4
                  ) -> PlanVersions:
    """A base plan and two edits of it (:func:`edited_plan_dicts`), for three-way merges.

    ``disjoint=True``: the two sides edit disjoint halves of the plan, so
    their changes (arrays compared whole) touch disjoint paths.
    """
    base = draw(versioned_plan_dicts(max_layers=max_layers))
    sides = (0, 1) if disjoint else (None, None)
    return PlanVersions(base, draw(edited_plan_dicts(base, side=sides[0])),
                        draw(edited_plan_dicts(base, side=sides[1])))


_SET_ITEMS = st.sampled_from(tuple(f"model.layers.{i}.mlp.weight" for i in range(6)))


def _set_side(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with its ``frozen_sharded_params`` kept, edited (items removed and added),
    listed with repeats (still sorted), or both."""
    meta = copy.deepcopy(base)
    listed = list(meta["frozen_sharded_params"])
    how = draw(st.sampled_from(("same", "edit", "repeat", "edit repeat")))
    if "edit" in how:
        kept = set(listed) - set(_some(draw, listed, min_size=0))
        listed = sorted(kept | set(draw(st.lists(_SET_ITEMS, max_size=3))))
    if "repeat" in how:
        listed = sorted(listed + _some(draw, listed))
    meta["frozen_sharded_params"] = listed
    return meta


@st.composite
def set_versions(draw: st.DrawFn, *, max_layers: int = 2) -> PlanVersions:
    """A base plan and two versions of it that differ only in ``frozen_sharded_params``, a
    set written sorted: each side keeps it, removes and adds items, or lists some twice."""
    base = copy.deepcopy(draw(versioned_plan_dicts(max_layers=max_layers)))
    base["frozen_sharded_params"] = sorted(set(draw(st.lists(_SET_ITEMS, max_size=5))))
    return PlanVersions(base, _set_side(draw, base), _set_side(draw, base))
