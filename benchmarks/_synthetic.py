"""DeepSeek-V3-shaped synthetic plans of any size, built from the real fixture's entries."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from _common import load_dict


def synthetic_plan(layers: int, experts: int = 64, dense: int = 3) -> dict[str, Any]:
    """A plan like DeepSeek-V3's with ``layers`` layers of ``experts`` routed experts each.

    Entries and classes are copied from the real plan's layer 0 (dense) and
    layer 3 (MoE); there is one injection per MoE layer, as upstream writes.
    """
    real = load_dict("deepseek_v3.hf4")
    plan, classes = real["param_plan"], real["boundary_classes"]

    def module(source: str, target: str) -> tuple[str, Any, Any]:
        return target, plan[source], classes[source]

    param_plan: dict[str, Any] = {}
    boundary_classes: dict[str, Any] = {}
    injections = []
    rows = [module(name, name) for name in ("lm_head", "model.embed_tokens", "model.norm")]
    for i in range(layers):
        if i < dense:
            rows += [module(f"model.layers.0.{part}", f"model.layers.{i}.{part}")
                     for part in ("mlp", "self_attn")]
            continue
        rows += [module(f"model.layers.3.{part}", f"model.layers.{i}.{part}")
                 for part in ("mlp", "mlp.gate", "mlp.shared_experts", "self_attn")]
        rows += [module(f"model.layers.3.mlp.experts.{e % 256}",
                        f"model.layers.{i}.mlp.experts.{e}") for e in range(experts)]
        injection = copy.deepcopy(real["injections"][0])
        injection["match"] = f"model.layers.{i}.mlp"
        injections.append(injection)
    for fqn, entry, cls in rows:
        param_plan[fqn] = entry  # shared: serializing writes each occurrence out
        boundary_classes[fqn] = cls
    meta = {key: value for key, value in real.items()
            if key not in ("param_plan", "boundary_classes", "injections")}
    meta.update(param_plan=param_plan, boundary_classes=boundary_classes,
                injections=injections)
    return meta


def synthetic_bytes(layers: int, experts: int = 64, dense: int = 3) -> bytes:
    """The synthetic plan as ``json.dumps(indent=2, sort_keys=True)`` writes it.

    (orjson writes the same bytes for this all-ASCII, float-free data, and
    quickly.)
    """
    return orjson.dumps(synthetic_plan(layers, experts, dense),
                        option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
