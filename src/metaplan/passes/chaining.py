"""Pipelines: immutable sequences of passes, run in order, giving a trace.

A pass never mutates its input and returns the input plan itself when it
changes nothing. A :class:`Pipeline` is an immutable tuple of passes that
holds no plan: built once, it runs on any input, giving a
:class:`~metaplan.passes.trace.Trace` of every state (input first) and every
record, which can be replayed, searched and explained.

Composition is associative: a pipeline used as a pass runs as its passes
inlined (bound to the same run input, named by their own names in the
trace), so every bracketing of the same passes gives the same plan,
records and trace:

>>> from metaplan.core.plan import Plan
>>> @edit_pass("unbound")
... def unbound(edit):
...     for fqn, entry in edit.plan.index("param_plan").items():
...         if entry.get("is_boundary") is True:
...             edit.set(("param_plan", fqn, "is_boundary"), False, "demo")
>>> plan = Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
>>> trace = pipeline(unbound, pipeline(unbound)).run(plan)
>>> trace.passes, [len(r) for r in trace.records], trace.states[2] is trace.states[1]
(('unbound', 'unbound'), [1, 0], True)
>>> trace.replay() == trace.final
True

A pass that needs the run's input (the shared-class stage reads the class
map as it was before any pass ran) implements ``for_run(input) -> Pass``
(:class:`~metaplan.passes.steps.RunBound`): the runner calls it when a run starts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from metaplan.core.invariants import verify
from metaplan.core.plan import Plan
from metaplan.errors import ContractError, PassError, VerificationError
from metaplan.frozen import paused_gc
from metaplan.passes.makers import (
    ChangesPass,
    EditPass,
    FunctionPass,
    changes_pass,
    contract_of,
    edit_pass,
)
from metaplan.passes.steps import (
    Contract,
    Pass,
    PassResult,
    RunBound,
    name_of,
    plan_of,
    trace_of,
)
from metaplan.passes.trace import Trace, Verifier, replay
from metaplan.records.algebra import compose
from metaplan.records.change import ChangeRecord

__all__ = [
    "ChangesPass",
    "Contract",
    "EditPass",
    "FunctionPass",
    "Pass",
    "PassResult",
    "Pipeline",
    "RunBound",
    "Trace",
    "Verifier",
    "bound",
    "changes_pass",
    "edit_pass",
    "pipeline",
    "replay",
    "run",
]


def _verified(plan: Plan, verifiers: Sequence[Verifier], name: str,
              done: Sequence[str]) -> None:
    """Run ``verifiers`` on the result of pass ``name``; raise on the first violations."""
    violations: list[Any] = []
    for verifier in verifiers:
        try:
            violations.extend(verifier(plan))
        except Exception as exc:
            label = getattr(verifier, "__name__", repr(verifier))
            raise PassError(f"{label} (a verifier, on the result of {name})", tuple(done),
                            exc) from exc
    if violations:
        raise VerificationError(name, tuple(done), violations)


def bound(passes: Iterable[Pass], run_input: Plan) -> tuple[Pass, ...]:
    """``passes`` ready to run on ``run_input``: each :class:`RunBound` one bound to it."""
    return tuple(step.for_run(run_input) if isinstance(step, RunBound) else step
                 for step in passes)


def _steps(passes: Iterable[Pass], verifiers: tuple[Verifier, ...],
           ) -> Iterator[tuple[Pass | None, tuple[Verifier, ...]]]:
    """``(pass, verifiers of its result)``, nested pipelines inlined; ``(None, verifiers)``
    checks the plan at that point (a nested pipeline's verifiers check its input)."""
    for step in passes:
        if isinstance(step, Pipeline):
            if step.verifiers:
                yield None, step.verifiers
            yield from _steps(step.passes, verifiers + step.verifiers)
        else:
            yield step, verifiers


class _Contracts:
    """Checks a pass's contract around it (``run(..., contracts=True)``)."""

    def __init__(self, step: Pass, name: str, done: Sequence[str]) -> None:
        self.contract = contract_of(step)
        self.name, self.done = name, tuple(done)
        self.kept: tuple[str, ...] = ()

    def before(self, plan: Plan) -> None:
        contract = self.contract
        self._check(plan, contract.requires, "requires")
        if contract.preserves:
            broken = {v.check for v in verify(plan, contract.preserves)}
            self.kept = tuple(c for c in contract.preserves if c not in broken)

    def after(self, plan: Plan) -> None:
        self._check(plan, self.contract.ensures, "ensures")
        self._check(plan, self.kept, "preserves")

    def _check(self, plan: Plan, checks: tuple[str, ...], clause: str) -> None:
        if checks:
            violations = verify(plan, checks)
            if violations:
                raise ContractError(self.name, self.done, clause, violations)


def run(passes: Sequence[Pass], plan: Plan | PassResult, *,
        verifiers: Sequence[Verifier] = (), contracts: bool = False) -> Trace:
    """Run ``passes`` in order on ``plan``; keep every state and record.

    Nested pipelines run as their passes inlined. Given the
    :class:`PassResult` of an earlier pass, the run continues its chain: the
    trace starts with that chain's states and records, and passes that read
    the run's input read the chain's first plan.

    With ``verifiers``, the input and every pass's result are checked; the
    first violation stops the run with a :class:`VerificationError` naming
    the pass whose result failed (as MLIR's verifier does). With
    ``contracts``, each pass's :class:`~metaplan.passes.steps.Contract` is checked
    around it, and the first broken one stops the run with a
    :class:`~metaplan.errors.ContractError`.
    """
    before = trace_of(plan)
    states, records = list(before.states), list(before.records)
    seconds, done = list(before.seconds), list(before.passes)
    with paused_gc():
        for step, checks in _steps((Pipeline(tuple(passes), None, tuple(verifiers)),), ()):
            if step is None:
                _verified(states[-1], checks, done[-1] if done else "<input>", done)
                continue
            step = step.for_run(before.input) if isinstance(step, RunBound) else step
            name = name_of(step)
            contract = _Contracts(step, name, done) if contracts else None
            if contract is not None:
                contract.before(states[-1])
            started = time.perf_counter()
            result = _call(step, states[-1], name, done)
            seconds.append(time.perf_counter() - started)
            if contract is not None:
                contract.after(result.plan)
            if checks:
                _verified(result.plan, checks, name, done)
            states.append(result.plan)
            records.append(result.record)
            done.append(name)
    return Trace(tuple(done), tuple(states), tuple(records), tuple(seconds))


def _call(step: Pass, plan: Plan, name: str, done: Sequence[str]) -> PassResult:
    try:
        result = step(plan)
    except PassError:
        raise
    except Exception as exc:
        raise PassError(name, tuple(done), exc) from exc
    if not isinstance(result, PassResult):
        raise PassError(name, tuple(done), TypeError(
            f"a pass returns PassResult(plan, record), this one returned "
            f"{type(result).__name__}; wrap a function of plan -> changes with "
            "changes_pass(name)"))
    return result


@dataclass(frozen=True)
class Pipeline:
    """An immutable sequence of passes; itself a pass (its record is the composition).

    Equal and hashable when its passes (and label and verifiers) are.
    """

    passes: tuple[Pass, ...]
    label: str | None = None
    verifiers: tuple[Verifier, ...] = ()

    @property
    def name(self) -> str:
        """``pipeline(a, b, c)`` unless a label was given."""
        return self.label or f"pipeline({', '.join(name_of(p) for p in self.passes)})"

    def run(self, plan: Plan | PassResult, *, contracts: bool = False) -> Trace:
        """Run every pass (and this pipeline's verifiers) on ``plan``; see :func:`run`."""
        return run(self.passes, plan, verifiers=self.verifiers, contracts=contracts)

    def __call__(self, plan: Plan | PassResult, /) -> PassResult:
        """This pipeline as one pass: the final plan, all its records composed into one.

        The result's :attr:`~PassResult.trace` holds every inner pass's state and record.
        """
        trace = self.run(plan)
        start = len(trace_of(plan).records)
        record = (compose(trace.records[start:]) if len(trace.records) > start
                  else ChangeRecord(self.name, plan_of(plan), plan_of(plan)))
        return PassResult(trace.final, record.renamed(self.name), trace)

    def then(self, *passes: Pass) -> Pipeline:
        """A new pipeline with ``passes`` appended (its label dropped: it is another pipeline)."""
        return Pipeline(self.passes + passes, None, self.verifiers)

    def verified(self, *verifiers: Verifier) -> Pipeline:
        """A new pipeline that checks the input and every pass's result with ``verifiers``."""
        return Pipeline(self.passes, self.label, self.verifiers + verifiers)

    def __len__(self) -> int:
        return len(self.passes)

    def __iter__(self) -> Iterator[Pass]:
        return iter(self.passes)

    def __repr__(self) -> str:
        return f"Pipeline({', '.join(repr(p) for p in self.passes)})"


def pipeline(*passes: Pass, label: str | None = None) -> Pipeline:
    """An immutable pipeline of ``passes``, run left to right."""
    return Pipeline(tuple(passes), label)
