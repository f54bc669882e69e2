"""``metaplan batch COMMAND PLAN...``: one command over many plans, on a process pool.

Stdout is JSON Lines, one object per input in input order (``diff``: per
pair), each with ``path``, ``hash`` (the input's content hash, null when it
could not be read), ``exit`` (what the single command would have exited)
and ``result`` (the command's own JSON result) or ``error``. Equal inputs
are computed once (see :mod:`metaplan.batch.pool`). The summary goes to stderr,
with a progress bar when stderr is a terminal; the batch exits with the
worst exit. ``--out-dir`` outputs are written together at the end, with the
rows, or none is (a bad input or Ctrl-C writes nothing).
"""

from __future__ import annotations

import argparse
import functools
import glob
import itertools
import json
import os
import signal
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, NamedTuple

import orjson

from metaplan.batch.pool import IN_PROCESS, InProcess, PlanPaths, content_key, map_plans
from metaplan.cli._common import checks_from, pipeline_from, settings_of
from metaplan.cli._io import json_name, note, one_line
from metaplan.cli._paths import identity
from metaplan.cli._verify import verification_json
from metaplan.core.invariants import verification
from metaplan.core.plan import dumps, load
from metaplan.errors import ConflictError, InputError, PassError
from metaplan.files.inputs import STDIN, input_size_limit
from metaplan.files.outputs import write_many_atomic, write_stdout
from metaplan.frozen import orjson_default, thaw
from metaplan.passes.registry import build_pipeline, parse_passes
from metaplan.records.codec import records_to_json
from metaplan.versions.diffing import diff as diff_plans

__all__ = ["BATCH_COMMANDS", "Outcome", "batch", "expand_plans"]

BATCH_COMMANDS = ("verify", "hash", "normalize", "diff", "slim")
"""The commands ``metaplan batch`` runs."""

_OPTIONS = {"out_dir": ("--out-dir", ("normalize", "slim")),
            "against": ("--against", ("diff",)),
            "checks": ("--checks", ("verify",)),
            "passes": ("--passes", ("normalize", "diff")),
            "specs": ("--specs", ("verify", "normalize")),
            "rules": ("--rules", ("verify", "normalize")),
            "model_type": ("--model-type", ("verify", "normalize"))}
_FOUND = {"verify": "with violations", "diff": "differing"}


class Outcome(NamedTuple):
    """What a worker sends back for one input (or pair): no path, so equal inputs share it."""

    hash: str | None
    exit: int
    result: dict[str, Any] | None
    error: str | None = None
    output: bytes | None = None


def expand_plans(given: list[str]) -> list[str]:
    """The inputs: each argument as it is, a glob's matches (sorted; an argument that names
    a file is taken as it is), or the lines of ``@FILE`` (``@-``: standard input)."""
    found: list[str] = []
    for arg in given:
        if arg.startswith("@"):
            found += _listed(arg[1:])
        elif any(char in arg for char in "*?[") and not os.path.lexists(arg):
            found += sorted(glob.glob(arg, recursive=True)) or [arg]  # no match: reads as missing
        elif arg == STDIN:
            raise InputError("PLAN: - (standard input) cannot be shared by a batch's workers: "
                             "give files, or @- to read a list of them from it", source=STDIN)
        else:
            found.append(arg)
    return found


def _listed(path: str) -> list[str]:
    try:
        if path == STDIN:
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                text = handle.read()
    except OSError as exc:
        raise InputError(f"@{path}: cannot read the list of plans: {exc.strerror or exc}",
                         source=path) from exc
    return [line.strip() for line in text.splitlines() if line.strip()]


def _work(args: argparse.Namespace, item: PlanPaths) -> Outcome:
    """One input's outcome in a worker: the single command's exit and JSON result."""
    try:
        with input_size_limit(args.max_input_size):
            return _run_one(args, item)
    except (InputError, ConflictError, PassError) as exc:
        return Outcome(None, 2, None, str(exc))
    except MemoryError:
        return Outcome(None, 2, None, "out of memory")
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return Outcome(None, 2, None, f"{where}{exc.strerror or exc}")


def _run_one(args: argparse.Namespace, item: PlanPaths) -> Outcome:
    command = args.batch_command
    if command == "diff":
        assert isinstance(item, tuple)
        a, b = load(item[0]), load(item[1])
        if args.passes is not None:
            line = build_pipeline(parse_passes(args.passes))
            a, b = line.run(a).final, line.run(b).final
        record = diff_plans(a, b)
        return Outcome(b.content_hash, 0 if record.is_noop else 1, records_to_json([record]))
    assert not isinstance(item, tuple)
    plan = load(item)
    if command == "hash":
        return Outcome(plan.content_hash, 0, {"hash": plan.content_hash})
    if command == "verify":
        specs, rules, model_type = settings_of(args)
        found = verification(plan, checks_from(args), specs=specs, rules=rules,
                             model_type=model_type)
        return Outcome(plan.content_hash, 1 if found.violations else 0,
                       verification_json("", found))
    line = pipeline_from(args) if command == "normalize" else build_pipeline(("slim",))
    trace = line.run(plan)
    final = trace.final
    result = {"hash": final.content_hash,
              "changes": {r.pass_name: len(r) for r in trace.records}}
    return Outcome(plan.content_hash, 0, result,
                   output=dumps(final) if args.out_dir is not None else None)


def _items(args: argparse.Namespace, plans: list[str]) -> list[PlanPaths]:
    if args.batch_command != "diff":
        return list(plans)
    if args.against is not None:
        return [(args.against, path) for path in plans]
    if len(plans) < 2:
        raise InputError(f"PLAN: batch diff compares consecutive plans (or each with "
                         f"--against BASE): expected at least 2, found {len(plans)}",
                         source="PLAN")
    return list(itertools.pairwise(plans))


def _check_options(args: argparse.Namespace) -> None:
    for attr, (option, commands) in _OPTIONS.items():
        if getattr(args, attr) is not None and args.batch_command not in commands:
            raise InputError(f"{option}: applies to batch {' and '.join(commands)}, not to "
                             f"batch {args.batch_command}", source=option)
    if args.jobs < 1:
        raise InputError(f"--jobs: expected a number of workers of 1 or more, found "
                         f"{args.jobs}", source="--jobs")


def _targets(args: argparse.Namespace, plans: list[str]) -> dict[str, str]:
    """Input path -> its file in ``--out-dir`` (its own name), checked before any work."""
    if args.out_dir is None:
        return {}
    if not os.path.isdir(args.out_dir):
        raise InputError(f"{args.out_dir}: --out-dir: expected an existing folder, found "
                         f"{'a file' if os.path.exists(args.out_dir) else 'nothing'}",
                         source=args.out_dir)
    targets: dict[str, str] = {}
    taken: dict[str, str] = {}
    read: dict[object, str] = {os.path.abspath(path): path for path in plans}
    read |= {same: path for path in plans if (same := identity(path)) is not None}
    for path in plans:
        target = os.path.join(args.out_dir, os.path.basename(path))
        if taken.setdefault(target, path) != path:
            raise InputError(f"{target}: --out-dir: the inputs {taken[target]} and {path} "
                             "share a name: give them distinct names, or batch them apart",
                             source=target)
        for key in (os.path.abspath(target), identity(target)):
            if key is not None and key in read:
                raise InputError(f"{target}: --out-dir: would overwrite the input "
                                 f"{read[key]}: give another folder", source=target)
        targets[path] = target
    return targets


def _line(row: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(row, default=orjson_default) + b"\n"
    except TypeError:  # an integer past 64 bits
        return json.dumps(thaw(row), ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _row(args: argparse.Namespace, item: PlanPaths, outcome: Outcome,
         targets: dict[str, str]) -> dict[str, Any]:
    path = item[1] if isinstance(item, tuple) else item
    row: dict[str, Any] = {"path": json_name(os.fspath(path))}
    if isinstance(item, tuple):
        row["against"] = json_name(os.fspath(item[0]))
    row |= {"hash": outcome.hash, "exit": outcome.exit}
    if outcome.error is not None:
        row["error"] = outcome.error
        return row
    result = outcome.result or {}
    if args.batch_command in ("verify", "hash"):
        result = {"plan": row["path"], **{k: v for k, v in result.items() if k != "plan"}}
    row["result"] = result
    if os.fspath(path) in targets:
        row["output"] = json_name(targets[os.fspath(path)])
    return row


def _ignore_interrupts() -> None:
    """A worker leaves Ctrl-C to the batch, which cancels what is left and stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _executor(jobs: int) -> Executor | InProcess:
    if jobs == 1:
        return IN_PROCESS
    return ProcessPoolExecutor(jobs, initializer=_ignore_interrupts)


class _Progress:
    """A bar on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.on = total > 1 and sys.stderr is not None and sys.stderr.isatty()

    def step(self, done: int) -> None:
        if self.on:
            filled = 30 * done // self.total
            sys.stderr.write(f"\r[{'#' * filled}{' ' * (30 - filled)}] {done}/{self.total}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\r" + " " * 50 + "\r")


def batch(args: argparse.Namespace) -> int:
    """Run ``args.batch_command`` on every input; exit with the worst exit (130: Ctrl-C, with
    the workers stopped and no file written)."""
    try:
        return _batch(args)
    except KeyboardInterrupt:  # also while the pool shuts down after the last row
        note(args, "interrupted: the workers are stopped" + (
            "; nothing written" if args.out_dir is not None else ""))
        return 130


def _batch(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    _check_options(args)
    plans = expand_plans(args.plans)
    items = _items(args, plans)
    targets = _targets(args, plans)
    executor = _executor(args.jobs)
    work = functools.partial(_work, args)
    rows: list[bytes] = []
    files: dict[str, bytes] = {}
    worst, found, bad, distinct = 0, 0, 0, 0
    progress = _Progress(len(items))
    try:
        keys = [content_key(item) for item in items]
        distinct = len({key for key in keys if key is not None}) + keys.count(None)
        for done, (item, outcome) in enumerate(zip(items, map_plans(
                work, items, executor=executor, keys=keys), strict=True), start=1):
            worst, found, bad = (max(worst, outcome.exit), found + (outcome.exit == 1),
                                 bad + (outcome.exit == 2))
            line = _line(_row(args, item, outcome, targets))
            if outcome.output is not None:
                assert not isinstance(item, tuple)
                files[targets[os.fspath(item)]] = outcome.output
            if targets:
                rows.append(line)
            else:
                write_stdout(line)
            progress.step(done)
    finally:
        progress.close()
        if isinstance(executor, Executor):
            executor.shutdown(wait=True, cancel_futures=True)
    if targets:
        if bad:
            files = {}
        write_many_atomic(files, stdout=b"".join(rows))
    _summary(args, len(items), distinct, found, bad, time.perf_counter() - started,
             written=len(files) if targets else None)
    return worst


def _summary(args: argparse.Namespace, total: int, distinct: int, found: int, bad: int,
             seconds: float, *, written: int | None) -> None:
    what = "pairs" if args.batch_command == "diff" else "plans"
    parts = [f"{total} {what}", f"{distinct} distinct"]
    if args.batch_command in _FOUND:
        parts.append(f"{found} {_FOUND[args.batch_command]}")
    if bad:
        parts.append(f"{bad} unreadable")
    if written is not None:
        parts.append(f"{written} written to {args.out_dir}" if written or not bad
                     else "nothing written")
    print(one_line(f"metaplan batch {args.batch_command}: {', '.join(parts)}, "
                   f"{seconds:.1f} s"), file=sys.stderr)
