"""scikit-learn's EllipticEnvelope exported: MinCovDet's squared Mahalanobis distances as SciPy's cdist adds them.

The oracle is the native ``predict`` / ``decision_function`` / ``score_samples``
on the same rows, run by ONNX Runtime on one thread: every output bit for
bit, so the labels are exact even for rows a float64 step from the boundary.
"""

from __future__ import annotations

import numpy as np
import pytest
from _outliers import (
    OUTPUTS,
    assert_exports_bit_for_bit,
    assert_float32_as_natively,
    assert_unknown_method_refused,
    boundary_rows,
    run_outputs,
)
from sklearn.base import clone
from sklearn.covariance import EllipticEnvelope
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.export.sklearn_covariance import _convert_elliptic_envelope

pytest.importorskip("onnxruntime")

DATA = {"wine": load_wine, "diabetes": load_diabetes, "breast_cancer": load_breast_cancer}
SETTINGS = {
    "default": EllipticEnvelope(random_state=0),
    "contamination_support": EllipticEnvelope(contamination=0.25, support_fraction=0.8, random_state=0),
    "centred": EllipticEnvelope(assume_centered=True, contamination=0.05, random_state=0),
    "no_stored_precision": EllipticEnvelope(store_precision=False, random_state=0),
}


def _data(name: str, scaled: bool) -> np.ndarray:
    X, _ = DATA[name](return_X_y=True)
    return StandardScaler().fit_transform(X) if scaled else X


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("scaled", [False, True], ids=["raw", "scaled"])
@pytest.mark.parametrize("data", list(DATA))
def test_elliptic_envelope_is_bit_for_bit(data, scaled, setting):
    X = _data(data, scaled)
    model = clone(SETTINGS[setting]).fit(X)
    out = assert_exports_bit_for_bit(model, X)
    np.testing.assert_array_equal(out["score_samples"], -model.mahalanobis(X))


def test_a_row_a_matrix_product_would_relabel_is_labelled_as_natively():
    # offset_ is the percentile of the training distances computed at fit by another formula: row 6 of the
    # breast cancer data, whose distance it is, scores 3.2e-12 below it. d @ VI.T summed by ONNX Runtime's MatMul
    # (fused multiply-adds, left to right) and ReduceSum gave that row a score 4.9e-12 higher, an inlier;
    # SciPy's two-lane sums keep it an outlier
    X = _data("breast_cancer", scaled=False)
    model = EllipticEnvelope(contamination=0.25, random_state=0).fit(X)
    decision = model.decision_function(X[6:7])
    assert -1e-11 < decision[0] < 0
    out = run_outputs(ww.to_onnx(model), X)
    np.testing.assert_array_equal(out["predict"], model.predict(X))
    assert out["predict"][6] == -1


@pytest.mark.parametrize("data", list(DATA))
def test_rows_on_the_boundary_are_labelled_as_natively(data):
    # rows a float64 step apart on either side of the boundary, a decision of exactly 0 (an inlier) among them
    X = _data(data, scaled=True)
    model = EllipticEnvelope(contamination=0.1, random_state=0).fit(X)
    rows = boundary_rows(model, X)
    out = run_outputs(ww.to_onnx(model), rows)
    np.testing.assert_array_equal(out["decision_function"], model.decision_function(rows))
    np.testing.assert_array_equal(out["predict"], model.predict(rows))


@pytest.mark.parametrize("data", list(DATA))
def test_a_float32_file_scores_float32_rows_as_natively(data):
    # scikit-learn computes in float64 from the float32 values; the file too, its scores cast at the end
    X = _data(data, scaled=False)
    assert_float32_as_natively(EllipticEnvelope(contamination=0.2, random_state=0).fit(X), X)


def test_a_pipeline_ending_in_an_elliptic_envelope_exports_whole():
    X, _ = load_breast_cancer(return_X_y=True)
    pipe = ww.Pipeline([("scale", StandardScaler()), ("outliers", EllipticEnvelope(random_state=0))]).fit(X)
    exported = ww.to_onnx(pipe)
    assert [o.name for o in exported.graph.output] == OUTPUTS
    assert ww.onnx.check_parity(pipe, exported, X).exact
    X_node = ww.source(X, name="X")
    scaled = ww.machine(StandardScaler(), X_node).transform(X_node)
    envelope = ww.machine(EllipticEnvelope(contamination=0.2, random_state=0), scaled)
    signature = {"predict": envelope.predict(scaled), "decision_function": envelope.decision_function(scaled)}
    signature["predict"].fit()
    exported = ww.to_onnx(signature, methods=["predict", "decision_function"])
    assert ww.onnx.check_parity(signature, exported, X).exact


def test_an_unknown_method_is_refused():
    model = EllipticEnvelope(random_state=0).fit(_data("wine", scaled=True))
    assert_unknown_method_refused(model, _convert_elliptic_envelope, "transform")


def _two_lanes(terms: list[np.ndarray]) -> np.ndarray:
    """The order the export assumes SciPy adds a sum in: even and odd positions each from 0, then the lanes, then
    the last term when their number is odd."""
    paired = len(terms) - len(terms) % 2
    even, odd = np.zeros_like(terms[0]), np.zeros_like(terms[0])
    for term in terms[0:paired:2]:
        even = even + term
    for term in terms[1:paired:2]:
        odd = odd + term
    total = even + odd
    return total + terms[-1] if len(terms) % 2 else total


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 13, 30])
def test_scipy_adds_the_mahalanobis_sums_in_two_lanes(n):
    """The fact the export's bit-for-bit equality rests on, checked on SciPy itself: if a SciPy release adds
    its distance sums in another order, this fails first and says why the parity tests above fail."""
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(n)
    X, location = rng.normal(size=(500, n)), rng.normal(size=n)
    root = rng.normal(size=(n, n))
    VI = root @ root.T + n * np.eye(n)  # a precision matrix: symmetric, positive definite
    d = X - location
    b = [_two_lanes([d[:, j] * VI[i, j] for j in range(n)]) for i in range(n)]
    s = _two_lanes([d[:, i] * b[i] for i in range(n)])
    expected = cdist(X, location[np.newaxis, :], metric="mahalanobis", VI=VI)[:, 0]
    np.testing.assert_array_equal(np.sqrt(s), expected)
    if n >= 7:  # where the order shows: the same sums added left to right differ from SciPy's on some rows
        b = [sum((d[:, j] * VI[i, j] for j in range(n)), np.zeros(len(X))) for i in range(n)]
        plain = np.sqrt(sum((d[:, i] * b[i] for i in range(n)), np.zeros(len(X))))
        assert (plain != expected).sum() > 50
