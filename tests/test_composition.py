"""Composition is algebra: every bracketing, ``then``, and a plain chain of calls agree."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import toolz
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import FIXTURES, expected_bytes, fixture_path, metaplan_cli
from metaplan.cli import main
from metaplan.core.invariants import CHECKS
from metaplan.passes.chaining import PassResult, pipeline
from metaplan.passes.makers import FunctionPass
from metaplan.passes.registry import PASSES as REGISTRY
from metaplan.records.change import Change
from metaplan.records.edit import Edit
from metaplan.testing import (
    bracketings,
    chained,
    check_composition_laws,
    plan_dicts,
    plans,
    sound_plan_dicts,
)

A = metaplan.strip_ep_sub_boundaries()
B = metaplan.strip_external_state_boundaries()
C = metaplan.mark_shared_class_boundaries()
assert metaplan.normalize_pipeline().passes == (A, B, C)


@metaplan.edit_pass("unbound_attention")
def _unbound_attention(edit: Edit) -> None:
    """A user pass: attention modules stop being boundaries."""
    for fqn, entry in edit.plan.index("param_plan").items():
        if fqn.endswith("self_attn") and isinstance(entry, Mapping) and entry.get("is_boundary"):
            edit.set(("param_plan", fqn, "is_boundary"), False, "demo")


PASSES = (A, B, C, metaplan.slim, _unbound_attention)


@pytest.mark.parametrize("name", FIXTURES)
def test_every_bracketing_of_the_stages_gives_the_same_bytes_on_every_real_plan(
        name: str, loaded: dict[str, metaplan.Plan]) -> None:
    plan = loaded[name]
    flat = pipeline(A, B, C)(plan)
    expected = metaplan.dumps(flat.plan)
    assert expected == metaplan.dumps(metaplan.normalize(plan).plan)
    for line in (pipeline(A, pipeline(B, C)), pipeline(pipeline(A, B), C),
                 pipeline(A).then(B, C), pipeline(pipeline(pipeline(A)), pipeline(B, C))):
        result = line(plan)
        assert metaplan.dumps(result.plan) == expected, line
        assert result.trace == flat.trace and result.trace is not None
        assert result.trace.passes == (A.name, B.name, C.name)
    chain = toolz.pipe(plan, *metaplan.normalize_pipeline().passes)
    assert metaplan.dumps(chain.plan) == expected
    assert chain.records == metaplan.normalize(plan).records
    assert toolz.compose_left(A, B, C)(plan).trace == flat.trace


@given(plans(), st.data())
def test_the_laws_of_composition_on_generated_plans(plan: metaplan.Plan,
                                                    data: st.DataObject) -> None:
    passes = tuple(data.draw(st.lists(st.sampled_from(PASSES), max_size=6)))
    check_composition_laws(passes, plan, data.draw(bracketings(passes)))


@given(sound_plan_dicts())
def test_the_normalize_bracketings_agree_on_sound_plans(meta: dict[str, Any]) -> None:
    plan = metaplan.Plan.from_json(meta)
    check_composition_laws((A, B, C), plan, pipeline(A, pipeline(B, C)))


def test_the_laws_fail_when_a_nested_pipeline_binds_its_own_input() -> None:
    """The bug this fixed: ``pipeline(a, pipeline(b, c))`` ran ``pipeline(b, c)`` as a run of
    its own, binding the shared-class stage to the class map stage 1 had stripped."""

    class Opaque:
        name = "opaque"

        def __init__(self, inner: metaplan.Pipeline) -> None:
            self.inner = inner

        def __call__(self, plan: metaplan.Plan) -> PassResult:
            return self.inner(plan)  # a run of its own: binds RUN_INPUT to its input

    plan = metaplan.load(fixture_path("deepseek_v3.hf5"))
    opaque = pipeline(A, Opaque(pipeline(B, C)))
    assert opaque(plan).plan != pipeline(A, B, C)(plan).plan
    with pytest.raises(AssertionError, match="nested: other pass names"):
        check_composition_laws((A, B, C), plan, opaque)


def test_the_empty_pipeline_is_the_identity() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
    result = pipeline()(plan)
    assert result.plan is plan and result.record.is_noop and result.record.pass_name == \
        "pipeline()"
    assert pipeline(pipeline(), A, pipeline())(plan).trace == pipeline(A)(plan).trace
    assert chained((), plan).plan is plan


def test_a_pipeline_is_a_value() -> None:
    assert pipeline(A, B) == pipeline(A, B) and hash(pipeline(A, B)) == hash(pipeline(A, B))
    assert pipeline(A, B) != pipeline(B, A)
    assert metaplan.normalize_pipeline() == metaplan.normalize_pipeline()
    assert len({metaplan.normalize_pipeline(), metaplan.normalize_pipeline()}) == 1
    assert pipeline(A).then(B, C) == pipeline(A, B, C)


def test_the_trace_names_the_inner_pass_that_did_it() -> None:
    plan = metaplan.load(fixture_path("deepseek_v3.hf5"))
    trace = pipeline(A, pipeline(B, pipeline(C), label="tail")).run(plan)
    assert trace.passes == (A.name, B.name, C.name) and len(trace.states) == 4
    marked = trace.explain_module("model.layers.0.mlp")
    assert {name for name, _ in marked} == {C.name}
    found = trace.first_failing(
        lambda p: ["marked"] if p.param_plan["model.layers.0.mlp"].get(
            "skip_source_lowering") else [])
    assert found is not None and trace.pass_of(found[0]) == C.name
    stripped = trace.first(lambda p: p.param_plan["model.layers.3.mlp"]["is_boundary"] is False)
    assert stripped is not None and trace.pass_of(stripped) == A.name


def test_a_nested_pipelines_verifiers_check_its_input_and_its_passes() -> None:
    seen: list[int] = []

    def counts(plan: metaplan.Plan) -> list[Any]:
        seen.append(len(plan.param_plan))
        return []

    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
    pipeline(A, pipeline(B, C).verified(counts)).run(plan)
    assert len(seen) == 3  # its input, then each of its two passes' results

    def refuses(plan: metaplan.Plan) -> list[str]:
        return ["no"]

    with pytest.raises(metaplan.VerificationError) as info:
        pipeline(A, pipeline(B).verified(refuses)).run(plan)
    assert info.value.pass_name == A.name  # A's result is the nested pipeline's input


def test_a_pass_takes_the_result_before_it_and_binds_the_chains_input() -> None:
    plan = metaplan.Plan.from_json({
        "param_plan": {"a": {"is_boundary": True}, "b": {"is_boundary": True}},
        "boundary_classes": {"a": "MLP", "b": "MLP"}, "external_state_classes": ["MLP"]})
    # stage 2 strips both and their classes; stage 3 must read the chain's first class map
    result = C(B(plan))
    assert isinstance(result, PassResult) and result.trace is not None
    assert result.trace.input is plan and result.trace.passes == (B.name, C.name)
    assert result.plan == pipeline(B, C)(plan).plan
    assert C(B(plan).plan).plan == B(plan).plan  # alone, stage 3 reads its own input
    new, record = result  # a result still unpacks as (plan, record)
    assert new is result.plan and record is result.record and result.records[-1] is record


def test_a_result_without_a_trace_starts_a_new_chain() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
    mine = PassResult(plan, metaplan.ChangeRecord("mine", plan, plan))
    assert mine.records == (mine.record,)
    after = B(mine)
    assert after.trace is not None and after.trace.input is plan
    assert after.trace.passes == (B.name,)


# passes with settings --------------------------------------------------------------


@metaplan.edit_pass("cap_ep_size")
def cap(edit: Edit, *, limit: int = 8) -> None:
    for fqn, entry in edit.plan.index("param_plan").items():
        if entry.get("ep_size", 0) > limit:
            edit.set(("param_plan", fqn, "ep_size"), limit, f"capped at {limit}")


@metaplan.changes_pass("rename_class")
def rename(plan: metaplan.Plan, *, old: str, new: str) -> Any:
    for fqn, cls in sorted(plan.index("boundary_classes").items()):
        if cls == old:
            yield Change("set", ("boundary_classes", fqn), old, new, f"{old} is now {new}")


def test_a_pass_with_settings_is_a_factory_of_equal_hashable_passes() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"ep_size": 16}},
                                    "boundary_classes": {"m": "MLP"}})
    assert repr(cap(limit=4)) == "cap_ep_size(limit=4)" and repr(cap) == "cap_ep_size(limit=8)"
    assert cap(limit=4) == cap(limit=4) and hash(cap(limit=4)) == hash(cap(limit=4))
    assert cap(limit=8) == cap and cap(limit=4) != cap
    assert cap(limit=4)(plan).plan.param_plan["m"]["ep_size"] == 4
    assert cap(plan).plan.param_plan["m"]["ep_size"] == 8
    assert cap(limit=4).name == "cap_ep_size" == cap(limit=4)(plan).record.pass_name
    assert pipeline(cap(limit=4), cap(limit=2)).run(plan).final.param_plan["m"]["ep_size"] == 2
    renamed = rename(old="MLP", new="Dense")
    assert repr(renamed) == "rename_class(old='MLP', new='Dense')"
    assert renamed(plan).plan.boundary_classes["m"] == "Dense"
    assert repr(_unbound_attention) == "edit_pass('unbound_attention')"


def test_settings_are_checked_where_they_are_given() -> None:
    plan = metaplan.Plan.from_json({"param_plan": {}})
    with pytest.raises(TypeError, match=r"no setting 'limt' \(did you mean limit\?\)"):
        cap(limt=4)
    with pytest.raises(TypeError, match=r"needs its settings: rename_class\(old=\.\.\., "
                                        r"new=\.\.\.\)"):
        rename(plan)
    with pytest.raises(TypeError, match="give settings first"):
        cap(plan, limit=4)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"no setting 'limit'.*its settings: none"):
        _unbound_attention(limit=3)


# contracts --------------------------------------------------------------------------


@metaplan.edit_pass("forget_attention_entries", ensures=("class-key",))
def _dangling(edit: Edit) -> None:
    """A buggy pass: drops attention entries but leaves their class keys."""
    for fqn in sorted(edit.plan.index("param_plan")):
        if fqn.endswith("self_attn"):
            edit.remove(("param_plan", fqn), "bug")


def test_a_broken_ensures_names_the_pass_and_the_check() -> None:
    plan = metaplan.load(fixture_path("deepseek_v3.hf5"))
    line = pipeline(A, _dangling, C)
    with pytest.raises(metaplan.ContractError) as info:
        line.run(plan, contracts=True)
    error = info.value
    assert isinstance(error, metaplan.PassError)
    assert error.pass_name == "forget_attention_entries" and error.before == (A.name,)
    assert error.clause == "ensures" and error.checks == ("class-key",)
    assert "class-key: boundary_classes" in str(error) and "ensures class-key" in str(error)
    assert len(line.run(plan)) == 3  # unchecked, it runs through


def test_requires_and_preserves() -> None:
    @metaplan.edit_pass("needs_classes", requires="boundary-class")
    def needs(edit: Edit) -> None:
        pass

    @metaplan.edit_pass("keeps_keys", preserves=["class-key"])
    def keeps(edit: Edit) -> None:
        edit.remove(("param_plan", "a"), "bug")

    broken = metaplan.Plan.from_json({"param_plan": {"a": {"is_boundary": True}}})
    with pytest.raises(metaplan.ContractError, match="requires boundary-class, but its input"):
        pipeline(needs).run(broken, contracts=True)
    sound = metaplan.Plan.from_json({"param_plan": {"a": {}}, "boundary_classes": {"a": "X"}})
    with pytest.raises(metaplan.ContractError, match="preserves class-key, but its result"):
        pipeline(keeps).run(sound, contracts=True)
    dangling = sound.set("boundary_classes", {"a": "X", "ghost": "Y"})
    # its input already broke class-key: nothing to preserve, so no error
    assert len(pipeline(keeps).run(dangling, contracts=True)) == 1
    with pytest.raises(metaplan.SpecError, match=r"edit_pass\(ensures=\.\.\.\).*class-keys"):
        metaplan.edit_pass("typo", ensures=("class-keys",))


@pytest.mark.parametrize("name", FIXTURES)
def test_the_built_in_contracts_hold_on_every_real_plan(
        name: str, loaded: dict[str, metaplan.Plan]) -> None:
    plan = loaded[name]
    line = metaplan.normalize_pipeline().then(metaplan.slim)
    checked = line.run(plan, contracts=True)
    assert checked == line.run(plan)
    assert metaplan.verify(checked.states[2], "external-state") == ()
    assert metaplan.verify(checked.states[3], ["external-state", "shared-class"]) == ()


@given(st.one_of(plans(), sound_plan_dicts().map(metaplan.Plan.from_json),
                 plan_dicts(odd_flags=False).map(metaplan.Plan.from_json)))
def test_the_built_in_contracts_hold_on_generated_plans(plan: metaplan.Plan) -> None:
    line = metaplan.normalize_pipeline().then(metaplan.slim, A, B, C)
    assert line.run(plan, contracts=True) == line.run(plan)
    for step in PASSES[:4]:
        pipeline(step).run(plan, contracts=True)  # each alone too


def test_the_built_in_contracts_are_declared() -> None:
    contracts = {step.name: step.contract for step in (A, B, C)}
    assert contracts["strip_external_state_boundaries"].ensures == ("external-state",)
    assert contracts["mark_shared_class_boundaries"].ensures == ("shared-class",)
    assert contracts["strip_ep_sub_boundaries"].ensures == ()
    for step in (A, B, C, metaplan.slim):
        assert isinstance(step, (metaplan.EditPass, FunctionPass))
        kept = set(step.contract.ensures) | set(step.contract.preserves)
        assert kept == set(CHECKS) and not set(step.contract.ensures) & set(
            step.contract.preserves)
        assert step.contract.requires == ()


def test_a_stage_that_lies_about_its_contract_is_caught() -> None:
    """The contract checks run: a stage 3 that forgets to mark breaks ``shared-class``."""

    class Lazy(type(C)):  # type: ignore[misc]
        def edit(self, edit: Edit) -> None:
            pass

    plan = metaplan.load(fixture_path("qwen3_moe.hf4"))
    with pytest.raises(metaplan.ContractError, match="ensures shared-class"):
        pipeline(A, B, Lazy()).run(plan, contracts=True)


def test_the_command_checks_contracts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    done = metaplan_cli("normalize", fixture_path("deepseek_v3.hf4"), "--check-contracts",
                        "-o", out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected_bytes("deepseek_v3.hf4")
    # a registered pass that breaks its contract: exit 1, the pass and check named, no output
    monkeypatch.setitem(REGISTRY, "slim", lambda settings: _dangling)
    broken = tmp_path / "broken.json"
    argv = ["normalize", str(fixture_path("deepseek_v3.hf5")), "--passes", "slim",
            "-o", str(broken)]
    assert main([*argv, "--check-contracts"]) == 1
    assert not broken.exists()
    said = capsys.readouterr().err
    assert said.startswith("metaplan normalize: contract broken: pass forget_attention_entries "
                           "breaks its contract (after: nothing): it ensures class-key"), said
    assert main(argv) == 0 and broken.exists()  # unchecked, it runs
