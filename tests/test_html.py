"""The HTML renderer, as strings: the groups are the text diff's, names are escaped, the data
reads back, reruns give the same bytes, and DeepSeek-V3 vs its normal form stays small."""

from __future__ import annotations

import copy
import json
import re

import pytest

import metaplan
from conftest import fixture_path, metaplan_cli, raw_json
from metaplan.core.invariants import verification
from metaplan.core.plan import Plan
from metaplan.passes.registry import NORMALIZE, build_pipeline
from metaplan.passes.trace import Trace
from metaplan.records.codec import records_from_json
from metaplan.versions.diffing import diff
from metaplan.versions.folding import fold_changes
from metaplan.versions.merging import merge
from metaplan.views.html import diff_report, read_report_data
from metaplan.views.html.data import data_script
from metaplan.views.html.groups import member_rows
from metaplan.views.html.notebook import mimebundle
from metaplan.views.html.runs import run_report
from metaplan.views.text import format_folded

NASTY = ['m.<script>alert(1)</script>', "m.a&b", 'm."quoted"', "m.'single'", "m.é.中",
         "m.</script>", "m.&lt;"]


def _plans(names: list[str]) -> tuple[Plan, Plan]:
    a = Plan.from_json({"param_plan": {n: {"is_boundary": True} for n in names},
                        "boundary_classes": {n: "MLP" for n in names}})
    b = Plan.from_json({"param_plan": {n: {"is_boundary": False} for n in names},
                        "boundary_classes": {}})
    return a, b


def merge_sides() -> tuple[Plan, Plan, Plan]:
    """DeepSeek-V3 (hf5) and two sides: 40 conflicts on ``.mlp`` modules, 25 clean changes."""
    raw = raw_json("deepseek_v3.hf5")
    ours, theirs = copy.deepcopy(raw), copy.deepcopy(raw)
    for i, name in enumerate([k for k in raw["param_plan"] if k.endswith(".mlp")][:40]):
        ours["param_plan"][name]["skip_source_lowering"] = False
        theirs["param_plan"][name]["skip_source_lowering"] = True
        if i < 20:
            del theirs["boundary_classes"][name]
    for name in [k for k in raw["param_plan"] if k.endswith(".mlp.gate")][:5]:
        theirs["param_plan"][name]["skip_source_lowering"] = True
    return Plan.from_json(raw), Plan.from_json(ours), Plan.from_json(theirs)


def _text_outside_data(page: str) -> str:
    return re.sub(r'<script type="application/json" id="metaplan-data">.*?</script>', "", page,
                  flags=re.DOTALL)


@pytest.mark.parametrize("name", NASTY)
def test_every_module_name_is_escaped(name: str) -> None:
    a, b = _plans([name, "m.plain"])
    page = diff_report(diff(a, b), labels=(name, "B"), before=a, after=b)
    outside = _text_outside_data(page)
    assert "<script>alert" not in page and "</script><" not in outside.replace(
        "</script>\n</body>", "")
    for raw in ("<script>alert", '"quoted"', "'single'", "a&b"):
        if raw in name:
            assert raw not in outside
    if "é" in name:
        assert "m.é.中" in outside  # non-ASCII is kept as text (UTF-8)
    data = read_report_data(page)
    members = [m for group in data["groups"].values() for m in group.get("members", ())]
    assert name in members  # the data holds the exact name


def test_a_name_with_a_newline_is_shown_quoted() -> None:
    a, b = _plans(["m.a\nb"])
    page = diff_report(diff(a, b))
    assert "m.a\nb" not in _text_outside_data(page)
    assert "&quot;m.a\\nb&quot;" in page


def test_the_groups_are_the_text_diffs(loaded: dict[str, Plan]) -> None:
    a, b = loaded["deepseek_v3.hf5"], metaplan.normalize(loaded["deepseek_v3.hf5"]).plan
    record = diff(a, b)
    data = read_report_data(diff_report(record))
    assert sorted(g.get("modules") or g.get("paths") or g.get("items")
                  for g in data["groups"].values()) == sorted(g.pattern
                                                              for g in fold_changes(record))
    assert list(records_from_json(data["records"])) == [record]  # small: the records travel along


def test_deepseek_v3_against_its_normal_form_is_small_and_the_same_every_time() -> None:
    a = metaplan.load(fixture_path("deepseek_v3.hf4"))
    b = metaplan.load(str(fixture_path("deepseek_v3.hf4")).replace(".json.gz",
                                                                   ".expected.json.gz"))
    record = diff(a, b)
    assert len(record) == 29_990
    page = diff_report(record, labels=("a", "b"), before=a, after=b)
    assert len(page.encode()) < 5_000_000
    assert page == diff_report(diff(a, b), labels=("a", "b"), before=a, after=b)
    data = read_report_data(page)
    assert data["records"] is None and "29,990 changes" in data["records_omitted"]
    biggest = max(data["groups"].values(), key=lambda g: g["count"])
    assert biggest["count"] == 14_906 == len(biggest["members"])
    assert "and 42 more rows (10,794 modules)" in page  # 16 of 58 rows shown, then "N more"
    # a brace pattern is shown as the folded text shows it: its braces are the pattern's
    assert ('<code class="pattern">model.layers.{3..60}.mlp.{experts.{0..255},shared_experts}'
            "</code>") in page
    assert "<li><code>model.layers.3.mlp.{experts.{0..255},shared_experts}</code>" in page
    assert "<svg" in page and "changed: 15,026 modules" in page
    assert data["unchanged"]["count"] == 63 and "63 unchanged modules in 3 groups" in page


def test_no_numbered_structure_no_picture() -> None:
    a, b = _plans(["encoder", "decoder"])
    assert "No picture: the plan has no numbered structure" in diff_report(
        diff(a, b), before=a, after=b)


def test_the_reader_refuses_what_is_no_report() -> None:
    with pytest.raises(metaplan.InputError, match="no metaplan report data"):
        read_report_data("<html></html>")
    with pytest.raises(metaplan.InputError, match="format 'other'"):
        read_report_data(data_script({"format": "other"}))


def test_member_rows_fold_by_prefix() -> None:
    names = [f"model.layers.{i}.mlp.experts.{e}" for i in range(3, 5) for e in range(4)]
    assert member_rows(names) == [("model.layers.3.mlp.experts.{0..3}", 4),
                                  ("model.layers.4.mlp.experts.{0..3}", 4)]


def test_the_run_report_without_times_is_the_same_every_time(loaded: dict[str, Plan]) -> None:
    line = build_pipeline(NORMALIZE)
    first = run_report(line.run(loaded["deepseek_v3.hf5"]), seconds=False)
    assert first == run_report(line.run(loaded["deepseek_v3.hf5"]), seconds=False)
    data = read_report_data(first)
    assert [p["changes"] for p in data["passes"]] == [232, 0, 120]
    assert "1 pass changed nothing" in first
    shared = next(g for g in data["groups"].values()
                  if "model.layers.3.mlp.shared_experts" in g.get("members", ())
                  and "history" in g)
    trace = line.run(loaded["deepseek_v3.hf5"])
    assert [s["pass"] for s in shared["steps"]] == [
        name for name, _ in trace.explain_module("model.layers.3.mlp.shared_experts")]


def test_diff_and_normalize_write_html(tmp_path: object) -> None:
    from pathlib import Path
    folder = Path(str(tmp_path))
    plan, out = fixture_path("deepseek_v3.hf5"), folder / "out.json"
    done = metaplan_cli("normalize", plan, "-o", out, "--report", folder / "run.html")
    assert done.returncode == 0, done.stderr
    assert read_report_data((folder / "run.html").read_bytes())["report"] == "run"
    done = metaplan_cli("diff", plan, out, "--format", "html")
    assert done.returncode == 1 and done.stdout.startswith(b"<!DOCTYPE html>")
    assert read_report_data(done.stdout)["summary"].startswith("352 changes")
    done = metaplan_cli("normalize", plan, "-o", out, "--report", plan)
    assert done.returncode == 2 and b"--report names the input PLAN" in done.stderr


def test_verify_and_merge_reports(tmp_path: object) -> None:
    from pathlib import Path
    folder = Path(str(tmp_path))
    _, ours, theirs = merge_sides()
    for name, plan in (("ours", ours), ("theirs", theirs)):
        metaplan.dump(plan, folder / f"{name}.json")
    done = metaplan_cli("verify", folder / "theirs.json", "--format", "html")
    assert done.returncode == 1
    data = read_report_data(done.stdout)
    assert data["summary"].endswith("41 violations in 2 groups; 2 notes")
    assert len(data["violations"]) == 41
    done = metaplan_cli("merge", fixture_path("deepseek_v3.hf5"), folder / "ours.json",
                        folder / "theirs.json", "--format", "html", "-o", folder / "m.html")
    assert done.returncode == 1, done.stderr
    data = read_report_data((folder / "m.html").read_bytes())
    (conflict,) = [g for g in data["groups"].values() if "conflict" in g]
    assert conflict["count"] == 40 and conflict == {**conflict, "ours": False, "theirs": True}
    assert conflict["conflict"] == 'param_plan["model.layers.{{0..4},{10..44}}.mlp"]' \
        ".skip_source_lowering"
    assert len(data["conflicts"]) == 40 and data["summary"].startswith("40 conflicts in 1 group")
    done = metaplan_cli("verify", fixture_path("deepseek_v3.hf5"), "--format", "html")
    assert done.returncode == 0 and b"ok; 2 notes" in done.stdout


def test_notebook_views_are_small_and_change_nothing_else() -> None:
    plan = metaplan.load(fixture_path("deepseek_v3.hf4"))
    before = (hash(plan), plan.content_hash)
    result = metaplan.normalize(plan)
    merged = merge(plan, plan, result.plan)
    record = diff(plan, result.plan)
    for value in (plan, record, result.trace, merged, verification(plan)):
        bundle = value._repr_mimebundle_()
        assert set(bundle) == {"text/plain", "text/html", "application/json"}
        assert len(bundle["text/html"].encode()) < 200_000
        assert "<script" not in bundle["text/html"]
        json.dumps(bundle["application/json"])
        only = value._repr_mimebundle_(include=["text/plain"], exclude=None)
        assert only.keys() == {"text/plain"}
    assert (hash(plan), plan.content_hash) == before and plan == metaplan.load(
        fixture_path("deepseek_v3.hf4"))
    assert "_repr_mimebundle_" not in Plan.__slots__
    assert record._repr_mimebundle_()["text/plain"] == format_folded(record).rstrip("\n")
    assert "<code>model.layers.{{0..2}.mlp,{3..60}.mlp.{experts.{0..255},shared_experts}}" \
        "</code>" in plan._repr_mimebundle_()["text/html"]
    with pytest.raises(TypeError, match="no notebook view of int"):
        mimebundle(3)


def test_the_unchanged_modules_are_folded_behind_a_closed_details(loaded: dict[str, Plan]
                                                                  ) -> None:
    a = loaded["deepseek_v3.hf5"]
    b = metaplan.normalize(a).plan
    record = diff(a, b)
    page = diff_report(record, before=a, after=b)
    same = read_report_data(page)["unchanged"]
    assert same["count"] == 63
    assert sorted((g["modules"], g["count"], g["class"]) for g in same["groups"].values()) == [
        ("lm_head", 1, "Linear"), ("model.embed_tokens", 1, "Embedding"),
        ("model.layers.{0..60}.self_attn", 61, "DeepseekV3Attention")]
    assert "model.layers.3.self_attn" in next(
        g["members"] for g in same["groups"].values() if g["count"] == 61)
    outside = _text_outside_data(page)
    assert '<details id="unchanged-list"><summary>63 unchanged modules in 3 groups' in outside
    assert 'id="show-unchanged"' in outside
    changed = {m for g in read_report_data(page)["groups"].values() for m in g.get("members", ())}
    assert not changed & {m for g in same["groups"].values() for m in g["members"]}
    alone = diff_report(record)  # without the plans: no section, no box
    assert 'id="unchanged"' not in alone and 'id="show-unchanged"' not in alone
    assert "unchanged" not in read_report_data(alone)


def test_a_history_of_changes_without_a_why() -> None:
    a, b = _plans(["enc", "dec"])
    trace = Trace.start(a).then("flip", b, diff(a, b))  # a diff's changes say no why
    data = read_report_data(run_report(trace, check=None))
    (history,) = [g for g in data["groups"].values() if "history" in g]
    assert history["history"] == "{dec,enc}" and history["count"] == 2
    assert {step["why"] for step in history["steps"]} == {""}
