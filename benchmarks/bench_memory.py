"""Memory: a full normalize trace (every state kept) vs the seed's one copy of dicts (tracemalloc).

A loaded plan shares its equal entries, so it is a fraction of the seed's
dicts; a trace keeps every state and record. Goal: the whole trace in less
memory than the seed's single copy of the plan (keeping a deepcopy per
stage of the seed's dicts costs about 3.4x that copy).

    python benchmarks/bench_memory.py
"""

from __future__ import annotations

import copy
import gc
import json
import tracemalloc

from _common import announce, read_raw

import metaplan

FIXTURES = ("deepseek_v3.hf4", "qwen3_moe.hf4")


def main() -> None:
    announce()
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
        ratio = trace_size / dict_size
        print(f"{name}: metaplan input plan {input_size / 2**20:.1f} MiB, full trace "
              f"{trace_size / 2**20:.1f} MiB = {ratio:.2f}x the seed's dicts "
              f"({dict_size / 2**20:.1f} MiB; goal < 1x: {'ok' if ratio < 1 else 'MISSED'}); "
              f"the seed's dicts with a deepcopy per stage {copies_size / 2**20:.1f} MiB = "
              f"{copies_size / dict_size:.2f}x", flush=True)


if __name__ == "__main__":
    main()
