"""trace, compare, bisect, verify, explain, --passes, --stats and diff formats, run as a user."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import metaplan as metaplan_lib
from conftest import DATA, expected_bytes, fixture_path, raw_input
from conftest import metaplan_cli as metaplan

NAME = "deepseek_v3.hf5"
EXPECTED = DATA / f"{NAME}.expected.json.gz"
STAGES = ("strip-ep-sub-boundaries", "strip-external-state-boundaries",
          "mark-shared-class-boundaries")


def _broken_plan(tmp_path: Path) -> Path:
    raw = json.loads(raw_input(NAME))
    raw["param_plan"]["model.layers.1.mlp"]["out_dst"] = {"output": {"tp": "S(0)"}}
    raw["boundary_classes"]["model.ghost"] = "DeepseekV3MLP"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(raw))
    return path


def test_trace_writes_numbered_states_and_records_that_replay(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    done = metaplan("trace", fixture_path(NAME), "-o", out)
    assert done.returncode == 0, done.stderr
    names = ["000-input.json"] + [f"{i:03d}-{s}{ext}" for i, s in enumerate(STAGES, 1)
                                   for ext in (".json", ".record.json")]
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, "trace.json"])
    assert (out / "000-input.json").read_bytes() == raw_input(NAME)
    assert (out / f"003-{STAGES[2]}.json").read_bytes() == expected_bytes(NAME)
    for i, stage in enumerate(STAGES, 1):
        before = out / (names[2 * i - 3] if i > 1 else names[0])
        step = metaplan("replay", before, out / f"{i:03d}-{stage}.record.json")
        assert step.returncode == 0 and step.stdout == (out / f"{i:03d}-{stage}.json").read_bytes()
    manifest = json.loads((out / "trace.json").read_text())
    assert [s["pass"] for s in manifest["states"]] == [
        "<input>", "strip_ep_sub_boundaries", "strip_external_state_boundaries",
        "mark_shared_class_boundaries"]
    assert [s.get("changes") for s in manifest["states"]] == [None, 232, 0, 120]
    assert f"{out}/003-{STAGES[2]}.json  sha256:".encode() in done.stdout


def test_a_second_trace_replaces_the_first_and_other_folders_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    assert metaplan("trace", fixture_path(NAME), "-o", out).returncode == 0
    again = metaplan("trace", fixture_path(NAME), "--out", out, "--passes", STAGES[1])
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "000-input.json", f"001-{STAGES[1]}.json", f"001-{STAGES[1]}.record.json", "trace.json"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    refused = metaplan("trace", fixture_path(NAME), "--out", other)
    assert refused.returncode == 2 and b"holds files no trace wrote (notes.txt)" in refused.stderr
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    a_file = metaplan("trace", fixture_path(NAME), "--out", other / "notes.txt")
    assert a_file.returncode == 2 and b"must be a folder" in a_file.stderr
    under_a_file = metaplan("trace", fixture_path(NAME), "--out", other / "notes.txt" / "sub")
    assert under_a_file.returncode == 2 and b"cannot make the -o folder" in under_a_file.stderr
    assert b"Traceback" not in under_a_file.stderr


def test_a_trace_manifest_cannot_make_trace_delete_other_files(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    out.mkdir()
    (out / "trace.json").write_text(json.dumps({"states": [{"plan": "precious.txt"}]}))
    (out / "precious.txt").write_text("keep me")
    (out / "009-old-pass.json").write_text("{}")
    done = metaplan("trace", fixture_path(NAME), "-o", out)
    assert done.returncode == 2 and (out / "precious.txt").read_text() == "keep me"
    (out / "precious.txt").unlink()
    done = metaplan("trace", fixture_path(NAME), "-o", out)  # named like a state, not listed
    assert done.returncode == 2 and b"holds files no trace wrote (009-old-pass.json)" in done.stderr
    assert (out / "009-old-pass.json").read_text() == "{}"
    (out / "trace.json").write_text(json.dumps({"states": [{"plan": "009-old-pass.json"}]}))
    done = metaplan("trace", fixture_path(NAME), "-o", out)
    assert done.returncode == 0 and not (out / "009-old-pass.json").exists()


def test_compare_reports_the_first_diverging_pass(tmp_path: Path, specs_path: Path) -> None:
    specs = json.loads(specs_path.read_text())
    for spec in specs["specs"]:
        spec["strip_boundary_subpatterns"] = [
            p for p in spec["strip_boundary_subpatterns"] if p != "shared_experts"]
    new = tmp_path / "new-specs.json"
    new.write_text(json.dumps(specs))
    done = metaplan("compare", fixture_path(NAME), "--specs", specs_path, "--against-specs", new)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.decode().splitlines()
    plan = metaplan_lib.load(fixture_path(NAME))
    finals = metaplan_lib.diff(metaplan_lib.normalize(plan).plan, metaplan_lib.normalize(
        plan, specs=metaplan_lib.load_specs(new)).plan)
    assert lines[2] == ("first difference after pass 1: A ran strip_ep_sub_boundaries, B ran "
                        f"strip_ep_sub_boundaries; the final plans differ by {len(finals)} "
                        "changes")
    assert "model.layers.{3..60}.mlp.shared_experts  (58 modules)" in lines
    assert "  ~ is_boundary: false -> true" in lines
    same = metaplan("compare", fixture_path(NAME), "--specs", specs_path,
                    "--against-specs", specs_path)
    assert same.returncode == 0 and b"same: after every pass" in same.stdout
    patch = metaplan("compare", fixture_path(NAME), "--against-passes",
                     f"{STAGES[0]},{STAGES[2]}", "--format", "json")
    found = json.loads(patch.stdout)
    assert patch.returncode == 1 and found["first_difference"]["state"] == 2
    assert found["records"]["records"][0]["changes"] and not found["same"]
    assert found["final_plans_differ_by"] == 0
    written = tmp_path / "compare.txt"
    to_file = metaplan("compare", fixture_path(NAME), "--specs", specs_path, "--against-specs",
                       new, "-o", written)
    assert to_file.returncode == 1 and to_file.stdout == b"" and to_file.stderr == b""
    assert written.read_bytes() == done.stdout
    as_json = tmp_path / "compare.json"
    assert metaplan("compare", fixture_path(NAME), "--against-passes", f"{STAGES[0]},{STAGES[2]}",
                    "--format", "json", "-o", as_json).returncode == 1
    assert as_json.read_bytes() == patch.stdout


def test_compare_rules_versions(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": []}))
    done = metaplan("compare", fixture_path(NAME), "--against-rules", rules)
    assert done.returncode == 1 and b"first difference after pass 1" in done.stdout
    assert b"B: normalize --rules" in done.stdout


def test_bisect_finds_the_pass_after_which_something_holds(tmp_path: Path) -> None:
    plan = fixture_path(NAME)
    changed = metaplan("bisect", plan, "--path", "param_plan/model.layers.0.mlp/"
                       "skip_source_lowering")
    assert changed.returncode == 0
    assert changed.stdout.decode().splitlines() == [
        "found the first state where param_plan/model.layers.0.mlp/skip_source_lowering "
        "differs from the input's: state 3, after pass 3 (mark_shared_class_boundaries)",
        "  before: (absent)", "  after:  true"]
    valued = metaplan("bisect", plan, "--path", "/param_plan/model.layers.3.mlp/is_boundary",
                      "--value", "false")
    assert valued.returncode == 0 and b"state 1, after pass 1" in valued.stdout
    never = metaplan("bisect", plan, "--path", "param_plan/lm_head/is_boundary",
                     "--value", "false")
    assert never.returncode == 1 and b"not found" in never.stdout
    hashed = metaplan("hash", EXPECTED).stdout.split()[0].decode()
    by_hash = metaplan("bisect", plan, "--hash", hashed)
    assert by_hash.returncode == 0 and b"state 3" in by_hash.stdout
    matched = metaplan("bisect", plan, "--matches", EXPECTED)
    assert matched.returncode == 0 and b"state 3" in matched.stdout
    sound = metaplan("bisect", plan)
    assert sound.returncode == 1 and b"fails verification; searched 4 states" in sound.stdout
    broken = metaplan("bisect", _broken_plan(tmp_path), "--checks", "class-key")
    assert broken.returncode == 0 and b"state 0, the input" in broken.stdout
    assert b'class-key: boundary_classes["model.ghost"]' in broken.stdout
    bad_value = metaplan("bisect", plan, "--path", "param_plan/lm_head", "--value", "{nope")
    assert bad_value.returncode == 2 and (b"--value: not valid JSON (Expecting property name "
                                          b"enclosed in double quotes at column 2): '{nope'"
                                          in bad_value.stderr)
    bad_path = metaplan("bisect", plan, "--path", "param_plan//is_boundary")
    assert bad_path.returncode == 2 and b"an empty step" in bad_path.stderr


def test_verify_lists_violations_and_exits_1(tmp_path: Path) -> None:
    ok = metaplan("verify", fixture_path(NAME))
    assert ok.returncode == 0 and b": ok (" in ok.stdout
    bad = metaplan("verify", _broken_plan(tmp_path))
    assert bad.returncode == 1
    lines = bad.stdout.decode().splitlines()
    assert lines[0].endswith("2 violation(s) (class-key: 1, single-contract: 1)")
    assert lines[1] == '  class-key: boundary_classes["model.ghost"]: no such module in param_plan'
    assert lines[2].startswith('  single-contract: boundary_classes["model.layers.1.mlp"]: class '
                               "DeepseekV3MLP has 2 boundary contracts")
    as_json = metaplan("verify", _broken_plan(tmp_path), "--format", "json")
    assert as_json.returncode == 1
    assert [v["check"] for v in json.loads(as_json.stdout)["violations"]] == [
        "class-key", "single-contract"]
    unknown = metaplan("verify", fixture_path(NAME), "--checks", "nope")
    assert unknown.returncode == 2 and b"unknown check" in unknown.stderr


def test_verify_each_names_the_input_when_it_is_broken(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = metaplan("normalize", _broken_plan(tmp_path), "--verify-each", "-o", out)
    assert done.returncode == 1 and not out.exists()
    assert b"verification failed: the input plan fails verification (2 violation(s))" \
        in done.stderr
    fine = metaplan("normalize", fixture_path(NAME), "--verify-each", "-o", out)
    assert fine.returncode == 0 and out.read_bytes() == expected_bytes(NAME)


def test_explain_several_modules() -> None:
    done = metaplan("explain", fixture_path(NAME), "model.layers.3.mlp", "model.layers.0.mlp",
                    "lm_head")
    assert done.returncode == 0
    text = done.stdout.decode()
    assert text.index("model.layers.3.mlp\n  1. strip_ep_sub_boundaries") \
        < text.index("model.layers.0.mlp\n  1. mark_shared_class_boundaries: "
                     "+ skip_source_lowering: true\n     why: class DeepseekV3MLP")
    assert text.endswith("lm_head: no pass changes it\n")
    unknown = metaplan("explain", fixture_path(NAME), "lm_head", "no.such", "nor.this")
    assert unknown.returncode == 2 and unknown.stdout == b"lm_head: no pass changes it\n"
    assert [line.split(" (")[0] for line in unknown.stderr.decode().splitlines()] == [
        f"metaplan explain: error: no.such: no such module in {fixture_path(NAME)}",
        f"metaplan explain: error: nor.this: no such module in {fixture_path(NAME)}"]


def test_explain_takes_globs_and_brace_patterns() -> None:
    plan = fixture_path(NAME)
    globbed = metaplan("explain", plan, "model.layers.*.mlp.shared_experts")
    braced = metaplan("explain", plan, "model.layers.{3..60}.mlp.shared_experts")
    listed = metaplan("explain", plan, *sorted(f"model.layers.{i}.mlp.shared_experts"
                                               for i in range(3, 61)))  # the plan's order
    assert globbed.returncode == 0 and globbed.stdout == braced.stdout == listed.stdout
    assert globbed.stdout.count(b"\nmodel.layers.") == 57
    ranged = metaplan("explain", plan, "model.layers.{5..3}.mlp", "model.layers.0.mlp")
    heads = [line for line in ranged.stdout.decode().splitlines() if not line[0].isspace()]
    assert ranged.returncode == 0 and heads == [  # each pattern's modules in the plan's order
        "model.layers.3.mlp", "model.layers.4.mlp", "model.layers.5.mlp", "model.layers.0.mlp"]


def test_explain_names_every_unknown_and_explains_the_known() -> None:
    plan = fixture_path(NAME)
    done = metaplan("explain", plan, "lm_haed", "model.layers.0.mlp", "model.layerz.*",
                    "model.layers.{3,99}.mlp.shared_experts")
    assert done.returncode == 2
    assert done.stdout.decode().startswith("model.layers.0.mlp\n  1. mark_shared_class")
    assert "model.layers.3.mlp.shared_experts\n  1. strip_ep" in done.stdout.decode()
    where = f"in {plan} (neither in param_plan nor in boundary_classes"
    assert done.stderr.decode().splitlines() == [
        f"metaplan explain: error: lm_haed: no such module {where}; did you mean lm_head?)",
        f"metaplan explain: error: model.layerz.*: matches no module {where}; did you mean "
        "model.layers.*?)",
        "metaplan explain: error: model.layers.{3,99}.mlp.shared_experts: "
        f"model.layers.99.mlp.shared_experts: no such module {where}; did you mean "
        "model.layers.9.mlp.shared_experts?)"]
    found = json.loads(metaplan("explain", plan, "lm_haed", "lm_head", "--format", "json").stdout)
    assert [m["module"] for m in found["modules"]] == ["lm_head"]
    assert found["unknown"] == [{"pattern": "lm_haed", "unmatched": ["lm_haed"],
                                 "did_you_mean": "lm_head"}]
    bad = metaplan("explain", plan, "model.{norm")
    assert bad.returncode == 2 and b"error: FQN: bad brace pattern" in bad.stderr


def test_passes_print_pipeline_and_stats(tmp_path: Path) -> None:
    printed = metaplan("normalize", fixture_path(NAME), "--passes",
                       "strip_ep_sub_boundaries, mark-shared-class-boundaries", "--print-pipeline")
    assert printed.returncode == 0
    assert printed.stdout == f"{STAGES[0]},{STAGES[2]}\n".encode()
    default = metaplan("trace", fixture_path(NAME), "--out", tmp_path, "--print-pipeline")
    assert default.stdout == (",".join(STAGES) + "\n").encode() and not any(tmp_path.iterdir())
    unknown = metaplan("normalize", fixture_path(NAME), "--passes", "normalize,strip-ep")
    assert unknown.returncode == 2
    assert b"unknown pass 'strip-ep' (did you mean strip-ep-sub-boundaries?)" in unknown.stderr
    partial = metaplan("normalize", fixture_path(NAME), "--passes", STAGES[2], "--stats", "-q")
    assert partial.returncode == 0
    stats = partial.stderr.decode().splitlines()
    marked = metaplan_lib.mark_shared_class_boundaries()(metaplan_lib.load(fixture_path(NAME)))
    assert stats[0].split() == ["pass", "changes", "modules", "ms"]
    assert stats[1].split()[:3] == ["mark_shared_class_boundaries", str(len(marked.record)),
                                    str(len(marked.record))]
    assert [line.split()[0] for line in stats[2:-1]] == ["load", "dump", "write", "total"]
    assert stats[-1] == "model type: deepseek_v3 (the plan's model_type)"


def test_jsonpatch_applies_to_the_thawed_input(tmp_path: Path) -> None:
    jsonpatch = pytest.importorskip("jsonpatch")
    done = metaplan("diff", fixture_path(NAME), EXPECTED, "--format", "jsonpatch")
    assert done.returncode == 1
    patch = json.loads(done.stdout)
    assert sum(op["op"] == "test" for op in patch) == 232  # before every replace and remove
    patched = jsonpatch.apply_patch(json.loads(raw_input(NAME)), patch)
    assert patched == json.loads(expected_bytes(NAME))
    tampered = json.loads(raw_input(NAME))
    tampered["param_plan"]["model.layers.3.mlp"]["is_boundary"] = "yes"
    with pytest.raises(jsonpatch.JsonPatchTestFailed):
        jsonpatch.apply_patch(tampered, patch)


def test_diff_text_header_names_both_plans(tmp_path: Path) -> None:
    gz = tmp_path / "expected.json.gz"
    gz.write_bytes(gzip.compress(expected_bytes(NAME)))
    done = metaplan("diff", fixture_path(NAME), gz)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 1
    assert lines[0].startswith(f"--- {fixture_path(NAME)}  sha256:")
    assert lines[1].startswith(f"+++ {gz}  sha256:")
    assert lines[2] == "352 changes: 236 modules in 3 groups, 0 top-level changes"


def test_compare_b_takes_a_settings_unless_told_otherwise(specs_path: Path) -> None:
    done = metaplan("compare", fixture_path(NAME), "--specs", specs_path, "--passes", STAGES[0])
    assert done.returncode == 0, done.stdout
    assert b"same: after every pass (A: 1, B: 1)" in done.stdout
    assert f"B: {STAGES[0]} --specs {specs_path}\n".encode() in done.stdout
    bogus = metaplan("compare", fixture_path(NAME), "--against-passes", "bogus")
    assert bogus.returncode == 2 and b"--against-passes: unknown pass 'bogus'" in bogus.stderr


def test_a_closed_pipe_keeps_the_exit_status() -> None:
    for command, code in ((f"metaplan diff {fixture_path(NAME)} {EXPECTED}", 1),
                          (f"metaplan diff {fixture_path(NAME)} {fixture_path(NAME)}", 0)):
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {sys.executable} -m {command} | head -n 1"],
            capture_output=True, check=False)
        assert done.returncode == code and b"Traceback" not in done.stderr
        assert done.stdout.startswith(b"--- ")


def test_empty_and_misspelt_options_are_refused_before_any_work(tmp_path: Path) -> None:
    empty = metaplan("normalize", fixture_path(NAME), "--passes", "")
    assert empty.returncode == 2 and b"empty pass name" in empty.stderr and not empty.stdout
    checks = metaplan("bisect", fixture_path(NAME), "--checks", "class_key,bogus")
    assert checks.returncode == 2 and b"--checks: unknown check 'bogus'" in checks.stderr
    lone_value = metaplan("bisect", fixture_path(NAME), "--value", "true")
    assert lone_value.returncode == 2 and b"give the --path" in lone_value.stderr
    both = metaplan("bisect", fixture_path(NAME), "--hash", "x", "--path", "a/b")
    assert both.returncode == 2 and b"not allowed with" in both.stderr
    twice = metaplan("verify", _broken_plan(tmp_path), "--checks", "class_key, class-key")
    assert twice.returncode == 1 and twice.stdout.count(b"class-key:") == 2  # summary + one


def test_bisect_says_when_a_path_never_exists_and_prints_stats() -> None:
    done = metaplan("bisect", fixture_path(NAME), "--path", "param_plan/nope/is_boundary",
                    "--stats")
    assert done.returncode == 1
    assert done.stdout.endswith(b"param_plan/nope/is_boundary is absent from every state\n")
    assert done.stderr.splitlines()[0].split() == [b"pass", b"changes", b"modules", b"ms"]
    pointer = metaplan("bisect", fixture_path(NAME), "--path", "/injections/0/match",
                       "--value", '"model.layers.3.mlp"')
    assert pointer.returncode == 0 and b"state 0, the input" in pointer.stdout


@pytest.mark.parametrize(("value", "hint"), [
    ("False", "write false, not False; "), ("None", "write null, not None; "), ("x", ""),
    ("", ""), ("[1,", "")])
def test_bisect_says_what_a_json_value_looks_like(value: str, hint: str) -> None:
    done = metaplan("bisect", fixture_path(NAME), "--path", "param_plan/lm_head/is_boundary",
                    "--value", value)
    assert done.returncode == 2 and done.stdout == b""
    error = done.stderr.decode()
    assert error.startswith("metaplan bisect: error: --value: not valid JSON (")
    assert error.endswith(f"): {value!r}; {hint}a string goes in quotes: '\"x\"'\n")


def test_bisect_refuses_a_hash_no_state_can_have() -> None:
    done = metaplan("bisect", fixture_path(NAME), "--hash", "False")
    assert done.returncode == 2 and done.stderr.decode() == (
        "metaplan bisect: error: --hash: expected a content hash or a prefix of one (hex "
        "digits 0-9a-f, sha256: optional), got 'False'\n")
    assert metaplan("bisect", fixture_path(NAME), "--hash", "sha256:0f").returncode == 1
