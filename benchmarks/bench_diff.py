"""Diff: ``metaplan diff A B --format json`` vs dictdiffer, jsonpatch and DeepDiff, end to end.

A is the DeepSeek-V3 input, B its normalized result (two files, no shared
structure). Each tool runs as a fresh process that loads both files, diffs
and writes its output. Floor: faster than dictdiffer; goal 3x. Then, in
process, the diff of two states of one trace (shared structure) against the
diff of the same two plans loaded separately.

Needs the ``bench`` extra: ``pip install -e '.[bench]'``.

    python benchmarks/bench_diff.py [--repeat N] [--no-deepdiff]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from _common import DATA, fixture, report, timed, wall

import metaplan

HERE = Path(__file__).resolve().parent
NAME = "deepseek_v3.hf4"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-deepdiff", action="store_true", help="skip DeepDiff (slow)")
    args = parser.parse_args()
    a, b = fixture(NAME), DATA / f"{NAME}.expected.json.gz"
    tools = ["dictdiffer", "jsonpatch"] + ([] if args.no_deepdiff else ["deepdiff"])
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp, "out.json"))
        ours_cmd = [sys.executable, "-m", "metaplan", "diff", str(a), str(b), "--format", "json",
                    "-o", out]
        ours = [wall(ours_cmd) for _ in range(args.repeat)]
        (record,) = metaplan.load_records(out)
        assert metaplan.apply(metaplan.load(a), record) == metaplan.load(b)
        for tool in tools:
            command = [sys.executable, str(HERE / "other_diff.py"), tool, str(a), str(b), out]
            repeat = 1 if tool == "deepdiff" else args.repeat
            floor = (1, 3) if tool == "dictdiffer" else (None, None)
            report("diff end to end", [wall(command) for _ in range(repeat)], ours,
                   floor=floor[0], goal=floor[1], base_name=tool)
    separate = timed(lambda: (metaplan.load(a), metaplan.load(b)),
                     lambda pair: metaplan.diff(*pair), repeat=args.repeat)
    trace = metaplan.normalize(metaplan.load(a)).trace
    shared = timed(lambda: trace, lambda t: metaplan.diff(t.input, t.final), repeat=args.repeat)
    step = timed(lambda: trace, lambda t: metaplan.diff(t.states[2], t.states[3]),
                 repeat=args.repeat)
    print(f"in process: diff of separately loaded plans {statistics.median(separate) * 1000:.1f} "
          f"ms; of input vs final of one trace {statistics.median(shared) * 1000:.1f} ms "
          f"({statistics.median(separate) / statistics.median(shared):.1f}x faster); of the "
          f"last stage's two states {statistics.median(step) * 1000:.1f} ms "
          f"({statistics.median(separate) / statistics.median(step):.0f}x faster)", flush=True)


if __name__ == "__main__":
    main()
