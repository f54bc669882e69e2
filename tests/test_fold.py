"""Versions: folded diffs a person can read, exact to the module, and item-level array edits.

Folding: every pair of bundled fixtures of one model fits one screen, and
``--format groups`` is exact (each group's brace pattern expands to exactly
the modules changed that way, no module is in two groups, and together they
are every module the diff touches); the same by property over generated plan
pairs. Arrays: records and JSON Patches of generated array edits apply to A
to give B (``replay`` and the ``jsonpatch`` library), and invert round-trips.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
import os
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import jsonpatch
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import DATA, fixture_path, metaplan_cli
from metaplan.algorithms.braces import expand, natural_key
from metaplan.cli._diff import record_text
from metaplan.core.plan import Plan
from metaplan.errors import key_path
from metaplan.frozen import thaw
from metaplan.records.change import Change, ChangeRecord
from metaplan.records.codec import dumps_records, loads_records
from metaplan.testing import plan_pairs
from metaplan.versions.diffing import changes_between, diff
from metaplan.versions.folding import FQN_FIELDS, fold_changes, group_to_json
from metaplan.versions.ignoring import split_provenance
from metaplan.views.text import format_diff, format_folded

VERSIONS = {
    "deepseek_v3": ("hf4", "hf5", "hf4.expected", "hf5.expected"),
    "qwen3_moe": ("hf4", "hf5", "hf4.expected", "hf5.expected"),
    "llama3_8b": ("hf4", "hf4.expected"),
}
PAIRS = [(f"{model}.{x}", f"{model}.{y}") for model, versions in VERSIONS.items()
         for x, y in itertools.combinations(versions, 2)]
PAIRS += [("deepseek_v3.hf5", "deepseek_v3.hf4"), ("qwen3_moe.hf5.expected", "qwen3_moe.hf4")]


@functools.cache
def _plan(name: str) -> Plan:
    return metaplan.load(DATA / f"{name}.json.gz")


# what a group must say, checked against the record it folds -------------------------------


def _where(change: Change) -> tuple[str, str]:
    """``(field, key)`` of a change to a module, as ``--format groups`` names them."""
    if change.path[0] == "boundary_classes":
        return "boundary_classes", "class"
    return "param_plan", key_path(change.path[2:]) or "entry"


Slot = tuple[str, str, str, int]
"""(field, key, op, n): the n-th change of that op at that key (array edits repeat a path)."""


def _by_module(changes: Sequence[Change]) -> dict[str, dict[Slot, Change]]:
    """Each touched module's changes, by slot."""
    found: dict[str, dict[Slot, Change]] = {}
    for change in changes:
        if len(change.path) >= 2 and change.path[0] in FQN_FIELDS:
            mine = found.setdefault(str(change.path[1]), {})
            where = (*_where(change), change.op)
            mine[(*where, sum(slot[:3] == where for slot in mine))] = change
    return found


def _value(change: Change, side: str) -> Any:
    return thaw(change.old if side == "old" else change.new)


def check_groups(record: ChangeRecord, groups: list[dict[str, Any]]) -> None:
    """``--format groups`` holds exactly the record: each module group names exactly the
    modules changed that way, each once, all of them; item and path groups count the rest."""
    modules = _by_module(record.changes)
    seen: list[str] = []
    accounted = 0
    for group in groups:
        if "modules" not in group:
            continue
        names = expand(group["modules"])
        assert len(names) == len(set(names)) == group["count"], group["modules"]
        seen += names
        accounted += group["count"] * len(group["changes"])
        lines: dict[Slot, dict[str, Any]] = {}
        for line in group["changes"]:
            where = (line["field"], line["key"], line["op"])
            lines[(*where, sum(slot[:3] == where for slot in lines))] = line
        for fqn in names:
            assert fqn in modules, f"{fqn} is in {group['modules']} but the diff leaves it alone"
            assert set(modules[fqn]) == set(lines), (fqn, group["modules"])
        for slot, line in lines.items():
            for side in ("old", "new"):
                if side not in line:
                    assert (side == "old") == (slot[2] == "add") or \
                        (side == "new") == (slot[2] == "remove")
                    continue
                values = {json.dumps(_value(modules[fqn][slot], side), sort_keys=True)
                          for fqn in names}
                shown = line[side]
                if isinstance(shown, dict) and set(shown) == {"distinct"} and len(values) > 1:
                    assert shown["distinct"] == len(values), (group["modules"], slot)
                else:
                    assert values == {json.dumps(shown, sort_keys=True)}, (group["modules"],
                                                                           slot)
    assert len(seen) == len(set(seen)), "a module is in two groups"
    assert set(seen) == set(modules), "the groups do not name every module the diff touches"
    accounted += _check_top(record, [g for g in groups if "modules" not in g])
    assert accounted == len(record), "some change is in no group, or in two"


def _check_top(record: ChangeRecord, groups: list[dict[str, Any]]) -> int:
    """Items groups name exactly the strings added to (removed from) their array, each once;
    paths groups name changed paths of their field. Returns the changes they account for."""
    top = [c for c in record.changes if not (len(c.path) >= 2 and c.path[0] in FQN_FIELDS)]
    items: Counter[tuple[str, str, str]] = Counter()
    for change in top:
        value = change.new if change.op == "add" else change.old
        if len(change.path) == 2 and isinstance(change.path[1], int) and change.op != "set" \
                and isinstance(value, str):
            items[(str(change.path[0]), change.op, value)] += 1
    listed: Counter[tuple[str, str, str]] = Counter()
    paths = {key_path(c.path) for c in top}
    accounted = 0
    for group in groups:
        accounted += group["count"]
        if "items" in group:
            words = expand(group["items"])
            assert len(words) == group["count"]
            listed.update((group["field"], group["op"], word) for word in words)
        else:
            named = expand(group["paths"])
            assert set(named) <= paths and len(set(named)) <= group["count"], group["paths"]
    assert set(listed) == set(items) and max(listed.values(), default=1) == 1, \
        "items groups name each added (removed) string once (a repeat is shown by its path)"
    return accounted


def _groups(record: ChangeRecord) -> list[dict[str, Any]]:
    out = json.loads(record_text(record, "groups", ("A", "B")))
    assert out["changes"] == len(record)
    groups: list[dict[str, Any]] = out["groups"]
    return groups


# the bundled fixtures -----------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_every_bundled_pair_folds_to_one_screen_and_its_groups_are_exact(a: str, b: str) -> None:
    record = diff(_plan(a), _plan(b))
    text = record_text(record, "text", (a, b)).decode()
    assert len(text.splitlines()) <= 40, text
    check_groups(record, _groups(record))
    assert text == record_text(diff(_plan(a), _plan(b)), "text", (a, b)).decode()


def test_hf4_to_hf5_reads_as_nine_lines_of_news() -> None:
    text = record_text(diff(_plan("deepseek_v3.hf4"), _plan("deepseek_v3.hf5")), "text",
                       ("A", "B")).decode()
    assert text.splitlines()[2:] == [
        "74,474 changes: 14,906 modules in 2 groups, 44,662 top-level changes",
        "(top level)",
        "  - frozen_sharded_params items: "
        "model.layers.{3..60}.mlp.experts.{0..255}.{down,gate,up}_proj.weight  (44,544 items)",
        "  + frozen_sharded_params items: model.layers.{3..60}.mlp.experts.{down,gate_up}_proj"
        "  (116 items)",
        '  ~ signature: "853db479fbd1a46065eab7177c6e58b24193a6fb61a6a85506ec1ff8ac0bf27a" -> '
        '"8100d06829c79623340f30bc5a9f10cc2ccea57837274575ff77b5adb1c355fa"',
        '  ~ source.transformers: "4.57.6" -> "5.24.0"',
        "model.layers.{3..60}.mlp.experts  (58 modules)",
        '  + entry: {"is_boundary":false,"params":{"down_proj":{"ep":"S(0)"},"gate_up_proj":'
        '{"ep"...',
        '  + class: "DeepseekV3Experts"',
        "model.layers.{3..60}.mlp.experts.{0..255}  (14,848 modules)",
        '  - entry: {"in_dst":{"hidden_states":{"tp":"R"}},"in_src":{"hidden_states":'
        '{"tp":"R"}},...',
        '  - class: "DeepseekV3MLP"',
    ]


def test_the_summary_counts_top_level_changes_as_the_expanded_form_does() -> None:
    record = diff(_plan("qwen3_moe.hf4"), _plan("qwen3_moe.hf5"))
    folded, expanded = format_folded(record).splitlines()[0], format_diff(record).splitlines()[0]
    assert folded.split(", ")[-1] == expanded.split(", ")[-1] == "36,286 top-level changes"


def test_the_command_prints_groups_exactly_and_the_same_text_under_any_hash_seed() -> None:
    a, b = fixture_path("deepseek_v3.hf4"), fixture_path("deepseek_v3.hf5")
    done = metaplan_cli("diff", a, b, "--format", "groups")
    assert done.returncode == 1, done.stderr
    out = json.loads(done.stdout)
    assert (out["a"], out["b"], out["ignored"]) == (str(a), str(b), None)
    hf4, hf5 = _plan("deepseek_v3.hf4"), _plan("deepseek_v3.hf5")
    record, provenance = split_provenance(hf4, hf5, diff(hf4, hf5))
    check_groups(record, out["groups"])  # the provenance is listed apart, and is all there
    assert out["provenance"] == [change.to_json() for change in provenance]
    assert [change.path for change in provenance] == [("signature",), ("source", "transformers")]
    small = fixture_path("qwen3_moe.hf5"), DATA / "qwen3_moe.hf5.expected.json.gz"
    texts = {metaplan_cli("diff", *small, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
             for seed in ("0", "1", "12345")}
    assert len(texts) == 1


def test_expand_lists_every_module_on_its_own() -> None:
    a, b = "deepseek_v3.hf5", "deepseek_v3.hf5.expected"
    done = metaplan_cli("diff", fixture_path(a), DATA / f"{b}.json.gz", "--expand")
    assert done.returncode == 1
    lines = done.stdout.decode().splitlines()[3:]
    headers = [line for line in lines if not line.startswith(" ")]
    touched = _by_module(diff(_plan(a), _plan(b)).changes)
    assert headers == sorted(touched, key=natural_key) and len(headers) == 236


# the same laws on generated pairs -----------------------------------------------------------


def _plans(pair: tuple[dict[str, Any], dict[str, Any]]) -> tuple[Plan, Plan]:
    return Plan.from_json(pair[0]), Plan.from_json(pair[1])


@given(plan_pairs())
def test_groups_are_exact_on_generated_pairs(pair: tuple[dict[str, Any], dict[str, Any]]
                                             ) -> None:
    record = diff(*_plans(pair))
    check_groups(record, [group_to_json(group) for group in fold_changes(record)])


@given(plan_pairs(), st.randoms(use_true_random=False))
def test_folding_is_deterministic_whatever_the_key_order(
        pair: tuple[dict[str, Any], dict[str, Any]], rng: random.Random) -> None:
    text = format_folded(diff(*_plans(pair)))

    def shuffled(meta: dict[str, Any]) -> dict[str, Any]:
        out = dict(meta)
        for field in FQN_FIELDS:
            items = list(meta[field].items())
            rng.shuffle(items)
            out[field] = dict(items)
        return out

    assert format_folded(diff(*_plans((shuffled(pair[0]), shuffled(pair[1]))))) == text


@given(plan_pairs())
def test_expanded_text_lists_each_touched_module_once(
        pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    record = diff(*_plans(pair))
    lines = format_diff(record).splitlines()[1:]
    headers = [line for line in lines if not line.startswith(" ") and line != "(top level)"]
    modules = [fqn or '""' for fqn in _by_module(record.changes)]
    assert sorted(headers) == sorted(modules)


# item-level array edits ---------------------------------------------------------------------


@given(plan_pairs())
def test_records_and_patches_of_array_edits_turn_a_into_b(
        pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    a, b = _plans(pair)
    record = diff(a, b)
    assert metaplan.replay(a, [record]) == b
    (reread,) = loads_records(dumps_records([record]))
    assert metaplan.replay(a, [reread]) == b
    assert jsonpatch.apply_patch(a.to_json(), metaplan.to_json_patch(record)) == b.to_json()
    assert metaplan.replay(b, [metaplan.invert(record)]) == a
    assert metaplan.replay(a, [diff(a, b, arrays="whole")]) == b


_ITEMS = st.one_of(st.sampled_from(("tp", "ep", "dp", "cp", "a", "b")), st.integers(0, 3),
                   st.booleans(),
                   st.fixed_dictionaries({"match": st.sampled_from(("m.0", "m.1", "m.2")),
                                          "ep_size": st.sampled_from((4, 8))}))


@given(st.lists(_ITEMS, max_size=8), st.lists(_ITEMS, max_size=8))
def test_changes_between_any_two_arrays_patch_one_into_the_other(old: list[Any],
                                                                 new: list[Any]) -> None:
    changes = changes_between(old, new, ("xs",))
    record = ChangeRecord("arrays", "sha256:a", "sha256:b", changes)
    patched = jsonpatch.apply_patch({"xs": old}, metaplan.to_json_patch(record))
    assert json.dumps(patched, sort_keys=True) == json.dumps({"xs": new}, sort_keys=True)
    assert metaplan.apply_changes(Plan.from_json({"xs": old}), changes) == \
        Plan.from_json({"xs": new})


def _edited(name: str, edit: Any) -> tuple[Plan, Plan, dict[str, Any]]:
    """The bundled plan, the plan after ``edit``, and the latter as JSON."""
    raw = json.loads(gzip.decompress(fixture_path(name).read_bytes()))
    edit(raw)
    return _plan(name), metaplan.loads(orjson.dumps(raw)), raw


def _set_ep_size(raw: dict[str, Any]) -> None:
    raw["injections"][5]["ep_size"] = 16


def _drop_one_injection(raw: dict[str, Any]) -> None:
    del raw["injections"][7]


def _drop_one_sharded_param(raw: dict[str, Any]) -> None:
    raw["frozen_sharded_params"].remove("model.layers.10.mlp.experts.3.up_proj.weight")


@pytest.mark.parametrize(("edit", "line"), [
    (_set_ep_size, "  ~ injections[5].ep_size: 8 -> 16"),
    (_drop_one_injection, '  - injections[7]: {"ep_size":8,"ep_stack":["tp"],'
                          '"local_compute_fn":{"_target_":"hyper_parallel...'),
    (_drop_one_sharded_param, '  - frozen_sharded_params items: '
                              'model.layers.10.mlp.experts.3.up_proj.weight  (1 item)'),
], ids=["ep_size", "injection", "sharded_param"])
def test_one_edited_item_of_a_real_plan_is_one_small_change(edit: Any, line: str) -> None:
    a, b, b_json = _edited("deepseek_v3.hf4", edit)
    record = diff(a, b)
    assert len(record) == 1
    patch = metaplan.to_json_patch(record)
    assert len(json.dumps(patch)) < 500 and len(dumps_records([record])) < 1500
    assert jsonpatch.apply_patch(a.to_json(), patch, in_place=True) == b_json
    assert metaplan.replay(a, [record]) == b
    assert format_folded(record).splitlines()[1:] == ["(top level)", line]


def test_a_string_added_twice_is_one_item_and_one_path() -> None:
    a = Plan.from_json({"param_plan": {"m": {}}, "external_state_classes": ["MLP"]})
    b = Plan.from_json({"param_plan": {"m": {}},
                        "external_state_classes": ["MoE", "MLP", "MoE", "Router"]})
    groups = [group_to_json(group) for group in fold_changes(diff(a, b))]
    assert groups == [
        {"field": "external_state_classes", "op": "add", "items": "{MoE,Router}", "count": 2},
        {"field": "external_state_classes", "paths": "external_state_classes[2]", "count": 1,
         "changes": [{"field": "external_state_classes", "key": "external_state_classes[2]",
                      "op": "add", "new": "MoE"}]},
    ]


# what folding keeps apart, and in which order -------------------------------------------

def test_values_equal_in_python_but_not_in_json_are_told_apart() -> None:
    """``1``, ``true`` and ``1.0`` are one value to Python's ``==`` and three in JSON."""
    a = metaplan.loads(b'{"param_plan": {"m.1": {"x": [1]}, "m.2": {"x": [true]}, '
                       b'"m.3": {"x": [1.0]}, "m.4": {"x": [1]}, "m.10": {"x": [1]}}}')
    b = metaplan.loads(b'{"param_plan": {"m.1": {"x": [5]}, "m.2": {"x": [5]}, '
                       b'"m.3": {"x": [5]}, "m.4": {"x": [5]}, "m.10": {"x": [5]}}}')
    assert format_folded(diff(a, b)).splitlines() == [
        "5 changes: 5 modules in 3 groups, 0 top-level changes",
        "m.{1,4,10}  (3 modules)", "  ~ x: [1] -> [5]",
        "m.2", "  ~ x: [true] -> [5]",
        "m.3", "  ~ x: [1.0] -> [5]",
    ]
    many = metaplan.loads(b'{"param_plan": {"m.1": {"x": [1], "y": 1}, "m.2": {"x": [true], '
                          b'"y": true}, "m.3": {"x": [1.0], "y": 1.0}, "m.4": {"x": [1], "y": 1}, '
                          b'"m.10": {"x": [1], "y": 2}, "m.11": {"x": [1], "y": 2}}}')
    into = metaplan.loads(b'{"param_plan": {"m.1": {"x": [5], "y": 0}, "m.2": {"x": [5], '
                          b'"y": 0}, "m.3": {"x": [5], "y": 0}, "m.4": {"x": [5], "y": 0}, '
                          b'"m.10": {"x": [5], "y": 0}, "m.11": {"x": [5], "y": 0}}}')
    assert format_folded(diff(many, into)).splitlines()[1:] == [
        "m.{{1..4},10,11}  (6 modules)",
        "  ~ x: (3 distinct values) -> [5]",
        "  ~ y: (4 distinct values) -> 0",
    ]


def test_new_values_equal_in_python_but_not_in_json_are_told_apart() -> None:
    a = metaplan.loads(b'{"param_plan": {"m.9": {"x": 1}, "m.10": {"x": 1}, "m.11": {"x": 2}, '
                       b'"n.2": {"x": 2}}, "zz": 1, "aa": [1]}')
    b = metaplan.loads(b'{"param_plan": {"m.9": {"x": true}, "m.10": {"x": 1.0}, '
                       b'"m.11": {"x": 1}, "n.2": {"x": 1}}, "zz": true, "aa": [true]}')
    record = diff(a, b)
    assert format_folded(record).splitlines() == [
        "6 changes: 4 modules in 3 groups, 2 top-level changes",
        "(top level)", "  ~ aa: [1] -> [true]", "  ~ zz: 1 -> true",
        "m.9", "  ~ x: 1 -> true",
        "m.10", "  ~ x: 1 -> 1.0",
        "{m.11,n.2}  (2 modules)", "  ~ x: 2 -> 1",
    ]
    groups = fold_changes(record)
    # modules first, in the natural order of each group's first name, then the top level
    assert [group_to_json(group).get("modules", group_to_json(group).get("paths"))
            for group in groups] == ["m.9", "m.10", "{m.11,n.2}", "aa", "zz"]
