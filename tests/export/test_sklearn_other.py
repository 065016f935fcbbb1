"""scikit-learn estimators that are not trees: ColumnTransformer, PCA, FunctionTransformer, skl2onnx's parts."""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.decomposition import PCA, IncrementalPCA
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.impute._iterative import IterativeImputer
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import (
    RFE,
    RFECV,
    SelectFromModel,
    SelectKBest,
    SequentialFeatureSelector,
    VarianceThreshold,
    f_regression,
)
from sklearn.linear_model import (
    ARDRegression,
    BayesianRidge,
    HuberRegressor,
    Lasso,
    LassoLarsIC,
    LogisticRegression,
    MultiTaskLasso,
    OrthogonalMatchingPursuit,
    QuantileRegressor,
    Ridge,
    SGDRegressor,
    TheilSenRegressor,
)
from sklearn.svm import LinearSVR
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    KBinsDiscretizer,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    PowerTransformer,
    SplineTransformer,
    StandardScaler,
    TargetEncoder,
)
from sklearn.utils.fixes import parse_version

import wirework as ww

FRAME, TARGET = load_diabetes(return_X_y=True, as_frame=True)
SERUM = ["s1", "s2", "s3", "s4", "s5", "s6"]


def hgb():
    return HistGradientBoostingRegressor(max_iter=30, random_state=0)


def exact(model, X, **options):
    """The largest difference between the exported model's predictions and ``model.predict``."""
    return ww.onnx.check_parity(model, ww.to_onnx(model, **options), X).outputs["predict"].max_abs


@pytest.mark.parametrize("last", [Ridge(), hgb()], ids=["Ridge", "HistGradientBoosting"])
def test_a_column_transformer_selecting_by_name_exports_as_it_transforms(last):
    columns = ColumnTransformer(
        [("scaled", StandardScaler(), ["age", "bmi", "bp"]), ("serum", PCA(n_components=2), SERUM)],
        remainder="passthrough",
    )
    pipe = ww.Pipeline([("columns", columns), ("last", last)]).fit(FRAME, TARGET)
    # no X_sample: the network trained on a DataFrame is run on one to learn its shapes
    assert exact(pipe, FRAME) <= (0.0 if isinstance(last, HistGradientBoostingRegressor) else 1e-12)


def test_dropped_selected_and_remainder_parts_in_scikit_learn_s_order():
    with_group = FRAME.assign(group=pd.cut(FRAME.bmi, 4, labels=False).astype(float))
    columns = ColumnTransformer(
        [
            ("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["group"]),
            ("drop", "drop", ["bp"]),
            ("nothing", StandardScaler(), []),  # selects no column: no output, as in scikit-learn
            ("serum", make_pipeline(StandardScaler(), PCA(3)), make_column_selector(pattern="^s")),
        ],
        remainder=StandardScaler(),
    )
    pipe = Pipeline([("columns", columns), ("tree", hgb())]).fit(with_group, TARGET)
    assert exact(pipe, with_group, X_sample=with_group.iloc[:5]) == 0.0
    transformed = ww.to_onnx(columns, X_sample=with_group.iloc[:5], methods=["transform"])
    ours = ww.onnx.check_parity(columns, transformed, with_group)
    assert ours.outputs["transform"].max_abs <= 1e-12


@pytest.mark.parametrize(
    "projection",
    [PCA(n_components=3), PCA(n_components=3, whiten=True), IncrementalPCA(n_components=3)],
    ids=["PCA", "whitened", "incremental"],
)
def test_a_tree_after_a_projection_sees_the_very_values_scikit_learn_computes(projection):
    # HistGradientBoosting may put a threshold exactly on a training value: centring before projecting (as
    # skl2onnx does) moved 28 of the 442 diabetes rows across one
    X = FRAME.to_numpy()
    pipe = Pipeline([("projection", projection), ("tree", hgb())]).fit(X, TARGET)
    assert exact(pipe, X) == 0.0


def test_a_column_transformer_with_no_output_is_refused():
    nothing = ColumnTransformer([("drop", "drop", ["age"])]).fit(FRAME[["age"]])
    with pytest.raises(ww.ExportError, match="outputs no column"):
        ww.to_onnx(nothing, X_sample=FRAME[["age"]].iloc[:2], methods=["transform"])


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
    text = SimpleImputer(missing_values="?", strategy="most_frequent").fit(np.array([["a"], ["?"], ["a"]], dtype=object))
    with pytest.raises(ww.ExportError, match=r"Missing values marked by '\?' cannot be exported"):
        ww.to_onnx(text, X_sample=np.zeros((2, 1)), methods=["transform"])
    words = SimpleImputer(strategy="most_frequent").fit(np.array([["a"], [np.nan], ["a"]], dtype=object))
    with pytest.raises(ww.ExportError, match=r"This SimpleImputer fills values that are not numbers \(could not convert string to float: 'a'\)"):
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


def _labelled():
    """Diabetes with three string columns made from its own values (one with missing entries)."""
    return pd.DataFrame(
        {
            "sex": np.where(FRAME.sex > 0, "male", "female").astype(object),
            "weight": pd.cut(FRAME.bmi, 4, labels=["low", "mid", "high", "very high"]).astype(object),
            "pressure": pd.cut(FRAME.bp, 3, labels=["a", "b", "c"]).astype(object).where(FRAME.index % 9 != 0, None),
            "s1": FRAME.s1,
            "s5": FRAME.s5,
        }
    )


@pytest.mark.parametrize(
    "options",
    [{"handle_unknown": "ignore"}, {"drop": "first"}, {"drop": "if_binary", "handle_unknown": "ignore"}],
    ids=["ignore", "drop first", "drop if binary"],
)
@pytest.mark.parametrize("last", [Ridge(), hgb()], ids=["Ridge", "HistGradientBoosting"])
def test_one_hot_string_columns_are_fed_as_codes_and_encoded_in_the_graph(options, last):
    X = _labelled()
    encode = OneHotEncoder(sparse_output=False, **options)
    columns = ColumnTransformer([("cats", encode, ["sex", "weight", "pressure"])], remainder="passthrough")
    pipe = ww.Pipeline([("columns", columns), ("last", last)]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5])
    recorded = {c["name"]: c["categories"] for c in ww.onnx.input_signature(model)["columns"]}
    assert recorded["weight"] == ["high", "low", "mid", "very high"] and recorded["s1"] is None
    # "pressure" learned a missing category: a missing value sets it, as natively
    assert ww.onnx.check_parity(pipe, model, X).max_abs <= (0.0 if isinstance(last, HistGradientBoostingRegressor) else 1e-12)
    if options.get("handle_unknown") == "ignore":
        unseen = X.iloc[:4].copy()
        unseen.loc[unseen.index[0], "weight"] = "enormous"  # no column set, as scikit-learn's "ignore"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # with a drop, scikit-learn warns of it
            assert ww.onnx.check_parity(pipe, model, unseen).max_abs <= 1e-12


def _unknown_and_missing() -> pd.DataFrame:
    """Rows of ``_labelled()`` whose "pressure" (a column with a learned missing category) is unseen, missing, known."""
    rows = _labelled().iloc[:6].copy()
    rows["pressure"] = pd.Series(["z", None, "a", "never", None, "c"], index=rows.index, dtype=object)
    return rows


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
@pytest.mark.parametrize(
    "encoder",
    [
        OneHotEncoder(handle_unknown="ignore", sparse_output=False),
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-2),
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=7),
    ],
    ids=["one-hot ignore", "ordinal encoded missing", "ordinal learned None"],
)
def test_an_unknown_string_is_not_taken_for_a_missing_one(encoder, inputs):
    # an encoder that learned a missing category: an unseen value sets no column / takes unknown_value, a
    # missing one its category, as natively (the input tells them apart: -1 and NaN codes, or "" and a lookup)
    X = _labelled()
    columns = ColumnTransformer([("cats", encoder, ["sex", "weight", "pressure"])], remainder="drop")
    columns.fit(X)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
    rows = _unknown_and_missing()
    native = columns.transform(rows)
    served = ww.onnx.session(model).run(None, ww.onnx.feed(model, rows))[0]
    np.testing.assert_array_equal(served, native)
    unknown, missing = native[0], native[1]
    assert not np.array_equal(unknown, missing)  # the case the input must tell apart


def test_feed_codes_unseen_values_apart_from_missing_ones():
    X = _labelled()[["pressure", "s1"]]
    encode = ColumnTransformer([("cats", OneHotEncoder(sparse_output=False), ["pressure"])], remainder="passthrough")
    pipe = ww.Pipeline([("columns", encode), ("ridge", Ridge())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5])
    rows = _unknown_and_missing()[["pressure", "s1"]]
    for dtype in (object, "string", "category"):  # missing as None, pd.NA, NaN
        codes = ww.onnx.feed(model, rows.assign(pressure=rows["pressure"].astype(dtype)))["X"][:, 0]
        assert codes[0] == codes[3] == ww.onnx.UNKNOWN_CODE and np.isnan(codes[1]) and np.isnan(codes[4]), dtype
        assert codes[2] == 0 and codes[5] == 2


def test_one_hot_codes_and_lightgbm_categories_numbered_differently_in_one_stack():
    from lightgbm import LGBMRegressor

    X = _labelled()
    X["weight"] = pd.Categorical(X["weight"], categories=["very high", "mid", "low", "high", "unused"])
    X["sex"], X["pressure"] = X["sex"].astype("category"), X["pressure"].astype("category")
    linear = Pipeline(
        [
            ("columns", ColumnTransformer([("cats", OneHotEncoder(handle_unknown="ignore"), ["sex", "weight", "pressure"])], remainder="passthrough")),
            ("ridge", Ridge()),
        ]
    )
    boosted = LGBMRegressor(n_estimators=20, min_child_samples=5, verbose=-1, n_jobs=1)
    stack = ww.Stack([("linear", linear), ("boosted", boosted)], Ridge(), cv=3).fit(X, TARGET)
    model = ww.to_onnx(stack, X_sample=X.iloc[:5])
    assert ww.onnx.check_parity(stack, model, X).max_abs <= 1e-12
    gaps = X.iloc[:6].copy()
    gaps.loc[gaps.index[0], "weight"] = np.nan
    gaps["pressure"] = pd.Categorical(["z", None, "a", "b", "c", None], categories=["a", "b", "c", "z"])
    assert ww.onnx.check_parity(stack, model, gaps).max_abs <= 1e-12


def _grouped_frame() -> pd.DataFrame:
    """A string column and a numeric one, each with rare values and missing ones."""
    rng = np.random.default_rng(3)
    letters = rng.choice(list("abcdefg"), 400, p=[0.4, 0.25, 0.15, 0.1, 0.05, 0.03, 0.02]).astype(object)
    letters[::17] = None
    numbers = rng.choice([1.0, 2.0, 3.0, 4.0, 5.0, 8.0], 400, p=[0.35, 0.3, 0.2, 0.1, 0.03, 0.02])
    numbers[::23] = np.nan
    return pd.DataFrame({"letter": letters, "number": numbers, "s1": FRAME.s1.to_numpy()[:400]})


GROUPING = [
    OneHotEncoder(min_frequency=30, handle_unknown="infrequent_if_exist", sparse_output=False),
    OneHotEncoder(max_categories=3, drop="first", handle_unknown="ignore", sparse_output=False),
    OneHotEncoder(min_frequency=0.06, handle_unknown="warn"),  # sparse output, compared dense
    OneHotEncoder(min_frequency=30, drop="if_binary", sparse_output=False),
    OrdinalEncoder(min_frequency=30, handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-5),
    OrdinalEncoder(max_categories=3),
]


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
@pytest.mark.parametrize("encoder", GROUPING, ids=lambda e: repr(e)[:-1].replace("sparse_output=False", "").strip(", "))
def test_encoders_grouping_infrequent_categories_export_as_scikit_learn_encodes(encoder, inputs):
    X = _grouped_frame()
    columns = ColumnTransformer([("cats", encoder, ["letter", "number"])], remainder="passthrough").fit(X)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
    raises = encoder.handle_unknown == "error"  # natively, on an unseen value: serve none then
    served = X.iloc[:40].copy()
    served.loc[served.index[:3], "letter"] = ["a" if raises else "zz", "g", None]  # unseen, rare, missing
    served.loc[served.index[3:6], "number"] = [1.0 if raises else 6.5, 8.0, np.nan]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "warn" and "ignore" with a drop warn of unseen values
        native = columns.transform(served)
    native = native.toarray() if hasattr(native, "toarray") else native
    out = ww.onnx.session(model).run(None, ww.onnx.feed(model, served))[0]
    np.testing.assert_array_equal(out, native)


@pytest.mark.parametrize("encoder", GROUPING[:1] + GROUPING[4:5], ids=["one-hot", "ordinal"])
def test_encoders_fitted_on_arrays_of_objects_or_numbers(encoder):
    # no column names: an object array's string columns are coded by feed as a frame's are
    X = _grouped_frame()[["letter", "number"]]
    for data, served in [
        (X.to_numpy(dtype=object), np.array([["zz", 6.5], ["g", np.nan], [np.nan, 8.0], ["a", 1.0]], dtype=object)),
        (X[["number"]].to_numpy(dtype=float), np.array([[6.5], [np.nan], [8.0], [1.0]])),
    ]:
        fitted = clone(encoder).fit(data)
        model = ww.to_onnx(fitted, X_sample=data[:3], methods=["transform"])
        native = fitted.transform(served)
        assert np.array_equal(ww.onnx.session(model).run(None, ww.onnx.feed(model, served))[0], native, equal_nan=True)


@pytest.mark.parametrize("encoder", GROUPING[1:2] + GROUPING[4:5], ids=["one-hot", "ordinal"])
def test_encoders_at_the_edges_of_floats_and_with_only_missing_values(encoder):
    # the unseen value probed is the float past the largest category, or before the smallest at the top
    top = np.finfo(np.float64).max
    X = np.array([[1.0, np.nan], [top, np.nan], [3.0, np.nan], [-5.0, np.nan]] * 10)
    served = np.array([[7.0, np.nan], [top, 2.0], [3.0, 5.0], [np.nextafter(3.0, 4.0), -1.0], [np.nan, np.nan]])
    fitted = clone(encoder).set_params(min_frequency=None, max_categories=None).fit(X)
    model = ww.to_onnx(fitted, X_sample=X[:3], methods=["transform"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unseen values with a drop
        native = fitted.transform(served)
    assert np.array_equal(ww.onnx.session(model).run(None, ww.onnx.feed(model, served))[0], native, equal_nan=True)


def test_an_encoder_whose_encoding_cannot_be_read_is_refused_clearly():
    X = _grouped_frame()[["letter"]]
    broken = OneHotEncoder(sparse_output=False).fit(X)
    native = broken.transform
    broken.transform = lambda data: np.hstack([native(data), np.zeros((len(data), 1))])  # a column no input's
    with pytest.raises(ww.ExportError, match="which output columns of this OneHotEncoder each input column sets"):
        ww.to_onnx(broken, X_sample=X.iloc[:3], methods=["transform"])

    def refuse(data):
        raise ValueError("this encoder transforms nothing today")

    nothing = OneHotEncoder(drop="first", sparse_output=False).fit(pd.DataFrame({"only": ["a"] * 5}))
    with pytest.raises(ww.ExportError, match="outputs no column"):
        ww.to_onnx(nothing, X_sample=pd.DataFrame({"only": ["a"] * 3}), methods=["transform"])

    failing = OrdinalEncoder().fit(X)
    failing.transform = refuse
    with pytest.raises(ww.ExportError, match="encoding of this OrdinalEncoder from its transform .*nothing today"):
        ww.to_onnx(failing, X_sample=X.iloc[:3], methods=["transform"])


def test_a_pipeline_with_grouped_categories_before_a_tree_is_exact():
    X = _grouped_frame()
    encode = ColumnTransformer(
        [("cats", OneHotEncoder(min_frequency=30, handle_unknown="infrequent_if_exist", sparse_output=False), ["letter", "number"])],
        remainder="passthrough",
    )
    pipe = ww.Pipeline([("columns", encode), ("tree", hgb())]).fit(X, TARGET[:400])
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5])
    served = X.copy()
    served.loc[served.index[:2], "letter"] = ["zz", "f"]
    assert ww.onnx.check_parity(pipe, model, served).max_abs == 0.0


def test_a_string_fed_where_numbers_are_expected_is_refused():
    X = _labelled()
    numbers = Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(FRAME[["s1", "s5"]], TARGET)
    model = ww.to_onnx(numbers, X_sample=FRAME[["s1", "s5"]].iloc[:3])
    with pytest.raises(ww.ExportError, match=r"Column 's1' \(\w+\) cannot be fed to the model: it expects numbers"):
        ww.onnx.feed(model, X[["sex", "s5"]].set_axis(["s1", "s5"], axis=1))


@pytest.mark.parametrize(
    "options",
    [{}, {"handle_unknown": "use_encoded_value", "unknown_value": -1, "encoded_missing_value": -2}],
    ids=["default", "encoded unknown and missing"],
)
def test_ordinal_string_columns_before_a_tree_are_exact(options):
    X = _labelled()  # "pressure" has None entries: scikit-learn gives None a position of its own
    columns = ColumnTransformer([("order", OrdinalEncoder(**options), ["sex", "weight", "pressure"])], remainder="passthrough")
    pipe = ww.Pipeline([("columns", columns), ("tree", hgb())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5])
    assert ww.onnx.check_parity(pipe, model, X).max_abs == 0.0
    if options:
        unseen = X.iloc[:4].copy()
        unseen.loc[unseen.index[0], "weight"] = "enormous"  # unknown_value, as natively
        assert ww.onnx.check_parity(pipe, model, unseen).max_abs == 0.0


def _target_encoder(target_type):
    cv = KFold(5, shuffle=True, random_state=0)
    if parse_version(sklearn.__version__) >= parse_version("1.9"):
        return TargetEncoder(target_type=target_type, cv=cv)
    return TargetEncoder(target_type=target_type, shuffle=True, random_state=0)


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
@pytest.mark.parametrize(
    ("target_type", "target"),
    [
        ("continuous", TARGET.to_numpy()),
        ("binary", (TARGET.to_numpy() > 140).astype(int)),
        ("multiclass", np.digitize(TARGET.to_numpy(), [100, 200])),  # three columns per input column
    ],
)
def test_target_encoder_columns_are_its_encodings_unseen_values_the_target_mean(target_type, target, inputs):
    # "pressure" learned a missing category (None): a missing value takes its encoding, an unseen one the
    # target's mean, as natively; skl2onnx's converter does not run in float64
    X = _labelled()
    columns = ColumnTransformer([("te", _target_encoder(target_type), ["sex", "weight", "pressure"])], remainder="passthrough")
    columns.fit(X, target)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
    rows = pd.concat([X, _unknown_and_missing()])
    native = columns.transform(rows)
    served = ww.onnx.session(model).run(None, ww.onnx.feed(model, rows))[0]
    np.testing.assert_array_equal(served, native)
    assert native.shape[1] == (9 if target_type == "multiclass" else 3) + 2


def test_a_target_encoded_network_exports_with_numeric_categories_too():
    X = _labelled()[["weight", "pressure", "s5"]]
    X["age"] = np.digitize(FRAME.age, np.quantile(FRAME.age, [0.25, 0.5, 0.75]))  # categories 0-3, as numbers
    encode = ColumnTransformer([("te", _target_encoder("continuous"), ["weight", "pressure", "age"])], remainder="passthrough")
    for last, tolerance in ((hgb(), 0.0), (Ridge(), 1e-12)):
        pipe = ww.Pipeline([("encode", encode), ("last", last)]).fit(X, TARGET)
        model = ww.to_onnx(pipe, X_sample=X.iloc[:5])
        assert ww.onnx.check_parity(pipe, model, X).max_abs <= tolerance
        unseen = X.iloc[:3].copy()
        unseen["age"] = [7, 0, np.nan]  # an age code never seen, a known one, a missing one (none learned)
        assert ww.onnx.check_parity(pipe, model, unseen).max_abs <= tolerance


def test_ordinal_numeric_columns_tell_missing_from_unknown():
    rng = np.random.default_rng(0)
    X = np.round(rng.uniform(0, 5, (300, 1)))
    X[::11] = np.nan
    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-2).fit(X)
    model = ww.to_onnx(encoder, X_sample=X[:3], methods=["transform"])
    served = np.vstack([X[:20], [[17.0]]])  # 17 was never seen: -1; NaN: -2
    assert ww.onnx.check_parity(encoder, model, served).max_abs == 0.0


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


@pytest.mark.parametrize("classes", [2, 3])
def test_linear_classifiers_scores_and_no_probabilities_they_lack(classes):
    from sklearn.datasets import load_wine
    from sklearn.linear_model import LogisticRegression, RidgeClassifier
    from sklearn.svm import SVC, LinearSVC

    X, y = load_wine(return_X_y=True)
    X, y = StandardScaler().fit_transform(X[y < classes]), y[y < classes]
    for model in (LogisticRegression(), LinearSVC(), RidgeClassifier()):
        model.fit(X, y)
        scores = ww.to_onnx(model, X_sample=X[:3], methods=["decision_function"])
        report = ww.onnx.check_parity(model, scores, X)
        assert report.outputs["decision_function"].max_abs <= 1e-12, type(model).__name__
        assert np.ndim(ww.onnx.session(scores).run(None, {"X": X})[0]) == (1 if classes == 2 else 2)
        labels = ww.to_onnx(model, X_sample=X[:3], methods=["predict"])  # LinearSVC: skl2onnx cannot, in float64
        assert ww.onnx.check_parity(model, labels, X).outputs["predict"].rows_differ == 0
    # a classifier without predict_proba exports none by default (skl2onnx's second output is its scores)
    assert [o.name for o in ww.to_onnx(LinearSVC().fit(X, y), X_sample=X[:3]).graph.output] == ["predict"]
    with pytest.raises(ww.ExportError, match=r"SVC: cannot export predict_proba; its converter exports predict\."):
        ww.to_onnx(SVC().fit(X, y), X_sample=X[:3], methods=["predict_proba"])


def test_a_stack_over_scores_of_linear_classifiers_exports():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    X, y = load_breast_cancer(return_X_y=True)
    base = [("svc", make_pipeline(StandardScaler(), LinearSVC())), ("lr", make_pipeline(StandardScaler(), LogisticRegression()))]
    stack = ww.Stack(base, LogisticRegression(), cv=3).fit(X, y)  # stack_method "auto": the SVC's decision_function
    report = ww.onnx.check_parity(stack, ww.to_onnx(stack), X)
    assert report.outputs["predict"].rows_differ == 0 and report.outputs["predict_proba"].max_abs <= 1e-12


def test_support_vector_classifiers_export_labels_of_a_known_rank():
    # skl2onnx's SVMClassifier leaves the label's shape to the runtime: its rank is read from the model natively
    import warnings as _warnings

    from sklearn.datasets import load_iris
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
    from sklearn.svm import SVC, NuSVC

    X, y = load_iris(return_X_y=True)
    for model in (SVC(), NuSVC(), QuadraticDiscriminantAnalysis()):
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            model.fit(X, y)
        exported = ww.to_onnx(model, X_sample=X[:3])
        label = exported.graph.output[0]
        assert label.name == "predict" and len(label.type.tensor_type.shape.dim) == 1
        assert ww.onnx.check_parity(model, exported, X).outputs["predict"].rows_differ == 0
    silent = SVC().fit(X, y)
    silent.predict = lambda rows: 1 / 0  # its rank cannot be read natively either
    with pytest.raises(ww.ExportError, match="Cannot tell the shape of output 'predict': .* Pass X_sample= with a few real rows"):
        ww.to_onnx(silent, X_sample=X[:3])


def test_a_converter_that_writes_an_invalid_graph_is_an_export_error():
    from sklearn.base import BaseEstimator, RegressorMixin

    from wirework.export.registry import register

    class Broken(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            self.n_features_in_ = np.shape(X)[1]
            return self

        def predict(self, X):
            return np.zeros(len(X))

    @register(Broken, methods=lambda model: ("predict",))
    def _convert_broken(model, method, g, x):
        return g.op("Add", [x], hint="one_operand")  # Add takes two

    model = Broken().fit(np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(ww.ExportError, match="The exported graph of Broken is not a valid ONNX model"):
        ww.to_onnx(model, X_sample=np.zeros((2, 2)))


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
def test_columns_a_column_transformer_drops_are_fed_whatever_they_hold(inputs):
    # a frame with an identifier and free text the model never reads: they stay inputs (the model was
    # trained on every column), marked unused, and feed() gives them NaN instead of refusing the strings
    X = _labelled()[["weight", "s1", "s5"]].assign(
        patient=[f"p{k:03d}" for k in range(len(FRAME))], note=np.where(FRAME.s2 > 0, "seen twice", "")
    )
    columns = ColumnTransformer(
        [("cats", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["weight"]), ("nums", "passthrough", ["s1", "s5"])],
        remainder="drop",
    )
    pipe = ww.Pipeline([("columns", columns), ("ridge", Ridge())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5], inputs=inputs)
    signature = {c["name"]: c for c in ww.onnx.input_signature(model)["columns"]}
    assert signature["patient"]["unused"] and signature["note"]["unused"] and "unused" not in signature["s1"]
    assert ww.onnx.check_parity(pipe, model, X).max_abs <= 1e-12
    kept = Pipeline([("columns", clone(columns)), ("ridge", Ridge())]).fit(X, TARGET)  # scikit-learn's own
    assert ww.onnx.check_parity(kept, ww.to_onnx(kept, X_sample=X.iloc[:5], inputs=inputs), X).max_abs <= 1e-12
    everything = ww.to_onnx(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(FRAME[SERUM], TARGET))
    assert not any("unused" in c for c in ww.onnx.input_signature(everything)["columns"])


@pytest.mark.parametrize(
    "selector",
    [
        VarianceThreshold(0.005),
        SelectKBest(f_regression, k=4),
        SelectFromModel(Lasso(alpha=0.5)),
        SequentialFeatureSelector(Ridge(), n_features_to_select=3, cv=3),
        RFE(Ridge(), n_features_to_select=4),
    ],
    ids=["variance", "k best", "from model", "sequential", "RFE"],
)
def test_feature_selectors_keep_their_columns_exactly(selector):
    X = FRAME[SERUM] * [1.0, 2.0, 1.0, 3.0, 1.0, 0.5]  # unequal variances (the threshold keeps two columns)
    selector = clone(selector).fit(X.to_numpy(), TARGET)
    kept = selector.transform(X.to_numpy())
    assert 0 < kept.shape[1] < len(SERUM)
    model = ww.to_onnx(selector, X_sample=X.to_numpy()[:3], methods=["transform"])
    assert ww.onnx.check_parity(selector, model, X.to_numpy()).max_abs == 0.0
    pipe = ww.Pipeline([("select", clone(selector)), ("tree", hgb())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:3])
    assert ww.onnx.check_parity(pipe, model, X).max_abs == 0.0
    unused = [c["name"] for c in ww.onnx.input_signature(model)["columns"] if c.get("unused")]
    assert len(unused) == len(SERUM) - kept.shape[1]  # feed gives them NaN, whatever they hold


def test_recursive_elimination_predicts_with_its_fitted_model_on_the_kept_columns():
    # skl2onnx gave RFE's predictions the wrong shape ([4 N] for [N])
    rfe = RFE(Ridge(), n_features_to_select=4).fit(FRAME, TARGET)
    model = ww.to_onnx(rfe, X_sample=FRAME.iloc[:3])
    assert ww.onnx.check_parity(rfe, model, FRAME).max_abs <= 1e-12
    X, y = load_breast_cancer(return_X_y=True)
    chosen = RFECV(LogisticRegression(max_iter=5000), step=5, cv=3).fit(X, y)
    model = ww.to_onnx(chosen, X_sample=X[:3], methods=["predict", "predict_proba", "decision_function"])
    report = ww.onnx.check_parity(chosen, model, X)
    assert report.flips == 0 and report.max_abs <= 1e-9


def test_a_selector_that_keeps_no_column_is_refused():
    selector = SelectKBest(f_regression, k=0).fit(FRAME[SERUM], TARGET)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn's "No features were selected"
        with pytest.raises(ww.ExportError, match="SelectKBest keeps no column; there is nothing to export"):
            ww.to_onnx(selector, X_sample=FRAME[SERUM].iloc[:3], methods=["transform"])


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


@pytest.mark.parametrize(
    "regressor",
    [
        BayesianRidge(),
        ARDRegression(),
        HuberRegressor(max_iter=500),
        QuantileRegressor(alpha=0.0),
        TheilSenRegressor(random_state=0),
        SGDRegressor(random_state=0, max_iter=5000, tol=None),
        LinearSVR(random_state=0, max_iter=10000),
        LassoLarsIC(),
        OrthogonalMatchingPursuit(n_nonzero_coefs=4),
        MultiTaskLasso(alpha=0.1),
    ],
    ids=lambda model: type(model).__name__,
)
def test_linear_regressors_are_their_coefficients(regressor):
    # X @ coef_.T + intercept_ in the export dtype, as scikit-learn's predict computes it (several targets too)
    y = np.column_stack([TARGET, -TARGET / 2]) if isinstance(regressor, MultiTaskLasso) else TARGET
    fitted = clone(regressor).fit(FRAME, y)
    model = ww.to_onnx(fitted, X_sample=FRAME.iloc[:3])
    assert ww.onnx.check_parity(fitted, model, FRAME).max_abs <= 1e-12
