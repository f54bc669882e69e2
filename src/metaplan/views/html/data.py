"""The data a report carries: one ``<script type="application/json" id="metaplan-data">``.

The element holds one JSON object, ``{"format": "metaplan.report/1", ...}``
(:data:`DATA_FORMAT`), written with ``<``, ``>`` and ``&`` as ``\\u003c``,
``\\u003e``, ``\\u0026`` (so no module name can end the element) and every
non-ASCII character as a ``\\u`` escape. Its keys:

- ``report``: ``"diff"``, ``"run"``, ``"verify"`` or ``"merge"``; ``title``
  and ``summary``: the page's heading and first line;
- ``sections``: ``[{"id", "title", "groups": [GROUP-ID, ...]}]`` in page order;
- ``groups``: ``{GROUP-ID: GROUP}``, each as ``--format groups`` writes a
  group (:func:`metaplan.versions.folding.group_to_json`: ``modules`` or ``paths`` or
  ``items``, ``count``, ``changes``) plus ``members`` (every module or item
  name, in order; absent past the report's size budget, with
  ``members_omitted``: how many) and, where the report has them, ``why``
  (the reasons, folded), ``pass`` and ``steps`` (a module history);
- ``records``: the change records as ``metaplan diff --format json`` writes
  them, when they fit the budget; else ``null`` and ``records_omitted``
  saying why;
- per report: ``passes`` (run), ``conflicts`` (merge), ``violations`` and
  ``notes`` (verify), ``unchanged`` (diff, given both plans: ``{"count",
  "groups": {GROUP-ID: {"modules", "count", "class", "is_boundary",
  "members"}}}``, the modules no change touches, folded by class and
  ``is_boundary``; ``members_omitted`` past the budget).

:func:`read_report_data` reads it back from a report's text.

>>> page = "<p>" + data_script({"format": DATA_FORMAT, "name": "</script><b>&"}) + "</p>"
>>> "</script><b>" in page.split("metaplan-data")[1].split("</script>")[0]
False
>>> read_report_data(page)["name"]
'</script><b>&'
"""

from __future__ import annotations

import json
import re
from typing import Any

from metaplan.errors import InputError

__all__ = ["DATA_FORMAT", "DATA_ID", "data_script", "read_report_data"]

DATA_FORMAT = "metaplan.report/1"
"""The ``format`` of a report's embedded data; a reader refuses any other."""

DATA_ID = "metaplan-data"
"""The id of the element that holds it."""

_OPEN = f'<script type="application/json" id="{DATA_ID}">'
_FOUND = re.compile(re.escape(_OPEN) + r"(.*?)</script>", re.DOTALL)


def data_script(data: dict[str, Any]) -> str:
    """The element holding ``data`` as JSON, safe inside any HTML page."""
    body = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    body = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"{_OPEN}{body}</script>"


def read_report_data(page: str | bytes, *, source: str = "<report>") -> dict[str, Any]:
    """The data a metaplan HTML report embeds (see the module's docs for its keys).

    Raises :class:`~metaplan.errors.InputError` when ``page`` has no such
    element, or its data is not this format.
    """
    found = _FOUND.search(page.decode("utf-8", "replace") if isinstance(page, bytes) else page)
    if found is None:
        raise InputError(f"{source}: no metaplan report data (a <script "
                         f'type="application/json" id="{DATA_ID}"> element): is this a '
                         "metaplan HTML report?", source=source)
    try:
        data = json.loads(found.group(1))
    except ValueError as exc:
        raise InputError(f"{source}: the report's data is not JSON: {exc}", source=source) from exc
    if not isinstance(data, dict) or data.get("format") != DATA_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise InputError(f"{source}: report data of format {got!r}; expected {DATA_FORMAT!r}",
                         source=source)
    return data
