"""scikit-learn estimators that are not trees: skl2onnx's converters, embedded in our graph.

Any scikit-learn estimator without a converter of ours goes to skl2onnx
(in the graph's dtype, probabilities without ZipMap) and its nodes are copied
into the graph being built. Tree ensembles never take this path: skl2onnx
writes them with the deprecated ``TreeEnsembleRegressor/Classifier`` and
float32 thresholds, so an unregistered tree model is refused instead.

Ours, because skl2onnx has none that fits a learning network:
linear regressors (``X @ coef_.T + intercept_`` as scikit-learn computes
it, in either precision, where skl2onnx's float32 form is an untyped
``LinearRegressor``: every ``LinearModel`` regressor, the Bayesian ones,
SGD's and ``LinearSVR``), ``IterativeImputer`` (its rounds replayed with
each fitted model's converter), ``LabelEncoder.inverse_transform`` (the label decoding of stacks and
averages), ``StandardScaler`` both ways (``inverse_transform`` is the last
step of a target transform), ``FunctionTransformer`` both ways when its
functions are none (the identity) or NumPy functions with an ONNX operator
(see :mod:`wirework.export.elementwise`),
``PowerTransformer`` (Yeo-Johnson and Box-Cox, both ways), ``SplineTransformer`` (SciPy's evaluation
and scikit-learn's ends, bit for bit; skl2onnx has none), ``SimpleImputer``, ``MissingIndicator``, ``KBinsDiscretizer`` and ``PolynomialFeatures`` (skl2onnx's forms do not run
in float64; ours compute scikit-learn's very numbers), ``OneHotEncoder`` and
``OrdinalEncoder`` and ``TargetEncoder`` (string columns read as category codes; what each value
becomes is read back from the fitted encoder, infrequent groups included; skl2onnx's
``TargetEncoder`` does not run in float64), ``PCA`` and
``IncrementalPCA`` in scikit-learn's order of operations (a tree
after them must see its very values), and scikit-learn's own ``Pipeline``
and ``ColumnTransformer`` (each part through its own converter, trees
included; the transformer's parts on the input positions they selected),
and every feature selector (the kept columns; ``RFE``'s and ``RFECV``'s
predictions are their fitted model's on them, which skl2onnx gave the
wrong shape).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import is_classifier, is_regressor
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA, IncrementalPCA
from sklearn.feature_selection._base import SelectorMixin
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.impute._iterative import IterativeImputer  # importable without enabling the experimental name
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
from sklearn.pipeline import Pipeline as SkPipeline
from sklearn.svm import LinearSVR
from sklearn.preprocessing import (
    FunctionTransformer,
    KBinsDiscretizer,
    LabelEncoder,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    PowerTransformer,
    SplineTransformer,
    StandardScaler,
    TargetEncoder,
)

from wirework.errors import ExportError, brief
from wirework.export import elementwise
from wirework.export.builder import ML_OPSET, OPSET, GraphBuilder, dense, is_missing
from wirework.export.heads import binary_labels, class_at, labels
from wirework.export.registry import Converter, converter_for, register, register_fallback

__all__: list[str] = []

_TREE_MODULES = ("sklearn.tree", "sklearn.ensemble")


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
    _check_runs(proto, model, g)
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


def _check_runs(proto: Any, model: Any, g: GraphBuilder) -> None:
    """Refuse a converted part ONNX Runtime cannot load (skl2onnx writes some operators it lacks in double)."""
    from wirework.export.parity import session

    try:
        session(proto)
    except Exception as exc:
        other = "float32" if g.dtype == np.float64 else "float64"
        raise ExportError(
            f"skl2onnx converts {type(model).__name__} in {g.dtype.name} to operators ONNX Runtime cannot run "
            f"({str(exc).splitlines()[0][:200]}). Try dtype='{other}' or another model."
        ) from exc


def _convert_fallback(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    if method not in _methods(model):
        raise ExportError(f"Exporting {type(model).__name__}.{method}() is not supported; it offers {_methods(model)}.")
    if isinstance(model, LinearClassifierMixin) and method in ("predict", "decision_function"):
        return _linear_classifier(model, method, g, x)
    outputs = _skl2onnx(model, g, x)
    names = list(outputs)
    if is_classifier(model):
        wanted = {"predict": "label", "predict_proba": "probabilities"}.get(method)
        if wanted not in outputs:
            raise ExportError(f"skl2onnx gives no {method} for {type(model).__name__} (outputs {names}).")
        return outputs[wanted]
    value = outputs[names[0]]
    if method == "predict":
        return g.as_vector(value)
    return g.cast(value, g.dtype)  # skl2onnx gives some transforms in float32 whatever the input (OneHotEncoder)


register_fallback("sklearn", Converter(convert=_convert_fallback, methods=_methods))


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


def _pipeline_categories(model: SkPipeline) -> Mapping[int, np.ndarray]:
    first = _first_step(model)
    return converter_for(first).categories(first)


def _pipeline_reads(model: SkPipeline) -> frozenset[int] | None:
    first = _first_step(model)
    return converter_for(first).reads(first)


@register(
    SkPipeline,
    methods=_pipeline_methods,
    n_features=_pipeline_features,
    categories=_pipeline_categories,
    reads=_pipeline_reads,
)
def _convert_pipeline(model: SkPipeline, method: str, g: GraphBuilder, x: str) -> str:
    steps = [step for _, step in model.steps if step not in (None, "passthrough")]
    for step in steps[:-1]:
        x = converter_for(step).convert(step, "transform", g, x)
    last = steps[-1]
    return converter_for(last).convert(last, method, g, x)


def _selected_columns(model: ColumnTransformer) -> dict[str, list[int]]:
    """The input positions each fitted part of a ``ColumnTransformer`` reads (names resolved as it resolved them)."""
    positions = getattr(model, "_transformer_to_input_indices", None)
    if positions is None:
        raise ExportError(
            "This ColumnTransformer does not say which input columns each part read (scikit-learn >= 1.2 does); "
            "refit it with a current scikit-learn."
        )
    return {name: [int(k) for k in columns] for name, columns in positions.items()}


def _column_transformer_categories(model: ColumnTransformer) -> dict[int, np.ndarray]:
    """The input columns a ``ColumnTransformer``'s parts read as categories (a string ``OneHotEncoder``'s,
    say), by input position."""
    positions = _selected_columns(model)
    found: dict[int, np.ndarray] = {}
    for name, part, _ in model.transformers_:
        columns = positions.get(name, [])
        if isinstance(part, str) or not columns:
            continue
        for k, values in converter_for(part).categories(part).items():
            found[columns[k]] = values
    return found


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
)
def _convert_column_transformer(model: ColumnTransformer, method: str, g: GraphBuilder, x: str) -> str:
    # each part on its own columns (selected by position: names and masks were resolved when it was fitted),
    # side by side in the order scikit-learn stacks them; empty and dropped parts give no columns
    positions = _selected_columns(model)
    parts = []
    for name, part, _ in model.transformers_:
        columns = positions.get(name, [])
        if (isinstance(part, str) and part == "drop") or not columns:
            continue
        selected = g.take_columns(x, columns)
        if isinstance(part, str) and part == "passthrough":
            parts.append(selected)
        else:
            parts.append(converter_for(part).convert(part, "transform", g, selected))
    if not parts:
        raise ExportError("This ColumnTransformer outputs no column; there is nothing to export.")
    return g.hstack(parts, hint="columns")


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


@register(StandardScaler, methods=lambda model: ("transform", "inverse_transform"))
def _convert_standard_scaler(model: StandardScaler, method: str, g: GraphBuilder, x: str) -> str:
    # the operations of StandardScaler itself: (x - mean) / scale, and x * scale + mean
    mean = model.mean_ if model.with_mean else None
    scale = model.scale_ if model.with_std else None
    if method == "transform":
        if mean is not None:
            x = g.op("Sub", [x, g.const(mean, "mean")], hint="centred")
        return g.op("Div", [x, g.const(scale, "scale")], hint="scaled") if scale is not None else x
    if scale is not None:
        x = g.op("Mul", [x, g.const(scale, "scale")], hint="unscaled")
    return g.op("Add", [x, g.const(mean, "mean")], hint="uncentred") if mean is not None else x


def _named_categories(values: np.ndarray) -> bool:
    """Whether a one-hot encoder's categories of one column are strings (read as codes) rather than numbers."""
    return any(isinstance(v, str) for v in values.tolist())


def _encoder_categories(model: OneHotEncoder | OrdinalEncoder) -> dict[int, np.ndarray]:
    """The columns a ``OneHotEncoder`` or ``OrdinalEncoder`` reads as category codes: those whose categories are strings (the
    missing category, if it learned one, is no code: a missing value is NaN)."""
    return {
        k: np.array([v for v in values.tolist() if not is_missing(v)], dtype=object)
        for k, values in enumerate(model.categories_)
        if _named_categories(values)
    }


class _Encoding:
    """What an encoder makes of one input column, read from the encoder itself (see :func:`_encodings`).

    ``keys``: what the input holds for each known category (its code for a string column, its value for a
    numeric one); ``outputs``: the encoder's output for each (an ordinal value, or the index of the one-hot
    column it sets within the column's block, -1 for none); ``missing`` and ``unknown``: the output for a
    missing value (NaN in the input) and for any other value; ``width``: the block's number of columns.
    """

    __slots__ = ("keys", "outputs", "missing", "unknown", "width")

    def __init__(self, keys: np.ndarray, outputs: np.ndarray, missing: float, unknown: float, width: int) -> None:
        self.keys, self.outputs, self.missing, self.unknown, self.width = keys, outputs, missing, unknown, width


def _probed(model: Any, probes_unknown: bool) -> tuple[list[tuple[bool, list, list]], np.ndarray]:
    """What a fitted encoder (one with ``categories_``) makes of each input column's known categories, then
    its learned missing one, then (``probes_unknown``) an unseen value: per column, whether its categories
    are strings, the known ones and the learned missing one (a list of at most one), and the dense
    ``transform`` output of those probe rows (a shorter column repeats its first probe)."""
    columns = []
    for categories in model.categories_:
        values = categories.tolist()
        known = [v for v in values if not is_missing(v)]
        learned = [v for v in values if is_missing(v)]
        named = _named_categories(categories)
        unseen: Any = None
        if probes_unknown:
            if named:
                unseen = "wirework unseen value"
                while unseen in known:
                    unseen += "'"
            else:  # the next float past the largest finite category (or before the smallest, at the top)
                finite = [float(v) for v in known if np.isfinite(float(v))] or [0.0]
                with np.errstate(over="ignore"):
                    unseen = float(np.nextafter(max(finite), np.inf))
                if not np.isfinite(unseen) or unseen in known:
                    unseen = float(np.nextafter(min(finite), -np.inf))
        columns.append((named, known, learned[:1], unseen))
    probes = [known + learned + ([unseen] if probes_unknown else []) for _, known, learned, unseen in columns]
    rows = max(map(len, probes))
    cells = {k: list(p) + [p[0]] * (rows - len(p)) for k, p in enumerate(probes)}
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        frame = pd.DataFrame({names[k]: pd.Series(cells[k], dtype=object if columns[k][0] else float) for k in cells})
    elif all(not named for named, *_ in columns):
        frame = np.array([cells[k] for k in cells], dtype=np.float64).T
    else:
        frame = np.array([cells[k] for k in cells], dtype=object).T
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown values, with a drop or handle_unknown="warn"
            out = model.transform(frame)
    except Exception as error:
        raise ExportError(
            f"Could not read the encoding of this {type(model).__name__} from its transform ({brief(error)}); "
            "it cannot be exported."
        ) from error
    return [(named, known, learned) for named, known, learned, _ in columns], dense(out).astype(np.float64)


def _encoding(named: bool, known: list, learned: list, found: np.ndarray, unknown: float, width: int) -> _Encoding:
    """One column's :class:`_Encoding` from ``found``, the output for each probe of :func:`_probed`."""
    missing = found[len(known)] if learned else unknown  # nothing missing learned: a missing value is unknown
    keys = np.arange(len(known), dtype=np.float64) if named else np.array(known, dtype=np.float64)
    return _Encoding(keys, found[: len(known)], float(missing), float(unknown), width)


def _encodings(model: OneHotEncoder | OrdinalEncoder) -> list[_Encoding]:
    """Each input column's :class:`_Encoding`, found by transforming every known category, the learned
    missing one and an unseen value with the fitted encoder: its own rules (infrequent groups, ``drop``,
    ``handle_unknown``, ``encoded_missing_value``…) decide, none is rewritten here.

    With ``handle_unknown="error"`` (which raises natively) an unknown value sets no one-hot column and is
    NaN for an ordinal encoder.
    """
    onehot = isinstance(model, OneHotEncoder)
    probes_unknown = model.handle_unknown != "error"
    columns, out = _probed(model, probes_unknown)
    widths = list(getattr(model, "_n_features_outs", [])) if onehot else [1] * len(columns)
    if len(widths) != len(columns) or sum(widths) != out.shape[1]:
        raise ExportError(
            f"Could not tell which output columns of this {type(model).__name__} each input column sets; "
            "it cannot be exported with this scikit-learn version."
        )
    encodings, offset = [], 0
    for k, ((named, known, learned), width) in enumerate(zip(columns, widths)):
        block = out[:, offset : offset + width]
        offset += width
        if onehot:
            if not np.isin(block, (0.0, 1.0)).all() or (block.sum(axis=1) > 1).any():
                raise ExportError(f"OneHotEncoder column {k} sets several columns for one value; it cannot be exported.")
            found = np.where(block.any(axis=1), block.argmax(axis=1) if width else -1, -1).astype(np.float64)
        else:
            found = block[:, 0]
        unknown = found[len(known) + len(learned)] if probes_unknown else (-1.0 if onehot else np.nan)
        encodings.append(_encoding(named, known, learned, found, unknown, width))
    return encodings


def _encoded(g: GraphBuilder, column: str, encoding: _Encoding) -> str:
    """The ``[N, 1]`` output of :class:`_Encoding` for one input column: known keys looked up, any other value
    unknown, NaN missing."""
    if len(encoding.keys):
        keys = g.onnx.numpy_helper.from_array(encoding.keys.astype(g.dtype), "keys")
        out = g.lookup(column, keys, encoding.outputs, hint="encoded", default=encoding.unknown)
    else:  # only a missing category was learned
        out = g.const(np.array([encoding.unknown]), "unknown")
    return g.op("Where", [g.op("IsNaN", [column]), g.const(np.array([encoding.missing]), "missing"), out], hint="encoded")


@register(OneHotEncoder, methods=lambda model: ("transform",), categories=_encoder_categories)
def _convert_onehot(model: OneHotEncoder, method: str, g: GraphBuilder, x: str) -> str:
    # each input column: the index of the column it sets in its block, read from the encoder (its categories
    # in scikit-learn's order, infrequent ones grouped, the dropped one none, an unknown value none or the
    # infrequent group's); a string column arrives as its code, a numeric one as its value; then one-hot
    parts = []
    for k, encoding in enumerate(_encodings(model)):
        if encoding.width == 0:
            continue
        index = _encoded(g, g.columns(x, k, k + 1), encoding)
        flags = g.op("Equal", [index, g.const(np.arange(encoding.width, dtype=np.float64), "positions")], hint="onehot")
        parts.append(g.cast(flags, g.dtype))
    if not parts:
        raise ExportError("This OneHotEncoder outputs no column; there is nothing to export.")
    return g.hstack(parts, hint="onehot")


@register(OrdinalEncoder, methods=lambda model: ("transform",), categories=_encoder_categories)
def _convert_ordinal(model: OrdinalEncoder, method: str, g: GraphBuilder, x: str) -> str:
    # each input column's value, read from the encoder: a category's position (infrequent ones grouped), a
    # missing value's, an unknown one's unknown_value (handle_unknown="use_encoded_value"; "error" would raise)
    encodings = _encodings(model)
    return g.hstack([_encoded(g, g.columns(x, k, k + 1), e) for k, e in enumerate(encodings)], hint="ordinal")


@register(TargetEncoder, methods=lambda model: ("transform",), categories=_encoder_categories)
def _convert_target_encoder(model: TargetEncoder, method: str, g: GraphBuilder, x: str) -> str:
    # transform (not fit_transform's cross-fitted values: those are the training rows' only): each known
    # category's encoding read from the encoder, the learned missing one's, and target_mean_ for an unseen
    # value; a multiclass encoder gives one column per class for each input column, in its order
    columns, out = _probed(model, probes_unknown=True)
    width = out.shape[1] // max(1, len(columns))
    if width * len(columns) != out.shape[1]:
        raise ExportError("Could not tell which output columns of this TargetEncoder each input column gives.")
    parts = []
    for k, (named, known, learned) in enumerate(columns):
        column = g.columns(x, k, k + 1)
        for j in range(width):
            found = out[:, k * width + j]
            unknown = found[len(known) + len(learned)]
            parts.append(_encoded(g, column, _encoding(named, known, learned, found, unknown, 1)))
    return g.hstack(parts, hint="target_encoded")


@register(KBinsDiscretizer, methods=lambda model: ("transform",))
def _convert_bins(model: KBinsDiscretizer, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's np.searchsorted(inner edges, value, side="right"): how many inner edges are <= the value;
    # then its one-hot encoder, when it encodes one-hot
    parts = []
    for k, edges in enumerate(model.bin_edges_):
        inner = np.asarray(edges, dtype=np.float64)[1:-1]
        column = g.columns(x, k, k + 1)
        if len(inner) == 0:  # one bin: every value is in bin 0 (x < x is false even for infinities)
            parts.append(g.cast(g.op("Less", [column, column], hint="bin"), g.dtype))
            continue
        below = g.cast(g.op("GreaterOrEqual", [column, g.const(inner, "edges")], hint="past_edge"), g.dtype)
        parts.append(g.op("ReduceSum", [below, g.const([1], "axis")], keepdims=1, hint="bin"))
    bins = g.hstack(parts, hint="bins")
    if model.encode == "ordinal":
        return bins
    return converter_for(model._encoder).convert(model._encoder, "transform", g, bins)


@register(SplineTransformer, methods=lambda model: ("transform",))
def _convert_spline(model: SplineTransformer, method: str, g: GraphBuilder, x: str) -> str:
    # each input column through its fitted BSpline as SciPy evaluates it (its knot interval, de Boor's
    # recurrence over the k + 1 basis functions that are not zero there, then their sum against the
    # coefficients in SciPy's order), then scikit-learn's handling of the ends (periodic wrap, constant or
    # linear continuation, zeros outside for "error"'s NaN) and of missing values (zeros); the last column of
    # each block dropped without include_bias
    parts = []
    degree = model.degree  # as scikit-learn's transform keeps it: "linear" raises a degree <= 1 for good,
    for f, spl in enumerate(model.bsplines_):  # so the later columns' ends sit at t[degree + 1] (its numbers)
        block = _spline_block(model, spl, g, g.columns(x, f, f + 1), degree)
        if model.extrapolation == "linear" and degree <= 1:
            degree += 1
        n_splines = spl.c.shape[1]
        if not model.include_bias:
            block = g.columns(block, 0, n_splines - 1)
        parts.append(block)
    return g.hstack(parts, hint="splines")


def _spline_block(model: SplineTransformer, spl: Any, g: GraphBuilder, x: str, degree: int) -> str:
    """One input column ``x`` (``[N, 1]``) through ``spl``, as ``SplineTransformer.transform`` gives it
    (``degree``: where it puts the ends for ``constant`` and ``linear``, ``t[degree]`` and
    ``t[-degree - 1]``)."""
    t, k, c = np.asarray(spl.t, dtype=np.float64), int(spl.k), np.asarray(spl.c, dtype=np.float64)
    n = len(t) - k - 1
    extrapolation = model.extrapolation
    zero = g.const(np.array([0.0]), "zero")
    raw = x
    if extrapolation == "periodic":  # x mapped into [t[k], t[n]] by NumPy's floor remainder
        if t[n] - t[k] > 0:
            start, period = g.const(np.array([t[k]]), "start"), g.const(np.array([t[n] - t[k]]), "period")
            shifted = g.op("Sub", [x, start], hint="shifted")
            rest = g.op("Mod", [shifted, period], fmod=1, hint="rest")  # C's fmod: the sign of the dividend
            wrong_side = g.op(
                "And",
                [g.op("Not", [g.op("Equal", [rest, zero])]), g.op("Less", [rest, zero])],
                hint="wrong_side",
            )
            rest = g.op("Where", [wrong_side, g.op("Add", [rest, period]), rest], hint="rest")
            x = g.op("Add", [start, rest], hint="wrapped")
        else:  # a single value in training: a constant feature
            x = g.op("Mul", [x, zero], hint="constant")
    # the interval: t[m] <= x < t[m + 1], m in [k, n - 1] (the first or last one beyond the knots)
    inner = g.const(t[k + 1 : n], "inner_knots")
    passed = g.cast(g.op("LessOrEqual", [inner, x], hint="passed"), np.int64)
    m = g.op("Add", [g.op("ReduceSum", [passed, g.const([1], "axis")], keepdims=1, hint="count"), g.const([k])], hint="interval")
    knots = g.op("Gather", [g.const(t, "knots"), g.op("Add", [m, g.const(np.arange(1 - k, k + 1), "offsets")])], axis=0)

    def knot(d: int) -> str:  # t[m + d], d in [1 - k, k]
        return g.columns(knots, d - (1 - k), d - (1 - k) + 1)

    h = [g.const(np.array([[1.0]]), "one")]
    for j in range(1, k + 1):
        previous = list(h)
        h = [zero] + h[1:] + [zero]
        for i in range(1, j + 1):
            right, left = knot(i), knot(i - j)
            same = g.op("Equal", [right, left], hint="same_knots")
            w = g.op("Div", [previous[i - 1], g.op("Sub", [right, left])], hint="w")
            grown = g.op("Add", [h[i - 1], g.op("Mul", [w, g.op("Sub", [right, x])])], hint="h")
            h[i - 1] = g.op("Where", [same, h[i - 1], grown], hint="h")
            h[i] = g.op("Where", [same, zero, g.op("Mul", [w, g.op("Sub", [x, left])])], hint="h")
    coefficients = g.const(c, "coefficients")
    rows_shape = g.const([-1, c.shape[1]], "rows_shape")
    value = zero  # SciPy starts each sum at 0
    for a in range(k + 1):
        row = g.op("Add", [m, g.const([a - k])], hint="row")
        picked = g.op("Reshape", [g.op("Gather", [coefficients, row], axis=0), rows_shape], hint="coefficients")
        value = g.op("Add", [value, g.op("Mul", [picked, h[a]])], hint="sum")
    if extrapolation in ("constant", "linear", "error"):
        ends = (t[k], t[n]) if extrapolation == "error" else (t[degree], t[-degree - 1])
        lowest, highest = g.const(np.array([ends[0]]), "xmin"), g.const(np.array([ends[1]]), "xmax")
        below, above = g.op("Less", [raw, lowest], hint="below"), g.op("Greater", [raw, highest], hint="above")
        outside = np.nan if extrapolation == "error" else 0.0
        value = g.op("Where", [g.op("Or", [below, above]), g.const(np.array([outside]), "outside"), value])
        if extrapolation != "error":
            value = _continued(model, spl, g, raw, value, below, above, degree)
    return g.op("Where", [g.op("IsNaN", [raw]), zero, value], hint="splines")


def _continued(
    model: SplineTransformer, spl: Any, g: GraphBuilder, x: str, value: str, below: str, above: str, degree: int
) -> str:
    """The first and last basis functions beyond the ends: their values there (``constant``), or those plus
    the slope times the distance (``linear``), as scikit-learn writes them; the others stay 0."""
    n_splines = spl.c.shape[1]
    xmin, xmax = spl.t[degree], spl.t[-degree - 1]
    f_min, f_max = np.asarray(spl(xmin), dtype=np.float64), np.asarray(spl(xmax), dtype=np.float64)
    ends = degree + 1 if model.extrapolation == "linear" and degree <= 1 else degree  # one more, as natively
    first, last = np.zeros(n_splines, dtype=bool), np.zeros(n_splines, dtype=bool)
    first[:ends], last[n_splines - ends :] = True, True
    low = np.where(first, f_min, 0.0)
    high = np.where(last, f_max, 0.0)
    if model.extrapolation == "linear":
        fp_min, fp_max = np.asarray(spl(xmin, nu=1), dtype=np.float64), np.asarray(spl(xmax, nu=1), dtype=np.float64)
        low_slope, high_slope = np.where(first, fp_min, 0.0), np.where(last, fp_max, 0.0)
        from_min = g.op("Sub", [x, g.const(np.array([xmin]), "xmin")])
        from_max = g.op("Sub", [x, g.const(np.array([xmax]), "xmax")])
        low_value = g.op("Add", [g.const(low, "f_min"), g.op("Mul", [from_min, g.const(low_slope, "fp_min")])])
        high_value = g.op("Add", [g.const(high, "f_max"), g.op("Mul", [from_max, g.const(high_slope, "fp_max")])])
    else:
        low_value, high_value = g.const(low, "f_min"), g.const(high, "f_max")
    value = g.op("Where", [below, low_value, value], hint="continued")
    return g.op("Where", [above, high_value, value], hint="continued")


@register(FunctionTransformer, methods=lambda model: ("transform", "inverse_transform"))
def _convert_function_transformer(model: FunctionTransformer, method: str, g: GraphBuilder, x: str) -> str:
    # the functions of a target transform: the identity (no function), or one NumPy function exported elementwise
    function = model.func if method == "transform" else model.inverse_func
    if function is None:
        return x
    if model.kw_args if method == "transform" else model.inv_kw_args:
        raise ExportError(
            f"FunctionTransformer.{method}() passes keyword arguments to its function, which cannot be exported. "
            "Use a function without them."
        )
    lowering = elementwise.FUNCTIONS.get(function)
    if lowering is None:
        raise ExportError(
            f"FunctionTransformer.{method}() applies {getattr(function, '__qualname__', repr(function))}, which has "
            f"no ONNX operator here. Exported: no function (the identity), {elementwise.names()}."
        )
    return lowering(g, x)


@register(PowerTransformer, methods=lambda model: ("transform", "inverse_transform"))
def _convert_power(model: PowerTransformer, method: str, g: GraphBuilder, x: str) -> str:
    # Yeo-Johnson and Box-Cox as SciPy computes them (log1p and expm1 in elementwise's forms, so within a few
    # ulps), then the fitted StandardScaler; Yeo-Johnson's inverse as scikit-learn computes it (np.power and
    # np.exp), Box-Cox's as SciPy's inv_boxcox, after un-scaling
    forward, backward = {"yeo-johnson": (_yeo_johnson, _yeo_johnson_inverse), "box-cox": (_box_cox, _box_cox_inverse)}[
        model.method
    ]
    lambdas = np.asarray(model.lambdas_, dtype=np.float64)
    scaler = model._scaler if model.standardize else None
    if method == "transform":
        out = forward(g, x, lambdas)
        return converter_for(scaler).convert(scaler, "transform", g, out) if scaler is not None else out
    if scaler is not None:
        x = converter_for(scaler).convert(scaler, "inverse_transform", g, x)
    return backward(g, x, lambdas)


def _lambda_masks(lambdas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The columns whose lambda is 0, and those whose lambda is 2, as scikit-learn and SciPy tell them (eps)."""
    eps = np.finfo(np.float64).eps
    return np.abs(lambdas) < eps, np.abs(lambdas - 2) <= eps


def _yeo_johnson(g: GraphBuilder, x: str, lambdas: np.ndarray) -> str:
    """SciPy's ``yeojohnson(x, lmbda)`` column by column: for ``x >= 0``, ``log1p(x)`` (lambda 0) or
    ``expm1(lambda * log1p(x)) / lambda``; below 0, ``-log1p(-x)`` (lambda 2) or
    ``-expm1((2 - lambda) * log1p(-x)) / (2 - lambda)``."""
    zero, two = _lambda_masks(lambdas)
    lam, rest = g.const(lambdas, "lambdas"), g.const(2.0 - lambdas, "two_minus_lambdas")
    above = elementwise.log1p(g, x)
    general = g.op("Div", [elementwise.expm1(g, g.op("Mul", [lam, above])), lam], hint="yeo_johnson")
    positive = g.op("Where", [g.const(zero, "lambda_zero", dtype=np.bool_), above, general], hint="yeo_johnson")
    below = elementwise.log1p(g, g.op("Neg", [x]))
    general = g.op("Div", [g.op("Neg", [elementwise.expm1(g, g.op("Mul", [rest, below]))]), rest], hint="yeo_johnson")
    negative = g.op("Where", [g.const(two, "lambda_two", dtype=np.bool_), g.op("Neg", [below]), general], hint="yeo_johnson")
    at_least_zero = g.op("GreaterOrEqual", [x, g.const(np.zeros(1), "zero")])
    return g.op("Where", [at_least_zero, positive, negative], hint="yeo_johnson")


def _yeo_johnson_inverse(g: GraphBuilder, x: str, lambdas: np.ndarray) -> str:
    """scikit-learn's ``_yeo_johnson_inverse_transform`` column by column: for ``x >= 0``, ``exp(x) - 1``
    (lambda 0) or ``(x * lambda + 1) ** (1 / lambda) - 1``; below 0, ``1 - exp(-x)`` (lambda 2) or
    ``1 - (-(2 - lambda) * x + 1) ** (1 / (2 - lambda))``."""
    zero, two = _lambda_masks(lambdas)
    one = g.const(np.ones(1), "one")
    with np.errstate(divide="ignore"):  # the columns whose lambda is 0 or 2 take the other form
        inverse, inverse_rest = 1 / np.where(zero, 1.0, lambdas), 1 / np.where(two, 1.0, 2.0 - lambdas)
    grown = g.op("Add", [g.op("Mul", [x, g.const(lambdas, "lambdas")]), one])
    general = g.op("Sub", [g.op("Pow", [grown, g.const(inverse, "inverse_lambdas")]), one], hint="yeo_johnson_inverse")
    exponential = g.op("Sub", [g.op("Exp", [x]), one])
    positive = g.op("Where", [g.const(zero, "lambda_zero", dtype=np.bool_), exponential, general], hint="yeo_johnson_inverse")
    shrunk = g.op("Add", [g.op("Mul", [g.const(-(2.0 - lambdas), "minus_rest"), x]), one])
    general = g.op("Sub", [one, g.op("Pow", [shrunk, g.const(inverse_rest, "inverse_rest")])], hint="yeo_johnson_inverse")
    exponential = g.op("Sub", [one, g.op("Exp", [g.op("Neg", [x])])])
    negative = g.op("Where", [g.const(two, "lambda_two", dtype=np.bool_), exponential, general], hint="yeo_johnson_inverse")
    at_least_zero = g.op("GreaterOrEqual", [x, g.const(np.zeros(1), "zero")])
    return g.op("Where", [at_least_zero, positive, negative], hint="yeo_johnson_inverse")


def _lambda_constants(g: GraphBuilder, lambdas: np.ndarray, zero: np.ndarray) -> tuple[str, str, str, str]:
    """Per column: lambda, its sign, log|lambda| and 1 / lambda (1 where lambda takes the other form)."""
    safe = np.where(zero, 1.0, lambdas)
    return (
        g.const(lambdas, "lambdas"),
        g.const(np.copysign(1.0, lambdas), "lambda_signs"),
        g.const(np.log(np.abs(safe)), "log_lambdas"),
        g.const(1.0 / safe, "inverse_lambdas"),
    )


def _box_cox(g: GraphBuilder, x: str, lambdas: np.ndarray) -> str:
    """SciPy's ``boxcox(x, lmbda)`` column by column: ``log(x)`` where ``|lambda| < 1e-19``; else, with
    ``t = lambda * log(x)``, ``expm1(t) / lambda`` where ``t < 709.78``, and
    ``sign(lambda) * exp(t - log|lambda|) - 1 / lambda`` above (where the first form overflows)."""
    zero = np.abs(lambdas) < 1e-19
    lam, sign, log_lam, inverse = _lambda_constants(g, lambdas, zero)
    logged = g.op("Log", [x], hint="box_cox")
    t = g.op("Mul", [lam, logged], hint="box_cox")
    usual = g.op("Div", [elementwise.expm1(g, t), lam], hint="box_cox")
    large = g.op("Sub", [g.op("Mul", [sign, g.op("Exp", [g.op("Sub", [t, log_lam])])]), inverse], hint="box_cox")
    out = g.op("Where", [g.op("Less", [t, g.const(np.array([709.78]), "box_cox_limit")]), usual, large], hint="box_cox")
    return g.op("Where", [g.const(zero, "lambda_zero", dtype=np.bool_), logged, out], hint="box_cox")


def _box_cox_inverse(g: GraphBuilder, x: str, lambdas: np.ndarray) -> str:
    """SciPy's ``inv_boxcox(x, lmbda)`` column by column: ``exp(x)`` where lambda is 0; else, with
    ``u = lambda * x``, ``exp(log1p(u) / lambda)`` where ``u < 1.79e308``, and
    ``exp((log(sign(lambda) * (x + 1 / lambda)) + log|lambda|) / lambda)`` above."""
    zero = lambdas == 0
    lam, sign, log_lam, inverse = _lambda_constants(g, lambdas, zero)
    u = g.op("Mul", [lam, x], hint="box_cox_inverse")
    usual = g.op("Exp", [g.op("Div", [elementwise.log1p(g, u), lam])], hint="box_cox_inverse")
    shifted = g.op("Log", [g.op("Mul", [sign, g.op("Add", [x, inverse])])])
    large = g.op("Exp", [g.op("Div", [g.op("Add", [shifted, log_lam]), lam])], hint="box_cox_inverse")
    limit = g.const(np.array([1.79e308]), "box_cox_inverse_limit")
    out = g.op("Where", [g.op("Less", [u, limit]), usual, large], hint="box_cox_inverse")
    return g.op("Where", [g.const(zero, "lambda_zero", dtype=np.bool_), g.op("Exp", [x]), out], hint="box_cox_inverse")


def _missing(g: GraphBuilder, x: str, missing_values: Any) -> str:
    """Where ``x`` holds the missing-value marker (NaN, or a number)."""
    if isinstance(missing_values, float) and np.isnan(missing_values):
        return g.op("IsNaN", [x], hint="missing")
    if isinstance(missing_values, (int, float, np.number)) and not isinstance(missing_values, bool):
        return g.op("Equal", [x, g.const(np.array([float(missing_values)]), "marker")], hint="missing")
    raise ExportError(
        f"Missing values marked by {missing_values!r} cannot be exported: the input is numeric. Mark them with "
        "np.nan or a number."
    )


@register(SimpleImputer, methods=lambda model: ("transform",))
def _convert_simple_imputer(model: SimpleImputer, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's transform: a column whose statistic is NaN (empty when fitted) is dropped unless kept
    # (keep_empty_features), each missing entry takes its column's statistic, then the indicator columns
    missing = _missing(g, x, model.missing_values)
    try:
        statistics = np.asarray(model.statistics_, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ExportError(
            f"This SimpleImputer fills values that are not numbers ({brief(error)}); the input is numeric. "
            "Impute numbers, or encode the column first."
        ) from error
    keep = np.arange(len(statistics)) if model.keep_empty_features else np.flatnonzero(~np.isnan(statistics))
    if len(keep) < len(statistics):
        x_kept, missing_kept = g.take_columns(x, keep, hint="kept"), g.take_columns(missing, keep, hint="kept")
    else:
        x_kept, missing_kept = x, missing
    out = g.op("Where", [missing_kept, g.const(statistics[keep], "statistics"), x_kept], hint="imputed")
    indicator = getattr(model, "indicator_", None)
    if indicator is None:
        return out
    return g.hstack([out, _indicated(g, missing, indicator)], hint="with_indicator")


@register(IterativeImputer, methods=lambda model: ("transform",))
def _convert_iterative_imputer(model: IterativeImputer, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's transform: the initial SimpleImputer (features empty in training dropped, or kept with
    # keep_empty_features and then never imputed); then, in the fitted order, each feature's missing entries
    # take its fitted model's prediction from the current values of its neighbour features, clipped to its
    # bounds (predicted for every row, kept where the entry is missing); a batch whose every entry is missing
    # keeps the initial values, as natively; then the indicator columns
    if model.sample_posterior:
        raise ExportError(
            "IterativeImputer(sample_posterior=True) draws each imputed value at random; it cannot be exported. "
            "Fit it with sample_posterior=False."
        )
    try:
        empty = np.asarray(model._is_empty_feature, dtype=bool)
        lowest, highest = np.asarray(model._min_value, dtype=np.float64), np.asarray(model._max_value, dtype=np.float64)
    except AttributeError as error:
        raise ExportError(
            "This IterativeImputer does not keep what its transform reads (its empty features and bounds); "
            "refit it with the scikit-learn version installed."
        ) from error
    missing = _missing(g, x, model.missing_values)
    initial = _convert_simple_imputer(model.initial_imputer_, "transform", g, x)
    kept = np.arange(len(empty)) if model.keep_empty_features else np.flatnonzero(~empty)
    columns = [g.columns(initial, j, j + 1) for j in range(len(kept))]  # positions the fitted models index
    for step in model.imputation_sequence_:
        j = step.feat_idx
        if empty[kept[j]]:  # kept empty: marked not missing, never imputed
            continue
        estimator = step.estimator
        neighbours = g.hstack([columns[i] for i in step.neighbor_feat_idx], hint="neighbours")
        guess = g.as_column(converter_for(estimator).convert(estimator, "predict", g, neighbours))
        low, high = g.const(np.array([lowest[j]]), "min_value"), g.const(np.array([highest[j]]), "max_value")
        clipped = g.op("Min", [g.op("Max", [guess, low], hint="clipped"), high], hint="clipped")  # np.clip
        gap = g.columns(missing, int(kept[j]), int(kept[j]) + 1)
        columns[j] = g.op("Where", [gap, clipped, columns[j]], hint="imputed")
    out = g.hstack(columns, hint="imputed")
    if not model.n_iter_:
        out = initial
    elif not (model.keep_empty_features and empty.any()):  # else some entry is never missing
        present = g.cast(g.op("Not", [g.take_columns(missing, kept, hint="kept")]), np.int64)
        anything = g.op("ReduceMax", [present], keepdims=0, hint="any_present")
        every_missing = g.op("Equal", [anything, g.const(np.array(0))], hint="every_missing")
        out = g.op("Where", [every_missing, initial, out], hint="imputed")
    indicator = getattr(model, "indicator_", None)
    if indicator is None:
        return out
    return g.hstack([out, _indicated(g, missing, indicator)], hint="with_indicator")


def _indicated(g: GraphBuilder, missing: str, indicator: MissingIndicator) -> str:
    """A ``MissingIndicator``'s output: the columns it learned to flag (``features_``), each entry 1 where missing."""
    return g.cast(g.take_columns(missing, indicator.features_, hint="indicated"), g.dtype)


@register(MissingIndicator, methods=lambda model: ("transform",))
def _convert_missing_indicator(model: MissingIndicator, method: str, g: GraphBuilder, x: str) -> str:
    # missing entries (error_on_new would raise natively on a column it did not learn to flag; here it sets none)
    return _indicated(g, _missing(g, x, model.missing_values), model)


@register(PolynomialFeatures, methods=lambda model: ("transform",))
def _convert_polynomial(model: PolynomialFeatures, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's dense algorithm, step by step: each term of degree d is a term of degree d - 1 times one
    # feature, in its order of columns, so the products are the very same floating-point numbers
    n = model.n_features_in_
    low, high = (model.degree, model.degree) if isinstance(model.degree, int) else model.degree
    blocks = [x] if high > 0 else []
    index, width = list(range(n)) + [n], n
    for _ in range(2, high + 1):
        previous = g.hstack(blocks, hint="terms")
        new_index, end = [], index[-1]
        for feature in range(n):
            start = index[feature] + (index[feature + 1] - index[feature] if model.interaction_only else 0)
            new_index.append(width)
            if end <= start:
                break
            factor = g.columns(x, feature, feature + 1)
            blocks.append(g.op("Mul", [g.columns(previous, start, end), factor], hint="term"))
            width += end - start
        new_index.append(width)
        index = new_index
    terms = g.hstack(blocks, hint="terms") if blocks else None
    wanted = model.n_output_features_ - (1 if model.include_bias else 0)
    if terms is not None and low > 1:  # degrees below the lowest asked for: the first columns, left out
        terms = g.columns(terms, width - wanted, width)
    if not model.include_bias:
        if terms is None:
            raise ExportError("This PolynomialFeatures outputs no column; there is nothing to export.")
        return terms
    rows = g.op("Slice", [g.op("Shape", [x]), g.const([0], "start"), g.const([1], "stop")], hint="rows")
    shape = g.op("Concat", [rows, g.const([1], "one")], axis=0, hint="bias_shape")
    ones = g.op("ConstantOfShape", [shape], value=g.onnx.numpy_helper.from_array(np.ones(1, dtype=g.dtype)))
    return ones if terms is None or wanted == 0 else g.hstack([ones, terms], hint="with_bias")


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
