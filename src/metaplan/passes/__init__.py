"""The seed's three stages, each a pure pass."""

from metaplan.passes.mark_shared import (
    MarkSharedClassBoundaries,
    mark_shared_class_boundaries,
    non_boundary_classes,
)
from metaplan.passes.strip_ep import (
    EPTarget,
    StripEPSubBoundaries,
    find_ep_targets,
    resolve_model_type,
    strip_ep_sub_boundaries,
)
from metaplan.passes.strip_external import (
    StripExternalStateBoundaries,
    strip_external_state_boundaries,
)

__all__ = [
    "EPTarget",
    "MarkSharedClassBoundaries",
    "StripEPSubBoundaries",
    "StripExternalStateBoundaries",
    "find_ep_targets",
    "mark_shared_class_boundaries",
    "non_boundary_classes",
    "resolve_model_type",
    "strip_ep_sub_boundaries",
    "strip_external_state_boundaries",
]
