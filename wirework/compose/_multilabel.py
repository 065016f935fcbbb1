"""A multilabel target (a 2-D 0/1 indicator) through ``ww.Stack``, as scikit-learn's ``StackingClassifier`` takes it.

Static-node functions (module-level, so networks pickle) and the check of
the target. scikit-learn's stacking encodes each label's column on its own
(one ``LabelEncoder`` per column: here one ``OrdinalEncoder``), splits the
rows with ``KFold`` (a multilabel target is not stratified), and takes from
each base learner either one array per label (``RandomForestClassifier``'s,
``KNeighborsClassifier``'s ``predict_proba``: a list), whose first column
it drops, or one array of a column per label (``MLPClassifier``'s
probabilities, ``RidgeClassifier``'s decisions, any ``predict``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.multiclass import type_of_target

from wirework.compose import _ops
from wirework.errors import DataError

__all__: list[str] = []


def is_multilabel(y: Any) -> bool:
    """Whether ``y`` (checked) is a multilabel indicator, scikit-learn's ``type_of_target``: 2-D, several columns,
    at most two values, integers (or floats that are)."""
    try:
        return np.ndim(y) == 2 and np.shape(y)[1] > 1 and type_of_target(y) == "multilabel-indicator"
    except (ValueError, TypeError):  # not a target at all: the check of the data says what is wrong
        return False


def gather(splits: tuple, *predictions: Any, target: Any = None, method: str | None = None) -> Any:
    """Out-of-fold ``method`` outputs of one base learner in the original row order, as scikit-learn's
    ``cross_val_predict`` gives them for a multilabel target.

    A list (one array per label) is gathered label by label, each fold's
    array given a column per class of that label first (a fold lacking one:
    :func:`~wirework.compose._ops.every_class`, with scikit-learn's warning);
    one array per fold (a column per label) is gathered as it is.
    """
    if not isinstance(predictions[0], list):
        return _ops.gather(splits, *predictions)
    labels = np.asarray(target)
    gathered = []
    for k in range(labels.shape[1]):
        n_classes = len(np.unique(labels[:, k]))
        per_fold = [
            _ops.every_class(values[k], np.unique(labels[train, k]), n_classes, method)
            for (train, _), values in zip(splits, predictions)
        ]
        gathered.append(_ops.gather(splits, *per_fold))
    return gathered


def columns(values: Any, *, probabilities: bool) -> np.ndarray:
    """One base learner's output as the columns scikit-learn's stacking gives its final estimator.

    A list of per-label probabilities: each label's columns but the first
    (``p[:, 1:]``, its other classes), side by side. One array: a 1-D one as
    a column; ``predict_proba``'s of two columns keeps the second only, as
    scikit-learn's stacking drops one when its ``classes_`` (for a multilabel
    target, one array per label) has two entries, that is two labels.
    """
    if isinstance(values, list):
        return np.hstack([np.asarray(label)[:, 1:] for label in values])
    values = np.asarray(values)
    if values.ndim == 1:
        return values.reshape(-1, 1)
    if probabilities and values.shape[1] == 2:
        return values[:, 1:]
    return values


def first_columns(probabilities: Any, *, owner: str, final: str) -> np.ndarray:
    """A stack's ``predict_proba`` of a multilabel target, as scikit-learn's ``StackingClassifier`` gives it: of
    the final estimator's per-label probabilities, each label's first column (the probability of its first class,
    ``0``: the label absent), as one ``(n, labels)`` array.

    Raises
    ------
    DataError
        The final estimator gives one array (``MLPClassifier``: a column per
        label), where scikit-learn's stacking fails (an ``IndexError``).
    """
    if isinstance(probabilities, list):
        return np.array([label[:, 0] for label in probabilities]).T
    raise DataError(
        f"{owner}.predict_proba takes each label's first column of the final estimator's per-label probabilities, "
        f"as scikit-learn's StackingClassifier does for a multilabel y, but the final estimator ({final}) gives one "
        f"array of shape {np.shape(probabilities)}, a column per label, where scikit-learn's stacking fails. Use "
        "predict(), or stack.final_estimator_.predict_proba(stack.transform(X)) for its probabilities, or a final "
        "estimator that gives one array per label (KNeighborsClassifier, RandomForestClassifier)."
    )


def widths(models: list[Any], methods: list[str], n_labels: int) -> list[int]:
    """How many columns each trained base learner gives the final estimator (see :func:`columns`): a model with
    one ``classes_`` array per label gives one array per label from ``predict_proba`` (scikit-learn's convention
    for several targets), so each label's classes but one; any other output, a column per label (one for two
    labels' probabilities)."""
    out = []
    for model, method in zip(models, methods):
        classes = getattr(model, "classes_", None)
        if method == "predict_proba" and isinstance(classes, list):
            out.append(sum(len(c) - 1 for c in classes))
        else:
            out.append(1 if method == "predict_proba" and n_labels == 2 else n_labels)
    return out
