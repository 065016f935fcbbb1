"""scikit-learn estimators that are not trees: skl2onnx's converters, embedded in our graph.

Any scikit-learn estimator without a converter of ours goes to skl2onnx
(in the graph's dtype, probabilities without ZipMap) and its nodes are copied
into the graph being built. Tree ensembles never take this path: skl2onnx
writes them with the deprecated ``TreeEnsembleRegressor/Classifier`` and
float32 thresholds, so an unregistered tree model is refused instead.

Ours here, because skl2onnx has none that fits a learning network: linear
regressors (``X @ coef_.T + intercept_`` as scikit-learn computes it, in
either precision, where skl2onnx's float32 form is an untyped
``LinearRegressor``: every ``LinearModel`` regressor, the Bayesian ones,
SGD's and ``LinearSVR``), the scores and labels of linear classifiers,
``QuadraticDiscriminantAnalysis`` (its per-class log posteriors, which
skl2onnx does not give as ``decision_function``),
``LabelEncoder.inverse_transform`` (the label decoding of stacks and
averages), ``PCA`` and ``IncrementalPCA`` in scikit-learn's order of
operations (a tree after them must see its very values), scikit-learn's own
``Pipeline``, ``ColumnTransformer`` and ``FeatureUnion`` (each part through
its own converter, trees included; a column transformer's parts on the input
positions they selected), and every feature selector (the kept columns; ``RFE``'s and
``RFECV``'s predictions are their fitted model's on them, which skl2onnx
gave the wrong shape). Encoders are in :mod:`wirework.export.sklearn_encoders`,
the other preprocessing in :mod:`wirework.export.sklearn_preprocessing`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from sklearn.base import is_classifier, is_regressor
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA, IncrementalPCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.feature_selection._base import SelectorMixin
from sklearn.impute import KNNImputer
from sklearn.linear_model import (
    ARDRegression,
    BayesianRidge,
    ElasticNet,
    ElasticNetCV,
    HuberRegressor,
    Lars,
    LarsCV,
    Lasso,
    LassoCV,
    LassoLars,
    LassoLarsCV,
    LassoLarsIC,
    LinearRegression,
    MultiTaskElasticNet,
    MultiTaskElasticNetCV,
    MultiTaskLasso,
    MultiTaskLassoCV,
    OrthogonalMatchingPursuit,
    OrthogonalMatchingPursuitCV,
    QuantileRegressor,
    Ridge,
    RidgeCV,
    SGDRegressor,
    TheilSenRegressor,
)
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.pipeline import FeatureUnion
from sklearn.pipeline import Pipeline as SkPipeline
from sklearn.preprocessing import LabelEncoder
from sklearn.svm import LinearSVR
from sklearn.utils import _safe_indexing

from wirework.errors import ExportError
from wirework.export.builder import ML_OPSET, OPSET, GraphBuilder, dense
from wirework.export.categories import hands_on, member_inputs, members_categories, members_read, with_passed
from wirework.export.imputed_codes import impute_codes, imputes_strings, input_categories
from wirework.export.heads import binary_labels, class_at, labels, two_columns
from wirework.export.trees import logistic, softmax
from wirework.export.registry import Converter, converter_for, register, register_fallback

__all__: list[str] = []

_TREE_MODULES = ("sklearn.tree", "sklearn.ensemble")
_NEIGHBOUR_MODULES = ("sklearn.neighbors",)


def _methods(model: Any) -> tuple[str, ...]:
    if is_classifier(model):
        # predict_proba only where the model has it (an SVC without probability=True, a LinearSVC: skl2onnx's
        # second output is then their scores); a linear classifier's scores are computed here
        offered = ("predict", "predict_proba") if hasattr(model, "predict_proba") else ("predict",)
        return offered + (("decision_function",) if isinstance(model, LinearClassifierMixin) else ())
    if is_regressor(model):
        return ("predict",)
    if hasattr(model, "transform"):
        return ("transform",)
    return ()


def _skl2onnx(model: Any, g: GraphBuilder, x: str) -> dict[str, str]:
    """Convert ``model`` with skl2onnx once per graph; its outputs by name."""
    key = ("skl2onnx", id(model), x)
    if key in g.memo:
        return g.memo[key]
    if type(model).__module__.startswith(_TREE_MODULES):
        raise ExportError(
            f"{type(model).__name__} has no TreeEnsemble converter in wirework, and skl2onnx would write "
            "the deprecated tree operators with float32 thresholds. Use a supported tree model."
        )
    if type(model).__module__.startswith(_NEIGHBOUR_MODULES) or isinstance(model, KNNImputer):
        raise ExportError(
            f"{type(model).__name__} cannot be exported exactly: among neighbours at equal distances (repeated "
            "rows, ties) the file does not pick the ones scikit-learn's search picks, and skl2onnx weighs a "
            "neighbour at distance 0 otherwise (labels flipped on the iris data). Use another model to export."
        )
    try:
        from skl2onnx import convert_sklearn
        from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType
    except ImportError as exc:  # pragma: no cover - part of the extra
        raise ExportError("Exporting this scikit-learn estimator needs skl2onnx: pip install 'wirework[onnx]'.") from exc
    tensor_type = DoubleTensorType if g.dtype == np.float64 else FloatTensorType
    n_features = int(getattr(model, "n_features_in_", 0)) or None
    # probabilities as a plain matrix; a classifier whose converter has no such option (LinearSVC) gives none
    options = {id(model): {"zipmap": False}} if is_classifier(model) else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                proto = _convert_sklearn(convert_sklearn, model, tensor_type([None, n_features]), options)
            except NameError as exc:
                if options is None or "'zipmap' not in" not in str(exc):
                    raise
                proto = _convert_sklearn(convert_sklearn, model, tensor_type([None, n_features]), None)
    except Exception as exc:
        raise ExportError(
            f"skl2onnx cannot convert {type(model).__name__} in {g.dtype.name}: {type(exc).__name__}: {exc}"
        ) from exc
    g.memo[("skl2onnx session", id(model))] = _check_runs(proto, model, g)
    outputs = g.embed(proto, {"X": x}, prefix=f"{type(model).__name__.lower()}_")
    g.memo[key] = outputs
    return outputs


def _convert_sklearn(convert: Callable, model: Any, input_type: Any, options: dict | None) -> Any:
    return convert(
        model,
        initial_types=[("X", input_type)],
        target_opset={"": OPSET, "ai.onnx.ml": min(ML_OPSET, 3)},
        options=options,
    )


def _check_runs(proto: Any, model: Any, g: GraphBuilder) -> Any:
    """An ONNX Runtime session of a converted part (the check of :func:`_agrees` runs it); refuse a part it
    cannot load (skl2onnx writes some operators it lacks in double)."""
    from wirework.export.parity import session

    try:
        return session(proto)
    except Exception as exc:
        other = "float32" if g.dtype == np.float64 else "float64"
        raise ExportError(
            f"skl2onnx converts {type(model).__name__} in {g.dtype.name} to operators ONNX Runtime cannot run "
            f"({str(exc).splitlines()[0][:200]}). Try dtype='{other}' or another model."
        ) from exc


def _agrees(model: Any, method: str, output: str, g: GraphBuilder, sample: Any) -> None:
    """Refuse skl2onnx's form of ``model.<method>`` (its ``output``) when, in float64, it does not give
    scikit-learn's values on the export's sample rows (within 1e-12 of their scale; labels equal): never a
    silent approximation. Rows that cannot be read as a float matrix, or that the model itself refuses, are
    not checked."""
    if g.dtype != np.float64 or sample is None or ("skl2onnx checked", id(model), method) in g.memo:
        return
    g.memo[("skl2onnx checked", id(model), method)] = True
    try:
        rows = np.asarray(sample, dtype=np.float64)
        native = np.asarray(dense(getattr(model, method)(sample)))
        served = np.asarray(g.memo[("skl2onnx session", id(model))].run([output], {"X": rows})[0])
    except Exception:  # not a float matrix, or the model's own call fails: nothing to compare with
        return
    if native.size != served.size:
        found = f"gives shape {served.shape} where scikit-learn gives {native.shape}"
    elif native.dtype.kind in "fc" or served.dtype.kind in "fc":
        scale = max(1.0, float(np.nanmax(np.abs(native)))) if native.size else 1.0
        gap = float(np.nanmax(np.abs(native.astype(np.float64).ravel() - served.ravel()))) if native.size else 0.0
        if gap <= 1e-12 * scale:
            return
        found = f"differs by up to {gap:.2g} from scikit-learn's"
    else:
        if np.array_equal(native.ravel(), served.ravel()):
            return
        found = f"gives other labels than scikit-learn on {int(np.sum(native.ravel() != served.ravel()))} rows"
    raise ExportError(
        f"skl2onnx's float64 form of {type(model).__name__}.{method} {found} on the sample rows: it would be an "
        "approximation. Export without this method, replace the model, or use dtype='float32' where approximate "
        "values are expected."
    )


def _convert_fallback(model: Any, method: str, g: GraphBuilder, x: str, sample: Any = None) -> str:
    if method not in _methods(model):
        raise ExportError(f"Exporting {type(model).__name__}.{method}() is not supported; it offers {_methods(model)}.")
    if isinstance(model, LinearClassifierMixin) and method in ("predict", "decision_function"):
        return _linear_classifier(model, method, g, x)
    if isinstance(model, LinearDiscriminantAnalysis) and method == "predict_proba":
        # scikit-learn's: expit of the score for two classes, else softmax (skl2onnx's was 1.5e-3 off)
        scores = _linear_classifier(model, "decision_function", g, x)
        if len(model.classes_) == 2:
            return two_columns(g, g.as_column(logistic(g, scores)))
        return softmax(g, scores, width=len(model.classes_))
    outputs = _skl2onnx(model, g, x)
    names = list(outputs)
    if is_classifier(model):
        wanted = {"predict": "label", "predict_proba": "probabilities"}.get(method)
        if wanted not in outputs:
            raise ExportError(f"skl2onnx gives no {method} for {type(model).__name__} (outputs {names}).")
        _agrees(model, method, wanted, g, sample)
        if method == "predict_proba":  # typed: ONNX has no type inference for some ai.onnx.ml nodes (Normalizer)
            return g.cast(outputs[wanted], g.dtype)
        return outputs[wanted]
    # a clusterer's transform is its distances to the centres (KMeans': skl2onnx's second output, "scores",
    # after the labels); any other model's first output is its prediction or transform
    name = "scores" if method == "transform" and names[:2] == ["label", "scores"] else names[0]
    _agrees(model, method, name, g, sample)
    value = outputs[name]
    if method == "predict":
        return g.as_vector(value)
    return g.cast(value, g.dtype)  # skl2onnx gives some transforms in float32 whatever the input (OneHotEncoder)


register_fallback("sklearn", Converter(convert=_convert_fallback, methods=_methods, takes_sample=True))


@register(LabelEncoder, methods=lambda model: ("inverse_transform", "transform"), n_features=lambda model: 1)
def _convert_label_encoder(model: LabelEncoder, method: str, g: GraphBuilder, x: str) -> str:
    if method == "inverse_transform":
        return class_at(g, g.cast(g.as_vector(x), np.int64), model.classes_)
    raise ExportError("Exporting LabelEncoder.transform is not supported: feed encoded labels to the graph instead.")


def _pipeline_methods(model: SkPipeline) -> tuple[str, ...]:
    last = model.steps[-1][1]
    return converter_for(last).methods(last) if last not in (None, "passthrough") else ("transform",)


def _first_step(model: SkPipeline) -> Any:
    return next(step for _, step in model.steps if step not in (None, "passthrough"))


def _pipeline_features(model: SkPipeline) -> int:
    first = _first_step(model)
    return converter_for(first).n_features(first)


def _live_steps(model: SkPipeline) -> list[Any]:
    return [step for _, step in model.steps if step not in (None, "passthrough")]


def _pipeline_categories(model: SkPipeline) -> Mapping[int, np.ndarray]:
    # a first SimpleImputer that fills strings: the input numbers those columns as the next step does (see
    # wirework.export.imputed_codes); else the first step's, and those a first ColumnTransformer passes through
    # to a next step that reads them as categories (its codes cross the transformer unchanged)
    steps = _live_steps(model)
    if imputes_strings(steps[0]) and len(steps) > 1:
        return input_categories(steps[0], converter_for(steps[1]).categories(steps[1]))
    own = converter_for(steps[0]).categories(steps[0])
    if hands_on(steps[0]) and len(steps) > 1:  # a ColumnTransformer: categoricals it passes to the next step
        return with_passed(steps[0], own, converter_for(steps[1]).categories(steps[1]))
    return own


def _pipeline_reads(model: SkPipeline) -> frozenset[int] | None:
    first = _first_step(model)
    return converter_for(first).reads(first)


def _pipeline_refusal(model: SkPipeline) -> str | None:
    last = model.steps[-1][1]
    return converter_for(last).refusal(last) if last not in (None, "passthrough") else None


@register(
    SkPipeline,
    methods=_pipeline_methods,
    n_features=_pipeline_features,
    categories=_pipeline_categories,
    reads=_pipeline_reads,
    takes_sample=True,
    refusal=_pipeline_refusal,
)
def _convert_pipeline(model: SkPipeline, method: str, g: GraphBuilder, x: str, sample: Any = None) -> str:
    # each step on the one before; the sample rows go along, transformed natively, for the steps that check; a
    # first SimpleImputer that fills strings imputes the input's codes into the next step's (imputed_codes)
    steps = _live_steps(model)
    if imputes_strings(steps[0]) and len(steps) > 1:
        x = impute_codes(g, steps[0], x, converter_for(steps[1]).categories(steps[1]))
        sample = _transformed(steps[0], sample)
        steps = steps[1:]
    for step in steps[:-1]:
        x = converter_for(step).apply(step, "transform", g, x, sample=sample)
        sample = _transformed(step, sample)
    last = steps[-1]
    return converter_for(last).apply(last, method, g, x, sample=sample)


def _transformed(step: Any, sample: Any) -> Any:
    """``step.transform(sample)``, or ``None`` when there is no sample or it cannot be transformed."""
    if sample is None:
        return None
    try:
        return step.transform(sample)
    except Exception:  # the check it feeds is skipped; the export itself does not depend on it
        return None


def _selected_columns(model: ColumnTransformer) -> dict[str, list[int]]:
    """The input positions each fitted part of a ``ColumnTransformer`` reads (names resolved as it resolved them)."""
    positions = getattr(model, "_transformer_to_input_indices", None)
    if positions is None:
        raise ExportError(
            "This ColumnTransformer does not say which input columns each part read (scikit-learn >= 1.2 does); "
            "refit it with a current scikit-learn."
        )
    return {name: [int(k) for k in columns] for name, columns in positions.items()}


def _parts(model: ColumnTransformer) -> list[tuple[Any, list[int]]]:
    """The fitted parts of a ``ColumnTransformer`` that are models (not ``"drop"``, ``"passthrough"`` or
    empty), each with the input positions it reads."""
    positions = _selected_columns(model)
    return [
        (part, positions[name])
        for name, part, _ in model.transformers_
        if not isinstance(part, str) and positions.get(name)
    ]


def _column_transformer_categories(model: ColumnTransformer) -> dict[int, np.ndarray]:
    """The input columns a ``ColumnTransformer``'s parts read as categories (a string ``OneHotEncoder``'s,
    say), by input position: numbered as the first part reading a column numbers it (two parts may read one
    column, each numbering its categories its own way)."""
    return members_categories(_parts(model))


def _column_transformer_reads(model: ColumnTransformer) -> frozenset[int]:
    """The input positions some part that is not ``"drop"`` reads (the remainder's included)."""
    positions = _selected_columns(model)
    dropped = {name for name, part, _ in model.transformers_ if isinstance(part, str) and part == "drop"}
    return frozenset(k for name, columns in positions.items() if name not in dropped for k in columns)


@register(
    ColumnTransformer,
    methods=lambda model: ("transform",),
    n_features=lambda model: model.n_features_in_,
    categories=_column_transformer_categories,
    reads=_column_transformer_reads,
    takes_sample=True,
)
def _convert_column_transformer(
    model: ColumnTransformer, method: str, g: GraphBuilder, x: str, sample: Any = None
) -> str:
    # each part on its own columns (selected by position: names and masks were resolved when it was fitted),
    # side by side in the order scikit-learn stacks them; empty and dropped parts give no columns
    positions = _selected_columns(model)
    models = _parts(model)
    inputs = dict(zip(map(id, (part for part, _ in models)), member_inputs(g, x, models)))  # each part's codes
    parts = []
    for name, part, _ in model.transformers_:
        columns = positions.get(name, [])
        if (isinstance(part, str) and part == "drop") or not columns:
            continue
        if isinstance(part, str) and part == "passthrough":
            parts.append(g.take_columns(x, columns))
        else:
            rows = None if sample is None else _safe_indexing(sample, columns, axis=1)
            selected = g.take_columns(inputs[id(part)], columns)
            parts.append(converter_for(part).apply(part, "transform", g, selected, sample=rows))
    if not parts:
        raise ExportError("This ColumnTransformer outputs no column; there is nothing to export.")
    return g.hstack(parts, hint="columns")


def _union_members(model: FeatureUnion) -> list[tuple[Any, None]]:
    """The fitted transformers of a ``FeatureUnion`` that are models (not ``"drop"`` or ``"passthrough"``), each
    reading the whole input."""
    return [(part, None) for _, part in model.transformer_list if not isinstance(part, str)]


def _union_reads(model: FeatureUnion) -> frozenset[int] | None:
    """The input positions some transformer reads (``None``: every one, as ``"passthrough"`` does)."""
    if any(isinstance(part, str) and part == "passthrough" for _, part in model.transformer_list):
        return None
    return members_read(_union_members(model))


@register(
    FeatureUnion,
    methods=lambda model: ("transform",),
    n_features=lambda model: model.n_features_in_,
    categories=lambda model: members_categories(_union_members(model)),
    reads=_union_reads,
    takes_sample=True,
)
def _convert_feature_union(model: FeatureUnion, method: str, g: GraphBuilder, x: str, sample: Any = None) -> str:
    # scikit-learn's transform: each transformer that is not "drop" on the whole input ("passthrough" the input
    # itself), its output times its transformer_weights entry if it has one, side by side in the list's order
    # (skl2onnx's form does not run in float64)
    members = _union_members(model)
    inputs = dict(zip(map(id, (part for part, _ in members)), member_inputs(g, x, members)))  # each one's codes
    weights = model.transformer_weights or {}
    parts = []
    for name, part in model.transformer_list:
        if isinstance(part, str) and part == "drop":
            continue
        if isinstance(part, str):  # "passthrough"
            out = x
        else:
            out = converter_for(part).apply(part, "transform", g, inputs[id(part)], sample=sample)
        if weights.get(name) is not None:
            out = g.op("Mul", [out, g.const(np.array(weights[name], dtype=np.float64), "weight")], hint="weighted")
        parts.append(out)
    if not parts:
        raise ExportError("This FeatureUnion outputs no column (every transformer is 'drop'); there is nothing to export.")
    return g.hstack(parts, hint="union")


def _selected(model: SelectorMixin) -> np.ndarray:
    """The input positions a fitted feature selector keeps."""
    return np.flatnonzero(model.get_support())


def _selector_methods(model: SelectorMixin) -> tuple[str, ...]:
    """``transform``, and for a selector that predicts with the model it fitted on the kept columns (``RFE``,
    ``RFECV``) what that model's converter exports and the selector offers."""
    inner = getattr(model, "estimator_", None)
    if inner is None or not hasattr(model, "predict"):
        return ("transform",)
    return tuple(m for m in converter_for(inner).methods(inner) if hasattr(model, m)) + ("transform",)


@register(SelectorMixin, methods=_selector_methods, reads=lambda model: frozenset(_selected(model).tolist()))
def _convert_selector(model: SelectorMixin, method: str, g: GraphBuilder, x: str) -> str:
    # every feature selector (VarianceThreshold, SelectKBest, SelectFromModel, RFE, SequentialFeatureSelector…):
    # the kept columns, in input order; RFE's predictions are its fitted model's on them
    kept = _selected(model)
    if not len(kept):
        raise ExportError(f"This {type(model).__name__} keeps no column; there is nothing to export.")
    columns = g.take_columns(x, kept, hint="selected")
    if method == "transform":
        return columns
    inner = model.estimator_
    return converter_for(inner).convert(inner, method, g, columns)


@register(PCA, IncrementalPCA, methods=lambda model: ("transform",))
def _convert_pca(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's order: project, then subtract the projected mean (then whiten), so a tree after it sees the
    # very same values (skl2onnx centres first, which moves some by an ulp: a HistGradientBoosting threshold can
    # sit exactly on a training value)
    components = np.asarray(model.components_, dtype=np.float64)
    out = g.op("MatMul", [x, g.const(components.T.copy(), "components")], hint="projected")
    offset = np.reshape(model.mean_, (1, -1)) @ components.T
    out = g.op("Sub", [out, g.const(offset, "projected_mean")], hint="centred")
    if model.whiten:
        scale = np.sqrt(model.explained_variance_)
        scale[scale < np.finfo(scale.dtype).eps] = np.finfo(scale.dtype).eps
        out = g.op("Div", [out, g.const(scale, "scale")], hint="whitened")
    return out


#: Regressors whose ``predict`` is ``X @ coef_.T + intercept_`` (scikit-learn's ``LinearModel``, the
#: Bayesian ones without ``return_std``, SGD's).
_LINEAR_REGRESSORS = (
    LinearRegression, Ridge, RidgeCV, Lasso, LassoCV, ElasticNet, ElasticNetCV, Lars, LarsCV, LassoLars,
    LassoLarsCV, LassoLarsIC, OrthogonalMatchingPursuit, OrthogonalMatchingPursuitCV, MultiTaskLasso,
    MultiTaskLassoCV, MultiTaskElasticNet, MultiTaskElasticNetCV, BayesianRidge, ARDRegression, HuberRegressor,
    QuantileRegressor, TheilSenRegressor, SGDRegressor, LinearSVR,
)


@register(*_LINEAR_REGRESSORS, methods=lambda model: ("predict",))
def _convert_linear(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    return _linear_scores(model, g, x, vector=np.ndim(model.coef_) == 1)


def _linear_classifier(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """A linear classifier's ``decision_function`` (``X @ coef_.T + intercept_``, 1-D for two classes) or its
    ``predict``, as scikit-learn's ``LinearClassifierMixin``: the second class where the score is above 0, else
    the class of the largest score (skl2onnx cannot convert a ``LinearSVC`` in float64)."""
    two = np.ndim(model.coef_) == 1 or np.shape(model.coef_)[0] == 1
    scores = _linear_scores(model, g, x, vector=two)
    if method == "decision_function":
        return scores
    return binary_labels(g, scores, model.classes_, strict=True) if two else labels(g, scores, model.classes_)


def _linear_scores(model: Any, g: GraphBuilder, x: str, vector: bool) -> str:
    """``x @ coef_.T + intercept_`` as scikit-learn computes it; 1-D when ``vector``."""
    coef = np.asarray(model.coef_, dtype=np.float64)
    matrix = coef.reshape(-1, 1) if coef.ndim == 1 else coef.T
    out = g.op("MatMul", [x, g.const(matrix, "coef")], hint="linear")
    out = g.op("Add", [out, g.const(np.atleast_1d(model.intercept_), "intercept")], hint="linear")
    return g.as_vector(out) if vector else out


@register(QuadraticDiscriminantAnalysis, methods=lambda model: ("predict", "predict_proba", "decision_function"))
def _convert_qda(model: QuadraticDiscriminantAnalysis, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's _decision_function step by step: per class, the row sums of ((x - mean) @ (R * S ** -0.5))
    # squared, then -0.5 * (norms + sum(log S)) + log(prior); labels its argmax, probabilities its normalised
    # exponential taken through logs as predict_log_proba does, a binary score class 1's minus class 0's
    norms = []
    for mean, rotation, scaling in zip(model.means_, model.rotations_, model.scalings_):
        centred = g.op("Sub", [x, g.const(np.asarray(mean, dtype=np.float64).reshape(1, -1), "mean")], hint="centred")
        whitened = g.op("MatMul", [centred, g.const(rotation * (scaling ** (-0.5)), "whitening")], hint="whitened")
        norms.append(g.row_sum(g.op("Mul", [whitened, whitened], hint="squared"), len(scaling)))
    log_scalings = np.asarray([np.sum(np.log(scaling)) for scaling in model.scalings_]).reshape(1, -1)
    scores = g.op("Add", [g.op("Concat", norms, axis=1, hint="norms"), g.const(log_scalings, "log_scalings")])
    scores = g.op("Mul", [g.const(-0.5, "minus_half"), scores], hint="log_likelihood")
    scores = g.op("Add", [scores, g.const(np.log(model.priors_).reshape(1, -1), "log_priors")], hint="log_posterior")
    if method == "predict":
        return class_at(g, g.op("ArgMax", [scores], axis=1, keepdims=0, hint="winner"), model.classes_)
    if method == "decision_function":
        if len(model.classes_) == 2:
            return g.as_vector(g.op("Sub", [g.columns(scores, 1, 2), g.columns(scores, 0, 1)], hint="decision"))
        return scores
    top = g.op("ReduceMax", [scores, g.const([1], "axis")], keepdims=1, hint="row_max")
    shifted = g.op("Sub", [scores, top], hint="shifted")
    total = g.row_sum(g.op("Exp", [shifted], hint="exp"), len(model.classes_))
    return g.op("Exp", [g.op("Sub", [shifted, g.op("Log", [total])], hint="log_probabilities")], hint="probabilities")


def _rows_of(g: GraphBuilder, x: str, row: Any, hint: str, dtype: Any = None) -> str:
    """``row`` (a constant vector) repeated for each input row: ``[N, len(row)]``, whatever ``x`` holds."""
    row = np.asarray(row).reshape(1, -1)
    rows = g.op("Slice", [g.op("Shape", [x]), g.const([0], "first"), g.const([1], "second")], hint="rows")
    shape = g.op("Concat", [rows, g.const([row.shape[1]], "width")], axis=0, hint="shape")
    return g.op("Expand", [g.const(row, hint, dtype=dtype), shape], hint=hint)


@register(DummyRegressor, methods=lambda model: ("predict",))
def _convert_dummy_regressor(model: DummyRegressor, method: str, g: GraphBuilder, x: str) -> str:
    # constant_ on every row (the training mean, median, quantile or the given constant); 1-D for one target
    out = _rows_of(g, x, np.asarray(model.constant_, dtype=np.float64).ravel(), "constant")
    return g.as_vector(out) if model.n_outputs_ == 1 else out


def _dummy_methods(model: DummyClassifier) -> tuple[str, ...]:
    random = model._strategy in ("stratified", "uniform")  # draws labels at random: only uniform's probabilities
    return ("predict_proba",) if random else ("predict", "predict_proba")


@register(DummyClassifier, methods=_dummy_methods)
def _convert_dummy_classifier(model: DummyClassifier, method: str, g: GraphBuilder, x: str) -> str:
    # the same label on every row (the most frequent class, or the constant) and its probabilities: one-hot,
    # the class prior, or uniform; a random strategy's labels cannot be exported
    if model.n_outputs_ != 1:
        raise ExportError("A DummyClassifier of several outputs cannot be exported; export one per output.")
    strategy, classes, prior = model._strategy, model.classes_, np.asarray(model.class_prior_, dtype=np.float64)
    if strategy == "stratified":
        raise ExportError("DummyClassifier(strategy='stratified') draws labels at random; it cannot be exported.")
    if strategy == "constant":
        position = int(np.flatnonzero(classes == model.constant)[0])
    else:
        position = int(prior.argmax())
    if method == "predict":
        index = g.as_vector(_rows_of(g, x, [position], "class_index", dtype=np.int64))
        return class_at(g, index, classes)
    if strategy == "prior":
        probabilities = prior
    elif strategy == "uniform":
        probabilities = np.full(len(classes), 1.0) / len(classes)
    else:
        probabilities = np.eye(len(classes))[position]
    return _rows_of(g, x, probabilities, "probabilities")

