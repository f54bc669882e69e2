"""The text reports: diff summaries, explanations and stats."""

from __future__ import annotations

import metaplan
from conftest import fixture_path
from metaplan.report import format_diff, format_explain, format_stats


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
