"""Kernel machines in either precision: ``SVR``, ``NuSVR``, ``SVC``, ``NuSVC`` and ``KernelRidge``.

skl2onnx writes ``SVR`` with the ``SVMRegressor`` operator, which ONNX
Runtime runs in float32 only, and has no ``KernelRidge``. Here the kernel
between the input and the support vectors (or, for ``KernelRidge``, the
training rows) is computed with matrix products, then weighted by the dual
coefficients and shifted by the intercept: ``linear``, ``poly``, ``rbf`` and
``sigmoid`` kernels. A classifier's one-vs-one scores give libsvm's votes
(``predict``) and scikit-learn's ``decision_function`` (one-vs-rest by
default). The products and the exponential round otherwise than
libsvm's loops and NumPy's ``exp``, so predictions agree within about 1e-15
relative, not bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVC, SVR, NuSVC, NuSVR

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.heads import class_at
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


def _svc_methods(model: Any) -> tuple[str, ...]:
    proba = ("predict_proba",) if hasattr(model, "predict_proba") else ()  # probability=True
    return ("predict",) + proba + ("decision_function",)


@register(SVC, NuSVC, methods=_svc_methods)
def _convert_svc(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    # libsvm's one-vs-one scores: for classes i < j, the kernel against i's support vectors weighted by
    # dual_coef_[j - 1] plus against j's weighted by dual_coef_[i], minus rho; a vote for i when above 0
    if method == "predict_proba":
        raise ExportError(
            f"{type(model).__name__}.predict_proba cannot be exported exactly: libsvm couples its pairwise Platt "
            "probabilities by an iteration that stops at a tolerance (skl2onnx's form was up to 5e-7, 0.3% "
            "relative, off). Export methods=['predict'] or ['decision_function']."
        )
    if model.kernel == "precomputed" or callable(model.kernel):
        raise ExportError(f"A {type(model).__name__} with a precomputed or callable kernel cannot be exported.")
    classes = model.classes_
    k = len(classes)
    counts = np.asarray(model.n_support_, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    coef = np.asarray(model._dual_coef_, dtype=np.float64)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    weights = np.zeros((coef.shape[1], len(pairs)))
    for p, (i, j) in enumerate(pairs):
        weights[starts[i] : starts[i] + counts[i], p] = coef[j - 1, starts[i] : starts[i] + counts[i]]
        weights[starts[j] : starts[j] + counts[j], p] = coef[i, starts[j] : starts[j] + counts[j]]
    values = _kernel(g, x, model.support_vectors_, model.kernel, model._gamma, model.degree, model.coef0)
    scores = g.op("MatMul", [values, g.const(weights, "pair_coef")], hint="ovo")
    scores = g.op("Add", [scores, g.const(np.asarray(model._intercept_, dtype=np.float64).reshape(1, -1), "minus_rho")])
    zero = g.const(0.0, "zero")
    if method == "predict":  # libsvm: a vote for i where the score is above 0, else for j; the first most voted
        above = g.cast(g.op("Greater", [scores, zero], hint="vote_i"), np.float64)  # counts in float64
        below = g.op("Sub", [g.const(1.0, "one", dtype=np.float64), above], hint="vote_j")
        tally = np.zeros((len(pairs), k))
        against = np.zeros((len(pairs), k))
        for p, (i, j) in enumerate(pairs):
            tally[p, i], against[p, j] = 1.0, 1.0
        for_i = g.op("MatMul", [above, g.const(tally, "for_i", dtype=np.float64)])
        votes = g.op("Add", [for_i, g.op("MatMul", [below, g.const(against, "for_j", dtype=np.float64)])])
        return class_at(g, g.op("ArgMax", [votes], axis=1, keepdims=0, hint="winner"), classes)
    if k == 2:  # scikit-learn flips the sign of a binary score
        return g.as_vector(g.op("Neg", [scores], hint="decision"))
    if model.decision_function_shape == "ovo":
        return scores
    # _ovr_decision_function(dec < 0, -dec, k): votes, plus confidences added pair by pair, squashed
    negative = g.cast(g.op("Less", [scores, zero]), g.dtype)
    positive = g.op("Sub", [g.const(1.0, "one"), negative])
    confidences = g.op("Neg", [scores], hint="confidences")
    sums: list[Any] = [None] * k
    votes: list[Any] = [None] * k

    def accumulate(bucket: list[Any], c: int, value: str) -> None:
        bucket[c] = value if bucket[c] is None else g.op("Add", [bucket[c], value])

    for p, (i, j) in enumerate(pairs):
        confidence = g.columns(confidences, p, p + 1)
        accumulate(sums, i, g.op("Neg", [confidence]))
        accumulate(sums, j, confidence)
        accumulate(votes, i, g.columns(positive, p, p + 1))
        accumulate(votes, j, g.columns(negative, p, p + 1))
    total = g.op("Concat", sums, axis=1, hint="sum_of_confidences")
    counted = g.op("Concat", votes, axis=1, hint="votes")
    spread = g.op("Mul", [g.const(3.0, "three"), g.op("Add", [g.op("Abs", [total]), g.const(1.0, "one")])])
    squashed = g.op("Div", [total, spread], hint="squashed")
    return g.op("Add", [counted, squashed], hint="decision")

