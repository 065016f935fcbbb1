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
