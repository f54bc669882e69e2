"""Hypothesis strategies for realistic plans, and the laws every pass must keep.

Needs the ``test`` extra (hypothesis). Use it for your own passes::

    from hypothesis import given
    from metaplan.testing import check_pass_laws, plans

    @given(plans())
    def test_my_pass(plan):
        check_pass_laws(my_pass, plan)

The generated plans look like real MoE model trees: dotted FQNs
(``model.layers.3.mlp.experts.7``), dense and MoE layers, one class used as
dense MLP, routed and shared expert at once, EP targets with sub-modules,
external-state classes, injections with exact and glob matches, plus the odd
shapes real files carry (non-object entries, ``is_boundary`` missing,
FQNs in one map but not the other). ``plan_dicts(odd_flags=True)`` adds
``is_boundary: 1`` / ``0``, which the in-place seed and ``Plan.from_json``
take but a loaded file may not hold; :func:`bad_plan_dicts` gives plans with
one field of the wrong shape, and where the error must point.
"""

from __future__ import annotations

import copy
from typing import Any, NamedTuple

from hypothesis import strategies as st

from metaplan.algorithms.braces import group_key
from metaplan.core.plan import Plan, dumps
from metaplan.core.rules import InlineRule, SpecRegistry, StrategySpec
from metaplan.errors import format_path
from metaplan.pipelines.chaining import Pass, replay
from metaplan.records.algebra import invert
from metaplan.records.codec import dumps_records, loads_records
from metaplan.records.edit import apply

__all__ = [
    "CLASSES",
    "TARGETS",
    "VERIFY_CHECKS",
    "PlanVersions",
    "ViolatingPlan",
    "bad_plan_dicts",
    "check_pass_laws",
    "edited_plan_dicts",
    "law",
    "plan_dicts",
    "plan_pairs",
    "plan_versions",
    "plans",
    "rule_lists",
    "set_versions",
    "sound_plan_dicts",
    "spec_registries",
    "versioned_plan_dicts",
    "violating_plan_dicts",
]

DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"
QWEN = ("hyper_parallel.models.qwen3_moe.adapter.distributed.expert_parallel"
        ".qwen3moe_ep_compute_fn")
TARGETS = (DEEPSEEK, QWEN, "example.recipes.unknown_fn")
"""Strategy targets: the two upstream archetypes and one no spec knows."""

CLASSES = ("DeepseekV3MoE", "Qwen3MoeSparseMoeBlock", "MLP", "Experts", "Router", "Linear",
           "Attention", "RMSNorm")
"""Class names the generated plans use."""

_MOE = ("DeepseekV3MoE", "Qwen3MoeSparseMoeBlock")
_PLACEMENTS = ("R", "S(0)", "S(1)", "S(-1)", "P(sum)")
_SUB_PATTERNS = ("experts.*", "shared_experts", "gate", "experts.?", "experts.[0-1]", "*")


# strategies built once: building them in every draw costs more than drawing from them
_SHAPES = st.sampled_from(("object",) * 12 + ("null", "list", "string"))
_FLAGS = st.sampled_from((True, True, True, False, False, "missing"))
_ODD_FLAGS = st.sampled_from((True, True, True, False, False, "missing", 1, 0))
_BOOLS = st.booleans()
_PLACEMENT = st.sampled_from(_PLACEMENTS)
_TENTH = st.integers(0, 9)
_SKIPS = st.sampled_from((True, False, 1))
_WHERE = st.sampled_from(("both",) * 8 + ("plan only", "classes only"))


@st.composite
def _entry(draw: st.DrawFn, odd_flags: bool = True) -> Any:
    """One param_plan entry: usually an object, now and then something else."""
    shape = draw(_SHAPES)
    if shape == "null":
        return None
    if shape == "list":
        return ["weight"]
    if shape == "string":
        return "opaque"
    entry: dict[str, Any] = {}
    flag = draw(_ODD_FLAGS if odd_flags else _FLAGS)
    if flag != "missing":
        entry["is_boundary"] = flag
    if draw(_BOOLS):
        entry["params"] = {"weight": {"tp": draw(_PLACEMENT)}}
    if draw(_BOOLS):
        entry["in_src"] = {"hidden_states": {"tp": draw(_PLACEMENT)}}
    if draw(_TENTH) == 0:
        entry["skip_source_lowering"] = draw(_SKIPS)
    if draw(_TENTH) == 1:  # explicit empty containers mean something (metaplan.fields)
        entry.setdefault("params", {})
        entry["tp_divide_attrs"] = draw(st.sampled_from([[], ["num_heads"]]))
    return entry


_ENTRIES = {True: _entry(True), False: _entry(False)}


@st.composite
def _modules(draw: st.DrawFn, max_layers: int = 5) -> list[tuple[str, str]]:
    """``(fqn, class)`` for a small model tree with dense and MoE layers."""
    layers = draw(st.integers(1, max_layers))
    dense = draw(st.integers(0, layers))
    moe_class = draw(st.sampled_from(_MOE))
    expert_class = draw(st.sampled_from(("MLP", "Experts")))
    experts = draw(st.integers(0, min(4, max_layers)))
    shared = draw(st.booleans())
    gate_class = draw(st.sampled_from(("Router", "Linear")))
    modules = [("model.embed_tokens", "Embedding"), ("lm_head", "Linear"),
               ("model.norm", "RMSNorm")]
    for i in range(layers):
        base = f"model.layers.{i}"
        modules += [(f"{base}.self_attn", "Attention"), (f"{base}.input_layernorm", "RMSNorm")]
        if i < dense:
            modules.append((f"{base}.mlp", "MLP"))
            continue
        modules += [(f"{base}.mlp", moe_class), (f"{base}.mlp.gate", gate_class)]
        modules += [(f"{base}.mlp.experts.{e}", expert_class) for e in range(experts)]
        if shared:
            modules.append((f"{base}.mlp.shared_experts", "MLP"))
    return modules


@st.composite
def _injection(draw: st.DrawFn, moe_fqns: list[str]) -> dict[str, Any]:
    fqn = draw(st.sampled_from(moe_fqns)) if moe_fqns else "model.layers.0.mlp"
    match = draw(st.sampled_from((fqn, fqn, "model.layers.*.mlp", fqn.replace(".mlp", "*"),
                                  "model.layers.?.mlp", "model.layers.[0-2].mlp", "*.mlp.gate")))
    target = draw(st.sampled_from(TARGETS))
    fn = draw(st.sampled_from((target, {"_target_": target}, {"target": target})))
    return {"match": match, "local_compute_fn": fn, "ep_size": 8}


@st.composite
def plan_dicts(draw: st.DrawFn, *, odd_flags: bool = True, max_layers: int = 5
               ) -> dict[str, Any]:
    """A plain-dict ``codegen_meta.json`` with a realistic MoE shape.

    ``odd_flags=False`` keeps every ``is_boundary`` a boolean: a plan
    :func:`~metaplan.core.plan.loads` accepts from a file. ``max_layers`` bounds
    the decoder layers (and experts per layer): smaller plans, faster soaks.
    """
    modules = draw(_modules(max_layers))
    param_plan: dict[str, Any] = {}
    classes: dict[str, Any] = {}
    for fqn, cls in modules:
        where = draw(_WHERE)
        if where != "classes only":
            param_plan[fqn] = draw(_ENTRIES[odd_flags])
        if where != "plan only":
            classes[fqn] = cls
    moe_fqns = [fqn for fqn, cls in modules if cls in _MOE]
    injections = draw(st.lists(_injection(moe_fqns), min_size=draw(st.sampled_from((0, 1, 1))),
                               max_size=4))
    external = draw(st.lists(st.sampled_from(CLASSES), max_size=2, unique=True))
    meta: dict[str, Any] = {
        "param_plan": param_plan, "boundary_classes": classes, "injections": injections,
        "external_state_classes": external, "codegen_version": "1",
        "frozen_sharded_params": sorted(param_plan)[:3], "module_overrides": [],
    }
    model_type = draw(st.sampled_from(("deepseek_v3", "qwen3_moe", None, "absent")))
    if model_type != "absent":
        meta["model_type"] = model_type
    return meta


_NOT_BOOL: tuple[Any, ...] = (1, 0, "false", "true", None, [], {})
_NOT_STR: tuple[Any, ...] = (1, 2.5, True, None, [], {"name": "MLP"})
_NOT_MAP: tuple[Any, ...] = (1, "x", True, [], [{"a": 1}])
_NOT_LIST: tuple[Any, ...] = (1, "MoE", True, {"a": 1})
_BAD_PATTERNS: tuple[Any, ...] = ("", "model.layers.[0-2.mlp", "[", 3, None, [], ["*.mlp", ""], [3])


@st.composite
def bad_plan_dicts(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A loadable plan dict with one field of the wrong shape, and the JSON path the error names.

    Every case is one :func:`~metaplan.core.plan.loads` must refuse with an
    :class:`~metaplan.errors.InputError` whose message holds that path.
    """
    meta = copy.deepcopy(draw(plan_dicts(odd_flags=False)))
    case = draw(st.sampled_from(("flag", "class", "external", "param_plan", "classes",
                                 "external list", "injections", "injection", "match",
                                 "model_type")))
    if case == "flag":
        fqn = draw(st.sampled_from(sorted(meta["param_plan"]) or ["m"]))
        meta["param_plan"][fqn] = {"is_boundary": draw(st.sampled_from(_NOT_BOOL))}
        return meta, format_path(("param_plan", fqn, "is_boundary"))
    if case == "class":
        fqn = draw(st.sampled_from(sorted(meta["boundary_classes"]) or ["m"]))
        meta["boundary_classes"][fqn] = draw(st.sampled_from(_NOT_STR))
        return meta, format_path(("boundary_classes", fqn))
    if case == "external":
        meta["external_state_classes"].append(draw(st.sampled_from(_NOT_STR)))
        return meta, format_path(("external_state_classes", len(meta["external_state_classes"])
                                  - 1))
    if case in ("param_plan", "classes"):
        key = "param_plan" if case == "param_plan" else "boundary_classes"
        meta[key] = draw(st.sampled_from(_NOT_MAP))
        return meta, key
    if case in ("external list", "injections"):
        key = "injections" if case == "injections" else "external_state_classes"
        meta[key] = draw(st.sampled_from(_NOT_LIST))
        return meta, key
    if case == "model_type":
        meta["model_type"] = draw(st.sampled_from((3, True, [], {})))
        return meta, "model_type"
    at = len(meta["injections"])
    if case == "injection":
        meta["injections"].append(draw(st.sampled_from((1, "x", [], {"local_compute_fn": "x"}))))
        return meta, format_path(("injections", at))
    meta["injections"].append({"match": draw(st.sampled_from(_BAD_PATTERNS)),
                               "local_compute_fn": DEEPSEEK})
    return meta, format_path(("injections", at, "match"))


def plans() -> st.SearchStrategy[Plan]:
    """Frozen plans built from :func:`plan_dicts`."""
    return plan_dicts().map(Plan.from_json)


# plans that pass every check of metaplan.verify, and plans that break exactly one ---------

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
    """A plain-dict plan that passes every check of :func:`metaplan.checks.invariants.verify`.

    Spec coverage included, with the built-in specs. Its boundaries are
    marked ``is_boundary: true`` or only by their contract (upstream's
    predicate), each class's boundaries share one contract, non-boundaries
    are ``is_boundary: false`` or carry no contract, placements are valid on
    ``mesh_dim_names`` (when it is there), ``frozen_sharded_params`` is exact,
    and the fields upstream's schema types have those types. The model type
    is in ``model_type``, ``model_class``, ``source.architecture`` or nowhere.
    """
    modules = draw(_modules(max_layers))
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
    moe = [(fqn, cls) for fqn, cls in modules if cls in _MOE]
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
:data:`metaplan.checks.invariants.CHECKS` that a plan as frozen passes (all but the
:data:`~metaplan.checks.invariants.NORMAL_FORM_CHECKS`)."""


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


_SOME_PATTERNS = st.lists(st.sampled_from(_SUB_PATTERNS), min_size=1, max_size=2, unique=True)
_COMMON_PATTERNS: st.SearchStrategy[list[str]] = st.one_of(st.just([]), _SOME_PATTERNS,
                                                           _SOME_PATTERNS)
_SPEC_PATTERNS: st.SearchStrategy[list[str]] = st.one_of(st.just([]), _SOME_PATTERNS)
_UPSTREAM_ORDER = st.permutations(TARGETS[:2])
_MORE_TARGETS = st.lists(st.sampled_from(TARGETS), max_size=2)
_TARGET_CLASSES = st.sampled_from((*_MOE, *_MOE, "MLP", None))
_SPEC_MODEL_TYPES = st.sampled_from((None, None, "deepseek_v3"))
_RULE_MATCHES = st.lists(st.sampled_from((
    "model.layers.0.mlp", "model.layers.1.mlp", "model.layers.*.mlp", "*.mlp",
    "model.layers.[1-3].mlp", "lm_head")), min_size=1, max_size=2)
_RULE_TARGETS = st.sampled_from((*TARGETS, None))
_RULE_COUNT = st.integers(0, 3)


@st.composite
def spec_registries(draw: st.DrawFn, *, shared_patterns: bool = False) -> SpecRegistry:
    """Spec registries over :data:`TARGETS`, some specific to a model type.

    ``shared_patterns=True`` gives every spec the same strip patterns: the
    case where the seed's one-``strip_patterns``-for-all and metaplan's
    per-spec patterns must agree.
    """
    common = tuple(draw(_COMMON_PATTERNS))
    specs = []
    targets = [*draw(_UPSTREAM_ORDER), *draw(_MORE_TARGETS)]
    for target in targets:
        patterns = common if shared_patterns else tuple(draw(_SPEC_PATTERNS))
        specs.append(StrategySpec(
            target=target, kind="moe_ep_routed", target_class=draw(_TARGET_CLASSES),
            strip_boundary_subpatterns=patterns, model_type=draw(_SPEC_MODEL_TYPES)))
    return SpecRegistry.of(specs)


@st.composite
def rule_lists(draw: st.DrawFn) -> tuple[InlineRule, ...]:
    """Explicit rule lists (as ``--rules`` gives), exact and glob patterns mixed."""
    return tuple(InlineRule(match=tuple(draw(_RULE_MATCHES)),
                            local_compute_target=draw(_RULE_TARGETS))
                 for _ in range(draw(_RULE_COUNT)))


def law(holds: bool, message: str) -> None:
    """An ``assert`` that ``python -O`` does not strip: ``AssertionError(message)`` unless
    ``holds``."""
    if not holds:
        raise AssertionError(message)


def check_pass_laws(pass_: Pass, plan: Plan) -> None:
    """Assert the laws of a pass on ``plan``; raises ``AssertionError`` naming the law.

    The input is unchanged; the pass is deterministic (a second run gives
    the same record); a no-op returns the input object; the record's hashes
    are those of the input and the result; replaying the record (also after a
    JSON round trip) reproduces the result; inverting it restores the input.
    """
    before = dumps(plan)
    result = pass_(plan)
    law(dumps(plan) == before, f"{pass_.name}: the input plan changed")
    law(pass_(plan).record == result.record, f"{pass_.name}: a second run differs")
    record = result.record
    law(record.base == plan.content_hash, f"{pass_.name}: record base is not the input hash")
    law(record.result == result.plan.content_hash, f"{pass_.name}: record result hash")
    if record.is_noop:
        law(result.plan is plan, f"{pass_.name}: a no-op must return the input object")
    (reread,) = loads_records(dumps_records([record]))
    law(reread == record, f"{pass_.name}: the record does not round-trip through JSON")
    replayed = replay(plan, [reread])
    law(dumps(replayed) == dumps(result.plan), f"{pass_.name}: replay differs from result")
    restored = apply(result.plan, invert(record))
    law(dumps(restored) == before, f"{pass_.name}: invert does not restore the input")


# versions: a plan and edited versions of it, for diffs, folding and merges ----------------

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
        for field in ("param_plan", "boundary_classes"):
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
