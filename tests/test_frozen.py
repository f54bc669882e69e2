"""Frozen JSON values: read-only views, strict JSON equality (``True`` is not ``1``)."""

from __future__ import annotations

import metaplan
from metaplan.frozen import json_equal


def test_json_equality_tells_true_from_one() -> None:
    assert not json_equal(True, 1) and not json_equal(1, 1.0) and json_equal(2.5, 2.5)
    assert metaplan.freeze({"a": 1}) != metaplan.freeze({"a": True})
