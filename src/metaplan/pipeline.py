"""Passes and pipelines: pure ``plan -> PassResult(plan, record)`` steps, run in order.

A pass never mutates its input and returns the input plan itself when it
changes nothing. A :class:`Pipeline` is an immutable tuple of passes that
holds no plan: built once, it runs on any input, giving a :class:`Trace` of
every state (input first) and every record, which can be replayed,
searched and explained.

Write a pass as a function that makes changes through an
:class:`~metaplan.edit.Edit` (:func:`edit_pass`), or one that lists
:class:`~metaplan.change.Change` s (:func:`changes_pass`):

>>> from metaplan.plan import Plan
>>> @edit_pass("unbound")
... def unbound(edit):
...     for fqn, entry in edit.plan.index("param_plan").items():
...         if entry.get("is_boundary") is True:
...             edit.set(("param_plan", fqn, "is_boundary"), False, "demo")
>>> plan = Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
>>> trace = pipeline(unbound, unbound).run(plan)
>>> [len(r) for r in trace.records], trace.states[2] is trace.states[1]
([1, 0], True)
>>> trace.replay() == trace.final
True

A pass that needs the run's input (the shared-class stage reads the class
map as it was before any pass ran) implements ``for_run(input) -> Pass``
(:class:`RunBound`): the runner calls it when a run starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

from metaplan.algebra import compose
from metaplan.change import Change, ChangeRecord
from metaplan.edit import Edit, apply
from metaplan.errors import PassError, VerificationError
from metaplan.frozen import paused_gc
from metaplan.plan import Plan

__all__ = [
    "ChangesPass",
    "EditPass",
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


Verifier = Callable[[Plan], Iterable[Any]]
"""A check run between passes: ``plan -> violations`` (empty: the plan is sound)."""


class PassResult(NamedTuple):
    """What a pass returns: the new plan and the record of how it got there."""

    plan: Plan
    record: ChangeRecord


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


class EditPass:
    """Base for passes that make their changes through an :class:`~metaplan.edit.Edit`."""

    name: ClassVar[str] = "pass"

    def edit(self, edit: Edit) -> None:
        """Make this pass's changes to ``edit.plan`` through ``edit``, in a fixed order."""
        raise NotImplementedError

    def __call__(self, plan: Plan) -> PassResult:
        edit = Edit(plan)
        self.edit(edit)
        return PassResult(*edit.finish(self.name))


class ChangesPass(EditPass):
    """Base for passes that list their changes; each is checked as it is made."""

    def changes(self, plan: Plan) -> Iterable[Change]:
        """The changes this pass makes to ``plan``, in a deterministic order."""
        raise NotImplementedError

    def edit(self, edit: Edit) -> None:
        for change in self.changes(edit.plan):
            edit.apply(change)


@dataclass(frozen=True)
class _ChangesFunction:
    name: str
    function: Callable[[Plan], Iterable[Change]]

    def __call__(self, plan: Plan) -> PassResult:
        edit = Edit(plan)
        for change in self.function(plan):
            edit.apply(change)
        return PassResult(*edit.finish(self.name))

    def __repr__(self) -> str:
        return f"changes_pass({self.name!r})"


@dataclass(frozen=True)
class _EditFunction:
    name: str
    function: Callable[[Edit], None]

    def __call__(self, plan: Plan) -> PassResult:
        edit = Edit(plan)
        self.function(edit)
        return PassResult(*edit.finish(self.name))

    def __repr__(self) -> str:
        return f"edit_pass({self.name!r})"


def changes_pass(name: str) -> Callable[[Callable[[Plan], Iterable[Change]]], Pass]:
    """Turn ``plan -> iterable of Change`` into a pass named ``name``."""
    _check_name(name, "changes_pass")

    def wrap(function: Callable[[Plan], Iterable[Change]]) -> Pass:
        return _ChangesFunction(name, function)
    return wrap


def edit_pass(name: str) -> Callable[[Callable[[Edit], None]], Pass]:
    """Turn a function that makes changes through an ``Edit`` into a pass named ``name``."""
    _check_name(name, "edit_pass")

    def wrap(function: Callable[[Edit], None]) -> Pass:
        return _EditFunction(name, function)
    return wrap


def _check_name(name: object, maker: str) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{maker} takes the pass's name first: @{maker}('my_pass')")


def _name(step: Any) -> str:
    return str(getattr(step, "name", None) or getattr(step, "__name__", repr(step)))


@dataclass(frozen=True)
class Trace:
    """Every state of one run (input first) and the record of every pass."""

    passes: tuple[str, ...]
    states: tuple[Plan, ...]
    records: tuple[ChangeRecord, ...]
    seconds: tuple[float, ...] = field(default=(), compare=False)
    """Wall time of each pass (verifiers excluded), when the trace was run here."""

    @property
    def input(self) -> Plan:
        """The plan the run started from."""
        return self.states[0]

    @property
    def final(self) -> Plan:
        """The plan the run ended with."""
        return self.states[-1]

    @property
    def record(self) -> ChangeRecord:
        """All records composed into one, from the input to the final plan."""
        if not self.records:
            return ChangeRecord("pipeline()", self.input, self.input)
        return compose(self.records)

    def replay(self) -> Plan:
        """Apply every record to the input, checked; equals :attr:`final`."""
        return replay(self.input, self.records)

    def bisect(self, predicate: Callable[[Plan], bool]) -> int | None:
        """The first state index where ``predicate`` holds, by binary search.

        ``predicate`` must be monotone along the trace (false, ..., false, true,
        ..., true). State ``i`` is the result of pass ``i - 1``; 0 is the input.
        """
        lo, hi = 0, len(self.states)
        while lo < hi:
            mid = (lo + hi) // 2
            if predicate(self.states[mid]):
                hi = mid
            else:
                lo = mid + 1
        return lo if lo < len(self.states) else None

    def first(self, predicate: Callable[[Plan], bool]) -> int | None:
        """The first state index where ``predicate`` holds, trying every state in order.

        Unlike :meth:`bisect` this needs no monotone predicate; it calls
        ``predicate`` up to ``len(states)`` times.
        """
        return next((i for i, state in enumerate(self.states) if predicate(state)), None)

    def first_failing(self, verifier: Verifier) -> tuple[int, tuple[Any, ...]] | None:
        """``(state index, violations)`` of the first state ``verifier`` rejects, or None."""
        for i, state in enumerate(self.states):
            violations = tuple(verifier(state))
            if violations:
                return i, violations
        return None

    def pass_of(self, index: int) -> str:
        """The pass that produced state ``index`` (``"<input>"`` for state 0)."""
        return "<input>" if index == 0 else self.passes[index - 1]

    def explain_module(self, fqn: str) -> tuple[tuple[str, Change], ...]:
        """``(pass name, change)`` for every change to module ``fqn``'s entry or class.

        In pipeline order; within one pass, the entry's changes come first.
        """
        return tuple((record.pass_name, change) for record in self.records
                     for path in (("param_plan", fqn), ("boundary_classes", fqn))
                     for change in record.touching(path))

    def explain(self, *path: str | int) -> tuple[tuple[str, Change], ...]:
        """``(pass name, change)`` for every change at, under or above ``path``.

        ``trace.explain("param_plan", "model.layers.3.mlp")`` says which pass
        touched that entry, how, and why.
        """
        return tuple((record.pass_name, change) for record in self.records
                     for change in record.touching(path))

    def __len__(self) -> int:
        return len(self.records)


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


def run(passes: Sequence[Pass], plan: Plan, *, verifiers: Sequence[Verifier] = ()) -> Trace:
    """Run ``passes`` in order on ``plan``; keep every state and record.

    With ``verifiers``, the input and every pass's result are checked; the
    first violation stops the run with a :class:`VerificationError` naming
    the pass whose result failed (as MLIR's verifier does).
    """
    states = [plan]
    records: list[ChangeRecord] = []
    seconds: list[float] = []
    done: list[str] = []
    with paused_gc():
        if verifiers:
            _verified(plan, verifiers, "<input>", ())
        for step in bound(passes, plan):
            name = _name(step)
            started = time.perf_counter()
            try:
                result = step(states[-1])
            except PassError:
                raise
            except Exception as exc:
                raise PassError(name, tuple(done), exc) from exc
            seconds.append(time.perf_counter() - started)
            if not isinstance(result, PassResult):
                raise PassError(name, tuple(done), TypeError(
                    f"a pass returns PassResult(plan, record), this one returned "
                    f"{type(result).__name__}; wrap a function of plan -> changes with "
                    "changes_pass(name)"))
            if verifiers:
                _verified(result.plan, verifiers, name, done)
            states.append(result.plan)
            records.append(result.record)
            done.append(name)
    return Trace(tuple(_name(p) for p in passes), tuple(states), tuple(records),
                 tuple(seconds))


def replay(plan: Plan, records: Iterable[ChangeRecord]) -> Plan:
    """Apply ``records`` in order, each checked against the plan it meets."""
    for record in records:
        plan = apply(plan, record)
    return plan


@dataclass(frozen=True)
class Pipeline:
    """An immutable sequence of passes; itself a pass (its record is the composition)."""

    passes: tuple[Pass, ...]
    label: str | None = None
    verifiers: tuple[Verifier, ...] = ()

    @property
    def name(self) -> str:
        """``pipeline(a, b, c)`` unless a label was given."""
        return self.label or f"pipeline({', '.join(_name(p) for p in self.passes)})"

    def run(self, plan: Plan) -> Trace:
        """Run every pass (and this pipeline's verifiers) on ``plan``; see :func:`run`."""
        return run(self.passes, plan, verifiers=self.verifiers)

    def __call__(self, plan: Plan) -> PassResult:
        trace = self.run(plan)
        return PassResult(trace.final, trace.record.renamed(self.name))

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
