"""The rule and spec types: where an inline strategy applies, what it does, and the registry
that finds a spec by ``(target, model_type)``; each writes its JSON form (``to_json()``) and
reads it back, checked (``from_json()``).

>>> spec = StrategySpec("x.fn", "moe_ep_routed", target_class="MoE")
>>> StrategySpec.from_json(spec.to_json()) == spec
True
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from pyrsistent import PMap, pmap

from metaplan.core.rules.checking import (
    found_instead,
    match_field,
    object_field,
    pattern_field,
    string_field,
    target_field,
)
from metaplan.core.rules.models import model_key
from metaplan.errors import SpecError, describe
from metaplan.frozen import JSONMap, freeze, thaw

__all__ = ["InlineRule", "SpecRegistry", "StrategySpec", "aliases_from_json"]


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
        """Plain JSON data; :meth:`from_json` reads it back."""
        return {"match": list(self.match), "local_compute_target": self.local_compute_target,
                "when": thaw(self.when), "module_type": self.module_type,
                "replace_target": self.replace_target,
                "inner_wrapper_target": self.inner_wrapper_target,
                "region_dispatch": thaw(self.region_dispatch), "options": thaw(self.options)}

    @classmethod
    def from_json(cls, obj: Any, where: str = "rule") -> InlineRule:
        """A rule from its JSON form (the fields of :class:`InlineRule`); unknown keys are
        refused."""
        obj = object_field(obj, where, "rule", _RULE_KEYS)
        match = match_field(obj.get("match"), f"{where}.match", "a rule")
        return cls(
            match=match,
            local_compute_target=target_field(obj.get("local_compute_target"),
                                              f"{where}.local_compute_target"),
            when=freeze(obj.get("when")),
            module_type=string_field(obj.get("module_type"), f"{where}.module_type",
                                     optional=True),
            replace_target=target_field(obj.get("replace_target"), f"{where}.replace_target"),
            inner_wrapper_target=target_field(obj.get("inner_wrapper_target"),
                                              f"{where}.inner_wrapper_target"),
            region_dispatch=freeze(obj.get("region_dispatch")),
            options=freeze(obj.get("options") or {}),
        )


_RULE_KEYS = ("match", "local_compute_target", "when", "module_type", "replace_target",
              "inner_wrapper_target", "region_dispatch", "options")


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

    def to_json(self) -> dict[str, Any]:
        """The object a specs file holds for it; :meth:`from_json` reads it back."""
        return {"target": self.target, "kind": self.kind, "target_class": self.target_class,
                "strip_boundary_subpatterns": list(self.strip_boundary_subpatterns),
                "model_type": self.model_type, "options": thaw(self.options)}

    @classmethod
    def from_json(cls, obj: Any, where: str = "spec") -> StrategySpec:
        """A spec from one object of a specs file; unknown keys are refused."""
        obj = object_field(obj, where, "spec", _SPEC_KEYS)
        target = string_field(obj.get("target"), f"{where}.target")
        if not target:
            raise SpecError(f"{where}.target: must be a non-empty string (the strategy target, "
                            "e.g. a recipe's dotted path), found an empty string", source=where)
        options = obj.get("options") or {}
        if not isinstance(options, Mapping):
            raise SpecError(f"{where}.options: must be an object, found {describe(options)}",
                            source=where)
        return cls(
            target=target,
            kind=string_field(obj.get("kind", ""), f"{where}.kind") or "",
            target_class=string_field(obj.get("target_class"), f"{where}.target_class",
                                      optional=True),
            strip_boundary_subpatterns=pattern_field(
                obj.get("strip_boundary_subpatterns", []),
                f"{where}.strip_boundary_subpatterns", bare=False),
            model_type=string_field(obj.get("model_type"), f"{where}.model_type", optional=True),
            options=freeze(options),
        )


_SPEC_KEYS = ("target", "kind", "target_class", "strip_boundary_subpatterns", "model_type",
              "options")


def aliases_from_json(obj: Any, where: str = "aliases") -> dict[str, str]:
    """Model-type aliases from ``{"MixtralForCausalLM": "mixtral", ...}``, checked."""
    if obj is None:
        return {}
    if not isinstance(obj, Mapping):
        raise SpecError(f'{where}: must be an object of name -> model type, e.g. '
                        f'{{"MixtralForCausalLM": "mixtral"}}, found {describe(obj)}',
                        source=where)
    for name, model_type in obj.items():
        if not name or not isinstance(model_type, str) or not model_type:
            raise SpecError(f"{where}[{json.dumps(name)}]: an alias names a model type (a "
                            f"non-empty string), found {describe(model_type)}"
                            + (" for an empty name" if not name else ""), source=where)
    return dict(obj)


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

    def to_json(self) -> dict[str, Any]:
        """A specs file's content: ``{"specs": [...], "aliases": {...}}``; :meth:`from_json`
        reads it back."""
        return {"specs": [spec.to_json() for spec in self.specs.values()],
                "aliases": dict(self.aliases)}

    @classmethod
    def from_json(cls, obj: Any, source: str = "specs") -> SpecRegistry:
        """A registry from ``{"specs": [...], "aliases": {...}}`` (or a bare array of specs).

        ``aliases`` (optional) maps other names of a model type, such as HF
        architectures, to the model type specs are declared under.
        """
        items = obj.get("specs") if isinstance(obj, Mapping) else obj
        if not isinstance(items, list):
            raise SpecError(f'{source}: expected {{"specs": [...]}}, found '
                            f'{found_instead(obj, "specs")}', source=source)
        aliases = aliases_from_json(obj.get("aliases") if isinstance(obj, Mapping) else None,
                                    f"{source}: aliases")
        return cls.of((StrategySpec.from_json(item, f"{source}: specs[{i}]")
                       for i, item in enumerate(items)), aliases)

    def __len__(self) -> int:
        return len(self.specs)

    def __repr__(self) -> str:
        aliases = f", {len(self.aliases)} aliases" if self.aliases else ""
        return f"SpecRegistry(<{len(self.specs)} specs{aliases}>)"
