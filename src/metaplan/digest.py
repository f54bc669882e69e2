"""Content digests of plans: stable across runs, and incremental under edits.

A plan's hash is SHA-256 over the sorted ``field -> digest`` table. A plain
field's digest is SHA-256 of its canonical JSON. An FQN map is split into
512 buckets by the CRC-32 of each key's parent FQN (``a.b.c`` -> ``a.b.``);
its digest is SHA-256 over the buckets' digests, each the SHA-256 of that
bucket's canonical JSON. It depends on content only, siblings (256 experts
of one layer) share a bucket so each bucket is read in memory order by one
orjson call (per-key hashing costs several times more), and a plan made by
editing k keys of its parent's map re-hashes at most k buckets.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from pyrsistent import PMap

from metaplan.frozen import JSONMap, canonical_bytes, mirror

__all__ = ["DigestState", "Touched", "field_digests", "plan_digest"]

_BUCKETS = 512
_MASK = _BUCKETS - 1
_SORTED = orjson.OPT_SORT_KEYS
_sha256 = hashlib.sha256
_crc32 = zlib.crc32
_EMPTY = _sha256(b"{}").digest()
_ABSENT: Any = object()

MapDigest = tuple[tuple[dict[str, Any], ...], tuple[bytes, ...], dict[str, int]]
"""One FQN map: buckets of raw ``key -> value``, their digests, and key -> bucket.

The key -> bucket index is built once per map lineage and shared, never
written after, by every map derived from it (a key it lacks is computed).
"""

DigestState = dict[str, bytes | MapDigest]
"""Field -> digest: bytes for a plain field, a :data:`MapDigest` for an FQN map."""

Touched = Mapping[str, Iterable[str]]
"""Field -> the keys an edit touched in that field's map."""


def _bucket_digest(bucket: dict[str, Any]) -> bytes:
    if not bucket:
        return _EMPTY
    return _sha256(canonical_bytes(bucket)).digest()


def _bucket(key: str) -> int:
    return _crc32(key[:key.rfind(".") + 1].encode()) & _MASK


def _full_map(value: PMap[Any, Any]) -> MapDigest:
    buckets: list[dict[str, Any]] = [{} for _ in range(_BUCKETS)]
    where: dict[str, int] = {}
    for key, item in mirror(value).items():
        index = where[key] = _crc32(key[:key.rfind(".") + 1].encode()) & _MASK
        buckets[index][key] = item._data if type(item) is JSONMap else item
    return tuple(buckets), tuple(_bucket_digest(bucket) for bucket in buckets), where


def _patched_map(previous: MapDigest, value: PMap[Any, Any], keys: Iterable[str]) -> MapDigest:
    buckets, digests, where = list(previous[0]), list(previous[1]), previous[2]
    items = mirror(value)
    copied: set[int] = set()
    for key in keys:
        index = where.get(key)
        if index is None:
            index = _bucket(key)
        if index not in copied:
            buckets[index] = dict(buckets[index])
            copied.add(index)
        item = items.get(key, _ABSENT)
        if item is _ABSENT:
            buckets[index].pop(key, None)
        else:
            buckets[index][key] = item._data if type(item) is JSONMap else item
    for index in copied:
        digests[index] = _bucket_digest(buckets[index])
    return tuple(buckets), tuple(digests), where


def field_digests(fields: PMap[Any, Any],
                  derived: tuple[DigestState, Touched] | None = None) -> DigestState:
    """Digest every field.

    ``derived`` is the parent plan's state and the keys the edit touched per
    field: every field not in ``touched`` is the parent's very value, and a
    touched map differs from the parent's only at the touched keys.
    """
    parent, touched = derived if derived is not None else ({}, {})
    state: DigestState = {}
    for name, value in mirror(fields).items():
        previous = parent.get(name)
        if isinstance(value, PMap):
            if not isinstance(previous, tuple):
                state[name] = _full_map(value)
            elif name in touched:
                state[name] = _patched_map(previous, value, touched[name])
            else:
                state[name] = previous
        elif isinstance(previous, bytes) and name not in touched:
            state[name] = previous
        else:
            state[name] = _sha256(canonical_bytes(value)).digest()
    return state


def plan_digest(state: DigestState) -> str:
    """``sha256:`` over the sorted field -> hex digest table."""
    table = {name: (digest.hex() if isinstance(digest, bytes)
                    else _sha256(b"".join(digest[1])).hexdigest())
             for name, digest in state.items()}
    return "sha256:" + hashlib.sha256(orjson.dumps(table, option=orjson.OPT_SORT_KEYS)).hexdigest()
