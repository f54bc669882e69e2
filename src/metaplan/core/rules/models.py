"""A plan's model type, as upstream's emitter reads it, and the spelling-free key of one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["MODEL_TYPE_FIELDS", "ModelType", "model_key", "model_type_of"]


class ModelType(NamedTuple):
    """The model type specs are looked up by, and where it was read from.

    ``source`` is the plan field (``model_type``, ``model_class``,
    ``source.architecture``), ``none`` when the plan names no model type, or
    whatever a caller sets (the command line says ``--model-type``).
    """

    value: str | None
    source: str

    def describe(self) -> str:
        """``deepseek_v3 (the plan's model_type)``: the value and where it came from.

        >>> print(ModelType("DeepseekV3ForCausalLM", "model_class").describe())
        DeepseekV3ForCausalLM (the plan's model_class)
        >>> print(ModelType(None, "none").describe())
        none (the plan has no model_type, model_class or source.architecture)
        """
        if self.value is None:
            return ("none (the plan has no model_type, model_class or source.architecture)"
                    if self.source == "none" else f"none ({self.source})")
        where = (f"the plan's {self.source}" if self.source in MODEL_TYPE_FIELDS
                 else self.source)
        return f"{self.value} ({where})"


MODEL_TYPE_FIELDS = ("model_type", "model_class", "source.architecture")
"""Where :func:`model_type_of` looks, in order."""


def model_type_of(plan: Mapping[str, Any]) -> ModelType:
    """The model type of a plan (or plan dict), as upstream's codegen reads it.

    The plan's ``model_type`` when it is a non-empty string, else its
    ``model_class`` (upstream's emitter passes the entry model class,
    e.g. ``DeepseekV3ForCausalLM``), else ``source["architecture"]`` (what
    upstream's ``manager._record_inline_declarations`` reads), else none.
    Spec lookups then resolve an architecture name to its model type through
    the registry's aliases (:meth:`SpecRegistry.canonical_model_type`).

    >>> model_type_of({"model_class": "DeepseekV3ForCausalLM",
    ...                "source": {"architecture": "Other"}})
    ModelType(value='DeepseekV3ForCausalLM', source='model_class')
    >>> model_type_of({"model_type": "", "source": {"architecture": "Qwen3MoeForCausalLM"}})
    ModelType(value='Qwen3MoeForCausalLM', source='source.architecture')
    >>> model_type_of({})
    ModelType(value=None, source='none')
    """
    for name in MODEL_TYPE_FIELDS[:2]:
        value = plan.get(name)
        if isinstance(value, str) and value:
            return ModelType(value, name)
    source = plan.get("source")
    if isinstance(source, Mapping):
        value = source.get("architecture")
        if isinstance(value, str) and value:
            return ModelType(value, MODEL_TYPE_FIELDS[2])
    return ModelType(None, "none")


_ARCH_SUFFIXES = ("forcausallm", "forconditionalgeneration", "forsequenceclassification",
                  "forimagetexttotext")


def model_key(name: str) -> str:
    """The spelling-free key of a model type, as upstream's model registry compares them.

    Lower case, without ``_`` and ``-``, and without an HF task suffix
    (upstream ``models/registry._normalize_family_key``), so ``deepseek_v3``,
    ``deepseekv3`` and ``DeepseekV3ForCausalLM`` name one family.

    >>> model_key("DeepseekV3ForCausalLM"), model_key("deepseek_v3"), model_key("Qwen3-MoE")
    ('deepseekv3', 'deepseekv3', 'qwen3moe')
    """
    key = name.lower().replace("_", "").replace("-", "")
    for suffix in _ARCH_SUFFIXES:
        if key.endswith(suffix):
            return key[:-len(suffix)]
    return key
