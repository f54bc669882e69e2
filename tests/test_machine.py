"""PlanMachine: the stateful test of passes, records and merges, its hook, and that it can fail."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from metaplan import Change, ChangeRecord, Edit, PassResult, Plan, edit_pass
from metaplan.testing import PlanMachine, State

_PROFILE = settings()
MACHINE = settings(_PROFILE, max_examples=max(1, _PROFILE.max_examples // 6),
                   stateful_step_count=max(5, _PROFILE.max_examples // 10))
"""25 runs of 15 steps under the default profile, 50 of 30 under CI's."""

_QUICK = settings(_PROFILE, max_examples=200, stateful_step_count=10, database=None,
                  derandomize=True, phases=(Phase.generate,))
"""For machines that must fail: the same runs every time (the first failing one ends it,
usually within a few), not shrunk."""


def test_the_machine_runs() -> None:
    run_state_machine_as_test(PlanMachine, settings=MACHINE)


@edit_pass("mark_reviewed")
def mark_reviewed(edit: Edit) -> None:
    """Mark every boundary ``reviewed``."""
    for fqn, entry in sorted(edit.plan.index("param_plan").items()):
        if isinstance(entry, Mapping) and entry.get("is_boundary") is True:
            edit.set(("param_plan", fqn, "reviewed"), True, "boundaries are reviewed")


class ReviewedMachine(PlanMachine):
    """The machine with a pass of one's own, and its model."""

    extra_passes = (mark_reviewed,)

    def model_of(self, pass_: Any, model: dict[str, Any]) -> dict[str, Any] | None:
        for entry in model["param_plan"].values():
            if isinstance(entry, dict) and entry.get("is_boundary") is True:
                entry["reviewed"] = True
        return model


TestReviewedMachine = ReviewedMachine.TestCase
TestReviewedMachine.settings = settings(MACHINE, max_examples=max(1, MACHINE.max_examples // 2))


class _Sneaky:
    """Broken: writes into its input's entries' dicts (through the engine's private side)."""

    name = "sneaky"

    def __call__(self, plan: Plan) -> PassResult:
        for entry in plan.index("param_plan").values():
            if isinstance(entry, Mapping):
                entry._data["sneaky"] = True  # type: ignore[attr-defined]
        return PassResult(plan, ChangeRecord(self.name, plan, plan, ()))


class _WrongOld:
    """Broken: sets ``x_seen`` and records an old value that was not there."""

    name = "wrong_old"

    def __call__(self, plan: Plan) -> PassResult:
        new = plan.set("x_seen", True)
        old = "was this" if plan.get("x_seen") is not True else False
        return PassResult(new, ChangeRecord(self.name, plan, new,
                                            (Change("set", ("x_seen",), old, True, ""),)))


class _ModelledWrong(ReviewedMachine):
    """A model that says the pass marks non-boundaries too."""

    def model_of(self, pass_: Any, model: dict[str, Any]) -> dict[str, Any] | None:
        for entry in model["param_plan"].values():
            if isinstance(entry, dict):
                entry["reviewed"] = True
        return model


def _with(broken: object) -> type[PlanMachine]:
    return type("Broken", (PlanMachine,), {"extra_passes": (broken,)})


@pytest.mark.parametrize(("machine", "law"), [
    (_with(_Sneaky()), "sneaky: the plan is not its model"),
    (_with(_WrongOld()), r"the record's set at \['x_seen'\] expects"),
    (_ModelledWrong, "mark_reviewed: the record made by hand on the model is not what the oracle"),
])
def test_a_broken_pass_or_model_makes_the_machine_fail(machine: type[PlanMachine],
                                                       law: str) -> None:
    with pytest.raises(AssertionError, match=law):
        run_state_machine_as_test(machine, settings=_QUICK)


def test_the_invariants_see_an_earlier_plan_or_model_change() -> None:
    machine = PlanMachine()
    first = machine.new_plan({"param_plan": {"m": {"is_boundary": True}}})
    machine.new_plan({"param_plan": {"n": {}}})
    assert isinstance(first, State) and len(machine.made) == 2
    machine.earlier_plans_are_unchanged()
    machine.models_are_their_plans()
    first.model["param_plan"]["m"]["is_boundary"] = False
    with pytest.raises(AssertionError, match="a model is not its plan's JSON"):
        machine.models_are_their_plans()
    first.plan.index("param_plan")["m"]._data["is_boundary"] = False
    with pytest.raises(AssertionError, match="an earlier plan changed"):
        machine.earlier_plans_are_unchanged()
