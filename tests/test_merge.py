"""Three-way merge of plans and rebase of records: the laws by property, and the commands
on the bundled plans (normalize's edits on one side, hand edits on the other)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import metaplan
from conftest import DATA, OLD, metaplan_cli
from metaplan.core.plan import Plan
from metaplan.frozen import MISSING, json_equal
from metaplan.records.codec import dumps_records, loads_records
from metaplan.records.edit import apply_changes
from metaplan.testing import PlanVersions, plan_versions, set_versions
from metaplan.versions.diffing import diff
from metaplan.versions.merging import SIDES, Conflict, Side, merge, rebase

Plans = tuple[Plan, Plan, Plan]


def _plans(versions: PlanVersions) -> Plans:
    return (Plan.from_json(versions.base), Plan.from_json(versions.ours),
            Plan.from_json(versions.theirs))


def _same(a: Any, b: Any) -> bool:
    return (a is MISSING) == (b is MISSING) and (a is MISSING or json_equal(a, b))


def _repeats(value: Any) -> bool:
    """Whether some array in ``value`` holds an item twice: then a record's numbered item
    edits can fit an array both before and after they are made, and rebase must guess."""
    if isinstance(value, dict):
        return any(_repeats(item) for item in value.values())
    if isinstance(value, list):
        keys = [json.dumps(item, sort_keys=True) for item in value]
        return len(set(keys)) < len(keys) or any(_repeats(item) for item in value)
    return False


# the laws -----------------------------------------------------------------------------------


@given(plan_versions())
def test_one_sided_and_identical_changes_merge_to_that_side(versions: PlanVersions) -> None:
    base, ours, theirs = _plans(versions)
    for one in (ours, theirs):
        for merged in (merge(base, one, base), merge(base, base, one), merge(base, one, one)):
            assert merged.clean and merged.plan == one


@given(plan_versions())
def test_merge_is_symmetric_in_ours_and_theirs(versions: PlanVersions) -> None:
    base, ours, theirs = _plans(versions)
    forth, back = merge(base, ours, theirs), merge(base, theirs, ours)
    assert forth.clean == back.clean
    if forth.clean:
        assert forth.plan == back.plan
    paths = [conflict.path for conflict in forth.conflicts]
    assert len(paths) == len(set(paths)), "a place is reported twice"
    assert sorted(paths, key=repr) == sorted((c.path for c in back.conflicts), key=repr)


@given(set_versions())
def test_sorted_string_arrays_merge_as_the_sets_they_list(versions: PlanVersions) -> None:
    base, ours, theirs = _plans(versions)
    b, x, y = (set(v["frozen_sharded_params"]) for v in versions)
    for one, other in ((ours, theirs), (theirs, ours)):
        merged = merge(base, one, other)
        assert merged.clean
        assert set(merged.plan["frozen_sharded_params"]) == (x & y) | ((x | y) - b)
        for law in (merge(base, one, base), merge(base, base, one), merge(base, one, one)):
            assert law.clean and law.plan == one


@pytest.mark.parametrize("order", ["ours first", "theirs first"])
def test_a_side_that_repeats_an_item_of_a_set_keeps_the_others_removal(order: str,
                                                                        tmp_path: Path) -> None:
    paths = []
    for name, listed in (("base", ["p.1", "p.2", "p.3"]), ("repeats", ["p.1", "p.1", "p.2", "p.3"]),
                         ("removes", ["p.2", "p.3"])):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"param_plan": {}, "frozen_sharded_params": listed}))
        paths.append(path)
    base, one, other = paths if order == "ours first" else (paths[0], paths[2], paths[1])
    done = metaplan_cli("merge", base, one, other)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["frozen_sharded_params"] == ["p.2", "p.3"]


@given(plan_versions())
def test_inputs_are_never_changed_and_the_record_turns_ours_into_the_result(
        versions: PlanVersions) -> None:
    plans = _plans(versions)
    before = [metaplan.dumps(plan) for plan in plans]
    merged = merge(*plans)
    assert [metaplan.dumps(plan) for plan in plans] == before
    ours = plans[1]
    assert metaplan.replay(ours, [merged.record]) == merged.plan
    (reread,) = loads_records(dumps_records([merged.record]))
    assert metaplan.replay(ours, [reread]) == merged.plan


def _values(conflict: Conflict) -> bool:
    """Whether a conflict names one value (not clashing regions of an array)."""
    return not any(isinstance(key, int) for key in conflict.path)


@given(plan_versions())
def test_a_conflicted_merge_keeps_every_clean_change_and_ours_at_each_conflict(
        versions: PlanVersions) -> None:
    base, ours, theirs = _plans(versions)
    merged = merge(base, ours, theirs)
    for conflict in merged.conflicts:
        if _values(conflict):
            assert _same(merged.plan.at(conflict.path), conflict.ours), conflict
    settled = {side: merge(base, ours, theirs, resolve=side) for side in SIDES}
    for side, result in settled.items():
        assert result.clean, (side, result.conflicts)
        assert metaplan.replay(ours, [result.record]) == result.plan
        for conflict in merged.conflicts:
            if _values(conflict):
                assert _same(result.plan.at(conflict.path), getattr(conflict, side)), side
    assert settled["ours"].plan == merged.plan or any(not _values(c) for c in merged.conflicts)
    # a clean merge is what every resolution gives: nothing to settle
    if merged.clean:
        assert all(result.plan == merged.plan for result in settled.values())


def test_clean_changes_of_both_sides_survive_a_conflict() -> None:
    base = Plan.from_json({"param_plan": {"a": {"tp": 1}, "b": {"tp": 1}, "c": {"tp": 1}}})
    ours = Plan.from_json({"param_plan": {"a": {"tp": 2}, "b": {"tp": 5}, "c": {"tp": 1}}})
    theirs = Plan.from_json({"param_plan": {"a": {"tp": 3}, "b": {"tp": 1}, "c": {"tp": 7}}})
    merged = merge(base, ours, theirs)
    assert [c.path for c in merged.conflicts] == [("param_plan", "a", "tp")]
    assert merged.plan.to_json()["param_plan"] == {"a": {"tp": 2}, "b": {"tp": 5},
                                                    "c": {"tp": 7}}
    asked: list[Conflict] = []

    def pick(conflict: Conflict) -> Side | None:
        asked.append(conflict)
        return "base"

    settled = merge(base, ours, theirs, resolve=pick)
    assert asked == list(merged.conflicts) and settled.clean
    assert settled.plan.to_json()["param_plan"]["a"] == {"tp": 1}
    theirs_won = merge(base, ours, theirs, resolve="theirs").plan.to_json()["param_plan"]
    assert theirs_won == {"a": {"tp": 3}, "b": {"tp": 5}, "c": {"tp": 7}}


def test_array_regions_and_duplicates_settle_to_a_side() -> None:
    def plan(injections: list[dict[str, object]]) -> Plan:
        return Plan.from_json({"param_plan": {}, "injections": injections})

    base = plan([{"match": "a", "fn": "x"}, {"match": "z", "fn": "x"}])
    ours = plan([{"match": "a", "fn": "x"}, {"match": "n", "fn": "o"}, {"match": "z", "fn": "x"}])
    theirs = plan([{"match": "n", "fn": "t"}, {"match": "a", "fn": "x"},
                   {"match": "z", "fn": "x"}])
    merged = merge(base, ours, theirs)
    assert len(merged.conflicts) == 1
    wanted: tuple[tuple[Side, list[str]], ...] = (
        ("ours", ["x", "o", "x"]), ("theirs", ["t", "x", "x"]), ("base", ["x", "x"]))
    for side, fns in wanted:
        result = merge(base, ours, theirs, resolve=side)
        assert result.clean, side
        assert [i["fn"] for i in result.plan.to_json()["injections"]] == fns, side
    mirrored: tuple[tuple[Side, list[str]], ...] = (("ours", ["t", "x", "x"]),
                                                    ("theirs", ["x", "o", "x"]))
    for side, fns in mirrored:
        swapped = merge(base, theirs, ours, resolve=side).plan.to_json()["injections"]
        assert [i["fn"] for i in swapped] == fns, side  # ours' copy first this time
    lists = [["p", "q"], ["p", "o", "q"], ["p", "t", "q"]]
    region = [Plan.from_json({"param_plan": {}, "tags": v}) for v in lists]
    assert not merge(*region).clean
    regions: tuple[tuple[Side, list[str]], ...] = (
        ("ours", lists[1]), ("theirs", lists[2]), ("base", lists[0]))
    for side, want in regions:
        assert merge(*region, resolve=side).plan.to_json()["tags"] == want


def test_a_resolve_that_is_not_a_side_is_refused() -> None:
    base, ours, theirs = (Plan.from_json({"param_plan": {"m": {"tp": n}}}) for n in (1, 2, 3))
    with pytest.raises(ValueError, match="'mine' is not one of ours, theirs, base"):
        merge(base, ours, theirs, resolve="mine")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"resolve answered 'x' for param_plan\["):
        merge(base, ours, theirs, resolve=lambda conflict: "x")  # type: ignore[arg-type,return-value]


@given(plan_versions())
def test_a_conflict_shows_the_three_values_at_its_path(versions: PlanVersions) -> None:
    base, ours, theirs = _plans(versions)
    for conflict in merge(base, ours, theirs).conflicts:
        assert not (_same(conflict.ours, conflict.base) or _same(conflict.theirs,
                                                                 conflict.base)) \
            or not _same(conflict.ours, conflict.theirs), conflict
        if any(isinstance(key, int) for key in conflict.path):
            continue  # inside an array: the clashing regions, not one value
        for plan, value in zip((base, ours, theirs), conflict[1:], strict=True):
            assert _same(plan.at(conflict.path), value), conflict


@given(plan_versions(disjoint=True))
def test_changes_to_disjoint_paths_merge_as_both_diffs_replayed(versions: PlanVersions
                                                                ) -> None:
    base, ours, theirs = _plans(versions)
    mine, yours = diff(base, ours).changes, diff(base, theirs).changes
    wholes = [{c.path for c in diff(base, side, arrays="whole").changes}
              for side in (ours, theirs)]
    assert not any(p[:len(q)] == q or q[:len(p)] == p for p in wholes[0] for q in wholes[1])
    merged = merge(base, ours, theirs)
    assert merged.clean
    assert merged.plan == apply_changes(apply_changes(base, mine), yours)
    assert merged.plan == apply_changes(apply_changes(base, yours), mine)
    plan, _, conflicts = rebase(ours, [diff(base, theirs)])
    assert conflicts == ()
    if not _repeats(versions.base) and not _repeats(versions.theirs):
        assert plan == merged.plan


@given(plan_versions())
def test_rebase_applies_what_fits_and_skips_what_is_there(versions: PlanVersions) -> None:
    base, ours, theirs = _plans(versions)
    record = diff(base, theirs)
    assert rebase(base, [record])[0] == theirs
    again, again_record, none = rebase(theirs, [record])
    assert none == ()
    if not _repeats(versions.base) and not _repeats(versions.theirs):
        assert again is theirs and again_record.is_noop
    rebased = rebase(ours, [record])
    plan, done, conflicts = rebased
    assert (rebased.plan, rebased.record, rebased.conflicts) == (plan, done, conflicts)
    assert rebased.clean == (conflicts == ())
    if conflicts:
        assert plan is ours and done.is_noop
        assert all(isinstance(c, Conflict) for c in conflicts)
    else:
        assert metaplan.replay(ours, [done]) == plan


# the bundled plans, on the command line ------------------------------------------------------


def _with_stdin(data: bytes, *args: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "metaplan", *map(str, args)], input=data,
                          capture_output=True, timeout=120, check=False)


def _raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((DATA / f"{name}.json.gz").read_bytes()))
    return data


def _write(folder: Path, name: str, meta: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(meta, indent=2, sort_keys=True))
    return path


def _hand_edit(meta: dict[str, Any]) -> None:
    """Other keys of the entries normalize edits, and an injection."""
    plan = meta["param_plan"]
    plan["model.layers.3.mlp"]["region_dispatch"] = True
    plan["model.layers.4.mlp.shared_experts"]["params"]["extra.weight"] = {"tp": "R"}
    plan["model.layers.0.mlp"]["needs_cp_attn"] = True
    meta["injections"][5]["ep_size"] = 16


def _versions(folder: Path, model: str, edit: Callable[[dict[str, Any]], None] = _hand_edit
              ) -> tuple[Path, Path, Path]:
    """BASE: a bundled plan; OURS: its normal form (normalize's edits); THEIRS: a hand edit."""
    theirs = _raw(model)
    edit(theirs)
    return (DATA / f"{model}.json.gz", DATA / f"{model}.expected.json.gz",
            _write(folder, "theirs.json", theirs))


def _check_hand_edits_on_the_normal_form(out: Path, model: str) -> None:
    merged, normal = metaplan.load(out), _raw(f"{model}.expected")
    _hand_edit(normal)
    assert merged == Plan.from_json(normal)


def test_normalize_and_a_hand_edit_of_the_same_entries_merge_cleanly(tmp_path: Path) -> None:
    base, ours, theirs = _versions(tmp_path, "deepseek_v3.hf4")
    out, rec = tmp_path / "out.json", tmp_path / "rec.json"
    done = metaplan_cli("merge", base, ours, theirs, "-o", out, "--record", rec)
    assert done.returncode == 0, done.stderr
    _check_hand_edits_on_the_normal_form(out, "deepseek_v3.hf4")
    (record,) = metaplan.load_records(rec)
    assert len(record) == 4
    assert metaplan.replay(metaplan.load(ours), [record]) == metaplan.load(out)
    swapped = metaplan_cli("merge", base, theirs, ours, "-o", "-")
    assert swapped.returncode == 0 and swapped.stdout == out.read_bytes()


def _conflicting(meta: dict[str, Any]) -> None:
    """Against normalize: drop an entry it edits, rename a class it drops, set a flag it sets
    to the other value; and drop keys beside one it sets (which merges)."""
    del meta["param_plan"]["model.layers.3.mlp"]
    meta["boundary_classes"]["model.layers.3.mlp"] = "MyMoE"
    meta["param_plan"]["model.layers.0.mlp"]["skip_source_lowering"] = False
    del meta["param_plan"]["model.layers.4.mlp"]["in_dst"]


CONFLICTS = [
    'boundary_classes["model.layers.3.mlp"]: base "DeepseekV3MoE", ours (absent), '
    'theirs "MyMoE"',
    'param_plan["model.layers.0.mlp"].skip_source_lowering: base (absent), ours true, '
    'theirs false',
    'param_plan["model.layers.3.mlp"]: theirs removed it; ours changed is_boundary (true -> '
    'false)',
]


def test_conflicting_edits_exit_1_list_every_conflict_and_write_nothing(tmp_path: Path) -> None:
    base, ours, theirs = _versions(tmp_path, "deepseek_v3.hf5", _conflicting)
    out, rec = tmp_path / "out.json", tmp_path / "rec.json"
    out.write_bytes(OLD)
    done = metaplan_cli("merge", base, ours, theirs, "-o", out, "--record", rec)
    assert done.returncode == 1, done.stderr
    assert out.read_bytes() == OLD and not rec.exists()
    assert done.stdout == b""  # stdout is where a merged plan goes
    assert done.stderr.decode().splitlines() == [
        "metaplan merge: 3 conflicts; nothing written (--ours or --theirs settles them)",
        *(f"  {line}" for line in CONFLICTS)]
    as_json = metaplan_cli("merge", base, ours, theirs, "-o", out, "--format", "json")
    assert as_json.returncode == 1 and out.read_bytes() == OLD
    found = json.loads(as_json.stdout)
    assert found["inputs"] == [str(base), str(ours), str(theirs)]
    assert [c["path"] for c in found["conflicts"]] == [
        ["boundary_classes", "model.layers.3.mlp"],
        ["param_plan", "model.layers.0.mlp", "skip_source_lowering"],
        ["param_plan", "model.layers.3.mlp"]]
    first, second, third = found["conflicts"]
    assert first == {"path": first["path"], "base": "DeepseekV3MoE", "theirs": "MyMoE"}
    assert second == {"path": second["path"], "ours": True, "theirs": False}
    assert set(third) == {"path", "base", "ours"}
    assert third["base"]["is_boundary"] is True and third["ours"]["is_boundary"] is False
    swapped = metaplan_cli("merge", base, theirs, ours, "--format", "json")
    assert swapped.returncode == 1
    assert [c["path"] for c in json.loads(swapped.stdout)["conflicts"]] == \
        [c["path"] for c in found["conflicts"]]


def test_ours_or_theirs_settles_every_conflict_and_keeps_every_clean_change(
        tmp_path: Path) -> None:
    base, ours, theirs = _versions(tmp_path, "deepseek_v3.hf5", _conflicting)
    plans = [metaplan.load(path) for path in (base, ours, theirs)]
    sides: tuple[Side, ...] = ("ours", "theirs")
    for side in sides:
        out, rec = tmp_path / f"by-{side}.json", tmp_path / f"by-{side}.rec.json"
        done = metaplan_cli("merge", base, ours, theirs, f"--{side}", "-o", out, "--record", rec)
        assert done.returncode == 0, done.stderr
        assert done.stderr.decode() == f"metaplan merge: 3 conflicts settled to {side}\n"
        settled = metaplan.load(out)
        assert settled == merge(*plans, resolve=side).plan
        assert metaplan.replay(plans[1], metaplan.load_records(rec)) == settled
        held = settled.at(("boundary_classes", "model.layers.3.mlp"))
        assert held == ("MyMoE" if side == "theirs" else MISSING)
    both = metaplan_cli("merge", base, ours, theirs, "--ours", "--theirs")
    assert both.returncode == 2 and b"not allowed with argument" in both.stderr


def test_merge_reads_one_input_from_stdin_and_refuses_bad_input(tmp_path: Path) -> None:
    base, ours, theirs = _versions(tmp_path, "deepseek_v3.hf5")
    with_file = metaplan_cli("merge", base, ours, theirs)
    piped = _with_stdin(gzip.decompress(ours.read_bytes()), "merge", base, "-", theirs, "-o",
                        "-")
    assert with_file.returncode == piped.returncode == 0
    assert piped.stdout == with_file.stdout and piped.stdout.startswith(b"{\n")
    bad = _write(tmp_path, "bad.json", {"param_plan": {"m": {"is_boundary": "yes"}}})
    refused = metaplan_cli("merge", base, ours, bad, "-o", tmp_path / "never.json")
    assert refused.returncode == 2 and b"must be true or false" in refused.stderr
    assert not (tmp_path / "never.json").exists()


def test_merge_matches_injections_by_their_match_when_one_side_inserts_one(tmp_path: Path
                                                                          ) -> None:
    ours_meta = _raw("deepseek_v3.hf5.expected")
    ours_meta["injections"].insert(0, {"match": "model.layers.99.mlp", "ep_size": 4})
    ours = _write(tmp_path, "ours.json", ours_meta)
    base, _, theirs = _versions(tmp_path, "deepseek_v3.hf5")
    out = tmp_path / "out.json"
    assert metaplan_cli("merge", base, ours, theirs, "-o", out).returncode == 0
    injections = json.loads(out.read_text())["injections"]
    assert injections[0]["match"] == "model.layers.99.mlp"
    assert [(i["match"], i["ep_size"]) for i in injections if i["ep_size"] != 8] == [
        ("model.layers.99.mlp", 4), (_raw("deepseek_v3.hf5")["injections"][5]["match"], 16)]


# rebase --------------------------------------------------------------------------------------


def test_a_hand_edit_survives_a_regeneration_by_rebase(tmp_path: Path) -> None:
    base, normal, theirs = _versions(tmp_path, "deepseek_v3.hf4")
    rec, out = tmp_path / "hand.rec.json", tmp_path / "out.json"
    assert metaplan_cli("diff", base, theirs, "--format", "json", "-o", rec).returncode == 1
    plain = metaplan_cli("replay", normal, rec, "-o", out)
    assert plain.returncode == 2 and not out.exists()
    done = metaplan_cli("replay", normal, rec, "--rebase", "-o", out)
    assert done.returncode == 0, done.stderr
    _check_hand_edits_on_the_normal_form(out, "deepseek_v3.hf4")
    twice = metaplan_cli("replay", out, rec, "--rebase", "-o", "-")
    assert twice.returncode == 0 and twice.stdout == out.read_bytes()


def test_rebase_skips_what_is_applied_and_reports_the_rest_as_conflicts(tmp_path: Path) -> None:
    base, _, theirs = _versions(tmp_path, "deepseek_v3.hf5")
    rec = tmp_path / "hand.rec.json"
    metaplan_cli("diff", base, theirs, "--format", "json", "-o", rec)
    moved = _raw("deepseek_v3.hf5.expected")
    moved["injections"][5]["ep_size"] = 32
    moved["param_plan"]["model.layers.3.mlp"]["region_dispatch"] = True  # already there
    moved["param_plan"]["model.layers.0.mlp"]["needs_cp_attn"] = False
    plan, out = _write(tmp_path, "moved.json", moved), tmp_path / "out.json"
    out.write_bytes(OLD)
    done = metaplan_cli("replay", plan, rec, "--rebase", "-o", out)
    assert done.returncode == 1 and out.read_bytes() == OLD
    assert done.stderr.decode().splitlines() == [
        "metaplan replay: 2 conflicts; nothing written",
        "  injections[5].ep_size: base 8, ours 32, theirs 16",
        '  param_plan["model.layers.0.mlp"].needs_cp_attn: base (absent), ours false, '
        "theirs true"]
    as_json = metaplan_cli("replay", plan, rec, "--rebase", "--format", "json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout) == {"inputs": [str(plan), str(rec)], "conflicts": [
        {"path": ["injections", 5, "ep_size"], "base": 8, "ours": 32, "theirs": 16},
        {"path": ["param_plan", "model.layers.0.mlp", "needs_cp_attn"], "ours": False,
         "theirs": True}]}



def test_a_removal_whose_item_moved_is_a_conflict_not_dropped(tmp_path: Path) -> None:
    """The record removes injections[5]; on a plan where an injection was added before it,
    the item is still there (now at 6): reported, never skipped as if it were applied."""
    base = _raw("deepseek_v3.hf5")
    gone = json.loads(json.dumps(base))
    removed = gone["injections"].pop(5)
    rec, out = tmp_path / "gone.rec.json", tmp_path / "out.json"
    metaplan_cli("diff", _write(tmp_path, "base.json", base), _write(tmp_path, "gone.json", gone),
                 "--format", "json", "-o", rec)
    added = json.loads(json.dumps(base))
    added["injections"].insert(0, {**added["injections"][0], "match": "model.layers.99.mlp"})
    plan = _write(tmp_path, "added.json", added)
    out.write_bytes(OLD)
    done = metaplan_cli("replay", plan, rec, "--rebase", "--format", "json", "-o", out)
    assert done.returncode == 1 and out.read_bytes() == OLD, done.stderr
    assert json.loads(done.stdout)["conflicts"] == [
        {"path": ["injections", 5], "base": removed, "ours": base["injections"][4]}]
    on_its_result = metaplan_cli("replay", tmp_path / "gone.json", rec, "--rebase", "-o", "-")
    assert on_its_result.returncode == 0 and json.loads(on_its_result.stdout) == gone

def test_mergetool_refuses_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    base, ours, theirs = _versions(tmp_path, "deepseek_v3.hf5", _conflicting)
    merged, bad = tmp_path / "merged.json", tmp_path / "bad.json"
    merged.write_bytes(OLD)
    bad.write_text("{not json")
    refused = metaplan_cli("mergetool", base, bad, theirs, merged, "--theirs")
    assert refused.returncode == 2 and str(bad).encode() in refused.stderr
    assert merged.read_bytes() == OLD
    same = metaplan_cli("mergetool", base, ours, theirs, ours, "--theirs")
    assert same.returncode == 2 and b"MERGED names the input LOCAL" in same.stderr
    done = metaplan_cli("mergetool", base, ours, theirs, merged, "--theirs")
    assert done.returncode == 0, done.stderr
    assert metaplan.load(merged) == merge(*(metaplan.load(p) for p in (base, ours, theirs)),
                                          resolve="theirs").plan


def test_diff_and_merge_agree_on_what_an_array_and_an_item_are() -> None:
    """One definition each (0.3 had three of ``is_array``): a merge of two arrays of
    injections matches items by ``match`` exactly as the diff does."""
    from metaplan.frozen import freeze, is_array
    from metaplan.versions.diffing import item_identity

    values: list[Any] = [[], (), freeze([1]), "ab", b"ab", {}]
    assert [is_array(v) for v in values] == [True, True, True, False, False, False]
    assert item_identity(freeze({"match": "m.*", "x": 1})) == item_identity(
        freeze({"match": "m.*", "x": 2})) != item_identity(freeze({"match": "n"}))
    assert item_identity(freeze({"x": 1})) is None and item_identity(1) is None
    base = Plan.from_json({"injections": [{"match": "a", "v": 1}, {"match": "b", "v": 1}]})
    ours = Plan.from_json({"injections": [{"match": "b", "v": 1}, {"match": "a", "v": 2}]})
    theirs = Plan.from_json({"injections": [{"match": "a", "v": 1}, {"match": "b", "v": 3}]})
    merged = merge(base, ours, theirs)
    assert merged.clean
    assert merged.plan.at("injections") == freeze([{"match": "b", "v": 3}, {"match": "a", "v": 2}])
