"""Passes by name, and the textual pipeline spec: ``strip-ep-sub-boundaries,...``.

A spec is a comma-separated list of pass names; ``normalize`` stands for
the three stages in the seed's order. ``slim`` (upstream's projection, see
:mod:`metaplan.passes.slimming`) runs only when named. Names are written in kebab case, and
the snake-case names records carry are accepted too.

>>> parse_passes("normalize")
('strip-ep-sub-boundaries', 'strip-external-state-boundaries', 'mark-shared-class-boundaries')
>>> format_passes(parse_passes(" strip_external_state_boundaries , mark-shared-class-boundaries"))
'strip-external-state-boundaries,mark-shared-class-boundaries'
>>> parse_passes("strip-ep")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
metaplan.errors.SpecError: --passes: unknown pass 'strip-ep' (did you mean strip-ep-sub-...?); ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from metaplan.core.rules import BUILTIN_SPECS, InlineRule, SpecRegistry
from metaplan.names import parse_names
from metaplan.passes.chaining import Pass, Pipeline
from metaplan.passes.mark_shared import mark_shared_class_boundaries
from metaplan.passes.slimming import slim
from metaplan.passes.strip_ep import strip_ep_sub_boundaries
from metaplan.passes.strip_external import strip_external_state_boundaries
from metaplan.settings import FROM_PLAN, FromPlan, ModelTypeSetting, refuse_none

__all__ = ["NORMALIZE", "PASSES", "Settings", "build_pipeline", "format_passes", "parse_passes"]


class Settings(NamedTuple):
    """What a pass may be built from: the user's rules, specs and model type (no plan)."""

    specs: SpecRegistry = BUILTIN_SPECS
    rules: tuple[InlineRule, ...] | FromPlan = FROM_PLAN
    model_type: ModelTypeSetting = FROM_PLAN


PASSES: dict[str, Callable[[Settings], Pass]] = {
    "strip-ep-sub-boundaries": lambda s: strip_ep_sub_boundaries(
        rules=s.rules, specs=s.specs, model_type=s.model_type),
    "strip-external-state-boundaries": lambda s: strip_external_state_boundaries(),
    # reads the class map of the run's input, as the seed's full_class_map
    "mark-shared-class-boundaries": lambda s: mark_shared_class_boundaries(),
    "slim": lambda s: slim,
}
"""Pass name -> how to build it from the settings."""

NORMALIZE = tuple(name for name in PASSES if name != "slim")
"""The seed's three stages, in its order (``slim`` runs only when named)."""


def parse_passes(text: str, *, where: str = "--passes") -> tuple[str, ...]:
    """The pass names of a spec, checked; ``normalize`` expands to :data:`NORMALIZE`."""
    return parse_names(text, tuple(PASSES), what="pass", where=where,
                       groups={"normalize": NORMALIZE},
                       note=", and normalize for the seed's three stages")


def format_passes(names: Iterable[str]) -> str:
    """The spec that :func:`parse_passes` reads back as ``names``."""
    return ",".join(names)


def build_pipeline(names: str | Sequence[str], *, specs: SpecRegistry = BUILTIN_SPECS,
                   rules: Iterable[InlineRule] | FromPlan = FROM_PLAN,
                   model_type: ModelTypeSetting = FROM_PLAN,
                   label: str | None = None) -> Pipeline:
    """The pipeline of the named passes (a spec, or names as :func:`parse_passes` takes
    them). It holds no plan: run it on any.

    >>> [step.name for step in build_pipeline("strip_ep_sub_boundaries,normalize")]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['strip_ep_sub_boundaries', 'strip_ep_sub_boundaries', 'strip_external_state_boundaries',
     'mark_shared_class_boundaries']
    """
    refuse_none("build_pipeline", specs=specs, rules=rules)
    words = [names] if isinstance(names, str) else list(names)
    checked = [name for word in words for name in parse_passes(word, where="build_pipeline")]
    settings = Settings(specs, rules if isinstance(rules, FromPlan) else tuple(rules),
                        model_type)
    return Pipeline(tuple(PASSES[name](settings) for name in checked), label)
