"""Kernel machines exported: SVR, NuSVR, SVC, NuSVC, OneClassSVM and KernelRidge, against their native outputs."""

import warnings

import numpy as np
import pytest
from _outliers import assert_float32_scores, assert_unknown_method_refused, boundary_rows, run_outputs
from scipy import sparse
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.kernel_ridge import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM

import wirework as ww
from _glibc import needs_glibc_exp
from wirework.export.sklearn_kernels import _convert_one_class_svm

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


# -- OneClassSVM: libsvm's decision value, its labels and scores ---------------------------------------------------

OUTLIER_OUTPUTS = ["predict", "decision_function", "score_samples"]
OUTLIER_DATA = {"wine": load_wine, "diabetes": load_diabetes, "breast_cancer": load_breast_cancer}
ONE_CLASS = {
    "rbf_scale": OneClassSVM(),
    "rbf_auto": OneClassSVM(gamma="auto", nu=0.1),
    "rbf_float": OneClassSVM(gamma=0.5, nu=0.05),
    "linear": OneClassSVM(kernel="linear", nu=0.2),
    "poly": OneClassSVM(kernel="poly", degree=3),
    "poly_coef0": OneClassSVM(kernel="poly", degree=4, coef0=1.0, gamma="auto"),
    "sigmoid": OneClassSVM(kernel="sigmoid", gamma=0.01, coef0=0.5),
}


def _scaled(data):
    return StandardScaler().fit_transform(OUTLIER_DATA[data](return_X_y=True)[0])


def _terms(model, rows) -> np.ndarray:
    """Per row, the sum of the magnitudes of the terms libsvm adds: ``sum_i |dual_coef_i * k(x, sv_i)|``."""
    params = {"linear": {}, "rbf": {"gamma": model._gamma}, "sigmoid": {"gamma": model._gamma, "coef0": model.coef0},
              "poly": {"gamma": model._gamma, "coef0": model.coef0, "degree": model.degree}}[model.kernel]
    values = pairwise_kernels(rows, model.support_vectors_, metric=model.kernel, **params)
    return np.abs(values * model.dual_coef_).sum(axis=1)


@pytest.mark.parametrize("setting", list(ONE_CLASS))
@pytest.mark.parametrize("data", list(OUTLIER_DATA))
def test_one_class_svm_matches_libsvm(data, setting):
    # libsvm's kernel step by step and its sum support vector after support vector: linear and poly kernels on
    # fewer than 16 columns bit for bit (a MatMul's fused multiply-adds are OpenBLAS's ddot there); otherwise
    # within 1e-15 of the terms added (measured up to 6.9e-16), labels exact on every row of the data
    X = _scaled(data)
    model = clone(ONE_CLASS[setting]).fit(X)
    exported = ww.to_onnx(model)
    assert [o.name for o in exported.graph.output] == OUTLIER_OUTPUTS
    out = run_outputs(exported, X)
    np.testing.assert_array_equal(out["predict"], model.predict(X))
    assert out["predict"].dtype == np.int64
    decision = model.decision_function(X)
    if model.kernel in ("linear", "poly") and X.shape[1] < 16:
        np.testing.assert_array_equal(out["decision_function"], decision)
    assert np.all(np.abs(out["decision_function"] - decision) <= 1e-15 * _terms(model, X))
    np.testing.assert_array_equal(out["score_samples"], out["decision_function"] + model.offset_)
    report = ww.onnx.check_parity(model, exported, X)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["score_samples"].max_abs <= 1e-12


@pytest.mark.parametrize("setting", ["linear", "poly", "poly_coef0", "rbf_scale", "sigmoid"])
def test_one_class_svm_labels_rows_on_its_boundary(setting):
    # rows a float64 step apart on either side of the boundary (a decision of exactly 0 is -1, as libsvm's
    # `sum > 0`): the bit-for-bit kernels label every one as natively; with exp or tanh a row can take the other
    # label only when its decision is within the score's difference of 0 (measured: |decision| <= 7.8e-14)
    X = _scaled("wine")
    model = clone(ONE_CLASS[setting]).fit(X)
    rows = boundary_rows(model, X)
    decision = model.decision_function(rows)
    assert np.abs(decision).max() < 1e-13
    native = model.predict(rows)
    assert np.all(native[decision == 0] == -1)
    out = run_outputs(ww.to_onnx(model), rows)
    differ = out["predict"] != native
    if model.kernel in ("linear", "poly"):
        assert not differ.any()
    assert np.all(np.abs(decision[differ]) <= np.abs(out["decision_function"] - decision)[differ])


@pytest.mark.parametrize("data", list(OUTLIER_DATA))
def test_a_float32_one_class_svm_labels_float32_rows_as_natively(data):
    # scikit-learn casts a float32 input to float64 for libsvm; the file too, its scores cast back at the end
    X = _scaled(data)
    model = OneClassSVM(nu=0.2).fit(X)
    rows = X.astype(np.float32)
    out = run_outputs(ww.to_onnx(model, dtype="float32"), rows)
    np.testing.assert_array_equal(out["predict"], model.predict(rows))
    assert_float32_scores(out, model, rows)


def test_a_pipeline_ending_in_a_one_class_svm_exports_whole():
    X, _ = load_breast_cancer(return_X_y=True)
    pipe = ww.Pipeline([("scale", StandardScaler()), ("outliers", OneClassSVM(nu=0.1))]).fit(X)
    exported = ww.to_onnx(pipe)
    assert [o.name for o in exported.graph.output] == OUTLIER_OUTPUTS
    report = ww.onnx.check_parity(pipe, exported, X)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["decision_function"].max_abs <= 1e-13
    assert report.outputs["score_samples"].max_abs <= 1e-13


def test_support_vector_regression_adds_as_libsvm_does():
    # SVR shares the one-class sum (svm_predict_values): linear and poly kernels on the diabetes data's 10 columns
    # are bit for bit now; a matrix product against the dual coefficients left the linear one 1.3e-12 off on 409
    # of the 442 rows
    Xs = StandardScaler().fit_transform(X)
    for machine in (SVR(kernel="linear", C=10.0), SVR(kernel="poly", degree=3), NuSVR(kernel="poly", degree=2)):
        model = clone(machine).fit(Xs, Y)
        assert ww.onnx.check_parity(model, ww.to_onnx(model), Xs).exact


def test_libsvm_models_that_cannot_be_written_are_refused():
    A = StandardScaler().fit_transform(X)
    sparse_fit = OneClassSVM().fit(sparse.csr_matrix(A))
    with pytest.raises(ww.ExportError, match=r"A OneClassSVM fit on a sparse matrix cannot be exported: libsvm's "
                                             r"sparse kernels .* Fit it on a dense array"):
        ww.to_onnx(sparse_fit)
    with pytest.raises(ww.ExportError, match="A SVR fit on a sparse matrix cannot be exported"):
        ww.to_onnx(SVR().fit(sparse.csr_matrix(A), Y), X_sample=A[:3])
    with pytest.raises(ww.ExportError, match="A OneClassSVM with a precomputed or callable kernel cannot be exported"):
        ww.to_onnx(OneClassSVM(kernel="precomputed").fit(A @ A.T))
    assert_unknown_method_refused(OneClassSVM().fit(A), _convert_one_class_svm, "predict_proba")


def test_a_polynomial_kernel_of_degree_0_is_1_as_libsvm_s_powi_gives_it():
    A = StandardScaler().fit_transform(X)
    model = OneClassSVM(kernel="poly", degree=0).fit(A)
    assert ww.onnx.check_parity(model, ww.to_onnx(model), A).exact


@needs_glibc_exp
@pytest.mark.parametrize("data", list(OUTLIER_DATA))
def test_rbf_kernels_are_bit_for_bit_with_glibcs_exp(data):
    """libsvm's rbf kernel is exp(-gamma * ddot(x - sv, x - sv)): the squared differences added by OpenBLAS's
    ddot (one fused chain below 16 columns), then the C library's exp. Added one rounding at a time, the distances
    differed (14 of wine's first 40 decisions); with exp="libm" the one-class and regression scores are now
    libsvm's bit for bit (breast cancer: ddot's lanes on this machine's OpenBLAS core type)."""
    X = _scaled(data)
    for model in (OneClassSVM(nu=0.1).fit(X), OneClassSVM(gamma=0.05).fit(X), SVR().fit(X, X[:, 0]),
                  NuSVR(gamma="auto").fit(X, X[:, 1])):
        exported = ww.to_onnx(model, exp="libm")
        for rows in (X, X[:1]):
            assert ww.onnx.check_parity(model, exported, rows).exact, (model, len(rows))
