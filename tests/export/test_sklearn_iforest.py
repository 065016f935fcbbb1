"""scikit-learn's IsolationForest exported as one TreeEnsemble and scikit-learn's arithmetic after it.

The oracle is the native ``predict`` / ``decision_function`` / ``score_samples``
on the same rows, run by ONNX Runtime on one thread:

- the trees' depth sums are scikit-learn's bit for bit, and the scores are
  scikit-learn's arithmetic on them with the C library's ``pow`` (ONNX
  Runtime's ``Pow``), which NumPy's AVX-512 ``power`` kernel may round
  otherwise: within one ulp then, and bit for bit with those kernels off;
- ``predict`` is exact, rows whose score is ``offset_`` itself included;
- float32 files route and label every float32 row as natively.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from _outliers import assert_float32_scores, assert_unknown_method_refused, run_outputs
from _tree_rows import edge_rows, tree_thresholds
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.ensemble import IsolationForest
from sklearn.ensemble._iforest import _average_path_length, _parallel_compute_tree_depths
from sklearn.linear_model import SGDOneClassSVM
from sklearn.neighbors import LocalOutlierFactor
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.errors import ExportError
from wirework.export.sklearn_iforest import convert_isolation_forest

OUTPUTS = ["predict", "decision_function", "score_samples"]
DATA = {"breast_cancer": load_breast_cancer, "wine": load_wine, "diabetes": load_diabetes}
SETTINGS = {
    "default": {},
    "few_trees_int_samples": {"n_estimators": 17, "max_samples": 64},
    "float_samples_features": {"max_samples": 0.5, "max_features": 0.6},
    "bootstrap_contamination": {"bootstrap": True, "max_features": 0.7, "contamination": 0.1},
    "all_samples_int_features": {"max_samples": 1.0, "max_features": 3, "contamination": 0.3},
}


def _depth_sums(model, X) -> np.ndarray:
    """scikit-learn's own depth sums (its ``_parallel_compute_tree_depths``, tree after tree, as it runs them)."""
    X32 = np.asarray(X, dtype=np.float32)
    subsample = model._max_features != X.shape[1]
    depths = np.zeros(len(X))
    for tree, features, lengths, averages in zip(
        model.estimators_, model.estimators_features_, model._decision_path_lengths,
        model._average_path_length_per_tree,
    ):
        _parallel_compute_tree_depths(tree, X32, features if subsample else None, lengths, averages, depths,
                                      threading.Lock())
    return depths


def _with_c_pow(model, X) -> np.ndarray:
    """``score_samples`` by scikit-learn's arithmetic with the C library's ``pow`` (Python's ``math.pow``)."""
    denominator = len(model.estimators_) * _average_path_length([model._max_samples])[0]
    ratio = np.divide(_depth_sums(model, X), denominator)
    return -np.array([math.pow(2.0, r) for r in -ratio])


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b) / np.spacing(np.abs(b))


def _probe_rows(model, X) -> np.ndarray:
    """The data, rows on the trees' thresholds (each tree's own columns), and rows with missing values."""
    features = [np.asarray(f) for f in model.estimators_features_]
    subsample = model._max_features != X.shape[1]
    pairs = []
    for estimator, columns in zip(model.estimators_, features):
        for feature, threshold in tree_thresholds(estimator):
            pairs.append((int(columns[feature]) if subsample else feature, threshold))
    missing = np.repeat(X[:4], 2, axis=0)
    missing[::2, 0] = np.nan
    missing[1::2, :] = np.nan
    return np.vstack([X, edge_rows(X, pairs, float32_inputs=True, limit=300), missing])


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("data", list(DATA))
def test_isolation_forest_matches_natively(data, setting):
    X, _ = DATA[data](return_X_y=True)
    model = IsolationForest(random_state=0, **SETTINGS[setting]).fit(X)
    rows = _probe_rows(model, X)
    exported = ww.to_onnx(model)
    assert [o.name for o in exported.graph.output] == OUTPUTS
    out = run_outputs(exported, rows)
    np.testing.assert_array_equal(out["predict"], model.predict(rows))
    assert out["predict"].dtype == np.int64 and set(np.unique(out["predict"])) <= {-1, 1}
    # scikit-learn's depth sums and arithmetic, bit for bit, with the C library's pow
    np.testing.assert_array_equal(out["score_samples"], _with_c_pow(model, rows))
    np.testing.assert_array_equal(out["decision_function"], _with_c_pow(model, rows) - model.offset_)
    # against NumPy's own power: within one ulp
    native = model.score_samples(rows)
    assert _ulps(out["score_samples"], native).max() <= 1.0
    report = ww.onnx.check_parity(model, exported, rows)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["decision_function"].max_abs <= 2.3e-16
    assert report.outputs["score_samples"].rows_differ <= 0.1 * len(rows)


def test_scores_are_bit_for_bit_when_numpy_uses_the_c_library_s_pow():
    # NumPy's power of an array runs its own AVX-512 kernel on CPUs that have it; with it off (or on a CPU
    # without it) NumPy calls the C library's pow, as ONNX Runtime does, and every output is bit for bit
    script = (
        "import numpy as np, wirework as ww\n"
        "from sklearn.datasets import load_breast_cancer\n"
        "from sklearn.ensemble import IsolationForest\n"
        "X, _ = load_breast_cancer(return_X_y=True)\n"
        "model = IsolationForest(max_features=0.6, contamination=0.1, random_state=0).fit(X)\n"
        "report = ww.onnx.check_parity(model, ww.to_onnx(model), X)\n"
        "print(report.exact, sorted(report.outputs))\n"
    )
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True ['decision_function', 'predict', 'score_samples']"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_row_whose_score_is_the_offset_is_an_inlier_as_natively(dtype):
    # np.percentile of 121 scores at 25% is the 31st smallest score itself: that row's decision is exactly 0,
    # an inlier. The C library's pow gives its score one ulp below NumPy's AVX-512 power (on CPUs with it),
    # so a file comparing its decision_function (-5.6e-17) with 0, or a float32 sum, called it an outlier
    X, _ = load_wine(return_X_y=True)
    X = X[:121]
    model = IsolationForest(n_estimators=50, contamination=0.25, random_state=2).fit(X)
    on_offset = model.decision_function(X) == 0
    assert on_offset.sum() == 1
    rows = X.astype(np.float32).astype(np.float64) if dtype == "float32" else X
    out = run_outputs(ww.to_onnx(model, dtype=dtype), rows.astype(dtype))
    np.testing.assert_array_equal(out["predict"], model.predict(rows))
    assert out["predict"][on_offset].tolist() == [1]


@pytest.mark.parametrize("data", list(DATA))
def test_a_float32_file_labels_every_float32_row_as_natively(data):
    X, _ = DATA[data](return_X_y=True)
    model = IsolationForest(max_samples=0.5, max_features=0.6, contamination=0.1, random_state=0).fit(X)
    rows = _probe_rows(model, X).astype(np.float32)
    exported = ww.to_onnx(model, dtype="float32")  # no PrecisionWarning: scikit-learn casts to float32 itself
    out = run_outputs(exported, rows)
    native = rows.astype(np.float64)
    np.testing.assert_array_equal(out["predict"], model.predict(native))
    np.testing.assert_array_equal(out["predict"], model.predict(rows))
    # the depth sums are float64 as natively, the scores the float32 values of the float64 file's
    assert_float32_scores(out, model, rows)


def test_trees_of_one_row_score_every_row_minus_one_half():
    # max_samples=1: each tree is one leaf of one row, the denominator is 0 and scikit-learn's score is -2 ** -1
    X, _ = load_wine(return_X_y=True)
    model = IsolationForest(n_estimators=5, max_samples=1, random_state=0).fit(X)
    assert ww.onnx.check_parity(model, ww.to_onnx(model), X).exact
    assert set(model.score_samples(X)) == {-0.5}


def test_a_pipeline_ending_in_an_isolation_forest_exports_whole():
    X, _ = load_breast_cancer(return_X_y=True)
    pipe = ww.Pipeline([("scale", StandardScaler()), ("outliers", IsolationForest(contamination=0.05, random_state=0))])
    pipe.fit(X)
    exported = ww.to_onnx(pipe)
    assert [o.name for o in exported.graph.output] == OUTPUTS
    report = ww.onnx.check_parity(pipe, exported, X)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["score_samples"].max_abs <= 1.2e-16
    out = run_outputs(exported, X)
    assert _ulps(out["score_samples"], pipe.score_samples(X)).max() <= 1.0
    # a network of the same machines, given by its signature
    X_node = ww.source(X, name="X")
    scaled = ww.machine(StandardScaler(), X_node).transform(X_node)
    forest = ww.machine(IsolationForest(n_estimators=20, random_state=0), scaled)
    signature = {"predict": forest.predict(scaled), "score_samples": forest.score_samples(scaled)}
    signature["predict"].fit()
    exported = ww.to_onnx(signature, methods=["predict", "score_samples"])
    assert ww.onnx.check_parity(signature, exported, X).outputs["predict"].rows_differ == 0


def test_the_file_is_deterministic_with_one_ensemble():
    X, _ = load_wine(return_X_y=True)
    model = IsolationForest(n_estimators=30, random_state=0).fit(X)
    first = ww.to_onnx(model)
    assert first.SerializeToString() == ww.to_onnx(model).SerializeToString()
    assert [n.op_type for n in first.graph.node].count("TreeEnsemble") == 1
    assert ww.onnx.count_entries(first) == sum(e.tree_.node_count for e in model.estimators_)
    assert [o.name for o in ww.to_onnx(model, methods=["score_samples"]).graph.output] == ["score_samples"]


def test_an_unknown_method_is_refused():
    X, _ = load_wine(return_X_y=True)
    model = IsolationForest(n_estimators=3, random_state=0).fit(X)
    assert_unknown_method_refused(model, convert_isolation_forest, "predict_proba")


class _UnknownDetector(OutlierMixin, BaseEstimator):
    """An outlier detector no converter knows, in scikit-learn's package (scikit-learn's own all export now)."""

    def fit(self, X, y=None):
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict(self, X):
        return np.ones(len(X), dtype=np.int64)


_UnknownDetector.__module__ = "sklearn.covariance._unknown"  # taken for scikit-learn's: the skl2onnx fallback


def test_other_outlier_detectors_are_refused_saying_so():
    # SGDOneClassSVM and LocalOutlierFactor(novelty=True) export now (tests/export/test_sklearn_sgd.py,
    # test_sklearn_neighbors.py), as OneClassSVM and EllipticEnvelope did before them
    X, _ = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    for detector in (LocalOutlierFactor(novelty=True), SGDOneClassSVM(random_state=0)):
        exported = ww.to_onnx(detector.fit(X))
        assert [o.name for o in exported.graph.output] == OUTPUTS
    detector = _UnknownDetector().fit(X)
    with pytest.raises(ExportError, match=r"_UnknownDetector: cannot export any method; .* _UnknownDetector is an "
                                          r"outlier detector: .* of scikit-learn's outlier detectors "
                                          r"\(IsolationForest, OneClassSVM, SGDOneClassSVM, EllipticEnvelope and "
                                          r"LocalOutlierFactor with novelty=True\) only; others have no converter\. "
                                          r"Replace it \(by one of those, say\), or export the network up to it"):
        ww.to_onnx(detector)
    X_node = ww.source(X, name="X")
    node = ww.machine(_UnknownDetector(), X_node).predict(X_node)
    node.fit()
    with pytest.raises(ExportError, match=r"_UnknownDetector.predict\(\) of machine .* is an outlier detector"):
        ww.to_onnx(node)
