"""metaplan.testing: the laws it checks catch passes that break them."""

from __future__ import annotations

import subprocess
import sys

import pytest

_BROKEN_PASSES = '''
import metaplan
from metaplan.records.change import ChangeRecord
from metaplan.passes.chaining import PassResult
from metaplan.testing import check_pass_laws

plan = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})

class Copies:  # a no-op that hands back a copy, not the input
    name = "copies"
    def __call__(self, plan):
        return PassResult(metaplan.Plan(plan.fields.set("x", 1).discard("x")),
                          ChangeRecord("copies", plan.content_hash, plan.content_hash))

class Forgets:  # changes the plan, records nothing
    name = "forgets"
    def __call__(self, plan):
        return PassResult(plan.set("model_type", "x"),
                          ChangeRecord("forgets", plan.content_hash, plan.content_hash))

for broken, law in ((Copies(), "no-op must return the input"), (Forgets(), "record result")):
    try:
        check_pass_laws(broken, plan)
    except AssertionError as exc:
        assert law in str(exc), exc
    else:
        raise SystemExit(f"{broken.name}: no law broken")
print("caught")
'''


@pytest.mark.parametrize("optimize", [[], ["-O"]])
def test_check_pass_laws_catches_broken_passes_even_under_dash_o(optimize: list[str]) -> None:
    done = subprocess.run([sys.executable, *optimize, "-c", _BROKEN_PASSES],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.stdout == "caught\n", done.stderr
