"""A diff shows the plans' provenance (signature, codegen_version, source, outputs) in its
header, not as changes, unless asked (``--show-provenance``); machine formats keep every change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import metaplan_cli as run
from metaplan.records.edit import apply_changes
from metaplan.settings import PROVENANCE
from metaplan.testing import plan_dicts
from metaplan.versions.diffing import diff
from metaplan.versions.ignoring import split_provenance
from metaplan.views.html import read_report_data

Raw = dict[str, Any]


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    a: Raw = {"param_plan": {"m": {"is_boundary": True}}, "signature": "aaa",
              "codegen_version": "1", "source": {"transformers": "4.57.6", "x": 1},
              "outputs": {"modeling.py": "h1"}, "model_type": "x"}
    b: Raw = {"param_plan": {"m": {"is_boundary": False}}, "signature": "bbb",
              "codegen_version": "1", "source": {"transformers": "5.24.0", "x": 1},
              "outputs": {"modeling.py": "h2", "parallel.py": "h3"}, "model_type": "x"}
    paths = tmp_path / "a.json", tmp_path / "b.json"
    for path, raw in zip(paths, (a, b), strict=True):
        path.write_text(json.dumps(raw))
    return paths


def test_the_text_diff_shows_provenance_in_its_header(tmp_path: Path) -> None:
    a, b = _pair(tmp_path)
    done = run("diff", a, b, "--label", "A", "--label", "B")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines[2:] == [
        "1 change: 1 module in 1 group, 0 top-level changes; provenance: 4 changes",
        "(provenance)",
        '  ~ outputs["modeling.py"]: "h1" -> "h2"',
        '  + outputs["parallel.py"]: "h3"',
        '  ~ signature: "aaa" -> "bbb"',
        '  ~ source.transformers: "4.57.6" -> "5.24.0"',
        "m",
        "  ~ is_boundary: true -> false",
    ]
    shown = run("diff", a, b, "--show-provenance").stdout.decode().splitlines()
    assert shown[2] == "5 changes: 1 module in 1 group, 4 top-level changes"
    assert "(provenance)" not in shown and "(top level)" in shown
    assert '  ~ signature: "aaa" -> "bbb"' in shown


def test_the_header_hashes_are_the_plans_and_a_provenance_only_change_still_differs(
        tmp_path: Path) -> None:
    a, _ = _pair(tmp_path)
    raw = json.loads(a.read_text())
    raw["signature"] = "ccc"
    c = tmp_path / "c.json"
    c.write_text(json.dumps(raw))
    done = run("diff", a, c)
    assert done.returncode == 1
    lines = done.stdout.decode().splitlines()
    hashes = run("hash", a, c).stdout.decode().split()
    assert lines[0].endswith(hashes[0]) and lines[1].endswith(hashes[2])
    assert lines[2] == ("0 changes: 0 modules in 0 groups, 0 top-level changes; "
                        "provenance: 1 change")
    assert run("diff", a, a).returncode == 0


def test_groups_list_provenance_apart_and_machine_formats_keep_every_change(
        tmp_path: Path) -> None:
    a, b = _pair(tmp_path)
    groups = json.loads(run("diff", a, b, "--format", "groups").stdout)
    assert groups["changes"] == 1
    assert [(c["path"], c["op"]) for c in groups["provenance"]] == [
        (["outputs", "modeling.py"], "set"), (["outputs", "parallel.py"], "add"),
        (["signature"], "set"), (["source", "transformers"], "set")]
    records = tmp_path / "r.json"
    assert run("diff", a, b, "--format", "json", "-o", records).returncode == 1
    assert len(json.loads(records.read_text())["records"][0]["changes"]) == 5
    replayed = tmp_path / "b2.json"
    assert run("replay", a, records, "-o", replayed).returncode == 0
    assert run("hash", replayed).stdout.split()[0] == run("hash", b).stdout.split()[0]
    patch = json.loads(run("diff", a, b, "--format", "jsonpatch").stdout)
    assert {op["path"].split("/")[1] for op in patch} == {"param_plan", *PROVENANCE} - {
        "codegen_version"}


def test_an_ignored_provenance_field_leaves_the_header_too(tmp_path: Path) -> None:
    a, b = _pair(tmp_path)
    lines = run("diff", a, b, "--ignore", "source").stdout.decode().splitlines()
    assert lines[2] == ("1 change: 1 module in 1 group, 0 top-level changes; provenance: 3 "
                        "changes; ignored 1 change (--ignore source)")
    assert not any("transformers" in line for line in lines)
    volatile = run("diff", a, b, "--ignore-volatile").stdout.decode().splitlines()
    assert volatile[2].endswith("; ignored 4 changes (--ignore-volatile)")
    assert "(provenance)" not in volatile


def test_the_html_diff_carries_provenance_in_its_header_and_data(tmp_path: Path) -> None:
    a, b = _pair(tmp_path)
    page = run("diff", a, b, "--format", "html").stdout.decode()
    assert ("provenance: <code>~ outputs[&quot;modeling.py&quot;]: &quot;h1&quot; -&gt; "
            "&quot;h2&quot;</code><br><code>+ outputs") in page
    data = read_report_data(page)
    assert data["summary"].endswith("; provenance: 4 changes")
    assert len(data["provenance"]) == 4
    assert len(data["records"]["records"][0]["changes"]) == 1


def test_git_diff_shows_provenance_in_its_header(tmp_path: Path) -> None:
    a, b = _pair(tmp_path)
    done = run("git-diff", "p.json", a, "1" * 40, "100644", b, "2" * 40, "100644")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines[3].endswith("; provenance: 4 changes") and lines[4] == "(provenance)"
    hashes = run("hash", a, b).stdout.decode().split()
    assert lines[1].endswith(hashes[0]) and lines[2].endswith(hashes[2])


@given(plan_dicts(), plan_dicts(), st.sampled_from(PROVENANCE), st.integers(0, 3))
def test_split_provenance_keeps_a_record_that_replays(x: Raw, y: Raw, field: str,
                                                      value: int) -> None:
    """The kept changes applied to A give B with A's provenance, whose hash is the record's
    result; the kept and the left-out changes together are the whole diff."""
    y = {**y, field: {"v": value}}
    a, b = metaplan.Plan.from_json(x), metaplan.Plan.from_json(y)
    whole = diff(a, b)
    record, left_out = split_provenance(a, b, whole)
    assert apply_changes(a, record.changes).content_hash == record.result
    assert all(c.path[0] in PROVENANCE for c in left_out)
    assert not any(c.path and c.path[0] in PROVENANCE for c in record.changes)
    assert sorted(map(repr, (*record.changes, *left_out))) == sorted(map(repr, whole.changes))
    assert (record.result == whole.result) == (not left_out)
