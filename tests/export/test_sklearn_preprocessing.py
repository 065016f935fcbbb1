"""scikit-learn's preprocessing exported: imputers, power and spline transforms, polynomials, bins."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.impute._iterative import IterativeImputer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import (
    Ridge,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    KBinsDiscretizer,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    PolynomialFeatures,
    PowerTransformer,
    QuantileTransformer,
    RobustScaler,
    SplineTransformer,
    StandardScaler,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from _sklearn_data import FRAME, TARGET, exact, hgb

import wirework as ww


def _with_gaps():
    X = FRAME.to_numpy().copy()
    X[::7, 2] = np.nan  # a column with gaps
    X[:, 5] = np.nan  # a column with nothing observed: scikit-learn drops it unless keep_empty_features
    return X


@pytest.mark.parametrize(
    "imputer",
    [
        SimpleImputer(),
        SimpleImputer(strategy="median", add_indicator=True),
        SimpleImputer(strategy="constant", fill_value=3.5),
        SimpleImputer(strategy="most_frequent", keep_empty_features=True, add_indicator=True),
    ],
    ids=["mean", "median with indicator", "constant", "kept empty column with indicator"],
)
def test_simple_imputer_fills_and_flags_as_scikit_learn(imputer):
    X = _with_gaps()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Skipping features without any observed values"
        pipe = Pipeline([("impute", imputer), ("tree", hgb())]).fit(X, TARGET)
        alone = ww.onnx.check_parity(imputer, ww.to_onnx(imputer, methods=["transform"]), X)
        assert alone.outputs["transform"].max_abs == 0.0
        assert exact(pipe, X) == 0.0


@pytest.mark.parametrize(
    "indicator",
    [MissingIndicator(), MissingIndicator(features="all", sparse=True), MissingIndicator(missing_values=-1.0)],
    ids=["columns with gaps", "all, sparse", "a numeric marker"],
)
def test_missing_indicator_flags_as_scikit_learn(indicator):
    X = np.delete(_with_gaps(), 5, axis=1)  # a column of NaN only: HistGradientBoosting cannot bin it
    X[::11, 7] = np.nan
    if indicator.missing_values == -1.0:
        X = np.nan_to_num(X, nan=-1.0)
    indicator.fit(X)
    alone = ww.onnx.check_parity(indicator, ww.to_onnx(indicator, methods=["transform"]), X)
    assert alone.outputs["transform"].max_abs == 0.0
    both = make_pipeline(
        ColumnTransformer([("flags", clone(indicator), slice(0, None)), ("values", "passthrough", slice(0, None))]),
        hgb(),
    ).fit(X, TARGET)
    assert exact(both, X) == 0.0


def _skewed() -> np.ndarray:
    """Diabetes, and skewed columns of both signs with gaps."""
    rng = np.random.default_rng(0)
    X = FRAME.to_numpy() * 100
    skewed = np.column_stack([rng.lognormal(0, 1, len(X)), -rng.lognormal(0, 1, len(X)), rng.normal(0, 5, len(X))])
    skewed[::9, 0] = np.nan
    return np.column_stack([X, skewed])


@pytest.mark.parametrize("standardize", [True, False])
@pytest.mark.parametrize("method", ["yeo-johnson", "box-cox"])
def test_power_transformer_within_a_few_ulps_both_ways(method, standardize):
    X = _skewed()
    if method == "box-cox":  # positive values only
        X = np.abs(X) + 0.01
    power = PowerTransformer(method=method, standardize=standardize).fit(X)
    # the special forms: Yeo-Johnson at lambda 0 and 2; Box-Cox at lambda 0, and past exp's range at lambda 10
    power.lambdas_[:2] = [0.0, 2.0] if method == "yeo-johnson" else [0.0, 10.0]
    served = X.copy()
    if method == "box-cox" and not standardize:
        served[0, 1] = np.exp(71.0)  # 10 * log(x) = 710: SciPy's other form, finite (2.2e307)
    with np.errstate(all="ignore"):
        forward = power.transform(served)
        scores = forward.copy()
        if method == "box-cox" and not standardize:
            scores[1, 1] = 1.8e307  # 10 * x past 1.79e308: inv_boxcox's other form
        back = power.inverse_transform(scores)
    model = ww.to_onnx(power, X_sample=X[:3], methods=["transform"])
    got = ww.onnx.session(model).run(None, {"X": served})[0]
    assert np.array_equal(np.isnan(got), np.isnan(forward))
    assert np.nanmax(np.abs(got - forward) / np.maximum(np.abs(forward), 1.0)) <= 1e-12
    inverse = ww.to_onnx(power, X_sample=X[:3], methods=["inverse_transform"])
    again = ww.onnx.session(inverse).run(None, {"X": scores})[0]
    assert np.array_equal(np.isnan(again), np.isnan(back))
    assert np.nanmax(np.abs(again - back) / np.maximum(np.abs(back), 1.0)) <= 1e-12


def test_power_transformer_before_a_linear_model_and_as_a_target_transform():
    X = _skewed()
    pipe = ww.Pipeline([("impute", SimpleImputer()), ("power", PowerTransformer()), ("ridge", Ridge())]).fit(X, TARGET)
    assert exact(pipe, X) <= 1e-12
    target = ww.TransformedTarget(Ridge(), PowerTransformer()).fit(FRAME, TARGET)
    report = ww.onnx.check_parity(target, ww.to_onnx(target), FRAME)
    assert report.outputs["predict"].max_rel <= 1e-14
    positive = TARGET.to_numpy()  # diabetes' target is positive: Box-Cox takes it
    boxcox = ww.TransformedTarget(Ridge(), PowerTransformer(method="box-cox")).fit(FRAME, positive)
    assert ww.onnx.check_parity(boxcox, ww.to_onnx(boxcox), FRAME).outputs["predict"].max_rel <= 1e-14


def test_a_numeric_missing_marker_and_a_refused_one():
    X = FRAME.to_numpy().copy()
    X[::5, 1] = -1.0
    imputer = SimpleImputer(missing_values=-1.0, strategy="most_frequent").fit(X)
    assert ww.onnx.check_parity(imputer, ww.to_onnx(imputer, methods=["transform"]), X).max_abs == 0.0
    numbers = SimpleImputer(missing_values="?", strategy="most_frequent").fit(np.array([[1], ["?"], [1]], dtype=object))
    with pytest.raises(ww.ExportError, match=r"Missing values marked by '\?' cannot be exported"):
        ww.to_onnx(numbers, X_sample=np.zeros((2, 1)), methods=["transform"])
    words = SimpleImputer(strategy="most_frequent").fit(np.array([["a"], [np.nan], ["a"]], dtype=object))
    with pytest.raises(ww.ExportError, match=r"This SimpleImputer fills values that are not numbers \(could not convert string to float: 'a'\), so its output alone holds strings"):
        ww.to_onnx(words, X_sample=np.zeros((2, 1)), methods=["transform"])


@pytest.mark.parametrize(
    "options",
    [
        {"degree": 2},
        {"degree": 3},
        {"degree": 3, "interaction_only": True},
        {"degree": 2, "include_bias": False},
        {"degree": (2, 3)},
        {"degree": (2, 3), "include_bias": False},
        {"degree": 0},
        {"degree": 4, "interaction_only": True, "include_bias": False},
    ],
    ids=["2", "3", "3 interactions", "2 no bias", "2-3", "2-3 no bias", "0", "4 interactions no bias"],
)
def test_polynomial_features_are_the_very_products_scikit_learn_computes(options):
    X = FRAME.to_numpy()[:, :4]
    poly = PolynomialFeatures(**options).fit(X)
    exported = ww.to_onnx(poly, methods=["transform"])
    assert ww.onnx.check_parity(poly, exported, X).outputs["transform"].max_abs == 0.0


def test_a_polynomial_pipeline_in_a_column_transformer_exports():
    # skl2onnx's PolynomialFeatures does not run in float64
    columns = ColumnTransformer([("poly", make_pipeline(StandardScaler(), PolynomialFeatures(2)), ["age", "bmi", "bp"])])
    pipe = ww.Pipeline([("columns", columns), ("tree", hgb())]).fit(FRAME, TARGET)
    assert exact(pipe, FRAME) == 0.0


@pytest.mark.parametrize(
    "options",
    [
        {"n_bins": 5, "encode": "ordinal"},
        {"n_bins": 4, "encode": "onehot"},  # scikit-learn gives a sparse matrix; the file a dense one, equal
        {"n_bins": 3, "encode": "onehot-dense", "strategy": "uniform"},
        {"n_bins": 6, "encode": "ordinal", "strategy": "kmeans"},
    ],
    ids=["quantile ordinal", "sparse one-hot", "uniform one-hot", "k-means ordinal"],
)
def test_bins_are_counted_as_scikit_learn_s_searchsorted(options):
    X = FRAME.to_numpy().copy()
    X[:, 3] = 1.0  # a constant column: one bin, so no inner edge
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn warns of the constant column's bins
        bins = KBinsDiscretizer(**options).fit(X)
    assert len(bins.bin_edges_[3]) == 2
    model = ww.to_onnx(bins, methods=["transform"])
    assert ww.onnx.check_parity(bins, model, X).outputs["transform"].max_abs == 0.0
    pipe = Pipeline([("bins", KBinsDiscretizer(**options)), ("ridge", Ridge())])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pipe.fit(X, TARGET)
    assert exact(pipe, X) <= 1e-12


def _around(values) -> np.ndarray:
    """Each float32 value nearest to ``values``, and the float32 values on either side of it: inputs that sit
    on a float32 threshold or next to it."""
    near = np.asarray(values, dtype=np.float32)
    return np.concatenate([near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(-np.inf))])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bins_keep_values_at_and_next_to_their_edges_in_either_precision(dtype):
    # in float32 the edges are rounded so that each float32 input lands in scikit-learn's bin (to nearest,
    # 5 of these rows moved a bin)
    data = FRAME.to_numpy()[:, [0, 2, 3, 4]]  # not the two-valued one
    bins = KBinsDiscretizer(n_bins=7, encode="ordinal", quantile_method="averaged_inverted_cdf").fit(data)
    X = np.column_stack([_around(edges[1:-1]) for edges in bins.bin_edges_]).astype(np.float64)
    assert ww.onnx.check_parity(bins, ww.to_onnx(bins, dtype=dtype), X).outputs["transform"].rows_differ == 0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binarizer_puts_a_value_at_the_threshold_below_it(dtype):
    # scikit-learn's x > threshold; skl2onnx's file gave 1 at the threshold, and the sample check missed it
    # unless a sample row sat on it
    X = np.column_stack([_around([0.1, 5.0, -2.5])] * 2).astype(np.float64)
    binarizer = Binarizer(threshold=0.1).fit(X)
    assert ww.onnx.check_parity(binarizer, ww.to_onnx(binarizer, dtype=dtype), X).outputs["transform"].rows_differ == 0
    X = np.arange(10.0).reshape(-1, 1)
    pipe = make_pipeline(Binarizer(threshold=5.0), Ridge()).fit(X, np.arange(10.0))
    assert exact(pipe, X, dtype=dtype) <= (0.0 if dtype == "float64" else 1e-6)  # float32: the Ridge's rounding


def _spline_rows() -> np.ndarray:
    """The diabetes data's first three columns, the same stretched and shifted past the knots, and a row
    with a missing value."""
    X = FRAME.to_numpy()[:, :3]
    return np.vstack([X, X * 1.7, X - 0.2, X + 0.2, [[np.nan, 0.0, 0.01]]])


@pytest.mark.parametrize("extrapolation", ["constant", "linear", "continue", "periodic"])
@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize(
    "options",
    [{"n_knots": 4}, {"n_knots": 6, "knots": "quantile", "include_bias": False}, {"n_knots": 5, "sparse_output": True}],
    ids=["uniform", "quantile without bias", "sparse"],
)
def test_spline_transformer_is_exact_inside_and_beyond_the_knots(extrapolation, degree, options):
    # SciPy's evaluation step by step (the knot interval, de Boor's recurrence, the sum against the
    # coefficients), scikit-learn's ends (periodic wrap, constant or linear continuation: its "linear" with
    # degree 1 puts the later columns' ends one knot in, as the file does) and zeros for a missing value
    spline = SplineTransformer(degree=degree, extrapolation=extrapolation, handle_missing="zeros", **options)
    spline.fit(FRAME.to_numpy()[:, :3])
    model = ww.to_onnx(spline, X_sample=FRAME.to_numpy()[:3, :3], methods=["transform"])
    rows = _spline_rows()
    native = spline.transform(rows)
    served = ww.onnx.session(model).run(None, ww.onnx.feed(model, rows))[0]
    np.testing.assert_array_equal(served, native.toarray() if options.get("sparse_output") else native)


def test_splines_before_a_tree_export_exactly_and_error_ends_give_nan():
    pipe = ww.Pipeline([("splines", SplineTransformer(n_knots=5)), ("tree", hgb())]).fit(FRAME[["bmi", "bp"]], TARGET)
    model = ww.to_onnx(pipe, X_sample=FRAME[["bmi", "bp"]].iloc[:3])
    assert ww.onnx.check_parity(pipe, model, FRAME[["bmi", "bp"]]).max_abs == 0.0
    spline = SplineTransformer(extrapolation="error").fit(FRAME[["bmi"]].to_numpy())
    model = ww.to_onnx(spline, X_sample=FRAME[["bmi"]].to_numpy()[:3], methods=["transform"])
    assert ww.onnx.check_parity(spline, model, FRAME[["bmi"]].to_numpy()).max_abs == 0.0
    beyond = np.array([[FRAME.bmi.max() + 1.0]])  # natively a ValueError; the file's values are NaN
    assert np.isnan(ww.onnx.session(model).run(None, ww.onnx.feed(model, beyond))[0]).all()


def _gappy(empty_column: bool = False) -> np.ndarray:
    """The diabetes data with 15% of its entries missing (and one column entirely, if asked)."""
    X = FRAME.to_numpy().copy()
    X[np.random.default_rng(0).random(X.shape) < 0.15] = np.nan
    if empty_column:
        X[:, 4] = np.nan
    return X


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"add_indicator": True, "initial_strategy": "median"},
        {"imputation_order": "random", "n_nearest_features": 4, "random_state": 0},
        {"min_value": -0.05, "max_value": 0.05, "max_iter": 3},
    ],
    ids=["default", "indicator", "random order, nearest features", "bounds"],
)
@pytest.mark.parametrize("empty", ["none", "dropped", "kept"])
@pytest.mark.filterwarnings("ignore:Skipping features without any observed values:UserWarning")  # scikit-learn's
def test_iterative_imputer_rounds_are_replayed_in_the_graph(options, empty):
    # each fitted model predicts its feature from the current values of its neighbours, clipped to its bounds,
    # where the entry is missing; a batch whose every entry is missing keeps the initial imputation, as natively
    X = _gappy(empty_column=empty != "none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter reached: the rounds it made are replayed
        imputer = IterativeImputer(**options, keep_empty_features=empty == "kept").fit(X)
    model = ww.to_onnx(imputer, X_sample=X[:3], methods=["transform"])
    assert ww.onnx.check_parity(imputer, model, X).max_abs <= 1e-12
    nothing = np.full((1, X.shape[1]), np.nan)
    assert ww.onnx.check_parity(imputer, model, nothing).max_abs <= 1e-12
    assert ww.onnx.check_parity(imputer, model, np.vstack([X[:5], nothing])).max_abs <= 1e-12


def test_an_iterative_imputer_in_a_network_and_one_that_samples():
    X = _gappy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe = ww.Pipeline([("impute", IterativeImputer()), ("ridge", Ridge())]).fit(X, TARGET)
        sampling = IterativeImputer(sample_posterior=True, random_state=0).fit(X)
    assert ww.onnx.check_parity(pipe, ww.to_onnx(pipe, X_sample=X[:3]), X).max_abs <= 1e-12
    with pytest.raises(ww.ExportError, match=r"sample_posterior=True\) draws each imputed value at random"):
        ww.to_onnx(sampling, X_sample=X[:3], methods=["transform"])


@pytest.mark.parametrize("norm", ["l2", "l1", "max"])
@pytest.mark.parametrize(
    ("load", "last"),
    [
        (load_diabetes, hgb()),
        (load_breast_cancer, DecisionTreeClassifier(random_state=0)),
        (load_digits, HistGradientBoostingClassifier(max_iter=20, random_state=0)),
    ],
    ids=["diabetes HistGradientBoosting", "breast cancer tree", "digits HistGradientBoosting"],
)
def test_normalizer_before_a_tree_is_exact(norm, load, last):
    # each row's norm as NumPy computes it (einsum's two lanes for l2, pairwise sums for l1): skl2onnx's
    # ReduceL2 / ReduceL1 differed in the last bit on 112 (l2) and 197 (l1) of the 442 diabetes rows, which
    # moved some across a tree's threshold; norm="max" did not convert in float64
    X, y = load(return_X_y=True)
    X = X.copy()
    X[0] = 0.0  # a zero row: its norm taken as 1, as scikit-learn's
    X[1] = 1e-17  # a norm below 10 eps: taken as 1 too
    pipe = ww.Pipeline([("normalize", Normalizer(norm=norm)), ("tree", clone(last))]).fit(X, y)
    model = ww.to_onnx(pipe, X_sample=X[:5], methods=["predict"])  # a softmax's Exp is not NumPy's to the bit
    report = ww.onnx.check_parity(pipe, model, X)
    assert report.exact, report
    normalizer = Normalizer(norm=norm).fit(X)
    transform = ww.to_onnx(normalizer, X_sample=X[:5], methods=["transform"])
    out = ww.onnx.session(transform).run(None, {"X": X})[0]
    assert out.tobytes() == normalizer.transform(X).tobytes()


@pytest.mark.parametrize(
    "step",
    [
        StandardScaler(),
        MinMaxScaler(feature_range=(-1, 3)),
        MinMaxScaler(clip=True),
        MaxAbsScaler(),
        RobustScaler(),
        RobustScaler(with_centering=False, quantile_range=(10, 90)),
        QuantileTransformer(n_quantiles=50),
        FunctionTransformer(np.sqrt),
        FunctionTransformer(np.square),
        FunctionTransformer(np.absolute),
    ],
    ids=lambda step: repr(step),
)
def test_elementwise_steps_whose_operations_are_exact_keep_a_tree_exact(step):
    # each value computed by IEEE operations that round as NumPy's (a subtraction, a product, a division, a
    # square root, a table lookup): measured bit for bit on the diabetes, breast cancer, wine, digits and iris
    # data; Exp, Log, Pow and the Normalizer's norms are the ones that needed (or need) more (docs/export.md)
    X, y = load_diabetes(return_X_y=True)
    X = np.abs(X) if isinstance(step, FunctionTransformer) else X
    pipe = ww.Pipeline([("step", clone(step)), ("tree", hgb())]).fit(X, y)
    assert ww.onnx.check_parity(pipe, ww.to_onnx(pipe, X_sample=X[:5]), X).exact


@pytest.mark.parametrize("load", [load_digits, load_diabetes], ids=["digits", "diabetes"])
def test_quantile_transformer_both_ways_as_scikit_learn(load):
    # np.interp step by step, up and down the quantiles (repeated ones, as the digits' many zeros give, take
    # the middle of their references): skl2onnx's form differed by up to 1 on the digits, which the sample
    # check refused; now exact both ways, before a tree too, and as a target transformer
    from sklearn.compose import TransformedTargetRegressor

    X, y = load(return_X_y=True)
    quantiles = QuantileTransformer(n_quantiles=100).fit(X)
    rng = np.random.default_rng(0)
    rows = np.vstack([X, X + rng.normal(scale=0.01, size=X.shape), X.min(axis=0) - 1, X.max(axis=0) + 1])
    rows[3, 0] = np.nan
    forward = ww.to_onnx(quantiles, X_sample=X[:5], methods=["transform"])
    assert ww.onnx.session(forward).run(None, {"X": rows})[0].tobytes() == quantiles.transform(rows).tobytes()
    uniform = rng.uniform(size=(300, X.shape[1]))
    uniform[0], uniform[1], uniform[2, 0] = 0.0, 1.0, np.nan
    backward = ww.to_onnx(quantiles, X_sample=X[:5], methods=["inverse_transform"])
    assert ww.onnx.session(backward).run(None, {"X": uniform})[0].tobytes() == quantiles.inverse_transform(uniform).tobytes()
    pipe = ww.Pipeline([("quantiles", QuantileTransformer(n_quantiles=100)), ("tree", hgb())]).fit(X, y)
    assert ww.onnx.check_parity(pipe, ww.to_onnx(pipe, X_sample=X[:5]), X).exact
    target = TransformedTargetRegressor(DecisionTreeRegressor(max_depth=5, random_state=0), transformer=QuantileTransformer(n_quantiles=50))
    target.fit(X, y)
    assert ww.onnx.check_parity(target, ww.to_onnx(target, X_sample=X[:5]), X).exact


def test_a_quantile_transformer_to_a_normal_distribution_is_refused():
    X, _ = load_diabetes(return_X_y=True)
    normal = QuantileTransformer(n_quantiles=50, output_distribution="normal").fit(X)
    with pytest.raises(ww.ExportError, match=r"output_distribution='normal'\) cannot be exported exactly: SciPy's norm.ppf"):
        ww.to_onnx(normal, X_sample=X[:5], methods=["transform"])
