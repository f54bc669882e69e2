"""compare: run two pipelines on one plan and find the first state where they differ."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given

import metaplan
from conftest import fixture_path
from metaplan.passes.registry import NORMALIZE
from metaplan.testing import plans, spec_registries


def test_compare_finds_the_first_pass_a_spec_change_moves() -> None:
    plan = metaplan.load(fixture_path("deepseek_v3.hf5"))
    specs = metaplan.BUILTIN_SPECS
    narrower = metaplan.SpecRegistry.of(
        replace(spec, strip_boundary_subpatterns=("experts.*",))
        if spec.target_class == "DeepseekV3MoE" else spec
        for spec in specs.specs.values())
    old = metaplan.normalize_pipeline(specs=specs)
    new = metaplan.normalize_pipeline(specs=narrower)
    found = metaplan.compare(plan, old, new)
    assert found.state == 1 and found.pass_a == found.pass_b == "strip_ep_sub_boundaries"
    assert found.diff is not None and found.diff.base == found.a.states[1].content_hash
    assert metaplan.apply(found.a.states[1], found.diff) == found.b.states[1]
    assert {str(c.path[1]).rsplit(".", 1)[-1] for c in found.diff.changes} == {"shared_experts"}
    same = metaplan.compare(plan, old, metaplan.normalize_pipeline())
    assert same.same and same.diff is None and same.pass_a == "(none)"


@given(plans(), spec_registries())
def test_compare_agrees_with_the_traces(plan: metaplan.Plan, specs: metaplan.SpecRegistry) -> None:
    old = metaplan.normalize_pipeline()
    new = metaplan.normalize_pipeline(specs=specs)
    found = metaplan.compare(plan, old, new)
    pairs = list(zip(found.a.states, found.b.states, strict=True))
    differing = [i for i, (a, b) in enumerate(pairs) if a != b]
    assert found.state == (differing[0] if differing else None)
    if found.diff is not None and found.state is not None:
        assert metaplan.apply(found.a.states[found.state], found.diff) \
            == found.b.states[found.state]


def test_a_shorter_pipeline_stays_at_its_final_state() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"a": {"is_boundary": True}},
                                    "boundary_classes": {"a": "Shell"},
                                    "external_state_classes": ["Shell"]})
    long = metaplan.build_pipeline(NORMALIZE[1:])
    short = metaplan.build_pipeline(NORMALIZE[1:2])
    found = metaplan.compare(plan, long, short)
    assert found.same  # the extra passes change nothing
    found = metaplan.compare(plan, short, metaplan.build_pipeline(()))
    assert found.state == 1 and found.pass_b == "(none)"
