"""The indexed floor as a command: the fastest straightforward job, for end-to-end figures.

    python benchmarks/floor_cli.py normalize PLAN OUT     # json.loads, floor_normalize, orjson
    python benchmarks/floor_cli.py diff A B OUT           # json.loads both, floor_diff, orjson

Plain dicts, pure, building the same change records metaplan builds; the
output bytes are metaplan's (``json.dumps(indent=2, sort_keys=True)``, as
orjson writes them for this data). Uses metaplan only for its data types
and spec registry.
"""

from __future__ import annotations

import gzip
import json
import sys
from typing import Any

import orjson
from _floor import floor_diff, floor_normalize

from metaplan import BUILTIN_SPECS, rules_from_plan, to_json_patch
from metaplan.records.change import ChangeRecord


def _load(path: str) -> Any:
    with open(path, "rb") as handle:
        data = handle.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def main() -> None:
    command, *paths = sys.argv[1:]
    if command == "normalize":
        source, target = paths
        meta = _load(source)
        out, _ = floor_normalize(meta, rules_from_plan(meta), BUILTIN_SPECS,
                                 meta.get("model_type"))
        text = orjson.dumps(out, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    else:
        a_path, b_path, target = paths
        changes = floor_diff(_load(a_path), _load(b_path))
        text = orjson.dumps(to_json_patch(ChangeRecord("diff", "", "", changes)),
                            option=orjson.OPT_INDENT_2)
    with open(target, "wb") as handle:
        handle.write(text)


if __name__ == "__main__":
    main()
