"""Stage 2, strip_external_state_boundaries: classes an inline strategy body replaces."""

from __future__ import annotations

import pytest

import metaplan
from metaplan.passes import strip_external_state_boundaries
from metaplan.passes.strip_external import StripExternalStateBoundaries
from metaplan.records.edit import Edit


def test_every_module_of_an_external_class_is_stripped_in_fqn_order() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"r.1": {"is_boundary": True}, "r.0": {}, "s": "junk",
                       "m": {"is_boundary": True}, "f": {"is_boundary": False}},
        "boundary_classes": {"r.1": "Router", "r.0": "Router", "s": "Shell", "m": "MLP",
                             "f": "Router", "gone": "Shell"},
        "external_state_classes": ["Shell", "Router", "Absent"]})
    result = strip_external_state_boundaries()(plan)
    why = "class {} is an external-state class: an inline strategy body replaces its forward"
    assert [(c.op, c.path, c.old, c.new, c.why) for c in result.record.changes] == [
        ("add", ("param_plan", "r.0", "is_boundary"), None, False, why.format("Router")),
        ("set", ("param_plan", "r.1", "is_boundary"), True, False, why.format("Router")),
        ("remove", ("boundary_classes", "f"), "Router", None, why.format("Router")),
        ("remove", ("boundary_classes", "gone"), "Shell", None, why.format("Shell")),
        ("remove", ("boundary_classes", "r.0"), "Router", None, why.format("Router")),
        ("remove", ("boundary_classes", "r.1"), "Router", None, why.format("Router")),
        ("remove", ("boundary_classes", "s"), "Shell", None, why.format("Shell")),
    ]
    assert dict(result.plan.boundary_classes) == {"m": "MLP"}


def test_no_external_classes_is_a_no_op_returning_the_input() -> None:
    for external in ([], ["Nobody"]):
        plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
                                        "boundary_classes": {"m": "MLP"},
                                        "external_state_classes": external})
        result = strip_external_state_boundaries()(plan)
        assert result.plan is plan and result.record.is_noop
    assert repr(strip_external_state_boundaries()) == "strip_external_state_boundaries()"


def test_the_stage_is_a_frozen_value() -> None:
    stage = strip_external_state_boundaries()
    with pytest.raises(AttributeError):
        stage.extra = 1  # type: ignore[attr-defined]
    assert stage == strip_external_state_boundaries() and hash(stage) == hash(
        strip_external_state_boundaries())


def test_its_contract_catches_a_stage_that_forgets_to_strip() -> None:
    class Lazy(StripExternalStateBoundaries):
        def edit(self, edit: Edit) -> None:
            pass

    plan = metaplan.Plan.from_json({"param_plan": {"r": {"is_boundary": True}},
                                    "boundary_classes": {"r": "Router"},
                                    "external_state_classes": ["Router"]})
    assert [v.check for v in metaplan.verify(plan, "external-state")] == ["external-state"]
    done = metaplan.pipeline(strip_external_state_boundaries()).run(plan, contracts=True)
    assert metaplan.verify(done.final, "external-state") == ()
    with pytest.raises(metaplan.ContractError, match="ensures external-state"):
        metaplan.pipeline(Lazy()).run(plan, contracts=True)
