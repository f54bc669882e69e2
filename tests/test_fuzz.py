"""A structure-aware fuzzer: mutated real plans through the command, checking its promises.

Each case is a bundled plan with one to three mutations (types, flags, class
names, dropped fields, FQNs with Unicode, digit runs or glob characters,
glob patterns, nesting depth, repeated keys, text that is not Unicode,
numbers JSON or Python cannot hold, files that are not plans, truncation,
gzip: whole, in members, cut or corrupt). Every case runs ``normalize`` with
an existing ``-o`` and ``--record``, then ``hash``, ``verify`` and ``diff``,
and must keep the promises:

- the exit status is 0, 1 or 2, and nothing else escapes (no traceback);
- on 2, stderr is one line ``metaplan CMD: error: ...`` and the outputs are
  byte for byte as they were, with no temp file left;
- on 0, the output is what the seed's algorithm (``metaplan.oracle``, with
  rules derived here, independently of ``metaplan.rules``) makes of the
  same JSON, and replaying the written record on the case gives it again.

Cases run in process through ``metaplan.cli.main`` (fast); every
``_SUBPROCESS_EVERY``-th also as ``python -m metaplan``, which must agree.
``METAPLAN_FUZZ=N`` sets the cases per fixture: 30 locally, 300 under ``CI``
(about two minutes on two cores). A case that must be refused (a repeated
key, text that is not Unicode, a broken encoding, no ``param_plan``...)
and is accepted fails too.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from conftest import OLD, SMALL_FIXTURES, fixture_path, leftovers, raw_input
from metaplan.cli import main
from metaplan.core.rules import InlineRule
from metaplan.passes.oracle import reference_normalize

CASES = int(os.environ.get("METAPLAN_FUZZ", 300 if os.environ.get("CI") else 30))
_SUBPROCESS_EVERY = 25

Doc = dict[str, Any]


class Case:
    """A plan being mutated: the JSON data, raw text to splice in, and what was done."""

    def __init__(self, doc: Doc, rnd: random.Random) -> None:
        self.doc = doc
        self.rnd = rnd
        self.raw: dict[str, tuple[bytes, bool]] = {}
        self.done: list[str] = []

    def splice(self, text: bytes, *, invalid: bool = False) -> str:
        """A placeholder string that :meth:`encode` replaces by ``text`` (a JSON token).

        ``invalid``: wherever it lands, the file must be refused.
        """
        marker = f"@@raw{len(self.raw)}@@"
        self.raw[marker] = (text, invalid)
        return marker

    def encode(self) -> tuple[bytes, bool]:
        """The document's bytes, and whether they must be refused (as far as is sure)."""
        indent = self.rnd.choice((None, 2))
        text = json.dumps(self.doc, indent=indent, ensure_ascii=self.rnd.random() < 0.7)
        data = text.encode("utf-8")
        plan = self.doc.get("param_plan")
        refused = not isinstance(plan, dict) and plan not in self.raw  # a splice: unsure
        for marker, (raw, invalid) in self.raw.items():
            token = f'"{marker}"'.encode()
            refused = refused or (invalid and token in data)
            data = data.replace(token, raw)
        return data, refused

    def container(self) -> tuple[Any, Any]:
        """A random object or array of the document, and one of its keys (or indexes)."""
        node: Any = self.doc
        key: Any = self.rnd.choice(("param_plan", "boundary_classes", "injections",
                                    "external_state_classes", *sorted(self.doc)))
        while True:
            if isinstance(node, dict) and key not in node:
                return node, key
            child = node[key]
            children = (sorted(child) if isinstance(child, dict) else range(len(child))
                        if isinstance(child, list) else ())
            if not children or self.rnd.random() < 0.35:
                return node, key
            node, key = child, self.rnd.choice(list(children))

    def entry(self) -> tuple[str, Any]:
        plan = self.doc.get("param_plan")
        if not isinstance(plan, dict) or not plan:
            return "model.x", {}
        fqn = self.rnd.choice(sorted(plan))
        return fqn, plan[fqn]


_VALUES: tuple[Any, ...] = (None, True, False, 0, 1, -1, 2**70, 1.5, -0.0, 1e300, "", "x",
                            "false", "DeepseekV3MLP", [], [1, "a"], {}, {"a": 1},
                            {"is_boundary": 1})
_RAW_VALUES = (b"NaN", b"Infinity", b"1e400", b"-1e400", b"9" * 5000, b'"\\ud800"',
               b'"a\\udfffb"', b'"\\ud83d\\ude00"', b'"\xff"', b'"\xed\xa0\x80"', b'"\xe2\x80\xa8"',
               b'"\\u0000"', b"[]", b"{}")
_INVALID = {*_RAW_VALUES[:7], *_RAW_VALUES[8:10], b'"m\\ud800.x"', b'"m.\xff"', b'"m.\xc3("',
            b'"\\udc80"'}  # not JSON, not a float, past 4,300 digits, not Unicode, not UTF-8
_PATTERNS = ("*", "model.layers.*.mlp", "model.layers.[0-2].mlp", "model.layers.[!0].mlp",
             "[]", "[!]", "[]]", "[a][b", "[", "model.layers.[0-9.mlp", "", "**", "?", "*.mlp",
             "model.layers.3.mlp", "model.layers.10.mlp.experts.*", "\\*", "model.layers.3.mlp*")
_NAMES = ("model.layers.é.mlp", "model.layers.\U0001f600", "model." + "7" * 4400,
          "model.layers.[0].mlp", "model.layers.*", "model.layers.3.mlp\n", "", "model.\u2028",
          "model.layers.03.mlp", "model.layers.٣.mlp", "model.layers.²")


def _retype(case: Case) -> None:
    node, key = case.container()
    node[key] = copy.deepcopy(case.rnd.choice(_VALUES))
    case.done.append(f"retype {key!r}")


def _flag(case: Case) -> None:
    fqn, entry = case.entry()
    if isinstance(entry, dict):
        entry["is_boundary"] = case.rnd.choice((True, False, 1, 0, "false", None))
    case.done.append(f"flag {fqn}")


def _class(case: Case) -> None:
    classes = case.doc.get("boundary_classes")
    if isinstance(classes, dict) and classes:
        fqn = case.rnd.choice(sorted(classes))
        classes[fqn] = case.rnd.choice(("DeepseekV3MLP", "Qwen3MoeSparseMoeBlock", "Other", 3,
                                        None, [], {"name": "MLP"}))
    case.done.append("class")


def _drop(case: Case) -> None:
    node, key = case.container()
    if isinstance(node, dict):
        node.pop(key, None)
    elif isinstance(node, list) and node:
        node.pop(key)
    case.done.append(f"drop {key!r}")


def _rename(case: Case) -> None:
    fqn, _ = case.entry()
    name = case.rnd.choice(_NAMES)
    plan, classes = case.doc.get("param_plan"), case.doc.get("boundary_classes")
    if isinstance(plan, dict) and fqn in plan:
        plan[name] = plan.pop(fqn)
    if isinstance(classes, dict) and fqn in classes:
        classes[name] = classes.pop(fqn)
    case.done.append(f"rename {fqn} -> {name[:20]!r}")


def _glob(case: Case) -> None:
    injections = case.doc.get("injections")
    if not isinstance(injections, list):
        return
    pattern: Any = case.rnd.choice(_PATTERNS)
    if case.rnd.random() < 0.3:
        pattern = [pattern, case.rnd.choice(_PATTERNS)]
    if injections and isinstance(injections[0], dict) and case.rnd.random() < 0.5:
        template = copy.deepcopy(case.rnd.choice(injections))
    else:
        template = {"local_compute_fn": case.rnd.choice((
            "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn",
            {"_target_": "hyper_parallel.models.qwen3_moe.adapter.distributed.expert_parallel."
                         "qwen3moe_ep_compute_fn"}, {"target": "unknown.fn"}, 3))}
    if isinstance(template, dict):
        template["match"] = pattern
    injections.insert(case.rnd.randrange(len(injections) + 1), template)
    case.done.append(f"glob {pattern!r}")


def _deep(case: Case) -> None:
    depth = case.rnd.choice((10, 250, 252, 253, 254, 300, 5000))
    opening, closing = (b"[", b"]") if case.rnd.random() < 0.5 else (b'{"a": ', b"}")
    node, key = case.container()
    node[key] = case.splice(opening * depth + b"1" + closing * depth, invalid=depth >= 254)
    case.done.append(f"deep {depth}")


def _repeat(case: Case) -> None:
    node, _ = case.container()
    target = node if isinstance(node, dict) and node else None
    if target is None:
        return
    existing = case.rnd.choice(sorted(target))
    target[case.splice(json.dumps(existing).encode(), invalid=True)] = case.rnd.choice(
        _VALUES[:6])
    case.done.append(f"repeat {existing!r}")


def _raw_value(case: Case) -> None:
    node, key = case.container()
    raw = case.rnd.choice(_RAW_VALUES)
    node[key] = case.splice(raw, invalid=raw in _INVALID)
    case.done.append(f"raw value at {key!r}")


def _raw_key(case: Case) -> None:
    fqn, _ = case.entry()
    plan = case.doc.get("param_plan")
    if isinstance(plan, dict) and fqn in plan:
        raw = case.rnd.choice((b'"m\\ud800.x"', b'"m.\xff"', b'"m.\xc3("', b'"\\udc80"',
                               b'"m.\\u003a"', b'"m.\\ud83d\\ude00"'))
        plan[case.splice(raw, invalid=raw in _INVALID)] = plan.pop(fqn)
    case.done.append("raw key")


def _not_a_plan(case: Case) -> None:
    case.doc = copy.deepcopy(case.rnd.choice((
        {}, {"format": "metaplan.records/1", "records": []}, {"specs": []}, {"rules": []},
        {"states": [], "pipeline": "x"}, {"param_plan": None}, {"format": "metaplan.record/1"})))
    case.done.append("not a plan")


def _entry_kind(case: Case) -> None:
    fqn, _ = case.entry()
    plan = case.doc.get("param_plan")
    if isinstance(plan, dict):
        plan[fqn] = copy.deepcopy(case.rnd.choice((None, [], "x", 3, [{"is_boundary": True}])))
    case.done.append(f"entry kind {fqn}")


def _text(case: Case) -> None:
    node, key = case.container()
    if case.rnd.random() < 0.5:
        node[key] = case.rnd.choice(("é", "\U0001f600", "\u2028", "\x7f", "a:b",
                                     "model.layers.3.mlp"))
    else:  # JSON escapes for valid text, a colon among them
        node[key] = case.splice(case.rnd.choice((b'"\\u00e9"', b'"a\\u003ab"', b'"\\u003A"',
                                                 b'"\\ud83d\\ude00"', b'"\\\\u003a"')))
    case.done.append(f"text at {key!r}")


_STRUCTURAL: tuple[Callable[[Case], None], ...] = (
    _retype, _flag, _flag, _class, _drop, _rename, _rename, _glob, _glob, _glob, _deep, _repeat,
    _raw_value, _raw_key, _not_a_plan, _entry_kind, _entry_kind, _text, _text)


_BROKEN = ("cut", "utf16", "gzip cut", "gzip flip", "gzip trailing", "empty")


def _bytes_level(data: bytes, rnd: random.Random) -> tuple[bytes, str]:
    """Maybe cut the text, change its encoding, or gzip it (whole, in members, cut, corrupt)."""
    roll = rnd.random()
    how = ("none" if roll < 0.6 else rnd.choice(("gzip", "gzip", "members", "bom")) if roll < 0.8
           else rnd.choice(_BROKEN))
    if how == "cut":
        return data[:rnd.randrange(len(data))], how
    if how == "bom":
        return b"\xef\xbb\xbf" + data, how
    if how == "utf16":
        return data.decode("utf-8", "surrogateescape").encode("utf-16", "surrogatepass"), how
    if how == "empty":
        return b"", how
    if how == "members":
        at = rnd.randrange(len(data) + 1)
        return gzip.compress(data[:at], mtime=0) + gzip.compress(data[at:], mtime=0), how
    packed = gzip.compress(data, mtime=0) if how != "none" else data
    if how == "gzip cut":
        packed = packed[:rnd.randrange(2, len(packed))]
    elif how == "gzip flip":
        at = rnd.randrange(10, len(packed))
        packed = packed[:at] + bytes([packed[at] ^ 0x55]) + packed[at + 1:]
    elif how == "gzip trailing":
        packed += b"junk"
    return packed, how


class Mutated(NamedTuple):
    """A fuzz case: its bytes, what was done to them, and whether they must be refused."""

    data: bytes
    what: str
    refused: bool


def make_case(name: str, seed: int) -> Mutated:
    """A mutated fixture ``name``, the same for the same seed."""
    rnd = random.Random(f"{name}:{seed}")
    case = Case(json.loads(raw_input(name)), rnd)
    for _ in range(rnd.choice((1, 1, 2, 3))):
        rnd.choice(_STRUCTURAL)(case)
    text, refused = case.encode()
    data, how = _bytes_level(text, rnd)
    return Mutated(data, f"{name} seed {seed}: {', '.join(case.done)}; bytes: {how}",
                   refused or how in _BROKEN)


# the reference -------------------------------------------------------------------------


def _target(value: Any) -> Any:
    if isinstance(value, dict):
        return value.get("_target_") or value.get("target")
    return value


def _rules(meta: Doc) -> list[InlineRule]:
    """The rules of ``meta``'s injections, read as the README says (not by metaplan.rules)."""
    rules = []
    for item in meta.get("injections") or ():
        match = item["match"]
        rules.append(InlineRule(match=tuple(match) if isinstance(match, list) else (match,),
                                local_compute_target=_target(item.get("local_compute_fn"))))
    for item in meta.get("module_overrides") or ():
        match = item["match"]
        rules.append(InlineRule(match=tuple(match) if isinstance(match, list) else (match,),
                                replace_target=_target(item.get("replace_target",
                                                                item.get("target")))))
    return rules


def _reference(data: bytes) -> bytes:
    """What the seed makes of the accepted case: JSON read by the stdlib, normalized in place."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    meta = json.loads(data.removeprefix(b"\xef\xbb\xbf"))
    model_type = meta.get("model_type")
    reference_normalize(meta, _rules(meta), model_type if isinstance(model_type, str) else None,
                        per_spec_patterns=True)
    return json.dumps(meta, indent=2, sort_keys=True).encode()


# running -------------------------------------------------------------------------------


def in_process(*args: object) -> tuple[int, bytes, str]:
    """``metaplan ARGS`` in this process: exit status, stdout bytes, stderr text."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([os.fspath(arg) if isinstance(arg, Path) else str(arg) for arg in args])
        out.flush()
    stdout = out.buffer
    assert isinstance(stdout, io.BytesIO)
    return code, stdout.getvalue(), err.getvalue()


def _one_line_error(command: str, err: str, what: str) -> None:
    assert err.startswith(f"metaplan {command}: error: "), what
    assert err.count("\n") == 1 and err.endswith("\n"), what
    assert "Traceback" not in err, what


def check_case(folder: Path, case: Mutated, original: Path) -> int:
    """Run one case through the commands; assert every promise; the normalize exit status."""
    data, what = case.data, case.what
    folder.mkdir()
    plan = folder / "case.json"
    plan.write_bytes(data)
    out, rec = folder / "out.json", folder / "rec.json"
    out.write_bytes(OLD)
    rec.write_bytes(OLD)
    try:
        code, _, err = in_process("normalize", plan, "-o", out, "--record", rec, "-q")
    except Exception as exc:  # a traceback: the one thing never allowed
        raise AssertionError(f"{what}: normalize raised {exc!r}") from exc
    assert code in (0, 2), (what, code, err)
    assert code == 2 or not case.refused, (what, "accepted, but it must be refused")
    assert plan.read_bytes() == data, what
    if code == 2:
        _one_line_error("normalize", err, what)
        assert out.read_bytes() == OLD and rec.read_bytes() == OLD, what
        assert leftovers(folder) == [], what
    else:
        assert err == "", (what, err)
        assert out.read_bytes() == _reference(data), what
        again = folder / "replayed.json"
        replayed = in_process("replay", plan, rec, "-o", again)
        assert replayed[0] == 0 and again.read_bytes() == out.read_bytes(), (what, replayed)
    for args in (("hash", plan), ("verify", plan), ("diff", plan, original),
                 ("diff", original, plan, "--format", "jsonpatch")):
        try:
            status, _, err = in_process(*args)
        except Exception as exc:
            raise AssertionError(f"{what}: {args[0]} raised {exc!r}") from exc
        assert status in (0, 1, 2), (what, args, status)
        if status == 2:
            _one_line_error(str(args[0]), err, what)
        else:
            assert code == 0, (what, args, "accepted what normalize refused")
    return code


def check_subprocess(folder: Path, data: bytes, what: str, expected: int) -> None:
    """The same case through ``python -m metaplan``: the same status, the same promises."""
    plan, out = folder / "case.json", folder / "sub-out.json"
    out.write_bytes(OLD)
    done = subprocess.run([sys.executable, "-m", "metaplan", "normalize", str(plan), "-o",
                           str(out), "-q"], capture_output=True, timeout=300, check=False)
    assert done.returncode == expected, (what, done.returncode, done.stderr[-2000:])
    assert b"Traceback" not in done.stderr, what
    if expected == 2:
        assert done.stderr.count(b"\n") == 1 and out.read_bytes() == OLD, what
    else:
        assert out.read_bytes() == _reference(data), what
    assert plan.read_bytes() == data, what


@pytest.mark.parametrize("name", SMALL_FIXTURES)
def test_mutated_plans_keep_every_promise(name: str, tmp_path: Path) -> None:
    seen = {0: 0, 2: 0}
    for seed in range(CASES):
        case = make_case(name, seed)
        folder = tmp_path / f"case{seed}"
        code = check_case(folder, case, fixture_path(name))
        seen[code] += 1
        if seed % _SUBPROCESS_EVERY == 0:
            check_subprocess(folder, case.data, case.what, code)
    assert seen[0] and seen[2], seen  # the cases reach both sides of the loader


def test_the_fuzzer_reaches_every_mutation_and_is_reproducible() -> None:
    assert make_case("llama3_8b.hf4", 7) == make_case("llama3_8b.hf4", 7)
    done = " ".join(make_case(name, seed).what for name in SMALL_FIXTURES for seed in range(200))
    for word in ("retype", "flag", "class", "drop", "rename", "glob", "deep", "repeat",
                 "raw value", "raw key", "not a plan", "entry kind", "text at", "bytes: cut",
                 "bytes: bom", "bytes: utf16", "bytes: members", "bytes: gzip flip",
                 "bytes: gzip cut", "bytes: gzip trailing", "bytes: empty"):
        assert word in done, word
