"""Shared checks of exported outlier detectors: their outputs, rows on their boundary, refusals, float32 scores."""

from __future__ import annotations

import numpy as np
import pytest

import wirework as ww
from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder


def run_outputs(exported, rows) -> dict[str, np.ndarray]:
    """Every output of ``exported`` on ``rows``, by name, from ONNX Runtime on one thread."""
    runtime = ww.onnx.session(exported)
    return dict(zip([o.name for o in runtime.get_outputs()], runtime.run(None, ww.onnx.feed(exported, rows))))


OUTPUTS = ["predict", "decision_function", "score_samples"]


def assert_exports_bit_for_bit(model, X: np.ndarray) -> dict[str, np.ndarray]:
    """``ww.to_onnx(model)`` has the three outputs, and ``check_parity`` finds them bit for bit on ``X``; its
    outputs on ``X`` (``predict`` as int64)."""
    exported = ww.to_onnx(model)
    assert [o.name for o in exported.graph.output] == OUTPUTS
    report = ww.onnx.check_parity(model, exported, X)
    assert report.exact, str(report)
    out = run_outputs(exported, X)
    assert out["predict"].dtype == np.int64
    return out


def assert_float32_as_natively(model, X: np.ndarray) -> None:
    """A float32 file labels ``X`` and rows on the boundary, as float32 values, as natively, and its scores are
    the float32 values of the native scores of those rows (computed in float64 natively, as in the file)."""
    rows = np.vstack([X, boundary_rows(model, X, count=10)]).astype(np.float32)
    out = run_outputs(ww.to_onnx(model, dtype="float32"), rows)
    np.testing.assert_array_equal(out["predict"], model.predict(rows))
    for method in ("decision_function", "score_samples"):
        assert out[method].dtype == np.float32
        np.testing.assert_array_equal(out[method], getattr(model, method)(rows).astype(np.float32))


def assert_unknown_method_refused(model, convert, method: str) -> None:
    """``convert`` (the converter) and ``ww.to_onnx`` both refuse ``method``, naming the three outputs."""
    name = type(model).__name__
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, int(model.n_features_in_)])
    with pytest.raises(ExportError, match=rf"{name} exports \('predict', 'decision_function', 'score_samples'\). "
                                          rf"Received method '{method}'"):
        convert(model, method, g, x)
    with pytest.raises(ExportError, match=rf"cannot export {method}; its converter exports predict, "
                                          r"decision_function, score_samples"):
        ww.to_onnx(model, methods=[method])


def assert_float32_scores(out: dict[str, np.ndarray], model, rows: np.ndarray) -> None:
    """A float32 file's scores are float32 and within one float32 step of the native ones on the same rows."""
    for method in ("decision_function", "score_samples"):
        assert out[method].dtype == np.float32
        expected = getattr(model, method)(rows.astype(np.float64))
        assert np.all(np.abs(out[method] - expected) <= np.spacing(np.abs(expected).astype(np.float32)))


def boundary_rows(model, X: np.ndarray, count: int = 40) -> np.ndarray:
    """``2 * count`` rows: for ``count`` pairs of an inlier and an outlier of ``X``, the two points of the segment
    between them, next to each other in float64 steps of the segment's parameter, on either side of where
    ``model.predict`` changes its label (bisection, each probe one native ``predict``)."""
    labels = model.predict(X)
    inliers, outliers = X[labels == 1], X[labels == -1]
    rows = []
    for k in range(count):
        a, b = inliers[k % len(inliers)], outliers[(7 * k) % len(outliers)]
        low, high = 0.0, 1.0  # the point at low is an inlier, the one at high an outlier
        while True:
            middle = (low + high) / 2
            if middle in (low, high):
                break
            if model.predict((a + middle * (b - a))[np.newaxis])[0] == 1:
                low = middle
            else:
                high = middle
        rows += [a + low * (b - a), a + high * (b - a)]
    return np.array(rows)
