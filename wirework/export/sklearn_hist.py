"""scikit-learn's ``HistGradientBoostingRegressor/Classifier`` as one ``TreeEnsemble``.

Facts of scikit-learn (1.6 - 1.9) this module reproduces, each checked
against the native ``predict`` in ``tests/export/test_sklearn_trees.py``:

- The raw score of target ``k`` is ``0 + baseline[k]`` plus, iteration by
  iteration, the leaf of predictor ``k`` (leaf values already carry the
  learning rate). The baseline is a single-leaf tree placed first, so the
  sum runs in the same order.
- Numeric splits compare the float64 input: ``x <= num_threshold`` goes
  left, NaN follows ``missing_go_to_left``.
  On a feature with more than ``max_bins`` distinct values the thresholds
  are quantiles of the training values, most of them training values: a
  float32 export, which compares the float32 value, sends a row holding such
  a value the other way when float32 rounds it up, and warns
  (:class:`~wirework.errors.PrecisionWarning`) unless the model was trained
  on at most ``max_bins`` rows (its thresholds are then all midpoints
  between two training values).
- Categorical features go through an internal ``OrdinalEncoder`` inside a
  ``ColumnTransformer`` that puts the categorical columns first; the nodes'
  ``feature_idx`` counts in that order and is mapped back to the original
  columns here. A category goes left when its code is in the node's
  ``raw_left_cat_bitsets``, right when it is another known category, and
  NaN, negative and unknown values follow ``missing_go_to_left``. The graph
  writes the set of codes (or raw values) that do *not* follow the missing
  direction as a MEMBER split, so everything else takes that direction.
- A categorical column is read as category codes (listed by
  :func:`hist_categories`, code ``i`` is ``values[i]`` of the model's
  ``OrdinalEncoder``) when it was selected by ``categorical_features=
  "from_dtype"`` or its categories are not numbers; otherwise (numeric
  categories, e.g. a numpy ``X`` with ``categorical_features=[...]``) the
  graph reads the raw values, which must be integers that fit in int32.
- Links: identity; ``Exp`` for the log link (poisson, gamma); the logistic
  for binary ``log_loss`` (class 1 when the raw score is ``> 0``);
  softmax for multiclass ``log_loss`` (labels by argmax of the raw
  scores).
- ONNX Runtime's set splits may truncate a non-integer input (its hash-set
  path, for sets with a code above 30, matches 3.5 with the member 3),
  where scikit-learn's encoder sees an unknown category: values
  of categorical columns that are not integers fitting in int32 are made
  NaN before the ensemble.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

from wirework.errors import ExportError, PrecisionWarning
from wirework.export.builder import GraphBuilder
from wirework.export.heads import binary_labels, labels, vector
from wirework.export.registry import register
from wirework.export.trees import Mode, Tree, moved_by_float32, single_leaf, tree_ensemble

__all__ = ["hist_categories", "convert_hist_gradient_boosting"]

_INT32 = np.iinfo(np.int32)


def _hist_methods(model: Any) -> tuple[str, ...]:
    if isinstance(model, HistGradientBoostingClassifier):
        return ("predict", "predict_proba", "decision_function")
    return ("predict",)


def _original_columns(model: Any) -> np.ndarray:
    """Original column index of each internal feature (the preprocessor puts categorical columns first)."""
    n = int(model.n_features_in_)
    preprocessor = getattr(model, "_preprocessor", None)
    if preprocessor is None:
        return np.arange(n)
    columns = np.full(n, -1, dtype=np.int64)
    for name, _, selection in preprocessor.transformers_:
        if name not in preprocessor.output_indices_:
            continue
        selected = np.asarray(selection)
        originals = np.flatnonzero(selected) if selected.dtype == bool else selected.astype(np.int64)
        positions = np.arange(n)[preprocessor.output_indices_[name]]
        if len(positions) != len(originals):
            raise ExportError(f"{type(model).__name__}: the internal column layout is not the one expected.")
        columns[positions] = originals
    if np.any(columns < 0) or len(set(columns.tolist())) != n:
        raise ExportError(f"{type(model).__name__}: could not map the internal columns back to the input columns.")
    return columns


def _encoder_categories(model: Any) -> dict[int, np.ndarray]:
    """Internal feature index -> the ``OrdinalEncoder``'s categories (without the trailing NaN)."""
    preprocessor = getattr(model, "_preprocessor", None)
    if preprocessor is None:
        return {}
    encoder = preprocessor.named_transformers_["encoder"]
    positions = np.arange(int(model.n_features_in_))[preprocessor.output_indices_["encoder"]]
    found = {}
    for position, values in zip(positions, encoder.categories_):
        values = np.asarray(values)
        if len(values) and values.dtype.kind in "fO" and _is_nan(values[-1]):
            values = values[:-1]
        found[int(position)] = values
    return found


def _is_nan(value: Any) -> bool:
    try:
        return bool(np.isnan(value))
    except TypeError:
        return False


def _reads_codes(model: Any, values: np.ndarray) -> bool:
    """Whether the graph reads this categorical column as category codes (else as raw numbers)."""
    if isinstance(model.categorical_features, str) and model.categorical_features == "from_dtype":
        return True
    return values.dtype.kind not in "iuf"


def hist_categories(model: Any) -> Mapping[int, np.ndarray]:
    """``{original column: category values}`` for the columns the graph reads as codes.

    Code ``i`` of a column stands for ``values[i]`` (the order of the model's
    internal ``OrdinalEncoder``); a code outside ``0 .. len(values)-1`` or NaN
    is an unknown or missing category.
    """
    columns = _original_columns(model)
    return {
        int(columns[f]): values for f, values in _encoder_categories(model).items() if _reads_codes(model, values)
    }


def _member_values(model: Any, feature: int, codes: np.ndarray, categories: dict[int, np.ndarray]) -> np.ndarray:
    """The input values standing for ``codes`` of internal categorical ``feature``."""
    values = categories.get(feature)
    if values is None or _reads_codes(model, values):
        return codes.astype(np.float64)
    raw = np.asarray(values[codes], dtype=np.float64)
    if np.any(raw != np.round(raw)) or raw.min() < _INT32.min or raw.max() > _INT32.max:
        raise ExportError(
            f"{type(model).__name__}: categorical column {feature} has category values that are not integers "
            f"fitting in int32 (e.g. {raw[:3]}); ONNX set splits need such codes. Encode the categories as "
            "integers 0..n-1 or as a pandas 'category' column."
        )
    return raw


def _left_codes(bitset: np.ndarray) -> np.ndarray:
    """Codes 0..255 whose bit is set in one row of a scikit-learn bitset (8 uint32 words)."""
    codes = np.arange(256)
    words = np.asarray(bitset, dtype=np.uint32)[codes // 32]
    return codes[((words >> (codes % 32).astype(np.uint32)) & 1).astype(bool)]


def _predictor_tree(
    model: Any, predictor: Any, target: int, columns: np.ndarray, categories: dict[int, np.ndarray]
) -> Tree:
    """One ``TreePredictor`` as a :class:`Tree` on the original columns."""
    nodes = predictor.nodes
    is_leaf = nodes["is_leaf"].astype(bool)
    if is_leaf[0]:
        return single_leaf(float(nodes["value"][0]), target)
    split_nodes = np.flatnonzero(~is_leaf)
    leaf_nodes = np.flatnonzero(is_leaf)
    index = np.zeros(len(nodes), dtype=np.int64)
    index[split_nodes] = np.arange(len(split_nodes))
    index[leaf_nodes] = ~np.arange(len(leaf_nodes))
    left = index[nodes["left"][split_nodes].astype(np.int64)]
    right = index[nodes["right"][split_nodes].astype(np.int64)]
    missing_left = nodes["missing_go_to_left"][split_nodes].astype(bool)
    internal = nodes["feature_idx"][split_nodes].astype(np.int64)
    mode = np.full(len(split_nodes), Mode.LEQ, dtype=np.uint8)
    split = nodes["num_threshold"][split_nodes].astype(np.float64)
    true_child, false_child, missing_true = left.copy(), right.copy(), missing_left.copy()
    members: dict[int, np.ndarray] = {}
    known_sets = model._bin_mapper.bin_thresholds_
    for i in np.flatnonzero(nodes["is_categorical"][split_nodes]):
        feature = int(internal[i])
        known = np.asarray(known_sets[feature], dtype=np.int64)
        went_left = _left_codes(predictor.raw_left_cat_bitsets[int(nodes["bitset_idx"][split_nodes[i]])])
        # the codes that do not follow the missing direction; everything else does
        if missing_left[i]:
            codes, when_in, otherwise = np.setdiff1d(known, went_left), right[i], left[i]
        else:
            codes, when_in, otherwise = np.intersect1d(known, went_left), left[i], right[i]
        mode[i], missing_true[i], false_child[i] = Mode.MEMBER, False, otherwise
        if codes.size:
            true_child[i] = when_in
            members[int(i)] = _member_values(model, feature, codes, categories)
        else:  # every category follows the missing direction: a split that always goes there
            mode[i], split[i], true_child[i], missing_true[i] = Mode.LEQ, np.inf, otherwise, True
    return Tree(
        feature=columns[internal],
        mode=mode,
        split=split,
        true_child=true_child,
        false_child=false_child,
        missing_true=missing_true,
        leaf_weight=nodes["value"][leaf_nodes].astype(np.float64),
        members=members,
        target=target,
    )


def _unknown_as_missing(g: GraphBuilder, x: str, categorical: np.ndarray) -> str:
    """``x`` with NaN in the categorical columns where the value is not an integer fitting in int32.

    scikit-learn's encoder maps such values (never a training category) to
    NaN, that is to the missing direction. ONNX Runtime's set splits would
    instead truncate them to an integer when the set has a code above 30
    (3.5 becomes a member when 3 is), so they are made NaN before the
    ensemble.
    """
    integral = g.op("Equal", [g.op("Floor", [x], hint="floor"), x], hint="integral")
    magnitude = g.op("Abs", [x], hint="magnitude")
    small = g.op("LessOrEqual", [magnitude, g.const(np.array([float(_INT32.max)]), "int32_max")], hint="fits_int32")
    code_like = g.op("And", [integral, small], hint="code_like")
    not_code = g.op("Not", [code_like], hint="not_code")
    unknown = g.op("And", [not_code, g.const(categorical, "categorical", dtype=bool)], hint="unknown")
    return g.op("Where", [unknown, g.const(np.array([np.nan]), "nan"), x], hint="x_categories")


def _training_rows(model: Any) -> int:
    """How many rows the model binned and trained on (its first tree's root count; after the early-stopping
    split, zero-weight rows included)."""
    return int(model._predictors[0][0].nodes["count"][0])


def _warn_float32(model: Any) -> None:
    """A :class:`~wirework.errors.PrecisionWarning` when a float32 file may send a training row the other way.

    HistGradientBoosting compares the float64 input with thresholds it
    takes from its training values. On a feature with more than ``max_bins``
    distinct values they are quantiles, most of them training values
    themselves: a row holding one that float32 rounds up goes right in the
    file and left natively (:func:`~wirework.export.trees.moved_by_float32`
    lists those thresholds; on the diabetes data 48 of the 442 training rows
    changed their prediction, on the breast cancer data 342 of 569). On a
    feature with at most ``max_bins`` distinct values they are midpoints
    between two consecutive ones, which no training row holds: a training
    row then moves only if two distinct values of the feature lie within
    one float32 step of each other. The model does not record which
    features had how many values, only how many rows it was trained on: a
    model trained on at most ``max_bins`` rows has only midpoints, and no
    warning (wine's 178 rows: no row moves). Trained on more rows, every
    threshold that float32 rounds up is counted, midpoints included.
    """
    if _training_rows(model) <= int(model.max_bins):
        return
    splits = [p.nodes[~p.nodes["is_leaf"].astype(bool) & ~p.nodes["is_categorical"].astype(bool)]
              for iteration in model._predictors for p in iteration]
    if not splits:
        return
    nodes = np.concatenate(splits)
    moved = moved_by_float32(nodes["num_threshold"])
    if not moved.any():
        return
    columns = _original_columns(model)[np.unique(nodes["feature_idx"][moved]).astype(np.int64)]
    warnings.warn(
        f"{type(model).__name__} exported in float32: {int(moved.sum())} of its {len(nodes)} numeric splits (on "
        f"input columns {sorted(columns.tolist())[:10]}{'...' if len(columns) > 10 else ''}) have a float64 "
        "threshold that float32 rounds up, so a row holding exactly that value goes the other way in the file. "
        f"Trained on {_training_rows(model)} rows (more than max_bins={model.max_bins}), HistGradientBoosting "
        "puts the thresholds of a feature with more distinct values on training values (on the diabetes data "
        "48 of the 442 training rows changed their prediction, by up to 16.1). Export with dtype='float64' to "
        "reproduce predict() bit for bit, or fit on float32 data (X.astype(np.float32)).",
        PrecisionWarning,
        stacklevel=4,
    )


@register(
    HistGradientBoostingRegressor, HistGradientBoostingClassifier, methods=_hist_methods, categories=hist_categories
)
def convert_hist_gradient_boosting(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """``baseline + sum of the predictors`` per target, then the loss's inverse link."""
    allowed = _hist_methods(model)
    if method not in allowed:
        raise ExportError(f"{type(model).__name__} exports {allowed}. Received method {method!r}.")
    link = type(model._loss.link).__name__
    classifier = isinstance(model, HistGradientBoostingClassifier)
    if link not in ("IdentityLink", "LogLink", "LogitLink", "MultinomialLogit"):
        raise ExportError(
            f"{type(model).__name__} with loss={model.loss!r} uses the link {link}, which has no ONNX converter."
        )
    from wirework.export.sklearn_trees import probabilities, shared_scores

    def build() -> str:
        columns = _original_columns(model)
        categories = _encoder_categories(model)
        baseline = np.asarray(model._baseline_prediction, dtype=np.float64).reshape(-1)
        trees = [single_leaf(baseline[k], k) for k in range(n_targets)]
        for iteration in model._predictors:
            for k, predictor in enumerate(iteration):
                trees.append(_predictor_tree(model, predictor, k, columns, categories))
        inputs = x
        if getattr(model, "is_categorical_", None) is not None and np.any(model.is_categorical_):
            inputs = _unknown_as_missing(g, x, np.asarray(model.is_categorical_, dtype=bool))
        scores = tree_ensemble(g, inputs, trees, n_features=int(model.n_features_in_), n_targets=n_targets)
        if g.dtype == np.float32:  # once the file is sure to be written
            _warn_float32(model)
        return scores

    n_targets = int(model.n_trees_per_iteration_)
    scores = shared_scores(g, model, x, build)
    if not classifier:
        prediction = vector(g, scores)
        return g.op("Exp", [prediction], hint="exp") if link == "LogLink" else prediction
    if method == "predict_proba":
        return probabilities(g, scores, "logistic" if n_targets == 1 else "softmax", n_targets, loop=True)
    if method == "decision_function":  # the raw scores: 1-D for two classes
        return vector(g, scores) if n_targets == 1 else scores
    if n_targets == 1:
        return binary_labels(g, scores, model.classes_, strict=True)
    return labels(g, scores, model.classes_)
