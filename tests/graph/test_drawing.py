"""Tests for wirework.graph.drawing: DOT text and dependency-free SVG drawings."""

from __future__ import annotations

import pickle
import random
import re
import time
import xml.etree.ElementTree as ET

import pytest

import wirework as ww
from wirework.graph.drawing import Edge, Vertex, to_dot, to_svg

SVG = "{http://www.w3.org/2000/svg}"
SHAPES = {f"{SVG}ellipse", f"{SVG}rect", f"{SVG}polygon"}


def network() -> tuple[list[Vertex], list[Edge]]:
    """A standardise-then-regress learning network with every kind in it."""
    vertices = [
        Vertex("X", "Source X", "source"),
        Vertex("y", "Source y", "source"),
        Vertex("m_std", "machine:\nStandardizer", "machine"),
        Vertex("W", "transform", "dynamic"),
        Vertex("m_ridge", "machine:\nRidge", "machine"),
        Vertex("yhat", "predict", "dynamic"),
        Vertex("rep", "report", "static"),
    ]
    edges = [
        Edge("X", "m_std", "training"),
        Edge("m_std", "W", "operation"),
        Edge("X", "W", "data"),
        Edge("W", "m_ridge", "training"),
        Edge("y", "m_ridge", "training"),
        Edge("m_ridge", "yhat", "operation"),
        Edge("W", "yhat", "data"),
        Edge("m_ridge", "rep", "operation"),
    ]
    return vertices, edges


def random_dag(n: int, m: int, seed: int) -> tuple[list[Vertex], list[Edge]]:
    rng = random.Random(seed)
    vertex_kinds = ["source", "dynamic", "static", "machine"]
    edge_kinds = ["data", "training", "operation"]
    vertices = [Vertex(f"v{i}", f"node {i}", rng.choice(vertex_kinds)) for i in range(n)]
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < m:
        a, b = sorted(rng.sample(range(n), 2))
        pairs.add((a, b))
    edges = [Edge(f"v{a}", f"v{b}", rng.choice(edge_kinds)) for a, b in sorted(pairs)]
    rng.shuffle(vertices)
    return vertices, edges


def boxes(names: str) -> list[Vertex]:
    """One dynamic vertex per character of `names`, labelled by it."""
    return [Vertex(name, name, "dynamic") for name in names]


def test_vertices_and_edges_pickle_under_the_drawing_module() -> None:
    # the layout moved to _svg_layout; Vertex and Edge stay here, so pickles made before still load
    vertices, edges = network()
    for obj in (vertices[0], edges[0]):
        data = pickle.dumps(obj)
        assert b"wirework.graph.drawing" in data
        assert pickle.loads(data) == obj


def data_edges(*pairs: str) -> list[Edge]:
    """Data edges from two-character strings: ``"ab"`` is a -> b."""
    return [Edge(tail, head, "data") for tail, head in pairs]


def vertex_groups(root: ET.Element) -> dict[str, ET.Element]:
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("vertex ")]
    return {g.findtext(f"{SVG}title"): g for g in groups}


def edge_groups(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("edge ")]


def centre(group: ET.Element) -> tuple[float, float]:
    match = re.fullmatch(r"translate\(([-\d.]+),([-\d.]+)\)", group.get("transform", ""))
    assert match, group.get("transform")
    return float(match.group(1)), float(match.group(2))


def half_size(group: ET.Element) -> tuple[float, float]:
    (shape,) = [child for child in group if child.tag in SHAPES]
    if shape.tag == f"{SVG}ellipse":
        return float(shape.get("rx")), float(shape.get("ry"))
    if shape.tag == f"{SVG}rect":
        return float(shape.get("width")) / 2, float(shape.get("height")) / 2
    points = [tuple(map(float, p.split(","))) for p in shape.get("points").split()]
    return max(abs(px) for px, _ in points), max(abs(py) for _, py in points)


def centres(vertices: list[Vertex], edges: list[Edge]) -> dict[str, tuple[float, float]]:
    root = ET.fromstring(to_svg(vertices, edges))
    return {name: centre(group) for name, group in vertex_groups(root).items()}


def path_points(group: ET.Element) -> list[tuple[float, float]]:
    numbers = [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?", group.find(f"{SVG}path").get("d"))]
    return list(zip(numbers[::2], numbers[1::2]))


# --------------------------------------------------------------------------
# SVG structure
# --------------------------------------------------------------------------


def test_svg_has_one_labelled_shape_per_vertex_and_one_path_per_edge() -> None:
    vertices, edges = network()
    svg = to_svg(vertices, edges)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="')
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    groups = vertex_groups(root)
    assert list(groups) == [v.id for v in vertices]
    for vertex in vertices:
        group = groups[vertex.id]
        assert len([child for child in group if child.tag in SHAPES]) == 1
        (text,) = group.findall(f"{SVG}text")
        lines = [span.text or "" for span in text.findall(f"{SVG}tspan")]
        assert lines == vertex.label.split("\n")
    paths = [g.findall(f"{SVG}path") for g in edge_groups(root)]
    assert [len(p) for p in paths] == [1] * len(edges)
    assert len(root.findall(f".//{SVG}path")) == len(edges) + len(root.findall(f".//{SVG}marker"))


def test_svg_width_height_and_viewbox_agree_and_contain_every_vertex() -> None:
    root = ET.fromstring(to_svg(*network()))
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    for group in vertex_groups(root).values():
        (x, y), (a, b) = centre(group), half_size(group)
        assert 0 <= x - a and x + a <= width
        assert 0 <= y - b and y + b <= height


@pytest.mark.parametrize(
    ("kind", "tag"),
    [("source", "ellipse"), ("dynamic", "rect"), ("static", "rect"), ("machine", "polygon")],
)
def test_svg_shape_depends_on_vertex_kind(kind: str, tag: str) -> None:
    root = ET.fromstring(to_svg([Vertex("a", "a", kind)], []))
    (group,) = vertex_groups(root).values()
    assert group.get("class") == f"vertex {kind}"
    (shape,) = [child for child in group if child.tag in SHAPES]
    assert shape.tag == f"{SVG}{tag}"
    assert (shape.get("rx") is not None) == (kind in ("source", "static"))
    if kind == "machine":
        assert len(shape.get("points").split()) == 6
        assert shape.get("fill") != "#ffffff"


def test_svg_edge_styles_depend_on_edge_kind() -> None:
    edges = [Edge("a", "b", "data"), Edge("b", "c", "training"), Edge("c", "d", "operation")]
    root = ET.fromstring(to_svg(boxes("abcd"), edges))
    style = {}
    for group in edge_groups(root):
        path = group.find(f"{SVG}path")
        style[group.get("class")] = (path.get("stroke"), path.get("stroke-dasharray"))
        marker = re.fullmatch(r"url\(#(.+)\)", path.get("marker-end")).group(1)
        assert root.find(f".//{SVG}marker[@id='{marker}']") is not None
    assert style["edge data"] == ("#000000", None)
    assert style["edge training"][0] == "#000000" and style["edge training"][1]
    assert style["edge operation"][0] != "#000000" and style["edge operation"][1]
    assert style["edge training"][1] != style["edge operation"][1]


def test_multiline_labels_make_taller_vertices() -> None:
    vertices = [Vertex("one", "line", "dynamic"), Vertex("three", "a\nb\nc", "dynamic")]
    groups = vertex_groups(ET.fromstring(to_svg(vertices, [])))
    assert half_size(groups["three"])[1] > half_size(groups["one"])[1]
    assert len(groups["three"].find(f"{SVG}text").findall(f"{SVG}tspan")) == 3


def test_longer_labels_make_wider_vertices() -> None:
    vertices = [Vertex("s", "short", "dynamic"), Vertex("l", "a much longer label", "dynamic")]
    groups = vertex_groups(ET.fromstring(to_svg(vertices, [])))
    assert half_size(groups["l"])[0] > half_size(groups["s"])[0] + 50


def test_empty_graph_gives_a_small_valid_svg() -> None:
    root = ET.fromstring(to_svg([], []))
    assert 0 < float(root.get("width")) <= 100 and 0 < float(root.get("height")) <= 100
    assert vertex_groups(root) == {} and edge_groups(root) == []
    assert to_dot([], []).splitlines() == [
        'digraph "network" {',
        "  rankdir=TB;",
        '  node [fontname="Helvetica", fontsize=12];',
        "}",
    ]


# --------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "graph", [network(), random_dag(40, 70, seed=1)], ids=["network", "random"]
)
def test_layers_go_top_to_bottom(graph: tuple[list[Vertex], list[Edge]]) -> None:
    vertices, edges = graph
    root = ET.fromstring(to_svg(vertices, edges))
    y = {name: centre(group)[1] for name, group in vertex_groups(root).items()}
    for edge in edges:
        assert y[edge.head] > y[edge.tail], edge


def test_layer_is_longest_path_from_a_root() -> None:
    # d has a short path a -> d and a long one a -> b -> c -> d: d goes below c.
    y = {k: y for k, (_, y) in centres(boxes("abcde"), data_edges("ad", "ab", "bc", "cd")).items()}
    assert y["a"] == y["e"] < y["b"] < y["c"] < y["d"]


def test_vertices_in_one_layer_do_not_overlap() -> None:
    vertices, edges = random_dag(60, 100, seed=2)
    groups = vertex_groups(ET.fromstring(to_svg(vertices, edges)))
    rows: dict[float, list[tuple[float, float]]] = {}
    for group in groups.values():
        (x, y), (a, _) = centre(group), half_size(group)
        rows.setdefault(y, []).append((x - a, x + a))
    assert len(rows) > 2
    for spans in rows.values():
        spans.sort()
        for (_, right), (left, _) in zip(spans, spans[1:]):
            assert right <= left


def test_barycenter_ordering_uncrosses_edges() -> None:
    # In input order the two edges cross (a-d and b-c); ordering must fix it.
    x = {k: x for k, (x, _) in centres(boxes("abcd"), data_edges("ad", "bc")).items()}
    assert (x["a"] < x["b"]) == (x["d"] < x["c"])


def test_only_child_sits_straight_below_its_parent() -> None:
    vertices = [Vertex("s1", "first source", "source")] + boxes("sc")
    x = {k: x for k, (x, _) in centres(vertices, data_edges("sc")).items()}
    assert x["s1"] < x["s"] == x["c"]


def test_edges_start_and_end_on_their_vertices() -> None:
    vertices, edges = network()
    root = ET.fromstring(to_svg(vertices, edges))
    groups = vertex_groups(root)
    for edge, group in zip(edges, edge_groups(root)):
        points = path_points(group)
        for (px, py), end in ((points[0], edge.tail), (points[-1], edge.head)):
            (x, y), (a, b) = centre(groups[end]), half_size(groups[end])
            reach = max(abs(px - x) / a, abs(py - y) / b)  # 1 on the bounding box
            assert 0.7 <= reach <= 1.001  # on the outline, not inside or beyond it


def test_long_edges_bend_through_intermediate_layers() -> None:
    root = ET.fromstring(to_svg(boxes("abcd"), data_edges("ab", "bc", "cd", "ad")))
    groups = vertex_groups(root)
    long_edge = path_points(edge_groups(root)[3])
    assert len(long_edge) == 4  # one point per crossed layer
    for (px, _), name in zip(long_edge[1:3], "bc"):
        (x, _), (a, _) = centre(groups[name]), half_size(groups[name])
        assert abs(px - x) > a  # passes beside b and c, not through them


def test_parallel_edges_get_distinct_paths() -> None:
    vertices = [Vertex("a", "a", "source"), Vertex("b", "b", "dynamic")]
    edges = [Edge("a", "b", "data"), Edge("a", "b", "data")]
    root = ET.fromstring(to_svg(vertices, edges))
    paths = [group.find(f"{SVG}path").get("d") for group in edge_groups(root)]
    assert len(paths) == 2 and paths[0] != paths[1]


# --------------------------------------------------------------------------
# Escaping and determinism
# --------------------------------------------------------------------------

AWKWARD = 'a<b> & "c" \\ d'


def test_svg_escapes_labels_and_ids() -> None:
    vertices = [
        Vertex('<id&"x">', AWKWARD + "\nline 2", "static"),
        Vertex("z", "\x00\x07bad", "source"),  # characters XML cannot hold at all
    ]
    svg = to_svg(vertices, [Edge('<id&"x">', "z", "data")])
    assert "a&lt;b&gt; &amp; &quot;c&quot;" in svg and AWKWARD not in svg
    root = ET.fromstring(svg)
    groups = vertex_groups(root)
    assert set(groups) == {'<id&"x">', "z"}
    spans = groups['<id&"x">'].find(f"{SVG}text").findall(f"{SVG}tspan")
    assert [s.text for s in spans] == [AWKWARD, "line 2"]
    assert edge_groups(root)[0].findtext(f"{SVG}title") == '<id&"x"> -> z'


def test_dot_escapes_quotes_backslashes_and_newlines() -> None:
    vertices = [Vertex('say "hi"', AWKWARD + "\nline 2", "dynamic"), Vertex("b\\", "b", "source")]
    dot = to_dot(vertices, [Edge("b\\", 'say "hi"', "data")], name='my "net"')
    assert dot.startswith('digraph "my \\"net\\"" {\n  rankdir=TB;')
    assert '"say \\"hi\\"" [label="a<b> & \\"c\\" \\\\ d\\nline 2", shape=box];' in dot
    assert '"b\\\\" -> "say \\"hi\\"" [style=solid' in dot
    assert "\nline 2" not in dot  # a label's newline never breaks the DOT line


def test_dot_lists_every_vertex_and_edge_with_its_style() -> None:
    vertices, edges = network()
    lines = to_dot(vertices, edges, name="net").splitlines()
    assert lines[0] == 'digraph "net" {' and lines[1] == "  rankdir=TB;" and lines[-1] == "}"
    shapes = {"source": "shape=ellipse", "dynamic": "shape=box]", "static": "style=rounded",
              "machine": "shape=hexagon"}
    for vertex in vertices:
        (line,) = [ln for ln in lines if ln.startswith(f'  "{vertex.id}" [')]
        assert shapes[vertex.kind] in line
    styles = {"data": "style=solid", "training": "style=dashed", "operation": "style=dotted"}
    edge_lines = [ln for ln in lines if " -> " in ln]
    assert len(edge_lines) == len(edges)
    for edge, line in zip(edges, edge_lines):
        assert line.startswith(f'  "{edge.tail}" -> "{edge.head}" [')
        assert styles[edge.kind] in line
        assert ("gray" in line) == (edge.kind == "operation")
    assert 'fillcolor="lightyellow"' in next(ln for ln in lines if ln.startswith('  "m_std" ['))


def test_output_is_deterministic() -> None:
    vertices, edges = random_dag(50, 90, seed=3)
    copies = (
        [Vertex(v.id, v.label, v.kind) for v in vertices],
        [Edge(e.tail, e.head, e.kind) for e in edges],
    )
    assert to_svg(vertices, edges) == to_svg(vertices, edges) == to_svg(*copies)
    assert to_dot(vertices, edges) == to_dot(*copies)


def test_marker_ids_differ_between_drawings() -> None:
    graphs = [network(), random_dag(5, 4, seed=0)]
    ids = [ET.fromstring(to_svg(*g)).find(f".//{SVG}marker").get("id") for g in graphs]
    assert ids[0] != ids[1]


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


@pytest.mark.parametrize("render", [to_dot, to_svg])
def test_edge_to_unknown_vertex_is_rejected(render) -> None:
    vertices = [Vertex("a", "a", "source"), Vertex("b", "b", "dynamic")]
    edges = [Edge("a", "b", "data"), Edge("a", "x", "data")]
    expected = r"Edge 1 refers to unknown vertex 'x' \(as its head\)\. Known vertices: 'a', 'b'\."
    with pytest.raises(ww.GraphError, match=expected):
        render(vertices, edges)
    with pytest.raises(ww.GraphError, match=r"Edge 0 refers to unknown vertex 'q' \(as its tail\)"):
        render(vertices, [Edge("q", "b", "data")])


def test_long_list_of_known_vertices_is_shortened() -> None:
    vertices = [Vertex(f"v{i}", "v", "dynamic") for i in range(25)]
    with pytest.raises(ww.GraphError, match=r"Known vertices: 'v0', .*'v9', \.\.\. \(15 more\)\.$"):
        to_svg(vertices, [Edge("v0", "nope", "data")])


@pytest.mark.parametrize("render", [to_dot, to_svg])
def test_duplicate_vertex_id_is_rejected(render) -> None:
    vertices = [*boxes("ab"), Vertex("a", "again", "static")]
    with pytest.raises(ww.GraphError, match=r"Duplicate vertex id 'a' at positions 0 and 2"):
        render(vertices, [])


@pytest.mark.parametrize("render", [to_dot, to_svg])
def test_cycle_is_rejected_and_named(render) -> None:
    vertices, edges = boxes("sabc"), data_edges("sa", "ab", "bc", "ca")
    with pytest.raises(ww.GraphError, match=r"contains a cycle: 'a' -> 'b' -> 'c' -> 'a'\."):
        render(vertices, edges)
    with pytest.raises(ww.GraphError, match=r"contains a cycle: 's' -> 's'\."):
        render(vertices, [Edge("s", "s", "data")])


def test_unknown_kinds_are_rejected() -> None:
    expected = r"Vertex 'a' has unknown kind 'node'\. Expected one of: 'source', 'dynamic', "
    with pytest.raises(ww.ParameterError, match=expected):
        Vertex("a", "a", "node")
    expected = r"Edge 'a' -> 'b' has unknown kind 'dashed'\. Expected one of: 'data', 'training', "
    with pytest.raises(ww.ParameterError, match=expected):
        Edge("a", "b", "dashed")


def test_wrong_types_are_rejected() -> None:
    with pytest.raises(ww.ArgumentError, match=r"Vertex\.label must be a string\. Received: 3 \(int\)"):
        Vertex("a", 3, "source")  # type: ignore[arg-type]
    expected = r"Expected a sequence of Edge objects\. Received at position 0: \('a', 'b'\)"
    with pytest.raises(ww.ArgumentError, match=expected):
        to_svg(boxes("ab"), [("a", "b")])  # type: ignore[list-item]
    with pytest.raises(ww.ArgumentError, match=r"name must be a string\. Received: 3 \(int\)"):
        to_dot(boxes("ab"), [], name=3)  # type: ignore[arg-type]


def test_drawing_errors_are_still_caught_as_the_builtin() -> None:
    with pytest.raises(ValueError, match="Duplicate vertex id 'a'"):
        to_svg(boxes("aa"), [])
    with pytest.raises(TypeError, match="Expected a sequence of Vertex objects"):
        to_svg(["a"], [])  # type: ignore[list-item]


# --------------------------------------------------------------------------
# Performance
# --------------------------------------------------------------------------


def test_300_vertex_random_dag_renders_fast() -> None:
    vertices, edges = random_dag(300, 600, seed=0)
    start = time.perf_counter()
    svg = to_svg(vertices, edges)
    dot = to_dot(vertices, edges)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0
    root = ET.fromstring(svg)
    assert len(vertex_groups(root)) == 300 and len(edge_groups(root)) == 600
    assert dot.count(" -> ") == 600


def test_many_long_edges_still_render_fast() -> None:
    # A 300-vertex chain plus 300 edges spanning up to 299 layers: far more
    # bends than the layout budget allows, so the longest edges go straight.
    vertices = [Vertex(f"v{i}", f"v{i}", "dynamic") for i in range(300)]
    edges = [Edge(f"v{i}", f"v{i + 1}", "data") for i in range(299)]
    edges += [Edge("v0", f"v{299 - i}", "data") for i in range(150)]
    edges += [Edge(f"v{i}", "v299", "data") for i in range(1, 152)]
    start = time.perf_counter()
    root = ET.fromstring(to_svg(vertices, edges))
    assert time.perf_counter() - start < 1.0
    assert len(edge_groups(root)) == len(edges) == 600

