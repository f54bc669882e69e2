"""Notebook views of metaplan's results: the one hook their ``_repr_mimebundle_`` calls.

``Plan``, ``ChangeRecord``, ``Trace``, ``MergeResult`` and ``Verification``
each have a ``_repr_mimebundle_`` that calls :func:`notebook_view`, which
imports the renderer (:mod:`metaplan.views.html.notebook`, in the views layer)
only when a notebook asks for a view: the core types import nothing for it,
and their equality, hashing and speed are untouched. This is the one call
from a lower layer up to a higher one, and it is made by name at call time.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

__all__ = ["notebook_view"]


def notebook_view(value: object, include: Iterable[str] | None = None,
                  exclude: Iterable[str] | None = None) -> dict[str, Any]:
    """``{"text/plain", "text/html", "application/json"}`` for ``value`` (see
    :func:`metaplan.views.html.notebook.mimebundle`), limited by IPython's ``include`` and
    ``exclude``."""
    renderer = importlib.import_module("metaplan.views.html.notebook")
    bundle: dict[str, Any] = renderer.mimebundle(value, include, exclude)
    return bundle
