"""Stage 3, mark_shared_class_boundaries: boundaries whose class has non-boundary instances."""

from __future__ import annotations

from typing import Any

import pytest

import metaplan
from metaplan.passes import mark_shared_class_boundaries, non_boundary_classes
from metaplan.passes.mark_shared import MarkSharedClassBoundaries
from metaplan.records.edit import Edit
from metaplan.settings import RUN_INPUT


def _plan(entries: dict[str, Any], classes: dict[str, str]) -> metaplan.Plan:
    return metaplan.Plan.from_json({"param_plan": entries, "boundary_classes": classes})


def _marks(record: metaplan.ChangeRecord) -> list[tuple[str, str, Any, str]]:
    return [(c.op, str(c.path[1]), c.old, c.why) for c in record.changes]


def test_examples_are_the_first_two_non_boundary_modules_in_fqn_order() -> None:
    off = {"is_boundary": False}
    plan = _plan({"c": off, "b": off, "d": off, "a": off, "e": {"is_boundary": True},
                  "f": {}, "g": "junk", "h": {"is_boundary": 0}},
                 {"a": "C", "b": "C", "c": "C", "d": "C", "e": "C", "f": "C", "g": "C",
                  "h": "D", "x": "E"})
    assert non_boundary_classes(plan, plan.index("boundary_classes")) == {"C": ["a", "b"]}
    assert non_boundary_classes(plan, {"a": "X", "d": "Y", "c": "X"}) == {"X": ["a", "c"],
                                                                          "Y": ["d"]}
    assert non_boundary_classes(plan, {}) == {}
    later = _plan({"a": off, "c": off, "b": off, "d": off}, {"a": "C", "b": "C", "c": "C",
                                                             "d": "C"})
    assert non_boundary_classes(later, later.index("boundary_classes")) == {"C": ["a", "b"]}


def test_the_why_names_another_non_boundary_instance_or_says_this_is_one() -> None:
    plan = _plan({"m.0": {"is_boundary": False}, "m.1": {"is_boundary": True},
                  "m.2": {"is_boundary": True, "skip_source_lowering": True},
                  "m.3": {"is_boundary": True, "skip_source_lowering": 1},
                  "n.0": {"is_boundary": False}, "n.1": "junk", "o.0": {"is_boundary": True}},
                 {"m.0": "M", "m.1": "M", "m.2": "M", "m.3": "M", "n.0": "N", "n.1": "N",
                  "o.0": "O"})
    record = mark_shared_class_boundaries()(plan).record
    assert _marks(record) == [  # in FQN order; m.2 is marked already; n.1 is no object
        ("add", "m.0", None, "class M has non-boundary instances (this module is one), so its "
                             "forward is not lowered"),
        ("add", "m.1", None, "class M is shared with non-boundary m.0"),
        ("set", "m.3", 1, "class M is shared with non-boundary m.0"),
        ("add", "n.0", None, "class N has non-boundary instances (this module is one), so its "
                             "forward is not lowered"),
    ]
    assert all(c.new is True and c.path[2] == "skip_source_lowering" for c in record.changes)


def test_with_two_non_boundary_instances_each_is_shared_with_the_other() -> None:
    off = {"is_boundary": False}
    plan = _plan({"a": off, "b": off, "c": off}, {"a": "C", "b": "C", "c": "C"})
    assert [c.why for c in mark_shared_class_boundaries()(plan).record.changes] == [
        "class C is shared with non-boundary b", "class C is shared with non-boundary a",
        "class C is shared with non-boundary a"]


def test_the_class_map_is_the_run_inputs_by_default() -> None:
    plan = _plan({"e": {"is_boundary": False}, "m": {"is_boundary": True}},
                 {"e": "C", "m": "C"})
    stripped = plan.set("boundary_classes", {"m": "C"})  # as a strip stage leaves it
    alone = mark_shared_class_boundaries()
    assert alone(stripped).record.is_noop  # outside a run: the plan it is given
    run = metaplan.pipeline(metaplan.changes_pass("strip")(lambda p: [metaplan.Change(
        "remove", ("boundary_classes", "e"), "C", None)]), alone).run(plan)
    assert [c.path for c in run.records[1].changes] == [("param_plan", "m",
                                                         "skip_source_lowering")]
    bound = alone.for_run(plan)
    assert bound.class_map is not RUN_INPUT and dict(bound.class_map) == {"e": "C", "m": "C"}
    assert bound.for_run(stripped) is bound
    assert len(bound(stripped).record) == 1
    given = mark_shared_class_boundaries(class_map={"e": "C"})
    assert len(given(stripped).record) == 1 and given.for_run(plan) is given
    assert repr(alone) == "mark_shared_class_boundaries(class_map=RUN_INPUT)"
    assert repr(given) == "mark_shared_class_boundaries(class_map=<1 FQNs>)"
    with pytest.raises(AttributeError):
        given.class_map = {}  # type: ignore[misc]


def test_nothing_non_boundary_is_a_no_op_returning_the_input() -> None:
    plan = _plan({"m": {"is_boundary": True}, "n": {}}, {"m": "C", "n": "C"})
    result = mark_shared_class_boundaries()(plan)
    assert result.plan is plan and result.record.is_noop


def test_its_contract_catches_a_stage_that_forgets_to_mark() -> None:
    class Lazy(MarkSharedClassBoundaries):
        def edit(self, edit: Edit) -> None:
            pass

    plan = _plan({"a": {"is_boundary": False}, "b": {"is_boundary": True}}, {"a": "M", "b": "M"})
    assert [v.check for v in metaplan.verify(plan, "shared-class")] == ["shared-class"]
    done = metaplan.pipeline(mark_shared_class_boundaries()).run(plan, contracts=True)
    assert metaplan.verify(done.final, "shared-class") == ()
    with pytest.raises(metaplan.ContractError, match="ensures shared-class"):
        metaplan.pipeline(Lazy()).run(plan, contracts=True)
