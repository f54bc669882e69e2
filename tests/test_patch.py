"""Records as RFC 6902 JSON Patch: a ``test`` before each replace and remove."""

from __future__ import annotations

import pytest

import metaplan
from conftest import demo_record


def test_json_patch_form(demo_plan: metaplan.Plan) -> None:
    patch = metaplan.to_json_patch(demo_record(demo_plan))
    assert patch[:2] == [
        {"op": "test", "path": "/param_plan/a/is_boundary", "value": True},
        {"op": "replace", "path": "/param_plan/a/is_boundary", "value": False}]
    assert {"op": "remove", "path": "/boundary_classes/b"} in patch
    jsonpatch = pytest.importorskip("jsonpatch")
    patched = jsonpatch.apply_patch(demo_plan.to_json(), patch)
    assert patched == metaplan.apply(demo_plan, demo_record(demo_plan)).to_json()
