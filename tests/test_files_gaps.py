"""Gaps a mutation run found in :mod:`metaplan.files.outputs` and :mod:`metaplan.files.inputs`.

Each test pins exact behaviour: permission bits, the gzip encoding of
outputs, refusals (their exact text), full devices and closed pipes, the
input size limit (at, and one byte past, the limit) and gzip members.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import OLD, expected_bytes, fixture_path, leftovers, raw_input
from metaplan.errors import InputError
from metaplan.files import inputs, outputs
from metaplan.files.inputs import (
    DEFAULT_MAX_INPUT_SIZE,
    ENV_MAX_INPUT_SIZE,
    describe_size,
    input_size_limit,
    max_input_size,
    parse_size,
    read_bytes,
)
from metaplan.files.outputs import check_output, write_atomic, write_many_atomic, write_stdout

TEXT = raw_input("deepseek_v3.hf5")  # ~200 KB of JSON: gzip levels give different bytes
LIMIT_TAIL = "; raise it with --max-input-size or METAPLAN_MAX_INPUT_SIZE if this is a plan"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Pipe:
    """Both ends of an ``os.pipe()``; each closed once, by the test or at its end."""

    def __init__(self) -> None:
        self.read, self.write = os.pipe()
        self.open = {self.read, self.write}

    def close(self, fd: int) -> None:
        self.open.remove(fd)
        os.close(fd)

    def received(self) -> bytes:
        os.set_blocking(self.read, False)
        return os.read(self.read, 1 << 16)


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    ends = Pipe()
    try:
        yield ends
    finally:
        for fd in list(ends.open):
            ends.close(fd)


@pytest.fixture
def umask() -> Iterator[None]:
    """Whatever umask a test sets is put back afterwards."""
    old = os.umask(0o022)
    os.umask(old)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture(autouse=True)
def _default_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_MAX_INPUT_SIZE, raising=False)


# outputs: permission bits ----------------------------------------------------------------


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664),
                                                (0o000, 0o666), (0o077, 0o600)])
def test_a_new_file_gets_0o666_less_the_umask_and_the_umask_is_left_alone(
        mask: int, expected: int, tmp_path: Path, umask: None) -> None:
    os.umask(mask)
    out = tmp_path / "new.json"
    write_atomic(out, b"{}")
    assert os.umask(mask) == mask  # reading the umask did not change it
    assert _mode(out) == expected and out.read_bytes() == b"{}"
    gz = tmp_path / "new.json.gz"
    write_many_atomic({str(gz): b"{}"})
    assert _mode(gz) == expected


@pytest.mark.parametrize("mode", [0o751, 0o400, 0o600, 0o4750, 0o1644, 0o000])
def test_a_replaced_file_keeps_its_mode_whatever_the_umask(mode: int, tmp_path: Path,
                                                           umask: None) -> None:
    os.umask(0o077)
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    os.chmod(out, mode)
    before = out.stat().st_ino
    write_atomic(out, b"new")
    assert _mode(out) == mode and out.read_bytes() == b"new"
    assert out.stat().st_ino != before  # replaced by a rename, not written in place
    assert leftovers(tmp_path) == []


def test_a_file_written_through_a_symlink_keeps_the_targets_mode(tmp_path: Path,
                                                                 umask: None) -> None:
    os.umask(0o022)
    real = tmp_path / "real.json"
    real.write_bytes(OLD)
    os.chmod(real, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    write_atomic(link, b"through")
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert real.read_bytes() == b"through" and _mode(real) == 0o640


def test_a_link_not_followed_is_replaced_by_a_new_file_with_the_umask_mode(
        tmp_path: Path, umask: None) -> None:
    os.umask(0o027)
    real = tmp_path / "real.json.gz"
    real.write_bytes(gzip.compress(OLD))
    os.chmod(real, 0o600)
    link = tmp_path / "link.json"
    link.symlink_to("real.json.gz")
    target = check_output(str(link), follow_symlinks=False)
    assert target == outputs.Target(str(link), str(link), False,
                                    (link.lstat().st_dev, link.lstat().st_ino), None, False)
    write_many_atomic({str(link): b"plain"}, follow_symlinks=False)
    assert not link.is_symlink() and link.read_bytes() == b"plain"  # the link's gzip: not kept
    assert _mode(link) == 0o640
    assert gzip.decompress(real.read_bytes()) == OLD and _mode(real) == 0o600


def test_replacing_a_hard_linked_file_leaves_the_other_name_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    other = tmp_path / "other.json"
    os.link(out, other)
    write_atomic(out, b"new")
    assert out.read_bytes() == b"new" and other.read_bytes() == OLD


# outputs: gzip ---------------------------------------------------------------------------


def test_a_gz_output_is_gzip_level_6_with_no_timestamp(tmp_path: Path) -> None:
    out = tmp_path / "plan.json.gz"
    write_atomic(out, TEXT)
    data = out.read_bytes()
    assert data[:2] == b"\x1f\x8b" and data[4:8] == b"\0\0\0\0"  # magic; mtime 0
    assert gzip.decompress(data) == TEXT
    assert data == gzip.compress(TEXT, compresslevel=6, mtime=0)
    assert data not in (gzip.compress(TEXT, compresslevel=level, mtime=0) for level in (1, 9))
    assert read_bytes(out) == TEXT


def test_only_a_name_ending_in_lowercase_gz_makes_a_new_file_gzip(tmp_path: Path) -> None:
    names = ["a.json", "a.gz.json", "a.json.GZ", "a.json.gzip", "a.json.gz"]
    write_many_atomic({str(tmp_path / name): b"{}" for name in names})
    plain = {name: (tmp_path / name).read_bytes() == b"{}" for name in names}
    assert plain == {"a.json": True, "a.gz.json": True, "a.json.GZ": True, "a.json.gzip": True,
                     "a.json.gz": False}


def test_replacing_gzip_data_keeps_gzip_whatever_the_name(tmp_path: Path) -> None:
    out = tmp_path / "merged.json"  # git's %A of a .json.gz plan has no .gz
    out.write_bytes(gzip.compress(OLD))
    assert check_output(str(out)).gzipped is True
    write_atomic(out, TEXT)
    assert out.read_bytes() == gzip.compress(TEXT, compresslevel=6, mtime=0)
    write_atomic(out, b"again")  # and again: still gzip
    assert gzip.decompress(out.read_bytes()) == b"again"


def test_replacing_a_gz_file_that_holds_plain_text_writes_gzip(tmp_path: Path) -> None:
    out = tmp_path / "plan.json.gz"
    out.write_bytes(OLD)
    assert check_output(str(out)).gzipped is False
    write_atomic(out, b"{}")
    assert gzip.decompress(out.read_bytes()) == b"{}"


@pytest.mark.parametrize("old", [b"", b"\x1f", b"\x8b\x1f", b"\x1f\x8c rest", OLD])
def test_replacing_data_that_does_not_start_as_gzip_writes_plain(old: bytes,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(old)
    assert check_output(str(out)).gzipped is False
    write_atomic(out, b"{}")
    assert out.read_bytes() == b"{}"


def test_a_file_starting_with_the_two_magic_bytes_counts_as_gzip(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(b"\x1f\x8b")  # not even whole gzip data: its first two bytes decide
    assert check_output(str(out)).gzipped is True


def test_an_unreadable_existing_file_counts_as_not_gzip(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(gzip.compress(OLD))

    def refuse(*args: object, **kwargs: object) -> object:
        raise PermissionError(errno.EACCES, "Permission denied")

    # tests run as root here, where chmod 000 does not stop a read: refuse the open instead
    monkeypatch.setattr(outputs, "open", refuse, raising=False)
    assert check_output(str(out)).gzipped is False


def test_check_output_of_a_new_path_and_of_a_device(tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    assert check_output(str(new)) == outputs.Target(str(new), str(new), False, None, None, False)
    null = os.stat(os.devnull)
    assert check_output(os.devnull) == outputs.Target(
        os.devnull, os.devnull, True, (null.st_dev, null.st_ino), None, False)
    write_atomic(os.devnull, b"nothing")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # written in place, not replaced


# outputs: refusals before anything is written --------------------------------------------


def test_two_outputs_naming_one_new_file_are_refused_and_nothing_is_written(
        tmp_path: Path) -> None:
    a, same = str(tmp_path / "a.json"), f"{tmp_path}/sub/../a.json"
    (tmp_path / "sub").mkdir()
    kept = tmp_path / "kept.json"
    kept.write_bytes(OLD)
    with pytest.raises(InputError) as caught:
        write_many_atomic({str(kept): b"new", a: b"1", same: b"2"})
    assert str(caught.value) == f"{same}: the same file as {a}: give each output its own path"
    assert caught.value.source == same
    assert not (tmp_path / "a.json").exists() and kept.read_bytes() == OLD
    assert leftovers(tmp_path) == []


def test_two_names_of_one_existing_file_are_refused_by_identity(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_bytes(OLD)
    hard = tmp_path / "hard.json"
    os.link(a, hard)
    with pytest.raises(InputError, match=r"hard\.json: the same file as .*a\.json: give each "):
        write_many_atomic({str(a): b"1", str(hard): b"2"})
    link = tmp_path / "link.json"
    link.symlink_to("a.json")
    with pytest.raises(InputError, match=r"link\.json: the same file as .*a\.json"):
        write_many_atomic({str(a): b"1", str(link): b"2"})
    assert a.read_bytes() == OLD and leftovers(tmp_path) == []
    # a link not followed is a file of its own: both are written
    write_many_atomic({str(a): b"1", str(link): b"2"}, follow_symlinks=False)
    assert a.read_bytes() == b"1" and link.read_bytes() == b"2" and not link.is_symlink()


@pytest.mark.parametrize(("name", "why"), [("folder", "it is a directory"),
                                           ("missing/out.json", "no folder {tmp}/missing"),
                                           ("file/out.json", "Not a directory")])
def test_a_bad_target_is_refused_before_any_file_is_written(name: str, why: str,
                                                             tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_bytes(b"")
    kept = tmp_path / "kept.json"
    kept.write_bytes(OLD)
    bad = str(tmp_path / name)
    with pytest.raises(InputError) as caught:
        write_many_atomic({str(kept): b"new", bad: b"x"})
    assert str(caught.value) == f"{bad}: cannot write: {why.format(tmp=tmp_path)}"
    assert caught.value.source == bad
    assert kept.read_bytes() == OLD and leftovers(tmp_path) == []


def test_a_symlink_loop_is_refused_with_the_systems_reason(tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to("loop.json")
    with pytest.raises(InputError) as caught:
        write_atomic(loop, b"x")
    assert str(caught.value) == f"{loop}: cannot write: Too many levels of symbolic links"


def test_check_output_follows_a_symlink_by_default(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(gzip.compress(OLD))
    os.chmod(real, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    info = real.stat()
    assert check_output(str(link)) == outputs.Target(
        str(link), str(real), False, (info.st_dev, info.st_ino), 0o640, True)


def _stat_failing_for(monkeypatch: pytest.MonkeyPatch, failing: str, exc: OSError) -> None:
    real = os.stat

    def stat_(path: str, *args: object, **kwargs: object) -> os.stat_result:
        if path == failing:
            raise exc
        return real(path)

    monkeypatch.setattr(os, "stat", stat_)


def test_a_folder_that_cannot_be_looked_at_is_refused_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # only a race (or a file system that refuses the folder but not the file) gets here
    out = str(tmp_path / "out.json")
    _stat_failing_for(monkeypatch, str(tmp_path), PermissionError(errno.EACCES,
                                                                  "Permission denied"))
    with pytest.raises(InputError) as caught:
        check_output(out)
    assert str(caught.value) == f"{out}: cannot write: {tmp_path}: Permission denied"
    assert caught.value.source == out


def test_an_os_error_without_a_reason_is_named_by_its_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = str(tmp_path / "out.json")
    _stat_failing_for(monkeypatch, out, OSError("the file system said no"))
    with pytest.raises(InputError) as caught:
        check_output(out)
    assert str(caught.value) == f"{out}: cannot write: the file system said no"
    _stat_failing_for(monkeypatch, str(tmp_path), OSError("nor the folder"))
    with pytest.raises(InputError) as caught:
        check_output(str(tmp_path / "other.json"))
    assert str(caught.value) == f"{tmp_path}/other.json: cannot write: {tmp_path}: nor the folder"


# outputs: a full device, a file system that fails, a closed pipe -------------------------


def test_write_atomic_to_a_full_device_is_a_clear_error() -> None:
    with pytest.raises(InputError) as caught:
        write_atomic("/dev/full", b"data")
    assert str(caught.value) == "/dev/full: cannot write: No space left on device"
    assert caught.value.source == "/dev/full"
    assert isinstance(caught.value.__cause__, OSError)
    assert caught.value.__cause__.errno == errno.ENOSPC


def test_a_full_device_among_outputs_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    out, new = tmp_path / "out.json", tmp_path / "new.json.gz"
    out.write_bytes(OLD)
    with pytest.raises(InputError, match=r"^/dev/full: cannot write: No space left on device$"):
        write_many_atomic({str(out): b"new", "/dev/full": b"x", str(new): b"{}"})
    assert out.read_bytes() == OLD and not new.exists() and leftovers(tmp_path) == []


def _full_temp_files(monkeypatch: pytest.MonkeyPatch, fail_at: int) -> list[str]:
    """Temp files whose ``fail_at``-th one (from 1) sits on a full device, as on a full disk."""
    made: list[str] = []
    real = outputs._mkstemp

    def mkstemp(*, prefix: str, suffix: str, dir: str) -> tuple[int, str]:
        fd, tmp = real(prefix=prefix, suffix=suffix, dir=dir)
        made.append(tmp)
        if len(made) == fail_at:
            full = os.open("/dev/full", os.O_WRONLY)
            os.dup2(full, fd)
            os.close(full)
        return fd, tmp

    monkeypatch.setattr(outputs, "_mkstemp", mkstemp)
    return made


@pytest.mark.parametrize("fail_at", [1, 2])
def test_a_full_disk_while_staging_leaves_no_temp_file_and_no_file_changed(
        fail_at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_bytes(OLD)
    second.write_bytes(OLD)
    made = _full_temp_files(monkeypatch, fail_at)
    with pytest.raises(InputError) as caught:
        write_many_atomic({str(first): b"1", str(second): b"2"})
    failed = (first, second)[fail_at - 1]
    assert str(caught.value) == f"{failed}: cannot write: No space left on device"
    assert len(made) == fail_at  # nothing more was staged after the failure
    assert first.read_bytes() == OLD and second.read_bytes() == OLD
    assert leftovers(tmp_path) == [] and not any(map(os.path.exists, made))


def test_a_failing_rename_names_the_files_already_replaced(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    paths = [tmp_path / f"{n}.json" for n in ("a", "b", "c")]
    for path in paths:
        path.write_bytes(OLD)
    real = os.replace
    calls: list[str] = []

    def replace(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(errno.EIO, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(InputError) as caught:
        write_many_atomic({str(path): path.name.encode() for path in paths})
    assert str(caught.value) == (f"{paths[2]}: cannot write: Input/output error ({paths[0]}, "
                                 f"{paths[1]} already replaced)")
    assert [path.read_bytes() for path in paths] == [b"a.json", b"b.json", OLD]
    assert leftovers(tmp_path) == []


def test_the_first_failing_rename_is_the_file_named(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [tmp_path / f"{n}.json" for n in ("a", "b")]
    for path in paths:
        path.write_bytes(OLD)

    def replace(src: str, dst: str) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(InputError) as caught:
        write_many_atomic({str(path): b"new" for path in paths})
    assert str(caught.value) == f"{paths[0]}: cannot write: Input/output error"
    assert [path.read_bytes() for path in paths] == [OLD, OLD] and leftovers(tmp_path) == []


def test_without_following_links_a_path_is_read_as_written(tmp_path: Path) -> None:
    """``d/../x`` through a link ``d`` is ``x`` beside ``d`` when links are not followed (the
    files of a trace folder), not the file the kernel would find beside ``d``'s target."""
    (tmp_path / "sub" / "inner").mkdir(parents=True)
    elsewhere = tmp_path / "sub" / "x"
    elsewhere.write_bytes(OLD)
    elsewhere.chmod(0o600)
    (tmp_path / "d").symlink_to(tmp_path / "sub" / "inner")
    target = check_output(str(tmp_path / "d" / ".." / "x"), follow_symlinks=False)
    assert (target.real, target.identity, target.mode) == (str(tmp_path / "x"), None, None)
    write_many_atomic({str(tmp_path / "d" / ".." / "x"): b"{}"}, follow_symlinks=False)
    assert (tmp_path / "x").read_bytes() == b"{}" and elsewhere.read_bytes() == OLD
    assert stat.S_IMODE((tmp_path / "x").stat().st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _reader_that_leaves(fifo: Path) -> threading.Thread:
    """A reader of ``fifo`` that takes one byte and goes away (``| head -c 1``)."""

    def read() -> None:
        with open(fifo, "rb") as handle:
            handle.read(1)

    thread = threading.Thread(target=read)
    thread.start()
    return thread


def test_a_pipe_whose_reader_goes_away_is_a_clear_error(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    reader = _reader_that_leaves(fifo)
    try:
        with pytest.raises(InputError) as caught:
            write_many_atomic({str(out): b"new", str(fifo): b"x" * (4 << 20)})
    finally:
        reader.join(30)
    assert str(caught.value) == f"{fifo}: cannot write: Broken pipe"
    assert isinstance(caught.value.__cause__, BrokenPipeError)
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # written in place, never replaced


def test_a_fifo_output_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gz"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    thread = threading.Thread(target=read)
    thread.start()
    write_atomic(fifo, b"through the pipe")
    thread.join(30)
    assert got == [gzip.compress(b"through the pipe", compresslevel=6, mtime=0)]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and leftovers(tmp_path) == []


# ``-o /dev/stdout`` (or /dev/fd/N) of a pipe (``metaplan normalize P -o /dev/stdout | head``):
# realpath turns /proc/self/fd/N's "pipe:[1234]" into a path that does not exist; the pipe is
# still written in place, not taken for a new file (it failed with "No such file or directory").
def test_a_pipe_named_through_dev_fd_is_written_in_place(pipe: Pipe) -> None:
    write_atomic(f"/dev/fd/{pipe.write}", b"through the pipe")
    assert pipe.received() == b"through the pipe"


def test_the_command_writes_to_dev_stdout_of_a_pipe() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "metaplan", "normalize", str(fixture_path("llama3_8b.hf4")),
         "-o", "/dev/stdout", "-q"], capture_output=True, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == expected_bytes("llama3_8b.hf4")


# outputs: standard output ----------------------------------------------------------------


def _as_stdout(monkeypatch: pytest.MonkeyPatch, fd: int) -> io.TextIOWrapper:
    # closed by each test (closefd=False: the descriptor stays the test's)
    stream = io.TextIOWrapper(open(fd, "wb", closefd=False), encoding="utf-8")  # noqa: SIM115
    monkeypatch.setattr(sys, "stdout", stream)
    return stream


def _is_devnull(fd: int) -> bool:
    info, null = os.fstat(fd), os.stat(os.devnull)
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == null.st_rdev


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_write_stdout_writes_after_pending_text_and_flushes(monkeypatch: pytest.MonkeyPatch,
                                                            pipe: Pipe) -> None:
    stream = _as_stdout(monkeypatch, pipe.write)
    try:
        stream.write("text first, ")
        write_stdout(b"then bytes")
        assert pipe.received() == b"text first, then bytes"  # nothing left buffered
    finally:
        stream.close()


def test_write_stdout_to_a_pipe_whose_reader_left_is_not_an_error(
        monkeypatch: pytest.MonkeyPatch, pipe: Pipe) -> None:
    pipe.close(pipe.read)
    stream = _as_stdout(monkeypatch, pipe.write)
    try:
        fds = _open_fds()
        write_stdout(b"x" * 100)  # no error: the rest is dropped, silently
        assert _is_devnull(pipe.write)  # stdout now goes nowhere: the flush at exit cannot fail
        assert _open_fds() == fds  # the null device's own descriptor was closed
        stream.write("more")
        stream.flush()
    finally:
        stream.close()


def test_write_stdout_to_a_full_device_is_a_clear_error_and_stdout_is_discarded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    full = os.open("/dev/full", os.O_WRONLY)
    stream = _as_stdout(monkeypatch, full)
    try:
        with pytest.raises(InputError) as caught:
            write_stdout(b"data")
        assert str(caught.value) == "<stdout>: cannot write: No space left on device"
        assert caught.value.source == outputs.STDOUT == "<stdout>"
        assert _is_devnull(full)
        stream.flush()  # what was left in the buffer now goes to the null device
    finally:
        stream.close()
        os.close(full)


def test_write_stdout_when_stdout_is_none_or_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(InputError) as caught:
        write_stdout(b"data")
    assert str(caught.value) == "<stdout>: cannot write: standard output is closed"
    closed = io.TextIOWrapper(io.BytesIO())
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    with pytest.raises(InputError) as caught:
        write_stdout(b"data")
    assert str(caught.value) == "<stdout>: cannot write: I/O operation on closed file."


def test_a_full_stdout_among_outputs_replaces_no_file(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    full = os.open("/dev/full", os.O_WRONLY)
    stream = _as_stdout(monkeypatch, full)
    try:
        with pytest.raises(InputError, match=r"^<stdout>: cannot write: No space left on dev"):
            write_many_atomic({str(out): b"new", str(tmp_path / "n.gz"): b"{}"}, stdout=b"x")
    finally:
        stream.close()
        os.close(full)
    assert out.read_bytes() == OLD and not (tmp_path / "n.gz").exists()
    assert leftovers(tmp_path) == []


def test_a_closed_stdout_among_outputs_replaces_no_file(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(InputError, match=r"^<stdout>: cannot write: standard output is closed$"):
        write_many_atomic({str(out): b"new"}, stdout=b"x")
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []


def test_a_stdout_reader_that_left_does_not_stop_the_files(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           pipe: Pipe) -> None:
    pipe.close(pipe.read)
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    stream = _as_stdout(monkeypatch, pipe.write)
    try:
        write_many_atomic({str(out): b"new"}, stdout=b"x" * 100)
    finally:
        stream.close()
    assert out.read_bytes() == b"new" and leftovers(tmp_path) == []


def test_stdout_is_written_before_any_file_is_replaced(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       pipe: Pipe) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(OLD)
    stream = _as_stdout(monkeypatch, pipe.write)
    seen: list[bytes] = []
    real = os.replace

    def replace(src: str, dst: str) -> None:
        seen.append(pipe.received())
        seen.append(Path(dst).read_bytes())
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    try:
        write_many_atomic({str(out): b"new"}, stdout=b"on stdout")
    finally:
        stream.close()
    assert seen == [b"on stdout", OLD] and out.read_bytes() == b"new"


# inputs: the size limit ------------------------------------------------------------------


def test_input_size_limit_restores_the_previous_limit_also_after_an_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert max_input_size() == DEFAULT_MAX_INPUT_SIZE == 1 << 30
    with input_size_limit(100):
        assert max_input_size() == 100
        with input_size_limit(50):
            assert max_input_size() == 50
        assert max_input_size() == 100
        with pytest.raises(KeyError), input_size_limit(7):
            assert max_input_size() == 7
            raise KeyError("inside")
        assert max_input_size() == 100
        with input_size_limit(None):  # the default rule again, not the enclosing limit
            assert max_input_size() == DEFAULT_MAX_INPUT_SIZE
            monkeypatch.setenv(ENV_MAX_INPUT_SIZE, "2K")
            assert max_input_size() == 2048
        assert max_input_size() == 100  # the block's limit wins over the environment
    assert max_input_size() == 2048
    monkeypatch.setenv(ENV_MAX_INPUT_SIZE, "")
    assert max_input_size() == DEFAULT_MAX_INPUT_SIZE


def test_a_bad_environment_limit_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_MAX_INPUT_SIZE, "lots")
    with pytest.raises(InputError) as caught:
        max_input_size()
    assert str(caught.value) == ("METAPLAN_MAX_INPUT_SIZE: expected a size such as 4G, 512M or "
                                 "1000000 (bytes; K, M, G, T are powers of 1024), found 'lots'")
    assert caught.value.source == ENV_MAX_INPUT_SIZE
    with input_size_limit(10):
        assert max_input_size() == 10  # the environment is not even read


@pytest.mark.parametrize("size", [1, 10, 1024, 3000])
def test_a_file_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(size: int,
                                                                          tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(b"x" * size)
    with input_size_limit(size):
        assert read_bytes(path) == b"x" * size
    path.write_bytes(b"x" * (size + 1))
    with input_size_limit(size), pytest.raises(InputError) as caught:
        read_bytes(path)
    assert str(caught.value) == (f"{path}: {size + 1} bytes, more than the input limit of "
                                 f"{describe_size(size)}{LIMIT_TAIL}")
    assert caught.value.source == str(path)


def test_the_limit_message_describes_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(b"x" * 2000)
    with input_size_limit(1024), pytest.raises(InputError) as caught:
        read_bytes(path)
    assert str(caught.value) == (f"{path}: 2000 bytes, more than the input limit of 1 KiB "
                                 f"(1024 bytes){LIMIT_TAIL}")


@pytest.mark.parametrize("size", [1, 10, 5000])
def test_stdin_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(
        size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"y" * size)))
    with input_size_limit(size):
        assert read_bytes("-") == b"y" * size
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"y" * (size + 1))))
    with input_size_limit(size), pytest.raises(InputError) as caught:
        read_bytes("-")
    assert str(caught.value) == (f"<stdin>: more bytes than the input limit of "
                                 f"{describe_size(size)}{LIMIT_TAIL}")
    assert caught.value.source == "<stdin>"


def test_stdin_larger_than_one_read_chunk_is_read_whole_and_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = bytes(range(256)) * ((3 << 20) // 256 + 7)  # past three 1 MiB reads
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with input_size_limit(len(data)):
        assert read_bytes("-") == data
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with input_size_limit(len(data) - 1), pytest.raises(InputError, match="more bytes than"):
        read_bytes("-")


@pytest.mark.parametrize("extra", [0, 1])
def test_a_pipe_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(
        extra: int, pipe: Pipe) -> None:
    os.write(pipe.write, b"z" * (11 + extra))
    pipe.close(pipe.write)
    source = f"/dev/fd/{pipe.read}"  # not a regular file: read in chunks, counted
    with input_size_limit(11):
        if not extra:
            assert read_bytes(source) == b"z" * 11
            return
        with pytest.raises(InputError) as caught:
            read_bytes(source)
    assert str(caught.value) == (f"{source}: more bytes than the input limit of 11 bytes"
                                 f"{LIMIT_TAIL}")


def test_closed_stdin_and_a_missing_file_are_clear_errors(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(InputError) as caught:
        read_bytes("-")
    assert str(caught.value) == "<stdin>: cannot read: standard input is closed"
    missing = tmp_path / "missing.json"
    with pytest.raises(InputError) as caught:
        read_bytes(missing)
    assert str(caught.value) == f"{missing}: no such file"
    with pytest.raises(InputError) as caught:
        read_bytes(tmp_path)
    assert str(caught.value) == f"{tmp_path}: cannot read: Is a directory"


@pytest.mark.parametrize("size", [1000, 70_000])
def test_gzip_expanding_to_exactly_the_limit_is_read_and_one_byte_more_is_refused(
        size: int, tmp_path: Path) -> None:
    path = tmp_path / "in.json.gz"
    path.write_bytes(gzip.compress(b" " * size))
    with input_size_limit(size):
        assert read_bytes(path) == b" " * size
    path.write_bytes(gzip.compress(b" " * (size + 1)))
    assert path.stat().st_size < size  # only what it expands to passes the limit
    with input_size_limit(size), pytest.raises(InputError) as caught:
        read_bytes(path)
    assert str(caught.value) == (f"{path}: gzip data that expands to more than the input limit "
                                 f"of {describe_size(size)}{LIMIT_TAIL}")


def test_gzip_data_itself_past_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "in.json.gz"
    data = gzip.compress(b"{}")
    path.write_bytes(data)
    with input_size_limit(len(data) - 1), pytest.raises(InputError) as caught:
        read_bytes(path)
    assert str(caught.value).startswith(f"{path}: {len(data)} bytes, more than the input limit")


def _proc_cmdline() -> tuple[str, bytes]:
    """A regular file whose st_size (0) is less than it holds: as a file that grew."""
    cmdline = "/proc/self/cmdline"
    assert stat.S_ISREG(os.stat(cmdline).st_mode) and os.stat(cmdline).st_size == 0
    with open(cmdline, "rb") as handle:
        whole = handle.read()
    assert len(whole) > 2
    return cmdline, whole


def test_a_regular_file_larger_than_its_stated_size_is_read_whole_and_bounded() -> None:
    cmdline, whole = _proc_cmdline()
    with input_size_limit(len(whole)):
        assert read_bytes(cmdline) == whole
    for limit in (len(whole) - 1, 2, 1):
        with input_size_limit(limit), pytest.raises(InputError) as caught:
            read_bytes(cmdline)
        assert str(caught.value).startswith(f"{cmdline}: more bytes than the input limit of ")


# A regular file that holds more than its st_size says (it grew while being read; any /proc
# file) is refused naming the limit itself (it named the budget left: "of 0 bytes" under 1).
def test_a_file_that_grew_past_the_limit_is_refused_naming_the_limit() -> None:
    cmdline, whole = _proc_cmdline()
    for limit in (len(whole) - 1, 1):
        with input_size_limit(limit), pytest.raises(InputError) as caught:
            read_bytes(cmdline)
        assert str(caught.value) == (f"{cmdline}: more bytes than the input limit of "
                                     f"{describe_size(limit)}{LIMIT_TAIL}")


def test_a_file_that_grew_between_its_stat_and_its_read_is_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(b"g" * 20)
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:  # stated 10 bytes: 10 more came after the stat
        fields = list(real(fd))
        fields[stat.ST_SIZE] = 10
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", fstat)
    with input_size_limit(20):
        assert read_bytes(path) == b"g" * 20
    with input_size_limit(10), pytest.raises(InputError) as caught:
        read_bytes(path)  # the one byte read past its stated size passes the limit
    assert str(caught.value) == (f"{path}: more bytes than the input limit of 10 bytes"
                                 f"{LIMIT_TAIL}")


def test_a_path_object_naming_dash_is_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(b"{}"))))
    assert read_bytes(Path("-")) == b"{}"


# inputs: gzip members --------------------------------------------------------------------


def test_every_gzip_member_is_read_in_order(tmp_path: Path) -> None:
    path = tmp_path / "in.json"  # gzip by its bytes, whatever the name
    path.write_bytes(gzip.compress(b'{"a": ') + gzip.compress(b"") + gzip.compress(b"[1]}"))
    assert read_bytes(path) == b'{"a": [1]}'


def test_gzip_data_fed_in_many_pieces_comes_back_whole(tmp_path: Path) -> None:
    import random

    noise = random.Random(0).randbytes(700_000)  # incompressible: ~3 pieces of 256 KiB fed
    path = tmp_path / "in.gz"
    path.write_bytes(gzip.compress(noise) + gzip.compress(noise[::-1]))
    assert path.stat().st_size > 2 * 700_000
    assert read_bytes(path) == noise + noise[::-1]


def test_gzip_data_expanding_past_one_16_mib_step_comes_back_whole(tmp_path: Path) -> None:
    data = b"{" + b" " * (40 << 20) + b"}"  # ~40 KB compressed: one piece, three steps out
    path = tmp_path / "in.gz"
    path.write_bytes(gzip.compress(data, compresslevel=9) + gzip.compress(b"[]"))
    assert read_bytes(path) == data + b"[]"


def test_gzip_data_still_being_fed_when_a_step_is_full_comes_back_whole(tmp_path: Path) -> None:
    import random

    noise = random.Random(1).randbytes(400_000)
    data = b" " * (40 << 20) + noise  # the spaces' 40 KB fill 16 MiB steps; more input waits
    path = tmp_path / "in.gz"
    path.write_bytes(gzip.compress(data, compresslevel=9))
    assert path.stat().st_size > 1 << 18  # more than the first piece fed
    assert read_bytes(path) == data


def test_the_limit_counts_the_bytes_of_all_members_together(tmp_path: Path) -> None:
    path = tmp_path / "in.json.gz"
    path.write_bytes(gzip.compress(b"a" * 500) + gzip.compress(b"b" * 500))
    with input_size_limit(1000):
        assert read_bytes(path) == b"a" * 500 + b"b" * 500
    with input_size_limit(999), pytest.raises(InputError, match="expands to more than the input "
                                                                 "limit of 999 bytes;"):
        read_bytes(path)


@pytest.mark.parametrize(("tail", "why"), [
    (b"\0\0", "2 bytes that are not gzip data follow the stream"),  # the gzip module skips these
    (b"garbage!", "8 bytes that are not gzip data follow the stream"),
    (b"\x1f", "1 bytes that are not gzip data follow the stream"),
    (b"\x1f\x8b", "the compressed data ends before the end of its stream"),
    (gzip.compress(b"second")[:-3], "the compressed data ends before the end of its stream"),
])
def test_what_follows_a_gzip_member_must_be_a_whole_member(tail: bytes, why: str,
                                                           tmp_path: Path) -> None:
    path = tmp_path / "in.json.gz"
    path.write_bytes(gzip.compress(b"{}") + tail)
    with pytest.raises(InputError) as caught:
        read_bytes(path)
    assert str(caught.value) == (f"{path}: cannot read: it starts as gzip data but does not "
                                 f"decompress ({why})")


def test_a_corrupt_gzip_member_is_refused(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(b'{"param_plan": {}}'))
    data[-8] ^= 0xFF  # the CRC
    path = tmp_path / "in.json.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError) as caught:
        read_bytes(path)
    assert str(caught.value) == (f"{path}: cannot read: it starts as gzip data but does not "
                                 "decompress (Error -3 while decompressing data: incorrect data "
                                 "check)")


def test_a_bundled_plan_reads_as_the_gzip_module_reads_it() -> None:
    assert read_bytes(fixture_path("deepseek_v3.hf5")) == TEXT


# inputs: sizes ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "size"), [
    ("100K", 100 << 10), ("100k", 100 << 10), ("100KB", 100 << 10), ("100KiB", 100 << 10),
    ("100kib", 100 << 10), ("512M", 512 << 20), ("2GiB", 2 << 30), ("4gb", 4 << 30),
    ("1T", 1 << 40), ("1000", 1000), (" 7 M ", 7 << 20), ("1", 1), ("0010", 10),
    ("5B", 5), ("5iB", 5),  # a bare B (or iB) is bytes
])
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "0K", "-1", "1.5G", "K", "1P", "1 K B", "1KK",
                                  "1e3", "lots"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_size(text)
    assert str(caught.value) == ("--max-input-size: expected a size such as 4G, 512M or 1000000 "
                                 f"(bytes; K, M, G, T are powers of 1024), found {text!r}")
    assert caught.value.source == "--max-input-size"


def test_parse_size_names_where_and_shows_40_characters_at_most() -> None:
    text = "x" * 100
    with pytest.raises(InputError) as caught:
        parse_size(text, "--limit")
    assert str(caught.value).startswith("--limit: expected a size")
    assert str(caught.value).endswith(f"found {'x' * 40!r}")
    assert caught.value.source == "--limit"


@pytest.mark.parametrize(("size", "text"), [
    (0, "0 bytes"), (1, "1 bytes"), (1023, "1023 bytes"), (1024, "1 KiB (1024 bytes)"),
    (1536, "1536 bytes"), (1 << 20, "1 MiB (1048576 bytes)"),
    ((1 << 20) + 1024, "1025 KiB (1049600 bytes)"), (100 << 10, "100 KiB (102400 bytes)"),
    (1 << 30, "1 GiB (1073741824 bytes)"), (3 << 30, "3 GiB (3221225472 bytes)"),
    (1 << 40, "1 TiB (1099511627776 bytes)"), (2048 << 30, "2 TiB (2199023255552 bytes)"),
    (1 << 50, "1024 TiB (1125899906842624 bytes)"),
])
def test_describe_size(size: int, text: str) -> None:
    assert describe_size(size) == text


@pytest.mark.parametrize("size", [1, 1000, 1024, 4 << 20, 1 << 30, 5 << 40])
def test_a_described_size_parses_back(size: int) -> None:
    shown = describe_size(size).split(" (")[0].replace("iB", "").replace(" bytes", "")
    assert parse_size(shown.replace(" ", "")) == size


def test_the_module_constants() -> None:
    assert inputs.STDIN == "-" and ENV_MAX_INPUT_SIZE == "METAPLAN_MAX_INPUT_SIZE"
    assert outputs.TEMP_PREFIX == ".metaplan-" and outputs.TEMP_SUFFIX == ".tmp"
