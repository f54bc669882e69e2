"""How a command's text shows values: ``--width``, and the plans' injections by name."""

from __future__ import annotations

import argparse

from metaplan.core.plan import Plan
from metaplan.views.labels import TextStyle, injection_matches

__all__ = ["text_style"]


def text_style(args: argparse.Namespace, *plans: Plan) -> TextStyle:
    """How text shows values (``--width``) and names the plans' injections (by ``match``)."""
    return TextStyle(getattr(args, "width", None), injection_matches(*plans))
