"""The run report through the real command line: the same bytes on every run unless the
times are asked for (``--report-times``)."""

from __future__ import annotations

from pathlib import Path

from conftest import fixture_path, metaplan_cli
from metaplan.html import read_report_data


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
