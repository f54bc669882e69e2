"""End to end: ``metaplan normalize PLAN -o OUT`` vs the seed as a plain script.

Both run as fresh processes (start, load, normalize, write), alternated,
and both outputs are checked against the seed's expected bytes. Floor 1.0x,
goal 2x.

    python benchmarks/bench_e2e.py [--repeat N]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from pathlib import Path

from _common import DATA, fixture, report, wall

HERE = Path(__file__).resolve().parent
FIXTURES = ("deepseek_v3.hf4", "qwen3_moe.hf4")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in FIXTURES:
            expected = gzip.decompress((DATA / f"{name}.expected.json.gz").read_bytes())
            seed_out, ours_out = Path(tmp, "seed.json"), Path(tmp, "ours.json")
            seed = [sys.executable, str(HERE / "seed_cli.py"), str(fixture(name)), str(seed_out)]
            ours = [sys.executable, "-m", "metaplan", "normalize", "-q", str(fixture(name)),
                    "-o", str(ours_out)]
            seed_times, ours_times = [], []
            for _ in range(args.repeat):
                seed_times.append(wall(seed))
                ours_times.append(wall(ours))
            assert seed_out.read_bytes() == expected and ours_out.read_bytes() == expected
            report(f"CLI normalize {name}", seed_times, ours_times, floor=1, goal=2)


if __name__ == "__main__":
    main()
