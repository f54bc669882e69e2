"""Traces: every state of one run (input first) and the record of every pass.

A :class:`Trace` is what :func:`metaplan.passes.chaining.run` returns, and what a
chain of passes carries along (``PassResult.trace``): the states can be
compared, searched (:meth:`Trace.first`, :meth:`Trace.bisect`) and
explained (:meth:`Trace.explain`), and the records replayed.

>>> from metaplan.core.plan import Plan
>>> from metaplan.records.change import ChangeRecord
>>> plan = Plan.from_json({"param_plan": {}})
>>> trace = Trace.start(plan).then("noop", plan, ChangeRecord("noop", plan, plan))
>>> trace.passes, len(trace), trace.final is trace.input
(('noop',), 1, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from metaplan.core.invariants import Verifier
from metaplan.core.plan import Plan
from metaplan.records.algebra import compose
from metaplan.records.change import Change, ChangeRecord
from metaplan.records.edit import apply
from metaplan.viewing import notebook_view

__all__ = ["Trace", "Verifier", "replay"]


def replay(plan: Plan, records: Iterable[ChangeRecord]) -> Plan:
    """Apply ``records`` in order, each checked against the plan it meets."""
    for record in records:
        plan = apply(plan, record)
    return plan


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

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The notebook view: folded text, HTML and JSON (:mod:`metaplan.viewing`)."""
        return notebook_view(self, include, exclude)

    @classmethod
    def start(cls, plan: Plan) -> Trace:
        """The trace of a run that has not run a pass yet: ``plan`` is its input."""
        return cls((), (plan,), ())

    def then(self, name: str, plan: Plan, record: ChangeRecord, seconds: float = 0.0) -> Trace:
        """This trace with one more pass: ``name`` made ``plan`` with ``record``."""
        return Trace((*self.passes, name), (*self.states, plan), (*self.records, record),
                     (*self.seconds, seconds))
