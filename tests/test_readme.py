"""The README shows what the code does: its Python blocks run, its console examples match.

A ``console`` block is ``$ command`` lines, each followed by the output it
prints (stdout; write ``2>&1`` to show stderr). The commands of one block
run in order in one fresh folder that holds a link to ``tests/``.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^( *)```(\w+)\n(.*?)^\1```", re.S | re.M)


def _blocks(kind: str) -> list[str]:
    """The blocks tagged ``kind``, indented ones (in a list item) dedented."""
    return [textwrap.dedent(body) for _, tag, body in BLOCK.findall(README) if tag == kind]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    shims = tmp_path / ".bin"
    shims.mkdir()
    shim = shims / "metaplan"  # the metaplan of this checkout, whatever is installed
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m metaplan "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    return tmp_path


def _steps(block: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(command, "".join(f"{line}\n" for line in out)) for command, out in steps]


CONSOLE = _blocks("console")


def test_the_readme_has_console_examples_and_python() -> None:
    assert len(CONSOLE) >= 6 and len(_blocks("python")) >= 3


@pytest.mark.parametrize("block", CONSOLE, ids=[f"console{i}" for i in range(len(CONSOLE))])
def test_console_examples_print_what_they_show(block: str, workdir: Path) -> None:
    env = {**os.environ, "PATH": f"{workdir / '.bin'}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    for command, shown in _steps(block):
        done = subprocess.run(["bash", "-c", command], cwd=workdir, env=env, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.stdout == shown, f"$ {command}\n{done.stderr}"


def test_python_examples_run(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in _blocks("python"):
        exec(compile(block, "README.md", "exec"), namespace)
    assert (workdir / "out.json").exists()
