"""A picture of the plan: an SVG grid of an MoE plan's modules, coloured by what changed.

Layers run down, sub-modules and experts across; each cell is a module (an
expert's own sub-modules are its cell) coloured added, removed, changed or
untouched. Runs of experts alike in a row are one rectangle, so a 61 x 256
grid is a few hundred elements. Colours are ``fill`` attributes, not styles,
so the picture shows under a policy that blocks every style. A plan without
numbered layers gets no picture, and a sentence saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from metaplan.algorithms.braces import natural_key
from metaplan.core.plan import Plan
from metaplan.paths import FQN_MAPS
from metaplan.records.change import Change
from metaplan.views.html.markup import text
from metaplan.views.text import plural

__all__ = ["COLOURS", "NO_PICTURE", "STATES", "Cell", "grid_cells", "module_states",
           "picture_html"]

STATES = ("added", "removed", "changed", "untouched")
COLOURS = {"added": "#2da44e", "removed": "#cf222e", "changed": "#d4a72c",
           "untouched": "#afb8c1"}
_LAYER = re.compile(r"^(.*?\blayers)\.(\d+)(?:\.(.+))?$")
_EXPERT = re.compile(r"^(.*?experts)\.(\d+)(?:\..*)?$")
_NAMED_MAX = 16
NO_PICTURE = ("<p>No picture: the plan has no numbered structure (no "
              "<code>layers.N</code> modules) to draw.</p>")
"""What :func:`picture_html` says of a plan without numbered layers."""
_ROW, _GAP, _NAMED_W, _TOP, _LEFT = 6, 1, 14, 80, 48


class Cell(NamedTuple):
    """Where a module is drawn: its layer, its column (a sub-module or an expert block) and
    its expert number (-1: a named column)."""

    layer: int
    column: str
    expert: int


def module_states(before: Plan, after: Plan, changes: Iterable[Change]) -> dict[str, str]:
    """Every module of either plan -> ``added``, ``removed``, ``changed`` (``changes`` touch
    it) or ``untouched``."""
    was = {fqn for field in FQN_MAPS if field in before for fqn in before.index(field)}
    now = {fqn for field in FQN_MAPS if field in after for fqn in after.index(field)}
    touched = {str(c.path[1]) for c in changes
               if len(c.path) >= 2 and c.path[0] in FQN_MAPS}
    states = {}
    for fqn in was | now:
        states[fqn] = ("added" if fqn not in was else "removed" if fqn not in now
                       else "changed" if fqn in touched else "untouched")
    return states


def grid_cells(names: Iterable[str]) -> dict[str, Cell]:
    """The cell of each module in numbered layers (others are left out)."""
    cells = {}
    for name in names:
        found = _LAYER.match(name)
        if found is None:
            continue
        layer, rest = int(found.group(2)), found.group(3) or "(layer)"
        expert = _EXPERT.match(rest)
        cells[name] = (Cell(layer, expert.group(1), int(expert.group(2))) if expert
                       else Cell(layer, rest, -1))
    named = {cell.column for cell in cells.values() if cell.expert < 0}
    if len(named) > _NAMED_MAX:  # too many to read: one column per first component
        cells = {name: cell._replace(column=cell.column.split(".")[0]) if cell.expert < 0
                 else cell for name, cell in cells.items()}
    return cells


def _merged(states: Iterable[str]) -> str:
    found = set(states)
    return found.pop() if len(found) == 1 else "changed"


def picture_html(before: Plan, after: Plan, changes: Iterable[Change]) -> str:
    """The picture of ``changes`` made to ``before`` (giving ``after``) and its legend, or a
    sentence saying the plan has no numbered layers."""
    states = module_states(before, after, changes)
    cells = grid_cells(states)
    layers = sorted({cell.layer for cell in cells.values()})
    if len(layers) < 2:
        return NO_PICTURE
    by_cell: dict[Cell, list[str]] = {}
    for name, cell in cells.items():
        by_cell.setdefault(cell, []).append(states[name])
    svg = _svg(layers, {cell: _merged(found) for cell, found in by_cell.items()})
    counts = {state: 0 for state in STATES}
    for state in states.values():
        counts[state] += 1
    legend = "".join(
        f'<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" '
        f'fill="{COLOURS[state]}"/></svg> {state}: {plural(counts[state], "module")}</li>'
        for state in STATES)
    outside = len(states) - len(cells)
    return (f'<div class="picture">{svg}</div><ul class="legend">{legend}</ul>'
            f'<p class="sub">{len(layers)} layers down; sub-modules, then experts, across; '
            "an expert's own sub-modules are its cell (mixed: changed)"
            + (f"; {plural(outside, 'module')} outside the numbered layers not drawn"
               if outside else "") + ".</p>")


def _columns(cells: Iterable[Cell]) -> tuple[list[str], list[tuple[str, int]]]:
    named = sorted({c.column for c in cells if c.expert < 0},
                   key=lambda column: (column != "(layer)", natural_key(column)))
    experts = sorted({(c.column, c.expert) for c in cells if c.expert >= 0},
                     key=lambda key: (natural_key(key[0]), key[1]))
    return named, experts


def _svg(layers: list[int], cells: Mapping[Cell, str]) -> str:
    named, experts = _columns(cells)
    width_e = 3 if len(experts) > 128 else 6
    x_named = {column: _LEFT + i * (_NAMED_W + 2) for i, column in enumerate(named)}
    start = _LEFT + len(named) * (_NAMED_W + 2) + (10 if named else 0)
    x_expert = {key: start + i * width_e for i, key in enumerate(experts)}
    width = start + len(experts) * width_e + 10
    height = _TOP + len(layers) * (_ROW + _GAP) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" aria-label="modules by layer, '
           'coloured by what changed">']
    for column, x in x_named.items():
        out.append(f'<text x="{x + 8}" y="{_TOP - 4}" transform="rotate(-60 {x + 8} {_TOP - 4})"'
                   f">{text(column)}</text>")
    blocks: dict[str, list[int]] = {}
    for block, number in experts:
        blocks.setdefault(block, []).append(number)
    for block, numbers in blocks.items():
        x = x_expert[(block, numbers[0])]
        out.append(f'<text x="{x}" y="{_TOP - 6}">{text(block)} {numbers[0]}..{numbers[-1]}'
                   "</text>")
    for row, layer in enumerate(layers):
        y = _TOP + row * (_ROW + _GAP)
        if row % 5 == 0 or row == len(layers) - 1:
            out.append(f'<text x="{_LEFT - 4}" y="{y + _ROW}" text-anchor="end">{layer}</text>')
        for column, x in x_named.items():
            state = cells.get(Cell(layer, column, -1))
            if state is not None:
                out.append(_rect(x, y, _NAMED_W, state, f"layer {layer} {column}: {state}"))
        run: list[tuple[str, int]] = []
        for key in [*experts, ("", -1)]:  # a sentinel ends the last run
            state = cells.get(Cell(layer, key[0], key[1]), "") if key[1] >= 0 else "end"
            if run and (state != cells.get(Cell(layer, *run[0])) or key[0] != run[0][0]
                        or key[1] != run[-1][1] + 1):
                first, last = run[0], run[-1]
                found = cells[Cell(layer, *first)]
                span = f"{first[1]}" if first == last else f"{first[1]}..{last[1]}"
                out.append(_rect(x_expert[first], y, (last[1] - first[1] + 1) * width_e, found,
                                 f"layer {layer} {first[0]}.{span}: {found}"))
                run = []
            if state and state != "end":
                run.append(key)
    out.append("</svg>")
    return "".join(out)


def _rect(x: int, y: int, width: int, state: str, title: str) -> str:
    return (f'<rect x="{x}" y="{y}" width="{width}" height="{_ROW}" fill="{COLOURS[state]}">'
            f"<title>{text(title)}</title></rect>")
