"""0.3's module paths still import, as deprecated aliases that warn once and forward.

Each check runs in a fresh interpreter: an old import binds names on the
package, which must not leak into the other tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from metaplan._moved import MOVED


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_old_path_warns_once_and_forwards() -> None:
    out = _run("""
        import importlib, sys, warnings
        from metaplan._moved import MOVED
        for old, new in sorted(MOVED.items()):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exec(f"import {old}")  # an import statement in user code
                alias = sys.modules[old]
                again = importlib.import_module(old)
            target = importlib.import_module(new)
            assert alias is again, old
            [warning] = caught
            assert warning.category is DeprecationWarning, (old, warning)
            assert f"{old} moved to {new}" in str(warning.message), warning.message
            assert warning.filename == "<string>", (old, warning.filename)
            assert target.__all__, new
            for name in target.__all__:
                assert getattr(alias, name) is getattr(target, name), (old, name)
            assert set(target.__all__) <= set(dir(alias)), old
        print(len(MOVED))
    """)
    assert out.split() == [str(len(MOVED))]


def test_an_old_import_of_a_function_named_module_keeps_the_function() -> None:
    """0.3 swapped the package's class for this; the alias is callable instead."""
    out = _run("""
        import warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        import metaplan.diff, metaplan.verify
        import metaplan
        a = metaplan.Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
        b = metaplan.set_in(a, ("param_plan", "m", "is_boundary"), False)
        print(len(metaplan.diff(a, b)), callable(metaplan.diff.array_changes))
        print(metaplan.verify(a) == metaplan.core.invariants.verify(a))
    """)
    assert out.split() == ["1", "True", "True"]


def test_the_old_records_names_warn_and_forward() -> None:
    out = _run("""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from metaplan.records import dumps_records
        from metaplan.records import codec
        print(dumps_records is codec.dumps_records, caught[0].category.__name__)
        print(str(caught[0].message).split(";")[0])
    """)
    assert out.splitlines() == [
        "True DeprecationWarning",
        "metaplan.records.dumps_records moved to metaplan.records.codec.dumps_records"]


def test_an_old_path_fails_under_error_warnings() -> None:
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c",
                           "import metaplan.merge"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "metaplan.merge moved to metaplan.versions.merging" in done.stderr


@pytest.mark.parametrize("name", ["metaplan.nope", "metaplan.records.nope"])
def test_an_unknown_path_is_still_unknown(name: str) -> None:
    with pytest.raises(ModuleNotFoundError, match="nope"):
        __import__(name)


def test_no_old_path_is_a_file() -> None:
    """An alias stands only where no module does (else the finder is never asked)."""
    import importlib.util

    for old, new in MOVED.items():
        spec = importlib.util.find_spec(new)
        assert spec is not None and spec.origin is not None, new
        assert old not in sys.modules or type(sys.modules[old]).__name__ == "_Alias"


REMOVED = {"metaplan.makers": {"Settings"}, "metaplan.merge": {"value_at"}}
"""0.3's names the CHANGELOG says are gone: makers' copy of the registry's ``Settings``, and
merge's ``value_at`` (it was ``Plan.at``)."""


def test_every_public_name_of_0_3s_modules_still_imports_from_its_old_path() -> None:
    """Each top-level public name 0.3's flat modules defined (tests/data/v03_public_names.json,
    read from the tree before the move) is still there under the old path, but the removed."""
    names = json.loads((Path(__file__).parent / "data" / "v03_public_names.json").read_text())
    assert set(names) == set(MOVED)
    out = _run(f"""
        import importlib, warnings
        warnings.simplefilter("ignore")
        names = {names!r}
        removed = {REMOVED!r}
        missing = {{old: [n for n in found if not hasattr(importlib.import_module(old), n)]
                   for old, found in names.items()}}
        print({{old: left for old, m in missing.items()
               if (left := sorted(set(m) - removed.get(old, set())))}})
        print({{old: sorted(set(m) & removed.get(old, set())) for old, m in missing.items() if m}})
    """)
    still_missing, gone = out.splitlines()
    assert still_missing == "{}"
    assert gone == repr({old: sorted(n) for old, n in sorted(REMOVED.items())})
