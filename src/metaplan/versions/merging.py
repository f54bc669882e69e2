"""Three-way merge of plans, and rebase of records: structural, reporting real conflicts only.

``merge(base, ours, theirs)`` diffs each side against the base at the
finest level the plan has (top-level fields, module entries by FQN, keys
inside entries, and array items: :mod:`metaplan.algorithms.sequences`). Changes at
disjoint paths combine; the same change made on both sides is taken once;
two different changes at one path, or one inside what the other replaced
or removed, are a :class:`Conflict` naming the path and the three values.

The result is ``ours`` with ``theirs``' changes replayed on it, and the
record of exactly those changes (what turns ``ours`` into the result). With
conflicts, the result still holds every clean change of both sides, with
ours' value at each conflicting place: nothing either side did is lost.
``resolve`` settles conflicts as they are met: ``"ours"``, ``"theirs"`` or
``"base"`` for every one, or a function of the :class:`Conflict` that
answers one of those, or ``None`` to leave it (reported, ours kept).

>>> from metaplan.core.plan import Plan
>>> base = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "tp": 1}}})
>>> ours = Plan.from_json({"param_plan": {"m": {"is_boundary": False, "tp": 1}}})
>>> theirs = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "tp": 2}}})
>>> merged = merge(base, ours, theirs)
>>> merged.conflicts, dict(merged.plan.param_plan["m"])
((), {'is_boundary': False, 'tp': 2})
>>> other = Plan.from_json({"param_plan": {"m": {"is_boundary": True, "tp": 3}}})
>>> clash = merge(base, merged.plan, other)
>>> [str(c) for c in clash.conflicts], dict(clash.plan.param_plan["m"])
(['param_plan["m"].tp: base 1, ours 2, theirs 3'], {'is_boundary': False, 'tp': 2})
>>> dict(merge(base, merged.plan, other, resolve="theirs").plan.param_plan["m"])
{'is_boundary': False, 'tp': 3}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from metaplan.algorithms.sequences import is_sorted_set, merge3, merge3_sets
from metaplan.core.plan import Plan
from metaplan.errors import ConflictError, PlanError
from metaplan.frozen import MISSING, freeze, is_array, json_equal, shown, thaw
from metaplan.paths import format_path
from metaplan.records.change import Change, ChangeRecord, Path
from metaplan.records.edit import Edit, apply_changes
from metaplan.versions.diffing import changes_between, diff, item_identity
from metaplan.viewing import notebook_view

__all__ = ["SIDES", "Conflict", "MergeResult", "RebaseResult", "Resolve", "Side", "merge",
           "merge_values", "rebase", "resolver"]


class Conflict(NamedTuple):
    """Two sides changed one place differently: its path and the three values there.

    A value absent on a side is :data:`~metaplan.frozen.MISSING`. Inside an
    array, the path's last step is where the clashing region starts in the
    base (the same whichever side is ours), and the values are the region's
    items on each side. Each place is reported once, however many changes of
    one side meet it.
    """

    path: Path
    base: Any
    ours: Any
    theirs: Any

    def __str__(self) -> str:
        return (f"{format_path(self.path)}: base {shown(self.base, 60)}, "
                f"ours {shown(self.ours, 60)}, theirs {shown(self.theirs, 60)}")

    def to_json(self) -> dict[str, Any]:
        """``{"path", "base"?, "ours"?, "theirs"?}``: an absent value has no key."""
        out: dict[str, Any] = {"path": list(self.path)}
        for side in ("base", "ours", "theirs"):
            value = getattr(self, side)
            if value is not MISSING:
                out[side] = thaw(value)
        return out


Side = Literal["ours", "theirs", "base"]
"""Which version a conflict is settled to."""

SIDES: tuple[Side, ...] = ("ours", "theirs", "base")

Resolve = Side | Callable[[Conflict], Side | None] | None
"""How :func:`merge` settles conflicts: one side for all, a function of each, or none."""

Picker = Callable[[Conflict], "Side | None"]


def resolver(resolve: Resolve) -> Picker:
    """``resolve`` as a function of a conflict (``None``: leave every conflict)."""
    if resolve is None:
        return lambda conflict: None
    if callable(resolve):
        return resolve
    if resolve not in SIDES:
        raise ValueError(f"resolve: {resolve!r} is not one of {', '.join(SIDES)}, "
                         "a function of a Conflict, or None")
    side: Side = resolve
    return lambda conflict: side


def _chosen(conflict: Conflict, pick: Picker) -> Side | None:
    side = pick(conflict)
    if side is not None and side not in SIDES:
        raise ValueError(f"resolve answered {side!r} for {format_path(conflict.path)}: "
                         f"expected one of {', '.join(SIDES)} or None")
    return side


class MergeResult(NamedTuple):
    """The merged plan, the record that turns ``ours`` into it, and the conflicts left
    (empty: merged). With conflicts the plan holds every clean change of both sides and
    ours' value at each conflict."""

    plan: Plan
    record: ChangeRecord
    conflicts: tuple[Conflict, ...]

    @property
    def clean(self) -> bool:
        """Whether the sides merged without a conflict."""
        return not self.conflicts

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The notebook view: folded text, HTML and JSON (:mod:`metaplan.viewing`)."""
        return notebook_view(self, include, exclude)


class RebaseResult(NamedTuple):
    """The rebased plan, the record of what was applied to it, and the conflicts (empty:
    every change applied or already there; else the plan is unchanged)."""

    plan: Plan
    record: ChangeRecord
    conflicts: tuple[Conflict, ...]

    @property
    def clean(self) -> bool:
        """Whether every change applied or was already there."""
        return not self.conflicts


def _same_change(a: Change, b: Change) -> bool:
    return a.op == b.op and a.path == b.path and (a.op == "remove" or json_equal(a.new, b.new))


class _Index:
    """One side's changes by path, and the paths that lie above a change."""

    def __init__(self, changes: Sequence[Change]) -> None:
        self.at = {change.path: change for change in changes}
        self.above = {change.path[:n] for change in changes for n in range(1, len(change.path))}
        self.below: dict[Path, list[Change]] | None = None

    def meeting(self, path: Path) -> list[Change]:
        """This side's changes at ``path``, inside it, or replacing something above it."""
        at = self.at
        found = [at[path[:n]] for n in range(1, len(path) + 1) if path[:n] in at]
        if path in self.above:
            if self.below is None:  # built once, when a change first lands above another
                self.below = {}
                for change in at.values():
                    for n in range(1, len(change.path)):
                        self.below.setdefault(change.path[:n], []).append(change)
            found += self.below[path]
        return found


def merge(base: Plan, ours: Plan, theirs: Plan, *, name: str = "merge",
          resolve: Resolve = None) -> MergeResult:
    """Merge ``theirs``' changes from ``base`` into ``ours``; see the module's doc."""
    pick = resolver(resolve)
    mine = diff(base, ours, arrays="whole").changes
    yours = diff(base, theirs, arrays="whole").changes
    index = _Index(mine)
    edit = Edit(ours)
    conflicts: list[Conflict] = []
    reported: set[Path] = set()
    for change in yours:
        met = index.meeting(change.path)
        if not met:
            for step in changes_between(_old(change), _new(change), change.path,
                                        why=change.why):
                edit.apply(step)
        elif len(met) == 1 and _same_change(met[0], change):
            continue
        elif (len(met) == 1 and met[0].path == change.path and change.op == "set"
              and met[0].op == "set" and is_array(change.old) and is_array(change.new)
              and is_array(met[0].new)):
            merged = _merge_arrays(change.path, change.old, met[0].new, change.new, conflicts,
                                   pick)
            for step in changes_between(met[0].new, freeze(merged), change.path,
                                        why=change.why):
                edit.apply(step)
        else:
            conflict = _conflict(base, ours, theirs, change, met)
            if conflict.path in reported:  # one per place, though many changes meet it
                continue
            reported.add(conflict.path)
            side = _chosen(conflict, pick)
            if side is None:
                conflicts.append(conflict)
                continue
            for step in changes_between(edit.get(conflict.path, MISSING),
                                        getattr(conflict, side), conflict.path,
                                        why=f"conflict resolved to {side}"):
                edit.apply(step)
    plan, record = edit.finish(name)
    return MergeResult(plan, record, tuple(conflicts))


def _old(change: Change) -> Any:
    return MISSING if change.op == "add" else change.old


def _new(change: Change) -> Any:
    return MISSING if change.op == "remove" else change.new


def _merge_arrays(path: Path, base: Sequence[Any], ours: Sequence[Any],
                  theirs: Sequence[Any], conflicts: list[Conflict], pick: Picker) -> list[Any]:
    """Two edits of one array, merged item by item: sorted strings as a set (an item listed
    twice is one item), objects with a ``match`` by it (an item both sides edited is
    merged key by key), other items as sequences (diff3). A clashing region settled to a
    side holds that side's items; a duplicate (both added one identity) settled keeps the
    side's copy (neither, for the base)."""
    sides = (list(base), list(ours), list(theirs))
    if all(is_sorted_set(side, repeats=True) for side in sides):
        return merge3_sets(*sides).merged
    keyed = all(item_identity(item) is not None for side in sides for item in side)
    result = merge3(*sides, key=item_identity if keyed else None)
    merged = list(result.merged)
    splices: list[tuple[int, int, list[Any]]] = []
    for clash in result.conflicts:
        at = (*path, clash.base_span[0])  # where in the base: the same from either side
        start, end = clash.merged_span
        if clash.kind == "item":
            merged[start] = merge_values(at, clash.base[0], clash.ours[0], clash.theirs[0],
                                         conflicts, resolve=pick)
            continue
        conflict = Conflict(at, clash.base, clash.ours, clash.theirs)
        side = _chosen(conflict, pick)
        if side is None:
            conflicts.append(conflict)
        elif clash.kind == "duplicate":
            splices += _settle_duplicate(start, clash.theirs_copy, side)
        else:
            splices.append((start, end, list(getattr(clash, side))))
    for start, end, items in sorted(splices, key=lambda splice: splice[0], reverse=True):
        merged[start:end] = items
    return merged


def _settle_duplicate(mine: int, other: int | None, side: Side
                      ) -> list[tuple[int, int, list[Any]]]:
    """The splices that keep ``side``'s copy of an item both sides added (ours' at ``mine``,
    theirs' at ``other``), or neither for the base: told apart by place, since the two
    copies may be equal."""
    assert other is not None, "a duplicate says where theirs' copy is"
    if side == "base":
        return [(mine, mine + 1, []), (other, other + 1, [])]
    drop = other if side == "ours" else mine
    return [(drop, drop + 1, [])]


def merge_values(path: Path, base: Any, ours: Any, theirs: Any,
                 conflicts: list[Conflict], *, resolve: Resolve = None) -> Any:
    """Three versions of one value merged as finely as they allow (objects key by key,
    arrays item by item); what cannot merge is settled by ``resolve`` (as :func:`merge`
    takes it), or added to ``conflicts`` with ours kept."""
    pick = resolver(resolve)
    if _equal(ours, theirs) or _equal(base, theirs):
        return ours
    if _equal(base, ours):
        return theirs
    if all(isinstance(v, Mapping) for v in (base, ours, theirs)):
        merged = {}
        for key in sorted({*base, *ours, *theirs}):
            value = merge_values((*path, key), base.get(key, MISSING), ours.get(key, MISSING),
                                 theirs.get(key, MISSING), conflicts, resolve=pick)
            if value is not MISSING:
                merged[key] = value
        return merged
    if all(is_array(v) for v in (base, ours, theirs)):
        return _merge_arrays(path, base, ours, theirs, conflicts, pick)
    conflict = Conflict(path, base, ours, theirs)
    side = _chosen(conflict, pick)
    if side is None:
        conflicts.append(conflict)
        return ours
    return getattr(conflict, side)


def _equal(a: Any, b: Any) -> bool:
    return a is b or (a is not MISSING and b is not MISSING and json_equal(a, b))


def _conflict(base: Plan, ours: Plan, theirs: Plan, change: Change, met: list[Change]
              ) -> Conflict:
    """The conflict at the shortest of the paths involved, with each side's value there."""
    path = min([change.path, *(c.path for c in met)], key=len)
    return Conflict(path, base.at(path), ours.at(path), theirs.at(path))


def rebase(plan: Plan, records: Iterable[ChangeRecord], *, name: str = "rebase"
           ) -> RebaseResult:
    """Apply each change whose old value holds on ``plan``; skip those already applied.

    A change already applied is one whose new value is there (``set``,
    ``add``) or whose key is gone (``remove``). Any other change is a
    :class:`Conflict` (base: the record's old value, ours: what ``plan``
    holds, theirs: the record's new value); with conflicts the plan is
    returned unchanged.

    Items added to or removed from an array are numbered, so the changes to
    one array are judged together: applied when they fit the array as
    ``plan`` has it, skipped when the array is already what they make (their
    inverse fits it), and judged one by one otherwise. When both fit (an
    array holding an item twice can make that so), the side that checks more
    items wins: the removals (and replaced items) checked by applying, or the
    additions checked by skipping. An item a run removes (and does not add
    back) that the array still holds is a removal not made, wherever the item
    is now. On the records' own base (``plan`` has the first record's base
    hash) every change is applied: that is replay; on a record's result (its
    result hash), that record and those before it are already applied.
    """
    records = tuple(records)
    done = [n for n, record in enumerate(records) if record.result == plan.content_hash]
    if done:  # the plan is what the records made up to there: all of those are applied
        records = records[done[-1] + 1:]
    exact = bool(records) and plan.content_hash == records[0].base
    edit = Edit(plan)
    conflicts: list[Conflict] = []
    for record in records:
        for at, changes in _by_array(record.changes):
            if at is not None:
                now = edit.get(at, MISSING)
                forward = _fits(now, at, changes)
                if not exact and (not forward or _leaning(at, changes) > 0) and _applied_run(
                        now, at, changes):
                    continue
                if forward:
                    for change in changes:
                        edit.apply(change)
                    continue
            for change in changes:
                _rebase_one(edit, change, conflicts)
    if conflicts:
        return RebaseResult(plan, ChangeRecord(name, plan, plan, ()), tuple(conflicts))
    result, record = edit.finish(name)
    return RebaseResult(result, record, ())


def _rebase_one(edit: Edit, change: Change, conflicts: list[Conflict]) -> None:
    now = edit.get(change.path, MISSING)
    if _applied(change, now):
        return
    try:
        edit.apply(change)
    except ConflictError:
        old = MISSING if change.op == "add" else change.old
        new = MISSING if change.op == "remove" else change.new
        conflicts.append(Conflict(change.path, old, now, new))


def _by_array(changes: Sequence[Change]) -> list[tuple[Path | None, list[Change]]]:
    """Runs of changes to one array that adds or removes items (its path), and the
    other changes one by one (``None``)."""
    runs: list[tuple[Path | None, list[Change]]] = []
    for change in changes:
        path = change.path
        at = next((path[:n] for n, key in enumerate(path) if type(key) is int), None)
        if at is not None and runs and runs[-1][0] == at:
            runs[-1][1].append(change)
        else:
            runs.append((at, [change]))
    return [(at if at is not None and any(c.op != "set" and len(c.path) == len(at) + 1
                                          for c in run) else None, run)
            for at, run in runs]


def _applied_run(array: Any, at: Path, changes: Sequence[Change]) -> bool:
    """Whether the array at ``at`` (now ``array``) already is what ``changes`` make: their
    inverse fits it, and no item they remove (and do not add back) is still in it.

    An inverse that only adds items fits any array; an item still there is a removal not
    made, wherever the array holds it now.
    """
    if not _fits(array, at, [change.inverse() for change in reversed(changes)]):
        return False
    items = len(at) + 1
    added = [change.new for change in changes if change.op == "add" and len(change.path) == items]
    return not any(change.op == "remove" and len(change.path) == items
                   and not any(json_equal(change.old, new) for new in added)
                   and any(json_equal(change.old, item) for item in array)
                   for change in changes)


def _leaning(at: Path, changes: Sequence[Change]) -> int:
    """Items of the array at ``at`` that ``changes`` add, less those they remove."""
    return sum((change.op == "add") - (change.op == "remove") for change in changes
               if len(change.path) == len(at) + 1)


def _fits(array: Any, at: Path, changes: Sequence[Change]) -> bool:
    """Whether ``changes`` (to the array at ``at``, now ``array``) apply in order."""
    if not is_array(array):
        return False
    moved = [change._replace(path=("array", *change.path[len(at):])) for change in changes]
    try:
        apply_changes(Plan.from_json({"array": thaw(array)}), moved)
    except (ConflictError, PlanError):
        return False
    return True


def _applied(change: Change, now: Any) -> bool:
    if change.op == "remove":
        return now is MISSING
    return now is not MISSING and json_equal(now, change.new)
