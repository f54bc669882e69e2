"""Inline rules and strategy specs: the data the EP stage reads.

Rules come from the plan's own ``injections`` (and ``module_overrides``)
unless given; specs come from a registry keyed by ``(target, model_type)``,
looked up exactly, then under the model type an alias names, then with
``model_type=None``. A plan's model type is read as upstream's emitter reads
it (:func:`model_type_of`): its ``model_type``, else ``model_class``, else
``source.architecture``.

>>> spec = BUILTIN_SPECS.lookup(
...     "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn", "any")
>>> spec.target_class, spec.strip_boundary_subpatterns
('DeepseekV3MoE', ('experts.*', 'shared_experts'))
>>> BUILTIN_SPECS.canonical_model_type("Qwen3MoeForCausalLM")
'qwen3_moe'
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, NamedTuple

from pyrsistent import PMap, PVector, pmap

from metaplan.errors import SpecError, describe, format_path
from metaplan.files.jsonio import read_json
from metaplan.frozen import JSONMap, freeze, thaw

__all__ = [
    "BUILTIN_ALIASES",
    "BUILTIN_SPECS",
    "MODEL_TYPE_FIELDS",
    "InlineRule",
    "ModelType",
    "SpecRegistry",
    "StrategySpec",
    "check_pattern",
    "check_plan_rules",
    "load_rules",
    "load_specs",
    "model_key",
    "model_type_of",
    "rules_from_plan",
]


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


# reading specs ---------------------------------------------------------------


def _string(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        need = "a string or null" if optional else "a string"
        raise SpecError(f"{where}: must be {need}, found {describe(value)}", source=where)
    return value


def check_pattern(pattern: Any, where: str) -> str:
    """``pattern`` if it is a usable FQN glob, else a :class:`SpecError` saying why.

    A pattern is a non-empty ``fnmatch`` string, and each ``[`` opens a
    character class closed by a ``]``: fnmatch reads an unclosed ``[`` as a
    literal bracket, which no module FQN holds, so the pattern would silently
    match nothing.

    >>> check_pattern("experts.[0-3]", "p")
    'experts.[0-3]'
    >>> check_pattern("experts.[0-3", "p")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    metaplan.errors.SpecError: p: invalid glob pattern "experts.[0-3": the '[' at 8 is never ...
    """
    if not isinstance(pattern, str):
        raise SpecError(f"{where}: a glob pattern is a string, found {describe(pattern)}",
                        source=where)
    if not pattern:
        raise SpecError(f"{where}: invalid glob pattern \"\": an empty pattern matches no "
                        "module", source=where)
    start = pattern.find("[")
    while start != -1:
        end = start + 1  # fnmatch.translate's scan: "[!" and a leading "]" belong to the class
        if pattern.startswith("!", end):
            end += 1
        if pattern.startswith("]", end):
            end += 1
        end = pattern.find("]", end)
        if end == -1:
            shown = json.dumps(pattern)
            raise SpecError(f"{where}: invalid glob pattern {shown}: the '[' at {start} is "
                            "never closed by ']' (an unclosed '[' matches a literal bracket, "
                            "and no FQN has one)", source=where)
        start = pattern.find("[", end + 1)
    return pattern


def _patterns(value: Any, where: str, *, bare: bool = True) -> tuple[str, ...]:
    """Glob patterns: an array of them (or, where ``bare``, one string or null)."""
    if bare and value is None:
        return ()
    if bare and isinstance(value, str):
        return (check_pattern(value, where),)
    if not isinstance(value, (list, tuple, PVector)):
        need = "a string or an array of strings" if bare else "an array of strings"
        hint = f': write [{json.dumps(value)}]' if isinstance(value, str) else ""
        raise SpecError(f"{where}: must be {need} (glob patterns), found {describe(value)}"
                        f"{hint}", source=where)
    return tuple(check_pattern(item, f"{where}[{i}]") for i, item in enumerate(value))


def _match(value: Any, where: str, what: str) -> tuple[str, ...]:
    match = _patterns(value, where)
    if not match:
        raise SpecError(f"{where}: {what} needs at least one pattern, found {describe(value)}",
                        source=where)
    return match


_SPEC_KEYS = ("target", "kind", "target_class", "strip_boundary_subpatterns", "model_type",
              "options")


def spec_from_json(obj: Any, where: str = "spec") -> StrategySpec:
    """A :class:`StrategySpec` from one object of a specs file; unknown keys are refused."""
    if not isinstance(obj, Mapping):
        raise SpecError(f"{where}: a spec is an object, found {describe(obj)}", source=where)
    unknown = sorted(set(obj) - set(_SPEC_KEYS))
    if unknown:
        raise SpecError(f"{where}: unknown spec field(s) {unknown}; known: {list(_SPEC_KEYS)}",
                        source=where)
    target = _string(obj.get("target"), f"{where}.target")
    if not target:
        raise SpecError(f"{where}.target: must be a non-empty string (the strategy target, "
                        "e.g. a recipe's dotted path), found an empty string", source=where)
    options = obj.get("options") or {}
    if not isinstance(options, Mapping):
        raise SpecError(f"{where}.options: must be an object, found {describe(options)}",
                        source=where)
    return StrategySpec(
        target=target,
        kind=_string(obj.get("kind", ""), f"{where}.kind") or "",
        target_class=_string(obj.get("target_class"), f"{where}.target_class", optional=True),
        strip_boundary_subpatterns=_patterns(obj.get("strip_boundary_subpatterns", []),
                                             f"{where}.strip_boundary_subpatterns", bare=False),
        model_type=_string(obj.get("model_type"), f"{where}.model_type", optional=True),
        options=freeze(options),
    )


def _container(obj: Any, key: str) -> str:
    """What a specs or rules file held instead of ``{key: [...]}``."""
    if not isinstance(obj, Mapping):
        return describe(obj)
    if key in obj:
        return f'an object with "{key}": {describe(obj[key])}'
    return f"an object with keys {sorted(obj)}"


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


def specs_from_json(obj: Any, source: str = "specs") -> SpecRegistry:
    """A registry from ``{"specs": [...], "aliases": {...}}`` (or a bare array of specs).

    ``aliases`` (optional) maps other names of a model type, such as HF
    architectures, to the model type specs are declared under.
    """
    items = obj.get("specs") if isinstance(obj, Mapping) else obj
    if not isinstance(items, list):
        raise SpecError(f'{source}: expected {{"specs": [...]}}, found {_container(obj, "specs")}',
                        source=source)
    aliases = aliases_from_json(obj.get("aliases") if isinstance(obj, Mapping) else None,
                                f"{source}: aliases")
    return SpecRegistry.of((spec_from_json(item, f"{source}: specs[{i}]")
                            for i, item in enumerate(items)), aliases)


def load_specs(path: str | os.PathLike[str]) -> SpecRegistry:
    """Read a specs file (the format of ``fixtures/specs.json``)."""
    source = os.fspath(path)
    return specs_from_json(read_json(path), source)


# reading rules ---------------------------------------------------------------


def _target_of(value: Any, where: str) -> str | None:
    """A target written as a string, or as an object's ``_target_`` / ``target`` key."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        target = value.get("_target_") or value.get("target")
        return _string(target, f"{where}._target_", optional=True)
    raise SpecError(f"{where}: must be a string or an object with _target_, found "
                    f"{describe(value)}", source=where)


_RULE_KEYS = ("match", "local_compute_target", "when", "module_type", "replace_target",
              "inner_wrapper_target", "region_dispatch", "options")


def rule_from_json(obj: Any, where: str = "rule") -> InlineRule:
    """An :class:`InlineRule` from its JSON form (the fields of :class:`InlineRule`)."""
    if not isinstance(obj, Mapping):
        raise SpecError(f"{where}: a rule is an object, found {describe(obj)}", source=where)
    unknown = sorted(set(obj) - set(_RULE_KEYS))
    if unknown:
        raise SpecError(f"{where}: unknown rule field(s) {unknown}; known: {list(_RULE_KEYS)}",
                        source=where)
    match = _match(obj.get("match"), f"{where}.match", "a rule")
    return InlineRule(
        match=match,
        local_compute_target=_target_of(obj.get("local_compute_target"),
                                        f"{where}.local_compute_target"),
        when=freeze(obj.get("when")),
        module_type=_string(obj.get("module_type"), f"{where}.module_type", optional=True),
        replace_target=_target_of(obj.get("replace_target"), f"{where}.replace_target"),
        inner_wrapper_target=_target_of(obj.get("inner_wrapper_target"),
                                        f"{where}.inner_wrapper_target"),
        region_dispatch=freeze(obj.get("region_dispatch")),
        options=freeze(obj.get("options") or {}),
    )


def rules_from_json(obj: Any, source: str = "rules") -> tuple[InlineRule, ...]:
    """Rules from ``{"rules": [...]}`` or a bare array of rule objects."""
    items = obj.get("rules") if isinstance(obj, Mapping) else obj
    if not isinstance(items, list):
        raise SpecError(f'{source}: expected {{"rules": [...]}} or an array of rules, found '
                        f"{_container(obj, 'rules')}", source=source)
    return tuple(rule_from_json(item, f"{source}: rules[{i}]") for i, item in enumerate(items))


def load_rules(path: str | os.PathLike[str]) -> tuple[InlineRule, ...]:
    """Read a rules file: ``{"rules": [{"match": [...], "local_compute_target": ...}]}``."""
    source = os.fspath(path)
    return rules_from_json(read_json(path), source)


def _at(path: tuple[Any, ...], source: str | None) -> str:
    return f"{source}: {format_path(path)}" if source else format_path(path)


def _needs_match(obj: Any, what: str, where: str) -> None:
    if not isinstance(obj, Mapping):
        raise SpecError(f"{where}: {what} is an object with a match, found {describe(obj)}",
                        source=where)
    if "match" not in obj:
        raise SpecError(f"{where}: {what} needs a match (an FQN or glob pattern); it has "
                        f"keys {sorted(obj)}", source=where)


def _injection_rule(obj: Any, path: tuple[Any, ...], source: str | None = None) -> InlineRule:
    where = _at(path, source)
    _needs_match(obj, "an injection", where)
    return InlineRule(
        match=_match(obj["match"], f"{where}.match", "an injection"),
        local_compute_target=_target_of(obj.get("local_compute_fn"),
                                        f"{where}.local_compute_fn"),
        inner_wrapper_target=_target_of(obj.get("inner_wrapper"), f"{where}.inner_wrapper"),
        options=freeze({k: v for k, v in obj.items()
                        if k not in ("match", "local_compute_fn", "inner_wrapper")}),
    )


def _override_rule(obj: Any, path: tuple[Any, ...], source: str | None = None) -> InlineRule:
    where = _at(path, source)
    _needs_match(obj, "a module override", where)
    replace = obj.get("replace_target", obj.get("target", obj.get("_target_")))
    return InlineRule(
        match=_match(obj["match"], f"{where}.match", "a module override"),
        replace_target=_target_of(replace, f"{where}.replace_target"),
        module_type=_string(obj.get("module_type"), f"{where}.module_type", optional=True),
        options=freeze({k: v for k, v in obj.items()
                        if k not in ("match", "replace_target", "target", "_target_",
                                     "module_type")}),
    )


def check_plan_rules(key: str, items: Iterable[Any], source: str | None = None, *,
                     start: int = 0) -> None:
    """Check a plan's ``injections`` or ``module_overrides`` read as rules, as at load time.

    ``start`` is the index of the first of ``items`` in the array.
    """
    read = _injection_rule if key == "injections" else _override_rule
    for i, obj in enumerate(items, start):
        read(obj, (key, i), source)


def rules_from_plan(plan: Mapping[str, Any]) -> tuple[InlineRule, ...]:
    """The rules a plan's codegen applied: one per injection, then one per module override.

    An injection gives ``match=(injection["match"],)``,
    ``local_compute_target`` = its ``local_compute_fn`` and
    ``inner_wrapper_target`` = its ``inner_wrapper`` (each a string, or an
    object's ``_target_`` / ``target``, as upstream
    ``inline/yaml_rules.collect_inline_rules`` reads them); its other fields
    become ``options``. A module override gives a rule with ``replace_target``
    and no local compute target.
    """
    injections = plan.get("injections") or ()
    overrides = plan.get("module_overrides") or ()
    return (tuple(_injection_rule(obj, ("injections", i)) for i, obj in enumerate(injections))
            + tuple(_override_rule(obj, ("module_overrides", i))
                    for i, obj in enumerate(overrides)))
