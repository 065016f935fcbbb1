"""An estimator's ``get_params(deep=False)`` without re-reading its class signature on every call.

:func:`param_values` (names and values), :func:`param_names` and
:func:`shallow_params` (a dict) share one cache: per plain scikit-learn
estimator class, its parameter names and one getter for all of them
(:func:`attributes_getter`). Tokens of estimators (rule 8 of
:mod:`wirework.graph.fingerprint`), machines comparing hyperparameters and
composites reading theirs all go through them.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["attributes_getter", "param_names", "param_values", "shallow_params"]

_PARAM_GETTERS: dict[type, Any] = {}  # class -> (names, getter), or _NOT_PLAIN
_NOT_PLAIN = object()


def param_values(obj: Any) -> tuple[tuple[str, ...], tuple] | None:
    """``(names, values)`` of ``get_params(deep=False)`` for a plain scikit-learn estimator, else ``None``.

    "Plain": its class keeps ``BaseEstimator.get_params``, which is
    ``{name: getattr(obj, name)}`` over the ``__init__`` parameter names; the
    names and one getter for all of them are kept per class (scikit-learn
    reads the signature with ``inspect`` on every call). The names tuple is
    the same object on every call.
    """
    entry = _param_entry(type(obj))
    if entry is None:
        return None
    names, getter = entry
    return names, getter(obj)


def param_names(obj: Any) -> tuple[str, ...] | None:
    """The names of :func:`param_values` without reading the values, or ``None`` when it would give ``None``."""
    entry = _param_entry(type(obj))
    return None if entry is None else entry[0]


def _param_entry(kind: type) -> tuple[tuple[str, ...], Callable[[Any], tuple]] | None:
    """A plain estimator class's parameter names and their getter (kept per class), else ``None``."""
    entry = _PARAM_GETTERS.get(kind)
    if entry is None:
        base = sys.modules.get("sklearn.base")
        if base is None:
            return None
        if getattr(kind, "get_params", None) is not base.BaseEstimator.get_params:
            _PARAM_GETTERS[kind] = _NOT_PLAIN
            return None
        names = tuple(kind._get_param_names())
        entry = _PARAM_GETTERS[kind] = (names, attributes_getter(names))
    return None if entry is _NOT_PLAIN else entry


def attributes_getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """One call that reads the attributes ``names`` of an object, as a tuple (also for 0 or 1 name)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def shallow_params(obj: Any) -> Any:
    """``obj.get_params(deep=False)``, without re-reading the class signature each time.

    Plain scikit-learn estimators as in :func:`param_values`; estimators that
    override ``get_params`` are asked.
    """
    found = param_values(obj)
    if found is None:
        return obj.get_params(deep=False)
    return dict(zip(*found))
