"""Reliability (issue #5): bad input, faults, determinism: nothing lost, nothing silently wrong.

Bad input is tried as a user meets it, through the command line: exit 2,
one line on stderr naming the file and where, no traceback, and an existing
``-o`` file left byte for byte as it was.
"""

from __future__ import annotations

import ast
import copy
import functools
import gzip
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metaplan
import metaplan.testing
from conftest import (
    DATA,
    OLD,
    SOAK_EXAMPLES,
    assert_refused,
    fixture_path,
    leftovers,
    metaplan_cli,
    raw_input,
)
from metaplan.passes.compat import normalize_inline_meta
from metaplan.records.codec import dumps_records
from metaplan.testing import bad_plan_dicts, plan_dicts, rule_lists, spec_registries

NAME = "deepseek_v3.hf5"
SRC = Path(metaplan.__file__).resolve().parent
# the catalog --------------------------------------------------------------------


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _deep(depth: int) -> bytes:
    return b'{"x": ' + b"[" * depth + b"]" * depth + b"}"


def _plan(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


TRUNCATED_GZIP = fixture_path(NAME).read_bytes()[:4000]
GARBAGE_GZIP = _gz(b"{}")[:10] + bytes(range(256)) * 4  # a real header, then no deflate stream
BAD_CRC_GZIP = _gz(b'{"a": 1}')[:-8] + b"\0" * 8

PLAN_CASES: dict[str, tuple[bytes | None, bytes]] = {
    # name: (file content, or None for no file at all; what stderr must say)
    "missing file": (None, b"no such file"),
    "not JSON": (b"this is not json\n", b"not valid JSON: Expecting value at line 1, column 1"),
    "truncated JSON": (raw_input(NAME)[:5000],
                       b"not valid JSON: Unterminated string starting at line 96, column 5"),
    "empty file": (b"", b"empty file: expected a JSON object"),
    "only whitespace": (b" \n\t\n", b"empty file"),
    "top level an array": (b"[1, 2]", b"a plan is a JSON object, found an array"),
    "top level a string": (b'"plan"', b'a plan is a JSON object, found a string ("plan")'),
    "top level null": (b"null", b"a plan is a JSON object, found null"),
    "not UTF-8": (b'{"model_type": "\xff\xfe"}',
                  b"model_type: not UTF-8 text: byte 0xff at line 1, column 17 (invalid start"),
    "a lone surrogate in an FQN": (b'{"param_plan": {"m\\ud800.x": {}}}',
                                   b'param_plan["m\\ud800.x"]: a key that is not Unicode text: '
                                   b"it holds the lone surrogate \\ud800"),
    "a lone surrogate in a value": (b'{"param_plan": {"m": {"p": ["a\\udfff"]}}}',
                                    b'param_plan["m"].p[0]: a string that is not Unicode text'),
    "not UTF-8 in an FQN": (b'{"param_plan": {"m.\xc3(": {}}}',
                            b'param_plan["m.\\udcc3("]: not UTF-8 text: byte 0xc3 at line 1, '
                            b"column 20 (invalid continuation byte)"),
    "UTF-16 with a byte order mark": ('{"param_plan": {}}'.encode("utf-16"),
                                      b"UTF-16 text (it starts with a byte order mark): metaplan "
                                      b"reads UTF-8 JSON only; convert it, e.g. iconv -f UTF-16"),
    "UTF-16 without one": ('{"param_plan": {}}'.encode("utf-16-le"),
                           b"UTF-16 text (zero bytes between its characters)"),
    "UTF-32": ('{"param_plan": {}}'.encode("utf-32"), b"UTF-32 text"),
    "a key twice": (b'{"param_plan": {}, "model_type": "a", "model_type": "b"}',
                    b'<root>: the key "model_type" appears twice in one object; JSON readers '
                    b"disagree on which one counts: keep one"),
    "a key twice in an entry": (b'{"param_plan": {"m": {"is_boundary": true, "x": "\\u003a", '
                                b'"is_boundary": false}}}',
                                b'param_plan["m"]: the key "is_boundary" appears twice'),
    "NaN": (b'{"x": NaN}', b"NaN is not a JSON number"),
    "Infinity": (b'{"x": [1, Infinity]}', b"Infinity is not a JSON number"),
    "-Infinity": (b'{"x": -Infinity}', b"-Infinity is not a JSON number"),
    "1e400 (reads as infinity)": (b'{"x": {"y": 1e400}}', b"x.y: inf is not a JSON number"),
    "nesting 100000 deep": (_deep(100_000), b"nested more than 254 levels deep"),
    "nesting 600 deep": (_deep(600), b"x[0][0][0][0][0]...: nested more than 254 levels deep"),
    "corrupt gzip body": (GARBAGE_GZIP, b"starts as gzip data but does not decompress"),
    "truncated gzip": (TRUNCATED_GZIP, b"does not decompress"),
    "gzip with a bad CRC": (BAD_CRC_GZIP, b"does not decompress"),
    "param_plan an array": (_plan(param_plan=[1]),
                            b"param_plan: must be an object of FQN -> value, found an array"),
    "is_boundary 1": (_plan(param_plan={"model.layers.3.mlp": {"is_boundary": 1}}),
                      b'param_plan["model.layers.3.mlp"].is_boundary: must be true or false, '
                      b"found a number (1)"),
    'is_boundary "false"': (_plan(param_plan={"m": {"is_boundary": "false"}}),
                            b'is_boundary: must be true or false, found a string ("false")'),
    "is_boundary null": (_plan(param_plan={"m": {"is_boundary": None}}),
                         b'param_plan["m"].is_boundary: must be true or false, found null'),
    "boundary_classes a string": (_plan(boundary_classes="MLP"),
                                  b"boundary_classes: must be an object of FQN -> value"),
    "class name a number": (_plan(boundary_classes={"model.layers.3.mlp": 3}),
                            b'boundary_classes["model.layers.3.mlp"]: a class name is a string, '
                            b"found a number (3)"),
    "class name null": (_plan(boundary_classes={"m": None}),
                        b'boundary_classes["m"]: a class name is a string, found null'),
    "external_state_classes a string": (_plan(external_state_classes="MoE"),
                                        b"external_state_classes: must be an array, found a "
                                        b'string ("MoE")'),
    "external class a number": (_plan(external_state_classes=["MoE", 7]),
                                b"external_state_classes[1]: a class name is a string"),
    "injections an object": (_plan(injections={"match": "x"}),
                             b"injections: must be an array, found an object"),
    "injection a number": (_plan(injections=[3]),
                           b"injections[0]: an injection is an object with a match"),
    "injection without match": (_plan(injections=[{"local_compute_fn": "x", "ep": 8}]),
                                b"injections[0]: an injection needs a match"),
    "injection invalid glob": (_plan(injections=[{"match": "model.layers.[0-2.mlp"}]),
                               b'injections[0].match: invalid glob pattern "model.layers.[0-2.mlp"'
                               b": the '[' at 13 is never closed"),
    "injection empty glob": (_plan(injections=[{"match": ["*.mlp", ""]}]),
                             b"injections[0].match[1]: invalid glob pattern"),
    "override target a number": (_plan(module_overrides=[{"match": "m", "target": 3}]),
                                 b"module_overrides[0].replace_target: must be a string or an "
                                 b"object with _target_, found a number (3)"),
    "model_type a number": (_plan(model_type=3),
                            b"model_type: must be a string (the model type specs are looked up "
                            b"by) or null, found a number (3)"),
}


@pytest.mark.parametrize("case", PLAN_CASES, ids=list(PLAN_CASES))
def test_a_bad_plan_exits_2_naming_the_file_and_where(case: str, tmp_path: Path) -> None:
    content, fragment = PLAN_CASES[case]
    bad, out = tmp_path / "bad.json", tmp_path / "out.json"
    if content is not None:
        bad.write_bytes(content)
    out.write_bytes(OLD)
    assert_refused(metaplan_cli("normalize", bad, "-o", out), "normalize", bad, fragment)
    assert_refused(metaplan_cli("hash", bad), "hash", bad, fragment)
    assert_refused(metaplan_cli("diff", fixture_path(NAME), bad, "-o", out), "diff", bad,
                   fragment)
    assert out.read_bytes() == OLD
    assert leftovers(tmp_path) == []


def test_a_directory_given_as_the_plan_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    assert_refused(metaplan_cli("normalize", tmp_path, "-o", out), "normalize", tmp_path,
                   b"cannot read")
    assert out.read_bytes() == OLD


DEEPSEEK = "hyper_parallel.distributed.expert_parallel.recipes.deepseekv3_ep_compute_fn"
SPEC = {"target": DEEPSEEK, "kind": "moe_ep_routed", "target_class": "DeepseekV3MoE",
        "strip_boundary_subpatterns": ["experts.*"]}

SETTINGS_CASES: dict[str, tuple[str, Any, bytes]] = {
    # name: (option, file content (bytes, or JSON data), what stderr must say)
    "specs not JSON": ("--specs", b"{specs", b"not valid JSON"),
    "specs empty": ("--specs", b"", b"empty file"),
    "specs not a list": ("--specs", {"specs": {"a": 1}},
                         b'expected {"specs": [...]}, found an object with "specs": an object'),
    "specs misspelt key": ("--specs", {"specs": [{**SPEC, "taget": "x"}]},
                           b"specs[0]: unknown spec field(s) ['taget']; known: ['target',"),
    "spec without target": ("--specs", {"specs": [{"kind": "moe_ep_routed"}]},
                            b"specs[0].target: must be a string, found null"),
    "spec target_class a number": ("--specs", {"specs": [{**SPEC, "target_class": 3}]},
                                   b"specs[0].target_class: must be a string or null, found a "
                                   b"number (3)"),
    "spec patterns a string": ("--specs",
                               {"specs": [{**SPEC, "strip_boundary_subpatterns": "experts.*"}]},
                               b'must be an array of strings (glob patterns), found a string '
                               b'("experts.*"): write ["experts.*"]'),
    "spec pattern a number": ("--specs",
                              {"specs": [{**SPEC, "strip_boundary_subpatterns": ["a", 1]}]},
                              b"strip_boundary_subpatterns[1]: a glob pattern is a string"),
    "spec invalid glob": ("--specs",
                          {"specs": [{**SPEC, "strip_boundary_subpatterns": ["experts.[0-"]}]},
                          b'strip_boundary_subpatterns[0]: invalid glob pattern "experts.[0-"'),
    "spec empty glob": ("--specs", {"specs": [{**SPEC, "strip_boundary_subpatterns": [""]}]},
                        b"an empty pattern matches no module"),
    "rules not JSON": ("--rules", b'{"rules": [', b"not valid JSON"),
    "rules a number": ("--rules", {"rules": 3},
                       b'expected {"rules": [...]} or an array of rules, found an object with '
                       b'"rules": a number (3)'),
    "rule unknown field": ("--rules", {"rules": [{"match": "m", "local_compute_fn": "x"}]},
                           b"rules[0]: unknown rule field(s) ['local_compute_fn']"),
    "rule without patterns": ("--rules", {"rules": [{"match": [], "local_compute_target": "x"}]},
                              b"rules[0].match: a rule needs at least one pattern"),
    "rule invalid glob": ("--rules", {"rules": [{"match": ["model.layers.*.mlp", "[!"]}]},
                          b"rules[0].match[1]: invalid glob pattern"),
}


@pytest.mark.parametrize("case", SETTINGS_CASES, ids=list(SETTINGS_CASES))
def test_bad_specs_and_rules_exit_2_naming_the_file_and_where(case: str, tmp_path: Path) -> None:
    option, content, fragment = SETTINGS_CASES[case]
    bad, out = tmp_path / "settings.json", tmp_path / "out.json"
    bad.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    out.write_bytes(OLD)
    done = metaplan_cli("normalize", fixture_path(NAME), option, bad, "-o", out)
    assert_refused(done, "normalize", bad, fragment)
    assert out.read_bytes() == OLD
    assert leftovers(tmp_path) == []


# replay safety ------------------------------------------------------------------


class Replay(NamedTuple):
    plan: Callable[[Path], Path]
    record: Callable[[Path], Path]
    fragment: bytes


def _normalized_record(folder: Path) -> Path:
    rec = folder / "rec.json"
    done = metaplan_cli("normalize", fixture_path(NAME), "-o", folder / "n.json", "--record", rec)
    assert done.returncode == 0, done.stderr
    return rec


def _edited_plan(folder: Path) -> Path:
    meta = json.loads(raw_input(NAME))
    meta["codegen_version"] = "edited"
    path = folder / "edited.json"
    path.write_text(json.dumps(meta))
    return path


def _written(name: str, content: bytes) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        (folder / name).write_bytes(content)
        return folder / name
    return write


REPLAY_CASES: dict[str, Replay] = {
    "record of another plan": Replay(lambda _: fixture_path("qwen3_moe.hf5"), _normalized_record,
                                     b'record \'strip_ep_sub_boundaries\': '
                                     b'param_plan["model.layers.'),
    "record applied twice": Replay(lambda folder: folder / "n.json", _normalized_record,
                                   b"record 'strip_ep_sub_boundaries': "
                                   b'param_plan["model.layers.'),
    "plan edited elsewhere": Replay(_edited_plan, _normalized_record,
                                    b"record 'strip_ep_sub_boundaries' was made "
                                    b"on plan sha256:"),
    "record not JSON": Replay(lambda _: fixture_path(NAME), _written("rec.json", b"{"),
                              b"not valid JSON"),
    "record of the wrong shape": Replay(lambda _: fixture_path(NAME),
                                        _written("rec.json", b'{"records": [{"pass": 1}]}'),
                                        b"records[0].pass: must be a string"),
}


@pytest.mark.parametrize("case", REPLAY_CASES, ids=list(REPLAY_CASES))
def test_a_refused_replay_exits_2_and_writes_nothing(case: str, tmp_path: Path) -> None:
    setup = REPLAY_CASES[case]
    record = setup.record(tmp_path)
    plan = setup.plan(tmp_path)
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    done = metaplan_cli("replay", plan, record, "-o", out)
    assert_refused(done, "replay", record, setup.fragment)
    if setup.fragment.startswith(b"record '"):  # refused, not unreadable: both files named
        assert f"replay refused: {record} does not fit {plan}: ".encode() in done.stderr
    assert out.read_bytes() == OLD
    assert leftovers(tmp_path) == []


# no data lost -------------------------------------------------------------------

_SLOW_WRITER = """
import os, sys, time
real_fdopen = os.fdopen

class Slow:
    def __init__(self, handle): self.handle = handle
    def __enter__(self): return self
    def __exit__(self, *exc): self.handle.close()
    def write(self, data):
        step = 1 << 20
        for start in range(0, len(data), step):
            self.handle.write(data[start:start + step])
            self.handle.flush()
            print("writing", flush=True)  # the parent kills us here, mid-write
            time.sleep(0.2)
        return len(data)

os.fdopen = lambda fd, mode="r", *a, **k: Slow(real_fdopen(fd, mode, *a, **k))
from metaplan.cli import main
sys.exit(main(sys.argv[1:]))
"""

_DIES_AT_RENAME = """
import os, sys
os.replace = lambda *args: os._exit(9)
from metaplan.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _driver(folder: Path, code: str, *args: object) -> subprocess.Popen[bytes]:
    script = folder / "driver.py"
    script.write_text(code)
    return subprocess.Popen([sys.executable, str(script), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_kill_mid_write_leaves_the_old_output_whole(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out, rec = out_dir / "big.json", out_dir / "rec.json"
    out.write_bytes(OLD)
    rec.write_bytes(OLD)
    child = _driver(tmp_path, _SLOW_WRITER, "normalize", fixture_path("deepseek_v3.hf4"),
                    "-o", out, "--record", rec, "-q")
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline() == b"writing\n", child.stderr.read()
    child.send_signal(signal.SIGKILL)
    assert child.wait(timeout=60) == -signal.SIGKILL
    child.stdout.close()
    child.stderr.close()
    assert out.read_bytes() == OLD and rec.read_bytes() == OLD
    left = leftovers(out_dir)  # the one thing a kill leaves: a clearly named partial temp file
    assert len(left) == 1 and left[0].endswith(".tmp"), left
    partial = (out_dir / left[0]).read_bytes()
    result = metaplan.normalize(metaplan.load(fixture_path("deepseek_v3.hf4")))
    whole = [metaplan.dumps(result.plan), dumps_records(result.records)]
    assert any(0 < len(partial) < len(full) and full.startswith(partial) for full in whole)
    assert sorted(p.name for p in out_dir.iterdir()) == sorted([*left, "big.json", "rec.json"])


def test_dying_before_the_rename_leaves_the_old_output_whole(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    child = _driver(tmp_path, _DIES_AT_RENAME, "normalize", fixture_path(NAME), "-o", out)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 9, err
    assert out.read_bytes() == OLD
    (left,) = leftovers(tmp_path)
    assert left.endswith(".tmp")
    assert (tmp_path / left).read_bytes() == metaplan.dumps(
        metaplan.normalize(metaplan.load(fixture_path(NAME))).plan)


def _state(paths: list[Path]) -> list[tuple[bytes, int]]:
    return [(path.read_bytes(), path.stat().st_mtime_ns) for path in paths]


def test_inputs_are_never_modified_on_disk(tmp_path: Path, specs_path: Path) -> None:
    plan, other = tmp_path / "plan.json.gz", tmp_path / "other.json"
    plan.write_bytes(fixture_path(NAME).read_bytes())
    other.write_bytes(raw_input("qwen3_moe.hf5"))
    specs = tmp_path / "specs.json"
    specs.write_bytes(specs_path.read_bytes())
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"match": "model.layers.*.mlp",
                                            "local_compute_target": DEEPSEEK}]}))
    rec = tmp_path / "rec.json"
    assert metaplan_cli("normalize", plan, "--record", rec, "-o", tmp_path / "n.json",
                        "--specs", specs, "--rules", rules).returncode == 0
    inputs = [plan, other, specs, rules, rec, fixture_path(NAME)]
    before = _state(inputs)
    runs = [("normalize", plan, "--specs", specs, "--rules", rules, "-o", tmp_path / "o.json"),
            ("replay", plan, rec, "-o", tmp_path / "r.json"),
            ("replay", other, rec, "-o", tmp_path / "refused.json"),
            ("invert", rec, "-o", tmp_path / "i.json"),
            ("diff", plan, other, "--format", "json", "-o", tmp_path / "d.json"),
            ("explain", plan, "model.layers.3.mlp", "--specs", specs),
            ("hash", plan, other, fixture_path(NAME))]
    codes = [metaplan_cli(*run).returncode for run in runs]
    assert codes == [0, 0, 2, 0, 1, 0, 0]  # diff: 1, the plans differ
    assert _state(inputs) == before


# determinism --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["deepseek_v3.hf5", "qwen3_moe.hf5"])
def test_outputs_records_and_hashes_are_the_same_under_every_hash_seed(name: str,
                                                                       tmp_path: Path) -> None:
    seen: dict[str, set[bytes]] = {"out": set(), "rec": set(), "hash": set(), "diff": set()}
    for seed in ("0", "1", "42", "12345", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        folder = tmp_path / seed
        folder.mkdir()
        out, rec = folder / "out.json", folder / "rec.json"
        done = metaplan_cli("normalize", fixture_path(name), "-o", out, "--record", rec, "-q",
                            env=env)
        assert done.returncode == 0, done.stderr
        hashed = metaplan_cli("hash", fixture_path(name), out, env=env)
        diffed = metaplan_cli("diff", fixture_path(name), out, "--format", "json", env=env)
        assert hashed.returncode == 0 and diffed.returncode == 1  # diff: 1, they differ
        seen["out"].add(out.read_bytes())
        seen["rec"].add(rec.read_bytes())
        seen["hash"].add(hashed.stdout.replace(os.fsencode(folder), b"OUT"))
        seen["diff"].add(diffed.stdout)
    assert {key: len(values) for key, values in seen.items()} == dict.fromkeys(seen, 1)
    (out_bytes,) = seen["out"]
    assert out_bytes == gzip.decompress((DATA / f"{name}.expected.json.gz").read_bytes())
    (hash_line,) = seen["hash"]
    plan_hash = metaplan.load(fixture_path(name)).content_hash
    result_hash = metaplan.loads(out_bytes).content_hash
    assert hash_line.split() == [plan_hash.encode(), os.fsencode(fixture_path(name)),
                                 result_hash.encode(), b"OUT/out.json"]


# safe loading -------------------------------------------------------------------

_UNSAFE_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "yaml", "ruamel",
                   "jsonpickle"}
_UNSAFE_CALLS = {"eval", "exec", "compile", "__import__"}


def _unsafe_uses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names = [node.func.id] if node.func.id in _UNSAFE_CALLS else []
        else:
            continue
        found += [f"{path.name}:{node.lineno}: {name}" for name in names
                  if name.split(".")[0] in _UNSAFE_MODULES | _UNSAFE_CALLS]
    return found


def test_nothing_loads_code_or_objects_from_data() -> None:
    modules = sorted(SRC.rglob("*.py"))
    assert len(modules) > 10
    assert [use for path in modules for use in _unsafe_uses(path)] == []
    text = "\n".join(path.read_text() for path in modules)
    for word in ("pickle", "yaml.load", "eval(", "exec("):
        assert word not in text, word


def test_the_unsafe_use_check_sees_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import pickle\nfrom yaml import load\nx = eval('1')\nimport json\n")
    assert _unsafe_uses(sample) == ["sample.py:1: pickle", "sample.py:2: yaml",
                                    "sample.py:3: eval"]


# generated-input soak -----------------------------------------------------------


def _mutated(text: bytes, rnd: random.Random) -> bytes:
    """``text`` cut, with a byte dropped, replaced or inserted, or with a line doubled."""
    at = rnd.randrange(len(text) + 1)
    how = rnd.randrange(5)
    if how == 0:
        return text[:at]
    if how == 1:
        return text[:at] + text[at + 1:]
    if how == 2:
        return text[:at] + bytes([rnd.choice(b'{}[]",:0-e.\\ntfa\xff')]) + text[at + 1:]
    if how == 3:
        return text[:at] + bytes([rnd.randrange(256)]) + text[at:]
    lines = text.split(b"\n")
    line = rnd.randrange(len(lines))
    return b"\n".join([*lines[:line + 1], *lines[line:]])


def _documented(call: Callable[[], Any]) -> Any:
    """``call()``, or the InputError it raises; any other exception fails the soak."""
    try:
        return call()
    except metaplan.InputError as exc:
        return exc


@settings(max_examples=SOAK_EXAMPLES)
@given(st.data())
def test_soak_generated_plans_through_every_pass_and_the_loader(data: st.DataObject) -> None:
    odd = data.draw(st.booleans(), label="odd_flags")
    meta = data.draw(plan_dicts(odd_flags=odd, max_layers=3), label="meta")
    specs = data.draw(spec_registries(), label="specs")
    rules = data.draw(st.one_of(st.just(metaplan.FROM_PLAN), rule_lists()), label="rules")
    model_type = data.draw(st.sampled_from((metaplan.FROM_PLAN, None, "deepseek_v3")))
    snapshot = copy.deepcopy(meta)
    plan = metaplan.Plan.from_json(meta)
    before = metaplan.dumps(plan)
    stages = metaplan.normalize_pipeline(specs=specs, rules=rules, model_type=model_type)
    for stage in (*stages, metaplan.strip_ep_sub_boundaries(specs=specs),
                  metaplan.mark_shared_class_boundaries()):
        done = stage(plan)
        assert metaplan.apply_changes(plan, done.record.changes) == done.plan
    result = metaplan.normalize(plan, specs=specs, rules=rules, model_type=model_type)
    assert metaplan.normalize(result.plan, specs=specs, rules=rules,
                              model_type=model_type).plan == result.plan
    in_place = copy.deepcopy(meta)
    used = metaplan.rules_from_plan(meta) if rules is metaplan.FROM_PLAN else rules
    normalize_inline_meta(in_place, used, meta.get("model_type") if model_type is
                          metaplan.FROM_PLAN else model_type, specs=specs)
    assert meta == snapshot and metaplan.dumps(plan) == before

    text = json.dumps(meta, indent=2, sort_keys=True).encode()
    loaded = _documented(lambda: metaplan.loads(text, source="gen.json"))
    if odd and any(isinstance(e, dict) and type(e.get("is_boundary")) is int
                   for e in meta["param_plan"].values()):
        assert isinstance(loaded, metaplan.PlanError)
        assert ".is_boundary: must be true or false" in str(loaded)
    else:
        assert isinstance(loaded, metaplan.Plan) and metaplan.dumps(loaded) == text == before
    rnd = random.Random(data.draw(st.integers(0, 2**32), label="mutation seed"))
    for _ in range(3):
        broken = _mutated(text, rnd)
        reread = _documented(functools.partial(metaplan.loads, broken, source="gen.json"))
        if isinstance(reread, metaplan.Plan):
            assert metaplan.loads(metaplan.dumps(reread)) == reread
        else:
            assert str(reread).startswith("gen.json: ")
    assert meta == snapshot


@settings(max_examples=max(SOAK_EXAMPLES // 5, 50))
@given(bad_plan_dicts())
def test_soak_bad_plans_are_refused_where_they_are_bad(case: tuple[dict[str, Any], str]) -> None:
    meta, where = case
    snapshot = copy.deepcopy(meta)
    refused = _documented(lambda: metaplan.loads(json.dumps(meta), source="bad.json"))
    assert isinstance(refused, metaplan.InputError)
    assert str(refused).startswith("bad.json: ") and f" {where}" in str(refused)
    assert meta == snapshot


@pytest.mark.parametrize("where", ["top", "entry"])
def test_records_of_plans_that_load_replay_however_deep_they_nest(where: str,
                                                                  tmp_path: Path) -> None:
    for depth in range(240, 260):  # the deepest value each place may hold
        deep: Any = []
        for _ in range(depth - 1):
            deep = [deep]
        meta: dict[str, Any] = {"param_plan": {"m": {"is_boundary": True}}}
        if where == "top":
            meta["source"] = deep
        else:
            meta["param_plan"]["m"]["params"] = {"w": deep}
        try:
            metaplan.Plan.from_json(meta)
        except metaplan.InputError:
            break
        b = json.dumps(meta)
    a, after = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"param_plan": {"m": {"is_boundary": True}}}))
    after.write_text(b)
    record = tmp_path / "rec.json"
    assert metaplan_cli("diff", a, after, "--format", "json", "-o", record).returncode == 1
    done = metaplan_cli("replay", a, record)
    assert done.returncode == 0, done.stderr
    assert metaplan.loads(done.stdout) == metaplan.load(after)


def test_compare_checks_every_argument_before_it_prints_a_note() -> None:
    done = metaplan_cli("compare", fixture_path(NAME), "--model-type", "foo",
                        "--against-passes", "bogus")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.count(b"\n") == 1 and b"error: " in done.stderr
    assert b"note:" not in done.stderr
