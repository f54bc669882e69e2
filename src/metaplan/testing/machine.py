"""PlanMachine: a hypothesis state machine that runs passes, records and merges on plans.

In the manner of pyrsistent's ``hypothesis_vector_test``: a bundle of
states, each a :class:`State` (a plain-dict model, the :class:`Plan`, the
records from its root), grows as rules run a built-in pass, a random edit,
``compose``, ``invert``, replay, ``diff`` + ``apply``, a JSON round trip
and a three-way ``merge``; each rule draws *any* earlier state, so old
versions keep being used. The model is an independent oracle: the seed
transcribed (:mod:`metaplan.passes.oracle`) for the built-in stages, the drawn
edit made by hand on dicts for a random edit, and otherwise the record's
changes made by hand on dicts (checking each old value). After every step,
for every state ever made: its plan's bytes are what they were when it was
made, and its model is its plan's JSON.

Run it with ``run_state_machine_as_test(PlanMachine, settings=...)``, or
collect ``PlanMachine.TestCase``. Add your own passes by subclassing:
``extra_passes`` are run on any state, and :meth:`PlanMachine.model_of`
says what each makes of a model (by default the record's changes are made
by hand on the dict, which still checks the record against the plan)::

    from hypothesis.stateful import run_state_machine_as_test
    from metaplan import edit_pass
    from metaplan.testing import PlanMachine

    @edit_pass("mark_reviewed")
    def mark_reviewed(edit):
        for fqn, entry in sorted(edit.plan.index("param_plan").items()):
            if hasattr(entry, "get") and entry.get("is_boundary") is True:
                edit.set(("param_plan", fqn, "reviewed"), True, "boundaries are reviewed")

    class ReviewedMachine(PlanMachine):
        extra_passes = (mark_reviewed,)

        def model_of(self, pass_, model):
            for entry in model["param_plan"].values():
                if isinstance(entry, dict) and entry.get("is_boundary") is True:
                    entry["reviewed"] = True
            return model

    run_state_machine_as_test(ReviewedMachine)
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from metaplan.core.plan import Plan, dumps, loads
from metaplan.core.rules import rules_from_plan
from metaplan.passes.chaining import Pass, pipeline, replay
from metaplan.passes.normal_form import normalize_pipeline
from metaplan.passes.oracle import reference_normalize, reference_stage
from metaplan.passes.slimming import slim
from metaplan.records.algebra import compose, invert
from metaplan.records.change import ChangeRecord
from metaplan.records.codec import dumps_records, loads_records
from metaplan.records.edit import apply
from metaplan.testing.laws import law
from metaplan.testing.random_edits import (
    RECIPES,
    Step,
    apply_change,
    apply_step,
    resolve,
    scope,
    steps_pass,
)
from metaplan.testing.strategies import plan_dicts
from metaplan.versions.diffing import diff
from metaplan.versions.merging import merge

__all__ = ["BUILTIN_PASSES", "PlanMachine", "State", "model_bytes"]

_NORMALIZE = normalize_pipeline()
BUILTIN_PASSES: dict[str, Pass] = {
    "normalize": _NORMALIZE, **{stage.name: pipeline(stage) for stage in _NORMALIZE.passes},
    "slim": slim,
}
"""The passes the machine runs: ``normalize``, each of its stages alone, and ``slim``."""

_ROOTS = plan_dicts(odd_flags=False, max_layers=2)


def model_bytes(model: dict[str, Any]) -> bytes:
    """A model's JSON as :func:`~metaplan.core.plan.dumps` writes a plan."""
    return json.dumps(model, indent=2, sort_keys=True).encode()


@dataclass(frozen=True, eq=False)
class State:
    """One state of the machine: the model (plain JSON, never changed), the plan, the records
    that lead to it from ``root`` (whose model is ``root_model``), and the plan's bytes when
    it was made."""

    model: dict[str, Any]
    plan: Plan
    records: tuple[ChangeRecord, ...]
    root: Plan
    root_model: dict[str, Any]
    canonical: bytes


def _same(a: Plan, b: Plan, what: str) -> None:
    law(a.content_hash == b.content_hash, f"{what}: the content hashes differ")
    law(dumps(a) == dumps(b), f"{what}: the plans' JSON differs")


class PlanMachine(RuleBasedStateMachine):
    """Passes, records and merges on plans, checked against plain-dict models; see the
    module's doc. Subclass it to add ``extra_passes`` (and :meth:`model_of`)."""

    extra_passes: ClassVar[tuple[Pass, ...]] = ()
    """Your passes: each run on any state by the rule ``run_extra_pass``."""

    states = Bundle("states")

    def __init__(self) -> None:
        super().__init__()
        self.made: list[State] = []

    def model_of(self, pass_: Pass, model: dict[str, Any]) -> dict[str, Any] | None:
        """What ``pass_`` (one of ``extra_passes``) makes of ``model``, a deep copy to change
        in place and return; ``None``: the record's changes made on ``model`` by hand."""
        return None

    # making states -------------------------------------------------------------------------

    def _keep(self, model: dict[str, Any], plan: Plan, records: tuple[ChangeRecord, ...],
              root: Plan, root_model: dict[str, Any]) -> State:
        state = State(model, plan, records, root, root_model, dumps(plan))
        law(model_bytes(model) == state.canonical,
            f"{records[-1].pass_name if records else 'a new plan'}: the plan is not its model")
        self.made.append(state)
        return state

    def _root(self, meta: dict[str, Any]) -> State:
        model = copy.deepcopy(meta)
        plan = Plan.from_json(meta)
        return self._keep(model, plan, (), plan, model)

    def _after(self, state: State, plan: Plan, record: ChangeRecord,
               model: dict[str, Any] | None) -> State:
        """The state ``record`` (which made ``plan``) leads to from ``state``; ``model``: what
        the oracle says it is (``None``: the record made on the model by hand)."""
        name = record.pass_name
        law(record.base == state.plan.content_hash, f"{name}: the record's base is not the input")
        law(record.result == plan.content_hash, f"{name}: the record's result is not the output")
        by_hand = copy.deepcopy(state.model)
        for change in record.changes:
            apply_change(by_hand, change)
        if model is not None:
            law(model_bytes(by_hand) == model_bytes(model),
                f"{name}: the record made by hand on the model is not what the oracle says")
        return self._keep(by_hand if model is None else model, plan,
                          (*state.records, record), state.root, state.root_model)

    def _run(self, state: State, pass_: Pass, model: dict[str, Any] | None) -> State:
        result = pass_(state.plan)
        if result.record.is_noop:
            law(result.plan is state.plan, f"{pass_.name}: a no-op must return the input object")
        return self._after(state, result.plan, result.record, model)

    def _edited(self, state: State, steps: tuple[Step, ...]) -> State:
        model = copy.deepcopy(state.model)
        for step in steps:
            apply_step(model, step)
        return self._run(state, steps_pass(steps), model)

    # rules ---------------------------------------------------------------------------------

    @initialize(target=states, meta=_ROOTS)
    def first_plan(self, meta: dict[str, Any]) -> State:
        """A root: a generated plan."""
        return self._root(meta)

    @rule(target=states, meta=_ROOTS)
    def new_plan(self, meta: dict[str, Any]) -> State:
        """Another root: states of different roots meet in ``diff_apply``."""
        return self._root(meta)

    @rule(target=states, state=states, name=st.sampled_from(sorted(BUILTIN_PASSES)))
    def run_builtin_pass(self, state: State, name: str) -> State:
        """A built-in pass; the seed's stages are modelled by the oracle, ``slim`` by hand."""
        model = copy.deepcopy(state.model)
        rules, model_type = rules_from_plan(model), model.get("model_type")
        if name == "normalize":
            reference_normalize(model, rules, model_type, per_spec_patterns=True)
        elif name != "slim":
            reference_stage(name, model, rules, model_type, per_spec_patterns=True)
        return self._run(state, BUILTIN_PASSES[name], None if name == "slim" else model)

    @precondition(lambda self: bool(self.extra_passes))
    @rule(target=states, state=states, pick=st.integers(0, 255))
    def run_extra_pass(self, state: State, pick: int) -> State:
        """One of ``extra_passes``, modelled by :meth:`model_of`."""
        pass_ = self.extra_passes[pick % len(self.extra_passes)]
        return self._run(state, pass_, self.model_of(pass_, copy.deepcopy(state.model)))

    @rule(target=states, state=states, recipes=RECIPES)
    def run_random_edit(self, state: State, recipes: list[tuple[str, int, str, int]]) -> State:
        """A drawn edit, made by a pass on the plan and by hand on the model."""
        return self._edited(state, resolve(state.model, recipes))

    @rule(target=states, state=states, recipes=RECIPES)
    def compose_records(self, state: State, recipes: list[tuple[str, int, str, int]]
                        ) -> State:
        """After one more edit: the last two records composed, and all of them, apply as the
        records one after another do."""
        done = self._edited(state, resolve(state.model, recipes))
        chain = done.records
        _same(apply(replay(done.root, chain[:-2]), compose(chain[-2:])), done.plan,
              "compose of the last two records")
        _same(apply(done.root, compose(chain)), done.plan, "compose of every record")
        return done

    @rule(target=states, state=states)
    def invert_records(self, state: State) -> State:
        """The records inverted, last first, lead back to the root."""
        for record in state.records:
            law(invert(invert(record)) == record, f"{record.pass_name}: invert is no involution")
        undo = tuple(invert(record) for record in reversed(state.records))
        back = replay(state.plan, undo)
        _same(back, state.root, "the inverted records")
        return self._keep(copy.deepcopy(state.root_model), back, (*state.records, *undo),
                          state.root, state.root_model)

    @rule(target=states, state=states)
    def replay_records(self, state: State) -> State:
        """The records, read back from their JSON, replayed from the root reproduce the plan."""
        again = replay(state.root, loads_records(dumps_records(state.records)))
        _same(again, state.plan, "replay from the root")
        return self._keep(copy.deepcopy(state.model), again, state.records, state.root,
                          state.root_model)

    @rule(target=states, source=states, goal=states, arrays=st.sampled_from(("items", "whole")))
    def diff_apply(self, source: State, goal: State, arrays: str) -> State:
        """``diff(a, b)`` applied to ``a`` reaches ``b``: any two states, of any roots."""
        record = diff(source.plan, goal.plan, arrays=arrays)
        reached = apply(source.plan, record)
        _same(reached, goal.plan, f"diff (arrays {arrays}) applied")
        return self._after(source, reached, record, copy.deepcopy(goal.model))

    @rule(target=states, state=states)
    def json_round_trip(self, state: State) -> State:
        """A plan and its records read back from their JSON are equal to them."""
        text = dumps(state.plan)
        loaded = loads(text)
        _same(loaded, state.plan, "the plan read back")
        _same(Plan.from_json(state.plan.to_json()), state.plan, "Plan.from_json(to_json())")
        law(loads_records(dumps_records(state.records)) == state.records,
            "the records read back differ")
        return self._keep(copy.deepcopy(state.model), loaded, state.records, state.root,
                          state.root_model)

    @rule(target=states, base=states, ours=RECIPES, theirs=RECIPES)
    def merge_disjoint(self, base: State, ours: list[tuple[str, int, str, int]],
                       theirs: list[tuple[str, int, str, int]]) -> State:
        """Two edits of one base at disjoint places merge to both applied; merging a side
        with itself, or with the base, gives that side."""
        mine = resolve(base.model, ours)
        taken = {scope(step.path) for step in mine}
        yours = tuple(step for step in resolve(base.model, theirs)
                      if scope(step.path) not in taken)
        left, right = self._edited(base, mine), self._edited(base, yours)
        both = self._edited(left, yours)
        merged = merge(base.plan, left.plan, right.plan)
        law(merged.clean, f"disjoint edits conflict: {[str(c) for c in merged.conflicts]}")
        _same(merged.plan, both.plan, "the merge of disjoint edits")
        _same(merge(base.plan, left.plan, left.plan).plan, left.plan, "merge(base, x, x)")
        _same(merge(base.plan, base.plan, right.plan).plan, right.plan, "merge(base, base, x)")
        _same(merge(base.plan, left.plan, base.plan).plan, left.plan, "merge(base, x, base)")
        return self._after(left, merged.plan, merged.record, copy.deepcopy(both.model))

    # invariants ----------------------------------------------------------------------------

    @invariant()
    def earlier_plans_are_unchanged(self) -> None:
        """Every plan ever made still has the bytes it had when it was made."""
        for state in self.made:
            law(dumps(state.plan) == state.canonical, "an earlier plan changed")

    @invariant()
    def models_are_their_plans(self) -> None:
        """Every model ever made is still its plan's JSON."""
        for state in self.made:
            law(model_bytes(state.model) == state.canonical, "a model is not its plan's JSON")
