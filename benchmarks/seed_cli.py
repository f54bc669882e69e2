"""The seed's job as a plain script: json.load, the seed in place, json.dump.

The baseline for ``bench_e2e.py``: stdlib only (the oracle module is loaded
from its file, without importing metaplan), reading specs from
``tests/data/specs.json`` and rules from the plan's injections.

    python benchmarks/seed_cli.py PLAN OUT
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("oracle", ROOT / "src/metaplan/passes/oracle.py")
assert _spec is not None and _spec.loader is not None
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


class Specs:
    """``strategy_spec(target, model_type)`` over the fixture's specs file."""

    def __init__(self, path: Path) -> None:
        self.by_key = {}
        for item in json.loads(path.read_text())["specs"]:
            spec = SimpleNamespace(target_class=item.get("target_class"),
                                   strip_boundary_subpatterns=tuple(
                                       item.get("strip_boundary_subpatterns") or ()))
            self.by_key[(item["target"], item.get("model_type"))] = spec

    def lookup(self, target: str, model_type: str | None) -> object:
        return self.by_key.get((target, model_type)) or self.by_key.get((target, None))


def rules(meta: dict) -> list[SimpleNamespace]:
    out = []
    for injection in meta.get("injections") or ():
        fn = injection.get("local_compute_fn")
        if isinstance(fn, dict):
            fn = fn.get("_target_") or fn.get("target")
        out.append(SimpleNamespace(match=(injection["match"],), local_compute_target=fn))
    return out


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rt") as handle:
        meta = json.load(handle)
    oracle.reference_normalize(meta, rules(meta), meta.get("model_type"),
                               specs=Specs(ROOT / "tests/data/specs.json"))
    with open(target, "w") as handle:
        json.dump(meta, handle, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
