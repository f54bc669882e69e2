"""Editing a plan: one engine for passes (which record what they do) and for replay (checked).

An :class:`Edit` is a private working copy of a plan. A pass makes changes
through it (:meth:`Edit.set`, :meth:`Edit.remove`, :meth:`Edit.insert`);
each is recorded as a :class:`~metaplan.records.change.Change` with the old value it
found, and made in the same sweep, so a pass walks the plan once.
:meth:`Edit.finish` gives the new plan, sharing everything untouched with
the input, and the record. Replaying a record is the same engine with every
old value checked first (:meth:`Edit.apply`, :func:`apply`).

Copy on write, at the smallest grain: an edited entry is one dict copy (a
dozen pointers) sharing all nested values, and equal edits of equal entries
give one shared result (15,000 experts set ``is_boundary: false`` make a
handful of new entry objects). An FQN map's read index is patched, not
rebuilt, and its ``PMap`` is evolved when a few keys changed, rebuilt from
the patched index when many did.

>>> from metaplan.core.plan import Plan
>>> plan = Plan.from_json({"param_plan": {"m": {"is_boundary": True}}})
>>> edit = Edit(plan)
>>> edit.set(("param_plan", "m", "is_boundary"), False, "example")
>>> new, record = edit.finish("demo")
>>> new.index("param_plan")["m"]["is_boundary"], plan.index("param_plan")["m"]["is_boundary"]
(False, True)
>>> record.changes[0].op, record.changes[0].old
('set', True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from pyrsistent import PVector

from metaplan.core.plan import FQN_MAPS, PatchedIndex, Plan
from metaplan.core.shape import check_field
from metaplan.errors import ConflictError, PlanError, as_path, parse_path
from metaplan.files.jsonio import MAX_DEPTH
from metaplan.frozen import (
    MISSING,
    SCALAR_TYPES,
    JSONMap,
    forget_canonical,
    freeze,
    freeze_owned,
    frozen,
    interned,
    item_number,
    json_equal,
    shorten,
    to_raw,
    walk,
)
from metaplan.paths import format_path
from metaplan.records.change import LEGACY_HASH, OPS, Change, ChangeRecord, Key, Path

__all__ = ["Edit", "apply", "apply_changes", "remove_in", "set_in"]

_new_change = Change._make  # the engine makes thousands: tuple.__new__, bound by Change
_FLAT = (str, int, bool, type(None))  # flat values whose type and == tell JSON equality


class _MapState(PatchedIndex):
    """An FQN map being edited: the plan's read index and this edit's patch over it."""

    __slots__ = ("lists", "replaced")

    def __init__(self, base: dict[str, Any], replaced: bool = False) -> None:
        super().__init__(base)
        self.replaced = replaced
        self.lists = False  # whether the patch holds raw lists (array entries being edited)

    def frozen(self) -> None:
        """Freeze the raw lists the patch holds (array entries edited in place)."""
        if self.lists:
            for key, value in self.patch.items():
                if type(value) is list:
                    self.patch[key] = freeze_owned(value)
            self.lists = False


class Edit:
    """A private working copy of ``plan``: make changes, each recorded, then :meth:`finish`.

    Values read back (:meth:`get`) reflect the edit's changes so far, and a
    container read back may change under a later change at or below it.
    """

    __slots__ = ("_changes", "_done", "_keep", "_memo", "_mine", "_plan", "_top")

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._changes: list[Change] = []
        self._top: dict[str, Any] = {}
        self._mine: set[int] = set()
        self._keep: list[Any] = []
        self._memo: dict[tuple[Any, ...], tuple[dict[str, Any], JSONMap]] = {}
        self._done = False

    @property
    def plan(self) -> Plan:
        """The plan this edit started from (never changed)."""
        return self._plan

    @property
    def changes(self) -> tuple[Change, ...]:
        """The changes made so far, in order."""
        return tuple(self._changes)

    # reading ----------------------------------------------------------------

    def get(self, path: str | Sequence[Key], default: Any = None) -> Any:
        """The value at ``path`` as the edit has it now (``default`` when there is none).

        ``path`` is read as :meth:`Plan.at <metaplan.core.plan.Plan.at>` reads it (a string
        too; each step by :func:`~metaplan.frozen.step`).
        """
        path = _path(as_path(path))
        value = self._field(_head(path))
        if type(value) is _MapState:
            if len(path) == 1:
                return freeze_owned(value.overlaid())
            value = walk(value.get(path[1]) if type(path[1]) is str else MISSING, path[2:])
        else:
            value = walk(value, path[1:])
        if value is MISSING:
            return default
        raw = value._data if type(value) is JSONMap else value
        if id(raw) in self._mine:  # this edit's own: a later change would show through a view
            return freeze(raw)
        return freeze_owned(value)

    def _field(self, field: str) -> Any:
        """The working value of a top-level field: a ``_MapState`` for an FQN map."""
        value = self._top.get(field, _NO_PATCH)
        if value is _NO_PATCH:
            plan = self._plan
            if field in FQN_MAPS and field in plan.map_fields:
                value = self._top[field] = _MapState(plan.raw_index(field))
            else:
                value = plan.plain_value(field)
        return value

    # writing ----------------------------------------------------------------

    def set(self, path: Sequence[Key], value: Any, why: str = "") -> None:
        """Make ``path`` hold ``value`` (adding the key when absent); nothing when it already does.

        In an array, ``path`` names an existing item (use :meth:`insert` to add one).
        """
        if not self._done and type(path) is tuple and len(path) == 3 and type(value) in _FLAT:
            state = self._top.get(path[0])  # type: ignore[arg-type]
            if state is None:
                state = self._field(path[0])  # type: ignore[arg-type]
            if type(state) is _MapState and self._set_flat(state, path, value, why):
                return
        self._write("set", _path(path), MISSING, value, why, False)

    def _set_flat(self, state: _MapState, path: Path, value: Any, why: str) -> bool:
        """``set`` of a flat value at ``map[fqn][key]`` of an entry not yet copied: the shape
        passes make most. False when the path is of another shape (the general walk takes it).
        """
        key, leaf = path[1], path[2]
        entry = state.patch.get(key, _NO_PATCH)  # type: ignore[arg-type]
        if entry is _NO_PATCH:
            entry = state.base.get(key, MISSING)  # type: ignore[arg-type]
        if type(entry) is not JSONMap or type(leaf) is not str:
            return False
        raw = entry._data  # the engine owns the frozen types' raw side
        if id(raw) in self._mine:
            return False
        current = raw.get(leaf, MISSING)
        if type(current) is type(value) and current == value:
            return True
        memo_key = (id(raw), leaf, type(value), value)
        hit = self._memo.get(memo_key)
        if hit is not None and hit[0] is raw:
            state.patch[key] = hit[1]  # type: ignore[index]
        else:
            data = dict(raw)
            data[leaf] = value
            state.patch[key] = result = JSONMap.over(data)  # type: ignore[index]
            self._memo[memo_key] = (raw, result)
        if current is MISSING:
            self._changes.append(_new_change(("add", path, None, value, why)))
        else:
            old = current if type(current) in _FLAT else freeze_owned(current)
            self._changes.append(_new_change(("set", path, old, value, why)))
        return True

    def set_each(self, field: str, leaf: str, value: Any,
                 whys: Iterable[tuple[str, str]]) -> None:
        """``set((field, key, leaf), value, why)`` for each ``(key, why)`` of ``whys`` whose
        entry is an object; other entries (absent, arrays, text) are skipped.

        The same changes, in the same order, as that loop of :meth:`set`; one call for the
        thousands of flags a pass sets (a third of the time of the loop).
        """
        if self._done or type(value) not in _FLAT or type(self._field(field)) is not _MapState:
            for key, why in whys:
                if type(self.get((field, key))) is JSONMap:
                    self.set((field, key, leaf), value, why)
            return
        state: _MapState = self._top[field]
        patch, base, mine, memo = state.patch, state.base, self._mine, self._memo
        append, kind = self._changes.append, type(value)
        memo_get, patch_get, base_get = memo.get, patch.get, base.get
        last: Any = None  # the raw entry the last change was made to, its result, its value
        result: JSONMap | None = None
        current: Any = MISSING
        for key, why in whys:
            entry = patch_get(key, _NO_PATCH)
            if entry is _NO_PATCH:
                entry = base_get(key, MISSING)
            if type(entry) is not JSONMap:
                continue
            raw = entry._data  # the engine owns the frozen types' raw side
            if raw is last:  # equal entries are one object: the last one's result again
                patch[key] = result
            else:
                if id(raw) in mine:
                    self.set((field, key, leaf), value, why)
                    continue
                now = raw.get(leaf, MISSING)
                if type(now) is kind and now == value:
                    continue
                current = now
                memo_key = (id(raw), leaf, kind, value)
                hit = memo_get(memo_key)
                if hit is not None and hit[0] is raw:
                    patch[key] = result = hit[1]
                else:
                    data = dict(raw)
                    data[leaf] = value
                    patch[key] = result = JSONMap.over(data)
                    memo[memo_key] = (raw, result)
                last = raw
            if current is MISSING:
                append(_new_change(("add", (field, key, leaf), None, value, why)))
            else:
                old = current if type(current) in _FLAT else freeze_owned(current)
                append(_new_change(("set", (field, key, leaf), old, value, why)))

    def remove_each(self, field: str, whys: Iterable[tuple[str, str]]) -> None:
        """``remove((field, key), why)`` for each ``(key, why)`` of ``whys``: the same changes,
        in the same order, in one call."""
        if self._done or type(self._field(field)) is not _MapState:
            for key, why in whys:
                self.remove((field, key), why)
            return
        state: _MapState = self._top[field]
        patch, append = state.patch, self._changes.append
        patch_get, base_get = patch.get, state.base.get
        for key, why in whys:
            if type(key) is not str:
                self.remove((field, key), why)
                continue
            current = patch_get(key, _NO_PATCH)
            if current is _NO_PATCH:
                current = base_get(key, MISSING)
            if current is not MISSING:
                patch[key] = MISSING
                old = current if type(current) in _FLAT else freeze_owned(current)
                append(_new_change(("remove", (field, key), old, None, why)))

    def remove(self, path: Sequence[Key], why: str = "") -> None:
        """Remove the key (or array item) at ``path``; nothing when there is none (a
        :class:`~metaplan.errors.ConflictError` when its parent does not exist)."""
        if not self._done and type(path) is tuple and len(path) == 2 and type(path[1]) is str:
            state = self._top.get(path[0])  # type: ignore[arg-type]
            if state is None:
                state = self._field(path[0])  # type: ignore[arg-type]
            if type(state) is _MapState:
                key = path[1]
                current = state.patch.get(key, _NO_PATCH)
                if current is _NO_PATCH:
                    current = state.base.get(key, MISSING)
                if current is not MISSING:
                    state.patch[key] = MISSING
                    old = current if type(current) in _FLAT else freeze_owned(current)
                    self._changes.append(_new_change(("remove", path, old, None, why)))
                return
        self._write("remove", _path(path), MISSING, None, why, False)

    def insert(self, path: Sequence[Key], value: Any, why: str = "") -> None:
        """Insert ``value`` into an array before index ``path[-1]`` (its length: append)."""
        self._write("add", _path(path), MISSING, value, why, False)

    def apply(self, change: Change) -> None:
        """Make ``change``, checking its old value first (a :class:`ConflictError` when it
        does not fit)."""
        if (change.op not in OPS or type(change.path) is not tuple or not change.path
                or type(change.path[0]) is not str):
            raise ValueError(f"not a change: {change!r}; op is one of {list(OPS)} and path a "
                             "non-empty tuple of keys starting with a field name")
        self._write(change.op, change.path, change.old, change.new, change.why, True,
                    change)

    def finish(self, name: str) -> tuple[Plan, ChangeRecord]:
        """The edited plan (the input itself when nothing changed) and the record of it."""
        plan = self._plan
        self._done = True  # the plan and record given out share this edit's state
        if not self._changes:
            return plan, ChangeRecord(name, plan, plan, ())
        for value in self._top.values():
            if type(value) is _MapState:
                value.frozen()
        plain: dict[str, Any] = {}
        whole: dict[str, dict[str, Any]] = {}
        patched: dict[str, dict[str, Any]] = {}
        for field, value in self._top.items():
            if type(value) is not _MapState:
                plain[field] = value if value is MISSING else self._frozen_top(field, value)
            elif value.replaced:
                whole[field] = value.overlaid()
            elif value.patch:
                patched[field] = value.patch
        forget_canonical(self._keep)  # written after any read of their bytes
        result = plan.successor(plain, whole, patched)
        return result, ChangeRecord(name, plan, result, self._changes)

    # the engine -------------------------------------------------------------

    def _write(self, op: str, path: Path, old: Any, new: Any, why: str, checked: bool,
               given: Change | None = None) -> None:
        if self._done:
            raise RuntimeError("this edit is finished: its plan and record are given out; "
                               "start a new Edit on the plan finish() gave")
        if op != "remove":
            _check_depth(path, new)
        field = _head(path)
        if len(path) == 1:
            self._write_top(op, field, old, new, why, checked, given)
            return
        state = self._field(field)
        if type(state) is not _MapState:
            raw = self._own_top(field, state, path)
            self._write_in(op, path, raw, 1, old, new, why, checked, given)
            return
        key = path[1]
        if type(key) is not str:
            _not_an_object(state.base, path[:1], key)
        current = state.get(key)
        if len(path) == 2:
            found = _decide(op, path, current, old, new, checked)
            if found is not _SKIP:
                state.patch[key] = MISSING if op == "remove" else frozen(new)
                self._record(op, path, found, new, why, given)
        elif type(current) is not JSONMap:
            if not isinstance(current, PVector) and not (type(current) is list
                                                         and id(current) in self._mine):
                _descend_into(current, path[:2])
            raw = self._own_top_list(current, state, key)  # an entry that is an array
            self._write_in(op, path, raw, 2, old, new, why, checked, given)
        elif len(path) == 3 and id(current._data) not in self._mine:
            self._entry_key(op, path, current, old, new, why, checked, state.patch, given)
        else:
            raw = self._own_entry(current, state.patch, key)
            self._write_in(op, path, raw, 2, old, new, why, checked, given)

    def _entry_key(self, op: str, path: Path, entry: JSONMap, old: Any, new: Any, why: str,
                   checked: bool, patch: dict[str, Any], given: Change | None) -> None:
        """``map[fqn][key]`` of an entry not yet copied: one copy, shared by equal edits."""
        raw = entry._data  # the engine owns the frozen types' raw side
        leaf = path[2]
        if type(leaf) is not str:
            _not_an_object(raw, path[:2], leaf)
        current = raw.get(leaf, MISSING)
        if op == "set" and checked and current is old and current is not MISSING \
                and type(new) is bool:
            found = current  # the flag flips passes make: checked by identity
        else:
            found = _decide(op, path, current, old, new, checked)
            if found is _SKIP:
                return
        fqn = path[1]
        assert type(fqn) is str
        memo_key = (id(raw), leaf, op, type(new), new) if type(new) in _FLAT else None
        hit = self._memo.get(memo_key) if memo_key is not None else None
        if hit is not None and hit[0] is raw:
            patch[fqn] = hit[1]
        else:
            data = dict(raw)
            if op == "remove":
                del data[leaf]
            else:
                data[leaf] = to_raw(new)
            result = JSONMap.over(data)
            patch[fqn] = result
            if memo_key is not None:
                self._memo[memo_key] = (raw, result)
        self._record(op, path, found, new, why, given)

    def _own_entry(self, entry: JSONMap, patch: dict[str, Any], key: str) -> dict[str, Any]:
        """The raw dict of ``entry``, copied into this edit's own unless it already is."""
        raw = entry._data
        if id(raw) in self._mine:
            return raw
        data = dict(raw)
        owned = JSONMap.over(data)
        self._mine.add(id(data))
        self._keep += (data, owned)
        patch[key] = owned
        return data

    def _own_top_list(self, value: Any, state: _MapState, key: str) -> list[Any]:
        """The raw list of an FQN map's entry that is an array, this edit's own."""
        if type(value) is list:
            return value  # already this edit's own (the caller checked)
        raw = _raw_items(value)
        self._mine.add(id(raw))
        self._keep.append(raw)
        state.patch[key] = raw
        state.lists = True
        return raw

    def _own_top(self, field: str, value: Any, path: Path) -> Any:
        """The raw container of top-level ``field`` (now ``value``), this edit's own."""
        if type(value) in (dict, list) and id(value) in self._mine:
            return value
        if type(value) is JSONMap:
            raw: Any = dict(value._data)
        elif isinstance(value, PVector):
            raw = _raw_items(value)
        else:
            _descend_into(value, path[:1])
        self._mine.add(id(raw))
        self._keep.append(raw)
        self._top[field] = raw
        return raw

    def _write_in(self, op: str, path: Path, root: Any, start: int, old: Any, new: Any,
                  why: str, checked: bool, given: Change | None) -> None:
        """Walk ``path[start:-1]`` from the owned ``root``, copying on write; edit the last key."""
        container = root
        for depth in range(start, len(path) - 1):
            container = self._child(container, path[depth], path, depth)
        key = path[-1]
        if type(container) is dict:
            if type(key) is not str:
                _not_an_object(container, path[:-1], key)
            current = container.get(key, MISSING)
            found = _decide(op, path, current, old, new, checked)
            if found is _SKIP:
                return
            if op == "remove":
                del container[key]
            else:
                container[key] = to_raw(new)
        else:
            found = self._list_op(op, path, container, key, old, new, checked)
            if found is _SKIP:
                return
        self._record(op, path, found, new, why, given)

    def _list_op(self, op: str, path: Path, items: list[Any], key: Key, old: Any, new: Any,
                 checked: bool) -> Any:
        if type(key) is not int:
            _not_an_object(items, path[:-1], key)
        size = len(items)
        if op == "add":
            if not 0 <= key <= size:
                raise ConflictError(f"{format_path(path)}: cannot insert at {key} into an "
                                    f"array of {size} items", path=path)
            items.insert(key, to_raw(new))
            return MISSING
        if not 0 <= key < size:
            if not checked and op == "remove":
                return _SKIP
            raise ConflictError(f"{format_path(path)}: the change expects an item at {key}, "
                                f"but the array has {size} items", path=path, expected=old)
        found = _decide(op, path, items[key], old, new, checked)
        if found is not _SKIP:
            if op == "remove":
                del items[key]
            else:
                items[key] = to_raw(new)
        return found

    def _child(self, container: Any, key: Key, path: Path, depth: int) -> Any:
        """``container[key]``, an object or array this edit owns (copied on first write)."""
        if type(container) is dict:
            if type(key) is not str:
                _not_an_object(container, path[:depth], key)
            value = container.get(key, MISSING)
        elif type(key) is int and 0 <= key < len(container):
            value = container[key]
        else:
            raise ConflictError(f"{format_path(path[:depth + 1])}: the change names it, but "
                                f"the array has {len(container)} items", path=path[:depth + 1])
        kind = type(value)
        if kind is not dict and kind is not list:
            _descend_into(value, path[:depth + 1])
        if id(value) in self._mine:
            return value
        copy = dict(value) if kind is dict else list(value)
        self._mine.add(id(copy))
        self._keep.append(copy)
        container[key] = copy
        return copy

    def _write_top(self, op: str, field: str, old: Any, new: Any, why: str, checked: bool,
                   given: Change | None) -> None:
        current = self._field(field)
        if type(current) is _MapState:
            current = freeze_owned(current.overlaid())
        found = _decide(op, (field,), current, old, new, checked)
        if found is _SKIP:
            return
        if op == "remove":
            self._top[field] = MISSING
        else:
            raw = to_raw(new)
            check_field(field, raw)
            self._top[field] = (_MapState(interned(raw), replaced=True)
                                if field in FQN_MAPS and type(raw) is dict
                                else freeze_owned(raw))
        self._record(op, (field,), found, new, why, given)

    def _frozen_top(self, field: str, value: Any) -> Any:
        if type(value) in (dict, list) and id(value) in self._mine:
            return freeze_owned(value)
        return value

    def _record(self, op: str, path: Path, found: Any, new: Any, why: str,
                given: Change | None) -> None:
        if given is not None:
            self._changes.append(given)
            return
        if op == "set" and found is MISSING:
            op = "add"
        old = None if found is MISSING else freeze_owned(found)
        self._changes.append(_new_change((op, path, old,
                                                  None if op == "remove" else frozen(new),
                                                  why)))


class _Skip:
    __slots__ = ()


_SKIP: Any = _Skip()
_NO_PATCH: Any = object()


def _path(path: Sequence[Key]) -> Path:
    if isinstance(path, str):  # a write names item numbers as ints: set_in reads a string
        raise TypeError(f"a path to change is a tuple of keys, found the string {path!r}; "
                        f"write {tuple(parse_path(path))!r} with item numbers as ints, or "
                        "call metaplan.set_in / remove_in, which read strings")
    path = tuple(path)
    if not path or type(path[0]) is not str:
        raise ValueError(f"a path starts with a field name, found {path!r}")
    return path


def _raw_items(items: PVector[Any]) -> list[Any]:
    """A fresh list of the raw values of a frozen array's items."""
    raw = list(items)
    for i, item in enumerate(raw):
        if type(item) not in SCALAR_TYPES:
            raw[i] = to_raw(item)
    return raw


def _head(path: Path) -> str:
    """The field a path starts with (:func:`_path` checked it is a name)."""
    field = path[0]
    assert type(field) is str
    return field


def _decide(op: str, path: Path, current: Any, old: Any, new: Any, checked: bool) -> Any:
    """The old value a change meets (``MISSING``: none), after checking it; ``_SKIP``: no-op."""
    if not checked:
        if op == "remove":
            return _SKIP if current is MISSING else current
        if op == "set" and current is not MISSING and json_equal(freeze_owned(current), new):
            return _SKIP
        if op == "add" and current is not MISSING and len(path) and type(path[-1]) is str:
            raise ConflictError(f"{format_path(path)}: insert adds array items; this is an "
                                "object key (use set)", path=path)
        return current
    if op == "add":
        if current is not MISSING:
            raise ConflictError(f"{format_path(path)}: the record adds it, but the plan "
                                f"already has {shorten(current)}", path=path,
                                found=freeze_owned(current))
        return current
    if current is MISSING:
        raise ConflictError(f"{format_path(path)}: the record expects {shorten(old)}, but "
                            "the plan has no such key", path=path, expected=old)
    if current is not old and not json_equal(freeze_owned(current), old):
        raise ConflictError(f"{format_path(path)}: the record expects {shorten(old)}, but "
                            f"the plan has {shorten(current)}", path=path, expected=old,
                            found=freeze_owned(current))
    return current


def _not_an_object(value: Any, path: Path, key: Key) -> NoReturn:
    """Raise the conflict for a key of the wrong kind: an item number in an object, or a
    name in an array."""
    if isinstance(key, int):
        raise ConflictError(f"{format_path(path)}: the change names item {key}, but this is an "
                            "object (its keys are names)", path=(*path, key))
    raise ConflictError(f"{format_path(path)}: expected an object to hold key {key!r}, found "
                        "an array (its items are numbered)", path=(*path, key))


def _descend_into(value: Any, path: Path) -> NoReturn:
    """Raise the conflict for descending into ``value`` (``MISSING`` when absent)."""
    if value is MISSING:
        raise ConflictError(f"{format_path(path)}: the record changes it, but the plan has no "
                            "such key", path=path)
    raise ConflictError(f"{format_path(path)}: expected an object or array to descend into, "
                        f"found {shorten(value)}", path=path, found=freeze_owned(value))


def _check_depth(path: Path, value: Any) -> None:
    """A change may not nest the plan past :data:`~metaplan.files.jsonio.MAX_DEPTH` levels."""
    kind = type(value)
    if kind in SCALAR_TYPES:
        if len(path) > MAX_DEPTH:  # held by the container at level len(path)
            _too_deep(path)
        return
    limit = MAX_DEPTH - len(path)
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if type(item) is JSONMap:
            item = item._data
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, (list, tuple, PVector)):
            children = item
        else:
            continue
        if level > limit:
            _too_deep(path)
        stack.extend((child, level + 1) for child in children)


def _too_deep(path: Path) -> NoReturn:
    raise PlanError(f"the change would nest the plan more than {MAX_DEPTH} levels deep "
                    "(plans nest a handful; nothing can read such a file)", path=path[:6])


def apply_changes(plan: Plan, changes: Iterable[Change]) -> Plan:
    """Apply ``changes`` in order, checking each old value; no hash checks."""
    edit = Edit(plan)
    for change in changes:
        edit.apply(change)
    return edit.finish("apply")[0]


def apply(plan: Plan, record: ChangeRecord, *, check_hash: bool = True) -> Plan:
    """Replay ``record`` on ``plan``; refuse a plan it was not made on.

    Every change's old value is checked first (a :class:`ConflictError` names
    the first conflicting path), then the plan's content hash against the
    record's base, and the result's against the record's result (not for a
    version-1 record, whose hashes are of the first digest).
    """
    check_hash = check_hash and not record.base.startswith(LEGACY_HASH)
    if check_hash:
        plan.content_hash  # noqa: B018 - known first, the result's is derived from it
    try:
        result = apply_changes(plan, record.changes)
    except ConflictError as exc:
        raise ConflictError(f"record {record.pass_name!r}: {exc}", path=exc.path,
                            expected=exc.expected, found=exc.found,
                            record=record.pass_name) from None
    if check_hash:
        if plan.content_hash != record.base:
            raise ConflictError(
                f"record {record.pass_name!r} was made on plan {record.base}, not on "
                f"{plan.content_hash}: every changed path matches, so the plans differ "
                "elsewhere", expected=record.base, found=plan.content_hash,
                record=record.pass_name)
        if result.content_hash != record.result:
            raise ConflictError(
                f"record {record.pass_name!r} should give plan {record.result}, but gave "
                f"{result.content_hash}: the record is inconsistent", expected=record.result,
                found=result.content_hash, record=record.pass_name)
    return result


def _resolved(edit: Edit, path: str | Sequence[Key]) -> Path:
    """``path`` as a change names it: a digit-string step into an array becomes its int."""
    steps = list(_path(as_path(path)))
    for i in range(1, len(steps)):
        number = item_number(steps[i])
        if type(steps[i]) is str and number is not None and isinstance(
                edit.get(steps[:i], MISSING), PVector):
            steps[i] = number
    return tuple(steps)


def set_in(plan: Plan, path: str | Sequence[Key], value: Any) -> Plan:
    """A plan whose ``path`` holds ``value``: :meth:`Edit.set` of one change; ``plan``
    itself when it already does.

    ``path`` is read as :meth:`Plan.at <metaplan.core.plan.Plan.at>` reads it (a
    string too), so ``set_in(plan, path, v).at(path) == v``. A missing parent
    is a :class:`~metaplan.errors.ConflictError`.

    >>> plan = Plan.from_json({"param_plan": {"m.x": {"is_boundary": True}}})
    >>> set_in(plan, "param_plan/m.x/is_boundary", False).at("param_plan/m.x/is_boundary")
    False
    """
    edit = Edit(plan)
    edit.set(_resolved(edit, path), value)
    return edit.finish("set_in")[0]


def remove_in(plan: Plan, path: str | Sequence[Key]) -> Plan:
    """A plan without the key (or array item) at ``path``: :meth:`Edit.remove` of one
    change; ``plan`` itself when there is none there."""
    edit = Edit(plan)
    edit.remove(_resolved(edit, path))
    return edit.finish("remove_in")[0]
