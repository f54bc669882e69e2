"""The exceptions metaplan raises; each refines a built-in and carries structured fields.

Also the readers of an input's paths that raise them (:func:`parse_path`, :func:`as_path`,
over :func:`metaplan.paths.split_path`) and :func:`describe`, what a value is, for their
messages. ``format_path`` and ``key_path`` are :mod:`metaplan.paths`'s, named here for
the modules that import them from here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from metaplan.paths import format_path, key_path, split_path

__all__ = [
    "ConflictError",
    "ContractError",
    "InputError",
    "PassError",
    "PlanError",
    "SpecError",
    "VerificationError",
    "as_path",
    "describe",
    "format_path",
    "key_path",
    "parse_path",
]


def parse_path(text: str, option: str = "--path") -> tuple[str, ...]:
    """A path from the command line: ``field/FQN/key`` (``/`` between steps), or a JSON
    Pointer (``/`` first; ``~1`` is ``/`` and ``~0`` is ``~`` inside a step, and a step
    may be empty).

    >>> parse_path("param_plan/model.layers.3.mlp/is_boundary")
    ('param_plan', 'model.layers.3.mlp', 'is_boundary')
    >>> parse_path("/injections/0/a~1b")
    ('injections', '0', 'a/b')
    """
    try:
        return split_path(text)
    except ValueError as error:
        what = f"{option} {text}: {error}" if text else f"{option}: {error}"
        raise InputError(f"{what}; write field/FQN/key, e.g. "
                         "param_plan/model.layers.3.mlp/is_boundary (or a JSON Pointer, "
                         "/param_plan/model.layers.3.mlp/is_boundary, for empty keys)",
                         source=option) from None


def as_path(path: str | Sequence[Any], option: str = "path") -> tuple[Any, ...]:
    """A path as a tuple of keys: a string is read by :func:`parse_path` (the command's
    ``field/FQN/key``, or a JSON Pointer), any other sequence is taken step by step.

    Its steps from a string are all strings: a digit string names an array item
    (see :func:`~metaplan.frozen.step`).

    >>> as_path("param_plan/m.x/is_boundary") == as_path(("param_plan", "m.x", "is_boundary"))
    True
    """
    return parse_path(path, option) if isinstance(path, str) else tuple(path)


def describe(value: Any) -> str:
    """What a JSON value is, for an error's "found ...": its kind, and a scalar's text.

    >>> describe(1), describe("false"), describe(None), describe([1]), describe(True)
    ('a number (1)', 'a string ("false")', 'null', 'an array', 'a boolean (true)')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, float):
        return f"a number ({float.__repr__(value)})"
    if isinstance(value, int):
        return f"a number ({_cut(str(value)) if abs(value) < 10**40 else 'of 40+ digits'})"
    if isinstance(value, str):
        return f"a string ({_cut(json.dumps(value))})"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "an array"
    return type(value).__name__


def _cut(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


class InputError(ValueError):
    """A file or value given to metaplan is not what it must be."""

    def __init__(self, message: str, *, source: str | None = None) -> None:
        super().__init__(message)
        self.source = source


class PlanError(InputError):
    """A plan (``codegen_meta.json``) has the wrong shape at ``path``."""

    def __init__(self, message: str, *, path: Sequence[Any] = (), source: str | None = None):
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{format_path(path)}: {message}", source=source)
        self.path = tuple(path)


class SpecError(InputError):
    """A strategy spec or inline rule is malformed."""


class ConflictError(ValueError):
    """A change record does not fit the plan it is applied to.

    ``path`` is the first conflicting path, ``expected`` what the record says
    was there, ``found`` what the plan holds.
    """

    def __init__(self, message: str, *, path: Sequence[Any] = (), expected: Any = None,
                 found: Any = None, record: str | None = None) -> None:
        super().__init__(message)
        self.path = tuple(path)
        self.expected = expected
        self.found = found
        self.record = record


class PassError(RuntimeError):
    """A pass failed; names the pass and the passes that ran before it."""

    def __init__(self, pass_name: str, before: Sequence[str], cause: BaseException) -> None:
        ran = ", ".join(before) if before else "nothing"
        super().__init__(f"pass {pass_name} failed (after: {ran}): {cause}")
        self.pass_name = pass_name
        self.before = tuple(before)


class VerificationError(PassError):
    """A verifier found violations in the plan a pass returned (or in the input).

    ``pass_name`` is the pass whose result failed (``"<input>"`` for the input
    plan); ``violations`` what the verifiers found.
    """

    def __init__(self, pass_name: str, before: Sequence[str], violations: Sequence[Any]) -> None:
        shown = "; ".join(str(v) for v in violations[:5])
        more = f"; and {len(violations) - 5} more" if len(violations) > 5 else ""
        where = "the input plan" if pass_name == "<input>" else f"the plan after pass {pass_name}"
        RuntimeError.__init__(self, f"{where} fails verification ({len(violations)} "
                                    f"violation(s)): {shown}{more}")
        self.pass_name = pass_name
        self.before = tuple(before)
        self.violations = tuple(violations)


class ContractError(PassError):
    """A pass broke its contract: its input failed a check it ``requires``, or its result
    failed one it ``ensures`` (or ``preserves``, when its input passed it).

    ``clause`` is which; ``checks`` the checks that failed; ``violations`` what they found.
    """

    def __init__(self, pass_name: str, before: Sequence[str], clause: str,
                 violations: Sequence[Any]) -> None:
        checks = tuple(dict.fromkeys(str(getattr(v, "check", "?")) for v in violations))
        shown = "; ".join(str(v) for v in violations[:3])
        more = f"; and {len(violations) - 3} more" if len(violations) > 3 else ""
        side = "its input fails" if clause == "requires" else "its result fails"
        ran = ", ".join(before) if before else "nothing"
        RuntimeError.__init__(
            self, f"pass {pass_name} breaks its contract (after: {ran}): it {clause} "
                  f"{', '.join(checks)}, but {side} it ({len(violations)} violation(s)): "
                  f"{shown}{more}")
        self.pass_name = pass_name
        self.before = tuple(before)
        self.clause = clause
        self.checks = checks
        self.violations = tuple(violations)
