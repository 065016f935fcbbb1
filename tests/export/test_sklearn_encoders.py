"""scikit-learn's encoders exported: OneHotEncoder, OrdinalEncoder and TargetEncoder, fed codes or values."""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import (
    Ridge,
)
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import (
    OneHotEncoder,
    OrdinalEncoder,
    StandardScaler,
    TargetEncoder,
)
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.fixes import parse_version

from _sklearn_data import FRAME, TARGET, labelled, unknown_and_missing, hgb

import wirework as ww


@pytest.mark.parametrize(
    "options",
    [{"handle_unknown": "ignore"}, {"drop": "first"}, {"drop": "if_binary", "handle_unknown": "ignore"}],
    ids=["ignore", "drop first", "drop if binary"],
)
@pytest.mark.parametrize("last", [Ridge(), hgb()], ids=["Ridge", "HistGradientBoosting"])
def test_one_hot_string_columns_are_fed_as_codes_and_encoded_in_the_graph(options, last):
    X = labelled()
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
    X = labelled()
    columns = ColumnTransformer([("cats", encoder, ["sex", "weight", "pressure"])], remainder="drop")
    columns.fit(X)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
    rows = unknown_and_missing()
    native = columns.transform(rows)
    served = ww.onnx.session(model).run(None, ww.onnx.feed(model, rows))[0]
    np.testing.assert_array_equal(served, native)
    unknown, missing = native[0], native[1]
    assert not np.array_equal(unknown, missing)  # the case the input must tell apart


def test_feed_codes_unseen_values_apart_from_missing_ones():
    X = labelled()[["pressure", "s1"]]
    encode = ColumnTransformer([("cats", OneHotEncoder(sparse_output=False), ["pressure"])], remainder="passthrough")
    pipe = ww.Pipeline([("columns", encode), ("ridge", Ridge())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5])
    rows = unknown_and_missing()[["pressure", "s1"]]
    for dtype in (object, "string", "category"):  # missing as None, pd.NA, NaN
        served = rows.assign(pressure=rows["pressure"].astype(dtype))
        codes = ww.onnx.feed(model, served)["X"][:, 0]
        assert codes[0] == codes[3] == ww.onnx.UNKNOWN_CODE and codes[2] == 0 and codes[5] == 2, dtype
        if dtype is object:  # the missing value the encoder learned (None): NaN
            assert np.isnan(codes[1]) and np.isnan(codes[4])
            continue
        # pd.NA and NaN are other values to an encoder that learned None: unknown, which it refuses natively
        assert codes[1] == codes[4] == ww.onnx.UNKNOWN_CODE, dtype
        with pytest.raises(ValueError, match="Found unknown categories"):
            pipe.predict(served.iloc[[1]])


MISSING = {"None": None, "NaN": np.nan, "pd.NA": pd.NA}


def _with_missing(kinds: list[str]) -> pd.DataFrame:
    """``labelled()`` whose "pressure" holds, in turn, each missing value of ``kinds``, as an object column."""
    X = labelled()
    pressure = X["pressure"].where(X["pressure"].notna(), "a").to_numpy(dtype=object, copy=True)
    for k, kind in enumerate(kinds):
        pressure[k::9] = MISSING[kind]
    return X.assign(pressure=pd.Series(pressure, index=X.index, dtype=object))


def _served_missing() -> pd.DataFrame:
    """Rows whose "pressure" is None, NaN, pd.NA, an unseen value, "" and a known one, as an object column, a
    string one and a categorical one (a categorical column's missing values are all NaN)."""
    rows = labelled().iloc[[0] * 6].reset_index(drop=True)  # rows that differ in "pressure" only
    rows["pressure"] = pd.Series([None, np.nan, pd.NA, "zz", "", "b"], dtype=object)
    as_string = rows.assign(pressure=rows["pressure"].astype("string"))
    as_category = rows.assign(pressure=pd.Categorical(rows["pressure"].where(rows["pressure"].notna(), None)))
    return pd.concat([rows, as_string.astype({"pressure": object}), as_category.astype({"pressure": object})])


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
@pytest.mark.parametrize("learned", [["None"], ["NaN"], ["None", "NaN"]], ids=["None", "NaN", "None and NaN"])
@pytest.mark.parametrize(
    "encoder",
    [
        OneHotEncoder(handle_unknown="ignore", sparse_output=False),
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-2),
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        "target",
    ],
    ids=["one-hot", "ordinal encoded missing", "ordinal", "target"],
)
def test_an_encoder_tells_none_from_nan_in_an_object_column_as_natively(encoder, learned, inputs):
    # scikit-learn's encoders keep None and NaN apart in an object column: one that learned None takes NaN
    # (and pd.NA) as an unknown value, one that learned both has two categories; the file took every missing
    # value as the first one learned (or the one category's), and a genuine "" as missing in the columns layout
    X = _with_missing(learned)
    encoder = _target_encoder("continuous") if encoder == "target" else clone(encoder)
    columns = ColumnTransformer([("cats", encoder, ["sex", "pressure"]), ("s1", "passthrough", ["s1"])]).fit(X, TARGET)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
    assert ww.onnx.input_signature(model)["columns"][2]["missing"] == [{"NaN": "nan"}.get(k, k) for k in learned]
    rows = _served_missing()
    native = columns.transform(rows)
    for dtype in (object, "string", "category"):  # as the user gives the column: the same values each time
        served = rows.iloc[:6].assign(pressure=rows["pressure"].iloc[:6].astype(dtype))
        out = ww.onnx.session(model).run(None, ww.onnx.feed(model, served))[0]
        expected = columns.transform(served) if dtype is object else native[6:12] if dtype == "string" else native[12:]
        np.testing.assert_array_equal(out, expected, err_msg=str(dtype))
    assert len({tuple(row) for row in native[:3]}) == len(learned) + 1  # each learned one apart, the rest unknown


@pytest.mark.parametrize("encoder", [OneHotEncoder(handle_unknown="ignore", sparse_output=False), "target"], ids=["one-hot", "target"])
def test_an_empty_string_category_is_not_taken_for_a_missing_value(encoder):
    # inputs="columns" writes a missing value as "": a category "" took every missing value, as None's did
    X = labelled()
    X["sex"] = pd.Series(np.where(X["sex"] == "male", "male", ""), dtype=object).where(FRAME.index % 7 != 0, None)
    encoder = _target_encoder("continuous") if encoder == "target" else clone(encoder)
    columns = ColumnTransformer([("cats", encoder, ["sex", "pressure"])]).fit(X, TARGET)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs="columns")
    rows = labelled().iloc[[0] * 5].reset_index(drop=True)
    rows["sex"] = pd.Series(["", None, "male", "zz", np.nan], dtype=object)
    out = ww.onnx.session(model).run(None, ww.onnx.feed(model, rows))[0]
    np.testing.assert_array_equal(out, columns.transform(rows))
    assert not np.array_equal(out[0], out[1])


def test_a_network_whose_models_learned_other_missing_values_of_a_column_is_refused():
    # one encoder learned None, one (on other rows) NaN: the input's NaN code cannot stand for both
    source = ww.source(_with_missing(["None", "NaN"])[["pressure"]])

    def without(dropped):  # the rows without one of the missing values
        return lambda X: X[[not (v is None if dropped is None else v != v) for v in X["pressure"]]]

    parts = []
    for dropped in (np.nan, None):
        encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
        parts.append(ww.machine(encoder, ww.node(without(dropped), source)).transform(source))
    both = ww.hcat(*parts)
    both.fit()
    with pytest.raises(ww.ExportError, match=r"input column 0 learned different missing values as categories \(None and nan"):
        ww.to_onnx({"transform": both})


def test_one_hot_codes_and_lightgbm_categories_numbered_differently_in_one_stack():
    from lightgbm import LGBMRegressor

    X = labelled()
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
    X = labelled()
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
    X = labelled()  # "pressure" has None entries: scikit-learn gives None a position of its own
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
    X = labelled()
    columns = ColumnTransformer([("te", _target_encoder(target_type), ["sex", "weight", "pressure"])], remainder="passthrough")
    columns.fit(X, target)
    model = ww.to_onnx(columns, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
    rows = pd.concat([X, unknown_and_missing()])
    native = columns.transform(rows)
    served = ww.onnx.session(model).run(None, ww.onnx.feed(model, rows))[0]
    np.testing.assert_array_equal(served, native)
    assert native.shape[1] == (9 if target_type == "multiclass" else 3) + 2


def test_a_target_encoded_network_exports_with_numeric_categories_too():
    X = labelled()[["weight", "pressure", "s5"]]
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


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
def test_an_array_of_objects_keeps_its_none_apart_from_nan(inputs):
    # feed put an object array in a DataFrame (or a Series): pandas 3 made a column of strings and None its
    # str dtype, whose missing values are all NaN, so a None an encoder learned became an unknown NaN
    letters = np.array([["a"], ["b"], [None], ["c"]] * 20, dtype=object)
    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(letters)
    model = ww.to_onnx(encoder, X_sample=letters[:4], methods=["transform"], inputs=inputs)
    served = np.array([[None], [np.nan], ["b"], ["zz"]], dtype=object)
    out = ww.onnx.session(model).run(None, ww.onnx.feed(model, served))[0]
    np.testing.assert_array_equal(out, encoder.transform(served))
    assert out[0, 0] == 3.0 and out[1, 0] == -1.0  # None its category, NaN unknown


@pytest.mark.parametrize("encoder", [OrdinalEncoder(), OneHotEncoder()], ids=["ordinal", "one_hot"])
def test_none_learned_in_a_column_of_numbers_is_refused_and_nan_exports(encoder):
    """An object column of numbers with None: the file's numeric input has only NaN for missing values, while
    the encoder takes NaN as unknown once it learned None. Refused, saying to give NaN; with NaN it is exact."""
    X = pd.DataFrame({"c": pd.Series([1, 2, None, 1, 2, 3, None, 3], dtype=object)})
    y = np.arange(8.0)
    with_none = Pipeline([("encode", clone(encoder)), ("tree", DecisionTreeRegressor(random_state=0))]).fit(X, y)
    with pytest.raises(ww.ExportError, match=r"learned the missing value\(s\) 'None' in column 'c', whose categories are numbers.*NaN"):
        ww.to_onnx(with_none, X)
    floats = X.astype(float)
    with_nan = Pipeline([("encode", clone(encoder)), ("tree", DecisionTreeRegressor(random_state=0))]).fit(floats, y)
    report = ww.onnx.check_parity(with_nan, ww.to_onnx(with_nan, floats), floats)
    assert report.exact


@pytest.mark.parametrize("encoder", [
    OneHotEncoder(handle_unknown="ignore"),
    OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
    TargetEncoder(cv=KFold(5)),
], ids=["one_hot", "ordinal", "target"])
@pytest.mark.parametrize(
    "categories, dtype, hint",
    [([1.0, 1.0 + 1e-9, 2.0], "float32", "dtype='float64'"), ([2**53, 2**53 + 1, 7], "float64", "astype\\(str\\)")],
    ids=["float32", "float64"],
)
def test_numeric_categories_one_value_in_the_export_dtype_are_refused(encoder, categories, dtype, hint):
    """Two numeric categories the file's input type holds as one value: the file took both for one (the
    predictions of the training rows themselves up to 10 off). Refused, naming them; a dtype that tells them
    apart exports exactly."""
    rng = np.random.default_rng(0)
    values = np.array(categories)  # float64: int64 identifiers beyond 2**53, which float64 holds as one
    X = pd.DataFrame({"a": rng.normal(size=120), "c": values[np.arange(120) % 3]})
    y = X["a"] + 10.0 * (np.arange(120) % 3)
    pipe = ww.Pipeline([("encode", ColumnTransformer([("c", clone(encoder), ["c"])], remainder="passthrough")), ("ridge", Ridge())])
    pipe.fit(X, y)
    with pytest.raises(ww.ExportError, match=rf"categories .* of column 'c' are one value in {dtype}.*{hint}"):
        ww.to_onnx(pipe, X, dtype=dtype)
    if dtype == "float32":
        assert ww.onnx.check_parity(pipe, ww.to_onnx(pipe, X), X).max_abs <= 1e-12
