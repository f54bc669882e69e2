"""Reading rules and specs: from JSON files, and from a plan's ``injections`` and
``module_overrides``; each error names the file, the path in it and what was found.

One rule's, one spec's and a registry's JSON are their types' (``InlineRule.from_json``,
``StrategySpec.from_json``, ``SpecRegistry.from_json``); ``rule_from_json``,
``spec_from_json`` and ``specs_from_json`` here are those, by their older names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from metaplan.core.rules.checking import (
    found_instead,
    match_field,
    string_field,
    target_field,
)
from metaplan.core.rules.specs import InlineRule, SpecRegistry, StrategySpec, aliases_from_json
from metaplan.errors import SpecError, describe
from metaplan.files.jsonio import read_json
from metaplan.frozen import freeze
from metaplan.paths import format_path

__all__ = ["aliases_from_json", "check_plan_rules", "load_rules", "load_specs", "rule_from_json",
           "rules_from_json", "rules_from_plan", "spec_from_json", "specs_from_json"]

spec_from_json = StrategySpec.from_json
rule_from_json = InlineRule.from_json
specs_from_json = SpecRegistry.from_json


def load_specs(path: str | os.PathLike[str]) -> SpecRegistry:
    """Read a specs file (the format of ``fixtures/specs.json``)."""
    source = os.fspath(path)
    return SpecRegistry.from_json(read_json(path), source)


def rules_from_json(obj: Any, source: str = "rules") -> tuple[InlineRule, ...]:
    """Rules from ``{"rules": [...]}`` or a bare array of rule objects."""
    items = obj.get("rules") if isinstance(obj, Mapping) else obj
    if not isinstance(items, list):
        raise SpecError(f'{source}: expected {{"rules": [...]}} or an array of rules, found '
                        f"{found_instead(obj, 'rules')}", source=source)
    return tuple(InlineRule.from_json(item, f"{source}: rules[{i}]")
                 for i, item in enumerate(items))


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
        match=match_field(obj["match"], f"{where}.match", "an injection"),
        local_compute_target=target_field(obj.get("local_compute_fn"),
                                        f"{where}.local_compute_fn"),
        inner_wrapper_target=target_field(obj.get("inner_wrapper"), f"{where}.inner_wrapper"),
        options=freeze({k: v for k, v in obj.items()
                        if k not in ("match", "local_compute_fn", "inner_wrapper")}),
    )


def _override_rule(obj: Any, path: tuple[Any, ...], source: str | None = None) -> InlineRule:
    where = _at(path, source)
    _needs_match(obj, "a module override", where)
    replace = obj.get("replace_target", obj.get("target", obj.get("_target_")))
    return InlineRule(
        match=match_field(obj["match"], f"{where}.match", "a module override"),
        replace_target=target_field(replace, f"{where}.replace_target"),
        module_type=string_field(obj.get("module_type"), f"{where}.module_type", optional=True),
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
