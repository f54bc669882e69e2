#!/usr/bin/env python3
"""A small AST mutation tester for metaplan: how many plausible bugs do the tests catch?

For each target module it makes *mutants* (one small change each: a
comparison or boolean operator swapped, ``is`` / ``is not``, a constant
changed, a statement or a ``return`` value dropped, an ``if`` branch made
dead, a slice or index moved by one, a comprehension filter dropped...),
runs the module's own tests against each one in a private copy of ``src/``
(``pytest -x``: stop at the first failure) and reports which mutants the
tests *killed* (some test failed), which *survived* (every test passed: a
gap, or a mutant that behaves exactly as the original, an *equivalent*
one) and which ran out of time (counted as killed: the change made a loop
endless).

    python tools/mutate.py                                  # every target module
    python tools/mutate.py src/metaplan/passes/strip_ep.py  # one module
    python tools/mutate.py src/metaplan/core/rules/reading.py --list  # the mutants, not run
    python tools/mutate.py src/metaplan/core/rules/reading.py --line 120  # only those on line 120
    python tools/mutate.py --jobs 2 --resume                # skip mutants already judged

Results are kept in ``.mutants/<module>.jsonl`` (one line per mutant, keyed
by the module's text and the mutation), so an interrupted run resumes with
``--resume`` (``--recheck`` runs the survivors again too: after adding
tests), and ``--report`` summarizes them without running anything.
Equivalent mutants are listed in ``tools/mutation_equivalents.txt``
(``module:scope | source line | mutation | why``); the score leaves them out:
caught / (mutants - equivalent), where a mutant is caught when a test fails,
the tests cannot even start (``crashed``), or they run out of time. The
work tree is never written: mutants run from a temporary copy of ``src/``
put first on ``PYTHONPATH`` (subprocesses the tests start, ``python -m
metaplan``, see it too).

Not run by pytest or CI: it takes minutes per module. It needs only the
standard library and the test extra.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import concurrent.futures
import copy
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "metaplan"
RESULTS = ROOT / ".mutants"
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.txt"

TARGETS: dict[str, tuple[str, ...]] = {
    # module (under src/metaplan) -> the tests that exercise it
    "passes/_edits.py": ("test_strip_ep.py", "test_strip_external.py", "test_mark_shared.py",
                         "test_passes.py", "test_normalize.py"),
    "passes/strip_ep.py": ("test_strip_ep.py", "test_passes.py", "test_normalize.py"),
    "passes/strip_external.py": ("test_strip_external.py", "test_passes.py",
                                 "test_normalize.py"),
    "passes/mark_shared.py": ("test_mark_shared.py", "test_passes.py", "test_normalize.py"),
    "passes/slimming.py": ("test_slim.py",),
    "passes/registry.py": ("test_passes.py", "test_pipeline.py"),
    "passes/__init__.py": ("test_passes.py",),
    "records/change.py": ("test_change.py", "test_json_forms.py", "test_algebra.py",
                          "test_records.py", "test_edit.py"),
    "records/codec.py": ("test_records.py", "test_json_forms.py"),
    "records/edit.py": ("test_edit.py", "test_algebra.py", "test_digest.py"),
    "records/algebra.py": ("test_algebra.py",),
    "records/patch.py": ("test_patch.py",),
    "versions/diffing.py": ("test_diff*.py",),
    "paths.py": ("test_paths.py", "test_patch.py", "test_change.py"),
    "core/rules/models.py": ("test_rules.py", "test_strip_ep.py"),
    "core/rules/checking.py": ("test_rules.py", "test_strip_ep.py"),
    "core/rules/specs.py": ("test_rules.py", "test_json_forms.py", "test_strip_ep.py"),
    "core/rules/builtin.py": ("test_rules.py", "test_strip_ep.py"),
    "core/rules/reading.py": ("test_rules.py", "test_strip_ep.py"),
    "core/invariants.py": ("test_verify.py",),
    "core/emitter.py": ("test_emitter.py", "test_verify.py", "test_slim.py"),
    "core/plan.py": ("test_plan.py", "test_edit.py", "test_digest.py", "test_side_by_side.py"),
    # issue 23: the modules measured outside the list above
    "core/digest.py": ("test_digest.py", "test_golden.py"),
    "versions/merging.py": ("test_merge_edges.py", "test_merge_gaps.py", "test_merge.py"),
    "versions/folding.py": ("test_folding_edges.py", "test_fold.py", "test_verify_fold.py"),
    "versions/ignoring.py": ("test_ignoring.py", "test_cli_versions.py", "test_provenance.py"),
    "algorithms/braces.py": ("test_braces.py", "test_patterns.py", "test_braces_edges.py"),
    "algorithms/sequences.py": ("test_sequences_edges.py", "test_sequences.py"),
    "files/inputs.py": ("test_files_edges.py", "test_files_gaps.py", "test_reliability.py",
                        "test_jsonio.py"),
    "files/outputs.py": ("test_files_gaps.py", "test_reliability.py", "test_guarantees.py"),
    "files/jsonio.py": ("test_files_edges.py", "test_jsonio.py", "test_streaming.py"),
    "files/streaming.py": ("test_streaming_edges.py", "test_files_edges.py", "test_streaming.py"),
    "files/packing.py": ("test_side_by_side.py",),
    "files/side_by_side.py": ("test_side_by_side.py",),
    "views/text.py": ("test_text_edges.py", "test_report.py", "test_fold.py"),
}
"""The modules issues 11 and 23 name, and the tests each one's mutants run against."""

SKIP_CALLS = frozenset({"TYPE_CHECKING"})
NO_MUTATE = "pragma: no mutate"


# making mutants ---------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """One change to a module's text: the span it replaces, the new text, and what it is."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str
    what: str

    def key(self, source_sha: str) -> str:
        raw = f"{source_sha}:{self.line}:{self.col}:{self.end_line}:{self.end_col}:{self.what}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


_COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr,
}
_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
            ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
            ast.NotIn: "not in", ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//",
            ast.BitOr: "|", ast.BitAnd: "&", ast.And: "and", ast.Or: "or"}


def _is_docstring(node: ast.AST, parent: ast.AST | None) -> bool:
    body = getattr(parent, "body", None)
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str) and isinstance(body, list)
            and bool(body) and body[0] is node)


def _unmutated_statement(node: ast.AST) -> bool:
    """``__all__ = ...``, ``if TYPE_CHECKING:``, imports: not behaviour worth mutating."""
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    if isinstance(node, ast.If):
        return isinstance(node.test, ast.Name) and node.test.id in SKIP_CALLS
    return isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal))


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


class _Maker:
    """Walks one module and lists its mutants."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = source.splitlines()
        self.tree = ast.parse(source)
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.skip: set[ast.AST] = set()
        self._mark_skipped()
        self.found: list[Mutant] = []

    def _mark_skipped(self) -> None:
        """Nodes never mutated: docstrings, annotations, ``__all__``, f-strings, asserts,
        ``if TYPE_CHECKING`` blocks, lines marked ``pragma: no mutate``."""
        def drop(node: ast.AST) -> None:
            self.skip.update(ast.walk(node))

        for node in ast.walk(self.tree):
            parent = self.parents.get(node)
            if _is_docstring(node, parent) or isinstance(node, (ast.JoinedStr, ast.Assert)):
                drop(node)
            elif isinstance(node, ast.arg) and node.annotation is not None:
                drop(node.annotation)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.returns is not None:
                    drop(node.returns)
            elif isinstance(node, ast.AnnAssign):
                drop(node.annotation)
                if node.value is None:
                    drop(node)
            elif _unmutated_statement(node):
                drop(node)
            if hasattr(node, "lineno") and NO_MUTATE in self.lines[node.lineno - 1]:
                drop(node)

    # recording ----------------------------------------------------------------------

    def _add(self, node: ast.AST, replacement: ast.AST | str, what: str, *,
             parens: bool = True) -> None:
        text = replacement if isinstance(replacement, str) else ast.unparse(replacement)
        if parens and isinstance(node, ast.expr):
            text = f"({text})"
        self.found.append(Mutant(node.lineno, node.col_offset,  # type: ignore[attr-defined]
                                 node.end_lineno, node.end_col_offset,  # type: ignore[attr-defined]
                                 text, what))

    def make(self) -> list[Mutant]:
        for node in ast.walk(self.tree):
            if node in self.skip:
                continue
            if isinstance(node, ast.comprehension):
                self._comprehension(node)
                continue
            if not hasattr(node, "lineno"):
                continue
            kind = type(node).__name__
            method = getattr(self, f"_{kind}", None)
            if method is not None:
                method(node)
            if isinstance(node, ast.stmt):
                self._statement(node)
        self.found.sort(key=lambda m: (m.line, m.col, m.what))
        return self.found

    # expressions ---------------------------------------------------------------------

    def _Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            swap = _COMPARE_SWAPS.get(type(op))
            if swap is None:
                continue
            new = copy.deepcopy(node)
            new.ops[i] = swap()
            self._add(node, new, f"{_SYMBOLS[type(op)]} -> {_SYMBOLS[swap]}")

    def _BoolOp(self, node: ast.BoolOp) -> None:
        new = copy.deepcopy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self._add(node, new, f"{_SYMBOLS[type(node.op)]} -> {_SYMBOLS[type(new.op)]}")
        if len(node.values) == 2:  # keep one side only
            for i, side in enumerate(node.values):
                self._add(node, side, f"{_SYMBOLS[type(node.op)]}: keep only "
                          f"{'left' if i == 0 else 'right'} ({_short(side)})")

    def _UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add(node, node.operand, f"drop not ({_short(node)})")
        elif isinstance(node.op, ast.USub):
            self._add(node, node.operand, f"drop unary minus ({_short(node)})")

    def _BinOp(self, node: ast.BinOp) -> None:
        swap = _BINOP_SWAPS.get(type(node.op))
        if swap is not None:
            new = copy.deepcopy(node)
            new.op = swap()
            self._add(node, new, f"{_SYMBOLS[type(node.op)]} -> {_SYMBOLS[swap]}")

    def _Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            self._add(node, repr(not value), f"{value} -> {not value}", parens=False)
        elif isinstance(value, int):
            for new in sorted({value + 1, value - 1, 0 if value else 1} - {value}):
                self._add(node, repr(new), f"{value} -> {new}", parens=False)
        elif isinstance(value, str) and _is_key_like(value):
            text = "" if value else "X"
            self._add(node, repr(text), f"{value!r} -> {text!r}", parens=False)

    def _Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        if isinstance(index, ast.Slice):
            for name in ("lower", "upper"):
                bound = getattr(index, name)
                if bound is None or bound in self.skip:
                    continue
                for delta in (1, -1):
                    new = copy.deepcopy(node)
                    moved = ast.BinOp(getattr(new.slice, name), ast.Add() if delta > 0
                                      else ast.Sub(), ast.Constant(1))
                    setattr(new.slice, name, moved)
                    self._add(node, new, f"slice {name} {'+' if delta > 0 else '-'} 1 "
                              f"({_short(node)})")

    def _IfExp(self, node: ast.IfExp) -> None:
        self._add(node, node.body, f"conditional: always the first ({_short(node.body)})")
        self._add(node, node.orelse, f"conditional: always the second ({_short(node.orelse)})")

    def _comprehension(self, node: ast.comprehension) -> None:
        """Drop each filter: the text from the end of what precedes it to its end."""
        for i, cond in enumerate(node.ifs):
            if cond in self.skip:
                continue
            anchor = node.ifs[i - 1] if i else node.iter
            self.found.append(Mutant(
                anchor.end_lineno, anchor.end_col_offset,  # type: ignore[arg-type]
                cond.end_lineno, cond.end_col_offset,  # type: ignore[arg-type]
                "", f"drop comprehension filter (if {_short(cond)})"))

    # statements ------------------------------------------------------------------------

    def _statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass)):
            return
        parent = self.parents.get(node)
        if isinstance(parent, ast.Module):
            return  # module level: definitions and constants, not behaviour on its own
        if isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant)
                                               and node.value.value is None):
                self._add(node, "return None", f"return None instead of {_short(node.value)}")
            return
        if isinstance(node, ast.Break):
            self._add(node, "continue", "break -> continue")
        elif isinstance(node, ast.Continue):
            self._add(node, "break", "continue -> break")
        elif isinstance(node, ast.If):
            self._if(node)
            return
        elif isinstance(node, (ast.While, ast.For, ast.With, ast.Try)):
            return  # their bodies' statements are mutated one by one
        text = self.lines[node.lineno - 1].strip()
        self._add(node, "pass", f"drop statement ({text[:50]})")

    def _if(self, node: ast.If) -> None:
        test = node.test
        self._add(test, "False", f"if never taken ({_short(test)})", parens=False)
        self._add(test, "True", f"if always taken ({_short(test)})", parens=False)


def _is_key_like(value: str) -> bool:
    """Strings worth changing: keys, names, ops, placements (not prose: messages, whys)."""
    return len(value) <= 40 and " " not in value and "\n" not in value


def mutants_of(source: str) -> list[Mutant]:
    """Every mutant of ``source`` that still compiles."""
    found = []
    for mutant in _Maker(source).make():
        try:
            compile(apply(source, mutant), "<mutant>", "exec")
        except SyntaxError:
            continue
        found.append(mutant)
    return found


def apply(source: str, mutant: Mutant) -> str:
    """``source`` with ``mutant``'s span replaced (columns are UTF-8 byte offsets)."""
    lines = source.splitlines(keepends=True)
    start = _offset(lines, mutant.line, mutant.col)
    end = _offset(lines, mutant.end_line, mutant.end_col)
    data = source.encode()
    return (data[:start] + mutant.text.encode() + data[end:]).decode()


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(text.encode()) for text in lines[:line - 1]) + col


# equivalents ------------------------------------------------------------------------------


def scopes(source: str) -> dict[int, str]:
    """Line -> the qualified name of the innermost function or class holding it."""
    found: dict[int, str] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                for line in range(child.lineno, (child.end_lineno or child.lineno) + 1):
                    found[line] = name
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return found


def load_equivalents(path: Path = EQUIVALENTS) -> dict[tuple[str, str, str], str]:
    """``(module:scope, stripped source line, mutation) -> why`` from the equivalents file
    (the scope, the function or class that holds the line, tells equal lines apart).

    Fields are separated by ``" | "``; a field holding a ``|`` of its own (``int | None``)
    writes it ``\\|``, which is no separator."""
    found: dict[tuple[str, str, str], str] = {}
    if not path.exists():
        return found
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [part.strip().replace("\\|", "|") for part in line.split(" | ")]
        if len(parts) != 4:
            raise SystemExit(f"{path}:{number}: expected "
                             "'module:scope | line | mutation | why'")
        found[(parts[0], parts[1], parts[2])] = parts[3]
    return found


# running ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    module: str
    line: int
    what: str
    code: str
    status: str  # killed, crashed (the tests could not even start), timeout, survived
    seconds: float
    key: str
    detail: str = ""


def _tests_for(module: str) -> list[str]:
    patterns = TARGETS.get(module) or (f"test_{Path(module).stem.lstrip('_')}.py",)
    found = list(dict.fromkeys(str(p) for pattern in patterns  # in order: the fastest first
                               for p in sorted((ROOT / "tests").glob(pattern))))
    if not found:
        raise SystemExit(f"{module}: no tests match {list(patterns)}")
    return found


def _copy_src(folder: Path, module: str) -> Path:
    """A copy of ``src/``, compiled, but for ``module`` (its mutants are never cached)."""
    target = folder / "src"
    shutil.copytree(SRC, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    compileall.compile_dir(target, quiet=1)
    mutated = target / "metaplan" / module
    for cached in mutated.parent.glob(f"__pycache__/{mutated.stem}.*.pyc"):
        cached.unlink()
    return target


_DEVICES = {"/dev/null": (1, 3), "/dev/full": (1, 7)}


def _restore_devices(devices: dict[str, tuple[int, int]] = _DEVICES) -> None:
    """Put back a device a mutant replaced by a regular file (outputs' mutants can: run as
    root, a write to /dev/null that renames over it); the tests' own guard fails the test
    that did it, so the mutant counts as killed."""
    for device, (major, minor) in devices.items():
        if os.path.lexists(device) and not stat.S_ISCHR(os.lstat(device).st_mode):
            os.remove(device)
            os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
            os.chmod(device, 0o666)


class Worker:
    """A private copy of ``src/`` and the pytest command mutants run with."""

    def __init__(self, module: str, tests: list[str], timeout: float) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="metaplan-mutants-"))
        self.src = _copy_src(self.folder, module)
        self.tests = tests
        self.timeout = timeout
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(self.src), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
            "PYTHONDONTWRITEBYTECODE": "1", "METAPLAN_HYPOTHESIS_PROFILE": "mutation",
            "PYTHONHASHSEED": "0"}
        self.env.pop("CI", None)

    def run(self, module: str, source: str | None) -> tuple[str, float, str]:
        """Run the tests with ``module`` replaced by ``source`` (None: the original)."""
        path = self.src / "metaplan" / module
        original = path.read_text()
        if source is not None:
            path.write_text(source)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                 "--assert=plain", "--no-header", "-o", "addopts=", *self.tests],
                cwd=ROOT, env=self.env, capture_output=True, text=True,
                timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - started, ""
        finally:
            path.write_text(original)
            _restore_devices()
        seconds = time.monotonic() - started
        tail = done.stdout.strip().splitlines()[-1:] or [""]
        if done.returncode == 0:
            return "survived", seconds, tail[0]
        if done.returncode == 1:
            failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
            return "killed", seconds, (failed[:1] or tail)[0]
        return "crashed", seconds, (done.stdout + done.stderr).strip()[-300:]

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _load_results(module: str) -> dict[str, dict[str, object]]:
    path = RESULTS / (module.replace("/", ".") + ".jsonl")
    if not path.exists():
        return {}
    return {row["key"]: row for row in map(json.loads, path.read_text().splitlines()) if row}


def _save(module: str, outcome: Outcome) -> None:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / (module.replace("/", ".") + ".jsonl")
    with path.open("a") as handle:
        handle.write(json.dumps(outcome.__dict__) + "\n")


def run_module(module: str, args: argparse.Namespace,
               equivalents: dict[tuple[str, str, str], str]) -> dict[str, object]:
    path = PACKAGE / module
    source = path.read_text()
    sha = hashlib.sha256(source.encode()).hexdigest()
    lines = source.splitlines()
    mutants = mutants_of(source)
    if args.line:
        mutants = [m for m in mutants if m.line in args.line]
    tests = _tests_for(module)
    if args.list:
        for m in mutants:
            print(f"src/metaplan/{module}:{m.line}: {m.what}")
        return {"module": module, "mutants": len(mutants)}
    known = _load_results(module) if args.resume or args.recheck or args.report else {}
    if args.recheck:
        known = {key: row for key, row in known.items() if row["status"] != "survived"}
    if args.report:
        keys = {m.key(sha) for m in mutants}
        missing = len(keys - set(known))
        if missing:
            print(f"== src/metaplan/{module}: {missing} of {len(mutants)} mutants not judged yet")
        return _summary(module, [Outcome(**row) for key, row in known.items()  # type: ignore[arg-type]
                                 if key in keys], equivalents, scopes(source))
    if not (args.resume or args.recheck):
        stale = RESULTS / (module.replace("/", ".") + ".jsonl")
        if stale.exists() and not args.line:
            stale.unlink()
    todo = [m for m in mutants if m.key(sha) not in known]
    print(f"== src/metaplan/{module}: {len(mutants)} mutants ({len(mutants) - len(todo)} "
          f"judged before), tests: {' '.join(Path(t).name for t in tests)}", flush=True)
    outcomes = [Outcome(**row) for key, row in known.items()  # type: ignore[arg-type]
                if key in {m.key(sha) for m in mutants}]
    if todo:
        probe = Worker(module, tests, timeout=3600)
        status, baseline, detail = probe.run(module, None)
        probe.close()
        if status != "survived":
            raise SystemExit(f"{module}: the tests fail without any mutant: {detail}")
        timeout = args.timeout or max(10.0, baseline * 3 + 5)
        print(f"   unmutated tests pass in {baseline:.1f}s; timeout per mutant {timeout:.0f}s",
              flush=True)
        workers = [Worker(module, tests, timeout) for _ in range(args.jobs)]
        free = list(workers)

        def judge(mutant: Mutant) -> Outcome:
            worker = free.pop()
            try:
                status, seconds, detail = worker.run(module, apply(source, mutant))
            finally:
                free.append(worker)
            return Outcome(module, mutant.line, mutant.what, lines[mutant.line - 1].strip(),
                           status, round(seconds, 2), mutant.key(sha), detail)

        try:
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                for outcome in pool.map(judge, todo):
                    _save(module, outcome)
                    outcomes.append(outcome)
                    if outcome.status != "killed" or args.verbose:
                        print(f"   {outcome.status:8} src/metaplan/{module}:{outcome.line}: "
                              f"{outcome.what}", flush=True)
        finally:
            for worker in workers:
                worker.close()
    return _summary(module, outcomes, equivalents, scopes(source))


def _summary(module: str, outcomes: list[Outcome],
             equivalents: dict[tuple[str, str, str], str],
             where: dict[int, str]) -> dict[str, object]:
    counts = dict.fromkeys(("killed", "crashed", "timeout", "survived", "equivalent"), 0)
    survivors = []
    for outcome in sorted(outcomes, key=lambda o: (o.line, o.what)):
        status = "crashed" if outcome.status == "error" else outcome.status
        scope = f"{module}:{where.get(outcome.line, '<module>')}"
        if status == "survived" and (scope, outcome.code, outcome.what) in equivalents:
            status = "equivalent"
        counts[status] += 1
        if status == "survived":
            survivors.append(f"src/metaplan/{module}:{outcome.line}: {outcome.what}"
                             f"    [{scope} | {outcome.code}]")
    total = sum(counts.values())
    live = total - counts["equivalent"]
    caught = counts["killed"] + counts["crashed"] + counts["timeout"]
    score = caught / live if live else 1.0
    print(f"-- src/metaplan/{module}: {total} mutants: {counts['killed']} killed, "
          f"{counts['crashed']} crashed, {counts['timeout']} timeout, {counts['survived']} "
          f"survived, {counts['equivalent']} equivalent; score {score:.1%}", flush=True)
    for line in survivors:
        print(f"   survived: {line}")
    return {"module": module, **counts, "total": total, "caught": caught, "live": live,
            "score": round(score, 4), "survivors": survivors}


def _targets(names: list[str]) -> Iterator[str]:
    if not names:
        yield from TARGETS
        return
    for name in names:
        path = Path(name).resolve()
        try:
            yield str(path.relative_to(PACKAGE))
        except ValueError:
            raise SystemExit(f"{name}: not a module under {PACKAGE}") from None


def _lines(text: str) -> list[int]:
    """``N`` or ``N-M`` (inclusive) as the line numbers they name."""
    first, _, last = text.partition("-")
    try:
        start, stop = int(first), int(last or first)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a line or a range N-M: {text!r}") from None
    if stop < start:
        raise argparse.ArgumentTypeError(f"an empty range: {text!r}")
    return list(range(start, stop + 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module files (default: every target)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (default: 3x the "
                        "unmutated run, plus 5)")
    parser.add_argument("--resume", action="store_true", help="skip mutants judged before "
                        "(results in .mutants/)")
    parser.add_argument("--recheck", action="store_true", help="like --resume, but run the "
                        "survivors again (after adding tests: what was caught stays caught)")
    parser.add_argument("--line", type=_lines, action="extend",
                        help="only mutants on this line, or lines N-M (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants; run nothing")
    parser.add_argument("--report", action="store_true", help="summarize the results kept in "
                        ".mutants/ for the modules as they are now; run nothing")
    parser.add_argument("--verbose", action="store_true", help="print killed mutants too")
    parser.add_argument("--json", type=Path, help="write the summary here as JSON")
    args = parser.parse_args(argv)
    equivalents = load_equivalents()
    summaries = [run_module(module, args, equivalents) for module in _targets(args.modules)]
    if not args.list:
        print("\nmodule                              caught/live  score  (survived, equivalent)")
        for s in summaries:
            print(f"{s['module']:35} {s['caught']:>5}/{s['live']!s:<5} "
                  f"{s['score']:6.1%}  ({s['survived']}, {s['equivalent']})")
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
