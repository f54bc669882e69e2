"""The rule and spec types: where an inline strategy applies, what it does, and the registry
that finds a spec by ``(target, model_type)``."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from pyrsistent import PMap, pmap

from metaplan.core.rules.models import model_key
from metaplan.frozen import JSONMap, thaw

__all__ = ["InlineRule", "SpecRegistry", "StrategySpec"]


@dataclass(frozen=True)
class InlineRule:
    """Where an inline strategy applies: FQN glob patterns and the strategy's targets."""

    match: tuple[str, ...]
    _: KW_ONLY  # the targets and options by name: InlineRule(("m.*",), replace_target="x")
    local_compute_target: str | None = None
    when: Any = None
    module_type: str | None = None
    replace_target: str | None = None
    inner_wrapper_target: str | None = None
    region_dispatch: Any = None
    options: JSONMap = field(default_factory=JSONMap)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; :func:`rule_from_json` reads it back."""
        return {"match": list(self.match), "local_compute_target": self.local_compute_target,
                "when": thaw(self.when), "module_type": self.module_type,
                "replace_target": self.replace_target,
                "inner_wrapper_target": self.inner_wrapper_target,
                "region_dispatch": thaw(self.region_dispatch), "options": thaw(self.options)}


@dataclass(frozen=True)
class StrategySpec:
    """What an inline strategy target does: the class it inlines and the sub-modules it owns."""

    target: str
    kind: str
    _: KW_ONLY  # the rest by name
    target_class: str | None = None
    strip_boundary_subpatterns: tuple[str, ...] = ()
    model_type: str | None = None
    options: JSONMap = field(default_factory=JSONMap)



@dataclass(frozen=True)
class SpecRegistry:
    """Specs keyed by ``(target, model_type)``, plus model-type aliases; immutable.

    ``aliases`` maps another name of a model type (an HF architecture such as
    ``MixtralForCausalLM``) to the model type specs are declared under
    (``mixtral``); :meth:`with_aliases` adds some.
    """

    specs: PMap[Any, Any] = field(default_factory=pmap)
    aliases: PMap[Any, Any] = field(default_factory=pmap)

    @classmethod
    def of(cls, specs: Iterable[StrategySpec],
           aliases: Mapping[str, str] | None = None) -> SpecRegistry:
        """A registry of ``specs``; a later spec for the same key replaces an earlier one."""
        return cls(pmap({(spec.target, spec.model_type): spec for spec in specs}),
                   pmap(dict(aliases or {})))

    def with_aliases(self, aliases: Mapping[str, str]) -> SpecRegistry:
        """This registry plus ``aliases`` (name -> model type; they win on equal names)."""
        return SpecRegistry(self.specs, self.aliases.update(dict(aliases)))

    @functools.cached_property
    def _by_key(self) -> dict[str, str]:
        """:func:`model_key` -> model type, for every model type and alias known here."""
        index: dict[str, str] = {}
        for _, model_type in self.specs:
            if model_type is not None:
                index.setdefault(model_key(model_type), model_type)
        for name, model_type in sorted(self.aliases.items()):
            index.setdefault(model_key(model_type), model_type)
            index.setdefault(model_key(name), model_type)
        return index

    def canonical_model_type(self, model_type: str | None) -> str | None:
        """The model type specs are declared under for ``model_type``.

        An alias's target when ``model_type`` is an alias; else the model type
        (of a spec or an alias) it names in another spelling (see
        :func:`model_key`); else ``model_type`` itself.

        >>> registry = SpecRegistry.of((), {"MixtralForCausalLM": "mixtral"})
        >>> registry.canonical_model_type("MixtralForCausalLM"), registry.canonical_model_type(
        ...     "Mixtral"), registry.canonical_model_type("llama")
        ('mixtral', 'mixtral', 'llama')
        """
        if model_type is None:
            return None
        alias: str | None = self.aliases.get(model_type)
        if alias is not None:
            return alias
        return self._by_key.get(model_key(model_type), model_type)

    def lookup(self, target: str, model_type: str | None) -> StrategySpec | None:
        """The spec for ``(target, model_type)``, else for the model type an alias names,
        else ``(target, None)``, else ``None``."""
        spec: StrategySpec | None = self.specs.get((target, model_type))
        if spec is None and model_type is not None:
            canonical = self.canonical_model_type(model_type)
            if canonical != model_type:
                spec = self.specs.get((target, canonical))
        return spec if spec is not None else self.specs.get((target, None))

    def __len__(self) -> int:
        return len(self.specs)

    def __repr__(self) -> str:
        aliases = f", {len(self.aliases)} aliases" if self.aliases else ""
        return f"SpecRegistry(<{len(self.specs)} specs{aliases}>)"
