"""Estimators that record every real call, for tests of the retraining rules; and a count of wirework's own calls."""

from __future__ import annotations

import cProfile
import pstats
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.decomposition import PCA
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler
from sklearn.utils.metaestimators import available_if

import wirework as ww


def _inner_has(operation: str):
    return lambda self: hasattr(self.estimator, operation)


class Counting(BaseEstimator):
    """Wrap ``estimator``; log ``(tag, "fit")`` and ``(tag, operation)`` for each real call."""

    events: ClassVar[list[tuple[str, str]]] = []

    def __init__(self, estimator: Any = None, tag: str = "?") -> None:
        self.estimator = estimator
        self.tag = tag

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> Counting:
        Counting.events.append((self.tag, "fit"))
        inner = clone(self.estimator)
        if y is None:
            inner.fit(X, **fit_params)
        else:
            inner.fit(X, y, **fit_params)
        self.estimator_ = inner
        return self

    def _call(self, operation: str, X: Any) -> Any:
        Counting.events.append((self.tag, operation))
        return getattr(self.estimator_, operation)(X)

    @available_if(_inner_has("predict"))
    def predict(self, X: Any) -> Any:
        return self._call("predict", X)

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X: Any) -> Any:
        return self._call("predict_proba", X)

    @available_if(_inner_has("transform"))
    def transform(self, X: Any) -> Any:
        return self._call("transform", X)

    @available_if(_inner_has("inverse_transform"))
    def inverse_transform(self, X: Any) -> Any:
        return self._call("inverse_transform", X)

    @available_if(_inner_has("fit_predict"))
    def fit_predict(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Train the inner model by its ``fit_predict``; logs ``(tag, "fit_predict")`` alone."""
        Counting.events.append((self.tag, "fit_predict"))
        self.estimator_ = clone(self.estimator)
        return self.estimator_.fit_predict(X, y, **fit_params)


class WeightedCounting(Counting):
    """``Counting`` whose ``fit`` names ``sample_weight`` (so ``has_fit_parameter`` sees it); logs the weights seen."""

    weights: ClassVar[list[tuple[str, Any]]] = []

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> WeightedCounting:
        WeightedCounting.weights.append((self.tag, None if sample_weight is None else np.array(sample_weight)))
        if sample_weight is None:
            return super().fit(X, y)
        return super().fit(X, y, sample_weight=sample_weight)


class Toy(BaseEstimator):
    """A fast model for random networks: learns a mean, adds it and ``shift``."""

    events: ClassVar[list[str]] = []

    def __init__(self, shift: float = 0.0, tag: str = "?") -> None:
        self.shift = shift
        self.tag = tag

    def fit(self, X: Any, y: Any = None) -> Toy:
        Toy.events.append(self.tag)
        self.mean_ = float(np.mean(X)) + (0.0 if y is None else float(np.mean(y)))
        return self

    def transform(self, X: Any) -> Any:
        return np.asarray(X) * 0.5 + self.mean_ + self.shift

    def predict(self, X: Any) -> Any:
        return self.transform(X)


def fits(tag: str | None = None) -> Any:
    """Number of real fits logged for ``tag``, or the list of tags fitted, in order."""
    tags = [t for t, what in Counting.events if what == "fit"]
    return tags if tag is None else tags.count(tag)


def calls(tag: str, operation: str) -> int:
    """Number of real calls of ``operation`` logged for ``tag``."""
    return Counting.events.count((tag, operation))


def wirework_calls(action: Any) -> int:
    """How many calls of wirework's functions ``action()`` makes (generators' steps included): deterministic."""
    profile = cProfile.Profile()
    profile.enable()
    try:
        action()
    finally:
        profile.disable()
    return sum(entry[1] for (filename, _, _), entry in pstats.Stats(profile).stats.items() if "wirework" in filename)


def counting_chain(X_data: Any, y_data: Any) -> tuple[Any, SimpleNamespace]:
    """StandardScaler -> PCA(3) -> Ridge on sources ``X`` and ``y``, each a counting machine.

    Returns the Ridge's ``predict`` node and the network's parts: ``X``, ``y``
    (sources), ``Z``, ``W`` (the two transforms), ``scaler``, ``pca``, ``ridge``.
    """
    X, y = ww.source(X_data, name="X"), ww.source(y_data, name="y")
    scaler = ww.machine(Counting(StandardScaler(), tag="scaler"), X)
    Z = scaler.transform(X)
    pca = ww.machine(Counting(PCA(n_components=3), tag="pca"), Z)
    W = pca.transform(Z)
    ridge = ww.machine(Counting(Ridge(alpha=1.0), tag="ridge"), W, y)
    return ridge.predict(W), SimpleNamespace(X=X, y=y, Z=Z, W=W, scaler=scaler, pca=pca, ridge=ridge)
