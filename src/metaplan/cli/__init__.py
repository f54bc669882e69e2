"""The ``metaplan`` command; see :func:`main` and ``metaplan --help``."""

from metaplan.cli._main import console, main

__all__ = ["console", "main"]
