"""braces and sequences: folding module names, and edit scripts / merges of arrays.

Each line times metaplan against a baseline run in the same process:

- ``fold`` against ``sorted(names)`` (what listing the names in order costs);
- ``edit_script`` against ``difflib.SequenceMatcher(autojunk=False)``'s
  opcodes (the standard library's LCS-like diff) on the same arrays;
- ``merge3`` against two ``difflib`` diffs (one per side).

The bars are the brief's absolute ones, printed beside: fold of DeepSeek-V3's
15,089 module names well under 50 ms, of 1,000,000 names a few seconds;
two 44,000-item sorted lists differing in 100 items a few ms; two 300-item
arrays of objects under 10 ms.

    python benchmarks/bench_algo.py [--repeat N]
"""

from __future__ import annotations

import argparse
import copy
import difflib
import json
import random
from typing import Any

from _common import announce, load_dict, report, timed

from metaplan.algorithms.braces import fold
from metaplan.algorithms.sequences import edit_script, json_key, merge3


def _difflib(a: list[Any], b: list[Any]) -> Any:
    ka, kb = [json_key(x) for x in a], [json_key(y) for y in b]
    return difflib.SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes()


def _bar(label: str, times: list[float], limit_ms: float) -> None:
    best = min(times) * 1000
    print(f"{'':42s} {label}: best {best:.1f} ms, bar {limit_ms:g} ms: "
          f"{'ok' if best <= limit_ms else 'MISSED'}", flush=True)


def bench_fold(repeat: int) -> None:
    plan = load_dict("deepseek_v3.hf4")
    for label, names, limit in (
            ("fold param_plan (15,089)", list(plan["param_plan"]), 50.0),
            ("fold frozen_sharded_params (44,912)", plan["frozen_sharded_params"], 200.0),
            ("fold 1,024,000 expert names",
             [f"model.layers.{i}.mlp.experts.{e}" for i in range(4000) for e in range(256)],
             5000.0)):
        reps = repeat if len(names) < 100_000 else 2
        base = timed(lambda names=names: names, sorted, repeat=reps)
        ours = timed(lambda names=names: names, fold, repeat=reps)
        report(label, base, ours, base_name="sorted")
        _bar("absolute", ours, limit)


def bench_sequences(repeat: int) -> None:
    plan = load_dict("deepseek_v3.hf4")
    params = plan["frozen_sharded_params"]
    rng = random.Random(1)
    dropped = set(rng.sample(params, 50))
    added = [name + ".new" for name in rng.sample(params, 50)]
    # a fresh list of fresh strings, as a second plan read from disk would hold
    edited = json.loads(json.dumps(sorted((set(params) - dropped) | set(added))))
    base = timed(lambda: None, lambda _: _difflib(params, edited), repeat=repeat)
    ours = timed(lambda: None, lambda _: edit_script(params, edited), repeat=repeat)
    report("edit_script 44k sorted, 100 changes", base, ours, base_name="difflib")
    _bar("absolute", ours, 10.0)

    objects = [dict(item, match=f"model.layers.{i}.mlp") for i, item in
               enumerate((plan["injections"] * 6)[:300])]
    changed = copy.deepcopy(objects)
    changed[5]["ep_size"] = 16
    del changed[100]
    changed.insert(200, dict(changed[0], match="model.layers.999.mlp"))
    base = timed(lambda: None, lambda _: _difflib(objects, changed), repeat=repeat)
    for label, key in (("by value", None), ("by match", lambda item: item["match"])):
        ours = timed(lambda: None, lambda _, key=key: edit_script(objects, changed, key=key),
                     repeat=repeat)
        report(f"edit_script 300 objects {label}", base, ours, base_name="difflib")
        _bar("absolute", ours, 10.0)

    theirs = copy.deepcopy(objects)
    theirs[250]["use_grouped_gemm"] = False
    base = timed(lambda: None, lambda _: (_difflib(objects, changed), _difflib(objects, theirs)),
                 repeat=repeat)
    ours = timed(lambda: None, lambda _: merge3(objects, changed, theirs,
                                                key=lambda item: item["match"]), repeat=repeat)
    report("merge3 300 objects by match", base, ours, base_name="2 difflib")
    other = sorted(set(params) - set(rng.sample(params, 30)))
    base = timed(lambda: None, lambda _: (_difflib(params, edited), _difflib(params, other)),
                 repeat=repeat)
    ours = timed(lambda: None, lambda _: merge3(params, edited, other), repeat=repeat)
    report("merge3 44k sorted", base, ours, base_name="2 difflib")


def main() -> None:
    announce()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    bench_fold(args.repeat)
    bench_sequences(args.repeat)


if __name__ == "__main__":
    main()
