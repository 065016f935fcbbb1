"""Kernel machines exported in float64: SVR, NuSVR and KernelRidge, against their predictions."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.kernel_ridge import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR, NuSVC, NuSVR

import wirework as ww

pytest.importorskip("onnxruntime")

X, Y = load_diabetes(return_X_y=True)
X_CANCER, Y_CANCER = load_breast_cancer(return_X_y=True)
X_IRIS, Y_IRIS = load_iris(return_X_y=True)
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


@pytest.mark.parametrize("shape", ["ovr", "ovo"])
@pytest.mark.parametrize("machine", [SVC(), SVC(kernel="poly"), NuSVC()], ids=["rbf", "poly", "nu"])
@pytest.mark.parametrize("data", ["binary", "multiclass"])
def test_support_vector_classifiers_vote_as_libsvm(machine, shape, data):
    # one-vs-one scores, libsvm's votes for the labels (exact), scikit-learn's decision_function (ovr by default)
    A, b = (X_CANCER, Y_CANCER) if data == "binary" else (X_IRIS, np.array(["setosa", "versicolor", "virginica"])[Y_IRIS])
    model = make_pipeline(StandardScaler(), clone(machine).set_params(decision_function_shape=shape)).fit(A, b)
    exported = ww.to_onnx(model, X_sample=A[:3], methods=["predict", "decision_function"])
    report = ww.onnx.check_parity(model, exported, A)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["decision_function"].max_abs <= 1e-12


def test_a_calibrated_support_vector_classifier():
    calibrated = make_pipeline(StandardScaler(), CalibratedClassifierCV(SVC(), cv=3)).fit(X_CANCER, Y_CANCER)
    assert ww.onnx.check_parity(calibrated, ww.to_onnx(calibrated, X_sample=X_CANCER[:3]), X_CANCER).max_abs <= 1e-12


def _platt(machine, A, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # probability=True is deprecated in scikit-learn 1.9
        return make_pipeline(StandardScaler(), clone(machine).set_params(probability=True, random_state=0)).fit(A, b)


@pytest.mark.parametrize(
    "machine", [SVC(), SVC(kernel="linear"), SVC(kernel="poly"), NuSVC(nu=0.1)], ids=["rbf", "linear", "poly", "nu"]
)
@pytest.mark.parametrize("data", ["binary", "three classes", "ten classes"])
def test_platt_probabilities_are_coupled_as_libsvm_couples_them(machine, data):
    # libsvm's sigmoid of each one-vs-one score, clipped, then Wu, Lin and Weng's coupling round by round (two
    # classes too), each row stopping where libsvm's test stops it: within 1e-13 (measured up to 1.1e-14 on
    # the digits), labels exact; it was refused
    A, b = {
        "binary": (X_CANCER, Y_CANCER),
        "three classes": (X_IRIS, np.array(["setosa", "versicolor", "virginica"])[Y_IRIS]),
        "ten classes": load_digits(return_X_y=True),
    }[data]
    model = _platt(machine, A, b)
    report = ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=A[:3]), A)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["predict_proba"].max_abs <= 1e-13
    one_row = ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=A[:3]), A[7:8])
    assert one_row.outputs["predict_proba"].max_abs <= 1e-13


def test_platt_probabilities_in_float32_and_inside_a_network():
    model = _platt(SVC(), X_IRIS, Y_IRIS)
    single = ww.to_onnx(model, X_sample=X_IRIS[:3].astype(np.float32), dtype="float32")
    assert ww.onnx.check_parity(model, single, X_IRIS.astype(np.float32)).outputs["predict_proba"].max_abs <= 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        stack = ww.Stack(
            [("svc", SVC(probability=True, random_state=0)), ("other", NuSVC(probability=True, random_state=0))],
            LogisticRegression(),
        ).fit(StandardScaler().fit_transform(X_IRIS), Y_IRIS)
    scaled = StandardScaler().fit_transform(X_IRIS)
    assert ww.onnx.check_parity(stack, ww.to_onnx(stack), scaled).outputs["predict_proba"].max_abs <= 1e-12
