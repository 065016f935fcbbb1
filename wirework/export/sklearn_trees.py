"""scikit-learn's decision trees, forests and gradient boosting as one ``TreeEnsemble``.

Facts of scikit-learn (1.6 - 1.9) this module reproduces, each checked
against the native ``predict`` in ``tests/export/test_sklearn_trees.py``:

- ``DecisionTree*``, ``ExtraTree*``, the forests and ``GradientBoosting*``
  cast ``X`` to float32 before comparing ``float32(x) <= threshold`` in
  double. A float64 graph compares the double input instead, so each
  threshold ``t`` becomes the cut ``m`` between the largest float32 ``a <= t``
  and the next float32 ``b``: ``float32(x) <= t`` exactly when ``x <= m``
  (``a`` has an even mantissa, so the tie at ``m`` rounds to ``a``) or
  ``x < m`` (odd mantissa). A float32 graph then keeps ``a`` (the core rounds
  the cut to float32).
- NaN goes where ``tree_.missing_go_to_left`` says (trees that support
  missing values; ``GradientBoosting*`` refuses NaN natively).
- A classifier tree's ``value`` holds the class fractions that
  ``predict_proba`` returns; a forest adds its trees' outputs in tree order
  in float64 and divides by the number of trees (``SUM`` then ``Div``).
- ``GradientBoosting*`` adds ``learning_rate * value`` to the init
  prediction stage by stage: each leaf weight is that product (the same
  double), and the init prediction is a single-leaf tree placed first.
  Binary classifiers predict class 1 when the raw score is ``>= 0``.

``HistGradientBoosting*`` lives in :mod:`wirework.export.sklearn_hist`
(imported at the end of this module, so the registry finds it here).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import sklearn
from sklearn.base import is_classifier
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier, ExtraTreeRegressor

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.heads import binary_labels, labels, two_columns, vector
from wirework.export.registry import register
from wirework.export.trees import Mode, Tree, logistic, native_width, single_leaf, softmax, tree_ensemble

__all__ = [
    "float32_cut",
    "sklearn_tree",
    "classifier_methods",
    "regressor_methods",
    "probabilities",
    "shared_scores",
]

_F32_MAX = float(np.finfo(np.float32).max)
# the float32 after the largest finite one, were the exponent range one step wider
_F32_BEYOND = 2.0**128
# sklearn < 1.9 renormalised a tree's class fractions in predict_proba
_NORMALISES = tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 9)


def classifier_methods(model: Any) -> tuple[str, ...]:
    """The methods of a classifier: labels first, then probabilities."""
    return ("predict", "predict_proba")


def regressor_methods(model: Any) -> tuple[str, ...]:
    """The method of a regressor."""
    return ("predict",)


def float32_cut(threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Modes and double splits equivalent to ``float32(x) <= threshold`` for every double ``x``.

    Parameters
    ----------
    threshold : array of float64
        scikit-learn's thresholds, compared with the input cast to float32.

    Returns
    -------
    mode, split : arrays
        ``Mode.LEQ`` or ``Mode.LT`` and the cut ``m`` such that
        ``x <mode> m`` holds exactly when ``float32(x) <= threshold``.

    Examples
    --------
    >>> mode, split = float32_cut(np.array([0.5 + 2.0**-30]))
    >>> int(mode[0]) == Mode.LEQ, float(split[0]) == 0.5 + 2.0**-25
    (True, True)
    """
    t = np.asarray(threshold, dtype=np.float64)
    with np.errstate(over="ignore"):
        a = t.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.where(a.astype(np.float64) > t, np.nextafter(a, np.float32(-np.inf)), a)
        b = np.nextafter(a, np.float32(np.inf)).astype(np.float64)
        b = np.where(a == np.float32(_F32_MAX), _F32_BEYOND, b)
        cut = (a.astype(np.float64) + b) / 2.0  # exact: a and b have 24-bit mantissas
    even = (a.view(np.uint32) & 1) == 0
    mode = np.where(even, Mode.LEQ, Mode.LT).astype(np.uint8)
    # +inf: every number goes left (scikit-learn's "only missing values go right")
    infinite = np.isposinf(t)
    mode = np.where(infinite, Mode.LEQ, mode).astype(np.uint8)
    cut = np.where(infinite, np.inf, cut)
    return mode, cut


def sklearn_tree(tree: Any, weights: np.ndarray, target_offset: int = 0) -> list[Tree]:
    """One :class:`Tree` per column of ``weights`` from a fitted ``sklearn.tree._tree.Tree``.

    Parameters
    ----------
    tree : sklearn.tree._tree.Tree
        The ``tree_`` attribute of a fitted tree.
    weights : array of shape (node_count, n_columns)
        The value each node adds when it is a leaf, one column per target.
    target_offset : int
        Target of the first column.

    Returns
    -------
    list of Tree
    """
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    is_split = left != -1
    split_nodes = np.flatnonzero(is_split)
    leaf_nodes = np.flatnonzero(~is_split)
    index = np.zeros(len(left), dtype=np.int64)
    index[split_nodes] = np.arange(len(split_nodes))
    index[leaf_nodes] = ~np.arange(len(leaf_nodes))
    mode, split = float32_cut(np.asarray(tree.threshold)[split_nodes])
    missing_left = getattr(tree, "missing_go_to_left", None)
    if missing_left is None:  # pragma: no cover - scikit-learn < 1.3
        missing_left = np.zeros(len(left), dtype=bool)
    weights = np.asarray(weights, dtype=np.float64).reshape(len(left), -1)
    return [
        Tree(
            feature=np.asarray(tree.feature)[split_nodes].astype(np.int64),
            mode=mode,
            split=split,
            true_child=index[left[split_nodes]],
            false_child=index[right[split_nodes]],
            missing_true=np.asarray(missing_left)[split_nodes].astype(bool),
            leaf_weight=weights[leaf_nodes, k],
            target=target_offset + k,
        )
        for k in range(weights.shape[1])
    ]


def probabilities(g: GraphBuilder, raw: str, kind: str, width: int, *, loop: bool = False) -> str:
    """Class probabilities from raw scores: ``[1 - expit, expit]`` (``"logistic"``) or ``softmax``.

    The softmax adds each row of ``width`` columns as scikit-learn's ``softmax`` does, with NumPy's
    ``sum(axis=1)``: pairwise for the C-ordered scores of ``GradientBoosting*``, left to right
    (``loop=True``) for the Fortran-ordered scores of ``HistGradientBoosting*``.

    Written with ``Exp`` and arithmetic (:func:`~wirework.export.trees.logistic`,
    :func:`~wirework.export.trees.softmax`), not with the ``TreeEnsemble``
    ``post_transform`` attribute, which ONNX Runtime 1.32 reads with its own
    numbering (1 = logistic, 2 = softmax), nor with ONNX Runtime's ``Sigmoid``,
    whose double kernel is only accurate to ~4e-8 relative.
    """
    if kind == "logistic":
        return two_columns(g, logistic(g, raw))
    return softmax(g, raw, native_width(g, width), loop=loop)


def shared_scores(g: GraphBuilder, model: Any, x: str, build: Callable[[], str]) -> str:
    """The value ``build()`` adds for ``model`` on ``x``, built once per graph (predict and predict_proba share it)."""
    key = ("sklearn_trees", id(model), x)
    if key not in g.memo:
        g.memo[key] = build()
    return g.memo[key]


def _check_method(model: Any, method: str) -> None:
    allowed = classifier_methods(model) if is_classifier(model) else regressor_methods(model)
    if method not in allowed:
        raise ExportError(f"{type(model).__name__} exports {allowed}. Received method {method!r}.")


# -- decision trees and forests ---------------------------------------------------------------------


def _leaf_values(estimator: Any, n_classes: int | None) -> np.ndarray:
    """``[node_count, n_targets]``: what each node gives ``predict`` (regression) or ``predict_proba``."""
    value = np.asarray(estimator.tree_.value, dtype=np.float64)
    if n_classes is None:
        return value[:, :, 0]
    proba = value[:, 0, :n_classes]
    if _NORMALISES:  # pragma: no cover - scikit-learn < 1.9
        normalizer = proba.sum(axis=1)[:, np.newaxis]
        normalizer[normalizer == 0.0] = 1.0
        proba = proba / normalizer
    return proba


def _forest_parts(model: Any) -> tuple[list[Any], int | None]:
    """The trees of a tree or forest and the number of classes (None for a regressor)."""
    estimators = list(getattr(model, "estimators_", [model]))
    if getattr(model, "n_outputs_", 1) != 1 and is_classifier(model):
        raise ExportError(
            f"{type(model).__name__} was fitted on {model.n_outputs_} outputs; multi-output classifiers "
            "return one probability matrix per output and have no ONNX converter. Fit one classifier per output."
        )
    n_classes = int(model.n_classes_) if is_classifier(model) else None
    for estimator in estimators:
        if n_classes is not None and int(estimator.n_classes_) != n_classes:
            raise ExportError(
                f"A tree of {type(model).__name__} knows {estimator.n_classes_} classes, the forest {n_classes}."
            )
    return estimators, n_classes


@register(
    DecisionTreeRegressor,
    ExtraTreeRegressor,
    RandomForestRegressor,
    ExtraTreesRegressor,
    methods=regressor_methods,
)
@register(
    DecisionTreeClassifier,
    ExtraTreeClassifier,
    RandomForestClassifier,
    ExtraTreesClassifier,
    methods=classifier_methods,
)
def convert_forest(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """A decision tree or a forest: leaves summed in tree order, then divided by the number of trees."""
    _check_method(model, method)
    estimators, n_classes = _forest_parts(model)
    n_targets = n_classes if n_classes is not None else int(getattr(model, "n_outputs_", 1))

    def build() -> str:
        trees: list[Tree] = []
        for estimator in estimators:
            trees.extend(sklearn_tree(estimator.tree_, _leaf_values(estimator, n_classes)))
        scores = tree_ensemble(g, x, trees, n_features=int(model.n_features_in_), n_targets=n_targets)
        if hasattr(model, "estimators_"):
            scores = g.op("Div", [scores, g.const(np.array([float(len(estimators))]), "n_trees")], hint="mean")
        return scores

    scores = shared_scores(g, model, x, build)
    if n_classes is not None:
        return scores if method == "predict_proba" else labels(g, scores, model.classes_)
    return vector(g, scores) if n_targets == 1 else scores


# -- gradient boosting ------------------------------------------------------------------------------


def _gb_init(model: Any) -> np.ndarray:
    """The init estimator's raw prediction (one value per tree of a stage), which must be constant."""
    init = model.init_
    n_columns = int(model.estimators_.shape[1])
    if isinstance(init, str) and init == "zero":
        return np.zeros(n_columns)
    constant = isinstance(init, DummyRegressor) or (
        isinstance(init, DummyClassifier) and init.strategy in ("prior", "most_frequent", "uniform", "constant")
    )
    if not constant:
        raise ExportError(
            f"{type(model).__name__} has init={init!r}; only 'zero' and scikit-learn's constant "
            "DummyRegressor / DummyClassifier (the default) can be exported. Refit with init=None."
        )
    row = np.zeros((1, int(model.n_features_in_)), dtype=np.float32)
    with warnings.catch_warnings():  # a one-row probe of the constant init; feature names do not matter
        warnings.simplefilter("ignore")
        raw = np.asarray(model._raw_predict_init(row), dtype=np.float64)
    return raw.reshape(-1)


def _gb_link(model: Any) -> tuple[str, float]:
    """``(kind, scale)``: kind in identity, logistic, softmax; raw scores are multiplied by ``scale``."""
    loss = model._loss
    name = type(loss).__name__
    if not is_classifier(model):
        return "identity", 1.0
    if name == "HalfBinomialLoss":
        return "logistic", 1.0
    if name == "HalfMultinomialLoss":
        return "softmax", 1.0
    if name == "ExponentialLoss":  # predict_proba = expit(2 * raw)
        return "logistic", 2.0
    raise ExportError(f"{type(model).__name__} with the loss {name} has no ONNX converter.")  # pragma: no cover


def _boosting_classifier_methods(model: Any) -> tuple[str, ...]:
    """A gradient boosting classifier's methods: its raw scores too."""
    return (*classifier_methods(model), "decision_function")


@register(GradientBoostingRegressor, methods=regressor_methods)
@register(GradientBoostingClassifier, methods=_boosting_classifier_methods)
def convert_gradient_boosting(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """``init + sum(learning_rate * leaf)`` over the stages, then the loss's inverse link."""
    if method != "decision_function":
        _check_method(model, method)
    kind, scale = _gb_link(model)
    init = _gb_init(model)
    stages = np.asarray(model.estimators_)
    n_columns = stages.shape[1]
    learning_rate = float(model.learning_rate)

    def build() -> str:
        trees: list[Tree] = [single_leaf(init[k] * scale, k) for k in range(n_columns) if init[k] != 0.0]
        for stage in stages:
            for k, estimator in enumerate(stage):
                weights = learning_rate * np.asarray(estimator.tree_.value, dtype=np.float64)[:, 0, 0]
                trees.extend(sklearn_tree(estimator.tree_, weights * scale, target_offset=k))
        return tree_ensemble(g, x, trees, n_features=int(model.n_features_in_), n_targets=n_columns)

    scores = shared_scores(g, model, x, build)
    if kind == "identity":
        return vector(g, scores)
    if method == "decision_function":  # the raw scores (the leaves were scaled by a power of 2: exact back)
        raw = scores if scale == 1.0 else g.op("Div", [scores, g.const(scale, "scale")], hint="raw")
        return vector(g, raw) if n_columns == 1 else raw
    if method == "predict_proba":
        return probabilities(g, scores, kind, n_columns)
    if kind == "logistic":
        return binary_labels(g, scores, model.classes_, strict=False)
    return labels(g, scores, model.classes_)


from wirework.export import sklearn_hist  # noqa: E402,F401  (registers HistGradientBoosting*)
