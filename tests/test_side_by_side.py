"""Large inputs read side by side in forked children: the sequential results, errors and all."""

from __future__ import annotations

import gzip
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import metaplan
from conftest import DATA, raw_input
from metaplan.core.plan import load_all
from metaplan.errors import InputError
from metaplan.files import side_by_side
from metaplan.files.packing import pack, unpack
from metaplan.files.side_by_side import FORK_FROM, read_side_by_side
from metaplan.files.streaming import parse_plan_text
from metaplan.frozen import JSONFloat

forks = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")


@pytest.fixture(autouse=True)
def _an_idle_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a quiet machine with cores to spare, whatever this one is doing now."""
    monkeypatch.setattr(side_by_side, "_idle_core", lambda: True)

BIG = DATA / "deepseek_v3.hf4.json.gz"  # 12 MB of text in 236 kB


def _pid(path: str) -> bytes:
    return str(os.getpid()).encode()


def _where(path: str, data: bytes | None) -> tuple[str, int]:
    """The path, and the process that worked on it (this one when no child did)."""
    return path, os.getpid() if data is None else int(data)


def _big(tmp_path: Path, name: str, text: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(text + b" " * max(0, FORK_FROM - len(text)))  # trailing space is JSON
    return str(path)


@forks
def test_large_inputs_after_the_first_are_read_in_a_child(tmp_path: Path) -> None:
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(3)]
    found = read_side_by_side(paths, child=_pid, here=_where)
    assert [path for path, _ in found] == paths
    pids = [pid for _, pid in found]
    assert pids[0] == os.getpid() and os.getpid() not in pids[1:] and pids[1] != pids[2]


def test_small_inputs_stdin_and_missing_files_are_read_here(tmp_path: Path) -> None:
    small = tmp_path / "small.json"
    small.write_bytes(b"{}")
    paths = [str(small), str(small), "-", str(tmp_path / "missing.json")]
    found = read_side_by_side(paths, child=_pid, here=_where)
    assert {pid for _, pid in found} == {os.getpid()}


@forks
def test_gzip_data_is_judged_by_the_size_it_expands_to(tmp_path: Path) -> None:
    packed = tmp_path / "big.json.gz"
    packed.write_bytes(gzip.compress(b" " * FORK_FROM + b"{}"))
    assert packed.stat().st_size < FORK_FROM
    found = read_side_by_side([str(packed), str(packed)], child=_pid, here=_where)
    assert found[1][1] != os.getpid()
    assert side_by_side._text_size(str(packed), packed.stat().st_size) == FORK_FROM + 2


def test_no_child_while_another_thread_runs(tmp_path: Path) -> None:
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(2)]
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        found = read_side_by_side(paths, child=_pid, here=_where)
    finally:
        stop.set()
        other.join()
    assert {pid for _, pid in found} == {os.getpid()}



def test_a_busy_or_one_core_machine_forks_no_child(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.undo()  # the real check
    loadavg = tmp_path / "loadavg"
    monkeypatch.setattr(side_by_side, "_LOADAVG", str(loadavg))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.8, 3.0, 3.0))
    loadavg.write_text("1.80 3.00 3.00 1/108 1522\n")  # a busy minute, this task alone now
    assert side_by_side._running() == 1.0 and side_by_side._idle_core()
    loadavg.write_text("0.10 0.00 0.00 2/108 1522\n")  # another task running: both busy
    assert not side_by_side._idle_core()
    for garbled in ("", "0.10 0.00 0.00\n", "0.1 0.0 0.0 x/9 1\n"):  # the minute's average
        loadavg.write_text(garbled)
        assert side_by_side._running() == 1.8 and not side_by_side._idle_core()
    loadavg.unlink()
    monkeypatch.setattr(os, "getloadavg", lambda: (0.9, 3.0, 3.0))
    assert side_by_side._running() == 0.9 and side_by_side._idle_core()

    def unknown() -> tuple[float, float, float]:
        raise OSError("no load average here")

    monkeypatch.setattr(os, "getloadavg", unknown)
    assert side_by_side._running() == 0.0 and side_by_side._idle_core()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert not side_by_side._idle_core()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    loadavg.write_text("0.10 0.00 0.00 2/108 1522\n")
    assert side_by_side._idle_core()  # three cores, two running: one idle
    loadavg.write_text("0.10 0.00 0.00 3/108 1522\n")
    assert not side_by_side._idle_core()


@forks
def test_a_child_that_fails_gives_nothing_and_its_path_is_read_here(tmp_path: Path) -> None:
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(3)]

    def child(path: str) -> bytes:
        if path.endswith("1.json"):
            os._exit(0)  # exits 0, says nothing: no answer is an answer of no bytes
        raise RuntimeError("in the child")

    assert read_side_by_side(paths, child=child, here=lambda path, data: data) == [
        None, b"", None]


def _descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


def _no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _refused(path: str, data: bytes | None) -> str:
    """The path, read here; any answer of a child is refused with an error."""
    if data is not None:
        raise ValueError(f"{path}: {data!r}")
    return path


@forks
def test_an_error_from_an_answer_counts_only_if_its_child_exited_well(tmp_path: Path) -> None:
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(3)]
    before = _descriptors()
    with pytest.raises(ValueError, match=r"1\.json: b'bad'$"):
        read_side_by_side(paths, child=lambda path: b"bad", here=_refused)
    assert _no_child_left() and _descriptors() == before  # the third child, stopped

    def failing(path: str) -> bytes:
        raise RuntimeError("in the child")

    assert read_side_by_side(paths, child=failing, here=_refused) == paths
    assert read_side_by_side(paths, child=_pid, here=_where)[1][1] != os.getpid()
    assert _no_child_left() and _descriptors() == before


def test_a_fork_that_fails_leaves_no_descriptor_open(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork, raising=False)
    paths = [_big(tmp_path, f"{n}.json", b"{}") for n in range(3)]
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    found = read_side_by_side(paths, child=_pid, here=_where)
    assert {pid for _, pid in found} == {os.getpid()}
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before

@forks
def test_load_all_gives_the_plans_load_gives(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_bytes(raw_input("deepseek_v3.hf4"))
    paths = [str(BIG), str(plain), str(DATA / "qwen3_moe.hf5.json.gz")]
    together = load_all(paths)
    assert together == [metaplan.load(path) for path in paths]
    assert [p.content_hash for p in together] == [metaplan.load(p).content_hash for p in paths]
    assert metaplan.dumps(together[1]) == metaplan.dumps(metaplan.load(plain))


@forks
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


@forks
def test_a_plan_holding_floats_is_read_here_as_load_reads_it(tmp_path: Path) -> None:
    text = b'{"param_plan": {"m": {"is_boundary": true}}, "lr": 1.50, "x": 2.5e-07}'
    path = _big(tmp_path, "floats.json", text)
    first, again = load_all([path, path])
    assert metaplan.dumps(again) == metaplan.dumps(first) == metaplan.dumps(metaplan.load(path))
    assert type(again["lr"]) is JSONFloat


# packing --------------------------------------------------------------------------------------

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.text())
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=8)


@given(st.dictionaries(st.sampled_from(["param_plan", "boundary_classes", "injections", "x"]),
                       _VALUES),
       st.lists(st.integers(0, 3), max_size=12))
def test_pack_round_trips_order_and_sharing(raw: dict[str, Any], picks: list[int]) -> None:
    entries = [{"is_boundary": True}, {"is_boundary": False, "p": [1]}, "Linear", None]
    raw["param_plan"] = {f"m.{n}": entries[pick] for n, pick in enumerate(picks)}
    again = unpack(pack(raw))
    assert again == raw and list(again) == list(raw)
    assert list(again["param_plan"]) == list(raw["param_plan"])
    shared = {n: f"m.{n}" for n, pick in enumerate(picks) if pick < 2}
    for one in shared.values():
        for other in shared.values():
            same = raw["param_plan"][one] is raw["param_plan"][other]
            assert (again["param_plan"][one] is again["param_plan"][other]) == same


def test_pack_refuses_what_orjson_would_not_write_exactly() -> None:
    for value in (JSONFloat("1.50"), 2**64, "\ud800"):
        with pytest.raises(TypeError):
            pack({"param_plan": {"m": {"v": value}}})
    raw = parse_plan_text('{"param_plan": {"m": {"v": [1]}, "n": {"v": [1]}}}', "p")
    assert unpack(pack(raw)) == raw
