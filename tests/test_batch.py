"""``metaplan.batch.pool.map_plans`` and ``metaplan batch``: order, dedupe, bad inputs, exits."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from conftest import DATA, expected_bytes, fixture_path, leftovers, raw_json
from conftest import metaplan_cli as metaplan
from metaplan.batch.pool import IN_PROCESS, PlanPaths, content_key, map_plans

SMALL = ("deepseek_v3.hf5", "qwen3_moe.hf5", "llama3_8b.hf4")


def _rows(out: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.decode().splitlines()]


def _size(path: PlanPaths) -> int:
    assert not isinstance(path, tuple)
    return len(gzip.decompress(Path(path).read_bytes()))


def _variants(folder: Path, name: str, count: int) -> list[Path]:
    """``count`` distinct plans: ``name`` with its tensor-parallel degree 1..count."""
    paths = []
    for tp in range(1, count + 1):
        raw = raw_json(name)
        raw["parallel_dims"] = {**raw["parallel_dims"], "tp": tp}
        path = folder / f"{name}.tp{tp}.json"
        path.write_bytes(orjson.dumps(raw))
        paths.append(path)
    return paths


# the library ---------------------------------------------------------------


def test_results_come_in_input_order_and_each_content_is_computed_once(
        tmp_path: Path) -> None:
    copy = tmp_path / "copy.json.gz"
    shutil.copy(fixture_path(SMALL[0]), copy)
    paths: list[PlanPaths] = [fixture_path(SMALL[0]), fixture_path(SMALL[1]), copy,
                              fixture_path(SMALL[2]), fixture_path(SMALL[1])]
    calls: Counter[str] = Counter()
    lock = threading.Lock()

    def counted(path: PlanPaths) -> int:
        with lock:
            calls[os.fspath(path)] += 1  # type: ignore[arg-type]
        return _size(path)

    with ThreadPoolExecutor(3) as pool:
        found = list(map_plans(counted, paths, executor=pool))
    assert found == [_size(p) for p in paths]
    assert sum(calls.values()) == 3
    assert calls[os.fspath(copy)] == 0  # the first path holding a content is the one computed
    with ThreadPoolExecutor(2) as pool:
        assert list(map_plans(counted, paths, executor=pool, dedupe=False)) == found
    assert sum(calls.values()) == 3 + len(paths)


def test_a_gzip_copy_and_its_text_share_a_key(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_bytes(gzip.decompress(fixture_path(SMALL[0]).read_bytes()))
    assert content_key(plain) == content_key(fixture_path(SMALL[0]))
    assert content_key(tmp_path / "missing.json") is None
    assert content_key((plain, plain)) == f"{content_key(plain)},{content_key(plain)}"


def test_in_process_and_process_pools_agree() -> None:
    paths: list[PlanPaths] = [fixture_path(name) for name in (*SMALL, SMALL[0])]
    serial = list(map_plans(_size, paths, executor=IN_PROCESS))
    with ProcessPoolExecutor(2) as pool:
        assert list(map_plans(_size, paths, executor=pool)) == serial
    assert list(map_plans(_size, paths)) == serial  # the default pool, shut down at the end
    assert serial == [_size(p) for p in paths]


def test_an_error_is_raised_when_its_result_is_reached(tmp_path: Path) -> None:
    paths: list[PlanPaths] = [fixture_path(SMALL[0]), tmp_path / "missing.json.gz"]
    for executor in (IN_PROCESS, ThreadPoolExecutor(2)):
        found = map_plans(_size, paths, executor=executor)
        assert next(found) == _size(paths[0])
        with pytest.raises(FileNotFoundError):
            next(found)


# the command ---------------------------------------------------------------


def test_batch_verify_rows_in_input_order_with_the_worst_exit(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"param_plan": {"a": 1, "a": 2}}')
    inputs = [fixture_path(SMALL[1]), bad, fixture_path(SMALL[0]), fixture_path(SMALL[1])]
    done = metaplan("batch", "verify", "--jobs", "2", *inputs)
    assert done.returncode == 2, done.stderr
    rows = _rows(done.stdout)
    assert [row["path"] for row in rows] == [str(p) for p in inputs]
    assert [row["exit"] for row in rows] == [0, 2, 0, 0]
    assert rows[1]["hash"] is None and "appears twice" in rows[1]["error"]
    single = metaplan("verify", "--format", "json", inputs[0])
    assert rows[0]["result"] == json.loads(single.stdout)
    assert rows[3]["result"]["plan"] == str(inputs[3])
    hashed = metaplan("hash", inputs[2])
    assert rows[2]["hash"] == hashed.stdout.decode().split()[0]
    assert done.stderr.decode().startswith(
        "metaplan batch verify: 4 plans, 3 distinct, 0 with violations, 1 unreadable, ")
    assert b"Traceback" not in done.stderr


def test_jobs_1_and_jobs_2_write_the_same_bytes(tmp_path: Path) -> None:
    inputs = [*_variants(tmp_path, SMALL[0], 3), *(fixture_path(n) for n in SMALL),
              tmp_path / "missing.json"]
    for command in ("verify", "hash", "normalize", "diff", "slim"):
        one = metaplan("batch", command, "-j", "1", *inputs)
        two = metaplan("batch", command, "-j", "2", *inputs)
        assert one.returncode == two.returncode == 2, (command, one.stderr)
        assert one.stdout == two.stdout, command
        assert len(_rows(one.stdout)) == len(inputs) - (command == "diff")


def test_globs_and_lists_expand_in_order(tmp_path: Path) -> None:
    for name in SMALL:
        shutil.copy(fixture_path(name), tmp_path / f"{name}.json.gz")
    listing = tmp_path / "plans.txt"
    listing.write_text(f"{tmp_path / 'llama3_8b.hf4.json.gz'}\n\n{fixture_path(SMALL[0])}\n")
    done = metaplan("batch", "hash", "-j", "1", str(tmp_path / "*.json.gz"), f"@{listing}")
    assert done.returncode == 0, done.stderr
    names = [Path(row["path"]).name for row in _rows(done.stdout)]
    assert names == [*sorted(f"{n}.json.gz" for n in SMALL), "llama3_8b.hf4.json.gz",
                     f"{SMALL[0]}.json.gz"]
    assert b"5 plans, 3 distinct" in done.stderr
    missing = metaplan("batch", "hash", f"@{tmp_path / 'nope.txt'}")
    assert missing.returncode == 2 and b"cannot read the list" in missing.stderr


def test_diff_pairs_and_against_a_base() -> None:
    a, b = fixture_path(SMALL[0]), DATA / f"{SMALL[0]}.expected.json.gz"
    done = metaplan("batch", "diff", "-j", "1", a, b, b)
    assert done.returncode == 1, done.stderr
    rows = _rows(done.stdout)
    assert [(row["against"], row["path"], row["exit"]) for row in rows] == [
        (str(a), str(b), 1), (str(b), str(b), 0)]
    single = metaplan("diff", "--format", "json", a, b)
    assert rows[0]["result"] == json.loads(single.stdout)
    against = metaplan("batch", "diff", "-j", "1", "--against", a, a, b)
    assert [row["exit"] for row in _rows(against.stdout)] == [0, 1]
    alone = metaplan("batch", "diff", a)
    assert alone.returncode == 2 and b"at least 2" in alone.stderr


def test_normalize_out_dir_writes_every_result(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    inputs = [fixture_path(name) for name in SMALL]
    done = metaplan("batch", "normalize", "--out-dir", out, *inputs)
    assert done.returncode == 0, done.stderr
    for name, row in zip(SMALL, _rows(done.stdout), strict=True):
        written = out / f"{name}.json.gz"
        assert row["output"] == str(written)
        assert gzip.decompress(written.read_bytes()) == expected_bytes(name)
    assert leftovers(out) == []


def test_out_dir_is_all_or_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = metaplan("batch", "slim", "--out-dir", out, fixture_path(SMALL[0]), bad)
    assert done.returncode == 2
    assert [row["exit"] for row in _rows(done.stdout)] == [0, 2]
    assert b"nothing written" in done.stderr
    assert list(out.iterdir()) == []
    clash = metaplan("batch", "normalize", "--out-dir", out, fixture_path(SMALL[0]),
                     tmp_path / f"{SMALL[0]}.json.gz")
    assert clash.returncode == 2 and b"share a name" in clash.stderr
    into_input = metaplan("batch", "normalize", "--out-dir", DATA, fixture_path(SMALL[0]))
    assert into_input.returncode == 2 and b"would overwrite the input" in into_input.stderr
    not_a_folder = metaplan("batch", "normalize", "--out-dir", bad, fixture_path(SMALL[0]))
    assert not_a_folder.returncode == 2 and b"expected an existing folder" in not_a_folder.stderr
    assert list(out.iterdir()) == [] and bad.read_text() == "{"


def test_options_of_another_command_and_stdin_are_refused() -> None:
    done = metaplan("batch", "hash", "--out-dir", ".", fixture_path(SMALL[0]))
    assert done.returncode == 2 and b"--out-dir: applies to batch normalize and slim" in (
        done.stderr)
    stdin = metaplan("batch", "hash", "-")
    assert stdin.returncode == 2 and b"standard input" in stdin.stderr
    jobs = metaplan("batch", "hash", "--jobs", "0", fixture_path(SMALL[0]))
    assert jobs.returncode == 2 and b"--jobs" in jobs.stderr


def _interruptible() -> None:
    """In the child: Ctrl-C as a terminal delivers it, even when this suite runs in the
    background of a shell without job control (which starts it with SIGINT ignored, and
    Python keeps an ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_the_workers_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    inputs = _variants(tmp_path, "deepseek_v3.hf4", 32)
    child = subprocess.Popen([sys.executable, "-m", "metaplan", "batch", "normalize", "-j", "2",
                              "--out-dir", str(out), *map(str, inputs)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, preexec_fn=_interruptible)
    time.sleep(2)
    still_running = child.poll() is None
    with contextlib.suppress(ProcessLookupError):  # as a terminal's Ctrl-C: the whole group
        os.killpg(child.pid, signal.SIGINT)
    stdout, stderr = child.communicate(timeout=120)
    if still_running:
        assert child.returncode == 130, stderr
        assert b"interrupted" in stderr and b"Traceback" not in stderr
        assert stdout == b""
    assert sorted(p.name for p in out.iterdir()) == ([] if still_running else
                                                     sorted(p.name for p in inputs))
