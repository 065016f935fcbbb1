"""Jobs: one training of a model, to run anywhere (this thread, a worker thread, another process, a Dask worker).

A machine plans a :class:`Job` in the scheduling thread (its training
values, a fresh copy of its model, :class:`How` to train it);
:func:`run_job` runs it wherever the executor puts it; the machine then
records the result. The helpers here are what a job needs on both sides:
copying a model as ``sklearn.base.clone`` would, and giving a 1-D argument
to a model that takes columns.
"""

from __future__ import annotations

import copy
import inspect
import time
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.preprocessing import LabelBinarizer, LabelEncoder
from sklearn.utils import get_tags

from wirework.graph._params import shallow_params

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine

__all__ = ["How", "Job", "run_job", "fresh_copy", "trains_by_fit_transform", "training_method"]


class How(NamedTuple):
    """How :func:`run_job` trains a model."""

    column: bool = False  # the one training argument is 1-D and the model takes it as one column
    # "fit_transform" or "fit_predict": train by that method and return its output (see Machine, "Training
    # output"); None: train by fit
    output: str | None = None


class Job:
    """One fit to run: a fresh (or warm) copy of the model and its training values.

    :func:`run_job` runs it anywhere (this thread, a worker thread, another
    process, a Dask worker); the machine then records the result.
    """

    __slots__ = (
        "machine", "values", "how", "action", "reason", "params_key", "n_rows", "seen", "key", "model", "writes"
    )

    def __init__(
        self,
        machine: Machine,
        values: list[Any],
        how: How,
        action: str,
        reason: str,
        params_key: Any,
        n_rows: int,
        seen: tuple[int, int, tuple[int, ...]],
    ) -> None:
        self.machine = machine
        self.values = values
        self.how = how
        self.action = action
        self.reason = reason
        self.params_key = params_key
        self.n_rows = n_rows
        self.seen = seen  # the sums of the states and versions upstream when planned, and its direct needs' states
        self.key: str | None = None
        self.model: Any = None
        self.writes = False  # the model may write into its input: its values are copies (see wirework.graph.kept)


def run_job(model: Any, values: list[Any], how: How) -> tuple[Any, Any, float]:
    """Fit ``model`` on ``values`` (``X``, ``X, y`` or ``X, y, sample_weight``) as ``how`` says; return it,
    the output of the method ``how.output`` names (``None`` without one) and the seconds taken."""
    start = time.perf_counter()
    train = getattr(model, how.output) if how.output else model.fit
    if len(values) == 1:
        result = train(to_column(values[0]) if how.column else values[0])
    elif len(values) == 2:
        result = train(values[0], values[1])
    else:
        result = train(values[0], values[1], sample_weight=values[2])
    return model, result if how.output else None, time.perf_counter() - start


#: Per class: whether its ``fit_transform`` is its own, and whether that takes ``sample_weight``. scikit-learn's
#: label encoders define one that gives what ``fit`` then ``transform`` gives (``LabelEncoder``'s codes from
#: ``np.unique``, ``LabelBinarizer``'s by fit then transform): they train by ``fit`` and hold no output, so a
#: copied or unpickled network does not train one again (condition 7), nor everything after it (the label
#: encoding of each classifier recipe).
_FIT_TRANSFORMS: dict[type, tuple[bool, bool]] = {LabelEncoder: (False, False), LabelBinarizer: (False, False)}

#: Owners (module, qualname) of a ``fit_transform`` that is ``fit``, then ``transform(X, y)``: scikit-learn's cross
#: decompositions (``PLSRegression``, ``PLSCanonical``, ``CCA``; ``PLSSVD``), whose output given ``y`` is the pair
#: ``(x_scores, y_scores)``, where ``transform(X)`` gives ``x_scores``. They train by ``fit`` (named, not imported).
_FIT_THEN_TRANSFORM = frozenset({("sklearn.cross_decomposition._pls", "_PLS"), ("sklearn.cross_decomposition._pls", "PLSSVD")})


def _fit_transform_of(kind: type) -> tuple[bool, bool]:
    found = _FIT_TRANSFORMS.get(kind)
    if found is None:
        owner = next((c for c in kind.__mro__ if "fit_transform" in c.__dict__), None)
        own = (
            owner is not None
            and owner is not TransformerMixin
            and (owner.__module__, owner.__qualname__) not in _FIT_THEN_TRANSFORM
        )
        weights = False
        if own:
            try:
                parameters = inspect.signature(kind.fit_transform).parameters.values()
            except (TypeError, ValueError):  # no signature to read: weights go to fit
                parameters = ()
            weights = any(p.name == "sample_weight" or p.kind is p.VAR_KEYWORD for p in parameters)
        found = _FIT_TRANSFORMS[kind] = (own, weights)
    return found


def trains_by_fit_transform(kind: type, n_values: int) -> bool:
    """Whether a machine of a ``kind`` model whose output a node takes trains by ``fit_transform``: its own,
    and taking the sample weights when there are (else it trains by ``fit``, which takes them)."""
    own, weights = _fit_transform_of(kind)
    return own and (n_values < 3 or weights)


def training_method(kind: type, owed: str, n_values: int) -> str | None:
    """The method a machine of a ``kind`` model trains by when a node takes its ``owed`` output on the training
    data (``"fit_transform"`` or ``"fit_predict"``; see Machine, "Training output"), or ``None``: by ``fit``.

    ``fit_predict``'s output exists only as what that method returns (a
    model with ``fit_predict`` and no ``predict`` labels no other data), so
    it is always trained by; ``fit_transform`` when :func:`trains_by_fit_transform`.
    """
    if owed == "fit_predict":
        return owed
    return owed if trains_by_fit_transform(kind, n_values) else None


#: Types of hyperparameter values compared by value (with their type: ``1``, ``1.0`` and ``True`` differ).
PLAIN = frozenset({type(None), bool, int, float, str})


def wants_column(model: Any) -> bool:
    """Whether ``model`` takes 2-D input only, so a 1-D argument is given as one column."""
    try:
        tags = get_tags(model)
    except Exception:
        return True
    if tags.target_tags.one_d_labels:  # LabelEncoder and friends take y as it is
        return False
    return tags.input_tags.two_d_array and not tags.input_tags.one_d_array


def fresh_copy(model: Any, params: dict[str, Any] | None = None) -> Any:
    """An unfitted copy of ``model`` with equal hyperparameters: ``sklearn.base.clone``.

    For a plain scikit-learn estimator (``BaseEstimator``'s own ``get_params``
    and ``__sklearn_clone__``) the copy is made from parameter names cached
    per class, which skips the two signature inspections ``clone`` pays.
    ``params``: the model's ``get_params(deep=False)`` when the caller has it.
    """
    kind = type(model)
    if (
        isinstance(model, BaseEstimator)
        and kind.get_params is BaseEstimator.get_params
        and kind.__sklearn_clone__ is BaseEstimator.__sklearn_clone__
        and not hasattr(model, "_skl_callbacks")
    ):
        copied = kind(**{
            # clone(value, safe=False) of an immutable plain value is the value itself
            name: value if type(value) in PLAIN else clone(value, safe=False)
            for name, value in (shallow_params(model) if params is None else params).items()
        })
        if hasattr(model, "_metadata_request"):
            copied._metadata_request = clone(model._metadata_request, safe=False)
        copy_output_config(model, copied)  # as clone() keeps it
        return copied
    return clone(model, safe=False)


def copy_output_config(model: Any, copied: Any) -> None:
    """Give ``copied`` the ``set_output`` configuration of ``model``, or none (a fitted copy may have another)."""
    config = getattr(model, "_sklearn_output_config", None)
    if config is not None:
        copied._sklearn_output_config = copy.deepcopy(config)
    elif "_sklearn_output_config" in getattr(copied, "__dict__", {}):
        del copied._sklearn_output_config


def to_column(value: Any) -> Any:
    if isinstance(value, pd.Series):
        return value.to_frame()
    return np.asarray(value).reshape(-1, 1)


def from_column(result: Any, like: Any) -> Any:
    """A one-column ``result`` of a model given ``like`` (1-D) as a column, back in one dimension: a Series
    keeps the index and name of ``like``; a sparse column becomes dense (sparse matrices have no 1-D form)."""
    if getattr(result, "ndim", 1) != 2 or result.shape[1] != 1:
        return result
    if isinstance(result, pd.DataFrame):
        result = result.iloc[:, 0]
        return result.rename(like.name) if isinstance(like, pd.Series) else result.to_numpy()
    if type(result) is np.ndarray:
        flat = result.ravel()
    elif sp.issparse(result):  # np.asarray would wrap the matrix in a 0-D object array
        flat = result.toarray().ravel()
    else:
        flat = np.asarray(result).ravel()
    if isinstance(like, pd.Series):
        return pd.Series(flat, index=like.index, name=like.name)
    return flat
