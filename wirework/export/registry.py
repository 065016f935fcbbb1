"""Which converter exports which model.

A converter is registered for model classes with :func:`register`. Modules
that know a library (``lightgbm``, ``xgboost``, scikit-learn's trees, the
skl2onnx bridge) are imported only when a model of that library is exported,
so ``import wirework`` never imports them.

A converter's ``convert(model, method, g, x)`` adds to the
:class:`~wirework.export.builder.GraphBuilder` ``g`` the nodes computing
``model.<method>`` of the ``[N, n_features]`` matrix ``x`` (in ``g.dtype``)
and returns the output value. Shapes follow scikit-learn: ``predict`` of a
single-target model is 1-D, ``predict_proba`` is ``[N, n_classes]``, a
classifier's ``predict`` gives its ``classes_`` values.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wirework.errors import ExportError

__all__ = ["Converter", "register", "register_fallback", "converter_for", "nothing_exported", "PROVIDERS"]

# top-level package of a model's class -> modules that register its converters
PROVIDERS: dict[str, tuple[str, ...]] = {
    "lightgbm": ("wirework.export.lightgbm",),
    "xgboost": ("wirework.export.xgboost",),
    "sklearn": (
        "wirework.export.sklearn_trees",
        "wirework.export.sklearn_other",
        "wirework.export.sklearn_encoders",
        "wirework.export.sklearn_preprocessing",
        "wirework.export.sklearn_meta",
        "wirework.export.sklearn_kernels",
        "wirework.export.sklearn_iforest",
        "wirework.export.sklearn_covariance",
        "wirework.export.sklearn_sgd",
        "wirework.export.sklearn_neighbors",
    ),
}


def _n_features_in(model: Any) -> int:
    n = getattr(model, "n_features_in_", None)
    if n is None:
        if not _fitted(model):
            raise ExportError(f"{type(model).__name__} is not fitted. Call fit() before exporting it.")
        raise ExportError(
            f"{type(model).__name__} records no n_features_in_ (how many input columns it reads), which the export "
            "needs, and has no converter here that knows it otherwise: it cannot be exported. Replace it, or export "
            "the network up to it."
        )
    return int(n)


def _fitted(model: Any) -> bool:
    """scikit-learn's test: the model has a learned attribute (a name ending in ``_``)."""
    try:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(model)
    except Exception:  # NotFittedError, or no estimator at all
        return False
    return True


def _no_categories(model: Any) -> Mapping[int, np.ndarray]:
    return {}


def _reads_every_column(model: Any) -> frozenset[int] | None:
    return None


def _no_refusal(model: Any) -> str | None:
    return None


@dataclass(frozen=True)
class Converter:
    """How to export one kind of model.

    Attributes
    ----------
    convert : callable ``(model, method, g, x) -> str``
        Adds the nodes of ``model.<method>(x)``; returns the output value.
    methods : callable ``model -> tuple of str``
        The methods this converter can export for this fitted model, the
        main one first (``predict``; ``predict_proba`` for classifiers…).
    n_features : callable ``model -> int``
        Number of input columns.
    categories : callable ``model -> {column: values}``
        Columns the model reads as category codes, with the original
        category values (code ``i`` is ``values[i]``); empty when none.
        After them, a ``None`` or NaN the model learned as a category of
        its own (a scikit-learn encoder in an object column), if any: it
        then takes every other missing value as an unknown one.
    reads : callable ``model -> frozenset of int or None``
        The input columns the model reads (``None``: every one); a
        ``ColumnTransformer`` that drops columns reads fewer.
    takes_sample : bool
        ``convert`` also takes ``sample=``: the native value of its input
        on the export's sample rows, when the model sits in a network (a
        composite inside a network evaluates its own network on it).
    refusal : callable ``model -> str or None``
        Why this fitted model exports none of its methods, and what to do
        (a ``LocalOutlierFactor`` with ``novelty=False``); ``None`` when it
        exports some.
    """

    convert: Callable[..., str]
    methods: Callable[[Any], tuple[str, ...]]
    n_features: Callable[[Any], int] = field(default=_n_features_in)
    categories: Callable[[Any], Mapping[int, np.ndarray]] = field(default=_no_categories)
    reads: Callable[[Any], frozenset[int] | None] = field(default=_reads_every_column)
    takes_sample: bool = False
    refusal: Callable[[Any], str | None] = field(default=_no_refusal)

    def exports(self, model: Any) -> tuple[str, ...]:
        """``methods``, and ``predict_log_proba`` where the model's is the log of its exported ``predict_proba``
        (see :func:`takes_log_of_proba`)."""
        offered = self.methods(model)
        if "predict_log_proba" not in offered and takes_log_of_proba(model, offered):
            return (*offered, "predict_log_proba")
        return offered

    def apply(self, model: Any, method: str, g: Any, x: str, sample: Any = None) -> str:
        """``convert``, given the input's native ``sample`` when it takes one; a method ``methods`` does not
        list is an ``ExportError`` (``convert`` may not check it: a ``KBinsDiscretizer``'s gave its
        ``transform`` for ``inverse_transform``), except a ``predict_log_proba`` that :meth:`exports` adds: ONNX
        Runtime's ``Log`` of the exported probabilities."""
        offered = self.methods(model)
        if method == "predict_log_proba" and method not in offered and takes_log_of_proba(model, offered):
            return g.op("Log", [self.apply(model, "predict_proba", g, x, sample=sample)], hint="log_proba")
        if method not in offered:
            raise ExportError(
                f"{type(model).__name__}.{method}() cannot be exported; its converter exports "
                f"{', '.join(offered) or 'nothing'}." + ("" if offered else nothing_exported(model))
            )
        if self.takes_sample:
            return self.convert(model, method, g, x, sample=sample)
        return self.convert(model, method, g, x)


_REGISTRY: dict[type, Converter] = {}
_FALLBACKS: dict[str, Converter] = {}
_loaded: set[str] = set()


def register(*classes: type, **parts: Any) -> Callable:
    """Decorator: register ``convert`` (plus ``methods=``, ``n_features=``, ``categories=``, ``reads=``,
    ``refusal=``) for ``classes``."""

    def decorate(convert: Callable) -> Callable:
        converter = Converter(convert=convert, **parts)
        for cls in classes:
            _REGISTRY[cls] = converter
        return convert

    return decorate


def register_fallback(package: str, converter: Converter) -> None:
    """Use ``converter`` for models of ``package`` that no class-specific converter claims."""
    _FALLBACKS[package] = converter


def _load_providers(model: Any) -> None:
    root = type(model).__module__.split(".")[0]
    for module in PROVIDERS.get(root, ()):
        if module not in _loaded:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
            _loaded.add(module)


def _log_of_proba_methods() -> frozenset:
    """scikit-learn's ``predict_log_proba`` implementations that return ``np.log(self.predict_proba(X))``."""
    from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    kinds = (
        AdaBoostClassifier, DecisionTreeClassifier, GradientBoostingClassifier, LogisticRegression, MLPClassifier,
        RandomForestClassifier, SGDClassifier, SVC,
    )
    return frozenset(kind.predict_log_proba for kind in kinds)


_LOG_OF_PROBA: frozenset | None = None


def takes_log_of_proba(model: Any, methods: Iterable[str]) -> bool:
    """Whether ``model``'s ``predict_log_proba`` is the log of its ``predict_proba`` (as scikit-learn's trees,
    forests, boosting, SVC, MLP and linear classifiers compute it) and its converter exports ``predict_proba``:
    then the file takes ONNX Runtime's ``Log`` of the exported probabilities (within an ulp of NumPy's;
    a probability 0 gives ``-inf`` as natively).

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> takes_log_of_proba(DecisionTreeClassifier(), ["predict", "predict_proba"])
    True
    >>> takes_log_of_proba(GaussianNB(), ["predict", "predict_proba"])  # its own: joint likelihoods less their logsumexp
    False
    """
    global _LOG_OF_PROBA
    if _LOG_OF_PROBA is None:
        _LOG_OF_PROBA = _log_of_proba_methods()
    return "predict_proba" in methods and getattr(type(model), "predict_log_proba", None) in _LOG_OF_PROBA


def converter_for(model: Any) -> Converter:
    """The converter of ``model``'s class (or of its nearest registered base class)."""
    _load_providers(model)
    for cls in type(model).__mro__:
        if cls in _REGISTRY:
            return _REGISTRY[cls]
    root = type(model).__module__.split(".")[0]
    if root in _FALLBACKS:
        return _FALLBACKS[root]
    raise ExportError(
        f"No ONNX converter for {type(model).__module__}.{type(model).__qualname__}. "
        "Supported: LightGBM, XGBoost and scikit-learn tree ensembles, and the scikit-learn "
        "estimators that skl2onnx converts. Replace the model or export the network up to it."
    )


def nothing_exported(model: Any) -> str:
    """The end of the message refusing ``model`` when its converter exports none of its methods: what it is
    and what to do."""
    for cls in type(model).__mro__:
        if cls in _REGISTRY:
            reason = _REGISTRY[cls].refusal(model)
            if reason:
                return f" {reason}"
            break
    try:
        from sklearn.base import is_outlier_detector

        outlier = bool(is_outlier_detector(model))
    except Exception:  # not a scikit-learn estimator: its tags cannot be read
        outlier = False
    kind = "an outlier detector" if outlier else "neither a predictor nor a transformer wirework knows"
    return (
        f" {type(model).__name__} is {kind}: wirework exports the predictions, probabilities, scores and "
        "transforms of predictors and transformers, and of scikit-learn's outlier detectors (IsolationForest, "
        "OneClassSVM, SGDOneClassSVM, EllipticEnvelope and LocalOutlierFactor with novelty=True) only; others "
        "have no converter. Replace it (by one of those, say), or export the network up to it."
    )
