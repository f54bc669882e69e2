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
from typing import Any

from hypothesis import strategies as st

from metaplan.core.plan import Plan
from metaplan.core.rules import InlineRule, SpecRegistry, StrategySpec
from metaplan.paths import format_path

__all__ = [
    "CLASSES",
    "DEEPSEEK",
    "MOE_CLASSES",
    "PLACEMENTS",
    "QWEN",
    "TARGETS",
    "bad_plan_dicts",
    "model_trees",
    "plan_dicts",
    "plans",
    "rule_lists",
    "spec_registries",
]

DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"
QWEN = ("hyper_parallel.models.qwen3_moe.adapter.distributed.expert_parallel"
        ".qwen3moe_ep_compute_fn")
TARGETS = (DEEPSEEK, QWEN, "example.recipes.unknown_fn")
"""Strategy targets: the two upstream archetypes and one no spec knows."""

CLASSES = ("DeepseekV3MoE", "Qwen3MoeSparseMoeBlock", "MLP", "Experts", "Router", "Linear",
           "Attention", "RMSNorm")
"""Class names the generated plans use."""

MOE_CLASSES = ("DeepseekV3MoE", "Qwen3MoeSparseMoeBlock")
"""The MoE block classes of the generated model trees."""
PLACEMENTS = ("R", "S(0)", "S(1)", "S(-1)", "P(sum)")
"""The placements generated entries use."""
_SUB_PATTERNS = ("experts.*", "shared_experts", "gate", "experts.?", "experts.[0-1]", "*")


# strategies built once: building them in every draw costs more than drawing from them
_SHAPES = st.sampled_from(("object",) * 12 + ("null", "list", "string"))
_FLAGS = st.sampled_from((True, True, True, False, False, "missing"))
_ODD_FLAGS = st.sampled_from((True, True, True, False, False, "missing", 1, 0))
_BOOLS = st.booleans()
_PLACEMENT = st.sampled_from(PLACEMENTS)
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
def model_trees(draw: st.DrawFn, max_layers: int = 5) -> list[tuple[str, str]]:
    """``(fqn, class)`` for a small model tree with dense and MoE layers."""
    layers = draw(st.integers(1, max_layers))
    dense = draw(st.integers(0, layers))
    moe_class = draw(st.sampled_from(MOE_CLASSES))
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
    modules = draw(model_trees(max_layers))
    param_plan: dict[str, Any] = {}
    classes: dict[str, Any] = {}
    for fqn, cls in modules:
        where = draw(_WHERE)
        if where != "classes only":
            param_plan[fqn] = draw(_ENTRIES[odd_flags])
        if where != "plan only":
            classes[fqn] = cls
    moe_fqns = [fqn for fqn, cls in modules if cls in MOE_CLASSES]
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


_SOME_PATTERNS = st.lists(st.sampled_from(_SUB_PATTERNS), min_size=1, max_size=2, unique=True)
_COMMON_PATTERNS: st.SearchStrategy[list[str]] = st.one_of(st.just([]), _SOME_PATTERNS,
                                                           _SOME_PATTERNS)
_SPEC_PATTERNS: st.SearchStrategy[list[str]] = st.one_of(st.just([]), _SOME_PATTERNS)
_UPSTREAM_ORDER = st.permutations(TARGETS[:2])
_MORE_TARGETS = st.lists(st.sampled_from(TARGETS), max_size=2)
_TARGET_CLASSES = st.sampled_from((*MOE_CLASSES, *MOE_CLASSES, "MLP", None))
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
