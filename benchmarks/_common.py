"""Shared helpers for the benchmark scripts: fixtures, timing, printing ratios."""

from __future__ import annotations

import gc
import gzip
import json
import statistics
import subprocess
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
    return json.loads(read_raw(name))


def wall(command: list[str]) -> float:
    """Seconds a fresh process running ``command`` takes, start to exit."""
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


def timed(setup: Callable[[], Any], run: Callable[[Any], Any], *, repeat: int = 5) -> list[float]:
    """Seconds for ``run(setup())`` per repetition; setup and a full GC stay untimed."""
    times = []
    for _ in range(repeat):
        arg = setup()
        gc.collect()
        start = time.perf_counter()
        result = run(arg)
        times.append(time.perf_counter() - start)
        del result, arg  # freed outside the timed region, for both sides
    return times


def report(label: str, baseline: list[float], ours: list[float], *, floor: float | None = None,
           goal: float | None = None, base_name: str = "seed") -> float:
    """Print best-of-N times and the speed-up ratio baseline/ours; return the ratio.

    The best of several runs is the least disturbed by the machine's noise
    (a shared two-core VM here); both sides are treated alike.
    """
    base, mine = min(baseline), min(ours)
    ratio = base / mine
    bar = ""
    if floor is not None:
        bar = f"  floor {floor:g}x: {'ok' if ratio >= floor else 'MISSED'}"
        if goal is not None:
            bar += f", goal {goal:g}x: {'ok' if ratio >= goal else 'missed'}"
    spread = f"  (medians {statistics.median(baseline) * 1000:.0f} / " \
             f"{statistics.median(ours) * 1000:.0f} ms)" if len(ours) > 2 else ""
    print(f"{label:42s} {base_name} {base * 1000:9.1f} ms   metaplan {mine * 1000:8.1f} ms   "
          f"{ratio:6.2f}x{bar}{spread}", flush=True)
    return ratio
