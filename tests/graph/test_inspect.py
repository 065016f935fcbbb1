"""Formulas, DOT text and SVG drawings of networks."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from _counting import Toy
from hypothesis import given, settings
from hypothesis import strategies as st
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


def _clashing_network():
    """A user's machine named ``m1`` and source named ``s1`` next to unnamed ones."""
    X, y = ww.source(np.ones((4, 2)), name="s1"), ww.source(np.arange(4.0))
    std = ww.machine(StandardScaler(), X, name="m1")
    ridge = ww.machine(Ridge(), std.transform(X), y)
    return ridge.predict(ridge.args[0]), std, ridge


def test_auto_names_skip_the_names_users_gave():
    # the unnamed Ridge was shown as m1 too, and the unnamed target as s1: predict(m1, transform(m1, s1))
    yhat, std, ridge = _clashing_network()
    assert repr(yhat) == "predict(m2, transform(m1, s1))"
    dot = yhat.to_dot()
    assert 'label="m1\\nStandardScaler"' in dot and 'label="m2\\nRidge"' in dot
    assert 'label="s1"' in dot and 'label="s2"' in dot  # the target, reached through a training edge only
    texts = [" ".join(t.itertext()) for t in ET.fromstring(yhat.to_svg()).iter("{http://www.w3.org/2000/svg}text")]
    assert sorted(t for t in texts if t[:1] in "ms" and t[1:2].isdigit()) == [
        "m1 StandardScaler", "m2 Ridge", "s1", "s2"
    ]
    # a machine's own name is taken in its repr and its errors: its arguments' unnamed machines skip it
    again = ww.machine(Ridge(), std.transform(std.args[0]), ridge.args[1], name="m1")
    unnamed = ww.machine(StandardScaler(), std.args[0])
    other = ww.machine(Ridge(), unnamed.transform(std.args[0]), ridge.args[1], name="m1")
    assert repr(again) == "machine(Ridge(), transform(m1#2, s1), s2, name='m1')"  # two machines named m1
    assert repr(other) == "machine(Ridge(), transform(m2, s1), s2, name='m1')"


def test_names_are_unique_across_several_formulas_and_a_name_two_share_is_told_apart():
    yhat, std, ridge = _clashing_network()
    from wirework.graph.inspect import formulas

    # numbered once across the formulas: the user's m1 appears only in the second
    assert formulas([ridge.args[1] * 1, yhat]) == ["(s2 * 1)", "predict(m2, transform(m1, s1))"]
    first, second = ww.source(np.ones(3), name="X"), ww.source(np.ones(3), name="X")
    assert repr(first + second) == "(X + X#2)"
    a = ww.machine(StandardScaler(), first, name="scale")
    b = ww.machine(StandardScaler(), second, name="scale")
    both = a.transform(first) + b.transform(second)
    assert repr(both) == "(transform(scale, X) + transform(scale#2, X#2))"
    assert repr(both) == repr(both)  # stable
    # a suffix skips a name a user gave; machines and sources share the names
    third = ww.source(np.ones(3), name="X#2")
    assert repr(first + second + third) == "((X + X#3) + X#2)"
    named_m1 = ww.source(np.ones((3, 1)), name="m1")
    assert repr(ww.machine(Ridge(), named_m1, first).predict(named_m1)) == "predict(m2, m1)"
    labels = [line.split("label=")[1].split(",")[0] for line in both.to_dot().splitlines() if "hexagon" in line]
    assert labels == ['"scale\\nStandardScaler"', '"scale#2\\nStandardScaler"']


NAMES = [None, None, "m1", "m2", "s1", "s2", "X", "X#2"]


@st.composite
def named_networks(draw):
    """A random network of toy machines whose machines and sources take names from a pool that clashes with
    the numbers given to unnamed ones (and with each other)."""
    nodes = [ww.source(np.ones(3), name=draw(st.sampled_from(NAMES))) for _ in range(draw(st.integers(1, 3)))]
    items = list(nodes)
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            args = [nodes[draw(st.integers(0, len(nodes) - 1))] for _ in range(draw(st.integers(1, 2)))]
            machine = ww.machine(Toy(), *args, name=draw(st.sampled_from(NAMES)))
            items.append(machine)
            nodes.append(machine.transform(nodes[draw(st.integers(0, len(nodes) - 1))]))
        else:
            nodes.append(nodes[draw(st.integers(0, len(nodes) - 1))] + nodes[draw(st.integers(0, len(nodes) - 1))])
    return ww.node(lambda *values: values, *nodes), items


@settings(max_examples=60, deadline=None)
@given(named_networks())
def test_every_machine_and_source_of_a_drawing_has_a_name_of_its_own(net):
    root, items = net
    vertices = [line for line in root.to_dot().splitlines() if "[label=" in line]
    shown = [v.split('label="')[1].split('"')[0].split("\\n")[0] for v in vertices if "ellipse" in v or "hexagon" in v]
    assert len(shown) == len(set(shown)) == len(items)  # every one drawn, each with a name no other shows
    given = [item.name for item in items if item.name]
    unique = [name for name in given if given.count(name) == 1]
    assert set(unique) <= set(shown)  # a name given to one only is shown as given
    assert all(name in given or name[0] in "ms" and name[1:].isdigit() for name in shown if "#" not in name)
    assert repr(root) == repr(root) and root.to_dot() == root.to_dot()
