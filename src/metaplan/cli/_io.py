"""What every command's output goes through: stdout, files, stderr lines, colour, timers.

Light on imports: the command line loads it before knowing which command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from metaplan.errors import InputError
from metaplan.files.outputs import write_many_atomic, write_stdout

__all__ = [
    "MESSAGE_LIMIT",
    "Timer",
    "colour",
    "json_name",
    "note",
    "one_line",
    "output",
    "paint",
    "quote_name",
    "say",
    "say_json",
    "to_stdout",
]

T = TypeVar("T")


_CONTROL = {code: f"\\x{code:02x}" for code in (*range(32), *range(127, 160))} | {
    10: "\\n", 13: "\\r", 9: "\\t", 0x2028: "\\u2028", 0x2029: "\\u2029"}
MESSAGE_LIMIT = 2000
"""The most characters of a message on stderr; the rest is cut, saying how much."""


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` on one line (control characters escaped), cut to ``limit`` characters.

    >>> one_line("a\\nb"), one_line("x" * 30, 10)
    ('a\\\\nb', 'xxxxxxxxxx... (20 more characters cut)')
    """
    flat = text.translate(_CONTROL)
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}... ({len(flat) - limit} more characters cut)"


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v",
              "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def quote_name(name: str) -> str:
    """A file name or label as a header line shows it: as it is, or, when it holds a control
    character, a quote or a backslash, C-style quoted in double quotes as git quotes paths
    (``\\n``, ``\\t``, ``\\"``, ``\\\\``; other characters a terminal acts on as octal
    escapes of their UTF-8 bytes), so no name can start a line of its own.

    >>> print(quote_name("a/plan.json"), quote_name("a/x\\n+++ b/evil"), quote_name('q"\\x1b'))
    a/plan.json "a/x\\n+++ b/evil" "q\\"\\033"
    """
    if name.isprintable() and '"' not in name and "\\" not in name:
        return name
    out = []
    for char in name:
        if char in _C_ESCAPES:
            out.append(_C_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        else:
            out.append("".join(f"\\{byte:03o}"
                               for byte in char.encode("utf-8", "surrogateescape")))
    return '"' + "".join(out) + '"'


def note(args: argparse.Namespace, message: str) -> None:
    """A line on stderr, prefixed with the command."""
    print(one_line(f"metaplan {args.command}: {message}"), file=sys.stderr)


def json_name(path: str) -> str:
    """A file name as Unicode text for a JSON output (undecodable bytes become U+FFFD)."""
    return os.fsencode(path).decode("utf-8", "replace")


def to_stdout(text: bytes | str) -> None:
    """Write to stdout, flushed; a reader that has gone (``| head``) is not an error.

    The command still runs to its end and exits with its own status (a
    ``diff | head`` that differs exits 1, not 0). Text is encoded as file
    names are, so a name that is not UTF-8 is printed as the bytes it is.
    """
    write_stdout(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)


def say_json(value: Any) -> None:
    """A JSON report on stdout, two-space indented with sorted keys, ending in a newline."""
    from metaplan.files.jsonio import dumps_pretty

    to_stdout(dumps_pretty(value) + b"\n")


def say(*lines: str) -> None:
    """Lines of text on stdout (see :func:`to_stdout`)."""
    to_stdout("".join(f"{line}\n" for line in lines))


def output(args: argparse.Namespace, text: bytes, also: dict[str, bytes] | None = None) -> None:
    """Write ``text`` to ``-o``, with ``also`` in the same commit; ``-`` (or no ``-o``) is stdout.

    Every output lands, or no file changes (see :mod:`metaplan.files.outputs`).
    """
    files: dict[str, bytes] = {}
    stdout: bytes | None = None
    for path, data in [(args.output or "-", text), *(also or {}).items()]:
        if path in files:
            raise InputError(f"{path}: given both as -o and as --record: give each output its "
                             "own path", source=path)
        if path != "-":
            files[path] = data
        elif stdout is None:
            stdout = data
        else:
            raise InputError("-: two outputs on standard output: give one of them a file",
                             source="-")
    write_many_atomic(files, stdout=stdout)


class Timer:
    """Named wall times of the steps around a run (load, write), for ``--stats``."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []

    def time(self, name: str, step: Callable[[], T]) -> T:
        """``step()``, timed as ``name``."""
        started = time.perf_counter()
        value = step()
        self.steps.append((name, time.perf_counter() - started))
        return value


_PAINT = {"+": "32", "-": "31", "~": "33", "head": "1", "dim": "2", "!": "1;31"}


def colour(args: argparse.Namespace) -> bool:
    """Whether to colour text: ``--color always``, or ``auto`` (the default) on a terminal
    when ``NO_COLOR`` is unset and the text goes to standard output."""
    choice = getattr(args, "color", None) or "auto"
    if choice != "auto":
        return bool(choice == "always")
    if os.environ.get("NO_COLOR") or getattr(args, "output", None) not in (None, "-"):
        return False
    return sys.stdout is not None and sys.stdout.isatty()


def paint(text: str, on: bool) -> str:
    """``text`` (diff lines: ``+``, ``-``, ``~``; others bold) in ANSI colours when ``on``."""
    if not on:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        mark = body.lstrip()[:1]
        code = _PAINT.get(mark) if body.startswith(" ") else _PAINT["head"]
        out.append(f"\x1b[{code}m{body}\x1b[0m{line[len(body):]}" if code and body else line)
    return "".join(out)
