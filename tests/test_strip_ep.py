"""Stage 1, strip_ep_sub_boundaries: EP targets, the sub-modules their specs own, the glob
index (literal prefix and suffix) and str-subclass class names."""

from __future__ import annotations

import copy
import enum
import fnmatch
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from metaplan import SpecRegistry, StrategySpec
from metaplan.core.rules import BUILTIN_SPECS, InlineRule
from metaplan.passes.compat import normalize_inline_meta
from metaplan.passes.oracle import reference_normalize
from metaplan.passes.strip_ep import (
    StripEPSubBoundaries,
    find_ep_targets,
    resolve_model_type,
    strip_ep_sub_boundaries,
)
from metaplan.records.edit import Edit

DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"

_STEPS = st.sampled_from(("model", "layers", "mlp", "1", "12", "3", "a.b", "[x]", "*", ""))
_FQNS = st.lists(st.lists(_STEPS, min_size=1, max_size=4).map(".".join), max_size=25,
                 unique=True)
_PATTERNS = st.lists(st.sampled_from((
    "*", "model.*", "*.mlp", "model.layers.*.mlp", "model.layers.1?.mlp", "*1*", "model.[l]*",
    "[!m]*", "*.[0-9]", "a.b", "model.layers.12.mlp", "*]", "[[]x]*", "*mlp*", "?")),
    min_size=1, max_size=6)


@given(_FQNS, _PATTERNS)
def test_the_glob_index_finds_what_fnmatch_finds(fqns: list[str], patterns: list[str]) -> None:
    classes = dict.fromkeys(fqns, "DeepseekV3MoE")
    rules = [InlineRule(match=(pattern,), local_compute_target=DEEPSEEK) for pattern in patterns]
    found = find_ep_targets(classes, rules, BUILTIN_SPECS, None)
    assert set(found) == {fqn for fqn in fqns
                          if any(fnmatch.fnmatchcase(fqn, p) for p in patterns)}


class _Kind(str, enum.Enum):
    MOE = "DeepseekV3MoE"
    MLP = "DeepseekV3MLP"


def _meta() -> dict[str, Any]:
    return {"param_plan": {"model.layers.1.mlp": {"is_boundary": True},
                           "model.layers.1.mlp.experts.0": {"is_boundary": True},
                           "model.layers.0.mlp": {"is_boundary": True}},
            "boundary_classes": {"model.layers.1.mlp": _Kind.MOE,
                                 "model.layers.1.mlp.experts.0": _Kind.MLP,
                                 "model.layers.0.mlp": _Kind.MLP},
            "injections": [{"match": "model.layers.*.mlp", "local_compute_fn": DEEPSEEK}]}


def test_str_enum_class_names_are_plain_strings_in_a_plan() -> None:
    plan = metaplan.Plan.from_json(_meta())
    assert type(plan.index("boundary_classes")["model.layers.1.mlp"]) is str
    assert plan.to_json()["boundary_classes"]["model.layers.1.mlp"] == "DeepseekV3MoE"
    result = metaplan.normalize(plan)
    assert result.plan.at(("param_plan", "model.layers.0.mlp", "skip_source_lowering")) is True


def test_compat_matches_globs_against_str_subclass_class_names_as_the_seed() -> None:
    meta = _meta()
    expected = copy.deepcopy(meta)
    rules = metaplan.rules_from_plan({"injections": meta["injections"]})
    reference_normalize(expected, rules)
    normalize_inline_meta(meta, rules)
    assert meta == expected
    assert meta["param_plan"]["model.layers.1.mlp.experts.0"]["is_boundary"] is False


# records, whys and settings ------------------------------------------------------------

A, B = "x.a_fn", "x.b_fn"


def _plan(classes: dict[str, str], injections: list[dict[str, Any]] | None = None,
          **fields: Any) -> metaplan.Plan:
    return metaplan.Plan.from_json({
        "param_plan": {fqn: {"is_boundary": True} for fqn in classes},
        "boundary_classes": classes, "injections": injections or [], **fields})


def _changes(record: metaplan.ChangeRecord) -> list[tuple[str, str, str, str]]:
    return [(c.op, str(c.path[0]), str(c.path[1]), c.why) for c in record.changes]


def test_two_specs_claiming_one_target_strip_what_either_names() -> None:
    specs = SpecRegistry.of(
        [
            StrategySpec(A, "moe", target_class="MoE", strip_boundary_subpatterns=("experts.*",)),
            StrategySpec(
                B, "moe", target_class="MoE", strip_boundary_subpatterns=("shared", "experts.*")
            ),
        ]
    )
    plan = _plan({"m.moe": "MoE", "m.moe.experts.0": "E", "m.moe.shared": "S", "m.moe.gate": "G"},
                 [{"match": "m.moe", "local_compute_fn": A},
                  {"match": "*.moe", "local_compute_fn": {"target": B}}])
    targets = find_ep_targets(plan.index("boundary_classes"), metaplan.rules_from_plan(plan),
                              specs, None)
    assert list(targets) == ["m.moe"]
    assert targets["m.moe"] == metaplan.passes.EPTarget(
        "m.moe", "MoE", ("experts.*", "shared"),
        "EP target: rule 'm.moe' -> x.a_fn inlines class MoE")  # the first claim's why
    record = strip_ep_sub_boundaries(specs=specs)(plan).record
    target = "EP target: rule 'm.moe' -> x.a_fn inlines class MoE"
    sub = "sub-module of EP target m.moe (MoE) matching strip pattern "
    assert _changes(record) == [  # entries first, then classes, each in FQN order
        ("set", "param_plan", "m.moe", target),
        ("set", "param_plan", "m.moe.experts.0", sub + "'experts.*'"),
        ("set", "param_plan", "m.moe.shared", sub + "'shared'"),
        ("remove", "boundary_classes", "m.moe", target),
        ("remove", "boundary_classes", "m.moe.experts.0", sub + "'experts.*'"),
        ("remove", "boundary_classes", "m.moe.shared", sub + "'shared'"),
    ]
    assert [(c.old, c.new) for c in record.changes] == [(True, False)] * 3 + [
        ("MoE", None), ("E", None), ("S", None)]


def test_a_nested_ep_target_keeps_its_own_why() -> None:
    specs = SpecRegistry.of(
        [StrategySpec(A, "moe", target_class="MoE", strip_boundary_subpatterns=("*",))]
    )
    plan = _plan({"m": "MoE", "m.inner": "MoE", "m.inner.x": "X"},
                 [{"match": ["m", "m.inner"], "local_compute_fn": A}])
    whys = {str(c.path[1]): c.why for c in strip_ep_sub_boundaries(specs=specs)(plan).record
            .changes if c.path[0] == "param_plan"}
    assert whys == {"m": "EP target: rule 'm' -> x.a_fn inlines class MoE",
                    "m.inner": "EP target: rule 'm.inner' -> x.a_fn inlines class MoE",
                    "m.inner.x": "sub-module of EP target m (MoE) matching strip pattern '*'"}


def test_a_rule_claims_only_modules_of_its_specs_class() -> None:
    specs = SpecRegistry.of(
        [
            StrategySpec(A, "moe", target_class="MoE", strip_boundary_subpatterns=("experts.*",)),
            StrategySpec(B, "moe", target_class=None, strip_boundary_subpatterns=("experts.*",)),
        ]
    )
    plan = _plan({"a.moe": "MoE", "b.moe": "MLP", "c.moe": "MoE", "c.moe.experts.1": "E"},
                 [{"match": "a.moe", "local_compute_fn": A},
                  {"match": "b.moe", "local_compute_fn": A},
                  {"match": "c.moe", "local_compute_fn": B},  # a spec without a class
                  {"match": "c.moe", "local_compute_fn": "x.unknown"},
                  {"match": "c.moe", "inner_wrapper": A}])  # no local compute target
    record = strip_ep_sub_boundaries(specs=specs)(plan).record
    assert [c.path for c in record.changes] == [("param_plan", "a.moe", "is_boundary"),
                                                ("boundary_classes", "a.moe")]


def test_flags_already_false_and_entries_that_are_not_objects_keep_their_class_removal() -> None:
    specs = SpecRegistry.of(
        [StrategySpec(A, "moe", target_class="MoE", strip_boundary_subpatterns=("e.*",))]
    )
    plan = metaplan.Plan.from_json({
        "param_plan": {"m": {"is_boundary": False}, "m.e.0": None, "m.e.1": {}},
        "boundary_classes": {"m": "MoE", "m.e.0": "E", "m.e.1": "E", "m.e.2": "E"},
        "injections": [{"match": "m", "local_compute_fn": A}]})
    record = strip_ep_sub_boundaries(specs=specs)(plan).record
    assert [(c.op, c.path) for c in record.changes] == [
        ("add", ("param_plan", "m.e.1", "is_boundary")),
        ("remove", ("boundary_classes", "m")), ("remove", ("boundary_classes", "m.e.0")),
        ("remove", ("boundary_classes", "m.e.1"))]  # m.e.2 has no entry: never a sub-module


def test_the_model_type_setting() -> None:
    specs = SpecRegistry.of([StrategySpec(A, "moe", target_class="MoE", model_type="dsv3")],
                            {"DeepseekV3ForCausalLM": "dsv3"})
    plan = _plan({"m": "MoE"}, [{"match": "m", "local_compute_fn": A}],
                 model_class="DeepseekV3ForCausalLM")
    assert resolve_model_type(metaplan.FROM_PLAN, plan) == "DeepseekV3ForCausalLM"
    assert resolve_model_type(None, plan) is None
    assert resolve_model_type("x", plan) == "x"
    assert len(strip_ep_sub_boundaries(specs=specs)(plan).record) == 2
    assert strip_ep_sub_boundaries(specs=specs, model_type=None)(plan).record.is_noop
    assert len(strip_ep_sub_boundaries(specs=specs, model_type="dsv3")(plan).record) == 2
    assert strip_ep_sub_boundaries(specs=specs, model_type="llama")(plan).record.is_noop


def test_explicit_rules_replace_the_plans_injections() -> None:
    specs = SpecRegistry.of([StrategySpec(A, "moe", target_class="MoE")])
    plan = _plan({"m": "MoE", "n": "MoE"}, [{"match": "m", "local_compute_fn": A}])
    stage = strip_ep_sub_boundaries(specs=specs, rules=[InlineRule(("n",), local_compute_target=A)])
    assert [c.path[1] for c in stage(plan).record.changes] == ["n", "n"]
    assert strip_ep_sub_boundaries(specs=specs, rules=())(plan).record.is_noop
    assert repr(stage) == ("strip_ep_sub_boundaries(rules=<1 rules>, specs=SpecRegistry(<1 "
                           "specs>), model_type=FROM_PLAN)")
    assert "rules=FROM_PLAN" in repr(strip_ep_sub_boundaries())


# the glob index finds what fnmatch finds -------------------------------------------------

_ODD_LETTERS = "ab.0]\U0010ffff"
_ODD_FQNS = st.lists(st.text(st.sampled_from(_ODD_LETTERS), min_size=1, max_size=5), max_size=25,
                 unique=True)
_ODD_PATTERNS = st.lists(st.one_of(
    st.text(st.sampled_from(_ODD_LETTERS + "*?[!-"), min_size=1, max_size=6),
    st.sampled_from(("[]", "[!]", "[]]", "[a][b", "a[]]b", "*]", "[!a]*", "?\U0010ffff*",
                     "a\U0010ffff", "*.0", "a*", "[a-b].*"))), min_size=1, max_size=3)


@given(_ODD_FQNS, _ODD_PATTERNS, st.data())
def test_the_glob_index_claims_exactly_what_fnmatch_matches(fqns: list[str],
                                                            patterns: list[str],
                                                            data: st.DataObject) -> None:
    """Brute force (every pattern against every FQN, as the seed does) is the oracle."""
    classes = {fqn: data.draw(st.sampled_from(("MoE", "MoE", "MLP")), label=fqn)
               for fqn in fqns}
    specs = SpecRegistry.of(
        [StrategySpec(A, "moe", target_class="MoE", strip_boundary_subpatterns=("0", "*.b"))]
    )
    found = find_ep_targets(
        classes, [InlineRule(tuple(patterns), local_compute_target=A)], specs, None
    )
    expected = {fqn for fqn, cls in classes.items() if cls == "MoE"
                and any(fnmatch.fnmatchcase(fqn, p) for p in patterns)}
    assert set(found) == expected
    plan = metaplan.Plan.from_json({"param_plan": {f: {"is_boundary": True} for f in fqns},
                                    "boundary_classes": classes})
    marked = {
        str(c.path[1])
        for c in strip_ep_sub_boundaries(
            specs=specs, rules=[InlineRule(tuple(patterns), local_compute_target=A)]
        )(plan).record.changes
    }
    subs = {fqn for fqn in fqns for target in expected if fqn.startswith(target + ".")
            and any(fnmatch.fnmatchcase(fqn[len(target) + 1:], p) for p in ("0", "*.b"))}
    assert marked == expected | subs


@pytest.mark.parametrize(("pattern", "claims"), [
    ("[]", {"[]"}), ("[!]", {"[!]"}),  # never closed: a literal bracket
    ("[]]", {"]"}), ("a[]]", {"a]"}),  # a leading ] belongs to the class
    ("[a][b", {"a[b"}),  # one class, then a literal [
    ("[!a]", {"b", "]"}), ("*[]]*", {"]", "a]", "[]", "[!]"}),
])
def test_fnmatch_edge_cases_are_read_as_fnmatch_reads_them(pattern: str, claims: set[str]
                                                           ) -> None:
    classes = dict.fromkeys(("a", "b", "]", "a]", "a[b", "[]", "[!]"), "MoE")
    specs = SpecRegistry.of([StrategySpec(A, "moe", target_class="MoE")])
    assert (
        set(find_ep_targets(classes, [InlineRule((pattern,), local_compute_target=A)], specs, None))
        == claims
    )


def test_a_rule_without_a_target_or_a_spec_does_not_stop_the_rules_after_it() -> None:
    specs = SpecRegistry.of(
        [StrategySpec(A, "moe", target_class="MoE"), StrategySpec(B, "moe", target_class=None)]
    )
    classes = {"m": "MoE", "n": "MoE", "o": "MoE"}
    rules = [
        InlineRule(("m",)),
        InlineRule(("m",), local_compute_target="x.unknown"),
        InlineRule(("m",), local_compute_target=B),
        InlineRule(("n", "o"), local_compute_target=A),
    ]
    assert list(find_ep_targets(classes, rules, specs, None)) == ["n", "o"]
    target = find_ep_targets(classes, rules, specs, None)["n"]
    with pytest.raises(AttributeError):
        target.why = "x"  # type: ignore[misc]


@pytest.mark.parametrize(("names", "pattern"), [
    (["xa", "ya", "bb", "cc"], "*a"),  # the suffix side, at the start of the reversed names
    (["ab", "ac", "ba", "ca"], "*a"),  # ... at their end
    (["ab", "ac", "b", "ca"], "a*"),  # the prefix side, at the start
    (["b", "ca", "za", "zb"], "z*"),  # ... at the end
    (["a\U0010ffff", "a\U0010ffffb", "b"], "a\U0010ffff*"),  # the last code point
    (["\U0010ffffa", "\U0010ffff", "a"], "\U0010ffff?"),
    (["m.0", "m.1", "n.1"], "m.[0-1]"), (["a.b.c", "a.c", "b.c"], "a*c"),
])
def test_the_glob_index_misses_nothing_at_either_end(names: list[str], pattern: str) -> None:
    specs = SpecRegistry.of([StrategySpec(A, "moe", target_class="MoE")])
    found = find_ep_targets(
        dict.fromkeys(names, "MoE"), [InlineRule((pattern,), local_compute_target=A)], specs, None
    )
    assert set(found) == {name for name in names if fnmatch.fnmatchcase(name, pattern)}
    assert found  # each case matches something


def test_rules_given_once_as_an_iterator_are_kept() -> None:
    specs = SpecRegistry.of([StrategySpec(A, "moe", target_class="MoE")])
    plan = _plan({"m": "MoE"})
    stage = strip_ep_sub_boundaries(
        specs=specs, rules=(r for r in [InlineRule(("m",), local_compute_target=A)])
    )
    assert len(stage(plan).record) == len(stage(plan).record) == 2
    assert hash(stage) == hash(
        strip_ep_sub_boundaries(specs=specs, rules=[InlineRule(("m",), local_compute_target=A)])
    )


def test_class_names_that_cannot_be_hashed_are_skipped_as_the_seed_skips_them() -> None:
    specs = SpecRegistry.of([StrategySpec(A, "moe", target_class="MoE")])
    classes: dict[str, Any] = {"m.0": ["MoE"], "m.1": {"x": 1}, "m.2": "MoE", "m.3": None}
    assert list(
        find_ep_targets(classes, [InlineRule(("m.*",), local_compute_target=A)], specs, None)
    ) == ["m.2"]


def test_its_contract_catches_a_stage_that_breaks_what_its_input_passed() -> None:
    class Careless(StripEPSubBoundaries):
        def edit(self, edit: Edit) -> None:
            edit.set(("boundary_classes", "ghost"), "MoE", "bug: a class key of no module")

    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}},
                                    "boundary_classes": {"m": "MoE"}})
    assert metaplan.verify(plan) == ()
    done = metaplan.pipeline(strip_ep_sub_boundaries()).run(plan, contracts=True)
    assert done.final is plan
    with pytest.raises(metaplan.ContractError, match="preserves class-key, but its result"):
        metaplan.pipeline(Careless()).run(plan, contracts=True)


@pytest.mark.parametrize("setting", ["rules", "specs"])
def test_none_is_no_setting_for_its_rules_or_specs(setting: str) -> None:
    none: dict[str, Any] = {setting: None}
    with pytest.raises(TypeError, match=rf"^strip_ep_sub_boundaries\({setting}=None\): "
                                        "expected .*, found None; pass "):
        strip_ep_sub_boundaries(**none)


def test_a_spec_with_an_empty_target_class_claims_the_modules_of_that_class() -> None:
    """A specs file may give ``target_class: ""``; modules whose class is ``""`` are then its
    targets (the seed compares the strings), and the records say so with the class as given."""
    specs = SpecRegistry.of([StrategySpec("x.fn", "moe", target_class="",
                                          strip_boundary_subpatterns=("experts",))])
    rules = [InlineRule(("m",), local_compute_target="x.fn")]
    found = find_ep_targets({"m": "", "n": "MoE"}, rules, specs, None)
    assert list(found) == ["m"] and found["m"].target_class == ""
    plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True},
                                                   "m.experts": {"is_boundary": True}},
                                    "boundary_classes": {"m": "", "n": "MoE"}})
    record = strip_ep_sub_boundaries(specs=specs, rules=rules)(plan).record
    assert [c.why for c in record.changes if c.path[1] == "m.experts"] == [
        "sub-module of EP target m () matching strip pattern 'experts'"]
