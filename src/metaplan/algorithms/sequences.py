"""Edit scripts between two JSON arrays, and three-way merge of arrays.

:func:`edit_script` gives the positional edits that turn one array into
another, applied in order as RFC 6902 array operations (an index counts in
the array as it is when that edit runs):

>>> edit_script(["a", "b", "c"], ["a", "x", "c", "d"])
[ItemEdit(op='remove', index=1, old='b', new=None), \
ItemEdit(op='add', index=1, old=None, new='x'), ItemEdit(op='add', index=3, old=None, new='d')]

Items are equal when they are equal as JSON (``True`` is not ``1``, ``1`` is
not ``1.0``; see :func:`json_key`). With ``key``, items are matched by an
identity (an injection by its ``"match"``), and a matched pair whose values
differ is one ``set`` edit, for the caller to diff inside:

>>> old = [{"match": "a", "ep": 8}, {"match": "b", "ep": 8}]
>>> new = [{"match": "a", "ep": 8}, {"match": "b", "ep": 16}]
>>> edit_script(old, new, key=lambda item: item["match"])
[ItemEdit(op='set', index=1, old={'match': 'b', 'ep': 8}, new={'match': 'b', 'ep': 16})]

The script is minimal: its removes and adds number ``len(a) + len(b) - 2 *
LCS`` (a longest common subsequence, of identities with ``key``). How:

- the common prefix and suffix are skipped, then items found in only one
  array (they can be in no common subsequence) are set aside;
- when what is left holds no item twice on either side (sorted sets, keyed
  objects, most real arrays) the LCS is a longest increasing subsequence,
  O(n log n);
- otherwise Myers' O((N+M)D) algorithm runs on it; past ``1,000,000`` steps
  (long arrays, with repeats, that differ almost everywhere) it settles for
  matching the k-th copy of an item with its k-th copy: a valid script, no
  longer guaranteed minimal;
- two sorted arrays of strings (``frozen_sharded_params``) take a merge
  that gallops over equal runs: linear time in C, O(hunks log n) in Python.

:func:`hunks` gives the same difference as changed regions, :func:`merge3`
merges two edits of one array (diff3), and :func:`merge3_sets` two edits of
a sorted set.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from metaplan.errors import ConflictError, describe

__all__ = [
    "Hunk",
    "ItemConflict",
    "ItemEdit",
    "ItemMerge",
    "apply_script",
    "edit_script",
    "hunks",
    "is_sorted_set",
    "json_key",
    "match_items",
    "merge3",
    "merge3_sets",
    "script_to_json_patch",
]

_RENAMED = {"Edit": "ItemEdit", "Conflict": "ItemConflict", "Merge": "ItemMerge",
            "Key": "ItemKey", "to_json_patch": "script_to_json_patch"}
"""0.3's names, one meaning each now (``metaplan.Edit`` is the edit engine, a merge's
``Conflict`` is a plan's): deprecated aliases until 0.5."""


def __getattr__(name: str) -> Any:
    new = _RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from metaplan._moved import moved_warning

    moved_warning(f"{__name__}.{name}", f"{__name__}.{new}")
    return globals()[new]


Canon = Callable[[Any], Hashable]
"""What decides item equality: two items are equal when their canons are ``==``."""

ItemKey = Callable[[Any], Hashable | None]
"""An item's identity, e.g. an injection's ``"match"``. Called on every item, so it must
not raise: give ``None`` for an item without one (then whole values are compared), as in
``lambda item: item.get("match") if isinstance(item, dict) else None``."""

MYERS_BUDGET = 1_000_000
"""Steps Myers' algorithm may take before the fallback matching (see the module doc)."""


class ItemEdit(NamedTuple):
    """One positional edit: ``remove`` the item at ``index``, ``add`` one before ``index``
    (``index == len`` appends), or ``set`` the item at ``index`` from ``old`` to ``new``
    (a matched pair whose values differ, only with ``key``).

    A named tuple (four times quicker to make than a frozen dataclass, for
    scripts of 40,000 edits); its ``index`` field hides ``tuple.index``.
    """

    op: str
    index: int  # type: ignore[assignment]
    old: Any = None
    new: Any = None


class Hunk(NamedTuple):
    """A changed region: ``a[a_start:a_end]`` becomes ``b[b_start:b_end]``.

    ``matched`` marks one item matched by identity whose value changed (one
    item on each side), as opposed to a region of removed and added items.
    """

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    matched: bool = False


class ItemConflict(NamedTuple):
    """Where :func:`merge3` could not merge: the base, ours and theirs spans and content.

    ``kind`` is ``"hunk"`` (both sides changed overlapping regions differently),
    ``"item"`` (with ``key``: both sides changed one matched item differently;
    the caller may merge inside it) or ``"duplicate"`` (with ``key``: both
    sides added an item of one identity, at different places, so ``merged``
    holds both; ``base_span`` runs between the two places, ``base`` is empty).
    ``merged_span`` is where ours' content sits in the merged list (for a
    duplicate, ours' copy; ``theirs_copy`` is where theirs' sits, and ``None``
    for the other kinds).
    """

    kind: str
    base_span: tuple[int, int]
    ours_span: tuple[int, int]
    theirs_span: tuple[int, int]
    merged_span: tuple[int, int]
    base: list[Any]
    ours: list[Any]
    theirs: list[Any]
    theirs_copy: int | None = None


class ItemMerge(NamedTuple):
    """A three-way merge: the merged list (ours' side where it conflicts) and the conflicts."""

    merged: list[Any]
    conflicts: list[ItemConflict]


def json_key(value: Any) -> Hashable:
    """A hashable key equal for equal JSON values only: ``True`` is not ``1``, ``1`` not ``1.0``.

    A string is its own key; objects compare without key order; arrays are
    any non-string sequence, objects any mapping (``PVector``, ``PMap`` too).

    >>> json_key(1) == json_key(True), json_key(1) == json_key(1.0), json_key("a") == "a"
    (False, False, True)
    >>> json_key({"a": [1, None]}) == json_key({"a": (1, None)})
    True
    """
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if value is None:
        return None
    if kind is bool:
        return ("b", value)
    if kind is int:
        return ("i", value)
    if kind is float:
        return ("f", float.__repr__(value))
    if isinstance(value, str):  # subclasses, as their base type
        return str.__str__(value)
    if isinstance(value, int):
        return ("b", bool(value)) if isinstance(value, bool) else ("i", int(value))
    if isinstance(value, float):
        return ("f", float.__repr__(value))
    if isinstance(value, Mapping):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return ("a", tuple(map(json_key, value)))
    raise TypeError(f"not a JSON value: {kind.__name__} ({value!r:.60})")


# ---------------------------------------------------------------------------------------------
# two-way


def edit_script(a: Sequence[Any], b: Sequence[Any], *, key: ItemKey | None = None,
                canon: Canon = json_key) -> list[ItemEdit]:
    """The edits that turn ``a`` into ``b``, in order, as JSON Patch array operations.

    Within a changed region the removes come first, then the adds. ``key``
    matches items by identity (see :func:`match_items`; if the identities are
    not unique it is ignored); ``canon`` decides equality (default
    :func:`json_key`). ``apply_script(a, edit_script(a, b)) == list(b)``.

    >>> edit_script([1, 2, 3], [3, 1, 2])
    [ItemEdit(op='add', index=0, old=None, new=3), \
ItemEdit(op='remove', index=3, old=3, new=None)]
    >>> edit_script([True], [1])
    [ItemEdit(op='remove', index=0, old=True, new=None), \
ItemEdit(op='add', index=0, old=None, new=1)]
    """
    script: list[ItemEdit] = []
    for hunk in hunks(a, b, key=key, canon=canon):
        if hunk.matched:
            script.append(ItemEdit("set", hunk.b_start, a[hunk.a_start], b[hunk.b_start]))
            continue
        script.extend(ItemEdit("remove", hunk.b_start, old) for old in a[hunk.a_start:hunk.a_end])
        script.extend(ItemEdit("add", j, None, b[j]) for j in range(hunk.b_start, hunk.b_end))
    return script


def apply_script(a: Sequence[Any], script: Sequence[ItemEdit], *, canon: Canon = json_key
                 ) -> list[Any]:
    """``a`` with ``script`` applied, as a new list; checks every index and ``old`` value.

    Raises :class:`~metaplan.errors.ConflictError` (a ``ValueError``) naming the
    edit when an index is out of range or the item there is not ``old``.

    >>> apply_script(["a", "b"], [ItemEdit("remove", 0, "a"), ItemEdit("add", 1, new="c")])
    ['b', 'c']
    >>> apply_script(["a"], [ItemEdit("remove", 0, "z")])
    Traceback (most recent call last):
    ...
    metaplan.errors.ConflictError: edit 0 (remove at [0]) expects a string ("z") there, \
found a string ("a")
    """
    out = list(a)
    for n, edit in enumerate(script):
        top = len(out) if edit.op == "add" else len(out) - 1
        if edit.op not in ("add", "remove", "set"):
            raise ValueError(f"edit {n}: unknown op {edit.op!r} (expected add, remove or set)")
        if not isinstance(edit.index, int) or not 0 <= edit.index <= top:
            raise ConflictError(f"edit {n} ({edit.op} at [{edit.index}]) is out of range: the "
                                f"array has {len(out)} items then", path=(edit.index,))
        if edit.op == "add":
            out.insert(edit.index, edit.new)
            continue
        found = out[edit.index]
        if canon(found) != canon(edit.old):
            raise ConflictError(f"edit {n} ({edit.op} at [{edit.index}]) expects "
                                f"{describe(edit.old)} there, found {describe(found)}",
                                path=(edit.index,), expected=edit.old, found=found)
        if edit.op == "remove":
            del out[edit.index]
        else:
            out[edit.index] = edit.new
    return out


def script_to_json_patch(script: Sequence[ItemEdit], pointer: str = "") -> list[dict[str, Any]]:
    """The script as RFC 6902 operations on the array at JSON Pointer ``pointer``.

    A ``set`` becomes a ``replace`` of the whole item (diff inside it instead
    for a smaller patch). Values are the items as given.

    >>> script = [ItemEdit("remove", 3, "x"), ItemEdit("add", 3, new="y")]
    >>> script_to_json_patch(script, "/frozen_sharded_params")
    [{'op': 'remove', 'path': '/frozen_sharded_params/3'}, \
{'op': 'add', 'path': '/frozen_sharded_params/3', 'value': 'y'}]
    """
    ops: list[dict[str, Any]] = []
    for edit in script:
        path = f"{pointer}/{edit.index}"
        if edit.op == "remove":
            ops.append({"op": "remove", "path": path})
        else:
            ops.append({"op": "add" if edit.op == "add" else "replace", "path": path,
                        "value": edit.new})
    return ops


def hunks(a: Sequence[Any], b: Sequence[Any], *, key: ItemKey | None = None,
          canon: Canon = json_key) -> list[Hunk]:
    """The changed regions between ``a`` and ``b``, in order, around a longest common subsequence.

    Regions are maximal (between two consecutive matched items); with ``key``,
    each matched pair whose values differ is a hunk of its own, ``matched=True``.

    >>> hunks("abcd", "axcdy")
    [Hunk(a_start=1, a_end=2, b_start=1, b_end=2, matched=False), \
Hunk(a_start=4, a_end=4, b_start=4, b_end=5, matched=False)]
    """
    if key is not None:
        pairs = match_items(a, b, key)
        if pairs is not None:
            changed = [a[i] is not b[j] and canon(a[i]) != canon(b[j]) for i, j in pairs]
            return _hunks_from_pairs(len(a), len(b), pairs, changed)
    if canon is json_key and _sorted_strs(a) and _sorted_strs(b):
        return _sorted_hunks(a, b)
    ka = a if canon is json_key and _all_str(a) else [canon(x) for x in a]
    kb = b if canon is json_key and _all_str(b) else [canon(x) for x in b]
    return _hunks_from_pairs(len(a), len(b), _lcs(ka, kb), None)


def match_items(a: Sequence[Any], b: Sequence[Any], key: ItemKey) -> list[tuple[int, int]] | None:
    """Index pairs ``(i, j)`` of items of one identity, in order: an LCS of the identities.

    ``None`` when identities cannot match items: ``key`` gave ``None`` or an
    unhashable value for some item, or one identity twice in ``a`` or in ``b``
    (callers then compare whole values). An item that moved is not matched
    (it is removed and added).

    >>> match_items([{"m": "x"}, {"m": "y"}], [{"m": "y"}, {"m": "z"}], lambda item: item["m"])
    [(1, 0)]
    >>> match_items([{"m": "x"}, {"m": "x"}], [], lambda item: item["m"]) is None
    True
    """
    ka, kb = [key(x) for x in a], [key(x) for x in b]
    try:
        unique = all(None not in keys and len(set(keys)) == len(keys) for keys in (ka, kb))
    except TypeError:  # an unhashable identity
        return None
    return _lcs(ka, kb) if unique else None


def is_sorted_set(items: Sequence[Any], *, repeats: bool = False) -> bool:
    """Whether ``items`` are strings in strictly increasing order (a sorted set); with
    ``repeats``, in sorted order with an item maybe listed twice (a set written sorted).

    >>> is_sorted_set(["a", "b"]), is_sorted_set(["b", "a"]), is_sorted_set(["a", "a"])
    (True, False, False)
    >>> is_sorted_set(["a", "a", "b"], repeats=True), is_sorted_set(["b", "a"], repeats=True)
    (True, False)
    """
    if repeats:
        return _sorted_strs(items)
    return _all_str(items) and all(map(operator.lt, items, itertools.islice(items, 1, None)))


def _all_str(items: Sequence[Any]) -> bool:
    try:
        "".join(items)  # the quickest test, in C
    except TypeError:
        return False
    return True


def _sorted_strs(items: Sequence[Any]) -> bool:
    """Strings in sorted order, repeats allowed: the merge path's condition."""
    return _all_str(items) and all(map(operator.le, items, itertools.islice(items, 1, None)))


def _hunks_from_pairs(n: int, m: int, pairs: Sequence[tuple[int, int]],
                      changed: Sequence[bool] | None) -> list[Hunk]:
    out, i, j = [], 0, 0
    for t, (pi, pj) in enumerate(pairs):
        if pi > i or pj > j:
            out.append(Hunk(i, pi, j, pj))
        if changed is not None and changed[t]:
            out.append(Hunk(pi, pi + 1, pj, pj + 1, True))
        i, j = pi + 1, pj + 1
    if i < n or j < m:
        out.append(Hunk(i, n, j, m))
    return out


def _sorted_hunks(a: Sequence[str], b: Sequence[str]) -> list[Hunk]:
    """Hunks between two sorted arrays of strings: a merge that gallops over equal runs.

    Equal runs are measured by comparing slices (in C), doubling then
    halving; a run of one-sided items is skipped by bisection. The greedy
    merge matches a longest common subsequence of sorted arrays, and costs
    O(hunks * log n) steps in Python.
    """
    out: list[Hunk] = []
    n, m = len(a), len(b)
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            run = _equal_run(a, b, i, j)
            i, j = i + run, j + run
            continue
        i0, j0 = i, j
        while i < n and j < m and a[i] != b[j]:
            if a[i] < b[j]:
                i = bisect.bisect_left(a, b[j], i)
            else:
                j = bisect.bisect_left(b, a[i], j)
        if i == n or j == m:
            i, j = n, m
        out.append(Hunk(i0, i, j0, j))
    if i < n or j < m:
        out.append(Hunk(i, n, j, m))
    return out


def _equal_run(a: Sequence[Any], b: Sequence[Any], i: int, j: int) -> int:
    """How many items ``a[i:]`` and ``b[j:]`` share from the start (at least one)."""
    return 1 + _shared_start(a, b, i + 1, j + 1)


def _shared_start(a: Sequence[Any], b: Sequence[Any], i: int, j: int) -> int:
    """How many items ``a[i:]`` and ``b[j:]`` share from the start, by comparing slices (in
    C): doubling, then halving."""
    most = min(len(a) - i, len(b) - j)
    low, high = 0, 1
    while high <= most and a[i + low:i + high] == b[j + low:j + high]:
        low, high = high, 2 * high
    high = min(high, most + 1)  # a[i:i + low] == b[j:j + low]; not so up to high
    while high - low > 1:
        mid = (low + high) // 2
        if a[i + low:i + mid] == b[j + low:j + mid]:
            low = mid
        else:
            high = mid
    return low


def _shared_end(a: Sequence[Any], b: Sequence[Any], most: int) -> int:
    """How many last items ``a`` and ``b`` share (at most ``most``), as :func:`_shared_start`."""
    n, m = len(a), len(b)
    low, high = 0, 1
    while high <= most and a[n - high:n - low] == b[m - high:m - low]:
        low, high = high, 2 * high
    high = min(high, most + 1)
    while high - low > 1:
        mid = (low + high) // 2
        if a[n - mid:n - low] == b[m - mid:m - low]:
            low = mid
        else:
            high = mid
    return low


def _lcs(ka: Sequence[Hashable], kb: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of two key sequences."""
    n, m = len(ka), len(kb)
    head = _shared_start(ka, kb, 0, 0)
    tail = _shared_end(ka, kb, min(n, m) - head)
    middle = _lcs_middle(ka[head:n - tail], kb[head:m - tail])
    return [*((i, i) for i in range(head)),
            *((i + head, j + head) for i, j in middle),
            *((n - tail + t, m - tail + t) for t in range(tail))]


def _lcs_middle(ka: Sequence[Hashable], kb: Sequence[Hashable]) -> list[tuple[int, int]]:
    """LCS of what lies between the common prefix and suffix (see the module doc)."""
    common = set(ka).intersection(kb)
    if not common:
        return []
    at_a = [i for i, k in enumerate(ka) if k in common]
    at_b = [j for j, k in enumerate(kb) if k in common]
    xa, xb = [ka[i] for i in at_a], [kb[j] for j in at_b]
    if xa == xb:
        return list(zip(at_a, at_b, strict=True))
    if len(set(xa)) == len(xa) and len(set(xb)) == len(xb):
        pairs = _unique_lcs(xa, xb)
    else:
        found = _myers(xa, xb, MYERS_BUDGET)
        pairs = found if found is not None else _unique_lcs(_numbered(xa), _numbered(xb))
    return [(at_a[x], at_b[y]) for x, y in pairs]


def _numbered(keys: Sequence[Hashable]) -> list[tuple[Hashable, int]]:
    """Each key with how many times it came before: the k-th copy matches the k-th copy."""
    seen: dict[Hashable, int] = {}
    out = []
    for k in keys:
        seen[k] = seen.get(k, -1) + 1
        out.append((k, seen[k]))
    return out


def _unique_lcs(xa: Sequence[Hashable], xb: Sequence[Hashable]) -> list[tuple[int, int]]:
    """LCS when no key repeats on either side: a longest increasing run of b-positions."""
    where = {k: j for j, k in enumerate(xb)}
    positions = [where.get(k, -1) for k in xa]
    tails: list[int] = []  # tails[l]: smallest b-position ending an increasing run of l + 1
    ends: list[int] = []  # ends[l]: the a-index holding tails[l]
    back = [-1] * len(xa)
    for i, pos in enumerate(positions):
        if pos < 0:
            continue
        at = bisect.bisect_left(tails, pos)
        back[i] = ends[at - 1] if at else -1
        if at == len(tails):
            tails.append(pos)
            ends.append(i)
        else:
            tails[at], ends[at] = pos, i
    out, i = [], ends[-1] if ends else -1
    while i >= 0:
        out.append((i, positions[i]))
        i = back[i]
    out.reverse()
    return out


def _myers(xa: Sequence[Hashable], xb: Sequence[Hashable], budget: int
           ) -> list[tuple[int, int]] | None:
    """Myers' greedy LCS, O((N+M)D); ``None`` once it has taken ``budget`` steps.

    ``front[offset + k]`` is the furthest x a path of the current step reaches
    on diagonal ``k = x - y``; each step starts from a copy of the previous
    frontier, kept for the walk back. As in Myers' paper, a point may fall
    past the grid's edge: such a path never comes back to (n, m), so the
    path found never uses one.
    """
    n, m = len(xa), len(xb)
    offset = n + m + 1
    front = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    steps = 0
    for d in range(n + m + 1):
        previous = front[offset - d:offset + d + 1]  # step d - 1's frontier, diagonal j at j + d
        trace.append(previous)
        for k in range(-d, d + 1, 2):
            x = _entry(previous, d, k)[0]
            y, start = x - k, x
            while x < n and y < m and xa[x] == xb[y]:
                x, y = x + 1, y + 1
            front[offset + k] = x
            steps += 1 + x - start
            if x >= n and y >= m:
                return _myers_path(trace, n, m)
        if steps > budget:
            return None
    raise AssertionError("unreachable: Myers ends by d == n + m")


def _entry(previous: list[int], d: int, k: int) -> tuple[int, bool]:
    """Where step ``d`` enters diagonal ``k``: x after one move, and whether it moved down.

    ``previous[j + d]`` is step ``d - 1``'s frontier on diagonal ``j``; the move
    comes from the neighbour diagonal that reached further (right on a tie).
    """
    if d == 0:
        return 0, True
    if k == -d or (k != d and previous[k - 1 + d] < previous[k + 1 + d]):
        return previous[k + 1 + d], True
    return previous[k - 1 + d] + 1, False


def _myers_path(trace: list[list[int]], n: int, m: int) -> list[tuple[int, int]]:
    """Walk back from (n, m) through the kept frontiers, collecting the diagonal steps."""
    pairs: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        k = x - y
        entry, down = _entry(trace[d], d, k)
        while x > entry:
            x, y = x - 1, y - 1
            pairs.append((x, y))
        x, y = (entry, entry - k - 1) if down else (entry - 1, entry - k)
    while x > 0:
        x, y = x - 1, y - 1
        pairs.append((x, y))
    pairs.reverse()
    return pairs


# ---------------------------------------------------------------------------------------------
# three-way


def merge3(base: Sequence[Any], ours: Sequence[Any], theirs: Sequence[Any], *,
           key: ItemKey | None = None, canon: Canon = json_key) -> ItemMerge:
    """Merge the changes ``base -> ours`` and ``base -> theirs`` of an array (diff3).

    Each side's changes are its :func:`hunks` from ``base``. Hunks of the two
    sides that overlap (share a base item, or insert at one point) are merged
    when both sides made them alike, and are an :class:`ItemConflict` otherwise;
    other hunks apply as they are, so edits of disjoint regions, even adjacent
    ones, merge. Where it conflicts, ``merged`` holds ours' content.

    ``merge3(b, a, b)``, ``merge3(b, b, a)`` and ``merge3(b, a, a)`` are ``a``,
    and swapping ours and theirs changes only which side a conflict shows in
    ``merged``.

    >>> merge3([1, 2, 3, 4], [0, 1, 2, 3, 4], [1, 2, 3, 5]).merged
    [0, 1, 2, 3, 5]
    >>> merge3(["a"], ["b"], ["c"]).conflicts[0].kind
    'hunk'
    """
    sides = (hunks(base, ours, key=key, canon=canon), hunks(base, theirs, key=key, canon=canon))
    merged: list[Any] = []
    conflicts: list[ItemConflict] = []
    shift = [0, 0]  # how much longer each side is than base, before the current cluster
    placed: dict[tuple[int, int], int] = {}  # (side, its index) -> merged index, hunks' items
    at = 0
    for cluster in _clusters(*sides):
        start = min(h.a_start for _, h in cluster)
        end = max(h.a_end for _, h in cluster)
        merged.extend(base[at:start])
        at = end
        spans = []
        for side in (0, 1):
            grow = sum((h.b_end - h.b_start) - (h.a_end - h.a_start) for s, h in cluster
                       if s == side)
            spans.append((start + shift[side], end + shift[side] + grow))
            shift[side] += grow
        ours_part = list(ours[spans[0][0]:spans[0][1]])
        theirs_part = list(theirs[spans[1][0]:spans[1][1]])
        here = len(merged)
        if {s for s, _ in cluster} == {1}:
            placed.update(((1, spans[1][0] + i), here + i) for i in range(len(theirs_part)))
            merged.extend(theirs_part)
            continue
        placed.update(((0, spans[0][0] + i), here + i) for i in range(len(ours_part)))
        merged.extend(ours_part)
        if {s for s, _ in cluster} == {0} or _alike(ours_part, theirs_part, canon):
            continue
        item = len(cluster) == 2 and all(h.matched for _, h in cluster)
        conflicts.append(ItemConflict("item" if item else "hunk", (start, end), spans[0], spans[1],
                                  (here, len(merged)), list(base[start:end]), ours_part,
                                  theirs_part))
    merged.extend(base[at:])
    if key is not None:
        conflicts.extend(_duplicates(merged, conflicts, ours, theirs, sides, key, placed))
    return ItemMerge(merged, conflicts)


def merge3_sets(base: Sequence[Any], ours: Sequence[Any], theirs: Sequence[Any]) -> ItemMerge:
    """Merge two edits of a set: what either side added is in, what either removed is out.

    The result is sorted, lists each item once and never conflicts; for sorted
    arrays such as ``frozen_sharded_params`` (see :func:`is_sorted_set`), read
    as the sets they list: an item listed twice is one item, so a side that
    only repeats an item changed nothing.

    >>> merge3_sets(["a", "b", "c"], ["a", "c", "d"], ["b", "c", "e"]).merged
    ['c', 'd', 'e']
    >>> merge3_sets(["a", "b"], ["a", "a", "b"], ["b"]).merged
    ['b']
    """
    kept = set(ours).intersection(theirs)
    added = set(ours).union(theirs).difference(base)
    return ItemMerge(sorted(kept | added), [])


def _alike(x: Sequence[Any], y: Sequence[Any], canon: Canon) -> bool:
    return len(x) == len(y) and all(canon(p) == canon(q) for p, q in zip(x, y, strict=True))


def _overlap(g: Hunk, h: Hunk) -> bool:
    """Whether two hunks of different sides touch one base item, or insert at one point."""
    if g.a_start < h.a_end and h.a_start < g.a_end:
        return True
    return g.a_start == g.a_end == h.a_start == h.a_end


def _clusters(ours: list[Hunk], theirs: list[Hunk]) -> list[list[tuple[int, Hunk]]]:
    """Both sides' hunks in base order, grouped where hunks of different sides overlap."""
    tagged = sorted([*((0, h) for h in ours), *((1, h) for h in theirs)],
                    key=lambda sh: (sh[1].a_start, sh[1].a_end, sh[0]))
    clusters: list[list[tuple[int, Hunk]]] = []
    for side, hunk in tagged:
        if clusters and any(s != side and _overlap(h, hunk) for s, h in clusters[-1]):
            clusters[-1].append((side, hunk))
        else:
            clusters.append([(side, hunk)])
    return clusters


def _duplicates(merged: list[Any], conflicts: list[ItemConflict], ours: Sequence[Any],
                theirs: Sequence[Any], sides: tuple[list[Hunk], list[Hunk]], key: ItemKey,
                placed: dict[tuple[int, int], int]) -> list[ItemConflict]:
    """With ``key``: identities that merged changes hold more often than ours or theirs
    does, because both sides added them, each at its own place (``placed``: where each
    side's added items sit in ``merged``).

    Conflicting regions are left out of the count (they hold ours' side only).
    """
    merged_at = list(range(len(merged)))
    for conflict in reversed(conflicts):
        del merged_at[conflict.merged_span[0]:conflict.merged_span[1]]
    try:
        keys = {at: key(merged[at]) for at in merged_at}
        counts = [_counts(keys.values()), _counts(map(key, ours)), _counts(map(key, theirs))]
    except TypeError:  # unhashable identities: the merge ran on whole values
        return []
    out = []
    for k, times in counts[0].items():
        if k is None or times <= max(counts[1].get(k, 0), counts[2].get(k, 0)):
            continue
        ours_copy = _added_copy(ours, sides[0], k, key, placed, 0, keys)
        theirs_copy = _added_copy(theirs, sides[1], k, key, placed, 1, keys)
        if ours_copy is None or theirs_copy is None:  # k is not k (NaN), or canon ignores it
            continue
        (point, mine, mine_at), (other_point, other, other_at) = ours_copy, theirs_copy
        points = sorted((point, other_point))
        out.append(ItemConflict("duplicate", (points[0], points[1]), (mine, mine + 1),
                                (other, other + 1), (mine_at, mine_at + 1), [],
                                [ours[mine]], [theirs[other]], other_at))
    return sorted(out, key=lambda c: max(c.merged_span[0], c.theirs_copy or 0))  # later copy


def _counts(keys: Iterable[Hashable | None]) -> dict[Hashable | None, int]:
    counts: dict[Hashable | None, int] = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return counts


def _added_copy(side: Sequence[Any], side_hunks: list[Hunk], k: Hashable, key: ItemKey,
                placed: dict[tuple[int, int], int], which: int, clean: Mapping[int, Any]
                ) -> tuple[int, int, int] | None:
    """The first item of identity ``k`` a side added that merged cleanly: its base point,
    its index in the side and its index in ``merged`` (among ``clean``).

    One always exists where clean merged items hold ``k`` more often than either
    side. Say more often than theirs: outside the clusters of hunks both sides
    count alike, and so do clusters both changed (alike: ours' content, which is
    theirs'; or a conflict, left out of the clean count). What is left is ours'
    own clusters, one hunk each, which hold ``k`` more often than the base items
    they replace; a matched hunk (an item edited in place) replaces ``k`` by ``k``,
    so an added one holds it, placed in ``merged`` where it merged cleanly. (So no
    matched hunk holds ``k``: a side has them only when its identities are unique.)

    That holds for identities equal to themselves, and a ``canon`` under which alike
    items have one identity. Else (a NaN identity, a ``canon`` that ignores it) there
    may be none: ``None``, and no duplicate is reported.
    """
    for hunk in side_hunks:
        for j in range(hunk.b_start, hunk.b_end):
            if key(side[j]) == k and placed.get((which, j)) in clean:
                return hunk.a_start, j, placed[which, j]
    return None
