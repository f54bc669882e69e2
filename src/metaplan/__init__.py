"""metaplan: frozen parallelization plans as persistent data, transformed by pure passes.

>>> import metaplan
>>> plan = metaplan.Plan.from_json({
...     "param_plan": {"a": {"is_boundary": True}, "b": {"is_boundary": False}},
...     "boundary_classes": {"a": "MLP", "b": "MLP"}})
>>> result = metaplan.normalize(plan)          # pure: plan is untouched
>>> result.plan.param_plan["a"]["skip_source_lowering"]
True
>>> "skip_source_lowering" in plan.param_plan["a"]
False
>>> for record in result.records:
...     print(record.pass_name, len(record))
strip_ep_sub_boundaries 0
strip_external_state_boundaries 0
mark_shared_class_boundaries 2
>>> metaplan.replay(plan, result.records) == result.plan
True

Start with :func:`load`, :func:`normalize`, :func:`dump`; see the README for
the tour, the record format and the CLI.
"""

import sys as _sys
from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

_EXPORTS = {
    "BUILTIN_SPECS": "metaplan.core.rules",
    "Change": "metaplan.records.change",
    "ChangeRecord": "metaplan.records.change",
    "ChangesPass": "metaplan.pipelines.chaining",
    "Comparison": "metaplan.versions.comparing",
    "ConflictError": "metaplan.errors",
    "Contract": "metaplan.pipelines.chaining",
    "ContractError": "metaplan.errors",
    "Edit": "metaplan.records.edit",
    "EditPass": "metaplan.pipelines.chaining",
    "FROM_PLAN": "metaplan.settings",
    "InlineRule": "metaplan.core.rules",
    "InputError": "metaplan.errors",
    "JSONMap": "metaplan.frozen",
    "MISSING": "metaplan.frozen",
    "NormalizeResult": "metaplan.passes.normal_form",
    "Pass": "metaplan.pipelines.chaining",
    "PassError": "metaplan.errors",
    "PassResult": "metaplan.pipelines.chaining",
    "Pipeline": "metaplan.pipelines.chaining",
    "Plan": "metaplan.core.plan",
    "PlanError": "metaplan.errors",
    "RUN_INPUT": "metaplan.settings",
    "SpecError": "metaplan.errors",
    "SpecRegistry": "metaplan.core.rules",
    "StrategySpec": "metaplan.core.rules",
    "Trace": "metaplan.pipelines.chaining",
    "VerificationError": "metaplan.errors",
    "Violation": "metaplan.checks.invariants",
    "__version__": "metaplan.version",
    "apply": "metaplan.records.edit",
    "apply_changes": "metaplan.records.edit",
    "build_pipeline": "metaplan.passes.registry",
    "changes_pass": "metaplan.pipelines.chaining",
    "compare": "metaplan.versions.comparing",
    "compose": "metaplan.records.algebra",
    "diff": "metaplan.versions.diffing",
    "dump": "metaplan.core.plan",
    "dump_records": "metaplan.records.codec",
    "dumps": "metaplan.core.plan",
    "dumps_records": "metaplan.records.codec",
    "edit_pass": "metaplan.pipelines.chaining",
    "fold_changes": "metaplan.versions.folding",
    "format_folded": "metaplan.views.text",
    "format_passes": "metaplan.passes.registry",
    "freeze": "metaplan.frozen",
    "invert": "metaplan.records.algebra",
    "load": "metaplan.core.plan",
    "load_records": "metaplan.records.codec",
    "load_rules": "metaplan.core.rules",
    "load_specs": "metaplan.core.rules",
    "loads": "metaplan.core.plan",
    "loads_records": "metaplan.records.codec",
    "mark_shared_class_boundaries": "metaplan.passes",
    "merge": "metaplan.versions.merging",
    "model_type_of": "metaplan.core.rules",
    "normalize": "metaplan.passes.normal_form",
    "normalize_pipeline": "metaplan.passes.normal_form",
    "parse_passes": "metaplan.passes.registry",
    "pipeline": "metaplan.pipelines.chaining",
    "rebase": "metaplan.versions.merging",
    "remove_in": "metaplan.records.edit",
    "replay": "metaplan.pipelines.chaining",
    "rules_from_plan": "metaplan.core.rules",
    "run": "metaplan.pipelines.chaining",
    "set_in": "metaplan.records.edit",
    "slim": "metaplan.passes.slimming",
    "strip_ep_sub_boundaries": "metaplan.passes",
    "strip_external_state_boundaries": "metaplan.passes",
    "thaw": "metaplan.frozen",
    "to_json_patch": "metaplan.records.patch",
    "verification": "metaplan.checks.invariants",
    "verifier": "metaplan.checks.invariants",
    "verify": "metaplan.checks.invariants",
}
"""Public name -> the module that defines it; imported when first used."""


def __getattr__(name: str) -> _Any:
    """Import a public name's module when the name is first used (``metaplan --help``
    then pays for the command line only)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'metaplan' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (and the module's own dunders), not the helpers it imports."""
    return sorted({*_EXPORTS, *(name for name in globals() if name.startswith("__"))})


class _OldPaths:
    """Finds 0.3's module paths (``metaplan.diff``, ...), as deprecated aliases made by
    :mod:`metaplan._moved`. Last on ``sys.meta_path``, it is asked only for a module no
    file holds, so ``import metaplan`` imports nothing more for it."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> _Any:
        if not name.startswith("metaplan."):
            return None
        return _import_module("metaplan._moved").spec_for(name)  # only for an old path


if _OldPaths not in _sys.meta_path:
    _sys.meta_path.append(_OldPaths)




if _TYPE_CHECKING:
    from metaplan.checks.invariants import Violation, verification, verifier, verify
    from metaplan.core.plan import Plan, dump, dumps, load, loads
    from metaplan.core.rules import (
        BUILTIN_SPECS,
        InlineRule,
        SpecRegistry,
        StrategySpec,
        load_rules,
        load_specs,
        model_type_of,
        rules_from_plan,
    )
    from metaplan.errors import (
        ConflictError,
        ContractError,
        InputError,
        PassError,
        PlanError,
        SpecError,
        VerificationError,
    )
    from metaplan.frozen import MISSING, JSONMap, freeze, thaw
    from metaplan.passes import (
        mark_shared_class_boundaries,
        strip_ep_sub_boundaries,
        strip_external_state_boundaries,
    )
    from metaplan.passes.normal_form import NormalizeResult, normalize, normalize_pipeline
    from metaplan.passes.registry import build_pipeline, format_passes, parse_passes
    from metaplan.passes.slimming import slim
    from metaplan.pipelines.chaining import (
        ChangesPass,
        Contract,
        EditPass,
        Pass,
        PassResult,
        Pipeline,
        Trace,
        changes_pass,
        edit_pass,
        pipeline,
        replay,
        run,
    )
    from metaplan.records.algebra import compose, invert
    from metaplan.records.change import Change, ChangeRecord
    from metaplan.records.codec import dump_records, dumps_records, load_records, loads_records
    from metaplan.records.edit import Edit, apply, apply_changes, remove_in, set_in
    from metaplan.records.patch import to_json_patch
    from metaplan.settings import FROM_PLAN, RUN_INPUT
    from metaplan.version import __version__
    from metaplan.versions.comparing import Comparison, compare
    from metaplan.versions.diffing import diff
    from metaplan.versions.folding import fold_changes
    from metaplan.versions.merging import merge, rebase
    from metaplan.views.text import format_folded

__all__ = [
    "BUILTIN_SPECS",
    "FROM_PLAN",
    "MISSING",
    "RUN_INPUT",
    "Change",
    "ChangeRecord",
    "ChangesPass",
    "Comparison",
    "ConflictError",
    "Contract",
    "ContractError",
    "Edit",
    "EditPass",
    "InlineRule",
    "InputError",
    "JSONMap",
    "NormalizeResult",
    "Pass",
    "PassError",
    "PassResult",
    "Pipeline",
    "Plan",
    "PlanError",
    "SpecError",
    "SpecRegistry",
    "StrategySpec",
    "Trace",
    "VerificationError",
    "Violation",
    "__version__",
    "apply",
    "apply_changes",
    "build_pipeline",
    "changes_pass",
    "compare",
    "compose",
    "diff",
    "dump",
    "dump_records",
    "dumps",
    "dumps_records",
    "edit_pass",
    "fold_changes",
    "format_folded",
    "format_passes",
    "freeze",
    "invert",
    "load",
    "load_records",
    "load_rules",
    "load_specs",
    "loads",
    "loads_records",
    "mark_shared_class_boundaries",
    "merge",
    "model_type_of",
    "normalize",
    "normalize_pipeline",
    "parse_passes",
    "pipeline",
    "rebase",
    "remove_in",
    "replay",
    "rules_from_plan",
    "run",
    "set_in",
    "slim",
    "strip_ep_sub_boundaries",
    "strip_external_state_boundaries",
    "thaw",
    "to_json_patch",
    "verification",
    "verifier",
    "verify",
]
