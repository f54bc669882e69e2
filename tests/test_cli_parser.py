"""The command line's parser: its written-out names match the registries; it imports little."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from metaplan.cli._main import COMMANDS, _command
from metaplan.cli._parser import CHECK_NAMES, PASS_NAMES, parser
from metaplan.core.invariants import CHECKS
from metaplan.passes.registry import PASSES


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
    for heavy in ("metaplan.passes", "metaplan.core.plan", "metaplan.records.edit", "pyrsistent",
                  "tempfile", "difflib", "dataclasses", "pathlib"):
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


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    action = parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    assert isinstance(action, argparse._SubParsersAction)
    return dict(action.choices)


def test_every_option_and_argument_of_every_command_has_help() -> None:
    missing = [f"{name} {action.option_strings or action.dest}"
               for name, sub in _subparsers().items() for action in sub._actions
               if not action.help]
    assert not missing


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stopped:
        parser().parse_args(argv)
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    return err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_mistyped_option_names_the_subcommand_and_the_option_meant(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    sub = _subparsers()[command]
    option = next(word for action in sub._actions for word in action.option_strings
                  if word.startswith("--") and len(word) > 6 and word != "--help")
    typo = option[:3] + option[4] + option[3] + option[5:]  # two letters swapped
    needed = ["x" for action in sub._actions if action.required and not action.option_strings]
    needed = needed if command != "batch" else ["hash", "x"]  # COMMAND is a choice
    argv = [command, *needed, *(["-o", "x"] if command == "trace" else []), f"{typo}=1"]
    err = _error(argv, capsys)
    assert err.startswith(f"metaplan {command}: error: unrecognized arguments: {typo}=1 ")
    assert f"(did you mean {option}?)" in err, err
    assert err.endswith(f"(see metaplan {command} --help)\n")


def test_each_word_left_over_is_named_and_a_far_one_gets_no_guess(
        capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["diff", "a", "b", "--expnad", "--zz", "--colr", "never"], capsys)
    assert "unrecognized arguments: --expnad --zz --colr never (--expnad: did you mean " \
           "--expand?; --colr: did you mean --color?)" in err
    err = _error(["diff", "a", "b", "--qq"], capsys)
    assert err == "metaplan diff: error: unrecognized arguments: --qq (see metaplan diff --help)\n"


def test_a_mistyped_command_or_choice_gets_the_nearest_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert "invalid choice: 'normalise'" in (err := _error(["normalise", "x"], capsys))
    assert err.endswith("; did you mean normalize? (see metaplan --help)\n")
    err = _error(["diff", "a", "b", "--format", "jsonpach"], capsys)
    assert err.startswith("metaplan diff: error: argument --format: invalid choice")
    assert "; did you mean jsonpatch? (see metaplan diff --help)" in err
    assert "did you mean" not in _error(["diff", "a", "b", "--format", "qqqqqqq"], capsys)
