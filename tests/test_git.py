"""git with the set-up README.md and docs/git.md show, in real temporary repositories (the
pages' own commands run as shown in tests/test_readme.py): ``git diff`` and ``git log -p``
print the folded diff (external diff) or one line per value (textconv), and ``git merge``
merges plans with the merge driver, or stops on real conflicts with every clean change kept
and ours at each conflict; ``git mergetool`` settles them; ``git-setup`` configures it all."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import metaplan
from conftest import DATA
from metaplan.views.text import format_flat

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NAME = "deepseek_v3.hf5"
FILE = "codegen_meta.json"
METAPLAN = f"{sys.executable} -m metaplan"  # the metaplan of this checkout
SETUP = [
    ("diff.metaplan.command", f"{METAPLAN} git-diff"),
    ("diff.metaplan.textconv", f"{METAPLAN} show --textconv"),
    ("merge.metaplan.name", "metaplan three-way merge of plans"),
    ("merge.metaplan.driver", f"{METAPLAN} git-merge %O %A %B %P"),
]


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "HOME": str(repo), "GIT_PAGER": "cat", "PAGER": "cat", "LC_ALL": "C"}
    done = subprocess.run(["git", "-c", "user.name=Plan Keeper",
                           "-c", "user.email=keeper@example.com", "-c", "color.ui=false",
                           *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def _raw(name: str = NAME) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((DATA / f"{name}.json.gz").read_bytes()))
    return data


def _put(repo: Path, meta: dict[str, Any], message: str) -> None:
    (repo / FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    _git(repo, "add", FILE)
    _git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository set up as the README says, with the bundled plan committed on main."""
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / ".gitattributes").write_text(f"{FILE} diff=metaplan merge=metaplan\n")
    for key, value in SETUP:
        _git(tmp_path, "config", key, value)
    _git(tmp_path, "add", ".gitattributes")
    _put(tmp_path, _raw(), "the generated plan")
    return tmp_path


FOLDED = [
    "352 changes: 236 modules in 3 groups, 0 top-level changes",
    "model.{layers.{{0..2}.mlp,{3..60}.mlp.{experts,gate}},norm}  (120 modules)",
    "  + skip_source_lowering: true",
    "model.layers.{3..60}.mlp  (58 modules)",
    "  ~ is_boundary: true -> false",
    '  - class: "DeepseekV3MoE"',
    "model.layers.{3..60}.mlp.shared_experts  (58 modules)",
    "  ~ is_boundary: true -> false",
    '  - class: "DeepseekV3MLP"',
]


def test_git_diff_prints_the_folded_diff_and_exits_0(repo: Path) -> None:
    (repo / FILE).write_bytes(gzip.decompress((DATA / f"{NAME}.expected.json.gz").read_bytes()))
    done = _git(repo, "diff")
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[:3] == [f"metaplan diff a/{FILE} b/{FILE}",
                         f"--- a/{FILE}  {metaplan.load(DATA / f'{NAME}.json.gz').content_hash}",
                         f"+++ b/{FILE}  {metaplan.load(repo / FILE).content_hash}"]
    assert lines[3:] == FOLDED
    _git(repo, "commit", "-q", "-a", "-m", "normalized")
    shown = _git(repo, "log", "-p", "--ext-diff", "-1", "--format=%s").stdout.splitlines()
    assert shown[0] == "normalized" and shown[-len(FOLDED):] == FOLDED


def test_the_textconv_gives_line_diffs_of_one_value_per_line(repo: Path) -> None:
    meta = _raw()
    meta["param_plan"]["model.layers.3.mlp"]["region_dispatch"] = True
    meta["injections"][5]["ep_size"] = 16
    _put(repo, meta, "hand edit")
    done = _git(repo, "log", "-p", "--no-ext-diff", "--textconv", "-1", "--format=%s")
    changed = [line for line in done.stdout.splitlines()
               if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert changed == ["-injections[5].ep_size = 8", "+injections[5].ep_size = 16",
                       '+param_plan["model.layers.3.mlp"].region_dispatch = true']
    blamed = _git(repo, "blame", "--textconv", "-s", FILE).stdout
    assert blamed.count("\n") == format_flat(metaplan.load(repo / FILE)).count("\n")


def test_added_deleted_and_broken_files_still_diff_and_exit_0(repo: Path) -> None:
    sub = repo / "other"
    sub.mkdir()
    shutil.copy(repo / FILE, sub / FILE)
    _git(repo, "add", "other")
    added = _git(repo, "diff", "--cached")
    assert "metaplan diff a/other/codegen_meta.json b/other/codegen_meta.json" in added.stdout
    assert ("616 changes: 299 modules in 1 group, 18 top-level changes; provenance: 4 changes"
            in added.stdout)
    _git(repo, "commit", "-q", "-m", "a second plan")
    (sub / FILE).write_text('{"param_plan": ')
    broken = _git(repo, "diff")
    assert "not a plan, shown line by line" in broken.stdout and '+{"param_plan": ' in \
        broken.stdout
    assert "\\ No newline at end of file" in broken.stdout
    lines = _git(repo, "diff", "--no-ext-diff")  # the textconv shows a non-plan as it is
    assert lines.returncode == 0 and '+{"param_plan": ' in lines.stdout
    (sub / FILE).unlink()
    deleted = _git(repo, "diff")
    assert deleted.stderr == ""
    assert ("616 changes: 299 modules in 1 group, 18 top-level changes; provenance: 4 changes"
            in deleted.stdout)
    assert "  - entry: (7 distinct values)" in deleted.stdout


# merges ---------------------------------------------------------------------------------------


def _branches(repo: Path, ours: Callable[[dict[str, Any]], None],
              theirs: Callable[[dict[str, Any]], None]) -> None:
    """Branch ``theirs`` and then ``main`` each commit an edit of the plan on main."""
    _git(repo, "checkout", "-q", "-b", "theirs")
    meta = _raw()
    theirs(meta)
    _put(repo, meta, "their edit")
    _git(repo, "checkout", "-q", "main")
    meta = _raw()
    ours(meta)
    _put(repo, meta, "our edit")


def _normalize(meta: dict[str, Any]) -> None:
    meta.clear()
    meta.update(json.loads(gzip.decompress((DATA / f"{NAME}.expected.json.gz").read_bytes())))


def _hand_edit(meta: dict[str, Any]) -> None:
    meta["param_plan"]["model.layers.3.mlp"]["region_dispatch"] = True
    meta["param_plan"]["model.layers.0.mlp"]["needs_cp_attn"] = True
    meta["injections"][5]["ep_size"] = 16


def test_git_merge_merges_plans_with_the_driver(repo: Path) -> None:
    _branches(repo, _normalize, _hand_edit)
    done = _git(repo, "merge", "-q", "--no-edit", "theirs")
    assert "metaplan git-merge: codegen_meta.json: merged (3 changes from theirs)" in \
        done.stderr
    expected = _raw(f"{NAME}.expected")
    _hand_edit(expected)
    assert metaplan.load(repo / FILE) == metaplan.Plan.from_json(expected)
    assert _git(repo, "status", "--porcelain").stdout == ""
    parents = _git(repo, "log", "-1", "--format=%P").stdout.split()
    assert len(parents) == 2


def _clash(meta: dict[str, Any]) -> None:
    _hand_edit(meta)
    meta["param_plan"]["model.layers.0.mlp"]["skip_source_lowering"] = False
    meta["boundary_classes"]["model.layers.3.mlp"] = "MyMoE"


def _clash_merged() -> metaplan.Plan:
    """What the driver writes for ``_branches(repo, _normalize, _clash)``: ours (the
    normalized plan) with every clean change of theirs, ours at the two conflicts."""
    expected = _raw(f"{NAME}.expected")
    _hand_edit(expected)
    return metaplan.Plan.from_json(expected)


def test_a_conflicted_git_merge_keeps_every_clean_change_of_both_sides(repo: Path) -> None:
    _branches(repo, _normalize, _clash)
    done = _git(repo, "merge", "--no-edit", "theirs", check=False)
    assert done.returncode != 0
    assert metaplan.load(repo / FILE) == _clash_merged()  # ours' normalize and theirs' edits
    said = done.stdout + done.stderr
    assert ("metaplan git-merge: codegen_meta.json: 2 conflicts; wrote every clean change of "
            "both sides, ours at each conflict (3 changes from theirs)") in said
    assert ('  boundary_classes["model.layers.3.mlp"]: base "DeepseekV3MoE", ours (absent), '
            'theirs "MyMoE"') in said
    assert ('  param_plan["model.layers.0.mlp"].skip_source_lowering: base (absent), '
            "ours true, theirs false") in said
    assert "CONFLICT (content): Merge conflict in codegen_meta.json" in said
    assert _git(repo, "status", "--porcelain").stdout == f"UU {FILE}\n"


def _tools(repo: Path) -> None:
    command = f'{METAPLAN} mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"'
    for tool, flag in (("metaplan", ""), ("metaplan-ask", " --ask"),
                       ("metaplan-theirs", " --theirs")):
        _git(repo, "config", f"mergetool.{tool}.cmd", command + flag)
        _git(repo, "config", f"mergetool.{tool}.trustExitCode", "true")
    _git(repo, "config", "mergetool.keepBackup", "false")


def _mergetool(repo: Path, tool: str, answers: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "HOME": str(repo), "LC_ALL": "C"}
    return subprocess.run(["git", "mergetool", f"--tool={tool}", "--no-prompt"], cwd=repo,
                          env=env, input=answers, capture_output=True, text=True, timeout=120,
                          check=False)


def test_mergetool_settles_each_conflict_as_answered_and_the_commit_loses_nothing(
        repo: Path) -> None:
    _branches(repo, _normalize, _clash)
    _tools(repo)
    assert _git(repo, "merge", "--no-edit", "theirs", check=False).returncode != 0
    left = _mergetool(repo, "metaplan")  # no terminal, no side: the conflicts stay
    assert left.returncode != 0 and "2 conflicts; wrote codegen_meta.json" in left.stderr
    assert _git(repo, "status", "--porcelain").stdout == f"UU {FILE}\n"
    done = _mergetool(repo, "metaplan-ask", "t\no\n")  # theirs' class, ours' flag
    assert done.returncode == 0, done.stderr
    assert "conflict 1 of 2: boundary_classes" in done.stderr
    assert "keep [o]urs, [t]heirs, [b]ase, or [l]eave it?" in done.stderr
    _git(repo, "commit", "-q", "--no-edit")
    expected = _clash_merged().to_json()
    expected["boundary_classes"]["model.layers.3.mlp"] = "MyMoE"
    assert metaplan.load(repo / FILE) == metaplan.Plan.from_json(expected)
    assert metaplan.loads(_git(repo, "show", f"HEAD:{FILE}").stdout) == \
        metaplan.Plan.from_json(expected)
    assert _git(repo, "status", "--porcelain").stdout == ""
    assert len(_git(repo, "log", "-1", "--format=%P").stdout.split()) == 2


def test_mergetool_theirs_keeps_hand_edits_made_during_the_conflict(repo: Path) -> None:
    _branches(repo, _normalize, _clash)
    _tools(repo)
    assert _git(repo, "merge", "--no-edit", "theirs", check=False).returncode != 0
    meta = json.loads((repo / FILE).read_text())
    meta["param_plan"]["model.layers.9.mlp"]["needs_cp_attn"] = True  # fixed by hand
    (repo / FILE).write_text(json.dumps(meta))
    done = _mergetool(repo, "metaplan-theirs")
    assert done.returncode == 0, done.stderr
    assert "kept the edits made to it by hand" in done.stderr
    assert "2 conflicts settled to theirs" in done.stderr
    expected = _clash_merged().to_json()
    expected["boundary_classes"]["model.layers.3.mlp"] = "MyMoE"
    expected["param_plan"]["model.layers.0.mlp"]["skip_source_lowering"] = False
    expected["param_plan"]["model.layers.9.mlp"]["needs_cp_attn"] = True
    assert metaplan.load(repo / FILE) == metaplan.Plan.from_json(expected)


def test_mergetool_refuses_to_overwrite_a_hand_edit_of_a_conflict(repo: Path) -> None:
    _branches(repo, _normalize, _clash)
    _tools(repo)
    assert _git(repo, "merge", "--no-edit", "theirs", check=False).returncode != 0
    meta = json.loads((repo / FILE).read_text())
    meta["boundary_classes"]["model.layers.3.mlp"] = "HandMoE"
    (repo / FILE).write_text(json.dumps(meta))
    before = (repo / FILE).read_bytes()
    done = _mergetool(repo, "metaplan-theirs")
    assert done.returncode != 0
    assert "was edited by hand where the settled merge changes it; nothing written" in \
        done.stderr
    assert (repo / FILE).read_bytes() == before


def test_git_setup_configures_a_repository_once(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "HOME": str(tmp_path), "LC_ALL": "C"}

    def setup(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "metaplan", "git-setup", *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              check=False)

    first = setup()
    assert first.returncode == 0, first.stderr
    assert "set merge.metaplan.driver = metaplan git-merge %O %A %B %P" in first.stdout
    assert (tmp_path / ".gitattributes").read_text() == \
        "codegen_meta.json diff=metaplan merge=metaplan\n"
    again = setup()
    assert again.returncode == 0
    assert "set " not in again.stdout and "kept mergetool.metaplan.trustExitCode = true" in \
        again.stdout
    assert (tmp_path / ".gitattributes").read_text().count("codegen_meta.json") == 1
    config = _git(tmp_path, "config", "--local", "--get-regexp", "metaplan").stdout
    assert 'mergetool.metaplan.cmd metaplan mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"' \
        in config
    assert setup("plans/*.json").stdout.endswith(
        ".gitattributes: added plans/*.json diff=metaplan merge=metaplan\n")
    outside = subprocess.run([sys.executable, "-m", "metaplan", "git-setup"],
                             cwd=tmp_path.parent, env={**env, "GIT_CEILING_DIRECTORIES":
                                                        str(tmp_path.parent.parent)},
                             capture_output=True, text=True, check=False)
    if _git(tmp_path.parent, "rev-parse", check=False).returncode != 0:
        assert outside.returncode == 2 and "not inside a git repository" in outside.stderr


def test_git_setup_global_configures_the_users_git(tmp_path: Path) -> None:
    config = tmp_path / "gitconfig"
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(config),
           "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "LC_ALL": "C"}
    done = subprocess.run([sys.executable, "-m", "metaplan", "git-setup", "--global"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "[diff \"metaplan\"]" in config.read_text()
    assert (tmp_path / "xdg" / "git" / "attributes").read_text() == \
        "codegen_meta.json diff=metaplan merge=metaplan\n"


def test_a_file_both_branches_added_conflicts_only_where_they_differ(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / ".gitattributes").write_text(f"{FILE} merge=metaplan\n")
    _git(tmp_path, "config", "merge.metaplan.driver", f"{METAPLAN} git-merge %O %A %B %P")
    _git(tmp_path, "add", ".gitattributes")
    _git(tmp_path, "commit", "-q", "-m", "no plan yet")
    _git(tmp_path, "checkout", "-q", "-b", "theirs")
    meta = _raw()
    meta["param_plan"]["model.layers.3.mlp"]["region_dispatch"] = True
    _put(tmp_path, meta, "their plan")
    _git(tmp_path, "checkout", "-q", "main")
    meta = _raw()
    meta["injections"][5]["ep_size"] = 16
    _put(tmp_path, meta, "our plan")
    ours = metaplan.load(tmp_path / FILE)
    done = _git(tmp_path, "merge", "--no-edit", "theirs", check=False)
    assert done.returncode != 0 and metaplan.load(tmp_path / FILE) == ours  # ours at both
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("  ")]
    assert "metaplan git-merge: codegen_meta.json: 2 conflicts; wrote every clean" in \
        done.stderr
    assert [line.split(":")[0] for line in said] == ["  injections",
                                                     '  param_plan["model.layers.3.mlp"]']


# renames, limits, names (#23) ----------------------------------------------------------------


def test_a_renamed_plan_diffs_under_both_names_and_the_files_after_it_still_show(
        repo: Path) -> None:
    (repo / "moved").mkdir()
    _git(repo, "mv", FILE, f"moved/{FILE}")
    meta = _raw()
    meta["injections"][5]["ep_size"] = 16
    (repo / "moved" / FILE).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    (repo / "zz").mkdir()
    other = json.dumps(_raw("llama3_8b.hf4"), indent=2, sort_keys=True)
    (repo / "zz" / FILE).write_text(other + "\n")
    _git(repo, "add", "-A")
    staged = _git(repo, "diff", "--cached", "-M")
    _git(repo, "commit", "-q", "-m", "moved")
    shown = _git(repo, "show", "--ext-diff", "-M", "--format=%s")
    logged = _git(repo, "log", "-p", "--ext-diff", "-M", "-1", "--format=%s")
    for done in (staged, shown, logged):
        assert done.stderr == ""
        lines = done.stdout.splitlines()
        at = lines.index(f"metaplan diff a/{FILE} b/moved/{FILE}")
        assert lines[at + 1:at + 4] == ["similarity index 99%", f"rename from {FILE}",
                                        f"rename to moved/{FILE}"]
        assert lines[at + 4].startswith("index ")
        assert lines[at + 5].startswith(f"--- a/{FILE}  sha256:")
        assert lines[at + 6].startswith(f"+++ b/moved/{FILE}  sha256:")
        assert lines[at + 7:at + 10] == [
            "1 change: 0 modules in 0 groups, 1 top-level change", "(top level)",
            "  ~ injections[5].ep_size: 8 -> 16  (match: model.layers.8.mlp)"]
        assert f"metaplan diff a/zz/{FILE} b/zz/{FILE}" in lines  # the file after it


def test_git_diff_takes_an_unmerged_path_alone() -> None:
    done = subprocess.run([sys.executable, "-m", "metaplan", "git-diff", FILE],
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"* Unmerged path {FILE}\n", "")


def _small(model_type: str) -> str:
    return json.dumps({"model_type": model_type, "param_plan": {"m": {"is_boundary": True}},
                       "boundary_classes": {"m": "M"}})


def test_a_plan_past_the_size_limit_is_said_and_git_goes_on(repo: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    (repo / "zz").mkdir()
    (repo / "zz" / FILE).write_text(_small("a"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "a small plan")
    _put(repo, _raw(f"{NAME}.expected"), "normalized")
    (repo / "zz" / FILE).write_text(_small("b"))
    _git(repo, "commit", "-q", "-a", "-m", "small edit")
    monkeypatch.setenv("METAPLAN_MAX_INPUT_SIZE", "1000")
    done = _git(repo, "log", "-p", "--ext-diff", "-2", "--format=%s")
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    said = [line for line in lines if line.startswith("metaplan git-diff: no diff shown: ")]
    assert len(said) == 1 and said[0].startswith(
        f"metaplan git-diff: no diff shown: {FILE} (old): ") and "git-blob" not in said[0]
    assert "more than the input limit of 1000 bytes; raise it with --max-input-size or " \
           "METAPLAN_MAX_INPUT_SIZE if this is a plan" in said[0]
    assert lines[lines.index(said[0]) - 1] == f"metaplan diff a/{FILE} b/{FILE}"
    assert '  ~ model_type: "a" -> "b"' in lines  # the commit before still shows


def test_git_diff_names_the_path_and_side_not_gits_temporary_file(repo: Path) -> None:
    (repo / FILE).write_text('{"param_plan": \n')
    _git(repo, "commit", "-q", "-a", "-m", "broken")
    (repo / FILE).write_text(_small("a"))
    done = _git(repo, "diff")
    said = next(line for line in done.stdout.splitlines() if "not a plan" in line)
    assert said.startswith(f"metaplan git-diff: not a plan, shown line by line: {FILE} (old): ")
    assert "git-blob" not in said and "/tmp" not in said


def test_git_merge_names_the_path_and_side_not_gits_temporary_file(repo: Path) -> None:
    _git(repo, "checkout", "-q", "-b", "theirs")
    (repo / FILE).write_text('{\n  "param_plan": {\n    "m": tru\n')
    _git(repo, "commit", "-q", "-a", "-m", "their broken plan")
    _git(repo, "checkout", "-q", "main")
    _put(repo, _raw(f"{NAME}.expected"), "normalized")
    done = _git(repo, "merge", "--no-edit", "theirs", check=False)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if line.startswith("metaplan")]
    assert len(said) == 1 and said[0].startswith(
        f"metaplan git-merge: error: {FILE} (theirs): not valid JSON") and "line 3" in said[0]
    assert ".merge_file" not in done.stderr
    assert metaplan.load(repo / FILE) == metaplan.load(DATA / f"{NAME}.expected.json.gz")


def test_mergetool_names_merged_and_the_side_with_its_file(tmp_path: Path) -> None:
    good = tmp_path / "base.json"
    good.write_text(_small("a"))
    bad = tmp_path / "codegen_meta_REMOTE_123.json"
    bad.write_text("[1")
    merged = tmp_path / FILE
    merged.write_text(_small("a"))
    done = subprocess.run([sys.executable, "-m", "metaplan", "mergetool", str(good), str(good),
                           str(bad), str(merged)], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith(
        f"metaplan mergetool: error: {merged} (theirs, {bad}): not valid JSON")
    assert merged.read_text() == _small("a")


def test_a_gzipped_plan_merges_to_a_gzipped_plan(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / ".gitattributes").write_text("*.json.gz merge=metaplan -diff\n")
    _git(tmp_path, "config", "merge.metaplan.driver", f"{METAPLAN} git-merge %O %A %B %P")
    gz = tmp_path / "model" / f"{FILE}.gz"
    gz.parent.mkdir()

    def put(meta: dict[str, Any], message: str) -> None:
        gz.write_bytes(gzip.compress(json.dumps(meta).encode(), mtime=0))
        _git(tmp_path, "add", "-A")
        _git(tmp_path, "commit", "-q", "-m", message)

    put(_raw(), "the plan")
    _git(tmp_path, "checkout", "-q", "-b", "theirs")
    meta = _raw()
    _hand_edit(meta)
    put(meta, "their edit")
    _git(tmp_path, "checkout", "-q", "main")
    meta = _raw()
    _normalize(meta)
    put(meta, "our edit")
    done = _git(tmp_path, "merge", "-q", "--no-edit", "theirs")
    assert f"metaplan git-merge: model/{FILE}.gz: merged (3 changes from theirs)" in done.stderr
    assert gz.read_bytes()[:2] == b"\x1f\x8b"
    expected = _raw(f"{NAME}.expected")
    _hand_edit(expected)
    assert metaplan.load(gz) == metaplan.Plan.from_json(expected)


def test_mergetool_keeps_mergeds_gzip_encoding(tmp_path: Path) -> None:
    plain = tmp_path / "base.json"
    plain.write_text(_small("a"))
    theirs = tmp_path / "theirs.json"
    theirs.write_text(_small("b"))
    merged = tmp_path / FILE  # no .gz in the name, gzip data in the file
    merged.write_bytes(gzip.compress(_small("b").encode()))  # as the merge driver wrote it
    done = subprocess.run([sys.executable, "-m", "metaplan", "mergetool", str(plain),
                           str(plain), str(theirs), str(merged)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert merged.read_bytes()[:2] == b"\x1f\x8b"
    assert metaplan.load(merged) == metaplan.load(theirs)


def test_a_path_holding_a_newline_cannot_forge_a_header_line(repo: Path) -> None:
    folder = repo / "x\n+++ b"
    folder.mkdir()
    (folder / FILE).write_text(_small("a"))
    _git(repo, "add", "-A")
    done = _git(repo, "diff", "--cached")
    lines = done.stdout.splitlines()
    assert not [line for line in lines if line.startswith("+++ b/codegen")]
    assert f'metaplan diff "a/x\\n+++ b/{FILE}" "b/x\\n+++ b/{FILE}"' in lines
    assert any(line.startswith(f'+++ "b/x\\n+++ b/{FILE}"  sha256:') for line in lines)
