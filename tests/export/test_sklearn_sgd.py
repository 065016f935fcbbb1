"""scikit-learn's SGDOneClassSVM exported: ``X @ coef_ - offset_`` added as NumPy's OpenBLAS adds it.

The oracle is the native ``predict`` / ``decision_function`` / ``score_samples`` on the same rows, run by ONNX
Runtime on one thread: every output bit for bit where OpenBLAS runs its SkylakeX kernels (this machine), for
every batch size, so labels are exact even a float64 step from the boundary; anywhere, within a few units in
the last place of the products' magnitudes.
"""

from __future__ import annotations

import numpy as np
import pytest
from _openblas import needs_skylakex
from _outliers import (
    OUTPUTS,
    assert_exports_bit_for_bit,
    assert_float32_as_natively,
    assert_unknown_method_refused,
    boundary_rows,
    run_outputs,
)
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.linear_model import SGDOneClassSVM
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.export.sklearn_sgd import _convert_sgd_one_class_svm

pytest.importorskip("onnxruntime")

DATA = {"wine": load_wine, "diabetes": load_diabetes, "breast_cancer": load_breast_cancer}
SETTINGS = {
    "default": SGDOneClassSVM(random_state=0),
    "averaged": SGDOneClassSVM(nu=0.1, average=True, random_state=0),
    "constant_rate": SGDOneClassSVM(nu=0.3, learning_rate="constant", eta0=0.01, random_state=0),
    "no_shuffle": SGDOneClassSVM(nu=0.05, shuffle=False, max_iter=50, tol=None),
}


def _data(name: str, scaled: bool = True) -> np.ndarray:
    X, _ = DATA[name](return_X_y=True)
    return StandardScaler().fit_transform(X) if scaled else X


@needs_skylakex
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # raw columns: a slow fit, still a model
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("scaled", [True, False], ids=["scaled", "raw"])
@pytest.mark.parametrize("data", list(DATA))
def test_sgd_one_class_svm_is_bit_for_bit(data, scaled, setting):
    X = _data(data, scaled)
    model = clone(SETTINGS[setting]).fit(X)
    out = assert_exports_bit_for_bit(model, X)
    np.testing.assert_array_equal(out["score_samples"], model.score_samples(X))


@needs_skylakex
@pytest.mark.parametrize("data", list(DATA))
def test_every_batch_size_is_bit_for_bit(data):
    # NumPy adds a row's products in another order as one of a batch's last N % 4 rows, or alone: the file too
    X = _data(data)
    model = SGDOneClassSVM(nu=0.2, random_state=0).fit(X)
    exported = ww.to_onnx(model)
    for n in range(1, 10):
        for start in (0, 37):
            rows = X[start : start + n]
            out = run_outputs(exported, rows)
            np.testing.assert_array_equal(out["decision_function"], model.decision_function(rows))
            np.testing.assert_array_equal(out["predict"], model.predict(rows))


@needs_skylakex
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_one_matrix_product_would_not_be_bit_for_bit():
    # ONNX Runtime's MatMul adds each row's products in one fused chain; NumPy's kernels do not (four lanes, or
    # two unfused, by position): such a file was off on some rows of each data set, so the order shows here
    for name in DATA:
        X = _data(name, scaled=False)
        model = SGDOneClassSVM(random_state=0).fit(X)
        chain = np.array([_fused(row, model.coef_) for row in X])
        assert (chain != X @ model.coef_).any(), name


def _fused(row: np.ndarray, weights: np.ndarray) -> float:
    from fractions import Fraction

    total = Fraction(0)
    for a, b in zip(row, weights):
        total = Fraction(float(Fraction(a) * Fraction(b) + total))
    return float(total)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("data", list(DATA))
def test_within_a_few_ulps_of_the_products_on_any_cpu(data):
    # whatever the BLAS adds the products in: within 1e-15 of the sum of their magnitudes (measured 0 here)
    X = _data(data, scaled=False)
    model = SGDOneClassSVM(random_state=0).fit(X)
    out = run_outputs(ww.to_onnx(model), X)
    magnitude = np.abs(X * model.coef_).sum(axis=1) + abs(model.offset_[0])
    assert np.all(np.abs(out["decision_function"] - model.decision_function(X)) <= 1e-15 * magnitude)
    assert np.all(np.abs(out["score_samples"] - model.score_samples(X)) <= 1e-15 * magnitude)


@needs_skylakex
@pytest.mark.parametrize("data", list(DATA))
def test_rows_on_the_boundary_are_labelled_as_natively(data):
    # rows a float64 step apart on either side of the boundary (a decision of exactly 0 is an inlier)
    X = _data(data)
    model = SGDOneClassSVM(nu=0.2, random_state=0).fit(X)
    rows = boundary_rows(model, X)
    assert np.abs(model.decision_function(rows)).max() < 1e-12
    out = run_outputs(ww.to_onnx(model), rows)
    np.testing.assert_array_equal(out["decision_function"], model.decision_function(rows))
    np.testing.assert_array_equal(out["predict"], model.predict(rows))


@needs_skylakex
@pytest.mark.parametrize("data", list(DATA))
def test_a_float32_file_scores_float32_rows_as_natively(data):
    # NumPy casts float32 rows to float64 for the product with a float64 coef_; the file too, cast back at the end
    X = _data(data)
    assert_float32_as_natively(SGDOneClassSVM(nu=0.2, random_state=0).fit(X), X)


@needs_skylakex
def test_a_model_fit_on_float32_rows_exports_in_float64_only():
    X = _data("wine").astype(np.float32)
    model = SGDOneClassSVM(random_state=0).fit(X)
    assert model.coef_.dtype == np.float32
    rows = X.astype(np.float64)
    assert ww.onnx.check_parity(model, ww.to_onnx(model), rows).exact
    with pytest.raises(ww.ExportError, match=r"This SGDOneClassSVM was fit on float32 rows, so scikit-learn scores "
                                             r"float32 rows with a float32 product, .* Export it with "
                                             r"dtype='float64'"):
        ww.to_onnx(model, dtype="float32")


@needs_skylakex
def test_a_pipeline_ending_in_an_sgd_one_class_svm_exports_whole():
    X, _ = load_breast_cancer(return_X_y=True)
    for pipe in (ww.Pipeline([("scale", StandardScaler()), ("outliers", SGDOneClassSVM(random_state=0))]),
                 make_pipeline(StandardScaler(), SGDOneClassSVM(nu=0.1, random_state=0))):
        pipe.fit(X)
        exported = ww.to_onnx(pipe)
        assert [o.name for o in exported.graph.output] == OUTPUTS
        assert ww.onnx.check_parity(pipe, exported, X).exact
        assert ww.onnx.check_parity(pipe, exported, X[:3]).exact


def test_an_unknown_method_is_refused():
    model = SGDOneClassSVM(random_state=0).fit(_data("wine"))
    assert_unknown_method_refused(model, _convert_sgd_one_class_svm, "predict_proba")
