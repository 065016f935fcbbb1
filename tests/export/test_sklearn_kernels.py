"""Kernel machines exported in float64: SVR, NuSVR and KernelRidge, against their predictions."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.kernel_ridge import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR, NuSVR

import wirework as ww

pytest.importorskip("onnxruntime")

X, Y = load_diabetes(return_X_y=True)
SCALE = np.abs(Y).max()


def parity(model, data=X):
    return ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=data[:3]), data)


@pytest.mark.parametrize(
    "machine",
    [SVR(), SVR(kernel="linear"), SVR(kernel="poly", degree=3), SVR(kernel="sigmoid", gamma=0.01), NuSVR(C=10.0)],
    ids=["rbf", "linear", "poly", "sigmoid", "nu"],
)
def test_support_vector_regression_in_float64(machine):
    # skl2onnx's SVMRegressor runs in float32 only in ONNX Runtime: this is the kernel written out
    model = make_pipeline(StandardScaler(), machine).fit(X, Y)
    assert parity(model).max_abs <= 1e-15 * SCALE * 10


@pytest.mark.parametrize(
    "kernel_ridge",
    [KernelRidge(), KernelRidge(kernel="rbf", gamma=5.0), KernelRidge(kernel="poly", degree=2), KernelRidge(kernel="sigmoid", alpha=10.0, gamma=0.01)],
    ids=["linear", "rbf", "poly", "sigmoid"],
)
def test_kernel_ridge_in_float64(kernel_ridge):
    # its dual coefficients are large and of both signs: the sum loses about 1e-13 of the output's scale
    model = make_pipeline(StandardScaler(), kernel_ridge).fit(X, Y)
    assert parity(model).max_abs <= 1e-12 * SCALE


def test_kernel_ridge_with_several_targets():
    model = make_pipeline(StandardScaler(), KernelRidge(kernel="rbf", gamma=0.5)).fit(X, np.column_stack([Y, -Y / 3]))
    assert parity(model).max_abs <= 1e-12 * SCALE


def test_kernels_that_cannot_be_written_are_refused():
    laplacian = KernelRidge(kernel="laplacian").fit(X, Y)
    with pytest.raises(ww.ExportError, match=r"kernel='laplacian' cannot be exported; the exported kernels are linear"):
        ww.to_onnx(laplacian, X_sample=X[:3])
    callable_kernel = KernelRidge(kernel=lambda a, b: float(a @ b)).fit(X[:40], Y[:40])
    with pytest.raises(ww.ExportError, match="KernelRidge with a callable kernel cannot be exported"):
        ww.to_onnx(callable_kernel, X_sample=X[:3])
    precomputed = SVR(kernel="precomputed").fit(X @ X.T, Y)
    with pytest.raises(ww.ExportError, match="SVR with a precomputed or callable kernel cannot be exported"):
        ww.to_onnx(precomputed, X_sample=(X @ X.T)[:3])
