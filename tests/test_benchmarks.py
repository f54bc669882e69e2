"""A benchmark that needs a peer library says which, and the extra, in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _require(*modules: str) -> subprocess.CompletedProcess[str]:
    code = (f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); sys.argv[0] = 'bench_x.py'; "
            f"from _common import require; require(*{modules!r}); print('ran')")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)


def test_a_missing_peer_is_one_line_naming_the_extra() -> None:
    done = _require("json", "no_such_peer_a", "no_such_peer_b")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("bench_x.py: needs no_such_peer_a, no_such_peer_b (the [bench] "
                           "extra): pip install -e '.[bench]'\n")


def test_present_peers_let_the_benchmark_run() -> None:
    done = _require("json", "gzip")
    assert (done.returncode, done.stdout, done.stderr) == (0, "ran\n", "")


def test_the_benchmarks_name_the_python_and_the_pyrsistent_they_ran_with() -> None:
    import platform

    from pyrsistent import pvector

    code = (f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); "
            f"from _common import announce; announce()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    flavour = ("C PVector" if type(pvector()).__module__ == "pvectorc"
               else "pure Python PythonPVector")
    assert done.stdout.startswith(f"# CPython {platform.python_version()}, pyrsistent 0.")
    assert done.stdout.endswith(f" ({flavour})\n")
