"""``metaplan verify`` and ``metaplan hash``: what the emitter will check; content hashes."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from metaplan.cli._common import checks_from, settings_of
from metaplan.cli._io import json_name, say, to_stdout
from metaplan.fold import fold_findings
from metaplan.jsonio import dumps_pretty
from metaplan.plan import load
from metaplan.report import finding_line
from metaplan.verify import CHECKS, Note, Verification, Violation, verification

__all__ = ["hash_plans", "verification_json", "verify"]


def verification_json(name: str, found: Verification) -> dict[str, Any]:
    """What ``verify --format json`` writes of the plan ``name``."""
    return {"plan": name, "checks": list(found.checks),
            "violations": [{"check": v.check, "path": list(v.path), "message": v.message}
                           for v in found.violations],
            "notes": [{"check": n.check, "path": list(n.path), "message": n.message}
                      for n in found.notes]}


def _lines(found: Sequence[Violation | Note], expand: bool, *, note: bool = False
           ) -> list[str]:
    """The text lines of violations (or notes): alike ones folded, or each with ``expand``."""
    if expand:
        return [f"  {item}" for item in found]
    return [f"  {finding_line(finding, note=note)}" for finding in fold_findings(found)]


def verify(args: argparse.Namespace) -> int:
    """Exit 1 with the violations, 0 when the plan passes every check asked for."""
    checks = checks_from(args)
    specs, rules, model_type = settings_of(args)
    found = verification(load(args.plan), checks, specs=specs, rules=rules,
                         model_type=model_type, strict=args.strict)
    violations, notes = found.violations, found.notes
    if args.format == "html":
        from metaplan.html.checks import verify_report

        to_stdout(verify_report(found, source=json_name(args.plan)).encode())
    elif args.format == "json":
        to_stdout(dumps_pretty(verification_json(json_name(args.plan), found)))
    elif violations:
        counts = {name: sum(v.check == name for v in violations) for name in CHECKS}
        summary = ", ".join(f"{name}: {n}" for name, n in counts.items() if n)
        say(f"{args.plan}: {len(violations)} violation(s) ({summary})",
            *_lines(violations, args.expand), *_lines(notes, args.expand, note=True))
    else:
        say(f"{args.plan}: ok ({', '.join(found.checks)})",
            *_lines(notes, args.expand, note=True))
    return 1 if violations else 0


def hash_plans(args: argparse.Namespace) -> int:
    """Each plan's content hash (``--format json``: one object)."""
    hashes = [(path, load(path).content_hash) for path in args.plans]
    if args.format == "json":
        to_stdout(dumps_pretty({"hashes": [{"plan": json_name(path), "hash": value}
                                           for path, value in hashes]}))
    else:
        say(*(f"{value}  {path}" for path, value in hashes))
    return 0
