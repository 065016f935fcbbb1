"""check_parity reports differences, decision flips and exact agreement honestly."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper
from sklearn.datasets import load_diabetes, load_iris
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.export.parity import OutputParity, _compare


def _perturbed(model: onnx.ModelProto, name: str, change) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for i, tensor in enumerate(copy.graph.initializer):
        if tensor.name == name:
            copy.graph.initializer[i].CopyFrom(numpy_helper.from_array(change(numpy_helper.to_array(tensor)), name))
    return copy


def test_an_exact_export_reports_zero_everywhere():
    X, y = load_diabetes(return_X_y=True)
    ridge = Ridge().fit(X, y)
    report = ww.onnx.check_parity(ridge, ww.to_onnx(ridge), X)
    assert report.rows == len(X)
    assert report.max_abs < 1e-12 and report.flips == 0
    assert "predict |" in str(report)


def test_a_wrong_file_is_caught():
    X, y = load_diabetes(return_X_y=True)
    ridge = Ridge().fit(X, y)
    model = _perturbed(ww.to_onnx(ridge), "intercept", lambda a: a + 1e-3)
    report = ww.onnx.check_parity(ridge, model, X)
    assert not report.exact
    assert report.outputs["predict"].rows_differ == len(X)
    assert abs(report.max_abs - 1e-3) < 1e-9


def test_flipped_decisions_are_counted():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    logistic = ww.Pipeline([("logistic", LogisticRegression(max_iter=1000))]).fit(X, y)
    exported = ww.to_onnx(logistic)
    assert ww.onnx.check_parity(logistic, exported, X).flips == 0
    # the last two classes' probability columns swapped: every row whose top class is one of them flips
    native = logistic.predict_proba(X)
    report = _compare(native, native[:, [0, 2, 1]])
    moved = int(np.sum(native.argmax(1) != native[:, [0, 2, 1]].argmax(1)))
    assert report.flips == moved > 0


def test_labels_compare_as_values():
    same = _compare(np.array(["a", "b"]), np.array(["a", "b"], dtype=object))
    assert same == OutputParity(0.0, 0.0, 0, 0)
    one_off = _compare(np.array([0, 1, 2]), np.array([0, 2, 2]))
    assert one_off.rows_differ == 1 and one_off.flips == 1 and one_off.max_abs == float("inf")
    nan_same = _compare(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert nan_same.rows_differ == 0
