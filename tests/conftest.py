"""Shared test helpers: the bundled fixtures and their expected results."""

from __future__ import annotations

import copy
import gzip
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

import metaplan

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = ("deepseek_v3.hf4", "deepseek_v3.hf5", "qwen3_moe.hf4", "qwen3_moe.hf5",
            "llama3_8b.hf4")
SMALL_FIXTURES = ("deepseek_v3.hf5", "qwen3_moe.hf5", "llama3_8b.hf4")

settings.register_profile("default", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("mutation", max_examples=15, deadline=None, derandomize=True,
                          database=None, phases=(Phase.explicit, Phase.generate),
                          suppress_health_check=[HealthCheck.too_slow])
"""For ``tools/mutate.py``: few examples, the same ones every run (a mutant's fate is fixed),
and no shrinking (a failure is all it needs)."""
settings.load_profile(os.environ.get("METAPLAN_HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "default"))

SOAK_EXAMPLES = int(os.environ.get("METAPLAN_SOAK", 10_000 if os.environ.get("CI") else 200))
"""Generated plans the soak tests run: 10k under CI (``.ci/run`` sets ``CI=1``), 200 locally;
``METAPLAN_SOAK=N`` overrides both."""


def fixture_path(name: str) -> Path:
    return DATA / f"{name}.json.gz"


def raw_input(name: str) -> bytes:
    return gzip.decompress(fixture_path(name).read_bytes())


def expected_bytes(name: str) -> bytes:
    return gzip.decompress((DATA / f"{name}.expected.json.gz").read_bytes())


def raw_json(name: str) -> dict[str, Any]:
    """A fresh, mutable copy of a bundled plan as plain JSON data."""
    raw = json.loads(raw_input(name))
    assert isinstance(raw, dict)
    return raw


_DEVICES = ("/dev/null", "/dev/full")


@pytest.fixture(autouse=True)
def _devices_stay_devices() -> Any:
    """Fail the test after which ``/dev/null`` or ``/dev/full`` is no longer a device.

    Tests write to both through the real code; run as root (CI, a container),
    a bug that replaced its output by rename would put a regular file in their
    place and break every later command on the machine. Said at the test that
    did it, with how to put the device back.
    """
    yield
    for device in _DEVICES:
        if os.path.exists(device) and not stat.S_ISCHR(os.stat(device).st_mode):
            pytest.fail(f"{device} is no longer a device after this test (a write replaced "
                        f"it): as root, rm {device} && mknod -m 666 {device} c 1 "
                        f"{3 if device.endswith('null') else 7}")


@pytest.fixture(scope="session")
def specs_path() -> Path:
    return DATA / "specs.json"


@pytest.fixture(scope="session")
def loaded() -> dict[str, metaplan.Plan]:
    """Every bundled plan, loaded once (plans are immutable: sharing them is safe)."""
    return {name: metaplan.load(fixture_path(name)) for name in FIXTURES}


# running the command -------------------------------------------------------------

OLD = b"precious: an earlier output that must survive\n"


def metaplan_cli(*args: object, env: dict[str, str] | None = None, cwd: Path | None = None
                 ) -> subprocess.CompletedProcess[bytes]:
    """``python -m metaplan ARGS`` as a user runs it, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "metaplan", *map(str, args)], cwd=cwd,
                          capture_output=True, timeout=120, check=False, env=env)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".metaplan-"))


def assert_refused(done: subprocess.CompletedProcess[bytes], command: str, names: Path | None,
                   fragment: bytes) -> None:
    """Exit 2 and exactly one line on stderr: the command, the file (if any), and ``fragment``."""
    err = done.stderr
    assert done.returncode == 2, (done.returncode, err)
    assert b"Traceback" not in err, err
    assert err.startswith(f"metaplan {command}: error: ".encode()), err
    assert err.count(b"\n") == 1 and err.endswith(b"\n"), err
    assert names is None or os.fsencode(names) in err, err
    assert fragment in err, err


# records on a small hand-made plan -------------------------------------------------


def make_record(name: str, plan: metaplan.Plan, changes: list[metaplan.Change]
                ) -> tuple[metaplan.Plan, metaplan.ChangeRecord]:
    """The plan and record an :class:`~metaplan.Edit` makes of ``changes`` (each checked)."""
    edit = metaplan.Edit(plan)
    for change in changes:
        edit.apply(change)
    return edit.finish(name)


@pytest.fixture
def demo_plan() -> metaplan.Plan:
    """Two entries (one nested), their classes and an unknown field."""
    return metaplan.Plan.from_json({
        "param_plan": {"a": {"is_boundary": True, "params": {"w": {"tp": "R"}}},
                       "b": {"is_boundary": 1}},
        "boundary_classes": {"a": "MLP", "b": "MoE"},
        "other": {"kept": [1, 2]},
    })


def demo_record(plan: metaplan.Plan) -> metaplan.ChangeRecord:
    """A set, an add, a remove and a deep set on :func:`demo_plan`, in that order."""
    change = metaplan.Change
    _, record = make_record("demo", plan, [
        change("set", ("param_plan", "a", "is_boundary"), True, False, "why a"),
        change("add", ("param_plan", "b", "skip_source_lowering"), None, True, "why b"),
        change("remove", ("boundary_classes", "b"), "MoE", None, "why c"),
        change("set", ("param_plan", "a", "params", "w", "tp"), "R", "S(0)", "deep"),
    ])
    return record


def broken_small_plan() -> dict[str, Any]:
    """The small DeepSeek-V3 plan with one violation of each of the first four checks."""
    raw = raw_json("deepseek_v3.hf5")
    raw["param_plan"]["model.layers.1.mlp"]["in_src"] = {"hidden_states": {"tp": "S(0)"}}
    del raw["boundary_classes"]["model.norm"]
    raw["param_plan"]["model.norm"]["is_boundary"] = True
    raw["boundary_classes"]["model.ghost"] = "DeepseekV3MLP"
    raw["param_plan"]["model.junk"] = "not an entry"
    return raw


def seed_bytes(meta: dict[str, Any], rules: Any, specs: Any, *, per_spec: bool = False,
               model_type: Any = "plan") -> bytes:
    """What the seed (the oracle, in place on a copy) writes for ``meta``."""
    from metaplan.passes.oracle import reference_normalize

    meta = copy.deepcopy(meta)
    mt = meta.get("model_type") if model_type == "plan" else model_type
    reference_normalize(meta, rules, mt, specs=specs, per_spec_patterns=per_spec)
    return json.dumps(meta, indent=2, sort_keys=True).encode()


@pytest.fixture(params=["entry by entry", "whole"])
def stream_reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test twice: texts read member by member, and texts parsed whole, then shared."""
    from metaplan.files import streaming

    monkeypatch.setattr(streaming, "STREAM_FROM", 0 if request.param == "entry by entry"
                        else 2**62)
    return str(request.param)


def typed_numbers(value: Any) -> Any:
    """``value`` with every number's type beside it (``==`` takes ``1.0`` for ``1``)."""
    if isinstance(value, dict):
        return {key: typed_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [typed_numbers(item) for item in value]
    return (type(value).__name__, value)
