"""Functions the recipes place in static nodes (module-level, so networks pickle)."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.metrics import r2_score
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state
from sklearn.utils.random import sample_without_replacement

from wirework.errors import DataError, GraphError
from wirework.graph.data import describe, n_rows, take_rows, whole
from wirework.graph.library import hcat

__all__ = [
    "cv_splits",
    "take",
    "gather",
    "every_class",
    "column_names",
    "meta_features",
    "bootstrap_rows",
    "drawn_rows",
    "draw_size",
    "draw_counts",
    "draws",
    "sample_sets",
    "weighted_mean",
    "log_of",
    "argmax",
    "majority",
    "drawn_columns",
    "drawn_column_sets",
    "subspace",
    "feature_subset",
    "feature_sets",
    "member_columns",
    "out_of_bag",
    "every_tenth",
    "inverse_holds",
    "no_target",
]


def private_rng(random_state: Any) -> np.random.RandomState:
    """A generator seeded by ``random_state`` that never advances the caller's own ``RandomState``.

    Building a network (also done by ``hasattr(composite, "predict")``) must
    not change a hyperparameter object, so a ``RandomState`` is copied first.
    """
    if isinstance(random_state, np.random.RandomState):
        return copy.deepcopy(random_state)
    return check_random_state(random_state)


def seeded_cv(cv: Any, classifier: bool, random_state: Any) -> Any:
    """``cv`` as a splitter; a shuffling splitter without seed gets one from ``random_state``.

    An int stays an int (``check_cv`` picks the splitter with the data); an
    iterable of ``(train, test)`` pairs becomes scikit-learn's splitter over
    them.

    A fixed seed makes the splits a pure function of the data, so every fit
    pass (and every learner) sees the same folds.
    """
    if whole(cv):
        return int(cv)
    if cv is not None and not hasattr(cv, "split") and hasattr(cv, "__iter__") and not isinstance(cv, str):
        splitter = check_cv(cv)  # (train, test) pairs, as scikit-learn takes them: read once, kept as a splitter
        if not splitter.cv:
            raise GraphError(
                f"cv holds no (train, test) splits. Received: {describe(cv)}. Give an int, a splitter such as "
                "KFold(5), or a non-empty list of (train, test) index arrays."
            )
        return splitter
    if hasattr(cv, "random_state") and getattr(cv, "shuffle", True) and cv.random_state is None:
        cv = copy.deepcopy(cv)
        seed = private_rng(random_state).randint(np.iinfo(np.int32).max)
        cv.random_state = int(seed)
    return cv


def cv_splits(X: Any, y: Any, cv: Any, classifier: bool) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The (train, test) row positions of each split of ``cv``; the tests must partition the rows."""
    rows = n_rows(X)
    try:
        splitter = check_cv(cv, y=y, classifier=classifier)
        n_splits = splitter.get_n_splits(X, y)
        if n_splits > rows:
            raise DataError(
                f"cv asks for {n_splits} folds but the training data has only n_samples={rows} rows. "
                f"Use cv <= {rows} (or more data)."
            )
        splits = tuple((np.asarray(train), np.asarray(test)) for train, test in splitter.split(X, y))
    except (ValueError, TypeError) as exc:
        if isinstance(exc, DataError):
            raise
        hint = (
            " A stack gives its splitter no groups, as scikit-learn's stacking gives none: give cv the splits "
            "themselves, cv=list(splitter.split(X, y, groups))."
            if "groups" in str(exc)
            else ""
        )
        raise DataError(f"cv={cv!r} cannot split this data: {exc}{hint}") from exc
    tested = np.sort(np.concatenate([test for _, test in splits]))
    if len(tested) != rows or not np.array_equal(tested, np.arange(rows)):
        raise DataError(
            f"Out-of-fold predictions need splits whose test sets partition the rows; {splitter!r} does not. "
            "Use KFold, StratifiedKFold or another partitioning splitter."
        )
    return splits


def take(X: Any, splits: tuple, i: int, part: int) -> Any:
    """Rows of ``X`` in part ``part`` (0 train, 1 test) of split ``i``."""
    return take_rows(X, splits[i][part])


def gather(splits: tuple, *predictions: Any, target: Any = None, method: str | None = None) -> np.ndarray:
    """Out-of-fold predictions put back in the original row order.

    With ``target`` (a classifier's labels, encoded ``0..k-1``) and the
    ``method`` that gave them (``"predict_proba"`` or ``"decision_function"``),
    each fold's predictions get one column per class first, as scikit-learn's
    ``cross_val_predict`` gives them (see :func:`every_class`).
    """
    if target is not None:
        labels = np.asarray(target)
        n_classes = len(np.unique(labels))
        predictions = tuple(
            every_class(values, np.unique(labels[train]), n_classes, method)
            for (train, _), values in zip(splits, predictions)
        )
    first = np.asarray(predictions[0])
    rows = sum(len(test) for _, test in splits)
    out = np.empty((rows, *first.shape[1:]), dtype=np.result_type(*[np.asarray(p).dtype for p in predictions]))
    for (_, test), values in zip(splits, predictions):
        out[test] = np.asarray(values)
    return out


#: scikit-learn's advice when a training fold lacks a class (``cross_val_predict``'s words).
_STRATIFY = "To fix this, use a cross-validation technique resulting in properly stratified folds"


def every_class(values: Any, seen: np.ndarray, n_classes: int, method: str | None) -> np.ndarray:
    """A fold's ``method`` output with one column per class, as scikit-learn's ``cross_val_predict`` makes it.

    ``seen``: the (encoded) classes the fold trained on. When some class is
    missing, scikit-learn's ``RuntimeWarning`` is raised and its column is
    added: probability 0, or the lowest float for ``decision_function``
    (whose one-column output for one or two classes cannot be widened:
    refused, as scikit-learn refuses it).
    """
    values = np.asarray(values)
    if len(seen) == n_classes:
        return values
    warnings.warn(
        f"Number of classes in training fold ({len(seen)}) does not match total number of classes ({n_classes}). "
        f"Results may not be appropriate for your use case. {_STRATIFY}",
        RuntimeWarning,
        stacklevel=2,
    )
    if method == "decision_function" and len(seen) <= 2:
        raise DataError(
            f"Only {len(seen)} class/es in training fold, but {n_classes} in overall dataset. This is not "
            f"supported for decision_function with imbalanced folds. {_STRATIFY}, or use "
            "stack_method='predict_proba'."
        )
    if values.ndim != 2 or values.shape[1] != len(seen):
        raise DataError(
            f"{method} of a model trained on a fold of {len(seen)} classes gave an output of shape {values.shape}, "
            f"not one column per class, so the columns of the {n_classes - len(seen)} missing classes cannot be "
            f"added. {_STRATIFY}."
        )
    fill = 0 if method == "predict_proba" else np.finfo(values.dtype).min
    full = np.full((len(values), n_classes), fill, dtype=values.dtype)
    full[:, seen] = values
    return full


def column_names(labels: tuple[str, ...], widths: list[int]) -> list[str]:
    """Column names of predictions ``widths`` columns wide: the label, or the label and the column's number
    (after ``_`` when the label ends with a digit)."""
    names = []
    for label, width in zip(labels, widths):
        if width == 1:
            names.append(label)
        else:
            joint = "_" if label[-1:].isdigit() else ""
            names.extend(f"{label}{joint}{k}" for k in range(width))
    return names


def meta_features(
    *predictions: Any, probabilities: tuple[bool, ...], passthrough: Any = None, labels: tuple[str, ...] | None = None
) -> Any:
    """Predictions of the base learners as columns (binary probabilities keep one column).

    As scikit-learn's stacking: a 1-D prediction is one column; a
    ``predict_proba`` output (``probabilities[i]``) with two columns keeps
    its second column only. ``passthrough`` data is appended after the
    predictions (sparse: in its layout); when it is a DataFrame, so is the result, its prediction
    columns named by :func:`column_names` of ``labels`` (one per prediction),
    unless ``passthrough`` has columns that are not strings (no feature names
    to scikit-learn: the composite predicts from the array its check makes)
    or one named like a prediction column: then an array, as scikit-learn's
    stacking always gives.
    """
    columns = []
    for values, is_proba in zip(predictions, probabilities):
        values = np.asarray(values)
        if values.ndim == 1:
            values = values.reshape(-1, 1)
        elif is_proba and values.shape[1] == 2:
            values = values[:, 1:]
        columns.append(values)
    stacked = np.hstack(columns)
    if passthrough is None:
        return stacked
    if sp.issparse(passthrough):  # in X's layout, as scikit-learn's stacking joins them (CSC stays CSC)
        return sp.hstack([*columns, passthrough], format=passthrough.format)
    if labels is not None and isinstance(passthrough, pd.DataFrame):
        names = column_names(labels, [c.shape[1] for c in columns])
        named = all(isinstance(c, str) for c in passthrough.columns)  # else scikit-learn sees no feature names
        if not named or not set(names).isdisjoint(passthrough.columns):  # (or a raw column named like a prediction)
            return np.hstack([stacked, passthrough.to_numpy()])  # plain columns, as scikit-learn's stacking gives
        stacked = pd.DataFrame(stacked, columns=names, index=passthrough.index)
    return hcat(stacked, passthrough)


def bootstrap_rows(
    y: Any,
    seed: int,
    max_samples: float | int | None,
    classes: bool,
    replace: bool = True,
    X: Any = None,
    max_features: float | int = 1.0,
    bootstrap_features: bool = False,
    sample_weight: Any = None,
) -> np.ndarray:
    """:func:`drawn_rows`, sorted: what the members of a ``Bagging`` pickled before 2026-12 trained on (its
    next fit builds it again, see ``Bagging._network_for``; members now train on the rows in the order drawn)."""
    drawn = drawn_rows(y, seed, max_samples, classes, replace, X, max_features, bootstrap_features, sample_weight)
    return np.sort(drawn)


def drawn_rows(
    y: Any,
    seed: int,
    max_samples: float | int | None,
    classes: bool,
    replace: bool = True,
    X: Any = None,
    max_features: float | int = 1.0,
    bootstrap_features: bool = False,
    sample_weight: Any = None,
) -> np.ndarray:
    """The row positions of one member's draw, in the order drawn, then for ``classes`` one row of each class
    the draw lacks.

    Drawn as scikit-learn's bagging draws a member's rows: from
    ``RandomState(seed)``, after the member's columns (:func:`drawn_columns`
    of ``X``'s, replayed when ``X`` is given, as they come first), each row
    with a probability proportional to its ``sample_weight`` when given
    (``RandomState.choice``), so a member of the same seed trains on the
    same rows (a class missing from the draw gets a row of its own added
    after, which scikit-learn's does not).
    """
    width = None if X is None else np.shape(X)[1]
    options = (max_features, bootstrap_features, sample_weight)
    rng, drawn = _rows_drawn(n_rows(y), seed, max_samples, replace, width, *options)
    if classes:
        drawn = np.concatenate([drawn, _class_rows(y, drawn, rng)])
    return drawn


def _rows_drawn(
    rows: int,
    seed: int,
    max_samples: float | int | None,
    replace: bool,
    width: int | None,
    max_features: float | int,
    bootstrap_features: bool,
    sample_weight: Any = None,
) -> tuple[np.random.RandomState, np.ndarray]:
    """``RandomState(seed)`` after one member's draw of ``max_samples`` of ``rows`` row positions (after its
    columns, replayed when ``width`` is given; in proportion to ``sample_weight`` when given), and the positions
    drawn."""
    size = _count(max_samples, rows)
    if size > rows and not replace:  # with replacement, as many as asked for (scikit-learn's bagging too)
        raise DataError(
            f"max_samples gives {size} rows per member, more than the {rows} rows of the training data, which a "
            f"draw without replacement (bootstrap=False) cannot give. Use max_samples <= {rows}, or bootstrap=True."
        )
    rng = np.random.RandomState(seed)
    if width is not None:
        _columns_drawn(width, rng, max_features, bootstrap_features)
    if sample_weight is not None:  # as scikit-learn's bagging draws with weights
        weights = np.asarray(sample_weight)
        return rng, np.asarray(rng.choice(rows, size, replace=replace, p=weights / np.sum(weights)))
    drawn = rng.randint(0, rows, size=size) if replace else sample_without_replacement(rows, size, random_state=rng)
    return rng, np.asarray(drawn)


def draw_size(
    y: Any, max_samples: float | int | None, replace: bool, sample_weight: Any = None, owner: str = "Bagging"
) -> int:
    """How many rows each member of ``owner`` (a bagging) draws, as scikit-learn's bagging counts them: all for
    ``None``, a count as it is, a fraction of the rows (of the weights' sum with ``sample_weight``), with its
    warnings (a fraction giving few rows; weights without replacement). A ``DataError`` for a negative weight, or
    more rows than a draw without replacement can give."""
    rows = n_rows(y)
    if sample_weight is None:
        total, of = rows, f"the number of samples is {rows}"
    else:
        weights = np.asarray(sample_weight)
        if (weights < 0).any():
            raise DataError(
                f"{owner} draws each member's rows with probabilities proportional to sample_weight, as "
                f"scikit-learn's bagging does, so the weights must be non-negative. Received {int((weights < 0).sum())} "
                "negative weights. Give non-negative weights (a weight 0 never draws its row)."
            )
        total, of = float(weights.sum()), f"the total sum of sample weights is {float(weights.sum())}"
        if not replace:
            warnings.warn(
                f"When fitting {owner} with sample_weight it is recommended to use bootstrap=True, got False.",
                UserWarning,
                stacklevel=2,
            )
    size = rows if max_samples is None else _count(max_samples, total)
    if not whole(max_samples) and max_samples is not None and size < max(10, rows ** (1 / 3)):
        warnings.warn(
            f"Using the fractional value max_samples={max_samples} when {of} results in a low number ({size}) of "
            "bootstrap samples. We recommend passing `max_samples` as an integer instead.",
            UserWarning,
            stacklevel=2,
        )
    possible = rows if sample_weight is None else int(np.count_nonzero(sample_weight))
    if size > possible and not replace:
        fraction = sample_weight is not None and max_samples is not None and not whole(max_samples)
        share = f" ({max_samples} of the weights' sum)" if fraction else ""
        what = "of the" if sample_weight is None else "of non-zero weight in the"
        raise DataError(
            f"{owner}: max_samples gives {size} rows per member{share}, more than the {possible} rows {what} "
            f"training data, which a draw without replacement (bootstrap=False) cannot give. Use max_samples <= "
            f"{possible}, or bootstrap=True."
        )
    return size


def draw_counts(rows: Any, y: Any) -> np.ndarray:
    """How many times a member's draw took each row of ``y``: the weights scikit-learn's bagging trains a member
    with, on all the rows, when its ``fit`` takes them."""
    return np.bincount(rows, minlength=n_rows(y))


def _class_rows(y: Any, drawn: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """One row of each class of ``y`` that the rows ``drawn`` lack, picked by ``rng`` (empty when none does)."""
    labels = np.asarray(y)
    missing = np.setdiff1d(np.unique(labels), labels[drawn])
    return np.asarray([rng.choice(np.flatnonzero(labels == label)) for label in missing], dtype=drawn.dtype)


def draws(
    y: Any,
    *,
    seeds: tuple[int, ...],
    max_samples: float | int | None,
    classes: bool,
    replace: bool = True,
    X: Any = None,
    max_features: float | int = 1.0,
    bootstrap_features: bool = False,
    sample_weight: Any = None,
) -> dict[str, Any]:
    """What :func:`sample_sets` needs to draw every member's rows again without the training data: the
    parameters of the draws (the weights that gave their probabilities, as scikit-learn's bagging keeps them), the
    number of training rows (and columns, when the columns are drawn first), and for ``classes`` the rows added to
    each member's draw for the classes it lacks."""
    rows, width = n_rows(y), None if X is None else int(np.shape(X)[1])
    options = (max_features, bootstrap_features, sample_weight)
    added = None
    if classes:
        added = []
        for seed in seeds:
            rng, drawn = _rows_drawn(rows, seed, max_samples, replace, width, *options)
            added.append(_class_rows(y, drawn, rng))
    return {
        "rows": rows, "width": width, "seeds": tuple(seeds), "max_samples": max_samples, "replace": bool(replace),
        "max_features": max_features, "bootstrap_features": bool(bootstrap_features), "added": added,
        "sample_weight": sample_weight,
    }


def sample_sets(record: dict[str, Any]) -> list[np.ndarray]:
    """Each member's rows as :func:`drawn_rows` gives them (in the order drawn, then the rows added for missing
    classes), drawn again from a :func:`draws` record (one made before the draws could be weighted included)."""
    options = [record[k] for k in ("max_samples", "replace", "width", "max_features", "bootstrap_features")]
    options.append(record.get("sample_weight"))
    sets = [_rows_drawn(record["rows"], seed, *options)[1] for seed in record["seeds"]]
    if record["added"] is None:
        return sets
    return [np.concatenate([drawn, added]) for drawn, added in zip(sets, record["added"])]


def _count(share: float | int | None, total: float) -> int:
    """How many of ``total``: all for ``None``, an int as it is, a fraction of ``total`` rounded down (at least
    one), as scikit-learn's bagging counts its rows and columns (``max(1, int(share * total))``)."""
    if share is None:
        return int(total)
    return int(share) if whole(share) else max(1, int(share * total))


def _columns_drawn(
    width: int, rng: np.random.RandomState, max_features: float | int, bootstrap_features: bool = False
) -> np.ndarray:
    """``max_features`` of ``width`` column positions drawn from ``rng`` as scikit-learn's bagging draws them, in
    the order drawn: without replacement (all of them in order, drawing nothing, when that is every column), or
    with ``bootstrap_features`` with replacement (``rng.randint``)."""
    size = _count(max_features, width)
    if size > width:
        raise DataError(f"max_features gives {size} columns per member; it must give between 1 and {width}.")
    if bootstrap_features:
        return np.asarray(rng.randint(0, width, size))
    return np.asarray(sample_without_replacement(width, size, random_state=rng))


def drawn_columns(width: int, seed: int, max_features: float | int, bootstrap_features: bool = False) -> np.ndarray:
    """The column positions one bagging member sees, as scikit-learn's bagging draws them: ``max_features`` of
    ``width`` from ``RandomState(seed)``, without replacement, in the order drawn (all of them, in order, when that
    is every column), or with ``bootstrap_features`` with replacement (a column may come twice)."""
    return _columns_drawn(width, np.random.RandomState(seed), max_features, bootstrap_features)


def drawn_column_sets(
    X: Any, *, seeds: tuple[int, ...], max_features: float | int, bootstrap_features: bool = False
) -> list[np.ndarray]:
    """Each member's :func:`drawn_columns` of ``X``'s, in the order of ``seeds``."""
    return [drawn_columns(np.shape(X)[1], seed, max_features, bootstrap_features) for seed in seeds]


def subspace(X: Any, *, seed: int, max_features: float | int, bootstrap_features: bool = False) -> Any:
    """The columns of ``X`` that the member drawn with ``seed`` sees (:func:`drawn_columns`), in that order (``X``
    itself when they are all of them, drawn without replacement, as scikit-learn's bagging then takes ``X``)."""
    columns = drawn_columns(np.shape(X)[1], seed, max_features, bootstrap_features)
    return _take_columns(X, columns, whole=not bootstrap_features)


def _take_columns(X: Any, columns: np.ndarray, whole: bool = True) -> Any:
    """``X``'s columns at the positions ``columns``, in that order (``X`` itself when ``whole`` and they are as
    many as its columns: every one, drawn without replacement)."""
    if whole and len(columns) == np.shape(X)[1]:
        return X
    return X.iloc[:, columns] if isinstance(X, pd.DataFrame) else X[:, columns]


# The draws of columns of networks built before the draws were scikit-learn's (a fraction rounded to the nearest,
# sorted positions from RandomState([seed, 1])): kept so that a bagging pickled then predicts with the columns its
# members trained on. New networks use drawn_columns, drawn_column_sets and subspace.


def feature_subset(width: int, seed: int, max_features: float | int) -> np.ndarray:
    """The sorted column positions one member of a bagging pickled before :func:`drawn_columns` sees."""
    size = int(max_features) if whole(max_features) else max(1, int(round(max_features * width)))
    if not 1 <= size <= width:
        raise DataError(f"max_features gives {size} columns per member; it must give between 1 and {width}.")
    if size == width:
        return np.arange(width)
    return np.sort(np.random.RandomState([seed, 1]).permutation(width)[:size])


def feature_sets(X: Any, *, seeds: tuple[int, ...], max_features: float | int) -> list[np.ndarray]:
    """Each member's :func:`feature_subset` of ``X``'s columns (a bagging pickled before :func:`drawn_columns`)."""
    return [feature_subset(np.shape(X)[1], seed, max_features) for seed in seeds]


def member_columns(X: Any, *, seed: int, max_features: float | int) -> Any:
    """The columns of ``X`` that a member of a bagging pickled before :func:`subspace` sees (:func:`feature_subset`)."""
    return _take_columns(X, feature_subset(np.shape(X)[1], seed, max_features))


def out_of_bag(y: Any, *drawn_and_predicted: Any, classes: bool) -> tuple[float, np.ndarray]:
    """The out-of-bag score and predictions of a bagging, as scikit-learn computes them.

    ``drawn_and_predicted``: each member's drawn rows, then each member's
    predictions (probabilities for classifiers) on all the training rows.
    Each row averages the members that did not draw it; a row every member
    drew gets no estimate (a zero prediction, or NaN probabilities), with
    scikit-learn's warning.
    """
    half = len(drawn_and_predicted) // 2
    drawn, predicted = drawn_and_predicted[:half], drawn_and_predicted[half:]
    rows = n_rows(y)
    total = np.zeros(np.shape(predicted[0]))
    count = np.zeros(rows)
    for rows_drawn, values in zip(drawn, predicted):
        out = np.ones(rows, dtype=bool)
        out[rows_drawn] = False
        total[out] += np.asarray(values, dtype=float)[out]
        count[out] += 1
    if (count == 0).any():
        warnings.warn(
            "Some inputs do not have OOB scores. This probably means too few estimators were used to compute "
            "any reliable oob estimates.",
            UserWarning,
            stacklevel=2,
        )
    if classes:
        sums = total.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):  # rows without an estimate: NaN, as scikit-learn's
            probabilities = total / sums[:, np.newaxis]
        return float(np.mean(np.asarray(y) == total.argmax(axis=1))), probabilities
    count[count == 0] = 1
    predictions = total / (count if total.ndim == 1 else count[:, np.newaxis])
    return float(r2_score(y, predictions)), predictions


def weighted_mean(*values: Any, weights: tuple[float, ...] | None = None) -> np.ndarray:
    """Weighted elementwise mean of several predictions of one shape (a ``DataError`` otherwise)."""
    arrays = [np.asarray(v, dtype=float) for v in values]
    if any(a.shape != arrays[0].shape for a in arrays):  # (n, 1) beside (n,): NumPy would broadcast to (n, n)
        raise DataError(f"The models' outputs have different shapes, {[a.shape for a in arrays]}, so they cannot "
                        "be averaged row by row. Make each model predict the same shape (one target: a 1-D array).")
    if weights is None:
        return sum(arrays[1:], arrays[0]) / len(arrays)
    total = sum(w * a for w, a in zip(weights, arrays))
    return total / float(sum(weights))


def side_by_side(*predictions: Any, flatten: bool = True) -> np.ndarray:
    """Each model's predictions as columns, in order (scikit-learn's voting ``transform``): a 1-D prediction one
    column, probabilities all theirs; ``flatten=False``: the models' outputs stacked, ``(models, rows, ...)``."""
    arrays = [np.asarray(p) for p in predictions]
    return np.column_stack(arrays) if flatten else np.asarray(arrays)


def majority(*predictions: Any, weights: tuple[float, ...] | None = None) -> np.ndarray:
    """Per row, the (weighted) most frequent of several models' encoded labels; a tie goes to the smallest."""
    votes = np.column_stack([np.asarray(p).astype(np.intp, copy=False) for p in predictions])
    rows = np.arange(len(votes))
    counts = np.zeros((len(votes), int(votes.max(initial=0)) + 1))
    for k in range(votes.shape[1]):  # model by model, as scikit-learn's bincount adds them
        counts[rows, votes[:, k]] += 1.0 if weights is None else weights[k]
    return counts.argmax(axis=1)


def log_of(probabilities: Any) -> np.ndarray:
    """The natural log of probabilities (a bagging's of members without ``predict_log_proba``); a probability 0
    gives ``-inf`` without a warning."""
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(probabilities, dtype=float))


def argmax(probabilities: Any) -> np.ndarray:
    """Column of the largest value in each row."""
    return np.asarray(probabilities).argmax(axis=1)


def every_tenth(y: Any) -> Any:
    """The rows scikit-learn's ``TransformedTargetRegressor`` checks its transformer's inverse on:
    every ``len(y) // 10``-th row (every row below 20)."""
    return take_rows(y, np.arange(0, n_rows(y), max(1, n_rows(y) // 10)))


def inverse_holds(y: Any, recovered: Any) -> bool:
    """Whether the target transformer's ``inverse_transform`` gave back ``y`` (``np.allclose``); warns if not.

    The warning is scikit-learn's ``TransformedTargetRegressor``'s, raised
    when the transformer is trained.
    """
    y, recovered = np.asarray(y, dtype=float), np.asarray(recovered, dtype=float)
    holds = y.shape == recovered.shape and bool(np.allclose(y, recovered))
    if not holds:
        warnings.warn(
            "The provided functions or transformer are not strictly inverse of each other. If you are sure you "
            "want to proceed regardless, set 'check_inverse=False'",
            UserWarning,
            stacklevel=2,
        )
    return holds


def no_target(X: Any) -> None:
    """``None``: the ``y`` of an unsupervised machine that trains with weights (``X, None, sample_weight``)."""
    return None


def plain_target(y: Any) -> Any:
    """``y`` as scikit-learn's ``TransformedTargetRegressor`` gives it to its transformer: a pandas target as a
    NumPy array (a transformer fitted on a named column would warn when given the regressor's predictions)."""
    return y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y
