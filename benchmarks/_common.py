"""Shared helpers for the benchmark scripts: fixtures, interleaved timing, ratio lines.

Every figure is measured in one run against its baselines, the runs of all
contenders interleaved (a, b, c, a, b, c, ...) so that the machine's drift
(a shared two-core VM here, whose timings wander by 30%) falls on all alike,
and reported as medians.
"""

from __future__ import annotations

import gc
import gzip
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def fixture(name: str) -> Path:
    """The path of a bundled fixture, e.g. ``deepseek_v3.hf4``."""
    return DATA / f"{name}.json.gz"


def read_raw(name: str) -> bytes:
    """The uncompressed JSON text of a bundled fixture."""
    return gzip.decompress(fixture(name).read_bytes())


def load_dict(name: str) -> dict[str, Any]:
    """A bundled fixture as plain dicts (the seed's view)."""
    return json.loads(read_raw(name))  # type: ignore[no-any-return]


Contender = tuple[Callable[[], Any], Callable[[Any], Any]]
"""``(setup, run)``: ``run(setup())`` is timed, the setup is not."""


def interleaved(contenders: dict[str, Contender], *, repeat: int) -> dict[str, list[float]]:
    """Seconds of each contender's ``run(setup())``, ``repeat`` rounds, contenders alternating.

    The setup and a full collection stay untimed; what a run returns is
    freed outside the timed region, for every contender alike.
    """
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, (setup, run) in contenders.items():
            arg = setup()
            gc.collect()
            start = time.perf_counter()
            result = run(arg)
            times[name].append(time.perf_counter() - start)
            del result, arg
    return times


def wall(command: list[str]) -> float:
    """Seconds a fresh process running ``command`` takes, start to exit."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def walls(commands: dict[str, list[str]], *, repeat: int) -> dict[str, list[float]]:
    """:func:`wall` of each command, ``repeat`` rounds, interleaved."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            times[name].append(wall(command))
    return times


def peak(command: list[str]) -> tuple[float, float]:
    """``(seconds, peak resident MiB)`` of a fresh process running ``command``."""
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds, kib = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kib) / 1024


def environment() -> str:
    """One line naming the interpreter and pyrsistent's implementation the figures come from.

    pyrsistent ships a C ``PVector`` (``pvectorc``) where it has a wheel and falls
    back to its pure-Python ``PythonPVector`` where it has none (CPython 3.13 and
    pyrsistent 0.20 here), which moves every figure; a ratio means little without it.
    """
    import platform
    from importlib.metadata import version

    from pyrsistent import pvector

    kind = type(pvector())
    flavour = "C" if kind.__module__ == "pvectorc" else "pure Python"
    return (f"{platform.python_implementation()} {platform.python_version()}, "
            f"pyrsistent {version('pyrsistent')} ({flavour} {kind.__qualname__})")


def announce() -> None:
    """Print :func:`environment` as a benchmark's first line."""
    print(f"# {environment()}", flush=True)


def compile_bytecode() -> None:
    """Compile metaplan and the benchmark scripts' modules to bytecode first, as a user's
    install has them (a first run would otherwise pay for compiling in its timing)."""
    import compileall

    here = Path(__file__).resolve().parent
    for folder in (here.parent / "src" / "metaplan", here):
        compileall.compile_dir(folder, quiet=1)


def uncompressed(name: str, folder: Path) -> Path:
    """A bundled fixture written uncompressed into ``folder`` (``NAME.json``)."""
    path = folder / f"{name}.json"
    path.write_bytes(read_raw(name))
    return path


def require(*modules: str, extra: str = "bench") -> None:
    """Exit (1) with one line naming the missing peer modules and the extra that installs them."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        script = Path(sys.argv[0]).name
        sys.exit(f"{script}: needs {', '.join(missing)} (the [{extra}] extra): "
                 f"pip install -e '.[{extra}]'")


def median(values: list[float]) -> float:
    return statistics.median(values)


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def line(label: str, times: dict[str, list[float]], *, ours: str = "metaplan",
         faster_than: dict[str, float] | None = None,
         near: dict[str, float] | None = None) -> dict[str, float]:
    """Print medians and ratios; return ``{baseline: ratio}``.

    ``faster_than`` maps a baseline to the speed-up asked of ``ours`` over it
    (baseline / ours >= target); ``near`` a baseline (a floor) to the most
    ``ours`` may cost over it (ours / baseline <= target).
    """
    mine = median(times[ours])
    parts = [f"{ours} {mine * 1e3:8.1f} ms"]
    ratios: dict[str, float] = {}
    for name, target in (faster_than or {}).items():
        ratio = ratios[name] = median(times[name]) / mine
        parts.append(f"{name} {median(times[name]) * 1e3:8.1f} ms: {ratio:5.2f}x faster "
                     f"(>= {target:g}x: {verdict(ratio >= target)})")
    for name, target in (near or {}).items():
        ratio = ratios[name] = mine / median(times[name])
        parts.append(f"{name} {median(times[name]) * 1e3:8.1f} ms: {ratio:5.2f}x the {name} "
                     f"(<= {target:g}x: {verdict(ratio <= target)})")
    print(f"{label:38s} " + "; ".join(parts), flush=True)
    return ratios
