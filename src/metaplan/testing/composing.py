"""Hypothesis strategies and laws for composing passes (re-exported by :mod:`metaplan.testing`).

Composition is associative: however a sequence of passes is nested into
pipelines, and whether it runs through a pipeline or as a plain chain of
calls (``toolz.pipe(plan, a, b, c)``), it gives the same plan, records and
trace. Test a pass of your own against the built-in ones::

    from hypothesis import given, strategies as st
    from metaplan.testing import bracketings, check_composition_laws, plans

    @given(plans(), st.data())
    def test_my_pass_composes(plan, data):
        passes = (*normalize_pipeline().passes, my_pass)
        check_composition_laws(passes, plan, data.draw(bracketings(passes)))
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from metaplan.core.plan import Plan, dumps
from metaplan.passes.chaining import Pass, PassResult, Pipeline, pipeline

__all__ = ["bracketings", "chained", "check_composition_laws"]


def _law(holds: bool, message: str) -> None:
    """An ``assert`` that ``python -O`` does not strip."""
    if not holds:
        raise AssertionError(message)


@st.composite
def _nested(draw: st.DrawFn, passes: tuple[Pass, ...], depth: int) -> list[Pass]:
    """``passes`` in order, cut into groups, each a pass or a pipeline nested again."""
    cuts = sorted(draw(st.sets(st.integers(1, len(passes) - 1), max_size=3))
                  ) if len(passes) > 1 else []
    bounds = [0, *cuts, len(passes)]
    items: list[Pass] = []
    for lo, hi in itertools.pairwise(bounds):
        group = passes[lo:hi]
        if depth > 0 and (len(group) > 1 or draw(st.booleans())):
            inner = draw(_nested(group, depth - 1))
            items.append(Pipeline(tuple(inner)))
        else:
            items.extend(group)
        if draw(st.integers(0, 5)) == 0:
            items.append(pipeline())  # the empty pipeline, anywhere
    return items


def bracketings(passes: Sequence[Pass], *, depth: int = 3) -> st.SearchStrategy[Pipeline]:
    """Pipelines of ``passes`` in order, nested every way (empty pipelines sprinkled in).

    The simplest one drawn is the flat pipeline.
    """
    flat = tuple(passes)
    return st.one_of(st.just(Pipeline(flat)),
                     _nested(flat, depth).map(lambda items: Pipeline(tuple(items))))


def chained(passes: Sequence[Pass], plan: Plan) -> PassResult:
    """``plan`` through ``passes`` as a plain chain of calls (``toolz.pipe(plan, *passes)``)."""
    start: Any = plan
    result = functools.reduce(lambda arg, step: step(arg), passes, start)
    if not isinstance(result, PassResult):  # no passes: the plan itself
        return Pipeline(())(plan)
    return result


def check_composition_laws(passes: Sequence[Pass], plan: Plan, nested: Pipeline) -> None:
    """Assert the laws of composition for ``passes`` on ``plan``; raises ``AssertionError``.

    ``nested`` (a :func:`bracketings` of ``passes``), the flat pipeline,
    ``pipeline(first).then(*rest)`` and the chain of calls all give the same
    trace (pass names, states, records) and byte-identical plans; as a pass,
    a pipeline's record is its trace's records composed; the empty pipeline
    is the identity and returns the input object; the input is unchanged.
    """
    before = dumps(plan)
    flat = Pipeline(tuple(passes)).run(plan)
    final = dumps(flat.final)
    runs = {"nested": nested.run(plan), "chain": chained(passes, plan).trace}
    if passes:
        runs["then"] = pipeline(passes[0]).then(*passes[1:]).run(plan)
    for how, trace in runs.items():
        _law(trace is not None and trace.passes == flat.passes,
             f"{how}: other pass names than the flat pipeline")
        assert trace is not None
        _law(trace.records == flat.records, f"{how}: other records than the flat pipeline")
        _law(trace.states == flat.states, f"{how}: other states than the flat pipeline")
        _law(dumps(trace.final) == final, f"{how}: another plan than the flat pipeline")
    as_pass = nested(plan)
    _law(as_pass.plan == flat.final and as_pass.record == flat.record.renamed(nested.name),
         "a nested pipeline as a pass: not the flat run's plan and composed record")
    empty = pipeline()(plan)
    _law(empty.plan is plan and empty.record.is_noop, "the empty pipeline is not the identity")
    _law(pipeline().run(plan).final is plan, "the empty run does not end at its input")
    _law(dumps(plan) == before, "the input plan changed")
