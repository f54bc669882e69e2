"""Plans that pass every check of :mod:`metaplan.core.invariants`, and plans that break
exactly one (with the check and the path it must name)."""

from __future__ import annotations

import copy
from typing import Any, NamedTuple

from hypothesis import strategies as st

from metaplan.testing.strategies import CLASSES, DEEPSEEK, MOE_CLASSES, QWEN, model_trees

__all__ = [
    "VERIFY_CHECKS",
    "ViolatingPlan",
    "sound_plan_dicts",
    "violating_plan_dicts",
]

_BOOLS = st.booleans()



_MESHES: st.SearchStrategy[tuple[str, ...] | None] = st.sampled_from(
    (("ep", "tp"), ("tp",), None))
_SOUND_PLACEMENT = st.sampled_from(("R", "R", "R", "S(0)", "S(1)", "P(sum)", "SS(0,2)",
                                    "S(-1)"))
_STYLES = st.sampled_from(("explicit", "explicit", "inferred", "none"))
_FLAG_KEYS = st.sampled_from(((), (), ("region_dispatch",), ("needs_cp_attn",),
                              ("skip_source_lowering",)))
_IDENTITIES = st.sampled_from(("model_type", "model_class", "source.architecture", "none"))
_SCHEMA_FIELDS: dict[str, Any] = {
    "codegen_version": "1", "signature": "0" * 64, "yaml_path": "recipes/train.yaml",
    "yaml_sha256": "f" * 64, "parallel_dims": {"tp": 8}, "outputs": {},
    "entrypoints": {"parallelize": "hyper_parallelize"},
    "covered": {"axes": ["tp"], "module_overrides": False, "sharding_plan": True},
    "not_covered": ["mesh", "fsdp2"], "remote_siblings": [], "module_overrides": [],
    "tied_pairs": [], "special_handlers": {},
}
_ARCHITECTURES = {"DeepseekV3MoE": ("deepseek_v3", "DeepseekV3ForCausalLM"),
                  "Qwen3MoeSparseMoeBlock": ("qwen3_moe", "Qwen3MoeForCausalLM")}


@st.composite
def _placements(draw: st.DrawFn, axes: tuple[str, ...]) -> dict[str, str]:
    """``{axis: placement}`` over a non-empty subset of ``axes``, every string valid."""
    chosen = draw(st.lists(st.sampled_from(axes), min_size=1, max_size=len(axes), unique=True))
    return {axis: draw(_SOUND_PLACEMENT) for axis in sorted(chosen)}


@st.composite
def _contract(draw: st.DrawFn, axes: tuple[str, ...], style: str) -> dict[str, Any]:
    """One class's boundary entry without ``params`` (an inferred one has a contract key)."""
    entry: dict[str, Any] = {"is_boundary": True} if style == "explicit" else {}
    for side, names in (("in", ("hidden_states",)), ("out", ("output",))):
        for end in ("src", "dst"):
            if draw(_BOOLS):
                entry[f"{side}_{end}"] = {name: draw(_placements(axes)) for name in names}
    if style == "inferred" and not any(key.endswith(("_src", "_dst")) for key in entry):
        entry["out_names"] = ["output"]
    for key in draw(_FLAG_KEYS):
        entry[key] = draw(_BOOLS)
    return entry


@st.composite
def _params(draw: st.DrawFn, axes: tuple[str, ...]) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(("weight", "bias", "up_proj.weight",
                                           "down_proj.weight")), max_size=2, unique=True))
    return {name: draw(_placements(axes)) for name in names}


def _sharded(param_plan: dict[str, Any]) -> list[str]:
    """``frozen_sharded_params`` of a generated plan: every param with an S, SS or P."""
    return sorted(f"{fqn}.{name}" for fqn, entry in param_plan.items()
                  if isinstance(entry, dict)
                  for name, named in (entry.get("params") or {}).items()
                  if any(value != "R" for value in named.values()))


@st.composite
def sound_plan_dicts(draw: st.DrawFn, *, max_layers: int = 4) -> dict[str, Any]:
    """A plain-dict plan that passes every check of :func:`metaplan.core.invariants.verify`.

    Spec coverage included, with the built-in specs. Its boundaries are
    marked ``is_boundary: true`` or only by their contract (upstream's
    predicate), each class's boundaries share one contract, non-boundaries
    are ``is_boundary: false`` or carry no contract, placements are valid on
    ``mesh_dim_names`` (when it is there), ``frozen_sharded_params`` is exact,
    and the fields upstream's schema types have those types. The model type
    is in ``model_type``, ``model_class``, ``source.architecture`` or nowhere.
    """
    modules = draw(model_trees(max_layers))
    mesh = draw(_MESHES)
    axes = mesh or ("tp",)
    styles: dict[str, str] = {}
    contracts: dict[str, dict[str, Any]] = {}
    param_plan: dict[str, Any] = {}
    for fqn, cls in modules:
        if cls not in styles:
            styles[cls] = draw(_STYLES)
            contracts[cls] = draw(_contract(axes, styles[cls]))
        if styles[cls] != "none" and draw(st.sampled_from((True, True, True, False))):
            entry = copy.deepcopy(contracts[cls])
        elif draw(_BOOLS):
            entry = {"is_boundary": False, **{key: value for key, value in contracts[cls].items()
                                              if key != "is_boundary"}}
        else:
            entry = {}
        params = draw(_params(axes))
        if params or not entry:
            entry["params"] = params
        param_plan[fqn] = entry
    moe = [(fqn, cls) for fqn, cls in modules if cls in MOE_CLASSES]
    target = DEEPSEEK if moe and moe[0][1] == "DeepseekV3MoE" else QWEN
    injections = [{"match": fqn, "local_compute_fn": {"_target_": target}, "ep_size": 8}
                  for fqn, _ in moe if draw(_BOOLS)]
    if bool(moe) and draw(_BOOLS):
        injections.append({"match": "model.layers.*.mlp", "local_compute_fn": target})
    meta: dict[str, Any] = {
        "param_plan": param_plan, "boundary_classes": dict(modules), "injections": injections,
        "external_state_classes": [moe[0][1]] if bool(moe) and draw(_BOOLS) else [],
        "frozen_sharded_params": _sharded(param_plan),
    }
    if mesh is not None:
        meta["mesh_dim_names"] = list(mesh)
    for key, value in _SCHEMA_FIELDS.items():
        if draw(_BOOLS):
            meta[key] = copy.deepcopy(value)
    model_type, architecture = _ARCHITECTURES[moe[0][1] if moe else "DeepseekV3MoE"]
    where = draw(_IDENTITIES)
    if where == "model_type":
        meta["model_type"] = model_type
    elif where == "model_class":
        meta["model_class"] = architecture
    elif where == "source.architecture":
        meta["source"] = {"architecture": architecture, "transformers": "4.57.0"}
    return meta


VERIFY_CHECKS = ("entry-object", "boundary-class", "class-key", "single-contract",
                 "injection-agreement", "spec-coverage", "non-empty", "frozen-sharded-params",
                 "placement", "schema")
"""The checks :func:`violating_plan_dicts` can break: every one of
:data:`metaplan.core.invariants.CHECKS` that a plan as frozen passes (all but the
:data:`~metaplan.core.invariants.NORMAL_FORM_CHECKS`)."""


class ViolatingPlan(NamedTuple):
    """A plan dict that breaks one check once: the check, and the path it must report."""

    meta: dict[str, Any]
    check: str
    path: tuple[Any, ...]


def _new_fqn(meta: dict[str, Any], stem: str) -> str:
    taken = set(meta["param_plan"]) | set(meta["boundary_classes"])
    return next(f"{stem}{i}" for i in range(len(taken) + 1) if f"{stem}{i}" not in taken)


def _boundaries(meta: dict[str, Any]) -> dict[str, list[str]]:
    """Class -> its boundary FQNs (sorted), in a sound plan."""
    found: dict[str, list[str]] = {}
    for fqn, entry in sorted(meta["param_plan"].items()):
        cls = meta["boundary_classes"].get(fqn)
        flag = entry.get("is_boundary")
        if cls and (bool(flag) if flag is not None else
                    any(entry.get(key) for key in ("in_src", "in_dst", "out_src", "out_dst",
                                                   "out_names"))):
            found.setdefault(cls, []).append(fqn)
    return found


def _axis(meta: dict[str, Any]) -> str:
    return str(meta.get("mesh_dim_names", ["tp"])[-1])


def _break_entry_object(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    fqn = _new_fqn(meta, "model.extra_")
    meta["param_plan"][fqn] = draw(st.sampled_from(("opaque", ["weight"], None, 3, True)))
    return ("param_plan", fqn)


def _break_boundary_class(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    fqns = [fqn for group in _boundaries(meta).values() for fqn in group]
    how = draw(st.sampled_from(("drop", "empty", "new"))) if fqns else "new"
    if how == "new":
        fqn = _new_fqn(meta, "model.unclassed_")
        meta["param_plan"][fqn] = draw(st.sampled_from((
            {"is_boundary": True}, {"is_boundary": 1}, {"out_names": ["output"]},
            {"in_src": {"x": {_axis(meta): "R"}}})))
        return ("param_plan", fqn)
    fqn = draw(st.sampled_from(fqns))
    if how == "drop":
        del meta["boundary_classes"][fqn]
    else:
        meta["boundary_classes"][fqn] = ""
    return ("param_plan", fqn)


def _break_class_key(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    fqn = _new_fqn(meta, "model.ghost_")
    meta["boundary_classes"][fqn] = draw(st.sampled_from(CLASSES))
    return ("boundary_classes", fqn)


def _break_single_contract(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    shared = [group for group in _boundaries(meta).values() if len(group) > 1]
    if shared:
        fqn = draw(st.sampled_from(shared))[-1]  # the last by FQN: alone in its contract
    else:
        groups = list(_boundaries(meta).items())
        if not groups:
            cls, original = "MLP", "model.layers.0.mlp"
            meta["param_plan"][original] = {"is_boundary": True}
            meta["boundary_classes"][original] = cls
            meta["frozen_sharded_params"] = _sharded(meta["param_plan"])
        else:
            cls, (original, *_) = draw(st.sampled_from(groups))
        fqn = original + "~copy"  # sorts after the original
        meta["param_plan"][fqn] = {key: copy.deepcopy(value)
                                   for key, value in meta["param_plan"][original].items()
                                   if key != "params"}
        meta["boundary_classes"][fqn] = cls
    entry = meta["param_plan"][fqn]
    how = draw(st.sampled_from(("flag", "placement", "new key")))
    if how == "flag":
        key = draw(st.sampled_from(("region_dispatch", "needs_cp_attn", "skip_source_lowering")))
        entry[key] = not entry.get(key, False)
    elif how == "placement":
        old = entry.get("in_src", {}).get("hidden_states", {}).get(_axis(meta))
        entry.setdefault("in_src", {})["hidden_states"] = {
            _axis(meta): "S(1)" if old == "S(0)" else "S(0)"}
    else:
        entry["x_future_key"] = 1
    return ("boundary_classes", fqn)


def _break_injection_agreement(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    injections = meta["injections"]
    for injection in injections:
        if injection["match"] in meta["boundary_classes"]:
            other = QWEN if "deepseek" in str(injection["local_compute_fn"]) else DEEPSEEK
            injections.append({"match": injection["match"], "local_compute_fn": other})
            return ("injections", len(injections) - 1, "local_compute_fn")
    fqn = draw(st.sampled_from(sorted(meta["boundary_classes"]) or ["lm_head"]))
    meta["boundary_classes"].setdefault(fqn, "Linear")
    meta["param_plan"].setdefault(fqn, {"params": {}})
    injections += [{"match": fqn, "inner_target": "self_attn.core"},
                   {"match": fqn, "inner_target": "self_attn.other"}]
    return ("injections", len(injections) - 1, "inner_target")


def _break_spec_coverage(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    key = draw(st.sampled_from(("local_compute_fn", "inner_wrapper")))
    target = draw(st.sampled_from(("example.recipes.unknown_fn",
                                   {"_target_": "example.cp.ring_wrapper"})))
    meta["injections"].append({"match": "model.layers.*.self_attn", key: target})
    return ("injections", len(meta["injections"]) - 1, key)


def _break_non_empty(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    meta["param_plan"], meta["boundary_classes"] = {}, {}
    meta["frozen_sharded_params"] = []
    return ("param_plan",)


def _break_frozen_sharded(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    listed = meta["frozen_sharded_params"]
    hows = ["extra", "not an array"] + (["missing", "twice"] if listed else []) \
        + (["unsorted"] if len(listed) > 1 else [])
    how = draw(st.sampled_from(hows))
    if how == "extra":
        listed.insert(draw(st.integers(0, len(listed))), "model.nowhere.weight")
        listed.sort()
    elif how == "not an array":
        meta["frozen_sharded_params"] = draw(st.sampled_from(("x", {"a": 1}, [1])))
    elif how == "missing":
        del listed[draw(st.integers(0, len(listed) - 1))]
    elif how == "twice":
        listed.insert(0, listed[0])
    else:
        listed.reverse()
    return ("frozen_sharded_params",)


_BAD_PLACEMENTS = ("S(x)", "Q", "SS(1)", "P()", "", "S(0,1)", "S", "R(0)", "s(0)", "SS(0,x)")


def _break_placement(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    fqn = draw(st.sampled_from(sorted(meta["param_plan"]) or ["model.norm"]))
    params = meta["param_plan"].setdefault(fqn, {}).setdefault("params", {})
    name = "bogus.weight"
    hows = ["parse", "type", "shape"] + (["axis"] if "mesh_dim_names" in meta else [])
    how = draw(st.sampled_from(hows))
    axis = _axis(meta)
    if how == "shape":
        params[name] = draw(st.sampled_from(("S(0)", ["S(0)"], 1)))
        return ("param_plan", fqn, "params", name)
    if how == "axis":
        axis = draw(st.sampled_from(("dp", "cp", "TP")))
        params[name] = {axis: "R"}
    else:
        params[name] = {axis: draw(st.sampled_from(_BAD_PLACEMENTS)) if how == "parse"
                        else draw(st.sampled_from((0, True, ["R"], {"x": "R"})))}
    return ("param_plan", fqn, "params", name, axis)


_SCHEMA_BREAKS: tuple[tuple[str, Any, tuple[Any, ...]], ...] = (
    ("codegen_version", 1, ()), ("signature", None, ()), ("yaml_path", [], ()),
    ("yaml_sha256", {}, ()), ("source", "x", ()), ("parallel_dims", [8], ()),
    ("outputs", "x", ()), ("entrypoints", {"parallelize": 1}, ("parallelize",)),
    ("entrypoints", [], ()), ("covered", {"sharding_plan": "yes"}, ("sharding_plan",)),
    ("covered", {}, ("sharding_plan",)), ("covered", 1, ()),
    ("not_covered", ["mesh", 1], (1,)), ("remote_siblings", "x", ()),
)


def _break_schema(draw: st.DrawFn, meta: dict[str, Any]) -> tuple[Any, ...]:
    key, value, under = draw(st.sampled_from(_SCHEMA_BREAKS))
    meta[key] = copy.deepcopy(value)
    return (key, *under)


_BREAKS = {
    "entry-object": _break_entry_object, "boundary-class": _break_boundary_class,
    "class-key": _break_class_key, "single-contract": _break_single_contract,
    "injection-agreement": _break_injection_agreement, "spec-coverage": _break_spec_coverage,
    "non-empty": _break_non_empty, "frozen-sharded-params": _break_frozen_sharded,
    "placement": _break_placement, "schema": _break_schema,
}


@st.composite
def _violating(draw: st.DrawFn, check: str | None) -> ViolatingPlan:
    name = check if check is not None else draw(st.sampled_from(VERIFY_CHECKS))
    meta = draw(sound_plan_dicts())
    path = _BREAKS[name](draw, meta)
    return ViolatingPlan(meta, name, path)


def violating_plan_dicts(check: str | None = None) -> st.SearchStrategy[ViolatingPlan]:
    """A :func:`sound_plan_dicts` plan with one violation of ``check`` (any, when None).

    ``verify(Plan.from_json(meta), CHECKS)`` reports exactly one violation:
    ``check`` at ``path``. Use it to property-test a pass against a check (a
    pass that must not break a sound plan), or a verifier of your own.
    """
    if check is not None and check not in _BREAKS:
        raise ValueError(f"violating_plan_dicts: unknown check {check!r}; known: "
                         f"{', '.join(VERIFY_CHECKS)}")
    return _violating(check)
