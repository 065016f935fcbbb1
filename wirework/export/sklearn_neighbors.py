"""scikit-learn's ``LocalOutlierFactor(novelty=True)``: its neighbours among the training rows and their densities.

Facts of scikit-learn 1.9 this module reproduces, each checked bit for bit against the native outputs in
``tests/export/test_sklearn_neighbors.py``:

- ``score_samples(X)`` finds each row's ``n_neighbors_`` nearest training rows (``kneighbors``; a training
  row given as ``X`` is its own nearest neighbour), then ``reach = maximum(distances, dist_k[neighbours])``
  with ``dist_k`` the training rows' distance to their own ``n_neighbors_``-th neighbour, found at fit
  (``_distances_fit_X_[:, -1]``), ``lrd = 1 / (mean(reach, axis=1) + 1e-10)``, and ``-mean(_lrd[neighbours] /
  lrd[:, None], axis=1)``. Each ``mean`` is NumPy's pairwise sum of a C-ordered row, divided by the count
  (:meth:`~wirework.export.builder.GraphBuilder.row_sum`).
- ``decision_function = score_samples - offset_``; ``predict`` is 1 where that is ``>= 0``, else -1.
- The search compares reduced distances and returns the distances from them. The trees (``kd_tree``,
  ``ball_tree``; ``algorithm="auto"`` picks one below 16 columns) compute a Euclidean one as the squared
  differences added column by column from the first, then ``sqrt``. The brute search (``"auto"`` from 16
  columns) computes it as ``max(0, (|x|^2 + -2 x.t) + |t|^2)`` (its ``EuclideanArgKmin``): ``|x|^2`` by BLAS
  ``ddot``, ``x.t`` by ``dgemm``, whose kernel adds the products of each pair in one fused chain, as ONNX
  Runtime's ``MatMul`` does (:mod:`wirework.export.openblas` writes ``ddot``'s order). A Manhattan distance
  (``p=1``) is the absolute differences added column by column, in both.
- The graph takes the ``n_neighbors_`` smallest reduced distances of each row with ``TopK`` over the
  distances to every training row. Among training rows at the same distance ``TopK`` takes the first ones;
  the trees may take others, and a different neighbour changes the scores. The native search sorts equal
  distances in any order, which may change the last bit of a mean. A ``PrecisionWarning`` at export says when
  the training rows hold such distances (a training row whose ``n_neighbors_``-th and next neighbours are at
  the same distance: repeated rows, integer-valued data).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.neighbors import LocalOutlierFactor

from wirework.errors import ExportError, PrecisionWarning
from wirework.export.builder import GraphBuilder
from wirework.export.heads import binary_labels
from wirework.export.openblas import ddot
from wirework.export.registry import register
from wirework.export.sklearn_trees import shared_scores

__all__: list[str] = []

_METHODS = ("predict", "decision_function", "score_samples")
_METRICS = ("euclidean", "manhattan")
_DOUBLE = np.dtype(np.float64)


def _methods(model: Any) -> tuple[str, ...]:
    """A novelty detector's labels and two scores; nothing for ``novelty=False``, which scores no new rows."""
    return _METHODS if getattr(model, "novelty", False) else ()


def _refusal(model: Any) -> str | None:
    """Why ``novelty=False`` exports nothing, and what to do."""
    if getattr(model, "novelty", False):
        return None
    return (
        "A LocalOutlierFactor with novelty=False scores only its training rows (fit_predict, "
        "negative_outlier_factor_) and has no predict, decision_function or score_samples for new rows. Fit "
        "LocalOutlierFactor(novelty=True) to score new rows, and export that."
    )


def _training_rows(model: Any, g: GraphBuilder) -> np.ndarray:
    """The training rows, once the model is one the graph computes as natively; else an ``ExportError``."""
    metric, params = model.effective_metric_, dict(model.effective_metric_params_ or {})
    if metric not in _METRICS or params:
        raise ExportError(
            f"A LocalOutlierFactor with metric={model.metric!r} (p={model.p!r}, metric_params="
            f"{model.metric_params!r}) cannot be exported; the exported distances are 'euclidean' (the default, "
            "minkowski with p=2) and 'manhattan' (p=1), without metric_params. Fit it with one of those."
        )
    fit_rows = model._fit_X
    if sparse.issparse(fit_rows):
        raise ExportError(
            "A LocalOutlierFactor fit on a sparse matrix cannot be exported: its search adds the products of the "
            "nonzero entries only. Fit it on a dense array (X.toarray())."
        )
    if fit_rows.dtype != np.float64 or g.dtype != _DOUBLE:
        raise ExportError(
            f"A LocalOutlierFactor exports in float64 only (fit on {fit_rows.dtype} rows, export dtype "
            f"{g.dtype}): scikit-learn rounds a float32 input's distances to float32 and searches mixed types "
            "with other formulas. Fit it on float64 rows and export it with dtype='float64'."
        )
    if model._fit_method not in ("kd_tree", "ball_tree", "brute"):
        raise ExportError(f"A LocalOutlierFactor searching with {model._fit_method!r} cannot be exported.")
    return np.asarray(fit_rows, dtype=np.float64)


def _columnwise(g: GraphBuilder, x: str, rows: np.ndarray, metric: str) -> str:
    """``[N, n]``: the squared (``euclidean``) or absolute (``manhattan``) differences of each input row and each
    of ``rows``, added column by column from the first, as the trees' (and the brute Manhattan) loops add them."""
    total = None
    for j in range(rows.shape[1]):
        difference = g.op("Sub", [g.columns(x, j, j + 1), g.const(rows[:, j].reshape(1, -1), "rows_column")])
        if metric == "euclidean":
            term = g.op("Mul", [difference, difference], hint="squared_difference")
        else:
            term = g.op("Abs", [difference], hint="absolute_difference")
        total = term if total is None else g.op("Add", [total, term], hint="reduced_distances")
    return total


def _reduced_distances(g: GraphBuilder, model: Any, x: str, rows: np.ndarray) -> str:
    """``[N, n]``: what the native search compares for each input row and each training row."""
    metric = model.effective_metric_
    if metric != "euclidean" or model._fit_method != "brute":
        return _columnwise(g, x, rows, metric)
    width = rows.shape[1]
    inputs = ddot(g, x, width)  # |x|^2
    training = g.op("Transpose", [ddot(g, g.const(rows, "training_rows", dtype=_DOUBLE), width)], perm=[1, 0])
    middle = g.op("Mul", [g.op("MatMul", [x, g.const(rows.T, "training_rows_t", dtype=_DOUBLE)], hint="products"),
                          g.const(np.array([-2.0]), "minus_two", dtype=_DOUBLE)], hint="middle_terms")
    total = g.op("Add", [g.op("Add", [inputs, middle], hint="squared_distances"), training], hint="squared_distances")
    return g.op("Max", [total, g.const(np.zeros(1), "zero", dtype=_DOUBLE)], hint="squared_distances")


def _mean(g: GraphBuilder, value: str, width: int) -> str:
    """``[N, 1]``: NumPy's ``mean(axis=1)`` of a C-ordered ``[N, width]`` value."""
    return g.op("Div", [g.row_sum(value, width), g.const(np.array([float(width)]), "count", dtype=_DOUBLE)],
                hint="mean")


def _warn_ties(model: Any) -> None:
    """A :class:`~wirework.errors.PrecisionWarning` when a training row has two neighbours at the distance of its
    ``n_neighbors_``-th: data whose neighbours tie, so input rows may too, and the file and the native search
    may then take different neighbours."""
    k, n = int(model.n_neighbors_), int(model.n_samples_fit_)
    if k + 1 > n - 1:  # every other training row is a neighbour: none is left out
        return
    distances, _ = model.kneighbors(n_neighbors=k + 1)
    tied = int(np.sum(distances[:, k - 1] == distances[:, k]))
    if tied:
        warnings.warn(
            f"LocalOutlierFactor: {tied} of its {n} training rows have their {k}th and {k + 1}th nearest training "
            "rows at the same distance (repeated rows, values on a grid). Among rows at equal distances from an "
            "input row the file takes the first ones and scikit-learn's search may take others, so an input row "
            "with such ties can score otherwise (on the digits data 33 of 899 rows, by up to 0.023). Rows without "
            "ties score bit for bit.",
            PrecisionWarning,
            stacklevel=5,
        )


def _scores(g: GraphBuilder, model: Any, x: str) -> str:
    """``[N]``: ``score_samples`` (see the module's notes)."""
    rows = _training_rows(model, g)
    k = int(model.n_neighbors_)
    _warn_ties(model)
    reduced = _reduced_distances(g, model, x, rows)
    nearest, neighbours = g.op("TopK", [reduced, g.const(np.array([k]), "k")], axis=1, largest=0, sorted=1,
                               outputs=2, hint="neighbours")
    distances = g.op("Sqrt", [nearest], hint="distances") if model.effective_metric_ == "euclidean" else nearest
    kth = np.asarray(model._distances_fit_X_, dtype=np.float64)[:, k - 1]
    reach = g.op("Max", [distances, g.op("Gather", [g.const(kth, "training_kth_distance", dtype=_DOUBLE),
                                                   neighbours], axis=0)], hint="reach_distances")
    one = g.const(np.array([1.0]), "one", dtype=_DOUBLE)
    density = g.op("Div", [one, g.op("Add", [_mean(g, reach, k), g.const(np.array([1e-10]), "guard",
                                                                         dtype=_DOUBLE)])], hint="density")
    training_density = g.const(np.asarray(model._lrd, dtype=np.float64), "training_density", dtype=_DOUBLE)
    ratios = g.op("Div", [g.op("Gather", [training_density, neighbours], axis=0), density], hint="density_ratios")
    return g.as_vector(g.op("Neg", [_mean(g, ratios, k)], hint="score"))


@register(LocalOutlierFactor, methods=_methods, refusal=_refusal)
def _convert_local_outlier_factor(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """``score_samples``, minus ``offset_`` (``decision_function``), its labels (``predict``), in float64."""
    if method not in _methods(model):
        raise ExportError(f"LocalOutlierFactor exports {_methods(model)}. Received method {method!r}."
                          + (" " + _refusal(model) if _refusal(model) else ""))
    value = shared_scores(g, model, x, lambda: _scores(g, model, x))
    if method != "score_samples":
        offset = g.const(np.array([float(model.offset_)]), "offset", dtype=_DOUBLE)
        value = g.op("Sub", [value, offset], hint="decision")
    if method == "predict":
        return binary_labels(g, value, np.array([-1, 1]), strict=False, dtype=_DOUBLE)
    return value
