"""Large inputs read side by side in forked children: the sequential results, errors and all."""

from __future__ import annotations

import gzip
import os
import threading
from pathlib import Path

import pytest

import metaplan
from conftest import DATA, raw_input
from metaplan.core.plan import load_all
from metaplan.errors import InputError
from metaplan.files import side_by_side
from metaplan.files.side_by_side import FORK_FROM, read_side_by_side

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")

BIG = DATA / "deepseek_v3.hf4.json.gz"  # 12 MB of text in 236 kB


def _pid_of(path: str) -> tuple[str, int]:
    return path, os.getpid()


def _big(tmp_path: Path, name: str, text: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(text + b" " * max(0, FORK_FROM - len(text)))  # trailing space is JSON
    return str(path)


def test_large_inputs_after_the_first_are_read_in_a_child(tmp_path: Path) -> None:
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(3)]
    found = read_side_by_side(_pid_of, paths, then=lambda x: x)
    assert [path for path, _ in found] == paths
    pids = [pid for _, pid in found]
    assert pids[0] == os.getpid() and os.getpid() not in pids[1:] and pids[1] != pids[2]


def test_small_inputs_stdin_and_missing_files_are_read_here(tmp_path: Path) -> None:
    small = tmp_path / "small.json"
    small.write_bytes(b"{}")
    paths = [str(small), str(small), "-", str(tmp_path / "missing.json")]
    found = read_side_by_side(_pid_of, paths, then=lambda x: x)
    assert {pid for _, pid in found} == {os.getpid()}


def test_gzip_data_is_judged_by_the_size_it_expands_to(tmp_path: Path) -> None:
    packed = tmp_path / "big.json.gz"
    packed.write_bytes(gzip.compress(b" " * FORK_FROM + b"{}"))
    assert packed.stat().st_size < FORK_FROM
    found = read_side_by_side(_pid_of, [str(packed), str(packed)], then=lambda x: x)
    assert found[1][1] != os.getpid()
    assert side_by_side._text_size(str(packed), packed.stat().st_size) == FORK_FROM + 2


def test_no_child_while_another_thread_runs(tmp_path: Path) -> None:
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(2)]
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        found = read_side_by_side(_pid_of, paths, then=lambda x: x)
    finally:
        stop.set()
        other.join()
    assert {pid for _, pid in found} == {os.getpid()}


def test_a_child_that_fails_is_forgotten_and_its_path_read_here(tmp_path: Path) -> None:
    parent = os.getpid()
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(4)]

    def read(path: str) -> object:
        if os.getpid() != parent:
            if path.endswith("1.json"):
                os._exit(0)  # says nothing
            if path.endswith("2.json"):
                return lambda: None  # does not pickle
            raise RuntimeError("in the child")
        return path, "here"

    assert read_side_by_side(read, paths, then=lambda x: x) == [(p, "here") for p in paths]


def test_load_all_gives_the_plans_load_gives(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_bytes(raw_input("deepseek_v3.hf4"))
    paths = [str(BIG), str(plain), str(DATA / "qwen3_moe.hf5.json.gz")]
    together = load_all(paths)
    assert together == [metaplan.load(path) for path in paths]
    assert [p.content_hash for p in together] == [metaplan.load(p).content_hash for p in paths]


def test_load_all_raises_the_first_error_load_would(tmp_path: Path) -> None:
    bad_json = _big(tmp_path, "bad.json", b'{"param_plan": ')
    no_plan = _big(tmp_path, "no_plan.json", b'{"param_plan": 3}')
    with pytest.raises(InputError) as alone:
        metaplan.load(bad_json)
    with pytest.raises(InputError) as together:
        load_all([str(BIG), bad_json])
    assert str(together.value) == str(alone.value) and "bad.json" in str(alone.value)
    with pytest.raises(InputError) as first:  # its schema is checked before the next is read
        load_all([no_plan, bad_json])
    assert "no_plan.json" in str(first.value)
