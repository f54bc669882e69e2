"""Shared test helpers: the bundled fixtures and their expected results."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = ("deepseek_v3.hf4", "deepseek_v3.hf5", "qwen3_moe.hf4", "qwen3_moe.hf5",
            "llama3_8b.hf4")
SMALL_FIXTURES = ("deepseek_v3.hf5", "qwen3_moe.hf5", "llama3_8b.hf4")

settings.register_profile("default", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")

SOAK_EXAMPLES = int(os.environ.get("METAPLAN_SOAK", 10_000 if os.environ.get("CI") else 200))
"""Generated plans the soak tests run: 10k under CI (``.ci/run`` sets ``CI=1``), 200 locally;
``METAPLAN_SOAK=N`` overrides both."""


def fixture_path(name: str) -> Path:
    return DATA / f"{name}.json.gz"


def raw_input(name: str) -> bytes:
    return gzip.decompress(fixture_path(name).read_bytes())


def expected_bytes(name: str) -> bytes:
    return gzip.decompress((DATA / f"{name}.expected.json.gz").read_bytes())


@pytest.fixture(scope="session")
def specs_path() -> Path:
    return DATA / "specs.json"


# running the command -------------------------------------------------------------

OLD = b"precious: an earlier output that must survive\n"


def metaplan_cli(*args: object, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "metaplan", *map(str, args)],
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
