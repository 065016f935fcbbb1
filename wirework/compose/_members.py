"""A bagging's members: the wrappers that give each member its own seeds (:class:`Seeded`) or a classifier
without ``predict_proba`` its votes (:class:`Votes`), and how their own log probabilities add (:func:`log_mean_exp`).

They live apart from ``ww.Bagging`` (:mod:`wirework.compose.ensemble`), which imports them again under its own
name, so networks pickled when they were defined there still load.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if

from wirework.graph.data import take_rows
from wirework.compose._ops import bootstrap_rows

__all__ = ["Seeded", "Votes", "log_mean_exp", "random_states", "sorted_rows", "unwrapped"]


def _has(operation: str):
    return lambda self: hasattr(self.estimator, operation)


def random_states(model: Any) -> list[str]:
    """The names of ``model``'s ``random_state`` parameters, nested ones included (``tree__random_state`` of a
    pipeline's step), sorted: those scikit-learn's bagging sets for each member."""
    return sorted(k for k in model.get_params(deep=True) if k == "random_state" or k.endswith("__random_state"))


class Seeded(BaseEstimator):
    """``estimator`` trained with every ``random_state`` parameter set from ``seed``, nested ones included.

    Bagging's members share one model object; this wrapper gives each member
    its own seeds (drawn from the member's ``seed``, itself drawn from the
    bagging's ``random_state``) without copying the model, so a change to
    the shared model still reaches every member. As in scikit-learn's
    bagging, each ``random_state`` parameter (in sorted order of the names
    ``get_params(deep=True)`` gives) is set to an int, whatever it held: one
    left at ``None`` would draw afresh at each training, and one fixed would
    make every member's randomness the same.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> member = Seeded(DecisionTreeRegressor(max_depth=2, random_state=0), seed=7).fit([[0.0], [1.0]], [0.0, 1.0])
    >>> member.estimator_.random_state != 0, member.estimator.random_state
    (True, 0)
    """

    def __init__(self, estimator: Any = None, seed: int = 0) -> None:
        self.estimator = estimator
        self.seed = seed

    def __sklearn_tags__(self):
        return get_tags(self.estimator)

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> Seeded:
        inner = clone(self.estimator)
        draw = np.random.RandomState(self.seed).randint
        inner.set_params(**{name: int(draw(np.iinfo(np.int32).max)) for name in random_states(inner)})
        self.estimator_ = inner.fit(X, y, **fit_params)
        return self

    @available_if(_has("predict"))
    def predict(self, X: Any) -> Any:
        return self.estimator_.predict(X)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X: Any) -> Any:
        return self.estimator_.predict_proba(X)

    @available_if(_has("predict_log_proba"))
    def predict_log_proba(self, X: Any) -> Any:
        return self.estimator_.predict_log_proba(X)

    @available_if(_has("decision_function"))
    def decision_function(self, X: Any) -> Any:
        return self.estimator_.decision_function(X)


class Votes(BaseEstimator):
    """A classifier without ``predict_proba`` given one: its vote, 1 for the class it predicts, 0 for the others.

    What scikit-learn's bagging averages for members that have no
    ``predict_proba`` ("resort to voting"): the ensemble's probabilities are
    then the share of members that predict each class. Each member of a
    classifier ``Bagging`` knows every class, so the columns are all of them.

    Examples
    --------
    >>> from sklearn.svm import LinearSVC
    >>> member = Votes(LinearSVC()).fit([[0.0], [1.0], [2.0]], [0, 1, 2])
    >>> member.predict_proba([[0.1], [1.9]])
    array([[1., 0., 0.],
           [0., 0., 1.]])
    """

    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator

    def __sklearn_tags__(self):
        return get_tags(self.estimator)

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> Votes:
        self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X: Any) -> Any:
        return self.estimator_.predict(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        return (np.asarray(self.estimator_.predict(X))[:, np.newaxis] == self.classes_).astype(float)

    @available_if(_has("decision_function"))
    def decision_function(self, X: Any) -> Any:
        return self.estimator_.decision_function(X)


def log_mean_exp(*log_probabilities: Any) -> np.ndarray:
    """The log of the members' mean probabilities from their own log probabilities, as scikit-learn's bagging
    adds them: ``np.logaddexp`` in the members' order, less ``log(n)`` (finite where probabilities underflow)."""
    total = np.asarray(log_probabilities[0], dtype=float)
    for value in log_probabilities[1:]:
        total = np.logaddexp(total, np.asarray(value, dtype=float))
    return total - np.log(len(log_probabilities))


def unwrapped(model: Any) -> Any:
    """A bagging member's trained model, without the wrappers (:class:`Seeded`, :class:`Votes`) around it."""
    while isinstance(model, (Seeded, Votes)):
        model = model.estimator_
    return model


def sorted_rows(machines: list[Any]) -> bool:
    """Whether some machine of ``machines`` (a bagging's network) trains on rows taken in sorted order
    (``take_rows`` of :func:`~wirework.compose._ops.bootstrap_rows`): a network built before 2026-12, when a
    member whose ``fit`` takes no weights trained on its drawn rows sorted. Members trained on all rows with
    their draw's counts are not: the counts do not depend on the order."""
    return any(
        getattr(arg, "function", None) is take_rows
        and any(getattr(parent, "function", None) is bootstrap_rows for parent in arg.parents)
        for mach in machines
        for arg in mach.args
    )
