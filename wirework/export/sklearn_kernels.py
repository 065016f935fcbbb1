"""Kernel machines in either precision: ``SVR``, ``NuSVR`` and ``KernelRidge``.

skl2onnx writes ``SVR`` with the ``SVMRegressor`` operator, which ONNX
Runtime runs in float32 only, and has no ``KernelRidge``. Here the kernel
between the input and the support vectors (or, for ``KernelRidge``, the
training rows) is computed with matrix products, then weighted by the dual
coefficients and shifted by the intercept: ``linear``, ``poly``, ``rbf`` and
``sigmoid`` kernels. The products and the exponential round otherwise than
libsvm's loops and NumPy's ``exp``, so predictions agree within about 1e-15
relative, not bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR, NuSVR

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.registry import register

__all__: list[str] = []

_KERNELS = ("linear", "poly", "rbf", "sigmoid")


def _kernel(g: GraphBuilder, x: str, rows: np.ndarray, kernel: Any, gamma: float, degree: float, coef0: float) -> str:
    """``k(x_i, rows_j)`` for each input row and each of ``rows``: ``[N, len(rows)]``."""
    if not isinstance(kernel, str) or kernel not in _KERNELS:
        raise ExportError(
            f"A kernel machine with kernel={kernel!r} cannot be exported; the exported kernels are "
            f"{', '.join(_KERNELS)}."
        )
    rows = np.asarray(rows, dtype=np.float64)
    products = g.op("MatMul", [x, g.const(rows.T, "rows_t")], hint="products")
    if kernel == "linear":
        return products
    if kernel == "rbf":  # -gamma * (|x|^2 - 2 x.r + |r|^2), not below 0 before scaling, then exp
        norms = g.op("ReduceSum", [g.op("Mul", [x, x]), g.const([1], "axis")], keepdims=1, hint="input_norms")
        squared = g.op("Add", [g.op("Mul", [g.const(-2.0, "minus_two"), products]), norms], hint="distances")
        row_norms = g.const((rows * rows).sum(axis=1).reshape(1, -1), "row_norms")
        squared = g.op("Add", [squared, row_norms], hint="distances")
        squared = g.op("Max", [squared, g.const(0.0, "zero")], hint="distances")
        return g.op("Exp", [g.op("Mul", [squared, g.const(-float(gamma), "minus_gamma")])], hint="kernel")
    scaled = g.op("Add", [g.op("Mul", [products, g.const(float(gamma), "gamma")]), g.const(float(coef0), "coef0")])
    if kernel == "poly":
        return g.op("Pow", [scaled, g.const(float(degree), "degree")], hint="kernel")
    return g.op("Tanh", [scaled], hint="kernel")


@register(SVR, NuSVR, methods=lambda model: ("predict",))
def _convert_svr(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    # libsvm's sum over the support vectors of dual_coef_ * k(x, sv), plus intercept_ (-rho)
    if model.kernel == "precomputed" or callable(model.kernel):
        raise ExportError(f"A {type(model).__name__} with a precomputed or callable kernel cannot be exported.")
    values = _kernel(g, x, model.support_vectors_, model.kernel, model._gamma, model.degree, model.coef0)
    weighted = g.op("MatMul", [values, g.const(np.asarray(model.dual_coef_, dtype=np.float64).T, "dual_coef")])
    return g.as_vector(g.op("Add", [weighted, g.const(np.atleast_1d(model.intercept_), "intercept")], hint="svr"))


@register(KernelRidge, methods=lambda model: ("predict",))
def _convert_kernel_ridge(model: KernelRidge, method: str, g: GraphBuilder, x: str) -> str:
    # k(x, X_fit_) @ dual_coef_, the kernel as scikit-learn's pairwise kernels compute it (gamma None: 1 / n_features)
    if callable(model.kernel):
        raise ExportError("A KernelRidge with a callable kernel cannot be exported.")
    fit_rows = np.asarray(model.X_fit_, dtype=np.float64)
    gamma = model.gamma if model.gamma is not None else 1.0 / fit_rows.shape[1]
    values = _kernel(g, x, fit_rows, model.kernel, gamma, model.degree, model.coef0)
    coefficients = np.asarray(model.dual_coef_, dtype=np.float64)
    out = g.op("MatMul", [values, g.const(coefficients.reshape(len(fit_rows), -1), "dual_coef")], hint="kernel_ridge")
    return g.as_vector(out) if coefficients.ndim == 1 else out
