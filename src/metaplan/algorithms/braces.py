"""Fold a set of module names into one bash brace pattern, and expand patterns back.

:func:`fold` writes a set of names as one pattern that names exactly that set:
names that differ only in their numbers become ranges and lists, and names
that are not one product become alternatives, factored by their common
prefix and suffix:

>>> fold(f"model.layers.{i}.mlp.experts.{e}" for i in range(3, 61) for e in range(256))
'model.layers.{3..60}.mlp.experts.{0..255}'
>>> fold(["model.layers.0.mlp", "model.layers.1.mlp", "model.layers.2.mlp", "model.layers.5.mlp"])
'model.layers.{{0..2},5}.mlp'
>>> fold(["lm_head", "model.layers.3.mlp", "model.layers.4.mlp"])
'{lm_head,model.layers.{3,4}.mlp}'

:func:`expand` is bash's brace expansion (the words, in bash's order), and
:func:`count` counts them without building them:

>>> expand("model.layers.{{0..2},5}.{mlp,self_attn}")[:3]
['model.layers.0.mlp', 'model.layers.0.self_attn', 'model.layers.1.mlp']
>>> count("model.layers.{3..60}.mlp.experts.{0..255}")
14848

The syntax is bash's: ``{M..N}`` ranges, ``{a,b}`` lists, nested freely, and
``\\`` escaping one character. Bash reads a range only as a whole brace group
(``{1..3,5}`` is the two words ``1..3`` and ``5``), so a range inside a list
is braced: ``{{0..2},5}``. ``fold(..., ranges_in_lists=True)`` writes the
shorter ``{0..2,5}`` instead, which ``expand(..., ranges_in_lists=True)``
reads but bash does not.

What :func:`fold` guarantees, for any set of strings:

- **exact**: ``expand(fold(names))`` lists every name once, and nothing else;
  bash's own brace expansion gives the same words (for names free of shell
  quoting characters such as spaces, quotes, ``*``, ``;``);
- **deterministic**: the pattern depends on the set only, not on its order;
- numbers fold only when written canonically (``0``, or no leading zero) and
  with at most 18 digits: bash zero-pads ``{07..09}`` and overflows past
  64 bits, so ``07`` or a 4,300-digit run is kept literal, as a list item;
- ranges ``{M..N}`` need three or more consecutive numbers: two read as the
  list ``{3,4}`` (so a full grid has no comma, unless a side has two values);
- the characters ``\\ { } , $`` and the second dot of ``..`` are escaped with a
  backslash (``$`` because bash does not expand ``${a,b}``);
- ``fold([""]) == ""``, and one name folds to itself, escaped.

:func:`group_key` tells which names "differ only in their numbers" (the name
with its digit runs taken out), and :func:`natural_key` sorts names the way
people number them (``layers.2`` before ``layers.10``), on digit runs of any
length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

__all__ = ["NaturalKey", "count", "expand", "fold", "fold_first", "group_key", "natural_key"]

_SPLIT = re.compile(r"([0-9]+)")
_TOKEN = re.compile(r"[^\W\d_]+|\.+|.", re.DOTALL)
_ESCAPE = re.compile(r"[\\{},$]|(?<=\.)\.")
_SYNTAX = re.compile(r"\\(?s:.)?|\$(?=\{)|[{},]")
_RANGE = re.compile(r"([-+]?[0-9]+)\.\.([-+]?[0-9]+)(?:\.\.([-+]?[0-9]+))?")
_MAX_DIMS = 32
"""Digit runs past this many in one name are kept literal (bounds fold's recursion)."""
_MAX_RANGE_DIGITS = 18
"""Longest number fold puts in a range: bash's ranges are 64-bit."""
_BASH_MAX = 2**63 - 1

NaturalKey = tuple[str | tuple[int, str, str], ...]
"""A name's sort key: its text, with each digit run as (length, digits, as written)."""

GroupKey = tuple[str, ...]
"""A name with its digit runs taken out: the text before, between and after them."""


def natural_key(name: str) -> NaturalKey:
    """Sort key that orders numbers by value (``layers.2`` < ``layers.10``), on any digit run.

    Digit runs compare by value without ``int()`` (which refuses 4,300+ digits):
    by length once leading zeros are stripped, then by digits; ``07`` and ``7``
    tie on value, then order as plain strings.

    >>> sorted(["layers.10", "layers.2", "layers.02", "lm_head"], key=natural_key)
    ['layers.02', 'layers.2', 'layers.10', 'lm_head']
    >>> natural_key("a" + "9" * 5000) < natural_key("a1" + "0" * 5000)
    True
    """
    parts: list[str | tuple[int, str, str]] = _SPLIT.split(name)
    for i in range(1, len(parts), 2):
        run = parts[i]
        assert isinstance(run, str)
        value = run.lstrip("0")
        parts[i] = (len(value), value, run)
    return tuple(parts)


def group_key(name: str) -> GroupKey:
    """The text of ``name`` around its digit runs: equal keys mean names differ in numbers only.

    The diff groups changes by this key, then folds each group's names.

    >>> group_key("model.layers.3.mlp.experts.17")
    ('model.layers.', '.mlp.experts.', '')
    >>> group_key("model.layers.3.mlp") == group_key("model.layers.60.mlp")
    True
    >>> group_key("lm_head")
    ('lm_head',)
    """
    return tuple(_SPLIT.split(name)[0::2])


# ---------------------------------------------------------------------------------------------
# fold


def fold(names: Iterable[str], *, ranges_in_lists: bool = False) -> str:
    """One brace pattern that expands to exactly ``names`` (a set: order and repeats ignored).

    Raises ``ValueError`` for no names at all (no pattern names the empty set)
    and ``TypeError`` for a name that is not a ``str``.

    How: names are grouped by :func:`group_key`; each group's rows of digit
    runs become a union of disjoint products (values of the first run that
    are followed by the same set of rests share a product, and so on), so a
    full grid is one product and a grid with a hole two. The products of all
    groups go into a trie of tokens (words, separators, sets of numbers);
    children whose patterns are equal merge into one list (``{down,gate,up}``),
    a node with several children becomes ``{...}`` alternatives sorted in
    natural order, and the alternatives' common suffix is factored out when it
    starts at a separator (``{experts.{0..255},shared_experts}.weight``). About
    1 ms per 1,000 names; linear in their total length.

    >>> fold(["model.layers.0.mlp", "model.layers.0.self_attn", "model.layers.1.mlp"])
    'model.layers.{0.self_attn,{0,1}.mlp}'
    >>> fold(["model.norm"]), fold([""]), fold(["a{b}", "a,b"])
    ('model.norm', '', 'a{\\\\,b,\\\\{b\\\\}}')
    >>> fold(["x.0", "x.1", "x.2", "x.5"], ranges_in_lists=True)
    'x.{0..2,5}'
    """
    return _fold(_skeletons(names), ranges_in_lists)


def fold_first(names: Iterable[str], *, ranges_in_lists: bool = False) -> tuple[str, str]:
    """:func:`fold` of ``names`` and the first of them in :func:`natural_key` order, from
    one grouping of their digit runs (no sort key made per name).

    >>> fold_first(["m.20", "m.9", "m.10.x"])
    ('m.{{9,20},10.x}', 'm.9')
    """
    groups = _skeletons(names)
    return _fold(groups, ranges_in_lists), min(map(_first, groups.items()), key=natural_key)


def _skeletons(names: Iterable[str]) -> dict[GroupKey, Rows]:
    if isinstance(names, str):
        raise TypeError(f"fold takes an iterable of names, not one string ({names[:40]!r})")
    groups = _by_skeleton(names)
    if not groups:
        raise ValueError("fold needs at least one name: no brace pattern names the empty set")
    return groups


def _fold(groups: dict[GroupKey, Rows], ranges_in_lists: bool) -> str:
    root = _Node()
    for skeleton, rows in groups.items():
        segments = [_TOKEN.findall(text) for text in skeleton]
        _insert(root, segments, _factor(rows, len(skeleton) - 1), 0)
    return _render(root, ranges_in_lists)


def _first(group: tuple[GroupKey, Rows]) -> str:
    """A skeleton's first name in natural order: its texts equal, the least run at each level."""
    skeleton, rows = group
    runs = []
    while rows:
        run = min(rows, key=natural_key)  # a run alone: its value, then its text
        runs.append(run)
        rows = rows[run]
    return "".join(text + run for text, run in zip(skeleton, [*runs, ""], strict=True))


Rows = dict[str, "Rows"]
"""One skeleton's names by their digit runs, a level per run: ``{"3": {"0": {}, "1": {}}}``."""

_NO_ROWS: Rows = {}
"""The value under a last digit run (shared, never written)."""

_NON_DIGITS_TO_SPACE = str.maketrans({i: chr(i) if chr(i).isdigit() else " " for i in range(128)})
_DIGITS_TO_NUL = str.maketrans(dict.fromkeys("0123456789", "\0"))


def _by_skeleton(names: Iterable[str]) -> dict[GroupKey, Rows]:
    """Names grouped by their text around digit runs, and their runs within each group.

    Runs over all names joined by newlines with ``str.translate`` and
    ``str.split`` (ten times faster than a regular expression, per name or
    joined); names that are not ASCII or hold a newline or a NUL take the
    per-name way.
    """
    names = list(names)
    if set(map(type, names)) - {str}:
        bad = next(name for name in names if type(name) is not str)
        raise TypeError(f"fold takes strings, found {type(bad).__name__} ({bad!r:.60})")
    joined = "\n".join(names)
    if not joined.isascii() or "\0" in joined or joined.count("\n") != len(names) - 1:
        groups: dict[GroupKey, Rows] = {}
        for name in names:
            _add_split(groups, _SPLIT.split(name))
        return groups
    texts = joined.translate(_DIGITS_TO_NUL)
    while "\0\0" in texts:
        texts = texts.replace("\0\0", "\0")
    numbers = joined.translate(_NON_DIGITS_TO_SPACE).split()
    return _group(texts.split("\n") if names else [], numbers)


def _group(texts: list[str], numbers: list[str]) -> dict[GroupKey, Rows]:
    """Each name's text (runs as NULs) and, in order, all names' digit runs, grouped.

    A name with more than ``_MAX_DIMS`` runs is re-split the per-name way.
    """
    tables: dict[str, tuple[int, Rows]] = {}
    groups: dict[GroupKey, Rows] = {}
    at = 0
    for text in texts:
        entry = tables.get(text)
        if entry is None:
            entry = tables[text] = (text.count("\0"), {})
        width, rows = entry
        if width == 1:
            rows[numbers[at]] = _NO_ROWS
        elif width == 2:
            sub = rows.get(numbers[at])
            if sub is None:
                sub = rows[numbers[at]] = {}
            sub[numbers[at + 1]] = _NO_ROWS
        elif width > _MAX_DIMS:
            name = "".join(t + r for t, r in zip(text.split("\0"), [*numbers[at:at + width], ""],
                                                   strict=True))
            _add_split(groups, _SPLIT.split(name))
        elif width:
            _add_row(rows, numbers[at:at + width])
        at += width
    for text, (width, rows) in tables.items():
        if width <= _MAX_DIMS:
            groups[tuple(text.split("\0"))] = rows
    return groups


def _add_row(rows: Rows, runs: Sequence[str]) -> None:
    for run in runs[:-1]:
        sub = rows.get(run)
        if sub is None:
            sub = rows[run] = {}
        rows = sub
    rows[runs[-1]] = _NO_ROWS


def _add_split(groups: dict[GroupKey, Rows], parts: list[str]) -> None:
    """Add one name split at its digit runs, those past ``_MAX_DIMS`` kept in its last text."""
    limit = 2 * _MAX_DIMS + 1
    if len(parts) > limit:
        parts[limit - 1:] = ["".join(parts[limit - 1:])]
    runs = parts[1::2]
    rows = groups.setdefault(tuple(parts[0::2]), {})
    if runs:
        _add_row(rows, runs)


Factored = frozenset[tuple[frozenset[str], "Factored"]]
"""A set of rows as a union of disjoint products: (values of one run, the rest) pairs."""

_END: Factored = frozenset()


def _factor(rows: Rows, width: int) -> Factored:
    """Rows of ``width`` runs as disjoint products, grouping values by the rows that follow.

    Values of the first run followed by the same set of rests share one
    product, so a full grid is one product and a grid with holes a few. The
    result is canonical: equal sets of rows give equal values.
    """
    if width == 0:
        return _END
    if width == 1:
        return frozenset({(frozenset(rows), _END)})
    by_rest: dict[Factored, list[str]] = {}
    for value, sub in rows.items():
        by_rest.setdefault(_factor(sub, width - 1), []).append(value)
    return frozenset((frozenset(values), rest) for rest, values in by_rest.items())


Token = str | frozenset[str]
"""A step in the trie: literal text (a word, a run of dots, or one other character) or a
set of digit runs."""


class _Node:
    """A trie node over tokens; ``atoms`` is its rendering once computed, last atom first."""

    __slots__ = ("atoms", "children", "end")

    def __init__(self) -> None:
        self.children: dict[Token, _Node] = {}
        self.end = False
        self.atoms: list[str] = []

    def child(self, token: Token) -> _Node:
        node = self.children.get(token)
        if node is None:
            node = self.children[token] = _Node()
        return node


def _insert(node: _Node, segments: list[list[str]], factored: Factored, dim: int) -> None:
    """Add the products of one skeleton: its text segments between sets of numbers."""
    for token in segments[dim]:
        node = node.child(token)
    if dim == len(segments) - 1:
        node.end = True
        return
    for numbers, rest in factored:
        _insert(node.child(numbers), segments, rest, dim + 1)


def _render(root: _Node, compact: bool) -> str:
    """The trie as one pattern, children before parents, without recursion."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children.values())
    for node in reversed(order):
        node.atoms = _render_node(node, compact)
    return "".join(reversed(root.atoms))


def _render_node(node: _Node, compact: bool) -> list[str]:
    """A node's atoms (last first): its children grouped by equal renderings, one alternative
    each, and the alternatives' common suffix factored out."""
    if len(node.children) == 1 and not node.end:
        ((token, child),) = node.children.items()
        atoms = child.atoms
        atoms.append(_head([token], compact)[1])
        return atoms
    by_rest: dict[tuple[str, ...], list[Token]] = {}
    for token, child in node.children.items():
        by_rest.setdefault(tuple(child.atoms), []).append(token)
    alternatives: list[tuple[NaturalKey, str, list[str]]] = [((), "", [])] if node.end else []
    for rest, tokens in by_rest.items():
        key, head = _head(tokens, compact)
        atoms = [*rest, head]
        alternatives.append((key, "".join(reversed(atoms)), atoms))
    if len(alternatives) == 1:
        return alternatives[0][2]
    alternatives.sort(key=lambda alternative: alternative[:2])
    shared = _common_suffix([atoms for _, _, atoms in alternatives])
    body = ",".join("".join(reversed(atoms[shared:])) for _, _, atoms in alternatives)
    return [*alternatives[0][2][:shared], "{" + body + "}"]


def _common_suffix(lists: list[list[str]]) -> int:
    """How many last atoms all alternatives share (lists hold atoms last first), cut back to
    start at a separator such as ``.`` or ``_``: ``{a.x,b.y}.weight``, not ``{lm_,model.}head``.
    """
    first, shared = lists[0], min(map(len, lists))
    for i in range(shared):
        if any(other[i] != first[i] for other in lists):
            shared = i
            break
    while shared and not _is_separator(first[shared - 1]):
        shared -= 1
    return shared


def _is_separator(atom: str) -> bool:
    return not atom[-1].isalnum() and atom[-1] != "}"


def _head(tokens: list[Token], compact: bool) -> tuple[NaturalKey, str]:
    """Tokens that share what follows, as one atom: a word, a number, a range or a list."""
    items = [(natural_key(token), _ESCAPE.sub(r"\\\g<0>", token), False)
             for token in tokens if isinstance(token, str)]
    numbers = [token for token in tokens if not isinstance(token, str)]
    if numbers:
        items.extend(_number_items(frozenset().union(*numbers)))
    items.sort()
    if len(items) == 1:
        _, text, is_range = items[0]
        return items[0][0], "{" + text + "}" if is_range else text
    texts = [text if compact or not is_range else "{" + text + "}" for _, text, is_range in items]
    return items[0][0], "{" + ",".join(texts) + "}"


def _number_items(numbers: frozenset[str]) -> list[tuple[NaturalKey, str, bool]]:
    """Digit runs as list items: runs of 3+ consecutive canonical numbers become ranges."""
    values, items = [], []
    for run in numbers:
        if len(run) <= _MAX_RANGE_DIGITS and (run[0] != "0" or run == "0"):
            values.append(int(run))
        else:
            items.append((natural_key(run), run, False))
    values.sort()
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[i - 1] + 1:
            low, high = values[start], values[i - 1]
            if high - low >= 2:
                items.append((natural_key(str(low)), f"{low}..{high}", True))
            else:
                items.extend((natural_key(str(v)), str(v), False) for v in values[start:i])
            start = i
    return items


# ---------------------------------------------------------------------------------------------
# expand


def expand(pattern: str, *, ranges_in_lists: bool = False) -> list[str]:
    """The words bash's brace expansion makes of ``pattern``, in bash's order.

    ``{M..N}`` and ``{M..N..STEP}`` count up or down (bash pads them all to one
    width when a bound is written with a leading zero), ``{a,b}`` lists nest,
    ``\\x`` is the character ``x``. With ``ranges_in_lists=True``, a list item
    that is a whole range (``{0..2,5}``) counts too, as :func:`fold` writes it
    with that setting.

    Stricter than bash, which leaves what it cannot expand as literal text:
    an unmatched brace, ``{a}`` or ``{}`` (no comma and not a range), ``${``,
    a range bound past 64 bits or a trailing lone backslash raise
    ``ValueError`` naming the position. When ``expand`` does not raise, bash
    (``printf '%s\\n' PATTERN``) prints the same words, for patterns free of
    shell quoting characters.

    >>> expand("a{b,c{1..3}}d")
    ['abd', 'ac1d', 'ac2d', 'ac3d']
    >>> expand("{5..1..2}.{07..09}")
    ['5.07', '5.08', '5.09', '3.07', '3.08', '3.09', '1.07', '1.08', '1.09']
    >>> expand("lm_head,x\\\\{a\\\\}")
    ['lm_head,x{a}']
    >>> expand("model.{a}")
    Traceback (most recent call last):
    ...
    ValueError: bad brace pattern 'model.{a}': the group '{a}' at 6 has no comma and is not a \
range (escape literal braces as \\{ and \\})
    """
    return _scan(pattern, _Words(), ranges_in_lists)


def count(pattern: str, *, ranges_in_lists: bool = False) -> int:
    """How many words ``expand(pattern)`` makes (repeats counted), without making them.

    >>> count("{a,b}{0..9}{,x}"), count("x.{0..999999999999}")
    (40, 1000000000000)
    """
    return _scan(pattern, _Count(), ranges_in_lists)


V = TypeVar("V")


class _Algebra(Generic[V]):
    """What a pattern's parts evaluate to: its words, or how many there are."""

    def unit(self) -> V:
        raise NotImplementedError

    def text(self, text: str) -> V:
        raise NotImplementedError

    def span(self, values: range, width: int) -> V:
        raise NotImplementedError

    def join(self, left: V, right: V) -> V:
        raise NotImplementedError

    def union(self, parts: list[V]) -> V:
        raise NotImplementedError


class _Words(_Algebra[list[str]]):
    def unit(self) -> list[str]:
        return [""]

    def text(self, text: str) -> list[str]:
        return [text]

    def span(self, values: range, width: int) -> list[str]:
        return [f"{v:0{width}d}" for v in values] if width else [str(v) for v in values]

    def join(self, left: list[str], right: list[str]) -> list[str]:
        if len(right) == 1:
            tail = right[0]
            return [word + tail for word in left] if tail else left
        return [word + other for word in left for other in right]

    def union(self, parts: list[list[str]]) -> list[str]:
        return [word for part in parts for word in part]


class _Count(_Algebra[int]):
    def unit(self) -> int:
        return 1

    def text(self, text: str) -> int:
        return 1

    def span(self, values: range, width: int) -> int:
        return len(values)

    def join(self, left: int, right: int) -> int:
        return left * right

    def union(self, parts: list[int]) -> int:
        return sum(parts)


class _Group(Generic[V]):
    """An open brace group while scanning: what came before it, and its items so far."""

    __slots__ = ("before", "item_start", "items", "start")

    def __init__(self, before: V, start: int) -> None:
        self.before = before
        self.start = start
        self.item_start = start + 1
        self.items: list[V] = []


def _scan(pattern: str, algebra: _Algebra[V], compact: bool) -> V:
    """Evaluate ``pattern`` left to right with a stack of open groups (no recursion)."""
    if not isinstance(pattern, str):
        raise TypeError(f"a brace pattern is a str, found {type(pattern).__name__}")
    stack: list[_Group[V]] = []
    value, text = algebra.unit(), []
    at = 0
    for match in _SYNTAX.finditer(pattern):
        i, token = match.start(), match.group()
        text.append(pattern[at:i])
        at = match.end()
        if token[0] == "\\":
            if len(token) == 1:
                raise _bad(pattern, i, "a lone backslash ends it (write \\\\ for one)")
            text.append(token[1])
            continue
        if token == "$":
            raise _bad(pattern, i, "bash reads '${' as a variable; escape it as \\$")
        if token == "," and not stack:
            text.append(token)
            continue
        if any(text):
            value = algebra.join(value, algebra.text("".join(text)))
        text = []
        if token == "{":
            stack.append(_Group(value, i))
            value = algebra.unit()
            continue
        if not stack:
            raise _bad(pattern, i, "this '}' closes no group (escape a literal one as \\})")
        group = stack[-1]
        item = _item(pattern, group.item_start, i, algebra, compact)
        item = value if item is None else item
        if token == ",":
            group.items.append(item)
            group.item_start, value = i + 1, algebra.unit()
        else:
            value = algebra.join(stack.pop().before, _close(pattern, group, item, i, algebra))
    if stack:
        raise _bad(pattern, stack[-1].start, "this '{' is never closed (escape a literal one "
                   "as \\{)")
    text.append(pattern[at:])
    return algebra.join(value, algebra.text("".join(text))) if any(text) else value


def _item(pattern: str, start: int, stop: int, algebra: _Algebra[V], compact: bool) -> V | None:
    """A list item that is a whole range, when ranges in lists are read; else None."""
    if not compact:
        return None
    match = _RANGE.fullmatch(pattern, start, stop)
    return None if match is None else _span(pattern, start, match, algebra)


def _close(pattern: str, group: _Group[V], last: V, stop: int, algebra: _Algebra[V]) -> V:
    """The value of a group at its ``}``: a union of its items, or a range."""
    if group.items:
        return algebra.union([*group.items, last])
    match = _RANGE.fullmatch(pattern, group.start + 1, stop)
    if match is None:
        raise _bad(pattern, group.start, f"the group {pattern[group.start:stop + 1]!r} at "
                   f"{group.start} has no comma and is not a range (escape literal braces as "
                   "\\{ and \\})", say_position=False)
    return _span(pattern, group.start, match, algebra)


def _span(pattern: str, at: int, match: re.Match[str], algebra: _Algebra[V]) -> V:
    """A range's words, as bash makes them: stepping by |STEP|, padded when a bound is."""
    first, last, step = match.group(1), match.group(2), match.group(3) or "1"
    for bound in (first, last, step):
        if len(bound.lstrip("+-0")) > 19 or abs(int(bound)) > _BASH_MAX:
            raise _bad(pattern, at, f"the range bound {bound[:30]} is past bash's 64-bit "
                       "integers")
    low, high, by = int(first), int(last), abs(int(step)) or 1
    values = range(low, high + 1, by) if low <= high else range(low, high - 1, -by)
    padded = any(b.lstrip("+-").startswith("0") and len(b.lstrip("+-")) > 1
                 for b in (first, last))
    return algebra.span(values, max(len(first), len(last)) if padded else 0)


def _bad(pattern: str, position: int, why: str, *, say_position: bool = True) -> ValueError:
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    where = f" at character {position}" if say_position else ""
    return ValueError(f"bad brace pattern {shown!r}{where}: {why}")
