"""Kernel machines in either precision: ``SVR``, ``NuSVR``, ``SVC``, ``NuSVC``, ``OneClassSVM`` and ``KernelRidge``.

skl2onnx writes ``SVR`` with the ``SVMRegressor`` operator, which ONNX
Runtime runs in float32 only, and has no ``KernelRidge``. Here the kernel
between the input and the support vectors (or, for ``KernelRidge``, the
training rows) is computed with matrix products, then weighted by the dual
coefficients and shifted by the intercept: ``linear``, ``poly``, ``rbf`` and
``sigmoid`` kernels. A classifier's one-vs-one scores give libsvm's votes
(``predict``) and scikit-learn's ``decision_function`` (one-vs-rest by
default); with ``probability=True`` they give libsvm's Platt probabilities,
coupled as its ``multiclass_probability`` couples them (an ONNX ``Loop`` of
its rounds).

The libsvm models' kernels are libsvm's ``k_function`` step by step (scikit-learn
1.9's copy, which takes its dot products from BLAS ``ddot``): a dot product
is a ``MatMul`` (ONNX Runtime's adds each product with a fused multiply-add,
left to right, as OpenBLAS's ``ddot`` does below 16 columns), ``poly`` is
``powi``'s products (``(gamma * dot + coef0)`` squared and multiplied as the
bits of ``degree`` say), ``rbf`` is ``exp(-gamma * ddot(x - sv, x - sv))``
with ``to_onnx(..., exp="libm")``: OpenBLAS's ``ddot``,
:func:`wirework.export.openblas.ddot`, and glibc's ``exp``, which makes
``OneClassSVM``, ``SVR`` and ``NuSVR`` with an ``rbf`` kernel bit for bit;
else the squared differences added column by column, then ``Exp``.
``SVR``, ``NuSVR`` and ``OneClassSVM`` then add ``dual_coef * k`` support
vector after support vector (a ``CumSum``) and subtract ``rho``, as ``svm_predict_values`` does. So ``linear`` and ``poly``
kernels on fewer than 16 columns give libsvm's numbers bit for bit; from 16
columns OpenBLAS adds the products in its SIMD kernel's order (which depends
on the CPU), and ONNX Runtime's ``Exp`` and ``Tanh`` are not the C library's
(``rbf``, ``sigmoid``): there the results agree within about 1e-15 relative
to the terms added. ``KernelRidge`` follows scikit-learn's pairwise kernels
instead (``|x|^2 - 2 x.r + |r|^2``, ``Pow``, a matrix product).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.heads import binary_labels, class_at
from wirework.export.libm import c_exp
from wirework.export.openblas import ddot
from wirework.export.registry import register
from wirework.export.sklearn_trees import shared_scores

__all__: list[str] = []

_KERNELS = ("linear", "poly", "rbf", "sigmoid")
_OUTLIER_METHODS = ("predict", "decision_function", "score_samples")


def _kernel(
    g: GraphBuilder, x: str, rows: np.ndarray, kernel: Any, gamma: float, degree: float, coef0: float, *,
    libsvm: bool = False, dtype: Any = None,
) -> str:
    """``k(x_i, rows_j)`` for each input row and each of ``rows``: ``[N, len(rows)]``, in ``dtype`` (default: the
    graph's). ``libsvm``: as libsvm's ``k_function`` computes it (see the module's notes); else as scikit-learn's
    pairwise kernels do."""
    if not isinstance(kernel, str) or kernel not in _KERNELS:
        raise ExportError(
            f"A kernel machine with kernel={kernel!r} cannot be exported; the exported kernels are "
            f"{', '.join(_KERNELS)}."
        )
    rows = np.asarray(rows, dtype=np.float64)

    def const(value: Any, hint: str) -> str:
        return g.const(value, hint, dtype=dtype)

    if kernel == "rbf" and libsvm:
        return _libsvm_rbf(g, x, rows, float(gamma), const, np.dtype(dtype if dtype is not None else g.dtype))
    products = g.op("MatMul", [x, const(rows.T, "rows_t")], hint="products")
    if kernel == "linear":
        return products
    if kernel == "rbf":  # -gamma * (|x|^2 - 2 x.r + |r|^2), not below 0 before scaling, then exp
        norms = g.op("ReduceSum", [g.op("Mul", [x, x]), g.const([1], "axis")], keepdims=1, hint="input_norms")
        squared = g.op("Add", [g.op("Mul", [const(-2.0, "minus_two"), products]), norms], hint="distances")
        row_norms = const((rows * rows).sum(axis=1).reshape(1, -1), "row_norms")
        squared = g.op("Add", [squared, row_norms], hint="distances")
        squared = g.op("Max", [squared, const(0.0, "zero")], hint="distances")
        return g.op("Exp", [g.op("Mul", [squared, const(-float(gamma), "minus_gamma")])], hint="kernel")
    scaled = g.op("Add", [g.op("Mul", [products, const(float(gamma), "gamma")]), const(float(coef0), "coef0")])
    if kernel == "sigmoid":
        return g.op("Tanh", [scaled], hint="kernel")
    if not libsvm:
        return g.op("Pow", [scaled, const(float(degree), "degree")], hint="kernel")
    if int(degree) == 0:  # libsvm's powi(base, 0): 1 everywhere
        return g.op("Expand", [const(1.0, "one"), g.op("Shape", [scaled])], hint="kernel")
    return _powi(g, scaled, int(degree))


def _libsvm_rbf(g: GraphBuilder, x: str, rows: np.ndarray, gamma: float, const: Any, dtype: np.dtype) -> str:
    """libsvm's rbf ``k_function``: ``exp(-gamma * ddot(x - sv, x - sv))``. Where the export asks for the C
    library's ``exp`` (``exp="libm"``, :func:`~wirework.export.libm.c_exp`) the squared differences are added as
    OpenBLAS's ``ddot`` adds them (one fused chain below 16 columns), so the kernel is libsvm's bit for bit;
    otherwise one rounding at a time, column by column (``ddot``'s batch of ``1 x p`` products costs 13 to 25
    times the time of a batch, which ONNX Runtime's ``Exp`` would leave a few ulps off anyway)."""
    m, p = rows.shape
    if dtype != np.float64 or getattr(g, "exp_build", None) in (None, "onnx"):
        squared = None
        for j in range(p):
            difference = g.op("Sub", [g.columns(x, j, j + 1), const(rows[:, j].reshape(1, -1), "rows_column")])
            term = g.op("Mul", [difference, difference], hint="squared_difference")
            squared = term if squared is None else g.op("Add", [squared, term], hint="distances")
    else:
        wide = g.op("Unsqueeze", [x, g.const(np.array([1]), "middle_axis")], hint="rows")
        differences = g.op("Sub", [wide, const(rows.reshape(1, m, p), "support_vectors")], hint="differences")
        pairs = g.op("Reshape", [differences, g.const([-1, p], "pair_shape")], hint="pairs")
        squared = g.op("Reshape", [ddot(g, pairs, p), g.const([-1, m], "kernel_shape")], hint="distances")
    return c_exp(g, g.op("Mul", [squared, const(-gamma, "minus_gamma")], hint="scaled"))


def _powi(g: GraphBuilder, base: str, times: int) -> str:
    """libsvm's ``powi(base, times)`` for ``times >= 1``: ``ret *= tmp`` for each set bit of ``times`` from the
    lowest, ``tmp`` squared between them."""
    power, result = base, None
    while times > 0:
        if times % 2 == 1:
            result = power if result is None else g.op("Mul", [result, power], hint="kernel")
        times //= 2
        if times > 0:
            power = g.op("Mul", [power, power], hint="power")
    return result


def _libsvm_kernel(g: GraphBuilder, x: str, model: Any, dtype: Any = None) -> str:
    """The kernel of a fitted libsvm model between the input and its support vectors, as libsvm computes it."""
    name = type(model).__name__
    if model.kernel == "precomputed" or callable(model.kernel):
        raise ExportError(f"A {name} with a precomputed or callable kernel cannot be exported.")
    if getattr(model, "_sparse", False):
        raise ExportError(
            f"A {name} fit on a sparse matrix cannot be exported: libsvm's sparse kernels add the products of "
            "the nonzero entries only, in another order. Fit it on a dense array (X.toarray())."
        )
    return _kernel(g, x, model.support_vectors_, model.kernel, model._gamma, model.degree, model.coef0,
                   libsvm=True, dtype=dtype)


def _libsvm_sum(g: GraphBuilder, model: Any, x: str, dtype: Any = None) -> str:
    """``[N, 1]``: libsvm's ``svm_predict_values`` for regression and one-class models, ``sum += dual_coef[i] *
    k(x, SV[i])`` support vector after support vector from 0 (a ``CumSum`` adds left to right), then ``sum -=
    rho`` (``_intercept_`` is ``-rho``)."""
    values = _libsvm_kernel(g, x, model, dtype)
    coefficients = np.asarray(model._dual_coef_, dtype=np.float64).reshape(1, -1)
    n = coefficients.shape[1]
    terms = g.op("Mul", [values, g.const(coefficients, "dual_coef", dtype=dtype)], hint="terms")
    running = g.op("CumSum", [terms, g.const(np.array(1), "axis")], hint="running_sum")
    intercept = np.asarray(model._intercept_, dtype=np.float64).reshape(1, 1)
    return g.op("Add", [g.columns(running, n - 1, n), g.const(intercept, "minus_rho", dtype=dtype)], hint="libsvm")


@register(SVR, NuSVR, methods=lambda model: ("predict",))
def _convert_svr(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    return g.as_vector(_libsvm_sum(g, model, x))


@register(OneClassSVM, methods=lambda model: _OUTLIER_METHODS)
def _convert_one_class_svm(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """libsvm's decision value, computed in float64 whatever the export dtype (scikit-learn casts the input to
    float64): ``decision_function``; ``score_samples = decision_function + offset_``; ``predict`` 1 where the
    decision value is above 0, else -1, as libsvm's ``(sum > 0) ? 1 : -1`` (a decision of exactly 0 is -1)."""
    if method not in _OUTLIER_METHODS:
        raise ExportError(f"OneClassSVM exports {_OUTLIER_METHODS}. Received method {method!r}.")
    double = np.dtype(np.float64)

    def decision() -> str:
        inputs = x if g.dtype == double else g.cast(x, double)
        return g.as_vector(_libsvm_sum(g, model, inputs, double))

    value = shared_scores(g, model, x, decision)
    if method == "predict":
        return binary_labels(g, value, np.array([-1, 1]), strict=True, dtype=double)
    if method == "score_samples":
        offset = g.const(np.asarray(model.offset_, dtype=np.float64).reshape(1), "offset", dtype=double)
        value = g.op("Add", [value, offset], hint="score")
    return value if g.dtype == double else g.cast(value, g.dtype)


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
    values = _libsvm_kernel(g, x, model)
    scores = g.op("MatMul", [values, g.const(weights, "pair_coef")], hint="ovo")
    scores = g.op("Add", [scores, g.const(np.asarray(model._intercept_, dtype=np.float64).reshape(1, -1), "minus_rho")])
    zero = g.const(0.0, "zero")
    if method == "predict_proba":
        return _coupled(g, _pairwise(g, scores, model._probA, model._probB, k), k)
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



def _pairwise(g: GraphBuilder, scores: str, a: np.ndarray, b: np.ndarray, k: int) -> dict[tuple[int, int], str]:
    """libsvm's pairwise probabilities ``r[i][j]`` (``[N, 1]`` each, ``i != j``): for classes ``i < j``, Platt's
    sigmoid of their one-vs-one score as ``sigmoid_predict`` computes it (``exp(-f) / (1 + exp(-f))`` where ``f =
    score * A + B >= 0``, else ``1 / (1 + exp(f))``), clipped to ``[1e-7, 1 - 1e-7]``; ``r[j][i] = 1 - r[i][j]``."""
    f = g.op("Add", [g.op("Mul", [scores, g.const(np.reshape(a, (1, -1)), "prob_a")]), g.const(np.reshape(b, (1, -1)), "prob_b")])
    e = g.op("Exp", [g.op("Neg", [g.op("Abs", [f])])], hint="platt")  # exp(-f) where f >= 0, exp(f) below
    one = g.const(1.0, "one")
    grown = g.op("Add", [one, e])
    sigmoid = g.op("Where", [g.op("GreaterOrEqual", [f, g.const(0.0, "zero")]), g.op("Div", [e, grown]), g.op("Div", [one, grown])])
    least = 1e-7
    clipped = g.op("Min", [g.op("Max", [sigmoid, g.const(least, "min_prob")]), g.const(1 - least, "max_prob")], hint="pairwise")
    r: dict[tuple[int, int], str] = {}
    for p, (i, j) in enumerate((i, j) for i in range(k) for j in range(i + 1, k)):
        r[i, j] = g.columns(clipped, p, p + 1)
        r[j, i] = g.op("Sub", [one, r[i, j]], hint="pairwise")
    return r


def _coupled(g: GraphBuilder, r: dict[tuple[int, int], str], k: int) -> str:
    """libsvm's ``multiclass_probability`` (Wu, Lin and Weng's second method) of the pairwise probabilities, each
    row on its own: ``Q`` from ``r``, then from ``p = 1 / k`` at most ``max(100, k)`` rounds, each stopping the row
    when every ``|Qp_t - pQp|`` is below ``0.005 / k`` and else updating ``p`` class by class, the very operations
    in libsvm's order. The rounds are an ONNX ``Loop`` that ends when every row has stopped."""
    zero = g.const(np.zeros(1), "zero")
    q: dict[tuple[int, int], str] = {}
    for t in range(k):
        diagonal = zero
        for j in [*range(t), *range(t + 1, k)]:
            diagonal = g.op("Add", [diagonal, g.op("Mul", [r[j, t], r[j, t]])], hint="q_diagonal")
            q[t, j] = q[j, t] if j < t else g.op("Neg", [g.op("Mul", [r[j, t], r[t, j]])], hint="q")
        q[t, t] = diagonal
    rows = [g.op("Concat", [q[t, j] for j in range(k)], axis=1, hint="q_row") for t in range(k)]  # Q[t][:]
    columns = [g.op("Concat", [q[t, j] for t in range(k)], axis=1, hint="q_column") for j in range(k)]  # Q[:][j]

    body = GraphBuilder(g.dtype, "coupling")
    body._used = g._used  # one namespace: the body reads Q from the graph around it
    body._consts = dict(g._consts)
    info = g.onnx.helper.make_tensor_value_info
    p = g.fresh("coupling_p")  # fresh names: one Loop per classifier
    body.inputs = [
        info(g.fresh("coupling_round"), g.onnx.TensorProto.INT64, []),
        info(g.fresh("coupling_going"), g.onnx.TensorProto.BOOL, []),
        info(p, g.tensor_type(g.dtype), ["N", k]),
    ]
    qp = body.const(np.zeros(1), "zero")
    for j in range(k):  # Qp[t] = sum over j of Q[t][j] * p[j], every t at once
        qp = body.op("Add", [qp, body.op("Mul", [columns[j], body.columns(p, j, j + 1)])], hint="qp")
    pqp = body.const(np.zeros(1), "zero")
    for t in range(k):
        pqp = body.op("Add", [pqp, body.op("Mul", [body.columns(p, t, t + 1), body.columns(qp, t, t + 1)])], hint="pqp")
    error = body.op("ReduceMax", [body.op("Abs", [body.op("Sub", [qp, pqp])]), body.const([1], "axis")], keepdims=1)
    done = body.op("Less", [error, body.const(np.array([0.005 / k]), "eps")], hint="done")
    moved = p
    one = body.const(1.0, "one")
    for t in range(k):
        qp_t = body.columns(qp, t, t + 1)
        diff = body.op("Div", [body.op("Sub", [pqp, qp_t]), q[t, t]], hint="diff")
        mask = body.const((np.arange(k) == t).reshape(1, k), "class_mask", dtype=np.bool_)
        moved = body.op("Where", [mask, body.op("Add", [moved, diff]), moved], hint="p")
        grown = body.op("Add", [one, diff], hint="one_plus_diff")
        inner = body.op("Add", [body.op("Mul", [diff, q[t, t]]), body.op("Mul", [body.const(2.0, "two"), qp_t])])
        pqp = body.op("Div", [body.op("Div", [body.op("Add", [pqp, body.op("Mul", [diff, inner])]), grown]), grown], hint="pqp")
        qp = body.op("Div", [body.op("Add", [qp, body.op("Mul", [diff, rows[t]])]), grown], hint="qp")
        moved = body.op("Div", [moved, grown], hint="p")
    kept = body.op("Where", [done, p, moved], hint="coupled")
    stopped = body.op("ReduceMin", [body.cast(done, np.int64)], keepdims=0, hint="all_stopped")
    going = body.op("Equal", [stopped, body.const(np.array(0), "none")], hint="going")
    outputs = [info(body.op("Identity", [going]), g.onnx.TensorProto.BOOL, []), info(kept, g.tensor_type(g.dtype), ["N", k])]
    graph = g.onnx.helper.make_graph(body.nodes, "coupling", body.inputs, outputs, body.initializers)
    rounds = g.const(np.array(max(100, k)), "max_iter")
    uniform = g.op("Expand", [g.const(np.full((1, k), 1.0 / k), "uniform"), g.op("Shape", [columns[0]])], hint="p0")
    return g.op("Loop", [rounds, g.const(np.array(True), "go", dtype=np.bool_), uniform], body=graph, hint="coupled")
