"""The fuzzer's second family: versions of plans, not broken plans.

Three generators, seeded like :mod:`test_fuzz` (``METAPLAN_FUZZ=N`` cases
each: 30 locally, 300 under ``CI``), run through ``metaplan.cli.main``:

- **hostile module names** (report syntax, quotes, braces and commas, control
  and line-separator characters, Unicode digits, names that look like diff
  headers): ``diff`` in text, ``--expand`` and ``groups`` must name exactly the
  changed modules (each heading read back as the report writes it), only the
  first two lines may be headers, no raw control character may reach the
  output, and the JSON record must replay to B;
- **renames**: ``git-diff`` with git's 9 arguments, hostile old and new paths
  and a header git could write (plus a line it never would): exit 0, one
  ``---`` and one ``+++`` line, git's rename lines kept, the forged one gone,
  and the same body as ``metaplan diff`` of the two files;
- **set merges**: sorted string arrays (with repeats, natural-number names
  that sort apart from their numbers) merged through ``metaplan merge`` and
  ``git-merge``: the sets' three-way merge, in either order, clean.
"""

from __future__ import annotations

import json
import os
import random
import unicodedata
from pathlib import Path
from typing import Any

import metaplan
from conftest import raw_input
from metaplan.algorithms.braces import expand
from metaplan.records.codec import records_from_json
from metaplan.records.edit import apply_changes
from test_fuzz import CASES, in_process

_PIECES = ("model", "layers", "3", "10", "(top level)", "+", "-", "~", "@", "!", ".", " ", "\t",
           "\n", "\r", "\x1b[31m", "\x00", "\x7f", '"', "\\", "{", "}", ",", "..", "{1..3}",
           "*", "[", "]", "é", "\u2028", "\u2029", "\x85", "٣", "²", "+++ b/x", "--- a/x",
           "(3 modules)", "  ~ x: 1 -> 2", "mlp", "experts", "0")


def _hostile_name(rnd: random.Random) -> str:
    parts = [rnd.choice(_PIECES) for _ in range(rnd.randint(1, 4))]
    joiner = rnd.choice((".", "", " "))
    return joiner.join(parts)


def _named_plans(rnd: random.Random) -> tuple[dict[str, Any], dict[str, Any], set[str]]:
    """Two plans over hostile module names, and the modules that differ between them."""
    names = sorted({_hostile_name(rnd) for _ in range(rnd.randint(2, 12))}
                   | {f"model.layers.{i}.mlp" for i in rnd.sample(range(12), 3)})
    a: dict[str, dict[str, Any]] = {name: {"x": rnd.choice((1, 2))} for name in names}
    b: dict[str, dict[str, Any]] = {name: dict(entry) for name, entry in a.items()}
    touched: set[str] = set()
    for name in rnd.sample(names, rnd.randint(1, len(names))):
        touched.add(name)
        roll = rnd.random()
        if roll < 0.6:
            b[name]["x"] = 3
        elif roll < 0.8:
            del b[name]
        else:
            b[name]["y"] = [name]
    for _ in range(rnd.randint(0, 2)):
        name = _hostile_name(rnd)
        if name not in a:
            b[name] = {"x": 1}
            touched.add(name)
    return {"param_plan": a}, {"param_plan": b}, touched


def _controls(text: str) -> list[str]:
    """The characters in ``text`` that would break or forge a line (``\\n`` ends one)."""
    return [c for c in text if c != "\n" and (unicodedata.category(c) in ("Cc", "Zl", "Zp"))]


def _heading(line: str) -> str:
    """A heading of the folded text as the name (or brace pattern) it stands for."""
    if line.startswith('"'):
        name, end = json.JSONDecoder().raw_decode(line)
        assert line[end:] == "" or line[end:].startswith("  ("), line
        return str(name)
    head, _, count = line.partition("  (")
    assert count == "" or count.endswith(")"), line
    return head


def _module_headings(text: str) -> list[str]:
    lines = text.splitlines()
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ "), lines[:2]
    assert not [line for line in lines[2:] if line.startswith(("--- ", "+++ "))], text
    return [_heading(line) for line in lines[3:]
            if not line.startswith("  ") and line != "(top level)"]


def _write(path: Path, meta: dict[str, Any]) -> Path:
    path.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    return path


def check_names_case(folder: Path, seed: int) -> None:
    rnd = random.Random(f"names:{seed}")
    meta_a, meta_b, touched = _named_plans(rnd)
    folder.mkdir()
    a, b = _write(folder / "a.json", meta_a), _write(folder / "b.json", meta_b)
    what = f"names seed {seed}: {sorted(touched)!r}"
    code, out, err = in_process("diff", a, b)
    if code == 2:  # a name the loader refuses: refused alike by every command
        assert err.startswith("metaplan diff: error: ") and err.count("\n") == 1, (what, err)
        assert in_process("hash", a)[0] == 2 or in_process("hash", b)[0] == 2, what
        return
    assert (code, err) == (1, ""), (what, code, err)
    text = out.decode("utf-8")
    assert _controls(text) == [], (what, _controls(text))
    folded = [name for pattern in _module_headings(text) for name in expand(pattern)]
    assert sorted(folded) == sorted(touched), what
    expanded = in_process("diff", a, b, "--expand")[1].decode("utf-8")
    assert _controls(expanded) == [], what
    assert sorted(_module_headings(expanded)) == sorted(touched), what
    groups = json.loads(in_process("diff", a, b, "--format", "groups")[1])["groups"]
    members = [expand(group["modules"]) for group in groups]
    assert [len(names) for names in members] == [group["count"] for group in groups], what
    assert sorted(name for names in members for name in names) == sorted(touched), what
    record_code, record, _ = in_process("diff", a, b, "--format", "json")
    assert record_code == 1, what
    plan_a, plan_b = metaplan.load(a), metaplan.load(b)
    (replayed,) = records_from_json(json.loads(record))
    assert apply_changes(plan_a, replayed.changes).content_hash == plan_b.content_hash, what


def test_hostile_module_names_fold_read_back_and_replay(tmp_path: Path) -> None:
    for seed in range(CASES):
        check_names_case(tmp_path / f"names{seed}", seed)


# renames -------------------------------------------------------------------------------

_PATH_PIECES = ("plans", "moved", "a b", "é", '"q"', "back\\slash", "new\nline", "tab\there",
                "\x1b[1m", "+++ b", "--- a", "codegen_meta.json", "x.json.gz", "\u2028", "~")


def _git_quote(path: str) -> str:
    """``path`` as git writes it in a header: C-quoted when it must be."""
    if not any(c in path for c in '"\\\t\n') and all(32 <= ord(c) < 127 for c in path):
        return path
    escapes = {"\n": "\\n", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
    body = "".join(escapes.get(c) or (c if 32 <= ord(c) < 127 else "".join(
        f"\\{byte:03o}" for byte in c.encode("utf-8"))) for c in path)
    return f'"{body}"'


def _tree_path(rnd: random.Random) -> str:
    return "/".join(rnd.choice(_PATH_PIECES) for _ in range(rnd.randint(1, 3)))


def check_rename_case(folder: Path, seed: int, meta: dict[str, Any]) -> None:
    rnd = random.Random(f"rename:{seed}")
    folder.mkdir()
    edited = json.loads(json.dumps(meta))
    for item in rnd.sample(edited["injections"], rnd.randint(0, 3)):
        item["ep_size"] = rnd.choice((4, 16, 32))
    old = _write(folder / "old.json", meta)
    new = _write(folder / "new.json", edited)
    old_path, new_path = _tree_path(rnd), _tree_path(rnd)
    kind = rnd.choice(("rename", "copy"))
    header = (f"similarity index {rnd.randint(50, 100)}%\n{kind} from {_git_quote(old_path)}\n"
              f"{kind} to {_git_quote(new_path)}\n")
    if rnd.random() < 0.5:
        header += rnd.choice(("+++ b/forged\n", "--- a/forged\n", "1 change: forged\n"))
    what = f"rename seed {seed}: {old_path!r} -> {new_path!r}"
    code, out, err = in_process("git-diff", old_path, old, "0" * 40, "100644", new, "1" * 40,
                                "100644", new_path, header)
    assert (code, err) == (0, ""), (what, code, err)
    text = out.decode("utf-8", "surrogateescape")
    assert _controls(text) == [], (what, _controls(text))
    lines = text.splitlines()
    assert lines[0].startswith("metaplan diff "), (what, lines[0])
    assert lines[1:4] == header.splitlines()[:3], (what, lines[:4])
    assert [line[:4] for line in lines if line.startswith(("--- ", "+++ "))] == ["--- ", "+++ "]
    assert "forged" not in text, what
    plain = in_process("diff", old, new)[1].decode("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("+++ "))
    assert lines[at + 1:] == plain[2:], what


def test_git_diff_across_hostile_renames_keeps_its_shape(tmp_path: Path) -> None:
    meta = json.loads(raw_input("deepseek_v3.hf5"))
    for seed in range(CASES):
        check_rename_case(tmp_path / f"rename{seed}", seed, meta)


# set merges ----------------------------------------------------------------------------

_ITEMS = (*(f"p.{n}" for n in (1, 2, 3, 9, 10, 11, 20)), "p.é", "p.Z", "q", "q.1")


def _set_side(rnd: random.Random, base: list[str]) -> list[str]:
    listed = set(base)
    how = rnd.choice(("same", "remove", "add", "both", "repeat"))
    if how in ("remove", "both") and listed:
        listed -= set(rnd.sample(sorted(listed), rnd.randint(1, len(listed))))
    if how in ("add", "both"):
        listed |= set(rnd.sample(_ITEMS, rnd.randint(1, 3)))
    items = sorted(listed)
    if how == "repeat" and items:
        items = sorted(items + rnd.sample(items, rnd.randint(1, len(items))))
    return items


def check_set_case(folder: Path, seed: int) -> None:
    rnd = random.Random(f"sets:{seed}")
    folder.mkdir()
    base = sorted(rnd.sample(_ITEMS, rnd.randint(0, 6)))
    ours, theirs = _set_side(rnd, base), _set_side(rnd, base)
    b, x, y = set(base), set(ours), set(theirs)
    expected = sorted((x & y) | ((x | y) - b))
    what = f"sets seed {seed}: {base} / {ours} / {theirs}"
    paths = [_write(folder / f"{name}.json", {"param_plan": {}, "frozen_sharded_params": items})
             for name, items in (("base", base), ("ours", ours), ("theirs", theirs))]
    for one, other in ((paths[1], paths[2]), (paths[2], paths[1])):
        code, out, err = in_process("merge", paths[0], one, other)
        assert (code, err) == (0, ""), (what, code, err)
        merged = json.loads(out)["frozen_sharded_params"]
        assert sorted(set(merged)) == expected and merged == sorted(merged), (what, merged)
        assert len(merged) == len(set(merged)) or merged in (ours, theirs), (what, merged)
    work = folder / "work.json"
    work.write_bytes(paths[1].read_bytes())
    code, _, err = in_process("git-merge", paths[0], work, paths[2], "plans/codegen_meta.json")
    assert code == 0 and err.startswith("metaplan git-merge: plans/codegen_meta.json: merged ("
                                        ) and err.count("\n") == 1, (what, code, err)
    assert sorted(set(json.loads(work.read_text())["frozen_sharded_params"])) == expected, what
    assert sorted(os.listdir(folder)) == ["base.json", "ours.json", "theirs.json", "work.json"]


def test_set_merges_are_the_sets_three_way_merge(tmp_path: Path) -> None:
    for seed in range(CASES):
        check_set_case(tmp_path / f"sets{seed}", seed)
