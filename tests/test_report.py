"""The text reports: diff summaries, explanations and stats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import metaplan
from conftest import fixture_path, metaplan_cli
from metaplan.views.text import format_diff, format_explain, format_stats


def test_text_reports() -> None:
    result = metaplan.normalize(metaplan.load(fixture_path("deepseek_v3.hf5")))
    text = format_diff(metaplan.diff(result.trace.input, result.plan))
    assert text.startswith("352 changes: 236 modules (352 changes), 0 top-level changes\n")
    assert "\nmodel.layers.3.mlp\n  ~ is_boundary: true -> false\n  - class: \"DeepseekV3MoE\"\n" \
        in text
    assert text.index("\nmodel.layers.9.mlp\n") < text.index("\nmodel.layers.10.mlp\n")
    limited = format_diff(metaplan.diff(result.trace.input, result.plan), limit=2)
    assert limited.endswith("... and 234 more modules\n")
    told = format_explain(result.trace, ["model.layers.3.mlp.shared_experts", "lm_head"])
    assert told.splitlines()[:3] == [
        "model.layers.3.mlp.shared_experts",
        "  1. strip_ep_sub_boundaries: ~ is_boundary: true -> false",
        "     why: sub-module of EP target model.layers.3.mlp (DeepseekV3MoE) matching strip "
        "pattern 'shared_experts'"]
    assert told.endswith("lm_head: no pass changes it\n")
    stats = format_stats(result.trace, [("load", 0.5), ("dump", 0.25), ("dump", 0.25)])
    lines = stats.splitlines()
    assert lines[1].split()[:3] == ["strip_ep_sub_boundaries", "232", "116"]
    assert lines[-2].split() == ["dump", "500.0"]
    assert lines[-1].split()[:2] == ["total", "352"]


def _pair(tmp_path: Path, fqn: str) -> tuple[Path, Path]:
    paths = []
    for name, flag, model in (("a", True, "x"), ("b", False, "y")):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"model_type": model,
                                    "param_plan": {fqn: {"is_boundary": flag}}}))
        paths.append(path)
    return paths[0], paths[1]


@pytest.mark.parametrize("expand", [False, True])
def test_a_module_named_like_report_syntax_is_quoted_and_filed_as_a_module(
        expand: bool, tmp_path: Path) -> None:
    for fqn in ("(top level)", "+ evil: 1", "--- a", "two words"):
        a, b = _pair(tmp_path, fqn)
        done = metaplan_cli("diff", a, b, *(["--expand"] if expand else []))
        assert done.returncode == 1, done.stderr
        lines = done.stdout.decode().splitlines()[2:]
        summary = ("2 changes: 1 module (1 change), 1 top-level change" if expand else
                   "2 changes: 1 module in 1 group, 1 top-level change")
        assert lines == [summary, "(top level)", '  ~ model_type: "x" -> "y"',
                         json.dumps(fqn), "  ~ is_boundary: true -> false"]


def test_a_label_or_file_name_holding_a_newline_is_quoted_in_the_header(tmp_path: Path
                                                                         ) -> None:
    a, b = _pair(tmp_path, "m")
    evil = tmp_path / "b\n+++ b"
    evil.write_bytes(b.read_bytes())
    done = metaplan_cli("diff", a, evil, "--label", "x\n+++ b/evil", "--ignore", "q\n+ r")
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith('--- "x\\n+++ b/evil"  sha256:')
    assert lines[1].startswith(f'+++ "{tmp_path}/b\\n+++ b"  sha256:')
    assert lines[2].endswith("; ignored 0 changes (--ignore q\\n+ r)")
    assert [line[:1] for line in lines[3:]] == ["(", " ", "m", " "]


def test_an_ignore_glob_with_an_unclosed_bracket_is_refused(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, "m.1")
    done = metaplan_cli("diff", a, b, "--ignore", "param_plan/m.[12")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (
        'metaplan diff: error: --ignore param_plan/m.[12: invalid glob pattern "m.[12": the '
        "'[' at 2 is never closed by ']' (an unclosed '[' matches a literal bracket, and no "
        "FQN has one)\n")
