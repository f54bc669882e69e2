"""Diff and merge, end to end: metaplan vs dictdiffer, jsonpatch, DeepDiff and the floor.

A is the DeepSeek-V3 input, B its normal form (two files, 29,990 changes).
Each tool runs as a fresh process that loads both files, diffs and writes
its output (``metaplan diff`` exits 1 when the plans differ, as diff(1)
does: that is its success here), bytecode compiled first. Targets: ``diff --format
jsonpatch`` >= 4x faster than dictdiffer (issue 22; on the gzipped files and on the same
files uncompressed, which is where the parse shows); folding adds <= 20% to a diff's text
(folded vs ``--expand``, issue 14; against the JSON Patch, which shows no
hashes, it is printed too); ``merge`` of two full plans <= 2x a diff of them
(issue 13). Then, in process, a diff of two states of one trace (shared
structure) against the same plans loaded separately.

Needs the ``bench`` extra: ``pip install -e '.[bench]'``.

    python benchmarks/bench_diff.py [--repeat N] [--no-deepdiff]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import (
    DATA,
    announce,
    compile_bytecode,
    fixture,
    interleaved,
    line,
    median,
    require,
    uncompressed,
)

import metaplan

HERE = Path(__file__).resolve().parent
NAME = "deepseek_v3.hf4"


def _run(command: list[str], ok: tuple[int, ...] = (0,)) -> float:
    import time

    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    if done.returncode not in ok:
        raise SystemExit(f"{command[:4]} exited {done.returncode}")
    return time.perf_counter() - start


def main() -> None:
    announce()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-deepdiff", action="store_true", help="skip DeepDiff (slow)")
    args = parser.parse_args()
    require("dictdiffer", "jsonpatch", *(() if args.no_deepdiff else ("deepdiff",)))
    compile_bytecode()
    a, b = str(fixture(NAME)), str(DATA / f"{NAME}.expected.json.gz")
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp, "out.json"))
        plain_a = str(uncompressed(NAME, Path(tmp)))
        plain_b = str(uncompressed(f"{NAME}.expected", Path(tmp)))
        hand = Path(tmp, "hand.json")
        edit = metaplan.Edit(metaplan.load(a))
        edit.set(("param_plan", "model.layers.3.mlp.experts.0", "region_dispatch"), True)
        edit.set(("injections", 0, "ep_size"), 16)
        metaplan.dump(edit.finish("hand")[0], hand)
        commands = {
            "metaplan": ([py, "-m", "metaplan", "diff", a, b, "--format", "jsonpatch", "-o", out],
                         (1,)),
            "folded": ([py, "-m", "metaplan", "diff", a, b, "-o", out], (1,)),
            "expanded": ([py, "-m", "metaplan", "diff", a, b, "--expand", "-o", out], (1,)),
            "merge": ([py, "-m", "metaplan", "merge", a, b, str(hand), "-o", out], (0,)),
            "floor": ([py, str(HERE / "floor_cli.py"), "diff", a, b, out], (0,)),
            "dictdiffer": ([py, str(HERE / "other_diff.py"), "dictdiffer", a, b, out], (0,)),
            "plain": ([py, "-m", "metaplan", "diff", plain_a, plain_b, "--format", "jsonpatch",
                       "-o", out], (1,)),
            "plain floor": ([py, str(HERE / "floor_cli.py"), "diff", plain_a, plain_b, out], (0,)),
            "plain dictdiffer": ([py, str(HERE / "other_diff.py"), "dictdiffer", plain_a,
                                  plain_b, out], (0,)),
            "jsonpatch": ([py, str(HERE / "other_diff.py"), "jsonpatch", a, b, out], (0,)),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, (command, ok) in commands.items():
                times[name].append(_run(command, ok))
        line("diff --format jsonpatch, end to end", times,
             faster_than={"dictdiffer": 4, "jsonpatch": 1}, near={"floor": 1.5})
        line("diff --format jsonpatch, uncompressed", {
            "metaplan": times["plain"], "dictdiffer": times["plain dictdiffer"],
            "floor": times["plain floor"]}, faster_than={"dictdiffer": 4}, near={"floor": 1.5})
        line("diff, folded text vs every module listed", {"metaplan": times["folded"],
                                                          "expanded": times["expanded"]},
             near={"expanded": 1.2})
        line("diff, folded text (hashes in its header)", {"metaplan": times["folded"],
                                                          "jsonpatch": times["metaplan"]},
             near={"jsonpatch": 1.3})
        line("merge of two full plans vs their diff", {"metaplan": times["merge"],
                                                        "diff": times["metaplan"]},
             near={"diff": 2.0})
        if not args.no_deepdiff:
            deep = [_run([py, str(HERE / "other_diff.py"), "deepdiff", a, b, out])]
            line("diff vs DeepDiff (one run)", {"metaplan": times["metaplan"], "DeepDiff": deep},
                 faster_than={"DeepDiff": 3})
    trace = metaplan.normalize(metaplan.load(a)).trace
    inproc = interleaved({
        "separate": (lambda: (metaplan.load(a), metaplan.load(b)), lambda p: metaplan.diff(*p)),
        "metaplan": (lambda: trace, lambda t: metaplan.diff(t.input, t.final)),
        "last stage": (lambda: trace, lambda t: metaplan.diff(t.states[2], t.states[3])),
    }, repeat=args.repeat)
    print(f"in process: diff of separately loaded plans {median(inproc['separate']) * 1e3:.1f} "
          f"ms; of input vs final of one trace {median(inproc['metaplan']) * 1e3:.1f} ms; of "
          f"the last stage's two states {median(inproc['last stage']) * 1e3:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
