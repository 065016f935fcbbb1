"""Values a network keeps: protected from the models that write in place, copied for users.

A network hands one value to every node that takes it, and keeps some
beyond the call that computed them: the output a machine trained by
(``fit_transform``, ``fit_predict``; see
:class:`~wirework.graph.machines.Machine`, "Training output"), a
transform's value in a fit cache, the values of a fit pass (kept between
fits by a composite). A consumer that changed one in place would change
what the others, and later fits, get.

scikit-learn's convention says which consumers do: an estimator writes
into its input only when told to by a parameter (``copy=False``,
``copy_X=False``, ``KMeans(copy_x=False)``, ``HDBSCAN``'s ``copy="warn"``);
:func:`writes_in_place` reads those (:data:`IN_PLACE_PARAMETERS`, nested
models included), and a machine whose model may write in place is given
:func:`copied` values, in fit and in every operation (except a fit whose
values are pickled to a worker process, which copies them already: see
``FitPass.values_pickled``). What a user is handed
(``node()``, a composite's ``fit_transform``) is :func:`copied` too: the
user's to change, as scikit-learn's outputs are.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from wirework.graph._params import param_values

__all__ = ["IN_PLACE_PARAMETERS", "copied", "writes_in_place"]

#: The parameter names by which scikit-learn 1.9.1's estimators are told to write into their input (the
#: ``copy``-like entries of their ``_parameter_constraints`` that concern ``X`` or ``y``; ``copy_X_train``,
#: ``copy_Gram``, ``copy_cov`` and ``copy_Xy`` keep a reference or concern a matrix of their own).
IN_PLACE_PARAMETERS = frozenset({"copy", "copy_X", "copy_x"})

#: Per plain estimator class: the positions of its in-place parameters among its parameter names.
_POSITIONS: dict[type, tuple[int, ...]] = {}


def writes_in_place(model: Any, found: tuple[tuple, tuple] | None = None, plain: bool = False) -> bool:
    """Whether ``model`` may write into the values it is given: one of its parameters, or of the models it
    holds, named in :data:`IN_PLACE_PARAMETERS` is not ``True``.

    ``found``: the model's :func:`~wirework.graph._params.param_values`,
    when the caller read them; ``plain``: they are all plain values (no
    nested model to look into). A model that is not a plain scikit-learn
    estimator (a ``Pipeline``, a ``ColumnTransformer``, a composite) is
    asked for its deep parameters (``sc__copy``). A model without
    ``get_params`` is taken not to write in place.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.linear_model import Ridge
    >>> from wirework.graph.kept import writes_in_place
    >>> writes_in_place(StandardScaler()), writes_in_place(StandardScaler(copy=False))
    (False, True)
    >>> writes_in_place(make_pipeline(StandardScaler(), Ridge(copy_X=False)))
    True
    """
    if found is None:
        try:
            found = param_values(model)
        except Exception:  # a broken model: fitting it says what is wrong
            return False
        if found is None:
            return _deep_writes(model)
    names, values = found
    positions = _POSITIONS.get(type(model))
    if positions is None:
        positions = _POSITIONS[type(model)] = tuple(i for i, name in enumerate(names) if name in IN_PLACE_PARAMETERS)
    for i in positions:  # _true, inline: a model that trains runs this
        value = values[i]
        if value is not True and not (type(value) is np.bool_ and value):
            return True
    if plain:
        return False
    for value in values:  # nested models: an estimator's, or a list of them (or of (name, model) pairs)
        if isinstance(value, (list, tuple)):
            items = (part for item in value for part in (item if isinstance(item, tuple) else (item,)))
            if any(map(_held_writes, items)):
                return True
        elif _held_writes(value):
            return True
    return False


def _held_writes(value: Any) -> bool:
    return hasattr(value, "get_params") and not isinstance(value, type) and writes_in_place(value)


def _deep_writes(model: Any) -> bool:
    """:func:`writes_in_place` for a model that overrides ``get_params``: by its deep parameters."""
    try:
        params = model.get_params(deep=True)
    except Exception:  # no get_params, or a broken one: fitting it says what is wrong
        return False
    return any(
        name.rpartition("__")[2] in IN_PLACE_PARAMETERS and not _true(value) for name, value in params.items()
    )


def _true(value: Any) -> bool:
    """Whether ``value`` says "copy" (``True``, numpy's ``True``); anything else (``False``, ``"warn"``, ``None``)
    may write in place."""
    return value is True or (type(value) is np.bool_ and bool(value))


def copied(value: Any) -> Any:
    """A copy of ``value`` when it is an array, a sparse matrix or a pandas ``DataFrame`` or ``Series``
    (whose values could be changed in place), else ``value`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from wirework.graph.kept import copied
    >>> kept = np.zeros(3)
    >>> mine = copied(kept)
    >>> mine[0] = 1.0
    >>> kept, copied([1, 2])
    (array([0., 0., 0.]), [1, 2])
    """
    if isinstance(value, np.ndarray):
        return value.copy(order="K")
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.copy(deep=True)
    if sp.issparse(value):
        return value.copy()
    return value
