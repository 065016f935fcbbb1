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

The other way round, a fitted model may keep a reference to the data it
trained on (``KNeighborsRegressor``'s ``_fit_X`` is its training array
when that needed no conversion). An in-memory fit cache hands that very
object to later machines whose training data equals the data as it was;
:func:`holds_values` tells when it must keep a copy instead, so that the
caller editing its data in place afterwards does not change the entry.
"""

from __future__ import annotations

import pickle
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from wirework.graph._params import param_values

__all__ = ["IN_PLACE_PARAMETERS", "copied", "holds_values", "writes_in_place"]

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


#: How deep :func:`holds_values` looks into a fitted model that does not pickle (its attributes, their items, the
#: models they hold).
_HOLDS_DEPTH = 4


def holds_values(fitted: Any, values: list[Any]) -> bool:
    """Whether ``fitted`` keeps one of ``values`` (the data it trained on), or an array in their memory.

    Looks at everything ``fitted`` pickles, however deep (a ``Pipeline``'s
    steps, the ``ColumnTransformer`` in one and its transformers, a forest's
    trees, the machines of a composite used as a model): each numpy array it
    holds (a pandas object's columns, a sparse matrix's parts) is compared
    with the memory of ``values`` by byte bounds, as ``np.may_share_memory``
    does, and each list, dict or other object with ``values`` by identity (a
    list of texts kept as it was given). Arrays are not written, so this
    costs a pickling of the model's structure (about 2 ms for a forest of 100
    trees). A model that does not pickle (it holds a lock, say) is looked at
    through its attributes, the lists, tuples and dicts among them and the
    estimators it holds, four levels deep. A "yes" may be a needless copy,
    never a missed one among what it looks at.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.neighbors import KNeighborsRegressor
    >>> from wirework.graph.kept import holds_values
    >>> X, y = np.random.default_rng(0).random((6, 2)), np.arange(6.0)
    >>> holds_values(KNeighborsRegressor(n_neighbors=2).fit(X, y), [X, y])
    True
    >>> holds_values(Ridge().fit(X, y), [X, y])
    False
    """
    parts = [part for value in values for part in _buffers(value) if part.size]
    given = {id(value) for value in values if not isinstance(value, _IMMUTABLE)}  # a list of texts, say
    if not parts and not given:
        return False

    def overlaps(held: list[np.ndarray]) -> bool:  # by byte bounds alone
        return any(np.may_share_memory(one, part) for one in held if one.size for part in parts)

    searcher = _Searcher(given, overlaps)
    try:
        searcher.dump(fitted)
    except _Held:
        return True
    except Exception:  # does not pickle (a lock, a local class...): its attributes, a few levels deep
        return _walk_holds(fitted, given, overlaps)
    memo = searcher.memo.copy()  # the lists, dicts and tuples pickled, by id
    return any(oid in memo for oid in given)


#: Values nothing can change in place (``None`` for no target, say): not looked for.
_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes)


class _Held(Exception):
    """Raised by :class:`_Searcher` on finding one of the values, or their memory."""


class _Discard:
    def write(self, data: Any) -> int:
        return len(data)


class _Searcher(pickle.Pickler):
    """Pickles a fitted model to nowhere, raising :class:`_Held` at the first array in the values' memory (or one
    of the values themselves); arrays and functions are written as empty tuples."""

    def __init__(self, given: set[int], overlaps: Callable[[list[np.ndarray]], bool]) -> None:
        super().__init__(_Discard(), protocol=pickle.HIGHEST_PROTOCOL)
        self.given = given
        self.overlaps = overlaps

    def reducer_override(self, obj: Any) -> Any:
        if id(obj) in self.given:
            raise _Held
        if isinstance(obj, np.ndarray):
            if self.overlaps([obj]):
                raise _Held
            if obj.dtype.hasobject:  # its elements may be values: looked at in a list
                return list, (obj.ravel().tolist(),)
            return tuple, ()
        if isinstance(obj, types.FunctionType):  # by name, or a lambda: nothing of the data
            return tuple, ()
        return NotImplemented  # classes (tuple, above, too) by name; other objects by their own reduction


def _walk_holds(fitted: Any, given: set[int], overlaps: Callable[[list[np.ndarray]], bool]) -> bool:
    """:func:`holds_values` for a model that does not pickle: its attributes, the lists, tuples and dicts among
    them and the estimators it holds, :data:`_HOLDS_DEPTH` levels deep."""
    stack: list[tuple[Any, int]] = [(fitted, 0)]
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        if id(item) in given:
            return True
        parts = _buffers(item)
        if parts:
            if overlaps(parts):
                return True
            continue
        if depth >= _HOLDS_DEPTH or id(item) in seen:
            continue
        if isinstance(item, (list, tuple)):
            inner: Any = item
        elif isinstance(item, dict):
            inner = item.values()
        elif hasattr(item, "get_params") and not isinstance(item, type) and hasattr(item, "__dict__"):
            inner = vars(item).values()
        else:
            continue
        seen.add(id(item))
        stack.extend((part, depth + 1) for part in inner)
    return False


def _buffers(value: Any) -> list[np.ndarray]:
    """The numpy arrays holding ``value``'s data: itself, a sparse matrix's parts, a pandas object's columns
    (their numpy values, views); ``[]`` for anything else."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, pd.Series):
        return [value.to_numpy()] if isinstance(value.dtype, np.dtype) else []
    if isinstance(value, pd.DataFrame):
        return [column.to_numpy() for _, column in value.items() if isinstance(column.dtype, np.dtype)]
    if sp.issparse(value):
        return [part for part in (getattr(value, name, None) for name in ("data", "indices", "indptr")) if part is not None]
    return []
