"""The import paths of 0.3, kept working for one minor version: each old module path is a
deprecated alias of the module's new place in its layer's package, warning once.

``import metaplan.diff`` (or ``from metaplan.diff import array_changes``)
warns with a :class:`DeprecationWarning` naming the new path and gives an
alias whose attributes are the new module's. Where the old module was named
like a public function (``diff``, ``verify``, ``normalize``, ...), git-style
the import binds that name on the package: the alias is then callable as the
function, so ``metaplan.diff(a, b)`` still works after an old import.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from pathlib import Path
from typing import Any

__all__ = ["MOVED", "moved_warning", "spec_for"]

MOVED = {
    "metaplan.algebra": "metaplan.records.algebra",
    "metaplan.braces": "metaplan.algorithms.braces",
    "metaplan.change": "metaplan.records.change",
    "metaplan.compare": "metaplan.versions.comparing",
    "metaplan.compat": "metaplan.passes.compat",
    "metaplan.composing": "metaplan.testing.composing",
    "metaplan.diff": "metaplan.versions.diffing",
    "metaplan.digest": "metaplan.core.digest",
    "metaplan.edit": "metaplan.records.edit",
    "metaplan.emitter": "metaplan.core.emitter",
    "metaplan.fold": "metaplan.versions.folding",
    "metaplan.ignore": "metaplan.versions.ignoring",
    "metaplan.inputs": "metaplan.files.inputs",
    "metaplan.jsonio": "metaplan.files.jsonio",
    "metaplan.makers": "metaplan.passes.makers",
    "metaplan.merge": "metaplan.versions.merging",
    "metaplan.normalize": "metaplan.passes.normal_form",
    "metaplan.oracle": "metaplan.passes.oracle",
    "metaplan.outputs": "metaplan.files.outputs",
    "metaplan.passes.slim": "metaplan.passes.slimming",
    "metaplan.patch": "metaplan.records.patch",
    "metaplan.pipeline": "metaplan.passes.chaining",
    "metaplan.plan": "metaplan.core.plan",
    "metaplan.report": "metaplan.views.text",
    "metaplan.rules": "metaplan.core.rules",
    "metaplan.schema": "metaplan.core.shape",
    "metaplan.sequences": "metaplan.algorithms.sequences",
    "metaplan.steps": "metaplan.passes.steps",
    "metaplan.streaming": "metaplan.files.streaming",
    "metaplan.trace": "metaplan.passes.trace",
    "metaplan.verify": "metaplan.core.invariants",
}
"""Old module path -> where it lives now (``metaplan.records`` and ``metaplan.batch`` are
packages that still hold their old names; see :mod:`metaplan.records`)."""


def moved_warning(old: str, new: str) -> None:
    """Warn, pointing at the code that imported the old path or read the old name."""
    warnings.warn(f"{old} moved to {new}; use it from there ({old} goes in 0.5)",
                  DeprecationWarning, stacklevel=_caller_level())


_PACKAGE = str(Path(__file__).parent)


def _ours(code: types.CodeType) -> bool:
    """This module, or a module's ``__getattr__`` that forwards an old name."""
    return code.co_filename == __file__ or (
        code.co_name == "__getattr__" and code.co_filename.startswith(_PACKAGE))


def _caller_level() -> int:
    """The stack level of the first frame outside the import system and the aliases.

    ``warnings.warn`` does not count the import system's own frames in a
    stack level above 1, so neither does this.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and (_internal(frame.f_code.co_filename) or _ours(frame.f_code)):
        frame = frame.f_back  # type: ignore[assignment]
        if frame is not None and not _internal(frame.f_code.co_filename):
            level += 1
    return level


def _internal(filename: str) -> bool:
    """An import-system frame, as :mod:`warnings` tells them."""
    return "importlib" in filename and "_bootstrap" in filename


class _Alias(types.ModuleType):
    """An old module path: the new module's attributes; callable as the package's function
    of the same name, if there is one."""

    def __init__(self, old: str, target: types.ModuleType) -> None:
        super().__init__(old, target.__doc__)
        self.__dict__["_target"] = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_target"], name)

    def __dir__(self) -> list[str]:
        return dir(self.__dict__["_target"])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function = getattr(self.__dict__["_target"], self.__name__.rpartition(".")[2], None)
        if not callable(function):
            raise TypeError(f"module {self.__name__!r} is not callable")
        return function(*args, **kwargs)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        new = MOVED[spec.name]
        moved_warning(spec.name, new)
        return _Alias(spec.name, importlib.import_module(new))

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the alias forwards to the new module."""


_LOADER = _Loader()


def spec_for(name: str) -> importlib.machinery.ModuleSpec | None:
    """The spec of an old module path (None: not one), for the package's finder."""
    return importlib.machinery.ModuleSpec(name, _LOADER) if name in MOVED else None
