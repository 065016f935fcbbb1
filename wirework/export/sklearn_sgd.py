"""scikit-learn's ``SGDOneClassSVM``: its linear decision value as NumPy and OpenBLAS compute it.

Facts of scikit-learn 1.9 this module reproduces, each checked bit for bit against the native outputs in
``tests/export/test_sklearn_sgd.py``:

- ``decision_function`` is ``safe_sparse_dot(X, coef_.T) - offset_``: for a dense ``X``, NumPy's ``X @
  coef_`` (a matrix times a vector: OpenBLAS's ``ddot`` for one row, ``dgemv_t`` for more, each adding the
  products in its kernel's order; :func:`~wirework.export.openblas.matrix_vector` writes those orders), then
  ``offset_`` subtracted.
- ``score_samples = decision_function + offset_``: the subtraction and the addition both rounded, so not
  ``X @ coef_`` itself.
- ``predict`` is 1 where the decision value is ``>= 0``, else -1 (a decision of exactly 0 is an inlier).
- ``validate_data`` keeps a float32 input, and NumPy casts it to float64 for the product with a float64
  ``coef_`` (a model fit on float64 rows); the file does the same, its scores cast to float32 at the end. A
  model fit on float32 rows has a float32 ``coef_``: a float64 input takes it cast to float64 (the file
  too), a float32 input a float32 product (``sgemv``), which the file does not write.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.linear_model import SGDOneClassSVM

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.heads import binary_labels
from wirework.export.openblas import matrix_vector
from wirework.export.registry import register
from wirework.export.sklearn_trees import shared_scores

__all__: list[str] = []

_METHODS = ("predict", "decision_function", "score_samples")


@register(SGDOneClassSVM, methods=lambda model: _METHODS)
def _convert_sgd_one_class_svm(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """``X @ coef_ - offset_`` (``decision_function``), plus ``offset_`` (``score_samples``), its labels
    (``predict``): in float64 whatever the export dtype, as natively."""
    if method not in _METHODS:
        raise ExportError(f"SGDOneClassSVM exports {_METHODS}. Received method {method!r}.")
    coef = np.asarray(model.coef_)
    if coef.dtype != np.float64 and g.dtype != np.float64:
        raise ExportError(
            f"This SGDOneClassSVM was fit on {coef.dtype} rows, so scikit-learn scores float32 rows with a "
            "float32 product, which the file does not write. Export it with dtype='float64' (the file then "
            "takes float64 rows, as the model scores them), or fit it on float64 rows."
        )
    double = np.dtype(np.float64)
    offset = g.const(np.asarray(model.offset_, dtype=np.float64).reshape(1), "offset", dtype=double)

    def decision() -> str:
        inputs = x if g.dtype == double else g.cast(x, double)
        product = matrix_vector(g, inputs, int(coef.size), coef.astype(np.float64))
        return g.as_vector(g.op("Sub", [product, offset], hint="decision"))

    value = shared_scores(g, model, x, decision)
    if method == "predict":
        return binary_labels(g, value, np.array([-1, 1]), strict=False, dtype=double)
    if method == "score_samples":
        value = g.op("Add", [value, offset], hint="score")
    return value if g.dtype == double else g.cast(value, g.dtype)
