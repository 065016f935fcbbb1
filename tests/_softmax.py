"""The probabilities a softmax of raw scores gives with ONNX Runtime's ``Exp`` and a given order of the sum.

A file's softmax can only match the native one up to ``Exp`` (ONNX Runtime's
is not the C library's nor NumPy's); these helpers take ``Exp`` from ONNX
Runtime itself, so a file that adds each row in the native order equals them
bit for bit, on any CPU.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

import wirework as ww


def runtime_exp(values: np.ndarray) -> np.ndarray:
    """ONNX Runtime's ``Exp`` of a float64 array."""
    graph = helper.make_graph(
        [helper.make_node("Exp", ["x"], ["y"])], "exp",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [None, None])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [None, None])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return ww.onnx.session(model).run(None, {"x": np.ascontiguousarray(values, dtype=np.float64)})[0]


def softmax(raw: np.ndarray, order: str) -> np.ndarray:
    """``exp(raw - max)`` over its row sum: ``"loop"`` left to right (a C loop, or NumPy on a Fortran-ordered
    array), ``"numpy"`` as NumPy adds a C-ordered row (pairwise from 8 columns)."""
    exp = runtime_exp(raw - raw.max(axis=1, keepdims=True))
    if order == "numpy":
        total = np.ascontiguousarray(exp).sum(axis=1)
    else:
        total = np.zeros(len(exp))
        for j in range(exp.shape[1]):
            total = total + exp[:, j]
    return exp / total[:, None]
