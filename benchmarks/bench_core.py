"""Core: ``metaplan.normalize`` on a loaded plan (records included) vs the seed in place.

The seed is the line-for-line transcription in ``metaplan.oracle``, run on
a fresh deep copy of the plain dicts for each repetition; metaplan runs on a
loaded plan whose hash is not yet known (its records need it). Prints the
best of N runs (medians beside) and the speed-up; floor 3x, goal 5x (the
issue's bar is for the two transformers-4 plans; the small transformers-5
ones are printed for information).

    python benchmarks/bench_core.py [--repeat N]
"""

from __future__ import annotations

import argparse
import copy

from _common import fixture, load_dict, report, timed

import metaplan
from metaplan.oracle import reference_normalize

FIXTURES = ("deepseek_v3.hf4", "qwen3_moe.hf4", "deepseek_v3.hf5", "qwen3_moe.hf5")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for name in FIXTURES:
        meta = load_dict(name)
        rules = metaplan.rules_from_plan(meta)
        loaded = metaplan.load(fixture(name))
        seed = timed(lambda meta=meta: copy.deepcopy(meta),
                     lambda m, rules=rules: reference_normalize(m, rules, m.get("model_type")),
                     repeat=args.repeat)
        # a fresh Plan over the loaded maps each time: its hash is not yet known
        ours = timed(lambda loaded=loaded: metaplan.Plan(loaded.fields), metaplan.normalize,
                     repeat=args.repeat)
        report(f"normalize {name}", seed, ours, floor=3, goal=5)


if __name__ == "__main__":
    main()
