"""LightGBM converter: parity with ``Booster.predict`` on random, threshold, missing and unseen rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

lightgbm = pytest.importorskip("lightgbm")
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from wirework.errors import ExportError  # noqa: E402
from wirework.export import heads  # noqa: E402
from wirework.export.builder import GraphBuilder  # noqa: E402
from wirework.export.lightgbm import ZERO_BAND, categories, convert, methods, trees_of  # noqa: E402
from wirework.export.parity import session  # noqa: E402
from wirework.export.trees import count_entries  # noqa: E402
from _lightgbm_case import N_CATS, acceptance_model, split_values  # noqa: E402
from _glibc import needs_glibc_exp  # noqa: E402



# -- helpers -------------------------------------------------------------------


def export(model, n_features, dtype="float64", method=None):
    """The model's methods (or one ``method``) as an ONNX model with input "X"."""
    g = GraphBuilder(dtype, "lightgbm")
    x = g.add_input("X", g.dtype, [None, n_features])
    for name in [method] if method else methods(model):
        out = convert(model, name, g, x)
        if name == "predict" and isinstance(model, lightgbm.LGBMClassifier):
            values = heads.class_values(model.classes_)
            g.add_output(out, name, values.dtype if values.dtype.kind != "i" else np.int64, [None])
        else:
            g.add_output(out, name, g.dtype, [None] if _is_vector(model, name) else [None, None])
    return g.to_model()


def _is_vector(model, method):
    if isinstance(model, lightgbm.LGBMClassifier):
        return method == "predict"
    booster = model if isinstance(model, lightgbm.Booster) else model.booster_
    return booster.num_model_per_iteration() == 1


def run(model_proto, X, threads=1, output=0):
    return session(model_proto, threads).run(None, {"X": X})[output]


def threshold_rows(booster, n_features, n_rows, rng, dtype=np.float64, categorical=()):
    """Rows whose numerical features sit on split thresholds (or one step beside them, in ``dtype``)."""
    rows = np.zeros((n_rows, n_features), dtype=np.float64)
    for f in range(n_features):
        if f in categorical:
            rows[:, f] = rng.integers(-1, N_CATS + 3, n_rows)
            continue
        values = split_values(booster).get(f, np.array([0.0]))
        if dtype == np.float32:  # the float32 neighbours of each threshold
            v32 = values.astype(np.float32)
            values = np.unique(np.concatenate([v32, np.nextafter(v32, np.float32(-np.inf)),
                                               np.nextafter(v32, np.float32(np.inf))]).astype(np.float64))
        rows[:, f] = rng.choice(values, n_rows)
    return rows


def special_rows(n_features, categorical, rng, n_rows=400):
    """NaN, +-inf, 0, -0 and huge values in every feature; missing, negative and unseen category codes."""
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e301, -1e301, 1e-300, ZERO_BAND, -ZERO_BAND,
                         np.nextafter(ZERO_BAND, 1), np.nextafter(-ZERO_BAND, -1)])
    rows = rng.choice(specials, size=(n_rows, n_features))
    normal = rng.random((n_rows, n_features)) < 0.5
    rows[normal] = rng.normal(size=normal.sum())
    for f in categorical:
        rows[:, f] = rng.choice(np.array([np.nan, -1.0, N_CATS, N_CATS + 7, 1e6, 0.0, 3.0, 39.0]), n_rows)
    return rows


# -- the model of acceptance 1 -------------------------------------------------


@pytest.fixture(scope="module")
def big():
    """200 trees x 31 leaves; 19 numeric features (3 with NaN) and one 40-level pandas categorical."""
    rng = np.random.default_rng(0)
    model, codes = acceptance_model(rng)
    rows = [codes[:4000]]
    test = rng.normal(size=(2000, 20))
    test[:, 19] = rng.integers(0, N_CATS, 2000)
    rows.append(test)
    rows.append(threshold_rows(model.booster_, 20, 3600, rng, categorical=(19,)))
    rows.append(special_rows(20, (19,), rng))
    X_test = np.vstack(rows)
    return model, export(model, 20), X_test, rng


def test_big_regressor_is_bit_exact_with_one_thread(big):
    model, onnx_model, X_test, _ = big
    assert len(X_test) == 10_000
    native = model.booster_.predict(X_test, num_threads=1)
    got = run(onnx_model, X_test)
    assert got.shape == (10_000,)
    np.testing.assert_array_equal(got, native)


def test_big_regressor_two_threads_within_1e_14(big):
    model, onnx_model, X_test, _ = big
    native = model.booster_.predict(X_test, num_threads=1)
    assert np.max(np.abs(run(onnx_model, X_test, threads=2) - native)) <= 1e-14


def test_big_regressor_matches_pandas_predict_with_unseen_categories(big):
    model, onnx_model, _, rng = big
    levels = list(model.booster_.pandas_categorical[0])
    frame = pd.DataFrame(rng.normal(size=(300, 19)), columns=[f"f{i}" for i in range(19)])
    values = rng.choice(levels + ["never seen", None], 300)
    frame["cat"] = pd.Categorical(values, categories=levels + ["never seen"])
    native = model.predict(frame)  # LightGBM maps the unseen level to NaN
    codes = frame["cat"].cat.codes.to_numpy().astype(float)
    codes[codes < 0] = np.nan
    X = np.column_stack([frame.iloc[:, :19].to_numpy(), codes])
    X[codes == N_CATS, 19] = N_CATS  # "never seen" keeps a code beyond the trained levels
    np.testing.assert_array_equal(run(onnx_model, X), native)


def test_big_float32_export_makes_no_decision_flips_on_threshold_rows(big):
    model, _, X_test, rng = big
    onnx32 = export(model, 20, dtype="float32")
    rows = np.vstack([threshold_rows(model.booster_, 20, 3000, rng, dtype=np.float32, categorical=(19,)),
                      X_test[:2000]]).astype(np.float32)
    native = model.booster_.predict(rows.astype(np.float64), num_threads=1)
    got = run(onnx32, rows)
    assert got.dtype == np.float32
    assert np.max(np.abs(got.astype(np.float64) - native)) <= 1e-5


def test_big_size_determinism_and_checker(big):
    model, onnx_model, _, _ = big
    assert count_entries(onnx_model) <= 12_200
    assert len(onnx_model.SerializeToString()) <= 320 * 1024
    assert export(model, 20).SerializeToString() == onnx_model.SerializeToString()
    onnx.checker.check_model(onnx_model, full_check=True)


def test_categories_map_pandas_levels_to_the_categorical_column(big):
    model = big[0]
    found = categories(model)
    assert list(found) == [19]
    assert found[19].tolist() == [f"level{i:02d}" for i in range(N_CATS)]


# -- classifiers and boosters ----------------------------------------------------


def _classification(n_classes, n=1500, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    X[rng.random(n) < 0.1, 0] = np.nan
    X[:, 5] = rng.integers(0, 12, n)
    score = np.nan_to_num(X[:, 0], nan=1.0) + X[:, 1] + (X[:, 5] % 4) * 0.7
    y = np.digitize(score + 0.3 * rng.normal(size=n), np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, rng


def _check_classifier(model, X, rng):
    rows = np.vstack([X, threshold_rows(model.booster_, 6, 800, rng, categorical=(5,)),
                      special_rows(6, (5,), rng, 200)])
    onnx_model = export(model, 6)
    proba = run(onnx_model, rows, output=1)
    assert np.max(np.abs(proba - model.predict_proba(rows))) <= 1e-15  # ORT's exp vs libm: last bit
    np.testing.assert_array_equal(run(onnx_model, rows, output=0), model.predict(rows))


def test_binary_classifier_probabilities_and_string_labels():
    X, y, rng = _classification(2)
    labels = np.array(["no", "yes"])[y]
    model = lightgbm.LGBMClassifier(n_estimators=40, num_leaves=15, n_jobs=1, verbose=-1)
    model.fit(X, labels, categorical_feature=[5])
    _check_classifier(model, X, rng)


def test_multiclass_classifier_probabilities_and_integer_labels():
    X, y, rng = _classification(4)
    model = lightgbm.LGBMClassifier(n_estimators=30, num_leaves=15, n_jobs=1, verbose=-1)
    model.fit(X, y * 10 + 3, categorical_feature=[5])
    _check_classifier(model, X, rng)


@pytest.mark.parametrize("n_codes", [12, 80])
def test_fractional_category_codes_are_truncated_as_lightgbm_does(n_codes):
    """LightGBM reads a categorical value as ``static_cast<int>`` (toward zero): 2.5 is code 2, -0.5 code 0.

    ONNX Runtime tests a set of codes 0-30 by a bit mask that a fractional value never matches, and a
    larger set by a lookup that truncates: with 12 codes every set took the bit mask and 2.5 went right."""
    rng = np.random.default_rng(11)
    X = np.column_stack([rng.integers(0, n_codes, 3000).astype(float), rng.normal(size=3000)])
    y = np.sin(X[:, 0]) * 3 + X[:, 1]
    booster = lightgbm.train(dict(num_leaves=15, verbose=-1, num_threads=1, min_data_per_group=5, cat_smooth=1,
                                  max_cat_to_onehot=4), lightgbm.Dataset(X, y, categorical_feature=[0]), 20)
    codes = np.concatenate([np.arange(n_codes) + offset for offset in (0.0, 0.25, 0.5, 0.999)])
    codes = np.concatenate([codes, [-0.0, -0.5, -0.999, -1.0, -1.5, n_codes + 0.5, 2.0**31 + 0.5, np.nan, np.inf,
                                    -np.inf]])
    rows = np.column_stack([codes, rng.normal(size=len(codes))])
    np.testing.assert_array_equal(run(export(booster, 2), rows), booster.predict(rows, num_threads=1))


@pytest.mark.parametrize("objective, n_classes", [("regression", 0), ("binary", 2), ("multiclass", 3)])
def test_raw_booster_predict(objective, n_classes):
    X, y, rng = _classification(max(n_classes, 2))
    params = dict(objective=objective, num_leaves=15, verbose=-1, num_threads=1)
    if n_classes > 2:
        params["num_class"] = n_classes
    booster = lightgbm.train(params, lightgbm.Dataset(X, y.astype(float), categorical_feature=[5]), 25)
    rows = np.vstack([X, threshold_rows(booster, 6, 500, rng, categorical=(5,)), special_rows(6, (5,), rng, 200)])
    got = run(export(booster, 6), rows)
    native = booster.predict(rows, num_threads=1)
    assert got.shape == native.shape
    if objective == "regression":
        np.testing.assert_array_equal(got, native)
    else:
        assert np.max(np.abs(got - native)) <= 1e-15


# -- objectives, modes and missing types -------------------------------------------


def _regression(n=1500, seed=2, positive=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[rng.random(n) < 0.1, 1] = np.nan
    y = X[:, 0] + np.nan_to_num(X[:, 1]) * 0.5 + 0.1 * rng.normal(size=n)
    if positive:
        y = rng.poisson(np.exp(y / 2)).astype(float) + (0.5 if positive == "strict" else 0.0)
    return X, y, rng


@pytest.mark.parametrize(
    "params, positive, tolerance",
    [
        (dict(objective="poisson"), True, 5e-16),
        (dict(objective="gamma"), "strict", 5e-16),
        (dict(objective="tweedie"), True, 5e-16),
        (dict(objective="regression_l1"), False, 0.0),
        (dict(objective="huber"), False, 0.0),
        (dict(objective="quantile", alpha=0.8), False, 0.0),
        (dict(objective="regression", reg_sqrt=True), False, 0.0),
        (dict(objective="cross_entropy"), "unit", 5e-16),
        (dict(boosting="rf", bagging_freq=1, bagging_fraction=0.7), False, 0.0),
    ],
)
def test_output_transforms_of_objectives(params, positive, tolerance):
    X, y, rng = _regression(positive=positive if positive != "unit" else False)
    if positive == "unit":
        y = 1 / (1 + np.exp(-y))
    booster = lightgbm.train(dict(num_leaves=15, verbose=-1, num_threads=1, **params), lightgbm.Dataset(X, y), 30)
    rows = np.vstack([X, threshold_rows(booster, 5, 500, rng), special_rows(5, (), rng, 200)])
    native = booster.predict(rows, num_threads=1)
    got = run(export(booster, 5), rows)
    assert np.max(np.abs(got - native) / np.maximum(1.0, np.abs(native))) <= tolerance


def test_binary_sigmoid_parameter_and_multiclassova():
    X, y, rng = _classification(3)
    ova = lightgbm.LGBMClassifier(objective="multiclassova", n_estimators=20, num_leaves=7, n_jobs=1, verbose=-1)
    _check_classifier(ova.fit(X, y), X, rng)
    binary = lightgbm.LGBMClassifier(n_estimators=20, num_leaves=7, sigmoid=0.4, n_jobs=1, verbose=-1)
    _check_classifier(binary.fit(X, y == 2), X, rng)


def test_zero_as_missing_band_and_nan_follow_the_default_branch():
    rng = np.random.default_rng(3)
    n = 3000
    X = rng.normal(size=(n, 3))
    X[rng.random(n) < 0.4, 0] = 0.0
    X[rng.random(n) < 0.1, 0] = np.nan
    y = np.where(X[:, 0] == 0, 3.0, X[:, 0]) + X[:, 1]
    booster = lightgbm.train(dict(num_leaves=8, verbose=-1, num_threads=1, zero_as_missing=True),
                             lightgbm.Dataset(X, y), 20)
    trees, dump = trees_of(booster)
    n_splits = sum(t["num_leaves"] - 1 for t in dump["tree_info"])
    assert sum(t.n_nodes for t in trees) > n_splits  # some splits needed three comparisons
    band = np.array([0.0, -0.0, np.nan, ZERO_BAND, -ZERO_BAND, np.nextafter(ZERO_BAND, 1), np.nextafter(-ZERO_BAND, -1),
                     np.nextafter(ZERO_BAND, 0), 1e-300, -1e-300])
    rows = np.vstack([X, threshold_rows(booster, 3, 500, rng), special_rows(3, (), rng, 200)])
    rows[: len(rows) // 2, 0] = rng.choice(band, len(rows) // 2)
    np.testing.assert_array_equal(run(export(booster, 3), rows), booster.predict(rows, num_threads=1))


def test_infinite_threshold_is_restored():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(2000, 2))
    X[rng.random(2000) < 0.3, 0] = np.nan
    y = np.where(np.isnan(X[:, 0]), 10.0, 0.0) + X[:, 1]
    booster = lightgbm.train(dict(num_leaves=4, verbose=-1, num_threads=1), lightgbm.Dataset(X, y), 3)
    assert booster.dump_model()["tree_info"][0]["tree_structure"]["threshold"] == 1e300
    rows = np.array([[np.inf, 0.0], [1e301, 0.0], [1e300, 0.0], [np.nan, 0.0], [-np.inf, 0.0]])
    np.testing.assert_array_equal(run(export(booster, 2), rows), booster.predict(rows, num_threads=1))


def test_single_leaf_trees_and_best_iteration():
    X, y, rng = _regression()
    constant = lightgbm.train(dict(verbose=-1, num_threads=1), lightgbm.Dataset(X, np.full(len(y), 2.5)), 3)
    assert all("leaf_value" in t["tree_structure"] for t in constant.dump_model()["tree_info"])
    np.testing.assert_array_equal(run(export(constant, 5), X[:50]), constant.predict(X[:50], num_threads=1))
    model = lightgbm.LGBMRegressor(n_estimators=200, n_jobs=1, verbose=-1)
    model.fit(X[:1000], y[:1000], eval_X=X[1000:], eval_y=y[1000:],
              callbacks=[lightgbm.early_stopping(3, verbose=False)])
    assert 0 < model.best_iteration_ < 200
    np.testing.assert_array_equal(run(export(model, 5), X), model.predict(X))


# -- refusals ------------------------------------------------------------------------


def test_linear_trees_are_refused():
    X, y, _ = _regression()
    model = lightgbm.LGBMRegressor(n_estimators=5, linear_tree=True, n_jobs=1, verbose=-1).fit(X, y)
    with pytest.raises(ExportError, match=r"linear trees \(linear_tree=True\)"):
        export(model, 5)


def test_unsupported_objective_is_named():
    X, y, _ = _regression()
    booster = lightgbm.train(dict(objective="cross_entropy_lambda", verbose=-1, num_threads=1),
                             lightgbm.Dataset(X, 1 / (1 + np.exp(-y))), 5)
    with pytest.raises(ExportError, match="objective 'cross_entropy_lambda' is not supported"):
        export(booster, 5)


def test_custom_objective_and_unknown_method_are_refused():
    X, y, _ = _regression()

    def l2(y_true, y_pred):
        return y_pred - y_true, np.ones_like(y_pred)

    model = lightgbm.LGBMRegressor(objective=l2, n_estimators=5, n_jobs=1, verbose=-1).fit(X, y)
    with pytest.raises(ExportError, match="records no objective .*custom objective function"):
        export(model, 5)
    plain = lightgbm.LGBMRegressor(n_estimators=5, n_jobs=1, verbose=-1).fit(X, y)
    with pytest.raises(ExportError, match=r"exports \('predict',\). Received method 'predict_proba'"):
        export(plain, 5, method="predict_proba")


def test_unfitted_model_is_refused():
    with pytest.raises(ExportError, match="not fitted"):
        export(lightgbm.LGBMRegressor(), 5)


@pytest.mark.parametrize("layout", ["matrix", "columns"])
def test_to_onnx_feeds_pandas_categories_with_unseen_levels(layout):
    import wirework as ww
    from wirework.export.api import feed

    rng = np.random.default_rng(5)
    levels = [f"l{i}" for i in range(10)]
    X = pd.DataFrame(rng.normal(size=(1000, 3)), columns=list("abc"))
    X["cat"] = pd.Categorical(rng.choice(levels, 1000), categories=levels)
    model = lightgbm.LGBMRegressor(n_estimators=20, n_jobs=1, verbose=-1).fit(X, X["a"] + X["cat"].cat.codes * 0.2)
    test = X.head(200).copy()
    test["cat"] = pd.Categorical(rng.choice(levels + ["new", None], 200), categories=levels + ["new"])
    onnx_model = ww.to_onnx(model, X_sample=X.head(), inputs=layout)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(onnx_model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(None, feed(onnx_model, test))[0], model.predict(test))


def test_categories_refuse_an_ambiguous_mix_of_integer_and_pandas_categoricals():
    rng = np.random.default_rng(6)
    X = pd.DataFrame({"a": rng.normal(size=600), "code": rng.integers(0, 5, 600)})
    X["cat"] = pd.Categorical(rng.choice(["x", "y", "z"], 600))
    model = lightgbm.LGBMRegressor(n_estimators=5, n_jobs=1, verbose=-1, min_child_samples=5)
    model.fit(X, X["a"] + X["code"], categorical_feature=["code", "cat"])
    with pytest.raises(ExportError, match=r"2 categorical features \(\[1, 2\]\) but 1 pandas categorical"):
        categories(model)


def _ordered_frame(rng, n=800):
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    X["kind"] = pd.Categorical(rng.choice(["p", "q", "r", "s"], n))  # unordered: a categorical feature
    X["band"] = pd.cut(X["b"], [-np.inf, -0.5, 0.5, np.inf], labels=["low", "mid", "high"])  # ordered: its codes
    return X


def test_an_ordered_pandas_categorical_is_read_as_its_codes_and_exported_exactly():
    import wirework as ww
    from wirework.export.api import feed

    rng = np.random.default_rng(7)
    X = _ordered_frame(rng)
    y = X["a"] + X["kind"].cat.codes * 0.3 + X["band"].cat.codes.astype(float)
    model = lightgbm.LGBMRegressor(n_estimators=30, n_jobs=1, verbose=-1, min_child_samples=5).fit(X, y)
    assert model.booster_.params["categorical_column"] == [2]  # LightGBM's own reading: only "kind" is categorical
    found = categories(model)
    assert sorted(found) == [2, 3] and list(found[3]) == ["low", "mid", "high"]
    test = X.head(300).copy()
    test.loc[test.index[:20], "band"] = np.nan  # missing codes: NaN, as LightGBM reads them
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    for layout in ("matrix", "columns"):
        onnx_model = ww.to_onnx(model, X_sample=X.head(), inputs=layout)
        session = ort.InferenceSession(onnx_model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        np.testing.assert_array_equal(session.run(None, feed(onnx_model, test))[0].ravel(), model.predict(test))


def test_an_ordered_categorical_that_could_sit_in_two_columns_is_refused():
    rng = np.random.default_rng(8)
    X = _ordered_frame(rng)
    X["small"] = rng.integers(0, 3, len(X))  # numeric, after "kind", and its values could be the band's codes
    model = lightgbm.LGBMRegressor(n_estimators=5, n_jobs=1, verbose=-1).fit(X, X["a"] + X["small"])
    with pytest.raises(ExportError, match="reads an ordered pandas categorical .* more than one placement"):
        categories(model)


def test_the_order_of_the_pandas_columns_places_an_ordered_categorical():
    rng = np.random.default_rng(8)
    X = _ordered_frame(rng)
    X.insert(0, "small", rng.integers(0, 3, len(X)))  # could hold the band's codes, but comes before "kind"
    model = lightgbm.LGBMRegressor(n_estimators=5, n_jobs=1, verbose=-1).fit(X, X["a"] + X["small"])
    assert sorted(categories(model)) == [3, 4]


def test_multiclass_probabilities_add_each_row_left_to_right_as_lightgbm():
    """LightGBM's Common::Softmax adds the exponentials in a loop; ReduceSum added them otherwise, 4.4e-16
    off on the digits data (2.2e-16 the Exp alone). With ONNX Runtime's own Exp, the file is that loop."""
    from sklearn.datasets import load_digits
    from _softmax import softmax

    X, y = load_digits(return_X_y=True)
    model = lightgbm.LGBMClassifier(n_estimators=20, n_jobs=1, verbose=-1, random_state=0).fit(X, y)
    out = run(export(model, X.shape[1], method="predict_proba"), X)
    assert np.array_equal(out, softmax(model.predict(X, raw_score=True), "loop"))


def test_float32_multiclass_probabilities_stay_within_the_documented_bound():
    """A float32 graph cannot add a row as LightGBM's float64 loop does: it keeps ReduceSum (2.2e-7 from the
    native probabilities on the digits data; left to right in float32, 2.9e-7, past docs/export.md's 2.7e-7)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    model = lightgbm.LGBMClassifier(n_estimators=20, n_jobs=1, verbose=-1).fit(X, y)
    rows = X.astype(np.float32)
    out = run(export(model, X.shape[1], dtype="float32", method="predict_proba"), rows)
    assert np.abs(out - model.predict_proba(rows)).max() <= 2.7e-7


def _c_exp_cases():
    from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine

    Xb, yb = load_breast_cancer(return_X_y=True)
    Xr, yr = load_diabetes(return_X_y=True)
    options = dict(n_jobs=1, verbose=-1, random_state=0)
    yield lightgbm.LGBMClassifier(n_estimators=40, **options).fit(Xb, yb), Xb, "predict_proba"
    yield lightgbm.LGBMClassifier(n_estimators=20, sigmoid=0.4, **options).fit(Xb, yb), Xb, "predict_proba"
    for loader in (load_wine, load_digits):
        X, y = loader(return_X_y=True)
        yield lightgbm.LGBMClassifier(n_estimators=20, **options).fit(X, y), X, "predict_proba"
    X, y = load_wine(return_X_y=True)
    yield lightgbm.LGBMClassifier(objective="multiclassova", n_estimators=20, **options).fit(X, y), X, "predict_proba"
    for objective in ("poisson", "gamma", "tweedie"):
        yield lightgbm.LGBMRegressor(objective=objective, n_estimators=30, **options).fit(Xr, yr), Xr, "predict"
    yield lightgbm.LGBMRegressor(objective="cross_entropy", n_estimators=30, **options).fit(Xb, yb), Xb, "predict"


@needs_glibc_exp
def test_probabilities_and_exp_objectives_are_bit_for_bit_with_glibcs_exp():
    """With exp="libm" every std::exp LightGBM's outputs go through is glibc's, step by step: the breast cancer
    (also with sigmoid=0.4), wine and digits probabilities (softmax and one-vs-rest) and the poisson, gamma,
    tweedie and cross_entropy predictions equal LightGBM's; ONNX Runtime's Exp leaves some a few ulps off."""
    import wirework as ww

    for model, X, method in _c_exp_cases():
        native = getattr(model, method)(X)
        libm = ww.onnx.session(ww.to_onnx(model, X[:5], methods=[method], exp="libm")).run(None, {"X": X})[0]
        assert np.array_equal(libm, native), (model, method)
        onnx_exp = ww.onnx.session(ww.to_onnx(model, X[:5], methods=[method])).run(None, {"X": X})[0]
        assert np.max(np.abs(onnx_exp - native) / np.maximum(1.0, np.abs(native))) <= 1e-15


@pytest.mark.parametrize("loader", ["breast_cancer", "wine"])
@pytest.mark.parametrize("boosting", ["gbdt", "rf"])
def test_decision_function_is_the_raw_score_bit_for_bit(loader, boosting):
    """LightGBM 4.7's LGBMClassifier.decision_function (the raw scores: 1-D for two classes) exports; in rf mode
    they are the trees' sum, not the average predict_proba transforms (the file divided before)."""
    import sklearn.datasets
    import wirework as ww

    X, y = getattr(sklearn.datasets, f"load_{loader}")(return_X_y=True)
    options = dict(bagging_freq=1, bagging_fraction=0.7) if boosting == "rf" else {}
    model = lightgbm.LGBMClassifier(n_estimators=15, boosting_type=boosting, n_jobs=1, verbose=-1, random_state=0,
                                    **options).fit(X, y)
    exported = ww.to_onnx(model, methods=["decision_function", "predict_proba"])
    scores, proba = ww.onnx.session(exported).run(None, {"X": X})
    assert np.array_equal(scores, model.decision_function(X))
    assert np.max(np.abs(proba - model.predict_proba(X))) <= 1e-15
    one = ww.onnx.session(exported).run(None, {"X": X[:1]})[0]
    assert np.array_equal(one, model.decision_function(X[:1]))


@needs_glibc_exp
@pytest.mark.parametrize("loader", ["breast_cancer", "wine"])
def test_a_sigmoid_calibration_over_lightgbm_is_bit_for_bit_with_glibcs_exp(loader):
    """CalibratedClassifierCV calibrates LGBMClassifier's decision_function (LightGBM >= 4.7); it was refused."""
    import sklearn.datasets
    from sklearn.calibration import CalibratedClassifierCV
    import wirework as ww

    X, y = getattr(sklearn.datasets, f"load_{loader}")(return_X_y=True)
    base = lightgbm.LGBMClassifier(n_estimators=10, n_jobs=1, verbose=-1, random_state=0)
    model = CalibratedClassifierCV(base, method="sigmoid", cv=3).fit(X, y)
    report = ww.onnx.check_parity(model, ww.to_onnx(model, exp="libm"), X)
    assert report.exact, report
