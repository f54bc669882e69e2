"""The command line's parser: its written-out names match the registries; it imports little."""

from __future__ import annotations

import subprocess
import sys

from metaplan.cli._main import COMMANDS, _command
from metaplan.cli._parser import CHECK_NAMES, PASS_NAMES, parser
from metaplan.passes.registry import PASSES
from metaplan.verify import CHECKS


def test_the_help_names_every_pass_and_check_of_the_registries() -> None:
    assert tuple(PASSES) == PASS_NAMES
    assert tuple(CHECKS) == CHECK_NAMES


def test_every_command_has_a_parser_and_a_function() -> None:
    action = parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    assert isinstance(action.choices, dict) and set(action.choices) == set(COMMANDS)
    assert all(callable(_command(name)) for name in COMMANDS)


def test_help_imports_no_pass_and_no_plan_machinery() -> None:
    code = ("import sys\nfrom metaplan.cli import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('metaplan', 'pyrsistent', "
            "'tempfile', 'difflib', 'dataclasses', 'pathlib'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    for heavy in ("metaplan.passes", "metaplan.plan", "metaplan.edit", "pyrsistent", "tempfile",
                  "difflib", "dataclasses", "pathlib"):
        assert f"'{heavy}" not in loaded, loaded


def test_main_in_process_leaves_the_collector_as_it_was(capsys: object) -> None:
    import gc

    from conftest import fixture_path
    from metaplan.cli import main

    assert gc.isenabled()
    assert main(["hash", str(fixture_path("llama3_8b.hf4"))]) == 0
    assert gc.isenabled()
    gc.disable()
    try:
        assert main(["hash", str(fixture_path("llama3_8b.hf4"))]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
