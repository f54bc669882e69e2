"""The ``metaplan`` command, run as a user runs it: in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, expected_bytes, fixture_path, raw_input
from conftest import metaplan_cli as metaplan

NAME = "deepseek_v3.hf5"


def test_normalize_writes_the_seeds_bytes_and_records(tmp_path: Path) -> None:
    out, rec = tmp_path / "out.json", tmp_path / "rec.json"
    done = metaplan("normalize", fixture_path(NAME), "-o", out, "--record", rec)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected_bytes(NAME)
    records = json.loads(rec.read_text())
    assert [r["pass"] for r in records["records"]] == [
        "strip_ep_sub_boundaries", "strip_external_state_boundaries",
        "mark_shared_class_boundaries"]
    assert b"wrote" in done.stderr


def test_normalize_to_stdout_with_explicit_settings(specs_path: Path) -> None:
    done = metaplan("normalize", fixture_path(NAME), "--specs", specs_path,
                    "--model-type", "deepseek_v3")
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected_bytes(NAME)


def test_replay_and_invert(tmp_path: Path) -> None:
    out, rec, inv = tmp_path / "out.json", tmp_path / "rec.json", tmp_path / "inv.json"
    assert metaplan("normalize", fixture_path(NAME), "-o", out, "--record", rec).returncode == 0
    replayed = metaplan("replay", fixture_path(NAME), rec)
    assert replayed.returncode == 0 and replayed.stdout == expected_bytes(NAME)
    assert metaplan("invert", rec, "-o", inv).returncode == 0
    undone = metaplan("replay", out, inv)
    assert undone.returncode == 0 and undone.stdout == raw_input(NAME)


def test_a_refused_replay_exits_2_and_leaves_the_output_alone(tmp_path: Path) -> None:
    rec, out = tmp_path / "rec.json", tmp_path / "out.json"
    assert metaplan("normalize", fixture_path(NAME), "-o", tmp_path / "n.json",
                    "--record", rec).returncode == 0
    out.write_bytes(b"precious")
    done = metaplan("replay", fixture_path("qwen3_moe.hf5"), rec, "-o", out)
    assert done.returncode == 2
    assert b"replay refused" in done.stderr and b"param_plan[" in done.stderr
    assert b"Traceback" not in done.stderr
    assert out.read_bytes() == b"precious"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".metaplan-")]


@pytest.mark.parametrize("content, message", [
    (b"{", b"not valid JSON: Expecting property name enclosed in double quotes at line 1"),
    (b'{"param_plan": 3}', b"param_plan: must be an object"),
    (b'{"injections": [{"local_compute_fn": "x"}]}', b"injections[0]"),
    (b"\x1f\x8bnot gzip", b"cannot read"),
])
def test_bad_input_exits_2_with_a_clear_message(tmp_path: Path, content: bytes,
                                                message: bytes) -> None:
    bad, out = tmp_path / "bad.json", tmp_path / "out.json"
    bad.write_bytes(content)
    out.write_bytes(b"precious")
    done = metaplan("normalize", bad, "-o", out)
    assert done.returncode == 2
    assert message in done.stderr, done.stderr
    assert b"Traceback" not in done.stderr
    assert out.read_bytes() == b"precious"


def test_missing_files_and_bad_rules_exit_2(tmp_path: Path) -> None:
    assert metaplan("normalize", tmp_path / "nope.json").returncode == 2
    rules = tmp_path / "rules.json"
    rules.write_text('{"rules": [{"match": [], "local_compute_target": "x"}]}')
    done = metaplan("normalize", fixture_path(NAME), "--rules", rules)
    assert done.returncode == 2 and b"at least one pattern" in done.stderr
    assert metaplan("frobnicate").returncode == 2


def test_rules_file_overrides_injections(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{
        "match": ["model.layers.3.mlp"],
        "local_compute_target":
            "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"}]}))
    rec = tmp_path / "rec.json"
    done = metaplan("normalize", fixture_path(NAME), "--rules", rules, "-o",
                    tmp_path / "o.json", "--record", rec)
    assert done.returncode == 0, done.stderr
    stage1 = json.loads(rec.read_text())["records"][0]["changes"]
    # fused experts ("experts", no index) do not match the spec's "experts.*"
    assert {c["path"][1] for c in stage1} == {"model.layers.3.mlp",
                                              "model.layers.3.mlp.shared_experts"}


def test_explain_and_hash() -> None:
    done = metaplan("explain", fixture_path(NAME), "model.layers.3.mlp.shared_experts")
    assert done.returncode == 0
    assert done.stdout.startswith(b"model.layers.3.mlp.shared_experts\n  1. "
                                  b"strip_ep_sub_boundaries: ~ is_boundary: true -> false\n")
    assert b"why:" in done.stdout
    unknown = metaplan("explain", fixture_path(NAME), "no.such.module")
    assert unknown.returncode == 2 and b"no such module" in unknown.stderr
    hashed = metaplan("hash", fixture_path(NAME))
    assert hashed.returncode == 0 and hashed.stdout.startswith(b"sha256:")


def test_console_script_is_installed() -> None:
    done = subprocess.run(["metaplan", "--help"], capture_output=True, check=False)
    assert done.returncode == 0 and b"normalize" in done.stdout


def test_diff_formats_and_replay(tmp_path: Path) -> None:
    out = tmp_path / "d.json"
    done = metaplan("diff", fixture_path(NAME), DATA / f"{NAME}.expected.json.gz",
                    "--format", "json", "-o", out)
    assert done.returncode == 1, done.stderr
    replayed = metaplan("replay", fixture_path(NAME), out)
    assert replayed.returncode == 0 and replayed.stdout == expected_bytes(NAME)
    text = metaplan("diff", fixture_path(NAME), DATA / f"{NAME}.expected.json.gz")
    assert text.returncode == 1
    assert b"\nmodel.layers.{3..60}.mlp  (58 modules)\n" in text.stdout
    assert b"\n  ~ is_boundary: true -> false\n" in text.stdout
    expanded = metaplan("diff", fixture_path(NAME), DATA / f"{NAME}.expected.json.gz", "--expand")
    assert b"\nmodel.layers.3.mlp\n  ~ is_boundary: true -> false\n" in expanded.stdout
    patch = metaplan("diff", fixture_path(NAME), fixture_path(NAME), "--format", "jsonpatch")
    assert patch.returncode == 0 and json.loads(patch.stdout) == []


def test_records_and_hashes_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    outputs = []
    for seed in ("1", "2"):
        rec = tmp_path / f"rec{seed}.json"
        done = subprocess.run([sys.executable, "-m", "metaplan", "normalize", "-q",
                               str(fixture_path(NAME)), "-o", str(tmp_path / "o.json"),
                               "--record", str(rec)], capture_output=True, check=False,
                              env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        outputs.append(rec.read_bytes())
    assert outputs[0] == outputs[1]


def test_outputs_are_checked_before_anything_is_written(tmp_path: Path) -> None:
    rec = tmp_path / "rec.json"
    rec.write_bytes(b"precious")
    into_a_folder = metaplan("normalize", fixture_path(NAME), "-o", tmp_path, "--record", rec)
    assert into_a_folder.returncode == 2 and b"is a directory" in into_a_folder.stderr
    assert rec.read_bytes() == b"precious"
    same = metaplan("normalize", fixture_path(NAME), "-o", rec, "--record", rec)
    assert same.returncode == 2 and b"its own path" in same.stderr
    assert rec.read_bytes() == b"precious"
    no_folder = metaplan("normalize", fixture_path(NAME), "-o", tmp_path / "nope" / "o.json")
    assert no_folder.returncode == 2 and b"no folder" in no_folder.stderr


def test_links_devices_and_dash_are_written_through(tmp_path: Path) -> None:
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    link.symlink_to(target)
    assert metaplan("normalize", "-q", fixture_path(NAME), "-o", link).returncode == 0
    assert link.is_symlink() and target.read_bytes() == expected_bytes(NAME)
    assert metaplan("normalize", "-q", fixture_path(NAME), "-o", os.devnull).returncode == 0
    assert Path(os.devnull).is_char_device()
    dash = metaplan("normalize", fixture_path(NAME), "-o", "-", cwd=tmp_path)
    assert dash.stdout == expected_bytes(NAME) and not (tmp_path / "-").exists()


def test_version_and_diff_exit_codes_as_diff1() -> None:
    assert metaplan("--version").stdout.startswith(b"metaplan ")
    same = metaplan("diff", fixture_path(NAME), fixture_path(NAME))
    differ = metaplan("diff", fixture_path(NAME), DATA / f"{NAME}.expected.json.gz")
    broken = metaplan("diff", fixture_path(NAME), DATA / "no-such.json")
    assert (same.returncode, differ.returncode, broken.returncode) == (0, 1, 2)
    assert same.stdout.endswith(b"0 changes: 0 modules in 0 groups, 0 top-level changes\n")
    # the old flag is still taken, and changes nothing
    assert metaplan("diff", fixture_path(NAME), fixture_path(NAME), "--exit-code").returncode == 0
