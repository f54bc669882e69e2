"""The run report: through the real command line, the same bytes on every run unless the
times are asked for (``--report-times``); a picture of each pass that changed something."""

from __future__ import annotations

from pathlib import Path

import metaplan
from conftest import fixture_path, metaplan_cli
from metaplan.core.plan import Plan
from metaplan.passes.registry import NORMALIZE, build_pipeline
from metaplan.passes.trace import Trace
from metaplan.versions.diffing import diff
from metaplan.versions.folding import FQN_FIELDS
from metaplan.views.html import read_report_data, run_report


def _report(folder: Path, name: str, *options: str) -> bytes:
    plan = fixture_path("deepseek_v3.hf5")
    done = metaplan_cli("normalize", plan, "-o", folder / f"{name}.json", "--report",
                        folder / f"{name}.html", "-q", *options)
    assert done.returncode == 0, done.stderr
    return (folder / f"{name}.html").read_bytes()


def test_two_runs_write_the_same_report_and_times_only_on_request(tmp_path: Path) -> None:
    first, second = _report(tmp_path, "one"), _report(tmp_path, "two")
    assert first == second
    assert b"<th>ms</th>" not in first
    assert all("seconds" not in p for p in read_report_data(first)["passes"])
    timed = _report(tmp_path, "timed", "--report-times")
    assert b"<th>ms</th>" in timed
    passes = read_report_data(timed)["passes"]
    assert [p["pass"] for p in passes] == [p["pass"] for p in read_report_data(first)["passes"]]
    assert all(isinstance(p["seconds"], float) and p["seconds"] >= 0 for p in passes)


def test_report_times_without_a_report_is_refused(tmp_path: Path) -> None:
    done = metaplan_cli("normalize", fixture_path("deepseek_v3.hf5"), "-o",
                        tmp_path / "out.json", "--report-times")
    assert done.returncode == 2
    assert b"--report-times puts the times in the --report page" in done.stderr
    assert not (tmp_path / "out.json").exists()


def _picture_of_pass(page: str, number: int) -> str:
    start = page.index(f'<details class="pass-picture" id="pass-{number}-picture" open>')
    return page[start:page.index("</details>", start)]


def test_each_pass_that_changed_something_has_its_own_picture(
        loaded: dict[str, Plan]) -> None:
    trace = build_pipeline(NORMALIZE).run(loaded["deepseek_v3.hf5"])
    page = run_report(trace)
    assert [len(r) for r in trace.records] == [232, 0, 120]
    assert 'id="pass-2-picture"' not in page  # changed nothing: no picture
    assert page.count("<svg xmlns") == 3  # passes 1 and 3, and the whole run
    for number in (1, 3):
        picture = _picture_of_pass(page, number)
        record = trace.records[number - 1]
        touched = {c.path[1] for c in record.changes if c.path[0] in FQN_FIELDS}
        assert picture.startswith(f'<details class="pass-picture" id="pass-{number}-picture" '
                                  f"open><summary>Picture of what pass {number} "
                                  f"({trace.passes[number - 1]}) did: {len(touched)} modules")
        assert "<svg" in picture and f"changed: {len(touched)} modules" in picture
        assert "added: 0 modules" in picture and "removed: 0 modules" in picture
    assert _picture_of_pass(page, 1) != _picture_of_pass(page, 3)


def test_a_plan_without_numbered_layers_gets_one_sentence() -> None:
    a = Plan.from_json({"param_plan": {n: {"is_boundary": True} for n in ("enc", "dec")}})
    b = Plan.from_json({"param_plan": {n: {"is_boundary": False} for n in ("enc", "dec")}})
    page = run_report(Trace.start(a).then("flip", b, diff(a, b)), check=None)
    assert "pass-picture" not in page and "<svg xmlns" not in page
    assert page.count("No picture: the plan has no numbered structure") == 1


def test_the_run_report_of_deepseek_v3_hf4_stays_small() -> None:
    trace = build_pipeline(NORMALIZE).run(metaplan.load(fixture_path("deepseek_v3.hf4")))
    page = run_report(trace).encode()
    assert len(page) < 5_000_000
    assert page.count(b"<svg xmlns") == 1 + sum(1 for r in trace.records if len(r))
