"""Sentinels for settings read at run time, each a typed enum member (as attrs' ``NOTHING``).

``None`` always means "none" (no model type); these mean "look it up":

- :data:`FROM_PLAN`: from the plan the pass is given (its ``injections`` for
  rules, its model type);
- :data:`RUN_INPUT`: from the input of the run the pass is part of (the
  class map the shared-class stage reads, as it was before any pass ran).
"""

from __future__ import annotations

import enum
from typing import Literal

__all__ = ["FROM_PLAN", "RUN_INPUT", "VOLATILE", "FromPlan", "FromRun", "ModelTypeSetting"]


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
