"""The built-in specs and aliases: upstream's DeepSeek-V3 and Qwen3-MoE archetypes."""

from __future__ import annotations

from metaplan.core.rules.specs import SpecRegistry, StrategySpec

__all__ = ["BUILTIN_ALIASES", "BUILTIN_SPECS"]

_UPSTREAM = "hyper_parallel"
BUILTIN_ALIASES = {"DeepseekV3ForCausalLM": "deepseek_v3", "Qwen3MoeForCausalLM": "qwen3_moe"}
"""The architectures upstream registers for the two archetypes' model types
(``models/deepseek_v3`` and ``models/qwen3_moe``, ``adapter/registration.py``)."""

BUILTIN_SPECS = SpecRegistry.of((
    StrategySpec(
        target=f"{_UPSTREAM}.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn",
        kind="moe_ep_routed", target_class="DeepseekV3MoE",
        strip_boundary_subpatterns=("experts.*", "shared_experts")),
    StrategySpec(
        target=f"{_UPSTREAM}.models.qwen3_moe.adapter.distributed.expert_parallel"
               ".qwen3moe_ep_compute_fn",
        kind="moe_ep_routed", target_class="Qwen3MoeSparseMoeBlock",
        strip_boundary_subpatterns=()),
), BUILTIN_ALIASES)
"""The upstream archetypes: DeepSeek-V3 and Qwen3-MoE expert-parallel strategies."""
