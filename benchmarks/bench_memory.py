"""Memory: a full normalize trace (every state kept) vs the input plan alone (tracemalloc).

Goal at most 1.3x the input; keeping a deepcopy per stage of the seed's
dicts costs about 4x.

    python benchmarks/bench_memory.py
"""

from __future__ import annotations

import copy
import gc
import json
import tracemalloc

from _common import read_raw

import metaplan

FIXTURES = ("deepseek_v3.hf4", "qwen3_moe.hf4")


def main() -> None:
    for name in FIXTURES:
        raw = read_raw(name)
        gc.collect()
        tracemalloc.start()
        plan = metaplan.loads(raw)
        plan.content_hash  # noqa: B018 - a plan's digests are part of what it costs
        gc.collect()
        input_size = tracemalloc.get_traced_memory()[0]
        trace = metaplan.normalize(plan).trace
        gc.collect()
        trace_size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del trace, plan
        gc.collect()
        tracemalloc.start()
        meta = json.loads(raw)
        dict_size = tracemalloc.get_traced_memory()[0]
        states = [meta] + [copy.deepcopy(meta) for _ in range(3)]
        copies_size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del states, meta
        ratio = trace_size / input_size
        print(f"{name}: metaplan input plan {input_size / 2**20:.1f} MiB, full trace "
              f"{trace_size / 2**20:.1f} MiB = {ratio:.2f}x its input (goal 1.3x: "
              f"{'ok' if ratio <= 1.3 else 'missed'}); the seed's dicts {dict_size / 2**20:.1f} "
              f"MiB, with a deepcopy per stage {copies_size / 2**20:.1f} MiB = "
              f"{copies_size / dict_size:.2f}x theirs", flush=True)


if __name__ == "__main__":
    main()
