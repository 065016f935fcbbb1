"""scikit-learn's ``IsolationForest`` as one ``TreeEnsemble`` and scikit-learn's arithmetic after it.

Facts of scikit-learn 1.9 this module reproduces, each checked against the
native ``score_samples``, ``decision_function`` and ``predict`` in
``tests/export/test_sklearn_iforest.py``:

- ``score_samples`` casts ``X`` to float32 and routes it through each
  ``ExtraTreeRegressor`` as the other scikit-learn trees do
  (:func:`~wirework.export.sklearn_trees.sklearn_tree` writes the same
  float32 cuts and missing-value directions).
- Each tree adds ``lengths[leaf] + averages[leaf] - 1.0`` to a float64 sum
  that starts at 0, tree after tree in ``estimators_`` order: ``lengths`` is
  ``_decision_path_lengths`` (the leaf's depth, an int64) and ``averages``
  ``_average_path_length_per_tree`` (the average path length of the
  leaf's training rows), both precomputed at fit. A leaf weight is that
  double, so the ``SUM`` ensemble gives the same sums.
- A tree reads the columns ``estimators_features_`` lists (its column
  ``j`` is input column ``features[j]``, a draw without replacement) when
  ``_max_features`` is below the number of input columns; with all of them
  (``max_features=1.0``) it reads the input as it is, as scikit-learn
  gives it (``IsolationForest`` fixes ``bootstrap_features=False``).
- ``score_samples = -(2 ** -(depths / (n_trees * c(_max_samples))))`` with
  ``c`` scikit-learn's ``_average_path_length``; a denominator of 0
  (``max_samples=1``) makes every score ``-0.5``.
  ``decision_function = score_samples - offset_`` and ``predict`` is ``-1``
  where that is below 0, else ``1``.

ONNX Runtime's ``Pow`` is the C library's ``pow``; NumPy's power of an array
is its own SIMD kernel on CPUs with AVX-512 and may differ in the last bit,
so ``score_samples`` and ``decision_function`` are within one ulp there.
``predict`` does not go through ``Pow``: the graph compares the depth sum
with the smallest depth NumPy's arithmetic takes for an inlier, found at
export, so labels are exact even for a row whose score is ``offset_``
itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.ensemble import IsolationForest
from sklearn.ensemble._iforest import _average_path_length

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.heads import vector
from wirework.export.registry import register
from wirework.export.sklearn_trees import shared_scores, sklearn_tree
from wirework.export.trees import Tree, tree_ensemble

__all__ = ["convert_isolation_forest", "inlier_depth"]

_METHODS = ("predict", "decision_function", "score_samples")


def _methods(model: Any) -> tuple[str, ...]:
    """An isolation forest's outputs: its labels (-1 outlier, 1 inlier), then its two scores."""
    return _METHODS


def _denominator(model: Any) -> float:
    """``n_trees * c(_max_samples)``, the number scikit-learn divides the depth sums by."""
    return float(len(model.estimators_) * _average_path_length([model._max_samples])[0])


def _depth_trees(model: Any) -> list[Tree]:
    """One :class:`Tree` per estimator, each leaf adding what scikit-learn adds for it to the depth sum."""
    required = ("_decision_path_lengths", "_average_path_length_per_tree", "_max_features", "_max_samples")
    missing = [name for name in required if not hasattr(model, name)]
    if missing:
        raise ExportError(
            f"This IsolationForest lacks {missing}, which scikit-learn >= 1.3 computes at fit. Refit it with "
            "the installed scikit-learn."
        )
    subsample = int(model._max_features) != int(model.n_features_in_)  # else each tree reads the input as is
    trees = []
    for estimator, features, lengths, averages in zip(
        model.estimators_, model.estimators_features_, model._decision_path_lengths,
        model._average_path_length_per_tree,
    ):
        weights = np.asarray(lengths) + np.asarray(averages, dtype=np.float64) - 1.0  # per node, as scikit-learn
        (tree,) = sklearn_tree(estimator.tree_, weights[:, np.newaxis])
        if subsample:
            tree = replace(tree, feature=np.asarray(features, dtype=np.int64)[tree.feature])
        trees.append(tree)
    return trees


def _native_inliers(model: Any, depths: np.ndarray) -> np.ndarray:
    """Whether scikit-learn's ``predict`` says inlier for each depth sum, by its own arithmetic (NumPy's)."""
    denominator = _denominator(model)
    ratio = np.divide(depths, denominator, out=np.ones_like(depths), where=denominator != 0)
    scores = -(2 ** -ratio)
    return ~((scores - model.offset_) < 0)


def _key(value: float) -> int:
    """A float64's position in the order of all float64 values (-0.0 and 0.0 share 0)."""
    bits = int(np.float64(value).view(np.int64))
    return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)


def _value(key: int) -> float:
    """The float64 at position ``key`` (the inverse of :func:`_key`)."""
    bits = key if key >= 0 else (-key) | -0x8000000000000000
    return float(np.int64(bits).view(np.float64))


def inlier_depth(model: Any) -> float:
    """The smallest depth sum that ``model.predict`` calls an inlier (``+inf`` when none does).

    scikit-learn's score is monotone in the depth sum, so ``predict`` is
    ``-1`` exactly for the depth sums below this value. It is found by
    bisection over the float64 values, each probe going through NumPy's own
    arithmetic (whose ``power`` may differ in the last bit from ONNX
    Runtime's ``Pow``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.ensemble import IsolationForest
    >>> X, _ = load_wine(return_X_y=True)
    >>> model = IsolationForest(n_estimators=10, random_state=0).fit(X)
    >>> depth = inlier_depth(model)
    >>> _native_inliers(model, np.array([depth, np.nextafter(depth, 0.0)])).tolist()
    [True, False]
    """
    low, high = _key(-np.inf), _key(np.inf)
    if _native_inliers(model, np.array([_value(low)]))[0]:
        return -np.inf
    if not _native_inliers(model, np.array([_value(high)]))[0]:
        return np.inf
    while high - low > 1:  # invariant: low is an outlier's depth, high an inlier's
        middle = (low + high) // 2
        if _native_inliers(model, np.array([_value(middle)]))[0]:
            high = middle
        else:
            low = middle
    found = _value(high)
    around = np.array([_value(k) for k in range(high - 4, high + 5)])
    inliers = _native_inliers(model, around)
    if inliers[:4].any() or not inliers[4:].all():  # pragma: no cover - NumPy's power not monotone here
        raise ExportError(
            f"IsolationForest: NumPy's score is not monotone in the depth sum around {found!r}, so predict() "
            "cannot be exported exactly. Export decision_function and compare it with 0 yourself."
        )
    return found


@register(IsolationForest, methods=_methods)
def convert_isolation_forest(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """Depth sums of the trees, then scikit-learn's score, decision function or labels.

    Computed in float64 whatever the export dtype, as scikit-learn adds the
    depths of its float32 input in float64: a float32 file casts its input
    to float64 (each tree routes it as it routes the float32 value) and
    its scores back to float32 at the end.
    """
    if method not in _METHODS:
        raise ExportError(f"IsolationForest exports {_METHODS}. Received method {method!r}.")
    double = np.dtype(np.float64)

    def depths() -> str:
        inputs = x if g.dtype == double else g.cast(x, double)
        trees = _depth_trees(model)
        return vector(g, tree_ensemble(g, inputs, trees, n_features=int(model.n_features_in_), hint="depths",
                                       dtype=double))

    total = shared_scores(g, model, x, depths)
    if method == "predict":
        inlier = g.const(np.array([inlier_depth(model)]), "inlier_depth", dtype=double)
        outlier = g.op("Less", [total, inlier], hint="outlier")
        labels = g.const(np.array([1, -1], dtype=np.int64), "inlier_outlier")
        return g.op("Gather", [labels, g.cast(outlier, np.int64)], axis=0, hint="is_inlier")

    def scores() -> str:
        denominator = _denominator(model)
        if denominator == 0:  # a forest of one-row trees: 2 ** -1 on every row, as scikit-learn
            zero, one = g.const(np.zeros(1), "zero", dtype=double), g.const(np.ones(1), "one", dtype=double)
            ratio = g.op("Add", [g.op("Mul", [total, zero], hint="zeros"), one], hint="ratio")
        else:
            ratio = g.op("Div", [total, g.const(np.array([denominator]), "denominator", dtype=double)], hint="ratio")
        two = g.const(np.array([2.0]), "two", dtype=double)
        power = g.op("Pow", [two, g.op("Neg", [ratio], hint="exponent")], hint="power")
        return g.op("Neg", [power], hint="score")

    key = ("sklearn_iforest", id(model), x)
    if key not in g.memo:  # score_samples and decision_function share it
        g.memo[key] = scores()
    score = g.memo[key]
    if method == "decision_function":
        score = g.op("Sub", [score, g.const(np.array([float(model.offset_)]), "offset", dtype=double)], hint="decision")
    return score if g.dtype == double else g.cast(score, g.dtype)
