"""Reading rules and specs: from JSON files, and from a plan's ``injections`` and
``module_overrides``; each error names the file, the path in it and what was found."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from pyrsistent import PVector

from metaplan.core.rules.specs import InlineRule, SpecRegistry, StrategySpec
from metaplan.errors import SpecError, describe
from metaplan.files.jsonio import read_json
from metaplan.frozen import freeze
from metaplan.paths import format_path

__all__ = ["aliases_from_json", "check_pattern", "check_plan_rules", "load_rules", "load_specs",
           "rule_from_json", "rules_from_json", "rules_from_plan", "spec_from_json",
           "specs_from_json"]


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
