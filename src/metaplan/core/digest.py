"""Content digests of plans: stable everywhere, linear in the plan, incremental under edits.

A plan's hash is SHA-256 over the sorted ``field -> digest`` table. A plain
field's digest is SHA-256 of its canonical JSON (sorted keys, compact).

An FQN map (``param_plan``, ``boundary_classes``) of ``n`` keys is split into
``B`` buckets, ``B`` the smallest power of two with ``64 * B >= n``; a key's
bucket is read off the CRC-32 of the key alone, so it depends on nothing
but the key and ``n``. A bucket's digest is SHA-256 of its canonical JSON
(sorted keys, compact); the map's is SHA-256 of ``n`` and the bucket
digests. So:

- the whole digest costs one pass over the plan (each distinct entry object
  is serialized once: its canonical bytes are cached);
- a plan made by editing ``k`` keys of its parent re-hashes the ``k`` buckets
  holding them (about 64 keys each, whatever the plan's size) and joins
  ``B`` digests of 32 bytes: linear in the edit, not in the plan. When ``n``
  crosses a power of two, ``B`` changes and the map is hashed afresh.
  (CRC-32 is not a keyed hash: keys crafted to collide would share a bucket,
  making their edits cost more, never a wrong digest.)

The digest depends on content only: not on key order, ``PYTHONHASHSEED``,
the machine or how the plan was built (a property test checks the
incremental digest against the from-scratch one).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import orjson

from metaplan.frozen import MISSING, JSONMap, canonical_bytes, orjson_default

__all__ = ["DigestState", "MapDigest", "Touched", "derive", "digest_all", "hexdigest"]

_PER_BUCKET = 64
_SORTED = orjson.OPT_SORT_KEYS
_sha256 = hashlib.sha256
_crc32 = zlib.crc32
_dumps = orjson.dumps


class MapDigest(NamedTuple):
    """One FQN map's digest state: its buckets of ``key -> value`` and their digests.

    Buckets are shared, never written, between the states of a lineage; an
    edit copies the buckets it touches. A bucket is serialized with each
    entry as its cached canonical bytes (an orjson fragment).
    """

    size: int
    buckets: tuple[dict[str, Any], ...]
    digests: tuple[bytes, ...]

    def digest(self) -> bytes:
        """The map's digest: SHA-256 of its key count and its bucket digests."""
        return _sha256(b"%d:" % self.size + b"".join(self.digests)).digest()


DigestState = dict[str, "bytes | MapDigest"]
"""Field -> digest: bytes for a plain field, a :class:`MapDigest` for an FQN map."""

Touched = Mapping[str, "Iterable[str] | None"]
"""Field -> the keys an edit touched in that FQN map (``None``: the whole field)."""


def _bucket_count(size: int) -> int:
    buckets = 1
    while buckets * _PER_BUCKET < size:
        buckets *= 2
    return buckets


def _spot(key: str) -> int:
    return _crc32(key.encode("utf-8", "surrogatepass"))


class _Fragments:
    """Each distinct entry's canonical bytes as one orjson fragment, made once per digest."""

    __slots__ = ("made",)

    def __init__(self) -> None:
        self.made: dict[int, tuple[JSONMap, orjson.Fragment]] = {}

    def __call__(self, value: Any) -> Any:
        if type(value) is not JSONMap:
            return value
        known = self.made.get(id(value))
        if known is None or known[0] is not value:
            known = self.made[id(value)] = (value, orjson.Fragment(value.canonical()))
        return known[1]


def _bucket_digest(bucket: dict[str, Any], fragment: _Fragments) -> bytes:
    try:
        text = _dumps({key: fragment(value) for key, value in bucket.items()},
                      default=orjson_default, option=_SORTED)
    except TypeError:  # integers past 64 bits, lone surrogates: the stdlib writes them
        text = canonical_bytes(bucket)
    return _sha256(text).digest()


def _full_map(items: Mapping[str, Any]) -> MapDigest:
    size = len(items)
    mask = _bucket_count(size) - 1
    buckets: list[dict[str, Any]] = [{} for _ in range(mask + 1)]
    for key, value in items.items():
        buckets[_crc32(key.encode("utf-8", "surrogatepass")) & mask][key] = value
    fragment = _Fragments()
    return MapDigest(size, tuple(buckets),
                     tuple(_bucket_digest(bucket, fragment) for bucket in buckets))


def _patched_map(previous: MapDigest, items: Mapping[str, Any], keys: Iterable[str]) -> MapDigest:
    size = len(items)
    if _bucket_count(size) != len(previous.buckets):
        return _full_map(items)
    mask = len(previous.buckets) - 1
    buckets = list(previous.buckets)
    copied: set[int] = set()
    for key in keys:
        index = _spot(key) & mask
        if index not in copied:
            buckets[index] = dict(buckets[index])
            copied.add(index)
        value = items.get(key, MISSING)
        if value is MISSING:
            buckets[index].pop(key, None)
        else:
            buckets[index][key] = value
    digests = list(previous.digests)
    fragment = _Fragments()
    for index in copied:
        digests[index] = _bucket_digest(buckets[index], fragment)
    return MapDigest(size, tuple(buckets), tuple(digests))


def digest_all(plain: Mapping[str, Any], maps: Iterable[str],
               index: Callable[[str], Mapping[str, Any]]) -> DigestState:
    """Digest every field from scratch: ``plain`` fields, and the FQN ``maps`` read by ``index``."""
    state: DigestState = {name: _sha256(canonical_bytes(value)).digest()
                          for name, value in plain.items()}
    state.update({name: _full_map(index(name)) for name in maps})
    return state


def derive(parent: DigestState, plain: Mapping[str, Any], maps: Iterable[str],
           index: Callable[[str], Mapping[str, Any]], touched: Touched) -> DigestState:
    """The digest of a plan made from the one ``parent`` digests by an edit.

    Every field not in ``touched`` is the parent's very value; an FQN map in
    ``touched`` with a key list differs from the parent's at those keys only.
    """
    state: DigestState = {}
    for name, value in plain.items():
        previous = parent.get(name)
        if name not in touched and isinstance(previous, bytes):
            state[name] = previous
        else:
            state[name] = _sha256(canonical_bytes(value)).digest()
    for name in maps:
        previous = parent.get(name)
        keys = touched.get(name, ())
        if not isinstance(previous, MapDigest) or keys is None:
            state[name] = _full_map(index(name))
        elif name in touched:
            state[name] = _patched_map(previous, index(name), keys)
        else:
            state[name] = previous
    return state


def hexdigest(state: DigestState) -> str:
    """``sha256:`` over the sorted field -> hex digest table."""
    table = {name: (digest.digest() if isinstance(digest, MapDigest) else digest).hex()
             for name, digest in state.items()}
    return "sha256:" + _sha256(orjson.dumps(table, option=orjson.OPT_SORT_KEYS)).hexdigest()
