"""The laws every pass must keep, checked on one plan: :func:`check_pass_laws`."""

from __future__ import annotations

from metaplan.core.plan import Plan, dumps
from metaplan.passes.chaining import Pass, replay
from metaplan.records.algebra import invert
from metaplan.records.codec import dumps_records, loads_records
from metaplan.records.edit import apply

__all__ = [
    "check_pass_laws",
    "law",
]


def law(holds: bool, message: str) -> None:
    """An ``assert`` that ``python -O`` does not strip: ``AssertionError(message)`` unless
    ``holds``."""
    if not holds:
        raise AssertionError(message)


def check_pass_laws(pass_: Pass, plan: Plan) -> None:
    """Assert the laws of a pass on ``plan``; raises ``AssertionError`` naming the law.

    The input is unchanged; the pass is deterministic (a second run gives
    the same record); a no-op returns the input object; the record's hashes
    are those of the input and the result; replaying the record (also after a
    JSON round trip) reproduces the result; inverting it restores the input.
    """
    before = dumps(plan)
    result = pass_(plan)
    law(dumps(plan) == before, f"{pass_.name}: the input plan changed")
    law(pass_(plan).record == result.record, f"{pass_.name}: a second run differs")
    record = result.record
    law(record.base == plan.content_hash, f"{pass_.name}: record base is not the input hash")
    law(record.result == result.plan.content_hash, f"{pass_.name}: record result hash")
    if record.is_noop:
        law(result.plan is plan, f"{pass_.name}: a no-op must return the input object")
    (reread,) = loads_records(dumps_records([record]))
    law(reread == record, f"{pass_.name}: the record does not round-trip through JSON")
    replayed = replay(plan, [reread])
    law(dumps(replayed) == dumps(result.plan), f"{pass_.name}: replay differs from result")
    restored = apply(result.plan, invert(record))
    law(dumps(restored) == before, f"{pass_.name}: invert does not restore the input")
