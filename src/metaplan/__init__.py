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
import typing as _typing
from importlib import import_module as _import_module
from typing import Any as _Any

_EXPORTS = {
    "BUILTIN_SPECS": "metaplan.core.rules",
    "Change": "metaplan.records.change",
    "ChangeRecord": "metaplan.records.change",
    "ChangesPass": "metaplan.passes.chaining",
    "Comparison": "metaplan.versions.comparing",
    "ConflictError": "metaplan.errors",
    "Contract": "metaplan.passes.chaining",
    "ContractError": "metaplan.errors",
    "Edit": "metaplan.records.edit",
    "EditPass": "metaplan.passes.chaining",
    "FROM_PLAN": "metaplan.settings",
    "InlineRule": "metaplan.core.rules",
    "InputError": "metaplan.errors",
    "JSONMap": "metaplan.frozen",
    "MISSING": "metaplan.frozen",
    "NormalizeResult": "metaplan.passes.normal_form",
    "Pass": "metaplan.passes.chaining",
    "PassError": "metaplan.errors",
    "PassResult": "metaplan.passes.chaining",
    "Pipeline": "metaplan.passes.chaining",
    "Plan": "metaplan.core.plan",
    "PlanError": "metaplan.errors",
    "RUN_INPUT": "metaplan.settings",
    "SpecError": "metaplan.errors",
    "SpecRegistry": "metaplan.core.rules",
    "StrategySpec": "metaplan.core.rules",
    "Trace": "metaplan.passes.chaining",
    "VerificationError": "metaplan.errors",
    "Violation": "metaplan.core.invariants",
    "__version__": "metaplan.version",
    "apply": "metaplan.records.edit",
    "apply_changes": "metaplan.records.edit",
    "build_pipeline": "metaplan.passes.registry",
    "changes_pass": "metaplan.passes.chaining",
    "compare": "metaplan.versions.comparing",
    "compose": "metaplan.records.algebra",
    "diff": "metaplan.versions.diffing",
    "dump": "metaplan.core.plan",
    "dump_records": "metaplan.records.codec",
    "dumps": "metaplan.core.plan",
    "dumps_records": "metaplan.records.codec",
    "edit_pass": "metaplan.passes.chaining",
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
    "pipeline": "metaplan.passes.chaining",
    "rebase": "metaplan.versions.merging",
    "remove_in": "metaplan.records.edit",
    "replay": "metaplan.passes.chaining",
    "rules_from_plan": "metaplan.core.rules",
    "run": "metaplan.passes.chaining",
    "set_in": "metaplan.records.edit",
    "slim": "metaplan.passes.slimming",
    "strip_ep_sub_boundaries": "metaplan.passes",
    "strip_external_state_boundaries": "metaplan.passes",
    "thaw": "metaplan.frozen",
    "to_json_patch": "metaplan.records.patch",
    "verification": "metaplan.core.invariants",
    "verifier": "metaplan.core.invariants",
    "verify": "metaplan.core.invariants",
}
"""Public name -> the module that defines it; imported when first used."""


if not _typing.TYPE_CHECKING:  # type checkers see the imports below, and no catch-all
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




if _typing.TYPE_CHECKING:
    from metaplan.core.invariants import (
        Violation as Violation,
    )
    from metaplan.core.invariants import (
        verification as verification,
    )
    from metaplan.core.invariants import (
        verifier as verifier,
    )
    from metaplan.core.invariants import (
        verify as verify,
    )
    from metaplan.core.plan import (
        Plan as Plan,
    )
    from metaplan.core.plan import (
        dump as dump,
    )
    from metaplan.core.plan import (
        dumps as dumps,
    )
    from metaplan.core.plan import (
        load as load,
    )
    from metaplan.core.plan import (
        loads as loads,
    )
    from metaplan.core.rules import (
        BUILTIN_SPECS as BUILTIN_SPECS,
    )
    from metaplan.core.rules import (
        InlineRule as InlineRule,
    )
    from metaplan.core.rules import (
        SpecRegistry as SpecRegistry,
    )
    from metaplan.core.rules import (
        StrategySpec as StrategySpec,
    )
    from metaplan.core.rules import (
        load_rules as load_rules,
    )
    from metaplan.core.rules import (
        load_specs as load_specs,
    )
    from metaplan.core.rules import (
        model_type_of as model_type_of,
    )
    from metaplan.core.rules import (
        rules_from_plan as rules_from_plan,
    )
    from metaplan.errors import (
        ConflictError as ConflictError,
    )
    from metaplan.errors import (
        ContractError as ContractError,
    )
    from metaplan.errors import (
        InputError as InputError,
    )
    from metaplan.errors import (
        PassError as PassError,
    )
    from metaplan.errors import (
        PlanError as PlanError,
    )
    from metaplan.errors import (
        SpecError as SpecError,
    )
    from metaplan.errors import (
        VerificationError as VerificationError,
    )
    from metaplan.frozen import (
        MISSING as MISSING,
    )
    from metaplan.frozen import (
        JSONMap as JSONMap,
    )
    from metaplan.frozen import (
        freeze as freeze,
    )
    from metaplan.frozen import (
        thaw as thaw,
    )
    from metaplan.passes import (
        mark_shared_class_boundaries as mark_shared_class_boundaries,
    )
    from metaplan.passes import (
        strip_ep_sub_boundaries as strip_ep_sub_boundaries,
    )
    from metaplan.passes import (
        strip_external_state_boundaries as strip_external_state_boundaries,
    )
    from metaplan.passes.chaining import (
        ChangesPass as ChangesPass,
    )
    from metaplan.passes.chaining import (
        Contract as Contract,
    )
    from metaplan.passes.chaining import (
        EditPass as EditPass,
    )
    from metaplan.passes.chaining import (
        Pass as Pass,
    )
    from metaplan.passes.chaining import (
        PassResult as PassResult,
    )
    from metaplan.passes.chaining import (
        Pipeline as Pipeline,
    )
    from metaplan.passes.chaining import (
        Trace as Trace,
    )
    from metaplan.passes.chaining import (
        changes_pass as changes_pass,
    )
    from metaplan.passes.chaining import (
        edit_pass as edit_pass,
    )
    from metaplan.passes.chaining import (
        pipeline as pipeline,
    )
    from metaplan.passes.chaining import (
        replay as replay,
    )
    from metaplan.passes.chaining import (
        run as run,
    )
    from metaplan.passes.normal_form import (
        NormalizeResult as NormalizeResult,
    )
    from metaplan.passes.normal_form import (
        normalize as normalize,
    )
    from metaplan.passes.normal_form import (
        normalize_pipeline as normalize_pipeline,
    )
    from metaplan.passes.registry import (
        build_pipeline as build_pipeline,
    )
    from metaplan.passes.registry import (
        format_passes as format_passes,
    )
    from metaplan.passes.registry import (
        parse_passes as parse_passes,
    )
    from metaplan.passes.slimming import (
        slim as slim,
    )
    from metaplan.records.algebra import (
        compose as compose,
    )
    from metaplan.records.algebra import (
        invert as invert,
    )
    from metaplan.records.change import (
        Change as Change,
    )
    from metaplan.records.change import (
        ChangeRecord as ChangeRecord,
    )
    from metaplan.records.codec import (
        dump_records as dump_records,
    )
    from metaplan.records.codec import (
        dumps_records as dumps_records,
    )
    from metaplan.records.codec import (
        load_records as load_records,
    )
    from metaplan.records.codec import (
        loads_records as loads_records,
    )
    from metaplan.records.edit import (
        Edit as Edit,
    )
    from metaplan.records.edit import (
        apply as apply,
    )
    from metaplan.records.edit import (
        apply_changes as apply_changes,
    )
    from metaplan.records.edit import (
        remove_in as remove_in,
    )
    from metaplan.records.edit import (
        set_in as set_in,
    )
    from metaplan.records.patch import (
        to_json_patch as to_json_patch,
    )
    from metaplan.settings import (
        FROM_PLAN as FROM_PLAN,
    )
    from metaplan.settings import (
        RUN_INPUT as RUN_INPUT,
    )
    from metaplan.version import (
        __version__ as __version__,
    )
    from metaplan.versions.comparing import (
        Comparison as Comparison,
    )
    from metaplan.versions.comparing import (
        compare as compare,
    )
    from metaplan.versions.diffing import (
        diff as diff,
    )
    from metaplan.versions.folding import (
        fold_changes as fold_changes,
    )
    from metaplan.versions.merging import (
        merge as merge,
    )
    from metaplan.versions.merging import (
        rebase as rebase,
    )
    from metaplan.views.text import (
        format_folded as format_folded,
    )

__all__ = sorted(_EXPORTS)
"""Written once: the keys of :data:`_EXPORTS` (the imports above are for type checkers)."""
