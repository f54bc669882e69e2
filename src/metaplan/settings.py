"""Sentinels for settings read at run time, each a typed enum member (as attrs' ``NOTHING``).

``None`` never means "look it up": it means "none" (``model_type=None``: no
model type), and where "none" has its own spelling (``rules=()``: no rules,
``SpecRegistry()``: no specs) ``None`` is refused with a ``TypeError``
(:func:`refuse_none`). These mean "look it up":

- :data:`FROM_PLAN`: from the plan the pass is given (its ``injections`` for
  rules, its model type);
- :data:`RUN_INPUT`: from the input of the run the pass is part of (the
  class map the shared-class stage reads, as it was before any pass ran).
"""

from __future__ import annotations

import enum
from typing import Literal

__all__ = ["FROM_PLAN", "PROVENANCE", "RUN_INPUT", "VOLATILE", "FromPlan", "FromRun",
           "ModelTypeSetting", "refuse_none"]


class FromPlan(enum.Enum):
    """The type of :data:`FROM_PLAN`."""

    FROM_PLAN = "from the plan"

    def __repr__(self) -> str:
        return "FROM_PLAN"


class FromRun(enum.Enum):
    """The type of :data:`RUN_INPUT`."""

    RUN_INPUT = "from the run's input"

    def __repr__(self) -> str:
        return "RUN_INPUT"


FROM_PLAN = FromPlan.FROM_PLAN
"""Take the setting from the plan the pass is given."""

RUN_INPUT = FromRun.RUN_INPUT
"""Take the setting from the input of the run (the pipeline's first plan)."""

ModelTypeSetting = str | None | Literal[FromPlan.FROM_PLAN]
"""A model type (``None``: none), or :data:`FROM_PLAN`."""

VOLATILE = ("signature", "yaml_sha256", "source", "outputs", "codegen_version")
"""The fields a regeneration changes whatever the model and rules (``--ignore-volatile``)."""

PROVENANCE = ("signature", "codegen_version", "source", "outputs")
"""The fields that say where a plan came from (the generator's signature and version, the
model source, the hashes of the files it wrote): a text or HTML diff shows their changes in its
header, not as changes, unless asked (``--show-provenance``)."""


_SPELLINGS = {
    "rules": ("FROM_PLAN or an iterable of InlineRule",
              "FROM_PLAN (the default) for the plan's injections, or () for no rules"),
    "specs": ("a SpecRegistry",
              "BUILTIN_SPECS (the default), or SpecRegistry() for no specs"),
}


def refuse_none(where: str, **settings: object) -> None:
    """Refuse ``rules=None`` and ``specs=None``: "none" is spelled otherwise there.

    (``None`` once meant "the plan's"; taking it for "none" now would change
    such calls silently.)

    >>> refuse_none("verify", rules=(), specs=None)
    Traceback (most recent call last):
    ...
    TypeError: verify(specs=None): expected a SpecRegistry, found None; pass BUILTIN_SPECS \
(the default), or SpecRegistry() for no specs
    """
    for name, value in settings.items():
        if value is None:
            expected, fix = _SPELLINGS[name]
            raise TypeError(f"{where}({name}=None): expected {expected}, found None; "
                            f"pass {fix}")
