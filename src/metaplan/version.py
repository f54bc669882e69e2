"""The version of metaplan (a module of its own, so the command line reads it cheaply)."""

__all__ = ["__version__"]

__version__ = "0.3.0"
