"""Paths into a plan, as text: the one home of their written forms.

A path is a tuple of steps from the plan's root: object keys (strings) and array item
numbers (integers). :func:`format_path` and :func:`key_path` write one for people,
:func:`pointer` as an RFC 6901 JSON Pointer, and :func:`split_path` reads the command
line's ``field/FQN/key`` (or a JSON Pointer) back. :func:`metaplan.frozen.walk` follows a
path through a value; :func:`metaplan.errors.parse_path` is :func:`split_path` with the
error an input gets (it names the option).

>>> path = ("param_plan", "model.layers.3.mlp", "is_boundary")
>>> format_path(path), pointer(path)
('param_plan["model.layers.3.mlp"].is_boundary', '/param_plan/model.layers.3.mlp/is_boundary')
>>> split_path(pointer(path)) == split_path("param_plan/model.layers.3.mlp/is_boundary") == path
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["FQN_MAPS", "format_path", "key_path", "pointer", "split_path"]

FQN_MAPS = ("param_plan", "boundary_classes")
"""The plan's fields keyed by module FQN: a path's second step there is a module's name."""


def format_path(path: Sequence[Any]) -> str:
    """A readable JSON path: ``param_plan["model.layers.3.mlp"].is_boundary``.

    Keys that are not identifiers (and module FQNs, always) are quoted as
    JSON strings, so two keys never print alike; array items are numbers.

    >>> format_path(("param_plan", "model.layers.3.mlp", "is_boundary"))
    'param_plan["model.layers.3.mlp"].is_boundary'
    >>> format_path(("boundary_classes", "lm_head")), format_path(("injections", 5, "ep_size"))
    ('boundary_classes["lm_head"]', 'injections[5].ep_size')
    >>> print(format_path(("x", "a'b")), format_path(("x", 'a"b')), format_path(()))
    x["a'b"] x["a\\"b"] <root>
    """
    if not path:
        return "<root>"
    return key_path(path, quoted=(1,) if path[0] in FQN_MAPS else ())


def key_path(path: Sequence[Any], *, quoted: Sequence[int] = ()) -> str:
    """``a.b["c.d"][3]``: keys as identifiers where they can be, else JSON strings.

    ``quoted`` are the positions always quoted (FQNs, which hold dots).

    >>> key_path(("a", "b", "c.d", 3)), key_path(("m.x", "p"), quoted=(0,))
    ('a.b["c.d"][3]', '["m.x"].p')
    """
    out = []
    for i, key in enumerate(path):
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif key.isidentifier() and i not in quoted:
            out.append(f".{key}" if out else key)
        else:
            out.append(f"[{json.dumps(key)}]")
    return "".join(out)


def pointer(path: Sequence[Any]) -> str:
    """The RFC 6901 JSON Pointer of ``path`` (``~`` and ``/`` escaped).

    >>> pointer(("param_plan", "a/b~c", 3)), pointer(("",)), pointer(())
    ('/param_plan/a~1b~0c/3', '/', '')
    """
    if not path:
        return ""  # the whole document ("/" is the key "" in it)
    parts = []
    for key in path:
        text = key if type(key) is str else str(key)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        parts.append(text)
    return "/" + "/".join(parts)


def split_path(text: str) -> tuple[str, ...]:
    """The steps of ``field/FQN/key`` (``/`` between steps), or of a JSON Pointer (``/``
    first; ``~1`` is ``/`` and ``~0`` is ``~`` inside a step, and a step may be empty).

    Every step is a string (a digit string names an array item, see
    :func:`metaplan.frozen.step`); a ``ValueError`` says what is empty.

    >>> split_path("param_plan/model.layers.3.mlp/is_boundary")
    ('param_plan', 'model.layers.3.mlp', 'is_boundary')
    >>> split_path("/injections/0/a~1b"), split_path("/")
    (('injections', '0', 'a/b'), ('',))
    >>> split_path("a//b")
    Traceback (most recent call last):
    ValueError: an empty step
    """
    if text.startswith("/"):
        return tuple(part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/"))
    parts = tuple(text.split("/"))
    if not all(parts):
        raise ValueError("an empty step" if text else "an empty path")
    return parts
