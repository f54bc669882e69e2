"""Scaling: growth from 32 to 128 layers against the floor's, then a million entries.

1. DeepSeek-V3-shaped plans of 32 and 128 layers (64 experts each): the
   seed, the floor and metaplan (``normalize`` on a fresh load, records
   built), interleaved medians. metaplan's growth for 4x the layers is
   reported over the floor's own growth on the same plans (target <= 1.15x).
2. With ``--million``: a plan of about 1,000,000 entries (3 dense and 16 MoE
   layers of 62,496 experts: few EP targets, so the seed's all-pairs loops
   finish in minutes, not hours) written to a temp file, then each job run
   as a fresh process under ``/usr/bin/time``: the seed's job (json.load,
   seed, json.dump indent=2), the floor's, and ``metaplan normalize``; time
   and peak resident memory. Targets: faster than the seed's job, peak
   memory no more than it. Needs ~4 GB of memory and a few minutes.

    python benchmarks/bench_scaling.py [--repeat N] [--million]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _common import announce, interleaved, line, median, peak, verdict
from _floor import floor_normalize
from _synthetic import synthetic_bytes

import metaplan
from metaplan.passes.oracle import reference_normalize

HERE = Path(__file__).resolve().parent


def _seed(meta: dict[str, object]) -> None:
    reference_normalize(meta, metaplan.rules_from_plan(meta), meta.get("model_type"))  # type: ignore[arg-type]


def _floor(meta: dict[str, object]) -> object:
    return floor_normalize(meta, metaplan.rules_from_plan(meta), metaplan.BUILTIN_SPECS,
                           meta.get("model_type"))  # type: ignore[arg-type]


def growth(repeat: int) -> None:
    medians: dict[int, dict[str, float]] = {}
    for layers in (32, 128):
        raw = synthetic_bytes(layers)
        times = interleaved({
            "seed": (lambda raw=raw: json.loads(raw), _seed),
            "floor": (lambda raw=raw: json.loads(raw), _floor),
            "metaplan": (lambda raw=raw: metaplan.loads(raw), metaplan.normalize),
        }, repeat=repeat)
        entries = len(json.loads(raw)["param_plan"])
        line(f"normalize {layers} layers ({entries:,} entries)", times,
             faster_than={"seed": 5}, near={"floor": 2.0})
        medians[layers] = {name: median(values) for name, values in times.items()}
    grew = {name: medians[128][name] / medians[32][name] for name in medians[32]}
    over = grew["metaplan"] / grew["floor"]
    print(f"growth for 4x the layers: seed {grew['seed']:.1f}x, floor {grew['floor']:.2f}x, "
          f"metaplan {grew['metaplan']:.2f}x = {over:.2f}x the floor's growth "
          f"(<= 1.15x: {verdict(over <= 1.15)})", flush=True)


def million() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp, "million.json"), Path(tmp, "out.json")
        source.write_bytes(synthetic_bytes(19, experts=62_496))
        size = source.stat().st_size
        py = sys.executable
        jobs = {
            "seed": [py, str(HERE / "seed_cli.py"), str(source), str(out)],
            "floor": [py, str(HERE / "floor_cli.py"), "normalize", str(source), str(out)],
            "metaplan": [py, "-m", "metaplan", "normalize", "-q", str(source), "-o", str(out)],
        }
        results = {}
        for name, command in jobs.items():
            results[name] = peak(command)
            print(f"  {name}: {results[name][0]:.1f} s, peak {results[name][1]:,.0f} MiB",
                  flush=True)
        ours, seed = results["metaplan"], results["seed"]
        print(f"normalize ~1M entries ({size / 2**20:,.0f} MiB of JSON): metaplan "
              f"{ours[0]:.1f} s, {ours[1]:,.0f} MiB; seed's job {seed[0] / ours[0]:.1f}x slower "
              f"(faster: {verdict(ours[0] < seed[0])}), peak {ours[1] / seed[1]:.2f}x the seed's "
              f"(<= 1x: {verdict(ours[1] <= seed[1])}); floor {results['floor'][0]:.1f} s, "
              f"{results['floor'][1]:,.0f} MiB", flush=True)


def main() -> None:
    announce()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--million", action="store_true", help="also the ~1M-entry plan")
    args = parser.parse_args()
    growth(args.repeat)
    if args.million:
        million()


if __name__ == "__main__":
    main()
