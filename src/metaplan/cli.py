"""The ``metaplan`` command: normalize, replay, invert, diff, explain and hash plans.

Exit 0 on success, 2 on bad input or a refused replay (one paragraph on
stderr, no traceback); an ``-o`` file is written whole or not at all.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from typing import Any

from metaplan import __version__
from metaplan.changes import (
    Change,
    ChangeRecord,
    dumps_records,
    invert,
    load_records,
    to_json_patch,
)
from metaplan.diff import diff
from metaplan.errors import ConflictError, InputError, PassError
from metaplan.frozen import canonical_bytes
from metaplan.jsonio import dumps_pretty, write_many_atomic
from metaplan.normalize import normalize
from metaplan.passes import FROM_PLAN
from metaplan.pipeline import replay
from metaplan.plan import Plan, dumps, load
from metaplan.rules import BUILTIN_SPECS, load_rules, load_specs

__all__ = ["main"]


def _emit(outputs: dict[str, bytes], stdout: bytes | None) -> None:
    if outputs:
        write_many_atomic(outputs)
    if stdout is not None:
        sys.stdout.buffer.write(stdout)
        sys.stdout.buffer.flush()


def _output(args: argparse.Namespace, text: bytes,
            also: dict[str, bytes] | None = None) -> None:
    """Write ``text`` to ``-o`` (``-`` or none: stdout), with ``also`` in the same commit."""
    outputs = dict(also or {})
    to_file = args.output not in (None, "-")
    if to_file:
        if args.output in outputs:
            raise InputError(f"{args.output}: given both as -o and as --record: give each "
                             "output its own path", source=args.output)
        outputs[args.output] = text
    _emit(outputs, None if to_file else text)


def _normalized(args: argparse.Namespace,
                plan: Plan | None = None) -> tuple[Plan, tuple[ChangeRecord, ...]]:
    plan = load(args.plan) if plan is None else plan
    specs = load_specs(args.specs) if args.specs else None
    rules = load_rules(args.rules) if args.rules else None
    model_type: Any = args.model_type if args.model_type is not None else FROM_PLAN
    registry = specs if specs is not None else BUILTIN_SPECS
    if args.model_type is not None and all(key[1] != args.model_type for key in registry.specs):
        print(f"metaplan: note: no spec is specific to model type {args.model_type!r}; the "
              "generic specs apply", file=sys.stderr)
    result = normalize(plan, specs=specs, rules=rules, model_type=model_type)
    return result.plan, result.records


def _cmd_normalize(args: argparse.Namespace) -> int:
    plan, records = _normalized(args)
    _output(args, dumps(plan), {args.record: dumps_records(records)} if args.record else None)
    if args.output not in (None, "-") and not args.quiet:
        counts = ", ".join(f"{r.pass_name}: {len(r)}" for r in records)
        print(f"metaplan: wrote {args.output} ({plan.content_hash}); changes: {counts}",
              file=sys.stderr)
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    plan = load(args.plan)
    records = load_records(args.record)
    _output(args, dumps(replay(plan, records)))
    return 0


def _cmd_invert(args: argparse.Namespace) -> int:
    records = load_records(args.record)
    _output(args, dumps_records(invert(record) for record in reversed(records)))
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    plan = load(args.plan)
    if args.fqn not in plan.param_plan and args.fqn not in plan.boundary_classes:
        raise InputError(f"{args.fqn}: no such module in {args.plan} (neither in param_plan nor "
                         "in boundary_classes)", source=args.plan)
    _, records = _normalized(args, plan)
    found = False
    for record in records:
        for change in (record.touching(("param_plan", args.fqn))
                       + record.touching(("boundary_classes", args.fqn))):
            found = True
            print(f"{record.pass_name}: {_change_line(change)}\n    why: {change.why}")
    if not found:
        print(f"{args.fqn}: normalize changes nothing here")
    return 0


def _short(value: Any) -> str:
    """A value as compact JSON, cut at 80 characters."""
    text = canonical_bytes(value).decode("utf-8", "replace")
    return text if len(text) <= 80 else text[:77] + "..."


def _cmd_diff(args: argparse.Namespace) -> int:
    record = diff(load(args.a), load(args.b))
    if args.format == "json":
        text = dumps_records([record])
    elif args.format == "patch":
        text = dumps_pretty(to_json_patch(record))
    else:
        lines = [f"{record.base} -> {record.result}: {len(record)} changes"]
        lines += [_change_line(change) for change in record.changes]
        text = ("\n".join(lines) + "\n").encode()
    _output(args, text)
    return 1 if args.exit_code and not record.is_noop else 0


def _change_line(change: Change) -> str:
    path = "/".join(change.path)
    if change.op == "add":
        return f"+ {path}: {_short(change.new)}"
    if change.op == "remove":
        return f"- {path}: {_short(change.old)}"
    return f"~ {path}: {_short(change.old)} -> {_short(change.new)}"


def _cmd_hash(args: argparse.Namespace) -> int:
    for path in args.plans:
        print(f"{load(path).content_hash}  {path}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metaplan",
        description="Normalize frozen parallelization plans (codegen_meta.json) with pure, "
                    "recorded passes.")
    parser.add_argument("--version", action="version", version=f"metaplan {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def rules_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("plan", metavar="PLAN", help="codegen_meta.json (or .json.gz)")
        sub.add_argument("--specs", metavar="F",
                         help="strategy specs JSON (default: the built-in registry)")
        sub.add_argument("--rules", metavar="F",
                         help="inline rules JSON (default: from the plan's injections)")
        sub.add_argument("--model-type", metavar="T",
                         help="model type for spec lookup (default: the plan's model_type)")

    sub = commands.add_parser("normalize", help="normalize a plan as the seed does")
    rules_options(sub)
    sub.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    sub.add_argument("--record", metavar="REC", help="also write the change records here")
    sub.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    sub.set_defaults(run=_cmd_normalize)

    sub = commands.add_parser("replay", help="apply change records to a plan, checked")
    sub.add_argument("plan", metavar="PLAN", help="the plan the records were made on")
    sub.add_argument("record", metavar="REC", help="records file (normalize --record, diff)")
    sub.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    sub.set_defaults(run=_cmd_replay)

    sub = commands.add_parser("invert", help="write the records that undo REC")
    sub.add_argument("record", metavar="REC", help="records file to invert")
    sub.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    sub.set_defaults(run=_cmd_invert)

    sub = commands.add_parser("explain", help="say what normalize does to one module, and why")
    rules_options(sub)
    sub.add_argument("fqn", metavar="FQN", help="module FQN, e.g. model.layers.3.mlp")
    sub.set_defaults(run=_cmd_explain)

    sub = commands.add_parser("diff", help="the changes that turn plan A into plan B")
    sub.add_argument("a", metavar="A", help="the plan to start from")
    sub.add_argument("b", metavar="B", help="the plan to arrive at")
    sub.add_argument("--format", choices=("text", "json", "patch"), default="text",
                     help="text (default), json (a records file replay takes), or patch "
                          "(RFC 6902 JSON Patch)")
    sub.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    sub.add_argument("--exit-code", action="store_true",
                     help="exit 1 when the plans differ (as git diff --exit-code)")
    sub.set_defaults(run=_cmd_diff)

    sub = commands.add_parser("hash", help="print the content hash of plans")
    sub.add_argument("plans", metavar="PLAN", nargs="+", help="plans to hash")
    sub.set_defaults(run=_cmd_hash)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    gc.disable()  # one short job over one big acyclic tree: collections only cost time
    args = _parser().parse_args(argv)
    try:
        code: int = args.run(args)
        return code
    except (InputError, ConflictError, PassError) as exc:
        message = str(exc)
        if isinstance(exc, ConflictError):
            message = f"replay refused: {message}"
        print(f"metaplan {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
