"""scikit-learn trees, forests and gradient boosting exported as one TreeEnsemble.

The oracle is the native ``predict`` / ``predict_proba`` on the same float64
rows. Parity measured with ONNX Runtime (1 thread):

- float64: bit-exact ``predict`` for every family (trees and forests sum
  leaves in tree order and divide by the number of trees, as scikit-learn;
  boosting adds ``learning_rate * value`` after the init prediction, in stage
  order), labels identical. Probabilities of GradientBoosting and
  HistGradientBoosting go through ONNX ``Sigmoid`` / ``Softmax``, which
  differ from scipy's ``expit`` / scikit-learn's softmax by an ulp or two
  (<= 1e-15 absolute); the ``exp`` link of poisson / gamma likewise
  (<= 1e-15 relative).
- float32: the same decisions as natively on the float32 values of the
  rows (predictions within 1e-5, labels identical wherever the native top
  two probabilities are not within 1e-4). A HistGradientBoosting fit on
  float64 data may warn (``PrecisionWarning``): its thresholds are often
  training values, which float32 cannot hold.
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pandas as pd
import pytest
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier, ExtraTreeRegressor
from threadpoolctl import threadpool_limits
from _tree_rows import edge_rows, tree_thresholds
from _glibc import needs_glibc_exp

import wirework as ww
from wirework.errors import ExportError
from wirework.export.api import feed
from wirework.export.builder import GraphBuilder
from wirework.export.registry import converter_for
from wirework.export.sklearn_trees import convert_forest, float32_cut
from wirework.export.trees import Mode

N_FEATURES = 4


# -- helpers ------------------------------------------------------------------------------------------


def _run(model_proto, X) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model_proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feed(model_proto, X))))


def _native(model, method, X):
    with threadpool_limits(1):
        return getattr(model, method)(X)


def _data(task: str, nan: bool, seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, N_FEATURES))
    X[:, 3] = rng.integers(0, 5, n)  # repeated values: thresholds between neighbours
    signal = X[:, 0] * 2 + X[:, 1] ** 2 - X[:, 3] + rng.normal(scale=0.3, size=n)
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    if task == "reg":
        return X, signal
    if task == "bin":
        return X, np.where(signal > 1, "yes", "no")
    return X, np.digitize(signal, [-1.0, 1.0, 3.0]) * 10  # classes 0, 10, 20, 30


def _hist_thresholds(model) -> list[tuple[int, float]]:
    pairs = []
    for iteration in model._predictors:
        for predictor in iteration:
            nodes = predictor.nodes
            inner = (nodes["is_leaf"] == 0) & (nodes["is_categorical"] == 0)
            pairs.extend(zip(nodes["feature_idx"][inner].tolist(), nodes["num_threshold"][inner].tolist()))
    return pairs


def _nan_rows(X: np.ndarray) -> np.ndarray:
    rows = np.repeat(X[:N_FEATURES], 2, axis=0)
    for j in range(N_FEATURES):
        rows[2 * j, j] = np.nan
        rows[2 * j + 1, :] = np.nan
    return rows


def _assert_float64(model, X, *, proba_atol: float = 0.0, rtol: float = 0.0) -> None:
    out = _run(ww.to_onnx(model), X)
    predicted = _native(model, "predict", X)
    if hasattr(model, "classes_"):
        np.testing.assert_array_equal(out["predict"], predicted)
        proba = _native(model, "predict_proba", X)
        assert np.abs(out["predict_proba"] - proba).max() <= proba_atol
    elif rtol:
        np.testing.assert_allclose(out["predict"], predicted, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(out["predict"], predicted)


def _float32_export(model):
    """The float32 file; a HistGradientBoosting may warn that a float64 row can take another branch, no other
    tree model does (they cast their input to float32 natively)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ww.PrecisionWarning)  # other warnings stay errors
        exported = ww.to_onnx(model, dtype="float32")
    hist = isinstance(model, (HistGradientBoostingRegressor, HistGradientBoostingClassifier))
    assert all(hist and issubclass(w.category, ww.PrecisionWarning) for w in caught), [str(w.message) for w in caught]
    return exported


def _assert_float32(model, X) -> None:
    X32 = X.astype(np.float32)
    X64 = X32.astype(np.float64)
    out = _run(_float32_export(model), X32)
    predicted = _native(model, "predict", X64)
    if not hasattr(model, "classes_"):
        np.testing.assert_allclose(out["predict"], predicted, rtol=1e-5, atol=1e-5)
        return
    proba = _native(model, "predict_proba", X64)
    np.testing.assert_allclose(out["predict_proba"], proba, rtol=0, atol=1e-5)
    top = np.sort(proba, axis=1)
    clear = top[:, -1] - top[:, -2] > 1e-4
    np.testing.assert_array_equal(out["predict"][clear], predicted[clear])


# -- the float32 cut ----------------------------------------------------------------------------------


def test_float32_cut_matches_the_cast_for_every_double_near_it():
    rng = np.random.default_rng(0)
    f32 = np.finfo(np.float32)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, float(f32.max), -float(f32.max), float(f32.tiny), 1e-45, -1e-45, 3e-39]
    samples = np.concatenate([rng.normal(size=300) * 10.0 ** rng.integers(-5, 5, 300), special])
    as32 = samples.astype(np.float32).astype(np.float64)
    with np.errstate(over="ignore"):
        above = np.nextafter(samples.astype(np.float32), np.float32(np.inf)).astype(np.float64)
    midpoints = ((as32 + above) / 2)[np.isfinite(above)]
    thresholds = np.concatenate([samples, as32, midpoints, [np.inf]])
    modes, cuts = float32_cut(thresholds)
    for t, mode, cut in zip(thresholds, modes, cuts):
        probes = [t, cut]
        for start in (t, cut):
            up = down = start
            for _ in range(3):
                up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
                probes += [up, down]
        probes = np.array([p for p in probes if np.isfinite(p) and abs(p) <= f32.max])
        with np.errstate(over="ignore"):
            native = probes.astype(np.float32).astype(np.float64) <= t
        ours = probes <= cut if mode == Mode.LEQ else probes < cut
        np.testing.assert_array_equal(ours, native, err_msg=f"threshold {t!r}")


# -- trees and forests --------------------------------------------------------------------------------

FORESTS = {
    "tree": (DecisionTreeRegressor, DecisionTreeClassifier, {}),
    "extra_tree": (ExtraTreeRegressor, ExtraTreeClassifier, {}),
    "random_forest": (RandomForestRegressor, RandomForestClassifier, {"n_estimators": 12, "n_jobs": 1}),
    "extra_trees": (ExtraTreesRegressor, ExtraTreesClassifier, {"n_estimators": 12, "n_jobs": 1}),
}


@pytest.mark.parametrize("task", ["reg", "bin", "multi"])
@pytest.mark.parametrize("family", list(FORESTS))
def test_trees_and_forests_match_natively(family, task):
    regressor, classifier, options = FORESTS[family]
    X, y = _data(task, nan=True)
    cls = regressor if task == "reg" else classifier
    model = cls(max_depth=8, random_state=0, **options).fit(X, y)
    edges = edge_rows(np.nan_to_num(X), tree_thresholds(model), float32_inputs=True)
    rows = np.vstack([X, edges, _nan_rows(np.nan_to_num(X))])
    _assert_float64(model, rows)
    _assert_float32(model, rows)


def test_multi_output_regressor_gives_one_column_per_target():
    X, y = _data("reg", nan=True)
    Y = np.column_stack([y, -2 * y])
    model = RandomForestRegressor(n_estimators=5, max_depth=6, random_state=0, n_jobs=1).fit(X, Y)
    g = GraphBuilder("float64")  # at converter level: ww.to_onnx declares a regressor's predict 1-D
    x = g.add_input("X", np.float64, [None, N_FEATURES])
    g.add_output(convert_forest(model, "predict", g, x), "predict", np.float64, [None, 2])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(g.to_model().SerializeToString(), options, providers=["CPUExecutionProvider"])
    out = session.run(None, {"X": X})[0]
    assert out.shape == (len(X), 2)
    np.testing.assert_array_equal(out, model.predict(X))


def test_forest_without_missing_values_in_training_still_routes_nan_as_scikit_learn():
    X, y = _data("bin", nan=False)
    model = RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0, n_jobs=1).fit(X, y)
    _assert_float64(model, _nan_rows(X))


# -- gradient boosting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "task, options",
    [
        ("reg", {"loss": "squared_error"}),
        ("reg", {"loss": "absolute_error"}),
        ("reg", {"loss": "huber", "subsample": 0.7}),
        ("reg", {"loss": "quantile", "alpha": 0.8}),
        ("reg", {"init": "zero"}),
        ("reg", {"init": DummyRegressor(strategy="median")}),
        ("bin", {}),
        ("bin", {"loss": "exponential"}),
        ("multi", {}),
    ],
)
def test_gradient_boosting_matches_natively(task, options):
    X, y = _data(task, nan=False)
    cls = GradientBoostingRegressor if task == "reg" else GradientBoostingClassifier
    model = cls(n_estimators=15, max_depth=3, learning_rate=0.3, random_state=0, **options).fit(X, y)
    rows = np.vstack([X, edge_rows(X, tree_thresholds(model), float32_inputs=True)])
    _assert_float64(model, rows, proba_atol=1e-15)
    _assert_float32(model, rows)


def test_gradient_boosting_binary_labels_use_the_raw_sign_with_ties_to_the_second_class():
    X, y = _data("bin", nan=False)
    model = GradientBoostingClassifier(n_estimators=1, max_depth=1, random_state=0).fit(X, y)
    # a model whose raw score is exactly 0 everywhere: labels go to classes_[1] (raw >= 0)
    model.init_ = "zero"
    model.estimators_[0, 0].tree_.value[:] = 0.0
    out = _run(ww.to_onnx(model), X[:5])
    np.testing.assert_array_equal(out["predict"], model.predict(X[:5]))
    assert set(out["predict"]) == {model.classes_[1]}


# -- histogram gradient boosting ----------------------------------------------------------------------


def _fit_hist(cls, X, y, **options):
    with threadpool_limits(1):
        return cls(max_iter=25, max_leaf_nodes=15, random_state=0, **options).fit(X, y)


@pytest.mark.parametrize(
    "task, options, rtol",
    [
        ("reg", {"loss": "squared_error"}, 0.0),
        ("reg", {"loss": "absolute_error"}, 0.0),
        ("reg", {"loss": "quantile", "quantile": 0.3}, 0.0),
        ("reg", {"loss": "poisson"}, 1e-15),
        ("reg", {"loss": "gamma"}, 1e-15),
        ("bin", {}, 0.0),
        ("multi", {}, 0.0),
    ],
)
def test_hist_gradient_boosting_matches_natively(task, options, rtol):
    X, y = _data(task, nan=True)
    if options.get("loss") in ("poisson", "gamma"):
        y = np.exp(y / 4)
    cls = HistGradientBoostingRegressor if task == "reg" else HistGradientBoostingClassifier
    model = _fit_hist(cls, X, y, **options)
    clean = np.nan_to_num(X)
    edges = edge_rows(clean, _hist_thresholds(model), float32_inputs=False)
    infinite = clean[:8].copy()
    infinite[np.arange(8), np.arange(8) % N_FEATURES] = np.where(np.arange(8) < 4, np.inf, -np.inf)
    rows = np.vstack([X, edges, _nan_rows(clean), infinite])
    _assert_float64(model, rows, proba_atol=1e-15, rtol=rtol)
    _assert_float32(model, rows)


def _categorical_numpy(seed: int = 0, n: int = 400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, N_FEATURES))
    X[:, 0] = rng.choice([-1, 0, 3, 7, 12, 40], n)  # integer categories, one negative
    X[:, 2] = rng.integers(0, 9, n)
    X[rng.random(n) < 0.08, 0] = np.nan
    effect = np.array([3.0, -1.0, 0.5, 2.0, -2.0, 1.0])
    codes = np.searchsorted([-1, 0, 3, 7, 12, 40], np.nan_to_num(X[:, 0], nan=0))
    y = effect[codes] + np.sin(X[:, 2] * 1.3) * 2 + X[:, 1] + rng.normal(scale=0.2, size=n)
    return X, y


def _categorical_probes(X: np.ndarray) -> np.ndarray:
    rows = X[:16].copy()
    # unseen, negative, non-integer (truncated by ONNX Runtime's set splits), beyond int32, missing
    rows[:, 0] = [5, 100, -3, 3.5, np.nan, -1, 0, 3, 7, 12, 40, -0.0, -1.5, 7.2, 2.0**32 + 3, 1e20]
    rows[:, 2] = [9, 50, -1, 2.5, np.nan, 0, 1, 2, 3, 4, 8, 7, 1.5, -0.5, 2.0**32 + 1, -1e20]
    return rows


@pytest.mark.parametrize("task", ["reg", "bin"])
def test_hist_gradient_boosting_categorical_numpy_columns(task):
    X, y = _categorical_numpy()
    cls = HistGradientBoostingRegressor
    if task == "bin":
        cls, y = HistGradientBoostingClassifier, (y > np.median(y)).astype(int)
    model = _fit_hist(cls, X, y, categorical_features=[0, 2])
    assert converter_for(model).categories(model) == {}
    rows = np.vstack([X, _categorical_probes(X), edge_rows(np.nan_to_num(X), _hist_thresholds(model),
                                                           float32_inputs=False)])
    _assert_float64(model, rows, proba_atol=1e-15)
    _assert_float32(model, rows)


def _categorical_frame(seed: int = 0, n: int = 400):
    rng = np.random.default_rng(seed)
    colour = pd.Categorical(rng.choice(["red", "blue", "green", "amber"], n), categories=["red", "blue", "green",
                                                                                          "amber", "unused"])
    size = pd.Categorical(rng.choice(["s", "m", "l"], n), categories=["s", "m", "l"], ordered=True)
    frame = pd.DataFrame({"x0": rng.normal(size=n), "colour": colour, "x2": rng.normal(size=n), "size": size})
    frame.loc[rng.random(n) < 0.07, "colour"] = np.nan
    effect = frame["colour"].map({"red": 2.0, "blue": -1.0, "green": 0.5, "amber": 3.0}).astype(float).fillna(0.0)
    signal = effect + frame["size"].cat.codes * 0.7 + frame["x0"] + rng.normal(scale=0.3, size=n)
    return frame, np.digitize(signal, [0.0, 1.5, 3.0])


def test_hist_gradient_boosting_pandas_categories_from_dtype():
    frame, y = _categorical_frame()
    model = _fit_hist(HistGradientBoostingClassifier, frame, y)
    categories = converter_for(model).categories(model)
    assert sorted(categories) == [1, 3]  # original positions, although scikit-learn moves them first
    assert set(categories[1]) == {"red", "blue", "green", "amber"}
    test = frame.iloc[:40].copy()
    test["colour"] = test["colour"].cat.add_categories(["violet"])
    test.loc[test.index[:5], "colour"] = "violet"  # unseen in training
    test.loc[test.index[5:9], "colour"] = "unused"  # in the dtype, never seen in training
    test.loc[test.index[9:12], "colour"] = np.nan
    test.loc[test.index[12:14], "size"] = np.nan
    test.loc[test.index[14:16], "x0"] = np.nan
    for rows in (frame, test):
        out = _run(ww.to_onnx(model), rows)
        np.testing.assert_array_equal(out["predict"], _native(model, "predict", rows))
        assert np.abs(out["predict_proba"] - _native(model, "predict_proba", rows)).max() <= 1e-15
        rounded = rows.assign(x0=rows["x0"].astype(np.float32).astype(np.float64),
                              x2=rows["x2"].astype(np.float32).astype(np.float64))
        out32 = _run(_float32_export(model), rounded)
        np.testing.assert_array_equal(out32["predict"], _native(model, "predict", rounded))


# -- properties of the file ---------------------------------------------------------------------------


def test_export_is_deterministic_and_passes_the_full_checker():
    X, y = _data("multi", nan=True)
    model = RandomForestClassifier(n_estimators=4, max_depth=5, random_state=0, n_jobs=1).fit(X, y)
    first, second = ww.to_onnx(model), ww.to_onnx(model)
    assert first.SerializeToString() == second.SerializeToString()
    # predict and predict_proba share one ensemble
    assert [n.op_type for n in first.graph.node].count("TreeEnsemble") == 1
    onnx.checker.check_model(first, full_check=True)
    hist = _fit_hist(HistGradientBoostingRegressor, *_categorical_numpy(), categorical_features=[0, 2])
    assert ww.to_onnx(hist).SerializeToString() == ww.to_onnx(hist).SerializeToString()


# -- refusals -----------------------------------------------------------------------------------------


def test_gradient_boosting_with_a_fitted_init_estimator_is_refused():
    X, y = _data("reg", nan=False)
    model = GradientBoostingRegressor(n_estimators=3, init=LinearRegression()).fit(X, y)
    with pytest.raises(ExportError, match=r"init=LinearRegression\(\).*Refit with init=None"):
        ww.to_onnx(model)


def test_multi_output_classifier_is_refused():
    X, y = _data("bin", nan=False)
    model = DecisionTreeClassifier(max_depth=3).fit(X, np.column_stack([y, y]))
    with pytest.raises(ExportError, match="fitted on 2 outputs; multi-output classifiers"):
        ww.to_onnx(model)


def test_hist_numeric_categories_that_are_not_integers_are_refused():
    X, y = _categorical_numpy()
    X[:, 2] = X[:, 2] / 2 + 0.25
    model = _fit_hist(HistGradientBoostingRegressor, X, y, categorical_features=[2])
    with pytest.raises(ExportError, match="not integers fitting in int32"):
        ww.to_onnx(model)


def test_a_float32_export_of_a_hist_gradient_boosting_warns_when_rows_on_its_thresholds_would_flip():
    # HistGradientBoosting compares the float64 input and, on a feature with more than max_bins distinct values,
    # puts its thresholds on training values: cast to float32, 48 of the diabetes rows took another branch (up
    # to 16.1 off), silently. The file is right for the float32 values; the export now says what happens
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X32 = X.astype(np.float32)
    model = _fit_hist(HistGradientBoostingRegressor, X, y)
    with pytest.warns(ww.PrecisionWarning, match=r"float32: \d+ of its \d+ numeric splits .* a row holding exactly "
                                                 r"that value goes the other way .*dtype='float64'"):
        exported = ww.to_onnx(model, dtype="float32")
    out = _run(exported, X32)["predict"]
    np.testing.assert_allclose(out, _native(model, "predict", X32.astype(np.float64)), rtol=1e-6)
    assert np.sum(_native(model, "predict", X32.astype(np.float64)) != _native(model, "predict", X)) > 10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ww.onnx.check_parity(model, ww.to_onnx(model), X).exact  # float64: no warning, exact
        fit32 = _fit_hist(HistGradientBoostingRegressor, X32, y)  # thresholds a float32 input can hold
        out32 = _run(ww.to_onnx(fit32, dtype="float32"), X32)["predict"]
        np.testing.assert_allclose(out32, _native(fit32, "predict", X32), rtol=1e-6)
        for other in (DecisionTreeRegressor(random_state=0), RandomForestRegressor(n_estimators=5, random_state=0)):
            ww.to_onnx(other.fit(X, y), dtype="float32")  # they cast to float32 natively: nothing to say


def _moved_rows(model, X) -> np.ndarray:
    """The rows whose float32 value takes another branch than their float64 value natively (another raw score)."""
    raw = np.atleast_2d(model._raw_predict(X).T).T
    raw32 = np.atleast_2d(model._raw_predict(X.astype(np.float32).astype(np.float64)).T).T
    return np.flatnonzero(np.any(raw != raw32, axis=1))


@pytest.mark.parametrize("cls", [HistGradientBoostingRegressor, HistGradientBoostingClassifier])
def test_a_float32_export_of_a_hist_gradient_boosting_on_few_rows_is_silent_when_no_row_moves(cls):
    # wine's 178 rows: every feature has at most max_bins (255) distinct values, so every threshold is the
    # midpoint of two consecutive training values, which no row holds. Many of those midpoints round up in
    # float32, and the export warned for them although no row moved
    from sklearn.datasets import load_wine

    from wirework.export.trees import moved_by_float32

    X, y = load_wine(return_X_y=True)
    model = _fit_hist(cls, X, y)
    assert moved_by_float32(np.array(_hist_thresholds(model))[:, 1]).sum() > 10  # what the warning counted
    assert _moved_rows(model, X).size == 0  # no row takes another branch once cast to float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = _run(ww.to_onnx(model, dtype="float32"), X.astype(np.float32))
    if cls is HistGradientBoostingClassifier:
        np.testing.assert_array_equal(out["predict"], _native(model, "predict", X))
        np.testing.assert_allclose(out["predict_proba"], _native(model, "predict_proba", X), rtol=0, atol=1e-6)
    else:
        np.testing.assert_allclose(out["predict"], _native(model, "predict", X), rtol=0, atol=1e-6)


def test_a_float32_export_of_a_hist_gradient_boosting_warns_when_a_training_row_moves():
    # with max_bins=32 wine's features have more distinct values than bins: the thresholds are quantiles, most of
    # them training values, and rows holding one that float32 rounds up go the other way in the file
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X32 = X.astype(np.float32)
    model = _fit_hist(HistGradientBoostingClassifier, X, y, max_bins=32)
    moved = _moved_rows(model, X)
    assert moved.size > 10
    with pytest.warns(ww.PrecisionWarning, match=r"float32: \d+ of its \d+ numeric splits .* goes the other way .*"
                                                 r"Trained on 178 rows \(more than max_bins=32\)"):
        exported = ww.to_onnx(model, dtype="float32")
    out = _run(exported, X32)
    np.testing.assert_array_equal(out["predict"], _native(model, "predict", X32.astype(np.float64)))
    proba64 = _native(model, "predict_proba", X)
    assert np.abs(out["predict_proba"][moved] - proba64[moved]).max() > 1e-3  # the file follows the float32 row


def test_a_float32_export_of_categories_that_float32_cannot_hold_is_refused():
    # the float32 file held the category 16777217 as 16777216, so the unseen value 16777216 took its branch
    # (1.97 off, silently); float64 holds every int32 category exactly
    rng = np.random.default_rng(0)
    values = np.array([16777217.0, 16777219.0, 33554435.0, 5.0])
    codes = rng.choice(values, 2000)
    X = np.column_stack([codes, rng.normal(size=2000)])
    y = (codes == values[0]) * 3.0 - (codes == values[2]) * 2.0 + X[:, 1]
    model = _fit_hist(HistGradientBoostingRegressor, X, y, categorical_features=[0])
    with pytest.raises(ExportError, match=r"category codes? .*16777217.* no float32 value.*dtype='float64'"):
        ww.to_onnx(model, dtype="float32")
    rows = np.column_stack([[16777216.0, 16777217.0, 16777218.0, 33554436.0, 5.0], np.zeros(5)])
    assert ww.onnx.check_parity(model, ww.to_onnx(model), rows).exact


def test_unknown_method_is_refused():
    X, y = _data("reg", nan=False)
    model = DecisionTreeRegressor(max_depth=2).fit(X, y)
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, N_FEATURES])
    with pytest.raises(ExportError, match=r"exports \('predict',\). Received method 'predict_proba'"):
        convert_forest(model, "predict_proba", g, x)


@pytest.mark.parametrize(
    ("model", "order"),
    [
        (HistGradientBoostingClassifier(max_iter=20, random_state=0), "loop"),  # Fortran-ordered raw scores
        (GradientBoostingClassifier(n_estimators=5, random_state=0), "numpy"),  # C-ordered: pairwise from 8
    ],
)
def test_multiclass_probabilities_add_each_row_as_numpy_adds_the_native_scores(model, order):
    """scikit-learn's softmax is np.sum(axis=1) of the exponentials: left to right for HistGradientBoosting's
    Fortran-ordered scores, pairwise for GradientBoosting's C-ordered ones (10 classes). ReduceSum gave
    HistGradientBoosting's digits probabilities 4.4e-16 off (2.2e-16 the Exp alone); with ONNX Runtime's own
    Exp, the file is NumPy's sum."""
    from sklearn.datasets import load_digits
    from _softmax import softmax

    X, y = load_digits(return_X_y=True)
    model.fit(X, y)
    out = _run(ww.to_onnx(model, methods=["predict_proba"]), X)["predict_proba"]
    assert np.array_equal(out, softmax(_native(model, "decision_function", X), order))


@needs_glibc_exp
@pytest.mark.parametrize("model", [
    HistGradientBoostingClassifier(max_iter=40, random_state=0),
    GradientBoostingClassifier(n_estimators=40, random_state=0),
    GradientBoostingClassifier(loss="exponential", n_estimators=30, random_state=0),
], ids=["hist", "log_loss", "exponential"])
def test_binary_boosting_probabilities_are_bit_for_bit_with_glibcs_exp(model):
    """scikit-learn's binary probabilities are SciPy's expit of the raw score, 1 / (1 + exp(-x)) with the C
    library's exp: with exp="libm" they equal scikit-learn's on every row of the breast cancer data."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    model.fit(X, y)
    native = model.predict_proba(X)
    out = ww.onnx.session(ww.to_onnx(model, X[:5], methods=["predict_proba"], exp="libm")).run(None, {"X": X})[0]
    assert np.array_equal(out, native)
