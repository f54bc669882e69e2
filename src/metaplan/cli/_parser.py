"""The ``metaplan`` command line's options: argparse only, so ``--help`` costs little.

The pass and check names for the help are written out here (a test holds
them equal to the registries), so building the parser imports no pass.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from typing import NoReturn

from metaplan.cli._io import one_line
from metaplan.errors import InputError
from metaplan.files.inputs import (
    DEFAULT_MAX_INPUT_SIZE,
    ENV_MAX_INPUT_SIZE,
    describe_size,
    parse_size,
)
from metaplan.settings import PROVENANCE, VOLATILE
from metaplan.version import __version__

__all__ = ["CHECK_NAMES", "PASS_NAMES", "parser"]

PASS_NAMES = ("strip-ep-sub-boundaries", "strip-external-state-boundaries",
              "mark-shared-class-boundaries", "slim")
"""The registry's passes (``metaplan.passes.registry.PASSES``), in its order."""

CHECK_NAMES = ("entry-object", "boundary-class", "class-key", "single-contract",
               "injection-agreement", "spec-coverage", "non-empty", "frozen-sharded-params",
               "placement", "schema", "boundary-reading", "external-state", "shared-class")
"""``metaplan.core.invariants.CHECKS``, in its order."""

PASS_LIST = ", ".join(PASS_NAMES)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr naming the subcommand, with the
    nearest option or command when a word is mistyped."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, one_line(f"{self.prog}: error: {_hinted(message)} (see {self.prog} "
                              "--help)") + "\n")

    def parse_known_args(  # type: ignore[override]
            self, args: Sequence[str] | None = None,
            namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        """As argparse, but a word left over is the subcommand's error, not ``metaplan``'s."""
        found, extra = super().parse_known_args(args, namespace)
        command = getattr(found, "command", None)
        if extra and command is not None and self._subparsers is not None:
            sub = next(action.choices[command] for action in self._subparsers._group_actions
                       if isinstance(action, argparse._SubParsersAction))
            sub.error(_unrecognized(sub, extra))
        return found, extra


def _unrecognized(sub: argparse.ArgumentParser, extra: Sequence[str]) -> str:
    """``unrecognized arguments: --ouput x (did you mean --output?)``."""
    import difflib  # only on an error: --help stays light

    known = [option for action in sub._actions for option in action.option_strings
             if action.help is not argparse.SUPPRESS]
    words = [word.split("=", 1)[0] for word in extra if word.startswith("-") and word != "-"]
    close = {word: found[0] for word in words
             if (found := difflib.get_close_matches(word, known, n=1, cutoff=0.6))}
    hints = ([f"did you mean {close[words[0]]}?"] if len(words) == 1 and close
             else [f"{word}: did you mean {option}?" for word, option in close.items()])
    return (f"unrecognized arguments: {' '.join(extra)}"
            + (f" ({'; '.join(hints)})" if hints else ""))


_CHOICE = re.compile(r"invalid choice: '(.*?)' \(choose from (.*)\)$", re.S)


def _hinted(message: str) -> str:
    """An invalid choice's message, with the nearest choice when one is close."""
    found = _CHOICE.search(message)
    if found is None:
        return message
    from metaplan.names import closest  # only on an error: --help stays light

    choices = [word.strip().strip("'") for word in found.group(2).split(",")]
    close = closest(found.group(1), choices)
    return message if close is None else f"{message}; did you mean {close}?"


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--max-input-size: ")) from exc


def _pipeline_options(sub: argparse.ArgumentParser, *, plan: bool = True,
                      prefix: str = "") -> None:
    """PLAN and the options that choose and configure the passes."""
    if plan:
        sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
    dash = f"--{prefix}"
    sub.add_argument(f"{dash}specs", metavar="F",
                     help="strategy specs JSON (default: the built-in registry)")
    sub.add_argument(f"{dash}rules", metavar="F",
                     help="inline rules JSON (default: from the plan's injections)")
    sub.add_argument(f"{dash}model-type", metavar="T",
                     help="model type for spec lookup (default: the plan's model_type, else "
                          "model_class, else source.architecture)")
    sub.add_argument(f"{dash}passes", metavar="SPEC",
                     help=f"comma-separated passes to run (default: normalize, the three "
                          f"stages): {PASS_LIST}")


def _run_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--print-pipeline", action="store_true",
                     help="print the pipeline spec that would run, and stop")
    sub.add_argument("--verify-each", action="store_true",
                     help="verify the input and every pass's result; stop at the first "
                          "violation, naming the pass (exit 1)")
    sub.add_argument("--check-contracts", action="store_true",
                     help="check each pass's contract (the checks it requires of its input, "
                          "ensures and preserves of its result); stop at the first broken "
                          "one, naming the pass and the check (exit 1)")
    sub.add_argument("--stats", action="store_true",
                     help="print each pass's changes and wall time on stderr")


_GIT_DIFF_ARGUMENTS = (
    ("old_file", "the old version (a temporary file, or /dev/null when added)"),
    ("old_hex", "its blob id"), ("old_mode", "its mode"),
    ("new_file", "the new version (/dev/null when deleted)"),
    ("new_hex", "its blob id"), ("new_mode", "its mode"),
    ("new_path", "a rename or copy: the new path"),
    ("header", "a rename or copy: git's header lines (similarity index, rename from, ...)"))


def _out_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")


def _format_option(sub: argparse.ArgumentParser, *, groups: bool = False,
                   html: bool = False) -> None:
    choices = ("text", "json", "jsonpatch", "patch") + (("groups",) if groups else ()) \
        + (("html",) if html else ())
    sub.add_argument("--format", choices=choices, default="text",
                     help="text (modules changed alike folded into one brace pattern; "
                          "default), json (a records file replay takes), jsonpatch (RFC 6902, "
                          "with test ops; patch is another name for it)"
                          + (", groups (the folded form as JSON)" if groups else "")
                          + (", html (one self-contained page: docs/html.md)" if html else ""))


def _side_options(sub: argparse.ArgumentParser) -> None:
    side = sub.add_mutually_exclusive_group()
    side.add_argument("--ours", dest="side", action="store_const", const="ours",
                      help="settle every conflict to ours (the clean changes of both sides "
                           "are kept)")
    side.add_argument("--theirs", dest="side", action="store_const", const="theirs",
                      help="settle every conflict to theirs (the clean changes of both "
                           "sides are kept)")


def _width(text: str) -> int:
    try:
        width = int(text)
    except ValueError:
        width = -1
    if width != 0 and width < 10:
        raise argparse.ArgumentTypeError(f"expected a whole number of characters, 10 or more "
                                         f"(0: never cut), got {text!r}")
    return width


def _width_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--width", metavar="N", type=_width,
                     help="text: cut each value shown at N characters (default 80, 60 for a "
                          "conflict's sides; 0: never cut)")


def _json_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--format", choices=("text", "json"), default="text",
                     help="text (default) or json, for tools")


def _color_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--color", "--colour", choices=("auto", "always", "never"),
                     default="auto", help="colour the text: auto (default: on a terminal, "
                                          "unless NO_COLOR is set), always or never")


def _batch_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``metaplan batch COMMAND [options] PLAN...``."""
    sub = commands.add_parser(
        "batch", help="run verify, hash, normalize, diff or slim on many plans at once, on "
                      "--jobs processes; JSON Lines in input order (exit: the worst)",
        description="Stdout: one JSON object per input (diff: per pair) in input order, with "
                    "path, hash, exit (what the single command exits) and result (its JSON) "
                    "or error. Files of equal content are computed once. A summary goes to "
                    "stderr.")
    sub.add_argument("batch_command", metavar="COMMAND",
                     choices=("verify", "hash", "normalize", "diff", "slim"),
                     help="verify, hash, normalize, diff (consecutive pairs, or each with "
                          "--against) or slim")
    sub.add_argument("plans", metavar="PLAN", nargs="+",
                     help="plans (.json or .json.gz), globs (expanded here too, so they may be "
                          "quoted), or @FILE: a list of plans, one per line (@-: stdin)")
    sub.add_argument("-j", "--jobs", metavar="N", type=int, default=os.cpu_count() or 1,
                     help="worker processes (default: the number of cores, here "
                          f"{os.cpu_count() or 1}); 1 runs in this process")
    sub.add_argument("--out-dir", metavar="DIR",
                     help="normalize, slim: write each result to DIR under its input's name; "
                          "all are written at the end, or none (a bad input, Ctrl-C)")
    sub.add_argument("--against", metavar="BASE",
                     help="diff: compare each PLAN with BASE instead of consecutive pairs")
    sub.add_argument("--checks", metavar="C", help="verify: comma-separated checks "
                                                   "(default: as verify)")
    sub.add_argument("--passes", metavar="SPEC",
                     help="normalize: the passes to run; diff: run them on both sides first")
    sub.add_argument("--specs", metavar="F", help="verify, normalize: strategy specs JSON")
    sub.add_argument("--rules", metavar="F", help="verify, normalize: inline rules JSON")
    sub.add_argument("--model-type", metavar="T",
                     help="verify, normalize: model type for spec lookup")


def parser() -> argparse.ArgumentParser:
    """The ``metaplan`` command line's parser."""
    parser = _Parser(
        prog="metaplan",
        description="Normalize frozen parallelization plans (codegen_meta.json) with pure, "
                    "recorded passes. Exit 0: done (no difference, no violation); 1: a "
                    "difference or violation found; 2: bad input.")
    parser.add_argument("--version", action="version", version=f"metaplan {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=_Parser)

    sub = commands.add_parser("normalize", help="normalize a plan as the seed does")
    _pipeline_options(sub)
    _run_options(sub)
    _out_option(sub)
    sub.add_argument("--record", metavar="REC", help="also write the change records here")
    sub.add_argument("--report", metavar="HTML",
                     help="also write the run as one HTML page here: passes, their changes "
                          "and why, module histories (docs/html.md)")
    sub.add_argument("--report-times", action="store_true",
                     help="put each pass's time (ms) in the --report page; without it two "
                          "runs write the same bytes")
    sub.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")

    sub = commands.add_parser("trace", help="write every state and record of a run to a folder")
    _pipeline_options(sub)
    _run_options(sub)
    sub.add_argument("-o", "--output", "--out", dest="out", metavar="DIR", required=True,
                     help="folder for 000-input.json, 001-<pass>.json, 001-<pass>.record.json"
                          ", ... and trace.json")

    sub = commands.add_parser("replay", help="apply change records to a plan, checked")
    sub.add_argument("plan", metavar="PLAN", help="the plan the records were made on")
    sub.add_argument("record", metavar="REC", help="records file (normalize --record, diff)")
    sub.add_argument("--rebase", action="store_true",
                     help="apply every change whose old value holds on PLAN, skip those already "
                          "applied, report the rest as conflicts (exit 1, nothing written)")
    sub.add_argument("--format", choices=("text", "json"), default="text",
                     help="how --rebase reports conflicts: text (default) or json, for tools "
                          "(the plan written is JSON either way)")
    _out_option(sub)

    sub = commands.add_parser("invert", help="write the records that undo REC")
    sub.add_argument("record", metavar="REC", help="records file to invert")
    _out_option(sub)

    sub = commands.add_parser("explain", help="every change to some modules, with its pass and "
                                              "why")
    _pipeline_options(sub, plan=False)
    _run_options(sub)
    sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
    sub.add_argument("fqns", metavar="FQN", nargs="+",
                     help="module FQNs, globs or brace patterns, e.g. model.layers.3.mlp, "
                          "'model.layers.*.mlp', 'model.layers.{3..5}.mlp.experts'; each one "
                          "that matches no module is named on stderr (exit 2)")
    _json_option(sub)
    _width_option(sub)

    sub = commands.add_parser("diff", help="the changes that turn plan A into plan B "
                                           "(exit 1 when they differ)")
    sub.add_argument("a", metavar="A", help="the plan to start from")
    sub.add_argument("b", metavar="B", help="the plan to arrive at")
    sub.add_argument("--passes", metavar="SPEC",
                     help="run these passes on both plans first, then diff: compare them modulo "
                          "a projection (e.g. slim) or a normalization")
    _format_option(sub, groups=True, html=True)
    _out_option(sub)
    sub.add_argument("--expand", action="store_true",
                     help="text: list every module on its own, not folded")
    _width_option(sub)
    sub.add_argument("--ignore", metavar="PATH", action="append",
                     help="leave out changes at PATH (field/FQN-glob/key, or a JSON Pointer; a "
                          "glob per step); repeatable")
    sub.add_argument("--ignore-volatile", action="store_true",
                     help="leave out the fields every regeneration changes: "
                          + ", ".join(VOLATILE))
    sub.add_argument("--show-provenance", action="store_true",
                     help="list changes to the plans' provenance (" + ", ".join(PROVENANCE)
                          + ") among the changes; text, groups and html show them in the "
                          "header otherwise (json and jsonpatch always hold every change)")
    sub.add_argument("--label", metavar="NAME", action="append",
                     help="name A (then B) in the header instead of its path")
    _color_option(sub)
    sub.add_argument("--exit-code", action="store_true", help=argparse.SUPPRESS)

    sub = commands.add_parser("show", help="a plan as one line per value (a textconv for git), "
                                           "or a records file as folded text")
    sub.add_argument("file", metavar="FILE", help="a plan, or a records file")
    sub.add_argument("--textconv", action="store_true",
                     help="for git's textconv: show a file that is neither a plan nor records "
                          "as it is (exit 0), so git diffs its lines")
    sub.add_argument("--expand", action="store_true",
                     help="records: list every module on its own, not folded")
    _width_option(sub)
    _color_option(sub)
    _out_option(sub)

    sub = commands.add_parser("merge", help="three-way merge of plans (exit 1 on conflicts, "
                                            "nothing written; --ours/--theirs settle them)")
    sub.add_argument("base", metavar="BASE", help="the plan both sides started from")
    sub.add_argument("ours", metavar="OURS", help="our version")
    sub.add_argument("theirs", metavar="THEIRS", help="their version")
    _out_option(sub)
    sub.add_argument("--record", metavar="REC",
                     help="also write the records that turn OURS into the result")
    _side_options(sub)
    _width_option(sub)
    sub.add_argument("--format", choices=("text", "json", "html"), default="text",
                     help="text (default), json (for tools), or html: write the merge as one "
                          "HTML page (conflicts with base, ours and theirs; the clean changes) "
                          "to -o or stdout instead of the merged plan")

    sub = commands.add_parser("git-diff", help="git's external diff driver (7 arguments, 9 "
                                               "for a rename or copy, 1 for an unmerged "
                                               "path): the folded diff; exit 0")
    sub.add_argument("path", metavar="PATH", help="the path in the tree (the old one of a "
                                                  "rename)")
    for name, said in _GIT_DIFF_ARGUMENTS:
        sub.add_argument(name, metavar=name.upper().replace("_", "-"), nargs="?", help=said)
    _color_option(sub)

    sub = commands.add_parser("git-merge", help="git's merge driver: %%O %%A %%B [%%P]; merges "
                                                "into %%A (on conflicts: every clean change, "
                                                "ours at each conflict, exit 1)")
    sub.add_argument("ancestor", metavar="O", help="the merge base (%%O)")
    sub.add_argument("current", metavar="A", help="ours (%%A): the merge is written here")
    sub.add_argument("other", metavar="B", help="theirs (%%B)")
    sub.add_argument("pathname", metavar="P", nargs="?", help="the path in the tree (%%P)")

    sub = commands.add_parser(
        "mergetool", help="git's mergetool: BASE LOCAL REMOTE MERGED; merges again, settles "
                          "the conflicts (--ours, --theirs, or asked on a terminal), writes "
                          "MERGED (exit 1 while any is left)",
        description="Configure it with: git config mergetool.metaplan.cmd 'metaplan mergetool "
                    "\"$BASE\" \"$LOCAL\" \"$REMOTE\" \"$MERGED\"' and git config "
                    "mergetool.metaplan.trustExitCode true (or metaplan git-setup). Every "
                    "clean change of both sides is kept, and so are edits made to MERGED by "
                    "hand since the merge driver wrote it.")
    sub.add_argument("base", metavar="BASE", help="the merge base ($BASE; empty: none)")
    sub.add_argument("local", metavar="LOCAL", help="ours ($LOCAL)")
    sub.add_argument("remote", metavar="REMOTE", help="theirs ($REMOTE)")
    sub.add_argument("merged", metavar="MERGED", help="the file in the work tree ($MERGED): "
                                                      "the result is written here")
    _side_options(sub)
    sub.add_argument("--ask", action="store_true",
                     help="ask about each conflict (o: ours, t: theirs, b: the base, l: leave "
                          "it), reading the answers from standard input even when "
                          "it is not a terminal")

    sub = commands.add_parser(
        "git-setup", help="configure git for plans: the .gitattributes line and the diff, "
                          "merge and mergetool drivers (idempotent)")
    sub.add_argument("patterns", metavar="PATTERN", nargs="*",
                     help="the files that are plans (default: codegen_meta.json)")
    sub.add_argument("--global", dest="user", action="store_true",
                     help="configure the user's git (~/.gitconfig, and git's global "
                          "attributes file) rather than this repository's")

    sub = commands.add_parser(
        "compare", help="run two versions of a pipeline on one plan; report the first pass "
                        "whose output differs (exit 1)",
        description="Pipeline A is what --specs, --rules, --model-type and --passes describe; "
                    "pipeline B takes each --against-* option instead, and A's setting where "
                    "none is given.")
    _pipeline_options(sub)
    _pipeline_options(sub, plan=False, prefix="against-")
    _format_option(sub, groups=True)
    _width_option(sub)
    _color_option(sub)
    _out_option(sub)

    sub = commands.add_parser("bisect", help="the first state of a run that fails verification "
                                             "(or matches --path/--hash/--matches)")
    _pipeline_options(sub)
    _run_options(sub)
    what = sub.add_mutually_exclusive_group()
    what.add_argument("--checks", metavar="C",
                      help="find the first state failing these verify checks, comma-separated "
                           "(the default: find the first failing any check)")
    what.add_argument("--path", metavar="P",
                      help="a value's path, e.g. param_plan/model.layers.3.mlp/is_boundary "
                           "(or a JSON Pointer): find where it first changes, or first equals "
                           "--value")
    what.add_argument("--hash", metavar="H", help="find the state with this content hash "
                                                  "(or a prefix of it, sha256: optional)")
    what.add_argument("--matches", metavar="PLAN", help="find the state equal to this plan")
    sub.add_argument("--value", metavar="JSON", help="with --path: the value to find")
    _json_option(sub)

    sub = commands.add_parser("verify", help="check the invariants the code emitter relies on "
                                             "(exit 1 with a list when violated)")
    sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
    sub.add_argument("--checks", metavar="C",
                     help=f"comma-separated checks (default: all but spec-coverage, which "
                          f"--specs or --rules add): {', '.join(CHECK_NAMES)}")
    sub.add_argument("--specs", metavar="F",
                     help="strategy specs JSON for spec-coverage (default: the built-in registry)")
    sub.add_argument("--rules", metavar="F",
                     help="inline rules JSON for spec-coverage (default: the plan's injections)")
    sub.add_argument("--model-type", metavar="T",
                     help="model type for spec-coverage (default: the plan's model_type, else "
                          "model_class, else source.architecture)")
    sub.add_argument("--strict", action="store_true",
                     help="count every note as a violation (exit 1): a negative placement "
                          "dim, an entry upstream's runtime and emitter read differently")
    sub.add_argument("--format", choices=("text", "json", "html"), default="text",
                     help="text (default), json, or html (one self-contained page)")
    sub.add_argument("--expand", action="store_true",
                     help="text: list every violation and note on its own, not folded")

    sub = commands.add_parser("hash", help="print the content hash of plans")
    sub.add_argument("plans", metavar="PLAN", nargs="+", help="plans to hash")
    _json_option(sub)
    _batch_parser(commands)
    for name, sub in commands.choices.items():
        if name == "git-setup":  # reads no plan
            continue
        sub.add_argument("--max-input-size", metavar="SIZE", type=_size,
                         help=f"refuse an input (or what its gzip data expands to) larger than "
                              f"this, e.g. 4G (default: {ENV_MAX_INPUT_SIZE}, else "
                              f"{describe_size(DEFAULT_MAX_INPUT_SIZE).split(' (')[0]})")
    return parser
