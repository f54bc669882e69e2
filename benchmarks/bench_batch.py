"""``metaplan batch verify``: a sweep of tp/ep variants, --jobs 1 vs --jobs 2 vs a shell loop.

The sweep is synthetic: the bundled DeepSeek-V3 and Qwen3-MoE plans with
their ``parallel_dims`` set to tp x ep variants, written uncompressed to a
temp folder. Two sets, each command a fresh process, interleaved, medians:

- 16 distinct plans: ``--jobs 2`` against ``--jobs 1`` (target: >= 1.3x
  faster on 2 cores);
- 80 files holding 8 distinct plans (each written ten times under its own
  name: a sweep that collapses): ``batch verify --jobs 2`` against a shell
  loop of ``metaplan verify`` over the 80 files (target: >= 10x), with the
  dedupe ratio (files / distinct contents).

Both batch runs' stdout is checked to be byte-identical across jobs.

    python benchmarks/bench_batch.py [--repeat N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import announce, compile_bytecode, line, load_dict, median, walls

PLANS = ("deepseek_v3.hf4", "qwen3_moe.hf4")
TP, EP = (1, 2, 4, 8), (1, 8)


def _sweep(folder: Path, distinct: int, copies: int) -> list[str]:
    """``distinct`` variants (tp x ep x plan), each written ``copies`` times."""
    paths = []
    variants = itertools.islice(itertools.product(PLANS, TP, EP), distinct)
    raws = {name: load_dict(name) for name in PLANS}
    for name, tp, ep in variants:
        raw = raws[name]
        raw["parallel_dims"] = {**raw["parallel_dims"], "tp": tp, "ep": ep}
        text = json.dumps(raw, indent=2, sort_keys=True).encode()
        for copy in range(copies):
            path = folder / f"{name}.tp{tp}.ep{ep}.{copy}.json"
            path.write_bytes(text)
            paths.append(str(path))
    return paths


def _stdout(command: list[str]) -> bytes:
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[:4]} exited {done.returncode}: {done.stderr[-400:]!r}")
    return done.stdout


def main() -> None:
    announce()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compile_bytecode()
    py = sys.executable
    batch = [py, "-m", "metaplan", "batch", "verify"]
    with tempfile.TemporaryDirectory() as tmp:
        for part in ("16", "80"):
            Path(tmp, part).mkdir()
        sixteen = _sweep(Path(tmp, "16"), 16, 1)
        eighty = _sweep(Path(tmp, "80"), 8, 10)
        for paths in (sixteen, eighty):
            assert _stdout([*batch, "-j", "1", *paths]) == _stdout([*batch, "-j", "2", *paths])
        times = walls({"metaplan": [*batch, "-j", "2", *sixteen],
                       "jobs 1": [*batch, "-j", "1", *sixteen]}, repeat=args.repeat)
        line("batch verify, 16 distinct: -j 2 vs -j 1", times, faster_than={"jobs 1": 1.3})
        loop = " ; ".join(f"{shlex.quote(py)} -m metaplan verify {shlex.quote(p)} >/dev/null"
                          for p in eighty)
        times = walls({"metaplan": [*batch, "-j", "2", *eighty],
                       "shell loop": ["sh", "-c", f"{loop} ; true"]}, repeat=args.repeat)
        print(f"dedupe: {len(eighty)} files, 8 distinct contents ({len(eighty) / 8:.0f}x)")
        line("batch verify, 80 files / 8 distinct", times, faster_than={"shell loop": 10})
        print(f"(a single metaplan verify: {median(times['shell loop']) / len(eighty) * 1e3:.0f}"
              " ms a file in the loop)")


if __name__ == "__main__":
    main()
