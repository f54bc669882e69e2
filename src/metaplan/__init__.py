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

from metaplan.changes import (
    Change,
    ChangeRecord,
    apply,
    compose,
    dump_records,
    invert,
    load_records,
    to_json_patch,
)
from metaplan.compare import Comparison, compare
from metaplan.diff import diff
from metaplan.errors import (
    ConflictError,
    InputError,
    PassError,
    PlanError,
    SpecError,
    VerificationError,
)
from metaplan.frozen import JSONMap, freeze, thaw
from metaplan.normalize import NormalizeResult, normalize, normalize_pipeline
from metaplan.passes import (
    FROM_PLAN,
    mark_shared_class_boundaries,
    strip_ep_sub_boundaries,
    strip_external_state_boundaries,
)
from metaplan.passes.registry import build_pipeline, format_passes, parse_passes
from metaplan.passes.slim import slim
from metaplan.pipeline import (
    Pass,
    PassResult,
    Pipeline,
    Trace,
    changes_pass,
    pipeline,
    replay,
    run,
)
from metaplan.plan import Plan, dump, dumps, load, loads
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
from metaplan.verify import Violation, verification, verifier, verify

__version__ = "0.1.0"

__all__ = [
    "BUILTIN_SPECS",
    "FROM_PLAN",
    "Change",
    "ChangeRecord",
    "Comparison",
    "ConflictError",
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
    "build_pipeline",
    "changes_pass",
    "compare",
    "compose",
    "diff",
    "dump",
    "dump_records",
    "dumps",
    "format_passes",
    "freeze",
    "invert",
    "load",
    "load_records",
    "load_rules",
    "load_specs",
    "loads",
    "mark_shared_class_boundaries",
    "model_type_of",
    "normalize",
    "normalize_pipeline",
    "parse_passes",
    "pipeline",
    "replay",
    "rules_from_plan",
    "run",
    "slim",
    "strip_ep_sub_boundaries",
    "strip_external_state_boundaries",
    "thaw",
    "to_json_patch",
    "verification",
    "verifier",
    "verify",
]
