"""The oracle's stages run alone agree with metaplan's, each run alone."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given

import metaplan
from metaplan.passes.oracle import REFERENCE_STAGES, reference_stage
from metaplan.testing import plan_dicts


def _seed_bytes(meta: dict[str, Any]) -> bytes:
    return json.dumps(meta, indent=2, sort_keys=True).encode()


@given(plan_dicts(odd_flags=False, max_layers=3))
def test_each_reference_stage_alone_is_metaplans_stage_alone(meta: dict[str, Any]) -> None:
    plan = metaplan.Plan.from_json(meta)
    stages = metaplan.normalize_pipeline().passes
    assert tuple(stage.name for stage in stages) == REFERENCE_STAGES
    for stage in stages:
        expected = copy.deepcopy(meta)
        reference_stage(stage.name, expected, metaplan.rules_from_plan(expected),
                        expected.get("model_type"), per_spec_patterns=True)
        assert metaplan.dumps(metaplan.pipeline(stage)(plan).plan) == _seed_bytes(expected)


def test_an_unknown_stage_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown stage 'slim'; the stages are strip_ep_sub"):
        reference_stage("slim", {})
