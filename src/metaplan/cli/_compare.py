"""``metaplan compare``: two versions of a pipeline on one plan; where do they part ways?"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from metaplan.cli._common import option_of, pipeline_from
from metaplan.cli._diff import record_text
from metaplan.cli._io import colour, json_name, note, output
from metaplan.cli._style import text_style
from metaplan.core.plan import load
from metaplan.files.jsonio import dumps_pretty
from metaplan.passes.registry import parse_passes
from metaplan.records.codec import records_to_json
from metaplan.versions.comparing import compare as compare_pipelines
from metaplan.versions.diffing import diff
from metaplan.views.text import format_folded, plural

__all__ = ["compare"]

_OPTIONS = ("specs", "rules", "model_type", "passes")


def _settings(args: argparse.Namespace, prefix: str) -> str:
    """One pipeline's options, as the user gave them (B's falling back to A's)."""
    words = [option_of(args, "passes", prefix) or "normalize"]
    for option in ("specs", "rules", "model_type"):
        value = option_of(args, option, prefix)
        if value is not None:
            words.append(f"--{option.replace('_', '-')} {value}")
    return " ".join(words)


def _same_settings(args: argparse.Namespace) -> bool:
    """Whether B's settings are A's: the same passes (however spelled), files and model type."""
    passes = [parse_passes(option_of(args, "passes", prefix) or "normalize")
              for prefix in ("", "against_")]
    return passes[0] == passes[1] and all(
        option_of(args, option, "") == option_of(args, option, "against_")
        for option in ("specs", "rules", "model_type"))


def compare(args: argparse.Namespace) -> int:
    """Exit 0 when the two pipelines agree after every pass, 1 when not."""
    plan = load(args.plan)
    notes: list[str] = []  # printed once both pipelines are built: an error comes alone
    first, second = pipeline_from(args, notes=notes), pipeline_from(args, "against_",
                                                                    notes=notes)
    for said in dict.fromkeys(notes):
        note(args, said)
    if all(getattr(args, f"against_{option}") is None for option in _OPTIONS):
        note(args, "note: no --against-* option was given, so B runs what A runs")
    elif _same_settings(args):
        note(args, "note: the --against-* options name A's own settings, so B runs what A "
                   "runs")
    found = compare_pipelines(plan, first, second)
    finals = diff(found.a.final, found.b.final)
    heading: dict[str, Any] = {"plan": json_name(args.plan), "a": _settings(args, ""),
                               "b": _settings(args, "against_"), "same": found.state is None}
    if found.state is not None:
        heading["first_difference"] = {"state": found.state, "pass_a": found.pass_a,
                                       "pass_b": found.pass_b}
    heading["final_plans_differ_by"] = len(finals)
    if args.format == "json":
        if found.diff is not None:
            heading["records"] = records_to_json([found.diff])
            heading["final_records"] = records_to_json([finals])
        output(args, dumps_pretty(heading) + b"\n")
        return 0 if found.state is None else 1
    text = f"A: {heading['a']}\nB: {heading['b']}\n"
    if found.state is None or found.diff is None:
        output(args, (text + f"same: after every pass (A: {len(first)}, B: {len(second)}), "
                             f"ending at {found.a.final.content_hash}\n").encode())
        return 0
    where = f"after pass {found.state}: A ran {found.pass_a}, B ran {found.pass_b}"
    ending = ("the final plans are the same" if finals.is_noop
              else f"the final plans differ by {plural(len(finals), 'change')}")
    text += f"first difference {where}; {ending}\n"
    style = text_style(args, found.a.final, found.b.final)
    shown = record_text(found.diff, args.format, ("A", "B"), painted=colour(args), shown=style)
    if args.format != "text":  # the output is for tools: the summary goes to stderr
        print(text, end="", file=sys.stderr)
        output(args, shown)
        return 1
    if not finals.is_noop and found.state < max(len(first), len(second)):
        shown += (f"the final plans (A after {len(first)} passes, B after {len(second)}):\n"
                  + format_folded(finals, style=style)).encode("utf-8", "surrogateescape")
    output(args, text.encode("utf-8", "surrogateescape") + shown)
    return 1
