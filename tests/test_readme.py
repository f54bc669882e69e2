"""The README and the docs show what the code does: every example block runs as shown.

Each page (``README.md``, ``docs/*.md``) runs top to bottom in one fresh temporary folder
that holds a link to ``tests/`` (so ``tests/data/...`` paths work) and nothing else; its
blocks share that folder, so a page makes its own inputs in a visible step before using
them. By the tag of its fence:

- ``console``: ``$ command`` lines, each followed by the output it prints (stdout; write
  ``2>&1`` to show stderr), compared exactly. A ``cd`` carries over to the next command.
- ``sh``: the block runs as one bash script (``set -e``) and must exit 0. When the next
  block is ``text``, that is its stdout, compared exactly; otherwise it prints nothing.
- ``python``: run in one namespace per page. When the next block is ``text``, that is
  what it prints.
- ``json``: parsed (it must be JSON).
- ``text``: the output of the ``sh`` or ``python`` block before it. Any other ``text``
  block is marked ``<!-- not run: why -->`` on the line before its fence.

``<!-- not run: why -->`` skips any block (the reason is required, and the skips are
counted); ``<!-- varies /REGEX/: why -->`` before a block replaces what REGEX matches,
in the shown output and in the actual, with ``<varies>`` before comparing (wall times).
Blocks are not indented (an indented Python block fails when pasted). No page may leave
or change a file in the clone. Git runs with no system or global configuration.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^( *)```(\S*)\n(.*?)^\1```[ \t]*$", re.S | re.M)
MARK = re.compile(r"<!--\s*(not run|varies /(.+?)/)\s*(?::\s*(.*?))?\s*-->\s*\Z", re.S)
KINDS = ("console", "sh", "python", "json", "text", "mermaid")
CACHES = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
          ".mutants", ".venv"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    kind: str
    body: str
    indent: str
    skip: str | None  # the reason it is not run
    varies: str | None  # a regex of what may differ

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    name = str(page.relative_to(ROOT))
    blocks, end = [], 0
    for fence in FENCE.finditer(text):
        before = text[end:fence.start()]
        mark = MARK.search(before)
        skip = (mark.group(3) or "") if mark and mark.group(1) == "not run" else None
        varies = mark.group(2) if mark else None
        line = text.count("\n", 0, fence.start()) + 1
        blocks.append(Block(name, line, fence.group(2), fence.group(3), fence.group(1), skip,
                            varies))
        end = fence.end()
    return blocks


BLOCKS = {page.name if page.parent == ROOT else f"docs/{page.name}": _blocks(page)
          for page in PAGES}


def _steps(block: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before the first command: {line!r}"
            steps[-1][1].append(line)
    return [(command, "".join(f"{line}\n" for line in out)) for command, out in steps]


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under the clone (caches aside), with its size and mtime."""
    found: dict[str, tuple[int, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name not in CACHES]
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


def _status() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True,
                          text=True, check=False).stdout


class Page:
    """One page's run: its folder, its current directory, its Python namespace."""

    def __init__(self, tmp: Path) -> None:
        self.work = tmp / "work"
        self.work.mkdir()
        (self.work / "tests").symlink_to(ROOT / "tests")
        home, shims = tmp / "home", tmp / "bin"
        home.mkdir()
        shims.mkdir()
        shim = shims / "metaplan"  # the metaplan of this checkout, whatever is installed
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m metaplan "$@"\n')
        shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
        for name in ("python", "python3"):  # this interpreter, its venv and all
            (shims / name).write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
            (shims / name).chmod(shim.stat().st_mode | stat.S_IEXEC)
        self.pwd_file = tmp / "pwd"
        self.cwd = self.work
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("GIT_", "METAPLAN_")) and key not in ("NO_COLOR",)}
        self.env = {**env, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
                    "PYTHONPATH": os.pathsep.join([str(ROOT / "src"),
                                                   os.environ.get("PYTHONPATH", "")]),
                    "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
                    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_PAGER": "cat", "PAGER": "cat",
                    "GIT_AUTHOR_NAME": "Plan Keeper", "GIT_AUTHOR_EMAIL": "keeper@example.com",
                    "GIT_COMMITTER_NAME": "Plan Keeper",
                    "GIT_COMMITTER_EMAIL": "keeper@example.com",
                    "GIT_AUTHOR_DATE": "2026-12-04T12:00:00Z",
                    "GIT_COMMITTER_DATE": "2026-12-04T12:00:00Z"}
        self.namespace: dict[str, object] = {"__name__": "docs"}

    def bash(self, script: str, *, strict: bool) -> subprocess.CompletedProcess[str]:
        wrapped = (f"{'set -e' if strict else ''}\n{script}\n__status=$?\n"
                   f'pwd > "{self.pwd_file}"\nexit $__status\n')
        done = subprocess.run(["bash", "-c", wrapped], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=300, check=False)
        if self.pwd_file.exists():
            self.cwd = Path(self.pwd_file.read_text().strip())
            self.pwd_file.unlink()
        return done

    def python(self, block: Block) -> str:
        out = io.StringIO()
        old = Path.cwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block.body, block.where, "exec"), self.namespace)
        finally:
            os.chdir(old)
        return out.getvalue()


def _same(shown: str, printed: str, varies: str | None) -> tuple[str, str]:
    if varies is None:
        return shown, printed
    pattern = re.compile(varies, re.M)
    return pattern.sub("<varies>", shown), pattern.sub("<varies>", printed)


def _run(blocks: list[Block], tmp: Path) -> None:
    page = Page(tmp)
    shown_by: dict[int, int] = {}  # a text block's index -> the block whose output it is
    for i, block in enumerate(blocks):
        if block.kind in ("sh", "python") and block.skip is None and i + 1 < len(blocks):
            nxt = blocks[i + 1]
            if nxt.kind == "text" and nxt.skip is None:
                shown_by[i + 1] = i
    for i, block in enumerate(blocks):
        if block.skip is not None:
            continue
        if block.kind == "console":
            for command, shown in _steps(block.body):
                done = page.bash(command, strict=False)
                expected, got = _same(shown, done.stdout, block.varies)
                assert got == expected, f"{block.where}: $ {command}\n{done.stderr}"
        elif block.kind in ("sh", "python"):
            after: Block | None = blocks[i + 1] if i + 1 in shown_by else None
            if block.kind == "sh":
                ran = page.bash(block.body, strict=True)
                assert ran.returncode == 0, f"{block.where}: exit {ran.returncode}\n{ran.stderr}"
                printed = ran.stdout
            else:
                printed = page.python(block)
            if block.kind == "sh" or after is not None:
                shown = after.body if after is not None else ""
                expected, got = _same(shown, printed, (after or block).varies)
                assert got == expected, f"{block.where}: what it printed is not what is shown"
        elif block.kind == "json":
            json.loads(block.body)
        elif block.kind == "text":
            assert i in shown_by, (f"{block.where}: a text block that is no block's output; "
                                   "mark it <!-- not run: why -->")


def test_every_block_is_a_known_kind_unindented_and_every_skip_says_why() -> None:
    counts: dict[str, int] = {}
    skipped = []
    for blocks in BLOCKS.values():
        for block in blocks:
            assert block.kind in KINDS or block.skip, f"{block.where}: a {block.kind} block"
            assert block.indent == "", f"{block.where}: an indented block fails when pasted"
            if block.skip is not None:
                assert block.skip, f"{block.where}: <!-- not run --> needs a reason"
                skipped.append(block)
            else:
                counts[block.kind] = counts.get(block.kind, 0) + 1
    least = {"console": 20, "python": 5, "sh": 3, "text": 3, "json": 1, "mermaid": 2}
    assert all(counts.get(kind, 0) >= least[kind] for kind in KINDS), counts
    assert len(skipped) <= 10, [block.where for block in skipped]
    print(f"blocks run: {counts}; not run: {len(skipped)}")


def test_the_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    assert len(lines) <= 300
    first = "\n".join(lines[: 200])
    assert "## Quick start" in first and "git config diff.metaplan.command" in first
    assert "hyper-parallel" in readme.split("\n\n", 2)[1] and "codegen_meta.json" in readme[:800]


def test_links_to_pages_and_anchors_resolve() -> None:
    def anchors(text: str) -> set[str]:
        return {re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
                for title in re.findall(r"^#+ (.*)$", text, re.M)}

    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"\w+://", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: {target}"
            if anchor and linked.suffix == ".md":
                assert anchor in anchors(linked.read_text(encoding="utf-8")), \
                    f"{page.name}: {target}"


@pytest.mark.parametrize("name", list(BLOCKS))
def test_each_page_runs_and_prints_what_it_shows(name: str, tmp_path: Path) -> None:
    before, status = _tree(ROOT), _status()
    try:
        _run(BLOCKS[name], tmp_path)
    finally:
        assert _tree(ROOT) == before and _status() == status, f"{name} changed the clone"


NODE = r"[A-Za-z_][\w]*(?:\[\(?[^\[\]()|]+\)?\])?"
EDGE = re.compile(rf"^{NODE}(?:\s*(?:-->|-\.->)(?:\|[^|]+\|)?\s*{NODE})+$")


@pytest.mark.parametrize("block", [b for blocks in BLOCKS.values() for b in blocks
                                   if b.kind == "mermaid"], ids=lambda b: b.where)
def test_every_diagram_is_a_flowchart_of_edges(block: Block) -> None:
    """The subset of Mermaid the docs use, checked line by line (GitHub renders it)."""
    first, *lines = block.body.splitlines()
    assert re.fullmatch(r"flowchart (BT|TB|TD|LR|RL)", first), f"{block.where}: {first!r}"
    for line in lines:
        assert EDGE.match(line.strip()), f"{block.where}: not an edge line: {line!r}"
