"""tools/mutate.py names modules and tests that exist, and its equivalents name real lines."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _mutate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_mutate_tool", ROOT / "tools" / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_target_is_a_module_with_tests() -> None:
    tool = _mutate()
    for module, tests in tool.TARGETS.items():
        assert (tool.PACKAGE / module).is_file(), module
        for pattern in tests:
            assert sorted((ROOT / "tests").glob(pattern)), (module, pattern)


def test_every_equivalent_names_a_line_of_a_target() -> None:
    tool = _mutate()
    for (where, line, _mutation), _why in tool.load_equivalents().items():
        module, _, scope = where.partition(":")
        assert module in tool.TARGETS, where
        source = (tool.PACKAGE / module).read_text()
        scopes = tool.scopes(source)
        numbers = [n for n, text in enumerate(source.splitlines(), 1) if text.strip() == line]
        assert numbers, (where, line)
        assert any(scopes.get(n, "<module>") == scope for n in numbers), (where, line)


def test_a_device_a_mutant_replaced_is_put_back(tmp_path: Path) -> None:
    import os
    import stat

    tool = _mutate()
    null = tmp_path / "null"
    null.write_bytes(b"a mutant renamed its output over the device")
    if os.geteuid() != 0:  # only root can replace /dev/null, or make a device to put back
        try:
            tool._restore_devices({str(null): (1, 3)})
        except PermissionError:
            return
        raise AssertionError("mknod worked without root")
    tool._restore_devices({str(null): (1, 3), str(tmp_path / "absent"): (1, 7)})
    info = os.stat(null)
    assert stat.S_ISCHR(info.st_mode) and os.major(info.st_rdev) == 1
    assert os.minor(info.st_rdev) == 3 and stat.S_IMODE(info.st_mode) == 0o666
    assert not (tmp_path / "absent").exists()
    null.write_bytes(b"written through")  # a device: the write goes nowhere
    assert os.stat(null).st_size == 0


def test_line_ranges_name_the_lines_of_a_mutation_run() -> None:
    import argparse

    import pytest

    tool = _mutate()
    assert tool._lines("7") == [7] and tool._lines("3-5") == [3, 4, 5]
    for bad, why in (("5-3", "an empty range: '5-3'"), ("x", "not a line or a range N-M: 'x'")):
        with pytest.raises(argparse.ArgumentTypeError, match=f"^{why}$"):
            tool._lines(bad)


def test_an_equivalent_may_hold_a_bar_written_escaped(tmp_path: Path) -> None:
    import pytest

    tool = _mutate()
    listed = tmp_path / "equivalents.txt"
    listed.write_text("# a comment\n\nm.py:f | x: int \\| None = g() | 1 -> 2 | why \\| not\n")
    assert tool.load_equivalents(listed) == {
        ("m.py:f", "x: int | None = g()", "1 -> 2"): "why | not"}
    listed.write_text("# a comment\nm.py:f | x: int | None = g() | 1 -> 2 | why\n")
    with pytest.raises(SystemExit, match=r"equivalents.txt:2: expected 'module:scope \| line"):
        tool.load_equivalents(listed)
    assert tool.load_equivalents(tmp_path / "absent.txt") == {}
