"""The page around a report's sections: one self-contained HTML file, or a fragment.

A page holds its style, its data (:func:`metaplan.views.html.data.data_script`)
and its script inline and fetches nothing: it reads from ``file://``, a CI
artifact server or a mail attachment, and with no script or style at all
(under ``Content-Security-Policy: sandbox; default-src 'none'``). A
fragment (for notebooks) has the style and no script or data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metaplan.version import __version__
from metaplan.views.html.assets import SCRIPT, STYLE
from metaplan.views.html.data import DATA_ID, data_script
from metaplan.views.html.markup import element, text

__all__ = ["FRAGMENT_STYLE", "controls", "html_fragment", "html_page"]

FRAGMENT_STYLE = """
.metaplan-view details{margin:.15rem 0}.metaplan-view summary{cursor:pointer}
.metaplan-view .pattern{font-weight:600;overflow-wrap:anywhere}
.metaplan-view .count{opacity:.75;margin:0 .4rem}.metaplan-view .change{opacity:.8}
.metaplan-view table{border-collapse:collapse}.metaplan-view td,.metaplan-view th{
padding:.1rem .5rem;text-align:left;vertical-align:top}
"""


def controls(filters: Sequence[str], *, show_unchanged: bool = False) -> str:
    """The search box and filters (and the "show unchanged" box); ``hidden`` until the script
    shows them."""
    selects = "".join(
        f'<label>{text(name)} <select name="{text(name)}"><option value="">any</option>'
        "</select></label>" for name in filters)
    if show_unchanged:
        selects += ('<label><input type="checkbox" id="show-unchanged"> show unchanged'
                    "</label>")
    return (
        '<form id="controls" role="search" hidden>'
        '<input id="q" type="search" placeholder="Search: an FQN, a glob (model.layers.*.mlp)'
        ' or a brace pattern (model.layers.{3..5}.mlp), then Enter" aria-label="search modules">'
        f'{selects}<button type="button" id="expand">open / close all</button>'
        '<span id="status" aria-live="polite"></span>'
        '<span class="sub">keys: <kbd>/</kbd> search, <kbd>j</kbd> <kbd>k</kbd> next and '
        "previous group, <kbd>o</kbd> open or close, <kbd>Esc</kbd> clear</span></form>")


def html_page(title: str, body: str, data: dict[str, Any], *,
              filters: Sequence[str] = ("op", "field", "key"),
              show_unchanged: bool = False) -> str:
    """A whole report: ``body`` (markup) under a heading, with the style, ``data`` and the
    script inline; ``show_unchanged``: a box that shows the ``#unchanged`` section."""
    about = (f"Made by metaplan {text(__version__)}. This file is self-contained and fetches "
             "nothing; it reads without script or style. Its data (the groups, and the records "
             f'when they fit) is the JSON in the element <code>script#{DATA_ID}</code>, format '
             f"<code>{text(str(data.get('format', '')))}</code>: "
             "<code>metaplan.views.html.read_report_data</code> reads it back.")
    return ("<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="metaplan {text(__version__)}">\n'
            f"<title>{text(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"<header>{element('h1', title)}</header>\n"
            f"{controls(filters, show_unchanged=show_unchanged)}\n<main>\n{body}</main>\n"
            f"<footer><p>{about}</p></footer>\n"
            f"{data_script(data)}\n<script>{SCRIPT}</script>\n</body>\n</html>\n")


def html_fragment(title: str, body: str) -> str:
    """A report's content for a notebook cell: no script, no data, one small style."""
    return (f'<div class="metaplan-view"><style>{FRAGMENT_STYLE}</style>'
            f"<strong>{text(title)}</strong>{body}</div>")
