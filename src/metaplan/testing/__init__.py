"""Hypothesis strategies for realistic plans, and the laws every pass must keep.

Needs the ``test`` extra (hypothesis). The strategies are in
:mod:`metaplan.testing.strategies` (plans, bad plans, specs and rules),
:mod:`metaplan.testing.violating` (sound plans, and plans breaking one check)
and :mod:`metaplan.testing.version_pairs` (versions of a plan, for diffs and
merges); a pass's laws in :mod:`metaplan.testing.laws` (the composition laws in
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
from metaplan.testing.laws import check_pass_laws, law
from metaplan.testing.machine import PlanMachine, State
from metaplan.testing.strategies import (
    CLASSES,
    TARGETS,
    bad_plan_dicts,
    plan_dicts,
    plans,
    rule_lists,
    spec_registries,
)
from metaplan.testing.version_pairs import (
    PlanVersions,
    edited_plan_dicts,
    plan_pairs,
    plan_versions,
    set_versions,
    versioned_plan_dicts,
)
from metaplan.testing.violating import (
    VERIFY_CHECKS,
    ViolatingPlan,
    sound_plan_dicts,
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
