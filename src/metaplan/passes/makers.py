"""Making passes: base classes and decorators, with settings and contracts.

Write a pass as a function that makes changes through an
:class:`~metaplan.records.edit.Edit` (:func:`edit_pass`), or one that lists
:class:`~metaplan.records.change.Change` s (:func:`changes_pass`). Keyword-only
parameters are the pass's settings: the decorated function is the pass
with its defaults, and calling it with settings gives another pass, equal
and hashable by its settings, as the built-in passes are:

>>> from metaplan.core.plan import Plan
>>> @edit_pass("cap_ep_size", ensures=("schema",))
... def cap(edit, *, limit: int = 8):
...     for fqn, entry in edit.plan.index("param_plan").items():
...         if entry.get("ep_size", 0) > limit:
...             edit.set(("param_plan", fqn, "ep_size"), limit, f"capped at {limit}")
>>> cap(limit=4), cap(limit=8) == cap, hash(cap(limit=4)) == hash(cap(limit=4))
(cap_ep_size(limit=4), True, True)
>>> plan = Plan.from_json({"param_plan": {"m": {"ep_size": 16}}})
>>> cap(limit=4)(plan).plan.param_plan["m"]["ep_size"], cap(plan).plan.param_plan["m"]["ep_size"]
(4, 8)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, overload

from metaplan.core.invariants import CHECKS, parse_checks
from metaplan.core.plan import Plan
from metaplan.names import closest
from metaplan.passes.steps import Contract, PassResult, as_names, bound_to, continue_chain
from metaplan.records.change import Change, ChangeRecord
from metaplan.records.edit import Edit

__all__ = ["ChangesPass", "EditPass", "FunctionPass", "changes_pass", "contract_of",
           "edit_pass", "keeping"]


class EditPass:
    """Base for passes that make their changes through an :class:`~metaplan.records.edit.Edit`.

    A subclass sets ``name``, implements :meth:`edit`, and may declare its
    :class:`~metaplan.passes.steps.Contract` as ``contract``.
    """

    name: ClassVar[str] = "pass"
    contract: ClassVar[Contract] = Contract()

    def edit(self, edit: Edit) -> None:
        """Make this pass's changes to ``edit.plan`` through ``edit``, in a fixed order."""
        raise NotImplementedError

    def __call__(self, arg: Plan | PassResult, /) -> PassResult:
        step = bound_to(self, arg)
        return continue_chain(step, arg, step.run_on)

    def run_on(self, plan: Plan) -> tuple[Plan, ChangeRecord]:
        """This pass's plan and record for ``plan`` (no chain)."""
        edit = Edit(plan)
        self.edit(edit)
        return edit.finish(self.name)


class ChangesPass(EditPass):
    """Base for passes that list their changes; each is checked as it is made."""

    def changes(self, plan: Plan) -> Iterable[Change]:
        """The changes this pass makes to ``plan``, in a deterministic order."""
        raise NotImplementedError

    def edit(self, edit: Edit) -> None:
        for change in self.changes(edit.plan):
            edit.apply(change)


Bindings = tuple[tuple[str, Any], ...]
"""A pass's keyword settings as ``(name, value)`` pairs, in the function's order."""
_NO_CONTRACT = Contract()


@dataclass(frozen=True, repr=False)
class FunctionPass:
    """A pass made of a function by :func:`edit_pass` or :func:`changes_pass`.

    Called with a plan (or the result of the pass before), it runs; called
    with keyword settings only, it is the same pass with those settings.
    """

    name: str
    function: Callable[..., Any]
    lists_changes: bool
    settings: Bindings
    contract: Contract = _NO_CONTRACT

    @overload
    def __call__(self, arg: Plan | PassResult, /) -> PassResult: ...

    @overload
    def __call__(self, arg: None = None, /, **settings: Any) -> FunctionPass: ...

    def __call__(self, arg: Plan | PassResult | None = None, /,
                 **settings: Any) -> PassResult | FunctionPass:
        if arg is None:
            return self._with(settings)
        if settings:
            raise TypeError(f"{self.name}: give settings first, then the plan: "
                            f"{self.name}(**settings)(plan)")
        return continue_chain(self, arg, self.run_on)

    def run_on(self, plan: Plan) -> tuple[Plan, ChangeRecord]:
        """This pass's plan and record for ``plan`` (no chain)."""
        edit = Edit(plan)
        kwargs = self._complete()
        if self.lists_changes:
            for change in self.function(plan, **kwargs):
                edit.apply(change)
        else:
            self.function(edit, **kwargs)
        return edit.finish(self.name)

    def _with(self, settings: dict[str, Any]) -> FunctionPass:
        known = _setting_names(self.function)
        for key in settings:
            if key not in known:
                hint = closest(key, known)
                raise TypeError(f"{self.name} has no setting {key!r}"
                                + (f" (did you mean {hint}?)" if hint else "")
                                + f"; its settings: {', '.join(known) or 'none'}")
        merged = {**dict(self.settings), **settings}
        ordered = tuple((key, merged[key]) for key in known if key in merged)
        return FunctionPass(self.name, self.function, self.lists_changes, ordered,
                            self.contract)

    def _complete(self) -> dict[str, Any]:
        kwargs = dict(self.settings)
        missing = [key for key in _setting_names(self.function) if key not in kwargs]
        if missing:
            raise TypeError(f"pass {self.name} needs its settings: "
                            f"{self.name}({', '.join(f'{key}=...' for key in missing)})(plan)")
        return kwargs

    def __repr__(self) -> str:
        if not _setting_names(self.function):
            maker = "changes_pass" if self.lists_changes else "edit_pass"
            return f"{maker}({self.name!r})"
        shown = ", ".join(f"{key}={value!r}" for key, value in self.settings)
        return f"{self.name}({shown})"


def _setting_names(function: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(name for name, parameter in inspect.signature(function).parameters.items()
                 if parameter.kind is inspect.Parameter.KEYWORD_ONLY)


def _defaults(function: Callable[..., Any]) -> Bindings:
    return tuple((name, parameter.default)
                 for name, parameter in inspect.signature(function).parameters.items()
                 if parameter.kind is inspect.Parameter.KEYWORD_ONLY
                 and parameter.default is not inspect.Parameter.empty)


def _contract(requires: str | Iterable[str], ensures: str | Iterable[str],
              preserves: str | Iterable[str], maker: str) -> Contract:
    return Contract(*(parse_checks(as_names(checks), where=f"{maker}({clause}=...)")
                      if as_names(checks) else ()
                      for clause, checks in (("requires", requires), ("ensures", ensures),
                                             ("preserves", preserves))))


def _maker(name: object, lists_changes: bool, contract: Contract,
           ) -> Callable[[Callable[..., Any]], FunctionPass]:
    maker = "changes_pass" if lists_changes else "edit_pass"
    if not isinstance(name, str):
        raise TypeError(f"{maker} takes the pass's name first: @{maker}('my_pass')")

    def wrap(function: Callable[..., Any]) -> FunctionPass:
        return FunctionPass(name, function, lists_changes, _defaults(function), contract)
    return wrap


def edit_pass(name: str, *, requires: str | Iterable[str] = (),
              ensures: str | Iterable[str] = (), preserves: str | Iterable[str] = (),
              ) -> Callable[[Callable[..., None]], FunctionPass]:
    """Turn ``function(edit, *, settings...)`` into a pass named ``name``.

    The function makes its changes through the :class:`~metaplan.records.edit.Edit`
    it is given. ``requires`` / ``ensures`` / ``preserves`` name the
    :func:`~metaplan.core.invariants.verify` checks of its contract.
    """
    return _maker(name, False, _contract(requires, ensures, preserves, "edit_pass"))


def changes_pass(name: str, *, requires: str | Iterable[str] = (),
                 ensures: str | Iterable[str] = (), preserves: str | Iterable[str] = (),
                 ) -> Callable[[Callable[..., Iterable[Change]]], FunctionPass]:
    """Turn ``function(plan, *, settings...) -> iterable of Change`` into a pass named ``name``.

    Each change is checked as it is made; the contract is as for :func:`edit_pass`.
    """
    return _maker(name, True, _contract(requires, ensures, preserves, "changes_pass"))


def keeping(ensures: tuple[str, ...] = ()) -> Contract:
    """The contract of a pass that ``ensures`` these checks and preserves every other one.

    >>> keeping(("shared-class",)).ensures, "shared-class" in keeping().preserves
    (('shared-class',), True)
    """
    return Contract((), ensures, tuple(name for name in CHECKS if name not in ensures))


def contract_of(step: Any) -> Contract:
    """The contract a pass declares (an empty one when it declares none)."""
    contract = getattr(step, "contract", None)
    return contract if isinstance(contract, Contract) else Contract()
