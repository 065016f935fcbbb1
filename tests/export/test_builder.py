"""GraphBuilder: outputs named without extra nodes where possible, graphs unchanged by finishing."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from wirework.export.builder import GraphBuilder  # noqa: E402
from wirework.export.parity import session  # noqa: E402


def run(model, X):
    return session(model).run(None, {"X": X})


def test_an_output_renames_the_value_its_node_makes():
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, 2])
    doubled = g.op("Add", [x, x])
    g.add_output(doubled, "predict")
    model = g.to_model()
    assert [n.op_type for n in model.graph.node] == ["Add"]
    assert list(model.graph.node[0].output) == ["predict"]
    X = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(run(model, X)[0], X + X)
    assert g.to_model().SerializeToString() == model.SerializeToString()  # finishing twice: the same bytes


def test_identity_stays_where_the_value_is_needed_elsewhere():
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, 2])
    doubled = g.op("Add", [x, x])
    g.add_output(doubled, "first")
    g.add_output(doubled, "second")  # one value, two outputs
    g.add_output(x, "echo")  # an input: nothing makes it
    squared = g.op("Mul", [doubled, doubled])
    g.add_output(squared, "third")
    model = g.to_model()
    assert [n.op_type for n in model.graph.node].count("Identity") == 3
    X = np.arange(4.0).reshape(2, 2)
    first, second, echo, third = run(model, X)
    np.testing.assert_array_equal(first, X + X)
    np.testing.assert_array_equal(second, X + X)
    np.testing.assert_array_equal(echo, X)
    np.testing.assert_array_equal(third, (X + X) ** 2)


@pytest.mark.parametrize("width", [1, 2, 3, 7, 8, 9, 15, 16, 17, 30, 64, 127, 128, 129, 200, 257, 1000])
def test_row_sums_add_as_numpy_adds_a_c_ordered_row(width):
    # sum(axis=1): NumPy's pairwise sum (eight running sums past 8 values, halves past 128); einsum's sum of
    # squares: its two-lane SIMD kernel; ReduceSum, ReduceSumSquare or a left-to-right sum round otherwise
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, width])
    g.add_output(g.row_sum(x, width), "row_total", np.float64, [None, 1])
    g.add_output(g.row_squares(x, width), "sum_of_squares", np.float64, [None, 1])
    rng = np.random.default_rng(width)
    X = rng.normal(size=(300, width)) * rng.uniform(1e-3, 1e3, size=width)
    X[0] = -0.0  # NumPy adds from 0: a row of -0.0 sums to 0.0
    total, squares = run(g.to_model(), X)
    assert total.tobytes() == X.sum(axis=1).reshape(-1, 1).tobytes()
    assert squares.tobytes() == np.einsum("ij,ij->i", X, X).reshape(-1, 1).tobytes()


@pytest.mark.parametrize("shape", [(0,), (0, 3), (4,), (4, 3)])
def test_as_matrix_keeps_the_rows_of_an_empty_batch(shape):
    """``[N] -> [N, 1]`` and ``[N, k]`` unchanged, N = 0 too: a Reshape to ``[0, -1]`` cannot tell -1 from zero
    values, and ONNX Runtime stopped on it (a CalibratedClassifierCV's file failed on an empty batch)."""
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None] * len(shape))
    g.add_output(g.as_matrix(x), "matrix")
    X = np.arange(float(np.prod(shape))).reshape(shape)
    np.testing.assert_array_equal(run(g.to_model(), X)[0], X.reshape(shape[0], int(np.prod(shape[1:]))))
