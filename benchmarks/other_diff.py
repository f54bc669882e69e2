"""Diff two plan files with another library, end to end, as ``bench_diff.py``'s baselines.

    python benchmarks/other_diff.py {dictdiffer,jsonpatch,deepdiff} A B OUT
"""

from __future__ import annotations

import gzip
import json
import sys
from typing import Any


def _load(path: str) -> Any:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        return json.load(handle)


def main() -> None:
    tool, a_path, b_path, out = sys.argv[1:5]
    a, b = _load(a_path), _load(b_path)
    if tool == "dictdiffer":
        import dictdiffer

        result: Any = list(dictdiffer.diff(a, b))
    elif tool == "jsonpatch":
        import jsonpatch

        result = jsonpatch.make_patch(a, b).patch
    else:
        from deepdiff import DeepDiff

        result = json.loads(DeepDiff(a, b).to_json())
    with open(out, "w") as handle:
        json.dump(result, handle, default=list)


if __name__ == "__main__":
    main()
