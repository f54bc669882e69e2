"""Scaling: normalize on DeepSeek-V3-shaped plans of 32 and 128 layers (64 experts each).

Prints each side's time and the growth for 4x the layers (metaplan: at most
5x; the seed's all-pairs loops grow ~15x), then metaplan alone on a plan of
about a million entries (the seed's rules x classes loop would take hours).

    python benchmarks/bench_scaling.py [--repeat N] [--skip-million]
"""

from __future__ import annotations

import argparse
import copy
import time

from _common import report, timed
from _synthetic import synthetic_bytes

import metaplan
from metaplan.oracle import reference_normalize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-million", action="store_true")
    args = parser.parse_args()
    best = {}
    for layers in (32, 128):
        text = synthetic_bytes(layers)
        plan = metaplan.loads(text)
        meta = metaplan.thaw(plan.fields)
        rules = metaplan.rules_from_plan(meta)
        seed = timed(lambda meta=meta: copy.deepcopy(meta),
                     lambda m, rules=rules: reference_normalize(m, rules, m.get("model_type")),
                     repeat=args.repeat)
        ours = timed(lambda plan=plan: metaplan.Plan(plan.fields), metaplan.normalize,
                     repeat=args.repeat)
        report(f"normalize {layers} layers ({len(plan.param_plan):,} entries)", seed, ours)
        best[layers] = (min(seed), min(ours))
    seed_growth = best[128][0] / best[32][0]
    ours_growth = best[128][1] / best[32][1]
    verdict = "ok" if ours_growth <= 5 else "MISSED"
    print(f"growth for 4x the layers: seed {seed_growth:.1f}x, metaplan {ours_growth:.1f}x "
          f"(bound 5x: {verdict})", flush=True)
    if args.skip_million:
        return
    layers = 1_000_000 // 68 + 1
    text = synthetic_bytes(layers)
    start = time.perf_counter()
    plan = metaplan.loads(text)
    loaded = time.perf_counter() - start
    del text
    times = timed(lambda: metaplan.Plan(plan.fields), metaplan.normalize, repeat=1)
    result = metaplan.normalize(plan)
    changed = sum(len(r) for r in result.records)
    print(f"normalize {layers:,} layers ({len(plan.param_plan):,} entries): load {loaded:.1f} s, "
          f"normalize {times[0]:.1f} s, {changed:,} changes recorded; seed not run "
          f"({len(metaplan.rules_from_plan(plan)):,} rules x {len(plan.boundary_classes):,} "
          "fnmatch calls)", flush=True)


if __name__ == "__main__":
    main()
