"""What a ``codegen_meta.json`` must hold where the passes read it, checked with JSON paths.

``param_plan`` and ``boundary_classes`` are objects keyed by FQN; class
names (``boundary_classes`` values, ``external_state_classes`` items) are
strings; ``injections`` and ``module_overrides`` are arrays of rules (see
:func:`~metaplan.core.rules.check_plan_rules`); ``model_type`` is a string; each
may be null. In object entries, ``is_boundary`` is ``true`` or ``false``.
Any other field is kept as it is.

>>> check_field("boundary_classes", {"m": 3}, "p")
Traceback (most recent call last):
...
metaplan.errors.PlanError: p: boundary_classes["m"]: a class name is a string, found a number (3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from metaplan.core.rules import check_plan_rules
from metaplan.errors import PlanError, describe
from metaplan.frozen import to_raw
from metaplan.paths import FQN_MAPS

__all__ = ["check_entries", "check_field", "check_value", "refuse_other_files",
           "require_param_plan"]

_LIST_FIELDS = ("external_state_classes", "injections", "module_overrides")


def check_field(key: str, value: Any, source: str | None = None) -> None:
    """Check one raw top-level value where the passes read it (entries: :func:`check_entries`)."""
    if value is None:
        return
    if key in FQN_MAPS:
        if type(value) is not dict:
            raise PlanError(f"must be an object of FQN -> value, found {describe(value)}",
                            path=(key,), source=source)
        if key == "boundary_classes":
            _check_class_names(value.items(), key, source)
    elif key in _LIST_FIELDS:
        if type(value) is not list:
            raise PlanError(f"must be an array, found {describe(value)}", path=(key,),
                            source=source)
        if key == "external_state_classes":
            _check_class_names(enumerate(value), key, source)
        else:
            check_plan_rules(key, value, source)
    elif key == "model_type" and type(value) is not str:
        raise PlanError(f"must be a string (the model type specs are looked up by) or null, "
                        f"found {describe(value)}", path=(key,), source=source)


def _check_class_names(items: Iterable[tuple[Any, Any]], key: str, source: str | None) -> None:
    """Class names are strings: anything else never matches a spec, or matches by accident."""
    for where, name in items:
        if type(name) is not str:
            raise PlanError(f"a class name is a string, found {describe(name)}"
                            + (" (drop the entry for a module without one)" if name is None
                               else ""), path=(key, where), source=source)


def check_entries(param_plan: Any, source: str | None = None) -> None:
    """In object entries, ``is_boundary`` (when present) is exactly ``true`` or ``false``.

    The seed reads an entry as non-boundary only when the flag ``is False``,
    so ``0``, ``"false"`` or ``null`` in a file would silently count as a
    boundary. Entries that are not objects are kept and skipped, as the seed
    does. (~2 ms on 15k entries.)
    """
    if type(param_plan) is not dict:
        return
    seen: set[int] = set()  # entries shared by the reader are checked once
    for fqn, entry in param_plan.items():
        if type(entry) is dict and id(entry) not in seen:
            seen.add(id(entry))
            flag = entry.get("is_boundary", False)
            if flag is not False and flag is not True:
                raise PlanError(f"must be true or false, found {describe(flag)}",
                                path=("param_plan", fqn, "is_boundary"), source=source)


def check_value(path: Sequence[Any], value: Any, source: str | None = None) -> None:
    """``value``, set at ``path``, has the shape a plan file must have there.

    Records read from a file are checked with it, so a replay cannot make a
    plan that loading would refuse (an ``is_boundary`` of ``1``, a class
    name that is a number).
    """
    if not path or not isinstance(path[0], str):
        return
    field, depth = path[0], len(path)
    if depth == 1:
        raw = to_raw(value)
        check_field(field, raw, source)
        if field == "param_plan":
            check_entries(raw, source)
    elif field == "param_plan" and depth == 2:
        check_entries({path[1]: to_raw(value)}, source)
    elif field == "param_plan" and depth == 3 and path[2] == "is_boundary":
        check_entries({path[1]: {"is_boundary": value}}, source)
    elif field == "boundary_classes" and depth == 2:
        _check_class_names([(path[1], value)], field, source)
    elif field in ("external_state_classes", "injections", "module_overrides"):
        _check_item(field, path, value, source)


def _check_item(field: str, path: Sequence[Any], value: Any, source: str | None) -> None:
    """An item (or a key inside an item) of an array of class names or of rules."""
    if len(path) != 2 or not isinstance(path[1], int):
        return  # a key inside an item: the replayed plan is checked as a whole
    if field == "external_state_classes":
        _check_class_names([(path[1], value)], field, source)
    else:
        check_plan_rules(field, [to_raw(value)], source, start=path[1])


_OTHER_FILES = (
    ("records", "a records file", "replay it on its plan (metaplan replay PLAN REC) or invert "
                                  "it (metaplan invert REC)"),
    ("specs", "a specs file", "give it with --specs"),
    ("rules", "a rules file", "give it with --rules"),
    ("states", "a trace's trace.json", "its states are the NNN-*.json files beside it"),
)


def refuse_other_files(raw: dict[str, Any], source: str | None) -> None:
    """Refuse an object without ``param_plan`` that is another of metaplan's files."""
    if "param_plan" in raw:
        return
    if str(raw.get("format", "")).startswith("metaplan.record"):
        key, what, use = _OTHER_FILES[0]
        found = f'"format": "{str(raw["format"])[:40]}"'
    else:
        key, what, use = next((item for item in _OTHER_FILES if item[0] in raw), ("", "", ""))
        found = f'"{key}" and no "param_plan"'
    if key:
        raise PlanError(f"not a plan: this is {what} (it has {found}); {use}", source=source)


def require_param_plan(raw: dict[str, Any], source: str | None) -> None:
    """A plan file has a ``param_plan`` object: any other JSON object is not a plan."""
    if raw.get("param_plan") is not None:
        return
    if "param_plan" in raw:
        found = "found null"
    elif raw:
        keys = ", ".join(repr(key[:40]) for key in sorted(raw)[:6])
        found = f"found an object without it (keys: {keys}{', ...' if len(raw) > 6 else ''})"
    else:
        found = "found an empty object"
    raise PlanError(f"not a plan: a plan (codegen_meta.json) has a param_plan object of FQN -> "
                    f"entry; {found}", path=("param_plan",), source=source)
