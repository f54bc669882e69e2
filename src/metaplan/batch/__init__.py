"""Many plans at once: :func:`map_plans` over plan files on any executor (see
:mod:`metaplan.batch.pool`)."""

from metaplan.batch.pool import IN_PROCESS, InProcess, PlanPaths, content_key, map_plans

__all__ = ["IN_PROCESS", "InProcess", "PlanPaths", "content_key", "map_plans"]
