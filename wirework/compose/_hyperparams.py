"""A composite's hyperparameters: ``get_params`` and ``set_params``.

:class:`_ComposedParams` is the part of
:class:`~wirework.compose.composite.Composite` that reads and sets its
parameters, nested ones (``step__param``) included, checking every name
before changing anything; the functions after it check and set a component's
own parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sklearn.base import BaseEstimator

from wirework.errors import ParameterError, WireworkError
from wirework.graph._params import param_names
from wirework.graph.data import describe

if TYPE_CHECKING:
    from wirework.compose.composite import Composite

__all__ = ["is_estimator"]


def is_estimator(value: Any) -> bool:
    """Whether ``value`` is a model (has ``fit`` and ``get_params``), not a class."""
    return not isinstance(value, type) and hasattr(value, "fit") and hasattr(value, "get_params")


_PARAM_NAMES: dict[type, tuple[str, ...]] = {}


class _ComposedParams:
    """The parameters of a :class:`~wirework.compose.composite.Composite` (a base of it, and of nothing else)."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        names = _PARAM_NAMES.get(cls)
        if names is None:  # scikit-learn reads the signature on every get_params(): once per class here
            names = _PARAM_NAMES[cls] = tuple(super()._get_param_names())
        return list(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters by name, as scikit-learn's; ``deep=False`` without re-reading the signature."""
        if deep:
            return super().get_params(deep=True)
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params: Any) -> Composite:
        """Set parameters as scikit-learn does, checking every name before changing anything.

        ``name=value`` sets a parameter; ``name__key=value`` is passed to the
        component ``name`` (the new one when the same call replaces it).
        Unlike ``BaseEstimator.set_params``, this does not read every
        component's parameters (scikit-learn inspects each class's signature
        for that), so tuning loops stay cheap.

        Raises
        ------
        ParameterError
            A name that is not a parameter or component of this composite,
            ``name__key`` where ``name`` holds something without
            ``set_params`` or whose parameters do not include ``key``, or
            a value the component's own ``set_params`` refuses. Nothing is
            changed, except, in the last case, what that component changed.
        """
        if not params:
            return self
        top: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            head, deeper, rest = key.partition("__")
            if deeper:
                nested.setdefault(head, {})[rest] = value
            else:
                top[key] = value
        reachable = self._settable(top)
        unknown = [key for key in params if key.partition("__")[0] not in reachable]
        if unknown:
            raise ParameterError(
                f"Invalid parameter {unknown[0]!r} for {type(self).__name__}. Valid parameters are: "
                f"{sorted(reachable)}; reach into a component with <component>__<parameter>."
            )
        for head in nested:
            if not is_estimator(reachable[head]):
                raise ParameterError(
                    f"Cannot set {sorted(nested[head])[0]!r} on {head!r} of {type(self).__name__}: "
                    f"it holds {describe(reachable[head])}, which has no set_params. Set {head} itself instead."
                )
        for head, sub in nested.items():  # a component's own names, checked before anything changes
            unknown, valid = _unknown_names(reachable[head], sub, alone=len(nested) == 1)
            if unknown:
                raise ParameterError(
                    f"Invalid parameter {head}__{unknown[0]} for {type(self).__name__}: {head!r} holds "
                    f"{describe(reachable[head])}, whose parameters are {valid}."
                )
        for head, sub in nested.items():
            try:
                _set_component(reachable[head], sub)
            except (ValueError, TypeError) as error:
                if isinstance(error, WireworkError):
                    raise
                names = sorted(f"{head}__{key}" for key in sub)
                raise ParameterError(f"Cannot set {names} on {head!r} of {type(self).__name__}: {error}") from error
        self._assign(top)
        if nested:  # a component may offer other operations now (see _ComposedNetwork._reached_into)
            self._reached_into([reachable[head] for head in nested])
        if top:  # a parameter only the outputs read takes effect at once (see _ComposedNetwork._rewire)
            self._rewire(top)
        return self

    def _settable(self, top: dict[str, Any]) -> dict[str, Any]:
        """What each settable name holds once the plain assignments ``top`` are made."""
        return {name: top[name] if name in top else getattr(self, name) for name in self._get_param_names()}

    def _assign(self, top: dict[str, Any]) -> None:
        """Make the plain assignments of ``set_params`` (names already checked)."""
        for name, value in top.items():
            setattr(self, name, value)


def _unknown_names(component: Any, params: dict[str, Any], alone: bool) -> tuple[list[str], list[str]]:
    """The keys of ``params`` that are no parameters of ``component``, and its parameter names.

    Left to the component's own ``set_params`` (no names returned): a
    composite, which checks every name before changing anything; a component
    whose ``get_params`` raises; and, when it is the only component set
    (``alone``: nothing else could be left half-changed), one whose names
    need ``get_params(deep=True)``, which can be slow.
    """
    if isinstance(component, _ComposedParams):  # a Composite
        return [], []
    plain = _plain_names(component)
    if plain is not None and not any("__" in key for key in params):
        return [key for key in params if key not in plain], sorted(plain)
    if alone:
        return [], []
    try:
        names = component.get_params(deep=True)
    except Exception:
        return [], []

    def known(key: str) -> bool:
        head, deeper, _ = key.partition("__")
        return key in names or bool(deeper) and head in params  # replaced in the same call: checked when set

    return [key for key in params if not known(key)], sorted(name for name in names if "__" not in name)


def _plain_names(component: Any) -> tuple[str, ...] | None:
    """The parameter names of a component whose ``get_params`` and ``set_params`` are ``BaseEstimator``'s."""
    if getattr(type(component), "set_params", None) is not BaseEstimator.set_params:
        return None
    return param_names(component)


def _set_component(component: Any, params: dict[str, Any]) -> None:
    """``component.set_params(**params)``.

    For a plain scikit-learn estimator (``BaseEstimator``'s own
    ``get_params`` and ``set_params``) given only its own parameter names,
    the attributes are set directly, which is what ``set_params`` does
    after reading the class signature to check the names.
    """
    plain = _plain_names(component)
    if plain is None or not all(name in plain for name in params):
        component.set_params(**params)
        return
    for name, value in params.items():
        setattr(component, name, value)
