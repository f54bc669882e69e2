"""The pass protocol: what a pass is, what it returns, what it promises.

A pass is a named callable ``plan -> PassResult(plan, record)``. It may also
be given the :class:`PassResult` of the pass before it, so passes chain as
plain functions (``toolz.pipe(plan, a, b, c)``): it reads that result's
plan, binds :data:`~metaplan.settings.RUN_INPUT` to the chain's first plan,
and returns a result whose :attr:`~PassResult.trace` is the chain so far.

>>> from metaplan.records.change import ChangeRecord
>>> from metaplan.core.plan import Plan
>>> class Noop:
...     name = "noop"
...     def __call__(self, arg):
...         return continue_chain(self, arg, lambda plan: (plan, ChangeRecord("noop", plan, plan)))
>>> plan = Plan.from_json({"param_plan": {}})
>>> result = Noop()(Noop()(plan))
>>> result.trace.passes, result.plan is plan, result.trace.input is plan
(('noop', 'noop'), True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

from metaplan.core.plan import Plan
from metaplan.passes.trace import Trace
from metaplan.records.change import ChangeRecord

__all__ = ["Contract", "Pass", "PassResult", "RunBound", "as_names", "bound_to",
           "continue_chain", "name_of", "plan_of", "trace_of"]


@dataclass(frozen=True, slots=True)
class PassResult:
    """What a pass returns: the new plan and the record of how it got there.

    It unpacks as ``plan, record = result``. :attr:`trace` is the chain the
    result ends (its first plan, every state and record so far), or None
    for a result built without one (a pass of your own that returns
    ``PassResult(plan, record)``): a pass given such a result starts a new
    chain at its plan.
    """

    plan: Plan
    record: ChangeRecord
    trace: Trace | None = field(default=None, compare=False, repr=False)

    def __iter__(self) -> Iterator[Any]:
        yield self.plan
        yield self.record

    @property
    def records(self) -> tuple[ChangeRecord, ...]:
        """Every record of the chain so far (just :attr:`record` without a trace)."""
        return (self.record,) if self.trace is None else self.trace.records


@runtime_checkable
class Pass(Protocol):
    """A named, pure callable ``plan -> PassResult``."""

    @property
    def name(self) -> str: ...

    def __call__(self, plan: Plan, /) -> PassResult: ...


@runtime_checkable
class RunBound(Protocol):
    """A pass that reads the run's input: the runner calls ``for_run(input)`` first."""

    def for_run(self, run_input: Plan, /) -> Pass: ...


class Contract(NamedTuple):
    """The :func:`~metaplan.core.invariants.verify` checks a pass needs and keeps.

    - ``requires``: checks its input must pass;
    - ``ensures``: checks its result passes, whatever its input;
    - ``preserves``: checks its result passes whenever its input did.

    Checked only when asked (``run(plan, contracts=True)``, ``--check-contracts``).
    """

    requires: tuple[str, ...] = ()
    ensures: tuple[str, ...] = ()
    preserves: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.requires or self.ensures or self.preserves)


def name_of(step: Any) -> str:
    """The name a pass goes by in traces and errors."""
    return str(getattr(step, "name", None) or getattr(step, "__name__", repr(step)))


def plan_of(arg: Plan | PassResult) -> Plan:
    """The plan a pass is given: ``arg`` itself, or the plan of the result it follows."""
    return arg.plan if isinstance(arg, PassResult) else arg


def trace_of(arg: Plan | PassResult) -> Trace:
    """The chain a pass given ``arg`` continues (a new one for a plan)."""
    if isinstance(arg, PassResult) and arg.trace is not None:
        return arg.trace
    return Trace.start(plan_of(arg))


def continue_chain(step: Any, arg: Plan | PassResult,
                   body: Callable[[Plan], tuple[Plan, ChangeRecord]]) -> PassResult:
    """Run ``body`` (plan -> (plan, record)) on ``arg``'s plan as pass ``step``.

    The result's trace is ``arg``'s chain with this pass added. ``step``
    should already be bound to the chain's input (:func:`bound_to`).
    """
    before = trace_of(arg)
    plan, record = body(plan_of(arg))
    return PassResult(plan, record, before.then(name_of(step), plan, record))


def bound_to(step: Any, arg: Plan | PassResult) -> Any:
    """``step`` bound to the input of the chain ``arg`` continues, when it reads it."""
    if isinstance(step, RunBound) and isinstance(arg, PassResult):
        return step.for_run(trace_of(arg).input)
    return step


def as_names(values: str | Iterable[str]) -> tuple[str, ...]:
    """``values`` as a tuple (a lone string is one check name, not its letters)."""
    return (values,) if isinstance(values, str) else tuple(values)
