"""Formulas, DOT text and SVG drawings of networks."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

import wirework as ww


def target_transform():
    X, y = ww.source(np.ones((4, 2)), name="X"), ww.source(np.arange(4.0), name="y")
    std = ww.machine(StandardScaler(), y)
    tree = ww.machine(DecisionTreeRegressor(), X, std.transform(y), name="tree")
    return std.inverse_transform(tree.predict(X))


def test_dot_has_every_node_machine_and_edge_kind():
    dot = target_transform().to_dot()
    assert dot.startswith('digraph "network" {')
    for label in ('label="X"', 'label="y"', 'label="predict"', 'label="transform"', 'label="inverse_transform"'):
        assert label in dot
    assert 'label="m1\\nStandardScaler"' in dot and 'label="tree\\nDecisionTreeRegressor"' in dot
    assert dot.count("style=dashed") == 3  # training edges: y->std, X->tree, transform->tree
    assert dot.count("style=dotted") == 3  # operation edges: std->transform, std->inverse, tree->predict
    assert dot.count("style=solid") == 3  # data edges


def test_svg_is_a_standalone_drawing_with_one_shape_per_vertex():
    svg = target_transform().to_svg()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [" ".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert len(texts) == 7  # 5 nodes, 2 machines
    for label in ("X", "y", "predict", "transform", "inverse_transform", "m1 StandardScaler", "tree DecisionTreeRegressor"):
        assert label in texts


def test_notebook_html_shows_formula_and_drawing():
    node = target_transform()
    html = node._repr_html_()
    assert "inverse_transform(m1, predict(tree, X))" in html and "<svg" in html


def test_drawing_is_deterministic_and_names_unnamed_sources():
    a = ww.machine(Ridge(), np.ones((3, 2)), np.ones(3))
    node = a.predict(a.args[0]) * 2
    assert node.to_svg() == node.to_svg()
    assert 'label="s1"' in node.to_dot()


def test_long_formulas_are_cut():
    X = ww.source(np.ones(2), name="a_rather_long_source_name")
    node = X
    for _ in range(30):
        node = node + X
    text = repr(node)
    assert len(text) <= 400 and text.endswith("…")


def test_a_machines_arguments_are_numbered_once_across_them_and_a_sourceless_node_takes_no_data():
    # each argument was numbered on its own: machine(Ridge(), s1, s1) for two different sources
    from sklearn.linear_model import Ridge

    X, y = ww.source(np.ones((4, 2))), ww.source(np.arange(4.0))
    assert repr(ww.machine(Ridge(), X, y)) == "machine(Ridge(), s1, s2)"
    constant = ww.node(lambda: np.zeros(2))
    with pytest.raises(ww.GraphError, match=r"This node has no source, so it takes no data: call it without arguments"):
        constant(np.ones((2, 2)))
    with pytest.raises(ww.ArgumentError, match=r"an executor \(ww.ThreadExecutor, ww.ProcessExecutor, ww.DaskExecutor\)"):
        ww.machine(Ridge(), X, y).fit(executor="dask", verbose=0)
