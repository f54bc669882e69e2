"""``metaplan git-setup``: the ``.gitattributes`` line and git's config for plans, idempotent."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from metaplan.cli._io import say
from metaplan.errors import InputError
from metaplan.files.outputs import write_many_atomic

__all__ = ["CONFIG", "attributes_line", "git_setup"]

CONFIG = (
    ("diff.metaplan.command", "metaplan git-diff"),
    ("diff.metaplan.textconv", "metaplan show --textconv"),
    ("merge.metaplan.name", "metaplan three-way merge of plans"),
    ("merge.metaplan.driver", "metaplan git-merge %O %A %B %P"),
    ("mergetool.metaplan.cmd", 'metaplan mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"'),
    ("mergetool.metaplan.trustExitCode", "true"),
)
"""What ``git-setup`` sets: git's names for the drivers, and the commands they run."""


def attributes_line(pattern: str) -> str:
    """The attributes that send ``pattern``'s files through metaplan's drivers."""
    return f"{pattern} diff=metaplan merge=metaplan"


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=False)


def _attributes_file(user: bool) -> Path:
    """The repository's top-level ``.gitattributes``, or git's global attributes file."""
    if user:
        found = _git("config", "--global", "--get", "core.attributesFile").stdout.strip()
        if found:
            return Path(found).expanduser()
        home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".config")
        return Path(home, "git", "attributes")
    top = _git("rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise InputError("git-setup: not inside a git repository (run it in one, or give "
                         "--global to configure your user's git)", source=os.getcwd())
    return Path(top.stdout.strip(), ".gitattributes")


def git_setup(args: argparse.Namespace) -> int:
    """Add the attributes line for each pattern and set each :data:`CONFIG` entry, saying
    what it did; what is already there is left as it is. Exit 0."""
    where = "--global" if args.user else "--local"
    attributes = _attributes_file(args.user)
    try:
        text = attributes.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    lines = text.splitlines()
    missing = [attributes_line(p) for p in args.patterns or ["codegen_meta.json"]
               if attributes_line(p) not in lines]
    for key, value in CONFIG:
        now = _git("config", where, "--get", key)
        if now.returncode == 0 and now.stdout.rstrip("\n") == value:
            say(f"kept {key} = {value}")
            continue
        done = _git("config", where, key, value)
        if done.returncode != 0:
            raise InputError(f"git config {where} {key}: {done.stderr.strip()}", source=key)
        was = f" (was {now.stdout.strip()})" if now.returncode == 0 else ""
        say(f"set {key} = {value}{was}")
    if missing:
        attributes.parent.mkdir(parents=True, exist_ok=True)
        joined = text + ("\n" if text and not text.endswith("\n") else "")
        write_many_atomic({str(attributes): "".join(
            [joined, *(f"{line}\n" for line in missing)]).encode("utf-8")})
    shown = _shown(attributes)
    for line in missing:
        say(f"{shown}: added {line}")
    if not missing:
        say(f"{shown}: kept its line{'s' if len(args.patterns) > 1 else ''}")
    return 0


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it is under it, else as it is."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
