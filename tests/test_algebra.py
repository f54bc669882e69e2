"""The algebra of records: invert one, compose several."""

from __future__ import annotations

import pytest
from hypothesis import given

import metaplan
from conftest import demo_record, make_record
from metaplan.passes.slimming import slim
from metaplan.records.change import Change
from metaplan.testing import plans


def test_invert_round_trips_and_is_an_involution(demo_plan: metaplan.Plan) -> None:
    record = demo_record(demo_plan)
    new = metaplan.apply(demo_plan, record)
    back = metaplan.apply(new, metaplan.invert(record))
    assert back == demo_plan and metaplan.dumps(back) == metaplan.dumps(demo_plan)
    assert metaplan.invert(metaplan.invert(record)) == record


def test_compose_chains_and_refuses_gaps(demo_plan: metaplan.Plan) -> None:
    first = demo_record(demo_plan)
    middle = metaplan.apply(demo_plan, first)
    end, second = make_record("second", middle, [
        Change("set", ("param_plan", "a", "is_boundary"), False, True, "again")])
    both = metaplan.compose([first, second])
    assert both.base == demo_plan.content_hash and both.result == end.content_hash
    assert metaplan.apply(demo_plan, both) == end
    assert metaplan.apply(end, metaplan.invert(both)) == demo_plan
    with pytest.raises(metaplan.ConflictError, match="cannot compose"):
        metaplan.compose([second, first])


# laws on the records of generated runs -------------------------------------------------

_LINE = metaplan.normalize_pipeline().then(slim)


def _records(plan: metaplan.Plan, other: metaplan.Plan) -> list[metaplan.ChangeRecord]:
    """The records of normalize then slim on ``plan``, and the diff from there to ``other``."""
    trace = _LINE.run(plan)
    return [*trace.records, metaplan.diff(trace.final, other)]


@given(plans(), plans())
def test_invert_is_an_involution(plan: metaplan.Plan, other: metaplan.Plan) -> None:
    for record in _records(plan, other):
        inverse = metaplan.invert(record)
        assert inverse.pass_name == f"invert({record.pass_name})"
        assert (inverse.base, inverse.result) == (record.result, record.base)
        assert metaplan.invert(inverse) == record
        assert metaplan.invert(inverse).pass_name == record.pass_name


@given(plans(), plans())
def test_compose_is_associative(plan: metaplan.Plan, other: metaplan.Plan) -> None:
    a, b, c, d, e = _records(plan, other)
    flat = metaplan.compose([a, b, c, d, e])
    left = metaplan.compose([metaplan.compose([metaplan.compose([a, b]), c]), d, e])
    right = metaplan.compose([a, metaplan.compose([b, metaplan.compose([c, d, e])])])
    assert left == flat == right
    assert left.changes == flat.changes == right.changes
    assert metaplan.apply(plan, flat) == other == metaplan.apply(plan, right)
    assert metaplan.invert(flat) == metaplan.compose(
        [metaplan.invert(r) for r in (e, d, c, b, a)], name=f"invert({flat.pass_name})")


# names, and the edges of compose ---------------------------------------------------------


def _named(name: str) -> metaplan.ChangeRecord:
    return metaplan.ChangeRecord(name, "sha256:a", "sha256:b")


@pytest.mark.parametrize(("name", "inverse"), [
    ("strip", "invert(strip)"),
    ("invert(strip)", "strip"),
    ("invert(a | b)", "a | b"),
    ("invert(f(x))", "f(x)"),
    ("invert()", ""),
    ("x)", "invert(x))"),
    ("invert(ab", "invert(invert(ab)"),
])
def test_an_inverse_is_named_invert_of_the_name_and_back(name: str, inverse: str) -> None:
    assert metaplan.invert(_named(name)).pass_name == inverse
    assert metaplan.invert(metaplan.invert(_named(name))).pass_name == name


def test_compose_names_and_edges() -> None:
    a = metaplan.ChangeRecord("a", "sha256:1", "sha256:2", [Change("add", ("x",), None, 1)])
    b = metaplan.ChangeRecord("b", "sha256:2", "sha256:3", [Change("set", ("x",), 1, 2)])
    both = metaplan.compose(iter([a, b]))  # any iterable
    assert (both.pass_name, both.base, both.result) == ("a | b", "sha256:1", "sha256:3")
    assert both.changes == a.changes + b.changes
    assert metaplan.compose([a, b], name="ab").pass_name == "ab"
    assert metaplan.compose([a, b], name="").pass_name == ""
    assert metaplan.compose([a]) == a
    with pytest.raises(ValueError, match="compose needs at least one record"):
        metaplan.compose([])
    with pytest.raises(metaplan.ConflictError) as info:
        metaplan.compose([a, a])
    assert str(info.value) == ("cannot compose 'a' then 'a': the first ends at sha256:2, the "
                               "second starts at sha256:1")
    assert (info.value.expected, info.value.found) == ("sha256:2", "sha256:1")
