"""Hypothesis strategies for realistic plans, and the laws every pass must keep.

Needs the ``test`` extra (hypothesis). The strategies and law checkers are
in :mod:`metaplan.testing.strategies` (the composition laws in
:mod:`metaplan.testing.composing`), the stateful test
:class:`PlanMachine` in :mod:`metaplan.testing.machine` (its random edits in
:mod:`metaplan.testing.random_edits`); this package re-exports them. Use them for
your own passes::

    from hypothesis import given
    from metaplan.testing import check_pass_laws, plans

    @given(plans())
    def test_my_pass(plan):
        check_pass_laws(my_pass, plan)
"""

from metaplan.testing.composing import bracketings, chained, check_composition_laws
from metaplan.testing.machine import PlanMachine, State
from metaplan.testing.strategies import (
    CLASSES,
    TARGETS,
    VERIFY_CHECKS,
    PlanVersions,
    ViolatingPlan,
    bad_plan_dicts,
    check_pass_laws,
    edited_plan_dicts,
    law,
    plan_dicts,
    plan_pairs,
    plan_versions,
    plans,
    rule_lists,
    set_versions,
    sound_plan_dicts,
    spec_registries,
    versioned_plan_dicts,
    violating_plan_dicts,
)

__all__ = [
    "CLASSES",
    "TARGETS",
    "VERIFY_CHECKS",
    "PlanMachine",
    "PlanVersions",
    "State",
    "ViolatingPlan",
    "bad_plan_dicts",
    "bracketings",
    "chained",
    "check_composition_laws",
    "check_pass_laws",
    "edited_plan_dicts",
    "law",
    "plan_dicts",
    "plan_pairs",
    "plan_versions",
    "plans",
    "rule_lists",
    "set_versions",
    "sound_plan_dicts",
    "spec_registries",
    "versioned_plan_dicts",
    "violating_plan_dicts",
]
