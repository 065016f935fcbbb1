"""Output stages shared by the converters: scores to probabilities, labels, 1-D predictions."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirework.export.builder import GraphBuilder

__all__ = [
    "vector", "add_base", "two_columns", "labels", "binary_labels", "class_at", "class_values", "weighted_average",
    "majority",
]


def vector(g: GraphBuilder, scores: str) -> str:
    """A ``[N, 1]`` score matrix as the 1-D prediction scikit-learn returns."""
    return g.as_vector(scores)


def add_base(g: GraphBuilder, scores: str, base: Any) -> str:
    """``scores + base`` (a scalar or one value per column); nothing is added when every base is 0."""
    base = np.atleast_1d(np.asarray(base, dtype=np.float64))
    if not np.any(base):
        return scores
    return g.op("Add", [scores, g.const(base, "base")], hint="scores")


def two_columns(g: GraphBuilder, positive: str) -> str:
    """``[1 - p, p]`` from the ``[N, 1]`` probability ``p`` of the second class."""
    negative = g.op("Sub", [g.const(np.ones(1), "one"), positive], hint="negative")
    return g.op("Concat", [negative, positive], axis=1, hint="probabilities")


def class_values(classes: Any) -> np.ndarray:
    """``classes_`` as the array an ONNX constant can hold (int64, float or string)."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "iub":
        return classes.astype(np.int64)
    if classes.dtype.kind == "f":
        return classes
    return classes.astype(str)


def class_at(g: GraphBuilder, index: str, classes: Any) -> str:
    """``classes[index]`` for a 1-D int64 ``index`` (the index itself when the classes are ``0..K-1``)."""
    values = class_values(classes)
    if values.dtype.kind == "i" and np.array_equal(values, np.arange(len(values))):
        return index
    constant = g.const(values, "classes", dtype=values.dtype if values.dtype.kind == "f" else None)
    return g.op("Gather", [constant, index], axis=0, hint="label")


def labels(g: GraphBuilder, probabilities: str, classes: Any) -> str:
    """The class of the largest column of each row (the first one on ties, as numpy's ``argmax``)."""
    return class_at(g, g.op("ArgMax", [probabilities], axis=1, keepdims=0, hint="class_index"), classes)


def binary_labels(g: GraphBuilder, raw: str, classes: Any, *, strict: bool, dtype: Any = None) -> str:
    """``classes[1]`` where the ``[N, 1]`` (or 1-D) raw score is ``> 0`` (``strict``) or ``>= 0``, else ``classes[0]``;
    ``dtype``: the score's, when it is not the graph's."""
    zero = g.const(np.zeros(1), "zero", dtype=dtype)
    positive = g.op("Greater" if strict else "GreaterOrEqual", [vector(g, raw), zero], hint="positive")
    return class_at(g, g.cast(positive, np.int64), classes)


def weighted_average(g: GraphBuilder, values: list[str], weights: Any = None) -> str:
    """NumPy's ``average`` over members: each weighted, added member by member, divided by the weights' sum
    (their number, unweighted)."""
    if weights is None:
        return g.op("Div", [g.added(values), g.const(float(len(values)), "count")], hint="mean")
    terms = [g.op("Mul", [g.const(float(w), "weight"), v], hint="weighted") for w, v in zip(weights, values)]
    return g.op("Div", [g.added(terms), g.const(float(sum(weights)), "weight_sum")], hint="mean")


def majority(g: GraphBuilder, votes: list[str], n_labels: int, weights: Any = None) -> str:
    """The first most voted encoded label (``0..n_labels-1``) of ``[N, 1]`` votes, each voter's weighted one-hot
    vote added voter by voter in float64 whatever the export dtype, as ``np.bincount`` counts them (so
    weights tie as natively), then NumPy's ``argmax``."""
    positions = g.const(np.arange(n_labels, dtype=np.float64), "labels", dtype=np.float64)
    counts = []
    for k, vote in enumerate(votes):
        one_hot = g.cast(g.op("Equal", [g.cast(vote, np.float64), positions], hint="vote"), np.float64)
        if weights is not None:
            one_hot = g.op("Mul", [one_hot, g.const(float(weights[k]), "weight", dtype=np.float64)], hint="weighted")
        counts.append(one_hot)
    return g.op("ArgMax", [g.added(counts)], axis=1, keepdims=0, hint="majority")

