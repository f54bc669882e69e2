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

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "BUILTIN_SPECS": "metaplan.rules",
    "Change": "metaplan.change",
    "ChangeRecord": "metaplan.change",
    "ChangesPass": "metaplan.pipeline",
    "Comparison": "metaplan.compare",
    "ConflictError": "metaplan.errors",
    "Contract": "metaplan.pipeline",
    "ContractError": "metaplan.errors",
    "Edit": "metaplan.edit",
    "EditPass": "metaplan.pipeline",
    "FROM_PLAN": "metaplan.settings",
    "InlineRule": "metaplan.rules",
    "InputError": "metaplan.errors",
    "JSONMap": "metaplan.frozen",
    "MISSING": "metaplan.frozen",
    "NormalizeResult": "metaplan.normalize",
    "Pass": "metaplan.pipeline",
    "PassError": "metaplan.errors",
    "PassResult": "metaplan.pipeline",
    "Pipeline": "metaplan.pipeline",
    "Plan": "metaplan.plan",
    "PlanError": "metaplan.errors",
    "RUN_INPUT": "metaplan.settings",
    "SpecError": "metaplan.errors",
    "SpecRegistry": "metaplan.rules",
    "StrategySpec": "metaplan.rules",
    "Trace": "metaplan.pipeline",
    "VerificationError": "metaplan.errors",
    "Violation": "metaplan.verify",
    "__version__": "metaplan.version",
    "apply": "metaplan.edit",
    "apply_changes": "metaplan.edit",
    "build_pipeline": "metaplan.passes.registry",
    "changes_pass": "metaplan.pipeline",
    "compare": "metaplan.compare",
    "compose": "metaplan.algebra",
    "diff": "metaplan.diff",
    "dump": "metaplan.plan",
    "dump_records": "metaplan.records",
    "dumps": "metaplan.plan",
    "dumps_records": "metaplan.records",
    "edit_pass": "metaplan.pipeline",
    "format_passes": "metaplan.passes.registry",
    "freeze": "metaplan.frozen",
    "invert": "metaplan.algebra",
    "load": "metaplan.plan",
    "load_records": "metaplan.records",
    "load_rules": "metaplan.rules",
    "load_specs": "metaplan.rules",
    "loads": "metaplan.plan",
    "loads_records": "metaplan.records",
    "mark_shared_class_boundaries": "metaplan.passes",
    "model_type_of": "metaplan.rules",
    "normalize": "metaplan.normalize",
    "normalize_pipeline": "metaplan.normalize",
    "parse_passes": "metaplan.passes.registry",
    "pipeline": "metaplan.pipeline",
    "remove_in": "metaplan.edit",
    "replay": "metaplan.pipeline",
    "rules_from_plan": "metaplan.rules",
    "run": "metaplan.pipeline",
    "set_in": "metaplan.edit",
    "slim": "metaplan.passes.slim",
    "strip_ep_sub_boundaries": "metaplan.passes",
    "strip_external_state_boundaries": "metaplan.passes",
    "thaw": "metaplan.frozen",
    "to_json_patch": "metaplan.patch",
    "verification": "metaplan.verify",
    "verifier": "metaplan.verify",
    "verify": "metaplan.verify",
}
"""Public name -> the module that defines it; imported when first used."""


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first used (``metaplan --help``
    then pays for the command line only)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'metaplan' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


class _Package(types.ModuleType):
    """This package: importing a submodule does not hide the function of the same name.

    Importing ``metaplan.diff`` binds the attribute ``diff`` of the package
    to the module; ``metaplan.diff`` stays the function :func:`diff`.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _EXPORTS:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:
    from metaplan.algebra import compose, invert
    from metaplan.change import Change, ChangeRecord
    from metaplan.compare import Comparison, compare
    from metaplan.diff import diff
    from metaplan.edit import Edit, apply, apply_changes, remove_in, set_in
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
    from metaplan.normalize import NormalizeResult, normalize, normalize_pipeline
    from metaplan.passes import (
        mark_shared_class_boundaries,
        strip_ep_sub_boundaries,
        strip_external_state_boundaries,
    )
    from metaplan.passes.registry import build_pipeline, format_passes, parse_passes
    from metaplan.passes.slim import slim
    from metaplan.patch import to_json_patch
    from metaplan.pipeline import (
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
    from metaplan.plan import Plan, dump, dumps, load, loads
    from metaplan.records import dump_records, dumps_records, load_records, loads_records
    from metaplan.rules import (
        BUILTIN_SPECS,
        InlineRule,
        SpecRegistry,
        StrategySpec,
        load_rules,
        load_specs,
        model_type_of,
        rules_from_plan,
    )
    from metaplan.settings import FROM_PLAN, RUN_INPUT
    from metaplan.verify import Violation, verification, verifier, verify
    from metaplan.version import __version__

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
    "model_type_of",
    "normalize",
    "normalize_pipeline",
    "parse_passes",
    "pipeline",
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
