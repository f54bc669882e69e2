"""Core: `metaplan.normalize` on a freshly loaded plan, records included, vs seed and floor.

Three contenders, interleaved, medians of N rounds:

- the seed: the line-for-line transcription in ``metaplan.oracle``, in place,
  on a fresh ``json.loads`` of the plan each round;
- the floor: ``_floor.floor_normalize``, the same three stages indexed and
  pure on plain dicts, building the same change records, on a fresh
  ``json.loads`` each round;
- metaplan: ``metaplan.normalize`` on a fresh ``metaplan.loads`` each round
  (every record built; hashes are computed when read, and nothing reads them).

Targets (issue 10): >= 5x faster than the seed and <= 2.0x the floor on the
two transformers-4 plans; the small transformers-5 plans are printed too.

    python benchmarks/bench_core.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json

from _common import announce, interleaved, line, read_raw
from _floor import floor_normalize

import metaplan
from metaplan.passes.oracle import reference_normalize

FIXTURES = ("deepseek_v3.hf4", "qwen3_moe.hf4", "deepseek_v3.hf5", "qwen3_moe.hf5")


def check(raw: bytes) -> None:
    """The three agree: the floor's plan and records are metaplan's, byte for byte."""
    meta = json.loads(raw)
    result = metaplan.normalize(metaplan.loads(raw))
    plan, records = floor_normalize(meta, metaplan.rules_from_plan(meta), metaplan.BUILTIN_SPECS,
                                    meta.get("model_type"))
    assert metaplan.dumps(metaplan.Plan.from_json(plan)) == metaplan.dumps(result.plan)
    assert [list(r.changes) for r in result.records] == records


def main() -> None:
    announce()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    for name in FIXTURES:
        raw = read_raw(name)
        check(raw)

        def seed(meta: dict[str, object]) -> None:
            reference_normalize(meta, metaplan.rules_from_plan(meta), meta.get("model_type"))

        def floor(meta: dict[str, object]) -> object:
            return floor_normalize(meta, metaplan.rules_from_plan(meta), metaplan.BUILTIN_SPECS,
                                   meta.get("model_type"))  # type: ignore[arg-type]

        times = interleaved({
            "seed": (lambda raw=raw: json.loads(raw), seed),
            "floor": (lambda raw=raw: json.loads(raw), floor),
            "metaplan": (lambda raw=raw: metaplan.loads(raw), metaplan.normalize),
        }, repeat=args.repeat)
        big = name.endswith("hf4")
        line(f"normalize {name}", times, faster_than={"seed": 5 if big else 1},
             near={"floor": 2.0 if big else 3.0})


if __name__ == "__main__":
    main()
