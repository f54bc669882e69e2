"""Issue 11's failures of docs/guarantees.md's promises, each tried through the real command line.

Every refusal here is exit 2 with one line on stderr naming what and where,
no traceback, nothing written, and the inputs exactly as they were.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from conftest import OLD, assert_refused, fixture_path, leftovers, metaplan_cli, raw_input

NAME = "deepseek_v3.hf5"
PLAN = fixture_path(NAME)
TINY = {"param_plan": {"m": {"is_boundary": True}}, "boundary_classes": {"m": "MLP"}}


def _file(folder: Path, name: str, content: object) -> Path:
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return path


def _state(*paths: Path) -> list[tuple[bytes, int]]:
    return [(path.read_bytes(), path.stat().st_mtime_ns) for path in paths]


def _shell(command: str, folder: Path) -> subprocess.CompletedProcess[bytes]:
    """``command`` in sh, where ``metaplan`` is this interpreter's ``-m metaplan``."""
    env = {**os.environ, "METAPLAN": f"{sys.executable} -m metaplan"}
    return subprocess.run(["sh", "-c", command], cwd=folder, env=env, capture_output=True,
                          timeout=120, check=False)


# 1. all outputs of one command land together, or none changes ----------------------------


@pytest.mark.parametrize("args", [("-o", "out.json", "--record", "/dev/full"),
                                  ("-o", "/dev/full", "--record", "out.json")])
def test_a_failing_device_output_leaves_every_file_output_untouched(args: tuple[str, ...],
                                                                     tmp_path: Path) -> None:
    out = _file(tmp_path, "out.json", OLD)
    done = subprocess.run([sys.executable, "-m", "metaplan", "normalize", str(PLAN), *args],
                          cwd=tmp_path, capture_output=True, timeout=120, check=False)
    assert_refused(done, "normalize", Path("/dev/full"), b"cannot write: No space left on device")
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []


@pytest.mark.parametrize("stdout", [">/dev/full", ">&-"])
def test_a_full_or_closed_stdout_exits_2_and_replaces_no_file(stdout: str, tmp_path: Path) -> None:
    rec = _file(tmp_path, "rec.json", OLD)
    done = _shell(f'$METAPLAN normalize "{PLAN}" --record rec.json {stdout}', tmp_path)
    why = b"No space left on device" if "full" in stdout else b"standard output is closed"
    assert_refused(done, "normalize", None, b"<stdout>: cannot write: " + why)
    assert rec.read_bytes() == OLD and leftovers(tmp_path) == []
    done = _shell(f'$METAPLAN hash "{PLAN}" {stdout}', tmp_path)
    assert_refused(done, "hash", None, b"<stdout>: cannot write: " + why)


_SECOND_RENAME_FAILS = """
import os, sys
real = os.replace
calls = []
def replace(src, dst):
    calls.append(dst)
    if len(calls) == 2:
        raise OSError(5, "Input/output error", dst)
    real(src, dst)
os.replace = replace
from metaplan.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_two_rename_window_is_named_when_a_rename_fails(tmp_path: Path) -> None:
    out, rec = _file(tmp_path, "out.json", OLD), _file(tmp_path, "rec.json", OLD)
    driver = _file(tmp_path, "driver.py", _SECOND_RENAME_FAILS.encode())
    done = subprocess.run([sys.executable, str(driver), "normalize", str(PLAN), "-o", str(out),
                           "--record", str(rec)], capture_output=True, timeout=120, check=False)
    assert_refused(done, "normalize", rec, f"Input/output error ({out} already replaced)".encode())
    assert out.read_bytes() != OLD and rec.read_bytes() == OLD  # the documented window
    assert leftovers(tmp_path) == []


# 2. an output never destroys an input ---------------------------------------------------


def _inputs(folder: Path) -> dict[str, Path]:
    plan = _file(folder, "plan.json", raw_input(NAME))
    rec = folder / "rec.json"
    done = metaplan_cli("normalize", plan, "-o", folder / "n.json", "--record", rec)
    assert done.returncode == 0, done.stderr
    os.link(plan, folder / "hard.json")
    os.symlink("plan.json", folder / "soft.json")
    specs = _file(folder, "specs.json", (Path(__file__).parent / "data/specs.json").read_bytes())
    return {"plan": plan, "rec": rec, "n": folder / "n.json", "hard": folder / "hard.json",
            "soft": folder / "soft.json", "specs": specs}


OVERWRITES = {
    "normalize -o PLAN": (("normalize", "plan", "-o", "plan"), "-o names the input PLAN"),
    "normalize --record PLAN": (("normalize", "plan", "--record", "plan"),
                                "--record names the input PLAN"),
    "normalize -o a hard link to PLAN": (("normalize", "plan", "-o", "hard"),
                                         "-o names the input PLAN"),
    "normalize -o a symlink to PLAN": (("normalize", "plan", "-o", "soft"),
                                       "-o names the input PLAN"),
    "normalize -o --specs": (("normalize", "plan", "--specs", "specs", "-o", "specs"),
                             "-o names the input --specs"),
    "replay P R -o R": (("replay", "plan", "rec", "-o", "rec"), "-o names the input REC"),
    "replay P R -o P": (("replay", "plan", "rec", "-o", "hard"), "-o names the input PLAN"),
    "diff A B -o A": (("diff", "plan", "n", "-o", "plan"), "-o names the input A"),
    "diff A B -o B": (("diff", "plan", "n", "-o", "n"), "-o names the input B"),
    "invert R -o R": (("invert", "rec", "-o", "rec"), "-o names the input REC"),
}


@pytest.mark.parametrize("case", OVERWRITES, ids=list(OVERWRITES))
def test_an_output_naming_an_input_is_refused_before_reading(case: str, tmp_path: Path) -> None:
    args, fragment = OVERWRITES[case]
    files = _inputs(tmp_path)
    before = _state(*files.values())
    command = [files.get(arg, arg) for arg in args]
    done = metaplan_cli(*command)
    output = files[args[args.index("-o" if "-o" in args else "--record") + 1]]
    assert_refused(done, args[0], output, fragment.encode() + b" ")
    assert b"would destroy what is read" in done.stderr
    assert _state(*files.values()) == before and leftovers(tmp_path) == []


def test_the_refusal_comes_before_the_input_is_read(tmp_path: Path) -> None:
    broken = _file(tmp_path, "broken.json", b"{not json")
    done = metaplan_cli("normalize", broken, "-o", broken)
    assert_refused(done, "normalize", broken, b"-o names the input PLAN")
    assert broken.read_bytes() == b"{not json"


def test_a_trace_whose_input_is_in_its_out_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    assert metaplan_cli("trace", PLAN, "--out", out).returncode == 0
    state = out / "003-mark-shared-class-boundaries.json"
    before = _state(*out.iterdir())
    done = metaplan_cli("trace", state, "--out", out, "--passes", "strip-ep-sub-boundaries")
    assert_refused(done, "trace", state, b"PLAN is 003-mark-shared-class-boundaries.json of the "
                                         b"-o folder's earlier trace")
    assert _state(*out.iterdir()) == before


# 3. text that is not Unicode (more cases in test_reliability's catalog) ---------------------


def test_a_utf8_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    plain = _file(tmp_path, "plain.json", raw_input(NAME))
    marked = _file(tmp_path, "marked.json", b"\xef\xbb\xbf" + raw_input(NAME))
    done = metaplan_cli("hash", plain, marked)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.split()[0] == second.split()[0]


# 4. tracebacks where exit 2 is promised --------------------------------------------------


def test_an_output_that_is_a_symlink_loop_or_too_long_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    assert_refused(metaplan_cli("normalize", PLAN, "-o", loop), "normalize", loop,
                   b"cannot write: Too many levels of symbolic links")
    long = tmp_path / ("x" * 300 + ".json")
    assert_refused(metaplan_cli("normalize", PLAN, "-o", long), "normalize", long,
                   b"cannot write: File name too long")
    assert_refused(metaplan_cli("trace", PLAN, "--out", long), "trace", long,
                   b"cannot make the -o folder: File name too long")


def test_file_names_and_arguments_that_are_not_utf8(tmp_path: Path) -> None:
    name = os.fsdecode(os.fsencode(tmp_path) + b"/plan\xff.json")
    Path(name).write_bytes(raw_input(NAME))
    hashed = subprocess.run([sys.executable, "-m", "metaplan", "hash", name],
                            capture_output=True, timeout=120, check=False)
    assert hashed.returncode == 0 and hashed.stdout.endswith(b"/plan\xff.json\n"), hashed.stderr
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/gone\xfe.json")
    for args in (["hash", missing], ["explain", name, "model.\udcff"],
                 ["normalize", name, "--passes", "\udcff"]):
        done = subprocess.run([sys.executable, "-m", "metaplan", *args], capture_output=True,
                              timeout=120, check=False)
        assert_refused(done, args[0], None, b"\\udc")  # the bytes shown, escaped
    traced = metaplan_cli("trace", name, "--out", tmp_path / "t")
    assert traced.returncode == 0, traced.stderr
    manifest = json.loads((tmp_path / "t/trace.json").read_text(encoding="utf-8"))
    assert manifest["source"].endswith("/plan\ufffd.json")  # Unicode text, as JSON must be


def test_an_fqn_of_thousands_of_digits_is_sorted_and_shown(tmp_path: Path) -> None:
    fqn = "model.layers." + "9" * 5000 + ".mlp"
    a = _file(tmp_path, "a.json", {"param_plan": {fqn: {"is_boundary": True}, "model.2": {}},
                                   "boundary_classes": {fqn: "MLP"}})
    b = _file(tmp_path, "b.json", {"param_plan": {fqn: {"is_boundary": False}, "model.2": {}},
                                   "boundary_classes": {fqn: "MLP"}})
    done = metaplan_cli("diff", a, b)
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
    assert done.stdout.splitlines()[3] == fqn.encode()


def test_a_file_name_with_a_newline_gives_a_one_line_error(tmp_path: Path) -> None:
    bad = _file(tmp_path, "two\nlines.json", b"{")
    assert_refused(metaplan_cli("normalize", bad), "normalize", None,
                   b"two\\nlines.json: not valid JSON")


def test_a_usage_error_is_one_line_too() -> None:
    done = metaplan_cli("normalize", PLAN, "--no-such-option")
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1, done.stderr
    assert done.stderr.startswith(b"metaplan normalize: error: unrecognized arguments: "
                                  b"--no-such-option (see metaplan normalize --help)")


# 5. trace folders ----------------------------------------------------------------------


def test_a_trace_replaces_a_link_and_never_writes_through_it(tmp_path: Path) -> None:
    out, outside = tmp_path / "trace", _file(tmp_path, "outside.json", OLD)
    assert metaplan_cli("trace", PLAN, "--out", out).returncode == 0
    (out / "000-input.json").unlink()
    (out / "000-input.json").symlink_to(outside)
    (out / "001-strip-ep-sub-boundaries.json").unlink()
    (out / "001-strip-ep-sub-boundaries.json").symlink_to(outside)
    done = metaplan_cli("trace", PLAN, "--out", out, "--passes", "strip-external-state-boundaries")
    assert done.returncode == 0, done.stderr
    assert outside.read_bytes() == OLD  # neither written through nor removed
    assert not (out / "000-input.json").is_symlink()
    assert not os.path.lexists(out / "001-strip-ep-sub-boundaries.json")


@pytest.mark.parametrize("intruder", ["123-notes.json", "001-strip-ep-sub-boundaries.json/",
                                      "trace.json@"])
def test_a_trace_touches_only_what_its_manifest_lists(intruder: str, tmp_path: Path) -> None:
    out = tmp_path / "trace"
    assert metaplan_cli("trace", PLAN, "--out", out).returncode == 0
    name = intruder.rstrip("/@")
    target = out / name
    if target.exists():
        target.unlink()
    if intruder.endswith("/"):
        target.mkdir()
    elif intruder.endswith("@"):
        target.symlink_to(tmp_path / "elsewhere.json")
    else:
        target.write_bytes(OLD)
    before = sorted(p.name for p in out.iterdir())
    files = [p for p in out.iterdir() if p.is_file() and not p.is_symlink()]
    contents = _state(*files)
    done = metaplan_cli("trace", PLAN, "--out", out)
    assert_refused(done, "trace", out, f"holds files no trace wrote ({name}".encode())
    assert sorted(p.name for p in out.iterdir()) == before and _state(*files) == contents


def test_a_second_trace_while_one_runs_is_refused_not_mixed_in(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    assert metaplan_cli("trace", PLAN, "--out", out).returncode == 0
    before = _state(*out.iterdir())
    handle = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)  # as a running trace holds it
        done = metaplan_cli("trace", PLAN, "--out", out)
    finally:
        os.close(handle)
    assert_refused(done, "trace", out, b"another metaplan trace is writing into this folder")
    assert _state(*out.iterdir()) == before


def test_concurrent_traces_into_one_folder_never_crash(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    command = [sys.executable, "-m", "metaplan", "trace", str(fixture_path("qwen3_moe.hf4")),
               "--out", str(out)]
    runs = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(3)]
    results = [(run.wait(timeout=300), run.communicate()[1]) for run in runs]
    assert all(code in (0, 2) and b"Traceback" not in err for code, err in results), results
    assert any(code == 0 for code, _ in results)
    manifest = json.loads((out / "trace.json").read_text())
    listed = {state[key] for state in manifest["states"] for key in ("plan", "record")
              if key in state}
    assert {p.name for p in out.iterdir()} == listed | {"trace.json"}


def test_a_killed_traces_temp_file_is_cleaned_not_blocking(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    assert metaplan_cli("trace", PLAN, "--out", out).returncode == 0
    _file(out, ".metaplan-k1ll3d00.tmp", b"partial")
    done = metaplan_cli("trace", PLAN, "--out", out)
    assert done.returncode == 0, done.stderr
    assert leftovers(out) == []


def test_a_failed_trace_removes_the_folder_it_made(tmp_path: Path) -> None:
    out = tmp_path / "new"
    done = metaplan_cli("trace", _file(tmp_path, "bad.json", b"{"), "--out", out)
    assert done.returncode == 2 and not out.exists()


# 6. resources --------------------------------------------------------------------------


def _bomb(path: Path, members: int) -> Path:
    """gzip members of 64 MiB of spaces each, inside a plan: tiny on disk, huge unpacked."""
    member = zlib.compressobj(9, zlib.DEFLATED, 31)
    body = member.compress(b" " * (64 << 20)) + member.flush()
    path.write_bytes(gzip.compress(b'{"param_plan": {}, "pad": [') + body * members)
    return path


def test_a_gzip_bomb_is_refused_once_it_passes_the_limit(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.json.gz", 64)  # 4 GiB unpacked, ~4 MB on disk
    assert bomb.stat().st_size < 8 << 20
    out = _file(tmp_path, "out.json", OLD)
    done = metaplan_cli("normalize", bomb, "-o", out, "--max-input-size", "16M")
    assert_refused(done, "normalize", bomb, b"gzip data that expands to more than the input "
                                            b"limit of 16 MiB (16777216 bytes); raise it with "
                                            b"--max-input-size or METAPLAN_MAX_INPUT_SIZE")
    assert out.read_bytes() == OLD


def test_the_size_limit_applies_to_plain_files_and_stdin_and_can_be_raised(tmp_path: Path
                                                                        ) -> None:
    plain = _file(tmp_path, "plan.json", raw_input(NAME))  # ~200 KB
    assert_refused(metaplan_cli("hash", plain, "--max-input-size", "100K"), "hash", plain,
                   b"bytes, more than the input limit of 100 KiB (102400 bytes)")
    env = {**os.environ, "METAPLAN_MAX_INPUT_SIZE": "100K"}
    assert_refused(metaplan_cli("hash", PLAN, env=env), "hash", PLAN,
                   b"gzip data that expands to more than the input limit of 100 KiB")
    assert metaplan_cli("hash", PLAN, "--max-input-size", "1M", env=env).returncode == 0
    piped = subprocess.run([sys.executable, "-m", "metaplan", "hash", "-", "--max-input-size",
                            "100K"], input=raw_input(NAME), capture_output=True, timeout=120,
                           check=False)
    assert_refused(piped, "hash", None, b"<stdin>: more bytes than the input limit of 100 KiB")
    bad = metaplan_cli("hash", PLAN, env={**os.environ, "METAPLAN_MAX_INPUT_SIZE": "lots"})
    assert_refused(bad, "hash", None, b"METAPLAN_MAX_INPUT_SIZE: expected a size such as 4G")


# 7. not a plan -------------------------------------------------------------------------


NOT_PLANS = {
    "an empty object": ({}, b"param_plan: not a plan: a plan (codegen_meta.json) has a "
                            b"param_plan object of FQN -> entry; found an empty object"),
    "a records file": ({"format": "metaplan.records/1", "records": []},
                       b'not a plan: this is a records file (it has "format": '
                       b'"metaplan.records/1"); replay it on its plan (metaplan replay PLAN REC)'),
    "a specs file": ({"specs": []}, b"not a plan: this is a specs file (it has \"specs\" and no "
                                    b"\"param_plan\"); give it with --specs"),
    "a rules file": ({"rules": []}, b"this is a rules file"),
    "param_plan null": ({"param_plan": None}, b"param_plan object of FQN -> entry; found null"),
}


@pytest.mark.parametrize("case", NOT_PLANS, ids=list(NOT_PLANS))
def test_a_json_object_that_is_not_a_plan_is_refused_by_every_command(case: str,
                                                                     tmp_path: Path) -> None:
    content, fragment = NOT_PLANS[case]
    bad = _file(tmp_path, "bad.json", content)
    for args in (("verify", bad), ("explain", bad, "m"), ("compare", bad), ("bisect", bad),
                 ("trace", bad, "--out", tmp_path / "t"), ("replay", bad, bad)):
        assert_refused(metaplan_cli(*args), str(args[0]), bad, fragment)
    assert not (tmp_path / "t").exists()


def test_records_are_refused_as_plans_and_plans_as_records(tmp_path: Path) -> None:
    rec = tmp_path / "rec.json"
    assert metaplan_cli("normalize", PLAN, "--record", rec, "-o", tmp_path / "n.json",
                        "-q").returncode == 0
    assert_refused(metaplan_cli("normalize", rec), "normalize", rec, b"this is a records file")
    assert_refused(metaplan_cli("replay", PLAN, PLAN), "replay", PLAN,
                   b"not records: this is a plan (it has param_plan)")


# 8. the smaller ones -------------------------------------------------------------------


def test_dash_is_stdout_for_every_output_and_one_output_at_a_time(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = metaplan_cli("normalize", PLAN, "--record", "-", "-o", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "metaplan.records/2"
    assert not (tmp_path / "-").exists() and not Path("-").exists()
    dashed = metaplan_cli("normalize", PLAN, "-o", "-")
    assert dashed.returncode == 0 and dashed.stdout == out.read_bytes()
    for args in (("--record", "-"), ("--record", "-", "-o", "-")):
        assert_refused(metaplan_cli("normalize", PLAN, *args), "normalize", None,
                       b"-o and --record: both write to standard output")


def test_dash_reads_a_plan_or_records_from_stdin(tmp_path: Path) -> None:
    rec = tmp_path / "rec.json"
    assert metaplan_cli("normalize", PLAN, "--record", rec, "-o", tmp_path / "n.json",
                        "-q").returncode == 0
    runs = {("normalize", "-"): raw_input(NAME), ("replay", "-", str(rec)): raw_input(NAME),
            ("replay", str(PLAN), "-"): rec.read_bytes()}
    outputs = set()
    for args, stdin in runs.items():
        done = subprocess.run([sys.executable, "-m", "metaplan", *args], input=stdin,
                              capture_output=True, timeout=120, check=False)
        assert done.returncode == 0, (args, done.stderr)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    done = subprocess.run([sys.executable, "-m", "metaplan", "verify", "-"], input=b"{",
                          capture_output=True, timeout=120, check=False)
    assert_refused(done, "verify", None, b"<stdin>: not valid JSON")
    assert_refused(metaplan_cli("diff", "-", "-"), "diff", None,
                   b"A and B: each reads standard input (-), which can be read once")


def test_a_long_message_is_cut_saying_how_much(tmp_path: Path) -> None:
    fqn = "m" * 1_000_000
    bad = _file(tmp_path, "bad.json", {"param_plan": {fqn: {"is_boundary": 1}}})
    done = metaplan_cli("normalize", bad)
    assert_refused(done, "normalize", bad, b" more characters cut)\n")
    assert len(done.stderr) < 2200


RECORD_FORMATS = {
    "a record's format": ({"format": "metaplan.records/1", "records": [{
        "format": "something/9", "pass": "p", "base": "b", "result": "r", "changes": []}]},
        b'records[0].format: expected "metaplan.record/2" (or the older "metaplan.record/1"), '
        b'found a string ("something/9")'),
    "the records file's format": ({"format": "metaplan.records/9", "records": []},
                                  b'format: expected "metaplan.records/2" (a records file; or '
                                  b'the older "metaplan.records/1") or "metaplan.record/2" (one '
                                  b'record), found a string'),
}


@pytest.mark.parametrize("case", RECORD_FORMATS, ids=list(RECORD_FORMATS))
def test_record_formats_are_checked(case: str, tmp_path: Path) -> None:
    content, fragment = RECORD_FORMATS[case]
    rec = _file(tmp_path, "rec.json", content)
    assert_refused(metaplan_cli("replay", PLAN, rec), "replay", rec, fragment)
    assert_refused(metaplan_cli("invert", rec), "invert", rec, fragment)


# 9. docs/guarantees.md names the tests that hold each promise ---------------------------


def test_every_test_the_docs_name_for_a_promise_exists() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "guarantees.md").read_text()
    named = set(re.findall(r"`(test_\w+)`", page))
    defined = {name for path in Path(__file__).parent.glob("test_*.py")
               for name in re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE)}
    assert len(named) > 30 and named - defined == set()
