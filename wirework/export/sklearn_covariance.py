"""scikit-learn's ``EllipticEnvelope``: its squared Mahalanobis distances as scikit-learn and SciPy compute them.

Facts of scikit-learn 1.9 and SciPy 1.17 this module reproduces, each
checked bit for bit against the native outputs in
``tests/export/test_sklearn_covariance.py``:

- ``score_samples`` is ``-self.mahalanobis(X)`` (``MinCovDet``'s, inherited
  from ``EmpiricalCovariance``): ``pairwise_distances(X, location_[None],
  metric="mahalanobis", VI=get_precision())`` squared. scikit-learn hands
  that metric to SciPy's ``cdist``, which computes, for each row,
  ``d = x - location_``, then ``b[i] = sum_j d[j] * VI[i, j]`` for every
  ``i`` and ``s = sum_i d[i] * b[i]``, and returns ``sqrt(s)``;
  scikit-learn squares it (``dist ** 2`` of an array: ``dist * dist``), so
  ``score_samples`` is ``-(sqrt(s) * sqrt(s))``, not ``-s``.
- SciPy's compiled loop adds each of those sums in two lanes (the products
  at even and at odd positions, each lane from 0 left to right), then the
  two lanes, then the last product when the count is odd. The graph adds
  them in that order, one ``[N, n_features]`` column at a time, so every
  ``b[i]`` and ``s`` is SciPy's. A ``MatMul`` would not: ONNX Runtime's
  adds the products left to right with fused multiply-adds.
- ``decision_function = score_samples - offset_``; ``predict`` is 1 where
  that is ``>= 0``, else -1 (a decision of exactly 0 is an inlier).
- scikit-learn computes in float64 whatever the input's dtype (``location_``
  is float64, so ``check_pairwise_arrays`` casts a float32 input up); so
  does the file, its scores cast to the export dtype at the end.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.covariance import EllipticEnvelope

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.heads import binary_labels
from wirework.export.registry import register
from wirework.export.sklearn_trees import shared_scores

__all__: list[str] = []

_METHODS = ("predict", "decision_function", "score_samples")


def _two_lane_sum(g: GraphBuilder, terms: list[str], dtype: Any = None) -> str:
    """``terms`` (equal shapes) added as SciPy's compiled distance loops add a sum: the terms at even and at odd
    positions each from 0 left to right, then the two lanes, then the last term when their number is odd."""
    if not terms:
        raise ExportError("A two-lane sum needs at least one term.")
    zero = g.const(np.zeros(1), "zero", dtype=dtype)
    paired = len(terms) - len(terms) % 2
    even = g.added([zero, *terms[0:paired:2]])
    odd = g.added([zero, *terms[1:paired:2]])
    total = g.op("Add", [even, odd], hint="lanes")
    return g.op("Add", [total, terms[-1]], hint="lanes") if len(terms) % 2 else total


def _squared_distances(g: GraphBuilder, model: Any, x: str) -> str:
    """``[N]``: ``model.mahalanobis(x)`` for a float64 ``x``, step by step as SciPy's ``cdist`` and scikit-learn
    compute it (see the module's notes)."""
    double = np.float64
    precision = np.asarray(model.get_precision(), dtype=np.float64)
    location = np.asarray(model.location_, dtype=np.float64).reshape(1, -1)
    n = precision.shape[0]
    centred = g.op("Sub", [x, g.const(location, "location", dtype=double)], hint="centred")
    columns = [g.columns(centred, j, j + 1) for j in range(n)]
    # b[:, i] = sum over j of d[:, j] * VI[i, j], every i at once: term j is d[:, j] times VI's column j as a row
    terms = [g.op("Mul", [columns[j], g.const(precision[:, j].reshape(1, n), "precision_column", dtype=double)],
                  hint="gemv_term") for j in range(n)]
    projected = _two_lane_sum(g, terms, double)
    products = g.op("Mul", [centred, projected], hint="quadratic_terms")
    total = _two_lane_sum(g, [g.columns(products, i, i + 1) for i in range(n)], double)
    distance = g.op("Sqrt", [total], hint="distance")
    return g.as_vector(g.op("Mul", [distance, distance], hint="squared_distance"))


@register(EllipticEnvelope, methods=lambda model: _METHODS)
def _convert_elliptic_envelope(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """``-mahalanobis`` (``score_samples``), minus ``offset_`` (``decision_function``), its labels (``predict``):
    in float64 whatever the export dtype, as natively."""
    if method not in _METHODS:
        raise ExportError(f"EllipticEnvelope exports {_METHODS}. Received method {method!r}.")
    double = np.dtype(np.float64)

    def score() -> str:
        inputs = x if g.dtype == double else g.cast(x, double)
        return g.op("Neg", [_squared_distances(g, model, inputs)], hint="score")

    value = shared_scores(g, model, x, score)
    if method != "score_samples":
        offset = g.const(np.array([float(model.offset_)]), "offset", dtype=double)
        value = g.op("Sub", [value, offset], hint="decision")
    if method == "predict":
        return binary_labels(g, value, np.array([-1, 1]), strict=False, dtype=double)
    return value if g.dtype == double else g.cast(value, g.dtype)
