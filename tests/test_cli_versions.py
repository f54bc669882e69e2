"""Versions on the command line: ignore lists, and the everyday conveniences (stdin and
``-o -``, labels, colour, JSON for explain/bisect/hash/compare, ``show``)."""

from __future__ import annotations

import gzip
import json
import os
import pty
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import DATA, fixture_path, metaplan_cli
from metaplan.algorithms.braces import natural_key
from metaplan.core.plan import Plan
from metaplan.records.codec import records_from_json
from metaplan.settings import VOLATILE
from metaplan.testing import plan_pairs, versioned_plan_dicts
from metaplan.versions.diffing import diff
from metaplan.versions.folding import FQN_FIELDS
from metaplan.versions.ignoring import parse_ignores, split_ignored
from metaplan.views.text import format_flat

HF4, HF5 = fixture_path("deepseek_v3.hf4"), fixture_path("deepseek_v3.hf5")
SMALL, SMALL_NORMAL = HF5, DATA / "deepseek_v3.hf5.expected.json.gz"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _raw(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    return data


def _run(*args: object, stdin: bytes | None = None, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "metaplan", *map(str, args)], input=stdin,
                          capture_output=True, timeout=120, check=False, env=env)


def _write(path: Path, meta: dict[str, Any]) -> Path:
    path.write_text(json.dumps(meta, indent=2, sort_keys=True))
    return path


# ignore lists ---------------------------------------------------------------------------------


def test_ignore_volatile_leaves_out_what_every_regeneration_changes_and_says_so() -> None:
    done = metaplan_cli("diff", HF4, HF5, "--ignore-volatile")
    assert done.returncode == 1
    lines = done.stdout.decode().splitlines()
    assert lines[2] == ("74,472 changes: 14,906 modules in 2 groups, 44,660 top-level changes; "
                        "ignored 2 changes (--ignore-volatile)")
    assert not any("signature" in line or "source." in line for line in lines)


def test_ignore_takes_globs_and_json_pointers_and_names_each_in_the_summary() -> None:
    done = metaplan_cli("diff", HF4, HF5, "--ignore", "frozen_sharded_params",
                        "--ignore", "/boundary_classes/model.layers.*.mlp.experts.*",
                        "--ignore", "param_plan/*.experts.*", "--ignore-volatile")
    assert done.returncode == 1
    assert done.stdout.decode().splitlines()[2:] == [
        "116 changes: 58 modules in 1 group, 0 top-level changes; ignored 74,358 changes "
        "(--ignore frozen_sharded_params, --ignore /boundary_classes/model.layers.*.mlp."
        "experts.*, --ignore param_plan/*.experts.*, --ignore-volatile)",
        "model.layers.{3..60}.mlp.experts  (58 modules)",
        '  + entry: {"is_boundary":false,"params":{"down_proj":{"ep":"S(0)"},"gate_up_proj":'
        '{"ep"...',
        '  + class: "DeepseekV3Experts"',
    ]
    everything = metaplan_cli("diff", HF4, HF5, "--ignore", "*", "--format", "groups")
    assert everything.returncode == 0
    out = json.loads(everything.stdout)
    assert (out["changes"], out["groups"], out["ignored"]) == (
        0, [], "ignored 74,474 changes (--ignore *)")


def test_an_ignoring_record_replays_on_a_to_a_without_what_it_ignored(tmp_path: Path) -> None:
    a = _raw(SMALL)
    b = _raw(SMALL_NORMAL)  # normalize's edits, and a regeneration's
    b.update(signature="0" * 64, codegen_version="9", source={"transformers": "9.9"})
    b_path = _write(tmp_path / "b.json", b)
    rec, out = tmp_path / "rec.json", tmp_path / "out.json"
    args = ("diff", SMALL, b_path, "--ignore-volatile", "--ignore", "param_plan")
    done = metaplan_cli(*args, "--format", "json", "-o", rec)
    assert done.returncode == 1
    assert metaplan_cli("replay", SMALL, rec, "-o", out).returncode == 0
    expected = {**b, **{field: a[field] for field in ("param_plan", *VOLATILE) if field in a}}
    assert metaplan.load(out) == Plan.from_json(expected)
    patch = metaplan_cli(*args, "--format", "jsonpatch")
    assert jsonpatch.apply_patch(a, json.loads(patch.stdout)) == metaplan.load(out).to_json()
    text = metaplan_cli(*args).stdout.decode().splitlines()
    assert text[2] == ("116 changes: 116 modules in 2 groups, 0 top-level changes; ignored 240 "
                       "changes (--ignore param_plan, --ignore-volatile)")


def test_ignoring_an_added_array_item_renumbers_the_kept_ones(tmp_path: Path) -> None:
    a = _raw(SMALL)
    b = json.loads(json.dumps(a))
    for i in (3, 4, 5):
        b["injections"][i]["ep_size"] = 16
    b["injections"].insert(0, {"match": "model.layers.99.mlp", "ep_size": 4})
    del b["injections"][12]
    a_path, b_path = _write(tmp_path / "a.json", a), _write(tmp_path / "b.json", b)
    rec, out = tmp_path / "rec.json", tmp_path / "out.json"
    done = metaplan_cli("diff", a_path, b_path, "--ignore", "injections/0", "--format", "json",
                        "-o", rec)
    assert done.returncode == 1, done.stderr
    assert metaplan_cli("replay", a_path, rec, "-o", out).returncode == 0
    assert json.loads(out.read_text())["injections"] == b["injections"][1:]
    text = metaplan_cli("diff", a_path, b_path, "--ignore", "injections/0").stdout.decode()
    assert text.splitlines()[2:] == [
        "4 changes: 0 modules in 0 groups, 4 top-level changes; ignored 1 change "
        "(--ignore injections/0)",
        "(top level)",
        "  ~ injections[{3..5}].ep_size: 8 -> 16  (3 changes)  (match: model.layers.{6..8}.mlp)",
        '  - injections[11]: {"ep_size":8,"ep_stack":["tp"],"local_compute_fn":'
        '{"_target_":"hyper_parallel...  (match: model.layers.14.mlp)',
    ]


@pytest.mark.parametrize(("pattern", "why"), [
    ("", b"--ignore: an empty path; write field/FQN/key, e.g. "
         b"param_plan/model.layers.3.mlp/is_boundary (or a JSON Pointer, "
         b"/param_plan/model.layers.3.mlp/is_boundary, for empty keys)"),
    ("/", b"--ignore: an empty pattern would ignore everything; name a field"),
])
def test_an_empty_ignore_pattern_is_refused(pattern: str, why: bytes) -> None:
    done = metaplan_cli("diff", SMALL, SMALL_NORMAL, "--ignore", pattern)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == b"metaplan diff: error: " + why + b"\n"


def test_ignored_array_removals_renumber_the_kept_changes(tmp_path: Path) -> None:
    a = _raw(SMALL)
    b = json.loads(json.dumps(a))
    b["injections"] = [item for i, item in enumerate(b["injections"]) if i not in (0, 2, 5)]
    b["injections"][3]["ep_size"] = 32  # a[6]
    a_path, b_path = _write(tmp_path / "a.json", a), _write(tmp_path / "b.json", b)
    rec, out = tmp_path / "rec.json", tmp_path / "out.json"
    # a record's array edits apply in order: a[0] goes at 0, a[2] then at 1, a[5] at 3
    done = metaplan_cli("diff", a_path, b_path, "--ignore", "injections/0", "--format", "json",
                        "-o", rec)
    assert done.returncode == 1, done.stderr
    paths = [change["path"] for change in json.loads(rec.read_text())["records"][0]["changes"]]
    assert paths == [["injections", 2], ["injections", 4], ["injections", 4, "ep_size"]]
    assert metaplan_cli("replay", a_path, rec, "-o", out).returncode == 0
    expected = json.loads(json.dumps(a["injections"]))
    expected[6]["ep_size"] = 32
    assert json.loads(out.read_text())["injections"] == [
        item for i, item in enumerate(expected) if i not in (2, 5)]


_PATTERNS = st.lists(st.sampled_from((
    "injections/0", "injections/1", "injections/*/ep_size", "/injections/*/ep_stack/0",
    "frozen_sharded_params/1*", "frozen_sharded_params", "external_state_classes/0",
    "param_plan/*/out_names/0", "param_plan/model.layers.*.mlp*", "boundary_classes/*.experts.*",
    "module_overrides/1", "codegen_version", "/param_plan/*/is_boundary", "model_type")),
    min_size=1, max_size=3)


def _places(changes: Any) -> set[tuple[Any, ...]]:
    """Where changes land: a module of an FQN map, or a top-level field."""
    return {c.path[:2] if c.path[0] in FQN_FIELDS and len(c.path) > 1 else c.path[:1]
            for c in changes}


@given(plan_pairs(), _PATTERNS)
def test_an_ignoring_record_keeps_b_where_nothing_is_ignored_and_a_where_all_is(
        pair: tuple[dict[str, Any], dict[str, Any]], patterns: list[str]) -> None:
    a, b = Plan.from_json(pair[0]), Plan.from_json(pair[1])
    record = diff(a, b)
    kept, dropped = split_ignored(a, record, parse_ignores(patterns))
    assert len(kept) + len(dropped) == len(record)
    result = metaplan.replay(a, [kept])
    ignored, changed = _places(dropped), _places(kept.changes)
    for place in _places(record.changes):
        if place not in ignored:
            assert metaplan.thaw(result.at(place)) == metaplan.thaw(b.at(place)), place
        if place not in changed:
            assert metaplan.thaw(result.at(place)) == metaplan.thaw(a.at(place)), place


# stdin, -o -, labels ------------------------------------------------------------------------


def test_dash_reads_a_plan_from_stdin_wherever_a_plan_is_read(tmp_path: Path) -> None:
    plan = gzip.decompress(SMALL.read_bytes())
    normal = gzip.decompress(SMALL_NORMAL.read_bytes())
    from_file = metaplan_cli("diff", SMALL, SMALL_NORMAL).stdout
    piped = _run("diff", SMALL, "-", stdin=normal)
    assert piped.returncode == 1
    assert piped.stdout.replace(b"+++ -  ", b"+++ X  ") == \
        from_file.replace(f"+++ {SMALL_NORMAL}  ".encode(), b"+++ X  ")
    normalized = _run("normalize", "-", "-o", "-", stdin=plan)
    assert normalized.returncode == 0 and normalized.stdout == normal
    assert _run("hash", "-", stdin=plan).stdout.decode() == \
        f"{metaplan.load(SMALL).content_hash}  -\n"
    assert _run("show", "-", stdin=normal).stdout == metaplan_cli("show", SMALL_NORMAL).stdout
    explained = _run("explain", "-", "model.layers.0.mlp", stdin=plan)
    assert explained.returncode == 0 and b"mark_shared_class_boundaries" in explained.stdout
    rec = tmp_path / "rec.json"
    metaplan_cli("normalize", SMALL, "-o", os.devnull, "--record", rec, "-q")
    replayed = _run("replay", "-", rec, stdin=plan)
    assert replayed.returncode == 0 and replayed.stdout == normal
    twice = _run("diff", "-", "-", stdin=plan)
    assert twice.returncode == 2 and b"can be read once" in twice.stderr


def test_dash_o_writes_stdout() -> None:
    to_file = metaplan_cli("diff", SMALL, SMALL_NORMAL, "--format", "json")
    dashed = metaplan_cli("diff", SMALL, SMALL_NORMAL, "--format", "json", "-o", "-")
    assert dashed.returncode == to_file.returncode == 1
    assert dashed.stdout == to_file.stdout and dashed.stdout.startswith(b"{")


def test_labels_name_the_sides_in_the_header() -> None:
    done = metaplan_cli("diff", SMALL, SMALL_NORMAL, "--label", "generated",
                        "--label", "normalized")
    head = done.stdout.decode().splitlines()[:2]
    assert head == [f"--- generated  {metaplan.load(SMALL).content_hash}",
                    f"+++ normalized  {metaplan.load(SMALL_NORMAL).content_hash}"]
    one = metaplan_cli("diff", SMALL, SMALL_NORMAL, "--label", "old").stdout.decode()
    assert one.splitlines()[1].startswith(f"+++ {SMALL_NORMAL}  ")
    groups = json.loads(metaplan_cli("diff", SMALL, SMALL_NORMAL, "--label", "x", "--label",
                                     "y", "--format", "groups").stdout)
    assert (groups["a"], groups["b"]) == ("x", "y")
    three = metaplan_cli("diff", SMALL, SMALL_NORMAL, *["--label", "z"] * 3)
    assert three.returncode == 2 and b"--label: give it once for A and once for B" in three.stderr


# colour ----------------------------------------------------------------------------------------


def _on_a_terminal(*args: object, env: dict[str, str]) -> bytes:
    """What the command writes when its standard output is a terminal."""
    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "metaplan", *map(str, args)], stdout=follower,
                          stderr=subprocess.DEVNULL, env=env) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks)


def test_colour_always_never_auto_and_no_color(tmp_path: Path) -> None:
    args = ("diff", SMALL, SMALL_NORMAL)
    plain = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    always = _run(*args, "--color", "always", env=plain).stdout.decode()
    assert "\x1b[32m  + skip_source_lowering: true\x1b[0m" in always
    assert "\x1b[33m  ~ is_boundary: true -> false\x1b[0m" in always
    assert "\x1b[31m  - class: \"DeepseekV3MoE\"\x1b[0m" in always
    text = _run(*args, env=plain).stdout.decode()
    assert ANSI.sub("", always) == text and "\x1b" not in text
    assert "\x1b" not in _run(*args, "--color", "never", env=plain).stdout.decode()
    assert "\x1b[32m" in _run(*args, "--color", "always", env={**plain, "NO_COLOR": "1"}
                              ).stdout.decode()
    assert b"\x1b[32m" in _on_a_terminal(*args, env=plain)
    assert b"\x1b[" not in _on_a_terminal(*args, env={**plain, "NO_COLOR": "1"})
    assert b"\x1b[" not in _on_a_terminal(*args, "--color", "never", env=plain)
    out = tmp_path / "diff.txt"
    _on_a_terminal(*args, "-o", out, env=plain)
    assert "\x1b" not in out.read_text()  # auto colours a terminal, never a file
    rec = tmp_path / "rec.json"
    metaplan_cli("normalize", SMALL, "-o", os.devnull, "--record", rec, "-q")
    assert "\x1b[32m" in _run("show", rec, "--color", "always").stdout.decode()


# JSON for explain, bisect, hash, compare -----------------------------------------------------


def test_explain_json_holds_what_the_text_says() -> None:
    fqns = ("model.layers.3.mlp.shared_experts", "model.layers.0.mlp", "lm_head")
    text = metaplan_cli("explain", SMALL, *fqns).stdout.decode().splitlines()
    found = json.loads(metaplan_cli("explain", SMALL, *fqns, "--format", "json").stdout)
    assert found["plan"] == str(SMALL) and [m["module"] for m in found["modules"]] == list(fqns)
    shared, dense, head = found["modules"]
    assert [(c["pass"], c["op"], c["path"][2:], c.get("old"), c.get("new"))
            for c in shared["changes"]] == [
        ("strip_ep_sub_boundaries", "set", ["is_boundary"], True, False),
        ("strip_ep_sub_boundaries", "remove", [], "DeepseekV3MLP", None)]
    assert shared["changes"][1]["path"] == ["boundary_classes",
                                            "model.layers.3.mlp.shared_experts"]
    assert [c["why"] for c in shared["changes"]] == [line.split("why: ")[1] for line in text[:5]
                                                     if "why: " in line]
    assert dense["changes"][0]["new"] is True and dense["changes"][0]["op"] == "add"
    assert head["changes"] == [] and "lm_head: no pass changes it" in text


def test_bisect_json_holds_what_the_text_says() -> None:
    path = "param_plan/model.layers.0.mlp/skip_source_lowering"
    text = metaplan_cli("bisect", SMALL, "--path", path).stdout.decode()
    done = metaplan_cli("bisect", SMALL, "--path", path, "--format", "json")
    assert done.returncode == 0
    found = json.loads(done.stdout)
    assert (found["found"], found["state"], found["after_pass"]) == (
        True, 3, "mark_shared_class_boundaries")
    assert (found["before"], found["absent_before"], found["after"]) == (None, True, True)
    assert f"state {found['state']}, after pass 3 ({found['after_pass']})" in text
    missing = metaplan_cli("bisect", SMALL, "--path", "nope/x", "--format", "json")
    assert missing.returncode == 1
    assert json.loads(missing.stdout)["absent_everywhere"] is True
    clean = json.loads(metaplan_cli("bisect", SMALL, "--format", "json").stdout)
    assert (clean["found"], clean["states"]) == (False, 4)


def test_hash_json_holds_what_the_text_says() -> None:
    plans = (SMALL, SMALL_NORMAL, fixture_path("llama3_8b.hf4"))
    text = metaplan_cli("hash", *plans).stdout.decode().splitlines()
    found = json.loads(metaplan_cli("hash", *plans, "--format", "json").stdout)
    assert [f"{h['hash']}  {h['plan']}" for h in found["hashes"]] == text
    assert [h["hash"] for h in found["hashes"]] == [metaplan.load(p).content_hash for p in plans]


def test_hash_hashes_what_it_can_and_names_each_plan_it_cannot(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    missing = tmp_path / "missing.json"
    done = metaplan_cli("hash", SMALL, missing, broken, SMALL_NORMAL)
    assert done.returncode == 2
    assert done.stdout.decode().splitlines() == [
        f"{metaplan.load(p).content_hash}  {p}" for p in (SMALL, SMALL_NORMAL)]
    assert done.stderr.decode().splitlines() == [
        f"metaplan hash: error: {missing}: no such file",
        f"metaplan hash: error: {broken}: not valid JSON: Expecting property name enclosed in "
        "double quotes at line 1, column 2"]
    as_json = metaplan_cli("hash", missing, SMALL, "--format", "json")
    assert as_json.returncode == 2 and as_json.stdout.endswith(b"}\n")
    assert [h["plan"] for h in json.loads(as_json.stdout)["hashes"]] == [str(SMALL)]
    none = metaplan_cli("hash", missing)
    assert none.returncode == 2 and none.stdout == b""


@pytest.mark.parametrize("command", [("hash",), ("verify",), ("explain", "lm_head"),
                                     ("bisect",)])
def test_a_json_report_ends_its_last_line(command: tuple[str, ...]) -> None:
    done = metaplan_cli(command[0], SMALL, *command[1:], "--format", "json")
    assert done.stdout.endswith(b"}\n") and not done.stdout.endswith(b"\n\n")


def test_compare_warns_without_against_and_reports_the_final_plans() -> None:
    same = metaplan_cli("compare", SMALL)
    assert same.returncode == 0
    assert b"no --against-* option was given, so B runs what A runs" in same.stderr
    assert same.stdout.decode().splitlines()[2].startswith("same: after every pass (A: 3, B: 3)")
    spelled = metaplan_cli("compare", SMALL, "--against-passes",
                           "strip_ep_sub_boundaries,strip-external-state-boundaries,"
                           "mark-shared-class-boundaries")
    assert spelled.returncode == 0
    assert b"the --against-* options name A's own settings" in spelled.stderr
    done = metaplan_cli("compare", SMALL, "--against-passes", "strip-ep-sub-boundaries")
    assert done.returncode == 1 and done.stderr == b""
    lines = done.stdout.decode().splitlines()
    assert lines[2] == ("first difference after pass 3: A ran mark_shared_class_boundaries, B "
                        "ran (none); the final plans differ by 120 changes")
    found = json.loads(metaplan_cli("compare", SMALL, "--against-passes",
                                    "strip-ep-sub-boundaries", "--format", "json").stdout)
    assert (found["a"], found["b"], found["same"], found["final_plans_differ_by"]) == (
        "normalize", "strip-ep-sub-boundaries", False, 120)
    assert found["first_difference"] == {"state": 3, "pass_a": "mark_shared_class_boundaries",
                                         "pass_b": "(none)"}
    (final,) = records_from_json(found["final_records"])
    b = metaplan.build_pipeline(metaplan.parse_passes("strip-ep-sub-boundaries"))
    assert metaplan.replay(metaplan.load(SMALL_NORMAL), [final]) == b.run(
        metaplan.load(SMALL)).final
    early = metaplan_cli("compare", SMALL, "--against-passes",
                         "strip-ep-sub-boundaries,mark-shared-class-boundaries")
    assert early.stdout.decode().splitlines()[2] == (
        "first difference after pass 2: A ran strip_external_state_boundaries, B ran "
        "mark_shared_class_boundaries; the final plans are the same")


# show ------------------------------------------------------------------------------------------


def _leaves(value: Any) -> list[Any]:
    """Every leaf of a JSON value; an empty object or array is one."""
    if isinstance(value, dict) and value:
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list) and value:
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _check_flat(text: str, meta: dict[str, Any]) -> None:
    lines = text.splitlines()
    assert len(lines) == len(_leaves(meta))
    values = Counter(json.dumps(json.loads(line.split(" = ", 1)[1]), sort_keys=True)
                     for line in lines)
    assert values == Counter(json.dumps(leaf, sort_keys=True) for leaf in _leaves(meta))
    for field in FQN_FIELDS:
        fqns = [json.loads(line[len(field):].split("]", 1)[0] + "]")[0]
                for line in lines if line.startswith(f"{field}[")]
        assert fqns == sorted(fqns, key=natural_key)


@given(versioned_plan_dicts())
def test_show_prints_every_leaf_once_sorted(meta: dict[str, Any]) -> None:
    text = format_flat(Plan.from_json(meta))
    _check_flat(text, meta)
    shuffled = {key: meta[key] for key in reversed(list(meta))}
    for field in FQN_FIELDS:
        shuffled[field] = {key: meta[field][key] for key in reversed(list(meta[field]))}
    assert format_flat(Plan.from_json(shuffled)) == text


def test_show_of_a_bundled_plan_is_one_line_per_value_and_stable() -> None:
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    first = metaplan_cli("show", SMALL_NORMAL)
    assert first.returncode == 0
    assert metaplan_cli("show", SMALL_NORMAL, env=env).stdout == first.stdout
    _check_flat(first.stdout.decode(), _raw(SMALL_NORMAL))
    assert b'param_plan["model.layers.0.mlp"].skip_source_lowering = true\n' in first.stdout


def test_show_of_a_records_file_is_folded_text(tmp_path: Path) -> None:
    rec = tmp_path / "rec.json"
    metaplan_cli("normalize", SMALL, "-o", os.devnull, "--record", rec, "-q")
    done = metaplan_cli("show", rec)
    assert done.returncode == 0
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith("--- strip_ep_sub_boundaries: before  sha256:")
    assert lines[2] == "232 changes: 116 modules in 2 groups, 0 top-level changes"
    assert "120 changes: 120 modules in 1 group, 0 top-level changes" in lines
    assert len(lines) < 30
    expanded = metaplan_cli("show", rec, "--expand").stdout.decode().splitlines()
    assert "model.layers.17.mlp.shared_experts" in expanded and len(expanded) > 400


@pytest.mark.parametrize("what", ["diff", "merge"])
def test_bad_input_is_exit_2_with_one_line(tmp_path: Path, what: str) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    args = (SMALL, broken) if what == "diff" else (SMALL, SMALL, broken)
    done = metaplan_cli(what, *args)
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1 and done.stdout == b""


def test_the_apache_license_is_there_for_the_wheel() -> None:
    root = Path(__file__).resolve().parent.parent
    text = (root / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    pyproject = (root / "pyproject.toml").read_text()
    assert 'license = "Apache-2.0"' in pyproject and 'license-files = ["LICENSE"]' in pyproject
