"""The checks of the data a composite is given, as scikit-learn's estimators check theirs.

:class:`_ComposedChecks` is the part of
:class:`~wirework.compose.composite.Composite` that checks ``X``, ``y`` and
``sample_weight`` at ``fit`` (setting ``n_features_in_`` and
``feature_names_in_``, and putting them back when the check refuses the
data) and ``X`` in each operation; the functions after it are
scikit-learn's ``validate_data`` for composites and the error a failed
check becomes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    _check_y,
    _get_feature_names,
    _num_samples,
    check_array,
    check_consistent_length,
    validate_data,
)

from wirework.errors import ArgumentError, DataError, WireworkError, brief

if TYPE_CHECKING:
    from wirework.compose.composite import Composite

__all__ = ["learns_several_targets"]


#: What scikit-learn's check of the training data sets on the estimator (and a refused fit puts back).
_INPUT_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


class _ComposedChecks:
    """The checks of a :class:`~wirework.compose.composite.Composite`'s data (a base of it, and of nothing else)."""

    def _check_fit_data(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, Any, Any]:
        """``X``, ``y`` and ``sample_weight`` checked as scikit-learn checks them (an ``X`` that
        :meth:`_raw_input` hands on unchecked: its number of rows only, and no ``n_features_in_``)."""
        kind = self._kind()
        if y is None and kind in ("classifier", "regressor"):
            raise DataError(
                f"{type(self).__name__} requires y to be passed, but the target y is None. Call fit(X, y)."
            )
        common = {
            "reset": True, "accept_sparse": ("csr", "csc"), "dtype": None, "ensure_all_finite": False,
            "raw": self._raw_input(),
        }
        kept = self._input_attributes()
        try:
            if y is None:
                checked_X, checked_y = _validate(self, X, **common), None
            else:
                multi = learns_several_targets(self) or self._takes_multilabel(y)
                if multi and sp.issparse(y):  # scikit-learn's check would take it as several targets
                    raise TypeError(
                        "Sparse data was passed for y, but dense data is required. Use '.toarray()' to convert to "
                        "a dense numpy array."
                    )
                checked_X, checked_y = _validate(self, X, y, multi_output=multi, **common)
                if kind == "classifier":
                    check_classification_targets(checked_y)
            if sample_weight is not None:
                sample_weight = _check_sample_weight(sample_weight, checked_X)
        except (ValueError, TypeError) as error:
            self._restore_input(kept)  # as the last fit left them (the check resets them)
            raise _unusable(self, "fit", error, _raw_advice(self, X, common["raw"])) from error
        if isinstance(y, (pd.Series, pd.DataFrame)) and checked_y.shape == y.shape:
            checked_y = y  # as scikit-learn's Pipeline hands it on: several targets keep their column names
        return (X if isinstance(X, pd.DataFrame) else checked_X), checked_y, sample_weight

    def _takes_multilabel(self, y: Any) -> bool:
        """Whether ``fit`` takes ``y``, a multilabel indicator, as it is though the ``multi_output`` tag is false:
        ``False`` here (``ww.Stack`` says when, as scikit-learn's ``StackingClassifier``, whose tag is false too)."""
        return False

    def _input_attributes(self) -> dict[str, Any]:
        """``n_features_in_`` and ``feature_names_in_`` as they are (those set), which the check of the data resets."""
        return {name: self.__dict__[name] for name in _INPUT_ATTRIBUTES if name in self.__dict__}

    def _restore_input(self, kept: dict[str, Any]) -> None:
        """Put back the attributes :meth:`_input_attributes` gave (a refused fit changes nothing)."""
        for name in _INPUT_ATTRIBUTES:
            self.__dict__.pop(name, None)
        self.__dict__.update(kept)

    def _check_input(self, X: Any, operation: str) -> Any:
        if self._built.raw:  # text, dicts...: the first model judges them (see _raw_input)
            return X
        if type(X) is np.ndarray and X.ndim == 2 and "feature_names_in_" not in self.__dict__:
            if X.shape[1] != self.n_features_in_:
                name = type(self).__name__
                raise DataError(  # scikit-learn's words, as the check below would say them
                    f"{name}.{operation} cannot use the data it received: X has {X.shape[1]} features, but "
                    f"{name} is expecting {self.n_features_in_} features as input."
                )
            return X
        try:
            checked = _validate(self, X, reset=False, accept_sparse=("csr", "csc"), dtype=None, ensure_all_finite=False)
        except (ValueError, TypeError) as error:
            if self._models_judge_columns(X, operation):
                return X
            raise _unusable(self, operation, error) from error
        # A DataFrame goes on as it is (its dtypes kept) to a network trained on one, whatever its column names (a
        # frame of pandas' default integer names has no feature names to scikit-learn, but is still a frame to
        # the models, as scikit-learn's Pipeline hands it on); a network trained on an array gets the array
        # scikit-learn's check made of it, as it trained.
        if isinstance(X, pd.DataFrame) and ("feature_names_in_" in self.__dict__ or self._built.frame):
            return X
        return checked

    def _models_judge_columns(self, X: Any, operation: str) -> bool:
        """Whether ``X``, a DataFrame whose column names differ from ``feature_names_in_`` (other order, extra
        or missing columns), goes on to the network as scikit-learn's ``Pipeline``, stacking and voting
        estimators hand it to their components: when only machines read ``X`` on the way to ``operation``'s
        output, their models judge its columns (a ``ColumnTransformer`` selects its own by name; a
        ``StandardScaler`` refuses other names, as a ``MachineApplyError`` quoting its message). Anything else
        reading ``X`` (a static node: a stack's passthrough columns, a bagging's column subsets) could take
        other columns for the ones it trained on, so the composite's own check refuses them."""
        if not isinstance(X, pd.DataFrame) or "feature_names_in_" not in self.__dict__:
            return False
        try:
            names = _get_feature_names(X)
        except TypeError:  # column names of mixed types: scikit-learn's check says so
            return False
        if names is None or np.array_equal(names, self.feature_names_in_):
            return False
        built = self.__dict__.get("_built")
        return built is not None and built.machines_read_X(operation)

    def _warned_of_names(self, X: Any, checked: Any) -> str | None:
        """The start of the warning the check in :meth:`_check_input` gave about ``X``'s column names, which the
        models inside would each give again (scikit-learn's composites warn once per inner model; this one warns
        once), or ``None``: ``X`` has none and the composite was fitted with them, or ``X``, a DataFrame with
        names, goes on to a network trained on a frame without (pandas' default integers)."""
        if "feature_names_in_" in self.__dict__:
            return "X does not have valid feature names" if _get_feature_names(X) is None else None
        if checked is X and isinstance(X, pd.DataFrame) and _get_feature_names(X) is not None:
            return "X has feature names"
        return None


def learns_several_targets(estimator: Any) -> bool:
    """The ``multi_output`` target tag of ``estimator``: whether it learns a 2-D ``y`` as several targets.

    ``False`` when its tags cannot be read (its ``fit`` then says what is wrong).
    """
    try:
        return bool(get_tags(estimator).target_tags.multi_output)
    except Exception:
        return False


def _validate(owner: Composite, X: Any, *y: Any, raw: bool = False, **options: Any) -> Any:
    """scikit-learn's ``validate_data(owner, X, *y, **options)``, which also takes a DataFrame whose columns no
    one NumPy dtype holds.

    Its ``check_array`` makes one array of a frame, and cannot when a
    categorical of strings sits beside a bool or nullable (``Int64``,
    ``Float64``, ``boolean``) column ("Cannot cast str dtype to float64"),
    or dates beside numbers; scikit-learn's ``Pipeline`` never asks it to,
    and hands the frame to its steps. A composite hands them the frame too
    (the array is not used), so such a frame is checked as columns of
    objects: its shape, column names and target are checked all the same.
    A frame whose columns are not those ``fit`` saw (``reset=False``) is not
    copied: the check refused it for that.

    ``raw`` (at fit): ``X`` is handed on as it is (see
    ``Composite._raw_input``); only its number of rows is checked, with
    ``y``, and it sets no ``n_features_in_`` or ``feature_names_in_``.
    """
    if raw:
        if _num_samples(X) < 1:
            raise ValueError(f"Found array with 0 sample(s) while a minimum of 1 is required by {type(owner).__name__}.")
        for name in _INPUT_ATTRIBUTES:  # no columns to count or name
            owner.__dict__.pop(name, None)
        if not y:
            return X
        checked = _check_y(y[0], multi_output=options.get("multi_output", False), estimator=owner)
        check_consistent_length(X, checked)
        return X, checked
    try:
        return validate_data(owner, X, *y, **options)
    except (ValueError, TypeError):
        if not isinstance(X, pd.DataFrame) or not (options.get("reset", True) or _as_fitted(owner, X)):
            raise
    return validate_data(owner, X.astype(object), *y, **options)


def _as_fitted(owner: Composite, X: pd.DataFrame) -> bool:
    """Whether the frame ``X`` has the columns ``owner``'s ``fit`` saw: its names, or their number."""
    seen = owner.__dict__.get("feature_names_in_")
    if seen is None:
        return X.shape[1] == owner.__dict__.get("n_features_in_")
    return X.shape[1] == len(seen) and all(str(name) == seen_name for name, seen_name in zip(X.columns, seen))


def _classes(y: Any) -> Any:
    """``classes_`` of a classifier trained on ``y``: its labels, or one array of labels per target, of the dtype
    scikit-learn's check gives them (pandas' nullable ``Int64`` and ``boolean`` labels are floats to its models)."""
    y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=False, ensure_min_samples=0, input_name="y")
    if y.ndim == 2 and y.shape[1] > 1:
        return [np.unique(column) for column in y.T]
    return np.unique(y)


def _raw_advice(owner: Composite, X: Any, raw: bool) -> str:
    """What to add to the error of a check that refused ``X``: for values in one dimension that are not numbers
    (texts, dicts), which the first model of a composite's own network may take as they are, how to hand them on
    unchecked (its ``_raw_input``); else nothing."""
    defined = next(kind for kind in type(owner).__mro__ if "_raw_input" in vars(kind))
    if raw or defined.__qualname__ != "Composite" or np.ndim(X) != 1 or sp.issparse(X):  # a recipe decides itself
        return ""
    try:
        numeric = np.issubdtype(np.asarray(X).dtype, np.number)
    except Exception:  # values NumPy cannot hold in one array: not numbers
        numeric = False
    if numeric:
        return ""
    return (
        f" If the first model of its network takes X as it is (texts for a TfidfVectorizer, dicts for a "
        f"DictVectorizer), give {type(owner).__name__} a _raw_input(self) method returning True: X then reaches "
        "the network unchecked but for its number of rows."
    )


def _unusable(owner: Composite, method: str, error: Exception, advice: str = "") -> WireworkError:
    """scikit-learn's check of the data given to ``owner.<method>`` failed: its message, as a wirework error.

    A ``DataError`` (a ``ValueError``), or an ``ArgumentError`` (a
    ``TypeError``) when the check raised a ``TypeError``; the check's own
    error is chained as the cause.
    """
    kind = ArgumentError if isinstance(error, TypeError) and not isinstance(error, ValueError) else DataError
    return kind(f"{type(owner).__name__}.{method} cannot use the data it received: {brief(error)}.{advice}")
