"""Passes and what they are made of: traces, the pass protocol and pipelines (``trace``,
``steps``, ``makers``, ``chaining``); the seed's three stages and ``slim``, each a pure pass;
the registry of pass names; ``normalize``; and the seed itself, for comparison (its in-place
signature, ``compat``, and its routine transcribed, ``oracle``)."""

import typing as _typing
from importlib import import_module as _import_module
from typing import Any as _Any

_EXPORTS = {
    "EPTarget": "metaplan.passes.strip_ep",
    "MarkSharedClassBoundaries": "metaplan.passes.mark_shared",
    "StripEPSubBoundaries": "metaplan.passes.strip_ep",
    "StripExternalStateBoundaries": "metaplan.passes.strip_external",
    "find_ep_targets": "metaplan.passes.strip_ep",
    "mark_shared_class_boundaries": "metaplan.passes.mark_shared",
    "non_boundary_classes": "metaplan.passes.mark_shared",
    "resolve_model_type": "metaplan.passes.strip_ep",
    "strip_ep_sub_boundaries": "metaplan.passes.strip_ep",
    "strip_external_state_boundaries": "metaplan.passes.strip_external",
}
"""The stages' names -> the module that defines each; imported when first used, so that
``import metaplan.passes.chaining`` (a verifier, a pipeline) does not load every stage."""

__all__ = sorted(_EXPORTS)

if not _typing.TYPE_CHECKING:  # type checkers see the imports below, and no catch-all
    def __getattr__(name: str) -> _Any:
        """Import a stage's module when one of its names is first used."""
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'metaplan.passes' has no attribute {name!r}")
        value = getattr(_import_module(module), name)
        globals()[name] = value
        return value

if _typing.TYPE_CHECKING:
    from metaplan.passes.mark_shared import (
        MarkSharedClassBoundaries as MarkSharedClassBoundaries,
    )
    from metaplan.passes.mark_shared import (
        mark_shared_class_boundaries as mark_shared_class_boundaries,
    )
    from metaplan.passes.mark_shared import (
        non_boundary_classes as non_boundary_classes,
    )
    from metaplan.passes.strip_ep import (
        EPTarget as EPTarget,
    )
    from metaplan.passes.strip_ep import (
        StripEPSubBoundaries as StripEPSubBoundaries,
    )
    from metaplan.passes.strip_ep import (
        find_ep_targets as find_ep_targets,
    )
    from metaplan.passes.strip_ep import (
        resolve_model_type as resolve_model_type,
    )
    from metaplan.passes.strip_ep import (
        strip_ep_sub_boundaries as strip_ep_sub_boundaries,
    )
    from metaplan.passes.strip_external import (
        StripExternalStateBoundaries as StripExternalStateBoundaries,
    )
    from metaplan.passes.strip_external import (
        strip_external_state_boundaries as strip_external_state_boundaries,
    )
