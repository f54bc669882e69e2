"""The ``metaplan`` command; see :func:`main` and ``metaplan --help``."""

from metaplan.cli._main import main

__all__ = ["main"]
