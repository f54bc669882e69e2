"""End to end: ``metaplan normalize PLAN -o OUT`` vs the seed's job and the floor's, as processes.

The seed's job is ``seed_cli.py`` (json.load, the seed in place, json.dump
with indent=2: what upstream runs); the floor's is ``floor_cli.py normalize``
(json.loads, the indexed pure floor, orjson). Each runs as a fresh process,
start to exit, interleaved; all three outputs are checked against the seed's
expected bytes, for the gzipped fixtures and the same plans uncompressed, with bytecode
compiled first. Target (issue 22): >= 4x faster than the seed's job.

    python benchmarks/bench_e2e.py [--repeat N]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from pathlib import Path

from _common import DATA, announce, compile_bytecode, fixture, line, uncompressed, walls

HERE = Path(__file__).resolve().parent
FIXTURES = ("deepseek_v3.hf4", "qwen3_moe.hf4")


def main() -> None:
    announce()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        for name, gz in [(name, gz) for name in FIXTURES for gz in (False, True)]:
            expected = gzip.decompress((DATA / f"{name}.expected.json.gz").read_bytes())
            outs = {who: Path(tmp, f"{who}.json") for who in ("seed", "floor", "metaplan")}
            source = str(fixture(name) if gz else uncompressed(name, Path(tmp)))
            times = walls({
                "seed": [sys.executable, str(HERE / "seed_cli.py"), source, str(outs["seed"])],
                "floor": [sys.executable, str(HERE / "floor_cli.py"), "normalize", source,
                          str(outs["floor"])],
                "metaplan": [sys.executable, "-m", "metaplan", "normalize", "-q", source, "-o",
                             str(outs["metaplan"])],
            }, repeat=args.repeat)
            assert all(path.read_bytes() == expected for path in outs.values())
            line(f"CLI normalize {name}{'.json.gz' if gz else '.json'}", times,
                 faster_than={"seed": 4}, near={"floor": 1.5})
    times = walls({"python": [sys.executable, "-c", "pass"],
                   "metaplan": [sys.executable, "-m", "metaplan", "--help"]},
                  repeat=args.repeat)
    line("metaplan --help (start-up)", times, near={"python": 4})


if __name__ == "__main__":
    main()
