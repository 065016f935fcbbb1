"""Do an exported file's predictions equal the native ones? ``check_parity`` measures it.

ONNX Runtime is the runtime under test (``onnx.reference`` is not: it gets
single-leaf trees and set members equal to 0.0 wrong).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wirework.errors import ExportError
from wirework.export.api import feed
from wirework.export.builder import dense
from wirework.graph.data import describe, n_rows, whole

__all__ = ["ParityReport", "OutputParity", "check_parity", "session"]


@dataclass(frozen=True)
class OutputParity:
    """How one output of the file compares with the native method.

    Attributes
    ----------
    max_abs, max_rel : float
        Largest absolute and relative difference (0 for equal labels,
        ``inf`` when labels differ).
    rows_differ : int
        Rows where any value differs at all.
    flips : int
        Rows whose decision differs: another label, or another most likely
        class in probabilities. 0 for regression values.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    >>> ww.onnx.check_parity(tree, ww.to_onnx(tree, dtype="float32"), X).outputs["predict_proba"]
    OutputParity(max_abs=..., max_rel=..., rows_differ=..., flips=0)
    """

    max_abs: float
    max_rel: float
    rows_differ: int
    flips: int


@dataclass(frozen=True)
class ParityReport:
    """Per-output comparison of an ONNX file with the native model on the same rows.

    Attributes
    ----------
    rows : int
        Rows compared.
    outputs : dict of str to OutputParity
        One comparison per output of the file (``predict``, ``predict_proba``…).

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    >>> report = ww.onnx.check_parity(tree, ww.to_onnx(tree), X)
    >>> print(report)
    parity on 150 rows
    output | max abs | max rel | rows differ | flips
    predict | 0 | 0 | 0 | 0
    predict_proba | 0 | 0 | 0 | 0
    >>> report.exact, report.max_abs, report.flips
    (True, 0.0, 0)
    """

    rows: int
    outputs: dict[str, OutputParity] = field(default_factory=dict)

    @property
    def max_abs(self) -> float:
        """The largest absolute difference over every output."""
        return max((o.max_abs for o in self.outputs.values()), default=0.0)

    @property
    def exact(self) -> bool:
        """Whether every output equals the native one bit for bit."""
        return all(o.rows_differ == 0 for o in self.outputs.values())

    @property
    def flips(self) -> int:
        """Rows with a different decision, summed over outputs."""
        return sum(o.flips for o in self.outputs.values())

    def __str__(self) -> str:
        lines = [f"parity on {self.rows} rows", "output | max abs | max rel | rows differ | flips"]
        for name, o in self.outputs.items():
            lines.append(f"{name} | {o.max_abs:.3g} | {o.max_rel:.3g} | {o.rows_differ} | {o.flips}")
        return "\n".join(lines)


def session(model: Any, threads: int = 1) -> Any:
    """An ONNX Runtime session on ``model`` with ``threads`` intra-op threads (CPU).

    One thread (the default) adds a tree ensemble's values in the file's
    own order, as :func:`check_parity` runs it.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    >>> exported = ww.to_onnx(tree)
    >>> rows = X[[0, 50, 100]]
    >>> labels, probabilities = ww.onnx.session(exported).run(None, ww.onnx.feed(exported, rows))
    >>> labels.tolist(), tree.predict(rows).tolist()
    ([0, 1, 2], [0, 1, 2])
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _native(obj: Any, method: str, X: Any) -> np.ndarray:
    from wirework.graph.nodes import Node

    if isinstance(obj, Node):
        return dense(obj(X))
    if hasattr(obj, "items") and not hasattr(obj, method):  # a signature
        return dense(obj[method](X))
    function = getattr(obj, method, None)
    if function is None:
        raise ExportError(f"{type(obj).__name__} has no {method}() to compare the file's output {method!r} with.")
    return dense(function(X))



def _compare(native: np.ndarray, exported: np.ndarray) -> OutputParity:
    if exported.shape != native.shape and exported.size == native.size:
        exported = exported.reshape(native.shape)
    if exported.shape != native.shape:
        raise ExportError(f"The file's output has shape {exported.shape}; the native one {native.shape}.")
    if native.dtype.kind not in "fc" or exported.dtype.kind not in "fc":
        differ = native.astype(str) != exported.astype(str) if native.dtype.kind in "OUS" else native != exported
        rows = differ.reshape(len(differ), -1).any(axis=1) if differ.ndim else differ
        n = int(np.sum(rows))
        return OutputParity(float("inf") if n else 0.0, float("inf") if n else 0.0, n, n)
    native = native.astype(np.float64)
    exported = exported.astype(np.float64)
    both_nan = np.isnan(native) & np.isnan(exported)
    same = (native == exported) | both_nan
    with np.errstate(invalid="ignore"):
        diff = np.where(same, 0.0, np.abs(native - exported))
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = np.where(same, 0.0, diff / np.maximum(np.abs(native), np.finfo(np.float64).tiny))
    rows_differ = (~same).reshape(len(same), -1).any(axis=1)
    flips = 0
    if native.ndim == 2 and native.shape[1] > 1:
        flips = int(np.sum(native.argmax(axis=1) != exported.argmax(axis=1)))
    return OutputParity(
        float(diff.max(initial=0.0)), float(rel.max(initial=0.0)), int(rows_differ.sum()), flips
    )


def check_parity(obj: Any, model: Any, X: Any, *, threads: int = 1) -> ParityReport:
    """Run ``model`` with ONNX Runtime on ``X`` and compare each output with ``obj``'s native method.

    Parameters
    ----------
    obj : the exported estimator, composite, signature or node
    model : onnx.ModelProto
        The file written by :func:`wirework.to_onnx` for ``obj``.
    X : array-like or DataFrame
        Rows to compare on; a DataFrame's categorical columns are fed the
        way the file expects (see :func:`wirework.export.api.feed`).
    threads : int
        ONNX Runtime intra-op threads (1 gives the file's own summation
        order, hence bit-exact sums).

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    >>> report = ww.onnx.check_parity(tree, ww.to_onnx(tree), X)
    >>> report.exact, report.flips
    (True, 0)
    """
    if not hasattr(model, "SerializeToString"):
        raise ExportError(
            f"check_parity compares an ONNX ModelProto (what ww.to_onnx returns, or onnx.load reads). Received: "
            f"{describe(model)}."
        )
    if not whole(threads) or threads < 1:
        raise ExportError(f"threads must be an int >= 1 (ONNX Runtime's intra-op threads). Received: {threads!r}.")
    if n_rows(X) == 0:
        raise ExportError("check_parity needs at least one row to compare on. Received no rows.")
    runtime = session(model, int(threads))
    names = [o.name for o in runtime.get_outputs()]
    results = runtime.run(names, feed(model, X))
    outputs = {name: _compare(_native(obj, name, X), np.asarray(value)) for name, value in zip(names, results)}
    return ParityReport(rows=len(X), outputs=outputs)
