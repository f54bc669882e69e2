"""A plan's parsed data as JSON bytes that keep its shared entries: what a child sends back.

:func:`~metaplan.files.streaming.parse_plan_text` gives a plan's data with
equal entries of its FQN maps as one object; written plainly, the 15,000
expert entries of DeepSeek-V3 would be written (and parsed again) 15,000
times. :func:`pack` writes each FQN map as its keys, a reference per key, and
each distinct object once; :func:`unpack` rebuilds the same data, the same
key order and the same sharing. Only what orjson writes exactly is packed: a
``JSONFloat`` (whose text is kept), an integer past 64 bits or text that is
not Unicode makes :func:`pack` raise ``TypeError``, and then the data travels
no other way (see :mod:`metaplan.files.side_by_side`).

>>> entry = {"is_boundary": True}
>>> raw = {"param_plan": {"a": entry, "b": entry, "c": None}, "model_type": "x"}
>>> again = unpack(pack(raw))
>>> again == raw, list(again["param_plan"]), again["param_plan"]["a"] is again["param_plan"]["b"]
(True, ['a', 'b', 'c'], True)
"""

from __future__ import annotations

from typing import Any

import orjson

from metaplan.files.streaming import STREAMED_FIELDS

__all__ = ["pack", "unpack"]


def pack(raw: dict[str, Any]) -> bytes:
    """``raw`` as JSON: ``{field: {"value": v}}``, and for an FQN map ``{field: {"keys",
    "refs", "objects"}}`` (a ref is an object's number, or ``[value]`` for any other)."""
    fields: dict[str, Any] = {}
    for key, value in raw.items():
        if key in STREAMED_FIELDS and type(value) is dict:
            numbers: dict[int, int] = {}
            objects: list[Any] = []
            refs: list[Any] = []
            for entry in value.values():
                if type(entry) is dict:
                    number = numbers.setdefault(id(entry), len(objects))
                    if number == len(objects):
                        objects.append(entry)
                    refs.append(number)
                else:
                    refs.append([entry])
            fields[key] = {"keys": list(value), "refs": refs, "objects": objects}
        else:
            fields[key] = {"value": value}
    return orjson.dumps(fields)


def unpack(data: bytes) -> dict[str, Any]:
    """The data :func:`pack` wrote, its objects shared as they were."""
    fields = orjson.loads(data)
    raw: dict[str, Any] = {}
    for key, packed in fields.items():
        if "value" in packed:
            raw[key] = packed["value"]
        else:
            objects = packed["objects"]
            raw[key] = dict(zip(packed["keys"],
                                [objects[ref] if type(ref) is int else ref[0]
                                 for ref in packed["refs"]], strict=True))
    return raw
