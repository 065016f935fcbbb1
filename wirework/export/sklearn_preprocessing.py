"""scikit-learn's preprocessing transformers, computed as scikit-learn computes them.

``StandardScaler`` both ways (``inverse_transform`` is the last step of a
target transform), ``FunctionTransformer`` both ways when its functions are
none (the identity) or NumPy functions with an ONNX operator (see
:mod:`wirework.export.elementwise`), ``PowerTransformer`` (Yeo-Johnson and
Box-Cox, both ways), ``SplineTransformer`` (SciPy's evaluation and
scikit-learn's ends, bit for bit; skl2onnx has none), ``SimpleImputer``,
``MissingIndicator``, ``IterativeImputer`` (its rounds replayed with each
fitted model's converter), ``Normalizer`` (its norms added in NumPy's order),
``QuantileTransformer`` (uniform output, both ways: ``np.interp`` step by
step), ``KBinsDiscretizer``, ``PolynomialFeatures``
and ``Binarizer`` (skl2onnx's forms do not run in float64, or put a value
equal to the threshold on the wrong side; ours compute scikit-learn's very
numbers, and in float32 compare with thresholds rounded so that every
float32 input falls on its side of the float64 one).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.impute._iterative import IterativeImputer  # importable without enabling the experimental name
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    KBinsDiscretizer,
    Normalizer,
    PolynomialFeatures,
    PowerTransformer,
    QuantileTransformer,
    SplineTransformer,
    StandardScaler,
)

from wirework.errors import ExportError, brief
from wirework.export import elementwise
from wirework.export.builder import GraphBuilder
from wirework.export.registry import converter_for, register
from wirework.export.trees import Mode, thresholds

__all__: list[str] = []


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


@register(Normalizer, methods=lambda model: ("transform",))
def _convert_normalizer(model: Normalizer, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's normalize: each row's norm as NumPy computes it for a C-ordered array (l1: the sum of
    # absolute values in NumPy's pairwise order; l2: the square root of einsum's sum of squares; max: the
    # largest absolute value), a norm below 10 eps taken as 1 (_handle_zeros_in_scale), then the row divided
    width = int(model.n_features_in_)
    if model.norm == "l1":
        norms = g.row_sum(g.op("Abs", [x], hint="absolute"), width)
    elif model.norm == "l2":
        norms = g.op("Sqrt", [g.row_squares(x, width)], hint="norms")
    elif model.norm == "max":
        norms = g.op("ReduceMax", [g.op("Abs", [x], hint="absolute"), g.const([1], "axis")], keepdims=1, hint="norms")
    else:
        raise ExportError(f"Normalizer(norm={model.norm!r}) cannot be exported; its norms are 'l1', 'l2' and 'max'.")
    tiny = g.op("Less", [norms, g.const(np.array([10 * np.finfo(np.float64).eps]), "tiny")], hint="constant_row")
    norms = g.op("Where", [tiny, g.const(np.ones(1), "one"), norms], hint="norms")
    return g.op("Div", [x, norms], hint="normalized")


@register(QuantileTransformer, methods=lambda model: ("transform", "inverse_transform"))
def _convert_quantile(model: QuantileTransformer, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's _transform_col, column by column: forward, the mean of np.interp over the quantiles
    # upwards and (negated) downwards, so repeated quantiles take the middle of their references; backwards,
    # np.interp of the references onto the quantiles; then a value equal to the top bound takes the top of
    # the other side, and one equal to the bottom bound its bottom (in that order, as it assigns them)
    if model.output_distribution != "uniform":
        raise ExportError(
            f"QuantileTransformer(output_distribution={model.output_distribution!r}) cannot be exported exactly: "
            "SciPy's norm.ppf and norm.cdf have no ONNX operator. Use output_distribution='uniform'."
        )
    references = np.asarray(model.references_, dtype=np.float64)
    parts = []
    for k in range(model.quantiles_.shape[1]):
        quantiles = np.asarray(model.quantiles_[:, k], dtype=np.float64)
        column = g.columns(x, k, k + 1)
        if method == "transform":
            up = elementwise.interp(g, column, quantiles, references)
            down = elementwise.interp(g, g.op("Neg", [column]), -quantiles[::-1], -references[::-1])
            value = g.op("Mul", [g.const(np.array([0.5]), "half"), g.op("Sub", [up, down])], hint="quantile")
            bounds, targets = (quantiles[0], quantiles[-1]), (0.0, 1.0)
        else:
            value = elementwise.interp(g, column, references, quantiles)
            bounds, targets = (0.0, 1.0), (quantiles[0], quantiles[-1])
        for bound, target in ((bounds[1], targets[1]), (bounds[0], targets[0])):
            at_bound = g.op("Equal", [column, g.const(np.array([bound]), "bound")], hint="at_bound")
            value = g.op("Where", [at_bound, g.const(np.array([target]), "bound_value"), value], hint="quantile")
        parts.append(value)
    return g.hstack(parts, hint="quantiles")


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
        edges = thresholds(g, inner, Mode.GTE, "edges")
        below = g.cast(g.op("GreaterOrEqual", [column, edges], hint="past_edge"), g.dtype)
        parts.append(g.op("ReduceSum", [below, g.const([1], "axis")], keepdims=1, hint="bin"))
    bins = g.hstack(parts, hint="bins")
    if model.encode == "ordinal":
        return bins
    return converter_for(model._encoder).convert(model._encoder, "transform", g, bins)


@register(Binarizer, methods=lambda model: ("transform",))
def _convert_binarizer(model: Binarizer, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's x > threshold: 1 above it, 0 at it and below (skl2onnx gave 1 at it)
    return g.cast(g.op("Greater", [x, thresholds(g, model.threshold, Mode.GT)], hint="above"), g.dtype)


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
    count = g.op("ReduceSum", [passed, g.const([1], "axis")], keepdims=1, hint="count")
    m = g.op("Add", [count, g.const([k])], hint="interval")
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
    try:
        statistics = np.asarray(model.statistics_, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ExportError(
            f"This SimpleImputer fills values that are not numbers ({brief(error)}), so its output alone holds "
            "strings, which the file cannot give. Export it with the encoder that reads them: first in a "
            "scikit-learn Pipeline (Pipeline([('impute', imputer), ('encode', OneHotEncoder())]), alone or in a "
            "ColumnTransformer), or read by one encoder in a network."
        ) from error
    missing = _missing(g, x, model.missing_values)
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
