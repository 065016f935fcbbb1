"""Draw a small directed graph as Graphviz DOT text or as standalone SVG.

Neither output needs Graphviz installed: :func:`to_dot` only writes text, and
:func:`to_svg` lays the graph out itself. Both draw sources as ellipses,
dynamic nodes as boxes, static nodes as rounded boxes and machines as
light-yellow hexagons; "data" edges solid black, "training" edges dashed and
"operation" edges dotted grey.

This module holds the vertices and edges, their validation and the two
output formats. The SVG layout, a simplified Sugiyama (layered) layout drawn
top to bottom (layering, dummy points on long edges, barycenter ordering,
coordinates, routing), is in :mod:`wirework.graph._svg_layout`, with the
text metrics and geometry constants and the layering that also finds
cycles for :func:`to_dot`; its docstring describes each step.

Everything is deterministic: the same input gives byte-identical output.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wirework.errors import ArgumentError, GraphError, ParameterError
from wirework.graph._svg_layout import _FONT_SIZE, _HEX_INSET, _LINE_HEIGHT, _NEWLINE, _label_lines, _layers, _layout

__all__ = ["Vertex", "Edge", "to_dot", "to_svg"]

_VERTEX_KINDS = ("source", "dynamic", "static", "machine")
_EDGE_KINDS = ("data", "training", "operation")

_DOT_VERTEX = {
    "source": "shape=ellipse",
    "dynamic": "shape=box",
    "static": "shape=box, style=rounded",
    "machine": 'shape=hexagon, style=filled, fillcolor="lightyellow"',
}
_DOT_EDGE = {
    "data": 'style=solid, color="black"',
    "training": 'style=dashed, color="black"',
    "operation": 'style=dotted, color="gray50"',
}
_SVG_FILL = {"source": "#eef4fb", "dynamic": "#ffffff", "static": "#ffffff", "machine": "#fff7c2"}
_SVG_EDGE = {  # stroke colour, dash pattern
    "data": ("#000000", ""),
    "training": ("#000000", "6,4"),
    "operation": ("#808080", "2,3"),
}

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _check_strings(owner: str, obj: object, names: tuple[str, ...]) -> None:
    for name in names:
        value = getattr(obj, name)
        if not isinstance(value, str):
            raise ArgumentError(
                f"{owner}.{name} must be a string. "
                f"Received: {value!r} ({type(value).__name__})."
            )


@dataclass(frozen=True)
class Vertex:
    """A vertex to draw.

    Parameters
    ----------
    id : str
        Identifier, unique within one drawing; edges refer to it.
    label : str
        Text shown in the vertex. May contain ``"\\n"`` for several lines
        and any characters (they are escaped on output).
    kind : {"source", "dynamic", "static", "machine"}
        Decides the shape: ellipse, box, rounded box or yellow hexagon.

    Raises
    ------
    ArgumentError
        If a field is not a string (a ``TypeError``).
    ParameterError
        If `kind` is not one of the four kinds above (a ``ValueError``).

    Examples
    --------
    >>> Vertex("X", "Source X", "source")
    Vertex(id='X', label='Source X', kind='source')
    """

    id: str
    label: str
    kind: str

    def __post_init__(self) -> None:
        _check_strings("Vertex", self, ("id", "label", "kind"))
        if self.kind not in _VERTEX_KINDS:
            raise ParameterError(
                f"Vertex {self.id!r} has unknown kind {self.kind!r}. "
                f"Expected one of: {', '.join(map(repr, _VERTEX_KINDS))}."
            )


@dataclass(frozen=True)
class Edge:
    """A directed edge to draw, from `tail` to `head`.

    Parameters
    ----------
    tail : str
        Id of the vertex the edge leaves.
    head : str
        Id of the vertex the edge enters.
    kind : {"data", "training", "operation"}
        ``"data"``: an ordinary edge (solid). ``"training"``: from a
        machine's training argument to the machine (dashed).
        ``"operation"``: from a machine to a node it labels (dotted grey).

    Raises
    ------
    ArgumentError
        If a field is not a string (a ``TypeError``).
    ParameterError
        If `kind` is not one of the three kinds above (a ``ValueError``).

    Examples
    --------
    >>> Edge("X", "mach", "training")
    Edge(tail='X', head='mach', kind='training')
    """

    tail: str
    head: str
    kind: str

    def __post_init__(self) -> None:
        _check_strings("Edge", self, ("tail", "head", "kind"))
        if self.kind not in _EDGE_KINDS:
            raise ParameterError(
                f"Edge {self.tail!r} -> {self.head!r} has unknown kind {self.kind!r}. "
                f"Expected one of: {', '.join(map(repr, _EDGE_KINDS))}."
            )


# --- Validation ---


def _preview(names: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    if len(names) > limit:
        shown += f", ... ({len(names) - limit} more)"
    return shown or "(none)"


def _check_graph(
    vertices: Sequence[Vertex], edges: Sequence[Edge]
) -> tuple[list[Vertex], list[Edge], list[tuple[int, int]], list[int]]:
    """Validate the graph; return it as lists, edges as index pairs, and layers."""
    vertices, edges = list(vertices), list(edges)
    index: dict[str, int] = {}
    for i, vertex in enumerate(vertices):
        if not isinstance(vertex, Vertex):
            raise ArgumentError(
                f"Expected a sequence of Vertex objects. "
                f"Received at position {i}: {vertex!r} ({type(vertex).__name__})."
            )
        if vertex.id in index:
            raise GraphError(
                f"Duplicate vertex id {vertex.id!r} at positions {index[vertex.id]} "
                f"and {i}. Vertex ids must be unique within a drawing."
            )
        index[vertex.id] = i
    pairs: list[tuple[int, int]] = []
    for j, edge in enumerate(edges):
        if not isinstance(edge, Edge):
            raise ArgumentError(
                f"Expected a sequence of Edge objects. "
                f"Received at position {j}: {edge!r} ({type(edge).__name__})."
            )
        for end, role in ((edge.tail, "tail"), (edge.head, "head")):
            if end not in index:
                raise GraphError(
                    f"Edge {j} refers to unknown vertex {end!r} (as its {role}). "
                    f"Known vertices: {_preview(list(index))}."
                )
        pairs.append((index[edge.tail], index[edge.head]))
    return vertices, edges, pairs, _layers(vertices, pairs)  # raises on a cycle


# --- DOT ---


def _dot_quote(text: str) -> str:
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _NEWLINE.sub(r"\\n", text) + '"'


def to_dot(vertices: Sequence[Vertex], edges: Sequence[Edge], *, name: str = "network") -> str:
    """Write a graph as Graphviz DOT text, drawn top to bottom.

    Parameters
    ----------
    vertices : sequence of Vertex
        The vertices, with unique ids.
    edges : sequence of Edge
        The edges; both ends must be ids of `vertices`, and the graph must be
        acyclic.
    name : str, default="network"
        Name of the ``digraph``.

    Returns
    -------
    str
        DOT source; ids and labels are quoted and escaped.

    Raises
    ------
    GraphError
        For a duplicate vertex id, an edge to an unknown vertex, or a cycle
        (a ``ValueError``).
    ArgumentError
        If an element is not a :class:`Vertex` or :class:`Edge` (a
        ``TypeError``).

    See Also
    --------
    to_svg : Draw the same graph without Graphviz.

    Examples
    --------
    >>> vertices = [Vertex("X", "X", "source"), Vertex("W", "transform", "dynamic")]
    >>> print(to_dot(vertices, [Edge("X", "W", "data")]))
    digraph "network" {
      rankdir=TB;
      node [fontname="Helvetica", fontsize=12];
      "X" [label="X", shape=ellipse];
      "W" [label="transform", shape=box];
      "X" -> "W" [style=solid, color="black"];
    }
    """
    vertices, edges, _, _ = _check_graph(vertices, edges)
    if not isinstance(name, str):
        raise ArgumentError(f"name must be a string. Received: {name!r} ({type(name).__name__}).")
    lines = [
        f"digraph {_dot_quote(name)} {{",
        "  rankdir=TB;",
        f'  node [fontname="Helvetica", fontsize={_FONT_SIZE}];',
    ]
    for v in vertices:
        lines.append(f"  {_dot_quote(v.id)} [label={_dot_quote(v.label)}, {_DOT_VERTEX[v.kind]}];")
    for e in edges:
        lines.append(f"  {_dot_quote(e.tail)} -> {_dot_quote(e.head)} [{_DOT_EDGE[e.kind]}];")
    lines.append("}")
    return "\n".join(lines)


# --- SVG output ---


def _xml(text: str) -> str:
    text = _XML_INVALID.sub("\ufffd", text)
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _num(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _svg_shape(vertex: Vertex, size: tuple[float, float]) -> str:
    w, h = size
    style = f'fill="{_SVG_FILL[vertex.kind]}" stroke="#000000" stroke-width="1"'
    if vertex.kind == "source":
        return f'<ellipse cx="0" cy="0" rx="{_num(w / 2)}" ry="{_num(h / 2)}" {style}/>'
    if vertex.kind == "machine":
        a, b, i = w / 2, h / 2, _HEX_INSET * h
        corners = [(-a, 0), (-a + i, -b), (a - i, -b), (a, 0), (a - i, b), (-a + i, b)]
        points = " ".join(f"{_num(px)},{_num(py)}" for px, py in corners)
        return f'<polygon points="{points}" {style}/>'
    rounded = ' rx="8" ry="8"' if vertex.kind == "static" else ""
    return (
        f'<rect x="{_num(-w / 2)}" y="{_num(-h / 2)}" width="{_num(w)}" '
        f'height="{_num(h)}"{rounded} {style}/>'
    )


def _svg_text(label: str) -> str:
    lines = _label_lines(label)
    first = -(len(lines) - 1) * _LINE_HEIGHT / 2 + _FONT_SIZE / 3  # baseline of line 1
    spans = "".join(
        f'<tspan x="0" y="{_num(first + i * _LINE_HEIGHT)}">{_xml(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f'<text text-anchor="middle" fill="#000000">{spans}</text>'


def to_svg(vertices: Sequence[Vertex], edges: Sequence[Edge]) -> str:
    """Lay a graph out top to bottom and draw it as a standalone SVG document.

    No Graphviz is needed: the layout is a simplified Sugiyama one (see the
    module docstring). Each vertex is a ``<g class="vertex KIND">`` group,
    translated to the vertex centre, holding a ``<title>`` (the id), one
    shape and one ``<text>``; each edge is a ``<g class="edge KIND">`` group
    holding a ``<title>`` and one ``<path>`` ending in an arrowhead.

    Parameters
    ----------
    vertices : sequence of Vertex
        The vertices, with unique ids. Input order breaks ordering ties.
    edges : sequence of Edge
        The edges; both ends must be ids of `vertices`, and the graph must be
        acyclic.

    Returns
    -------
    str
        An ``<svg xmlns="http://www.w3.org/2000/svg" ...>`` document with
        all text XML-escaped. The same input always gives the same string.

    Raises
    ------
    GraphError
        For a duplicate vertex id, an edge to an unknown vertex, or a cycle
        (a ``ValueError``).
    ArgumentError
        If an element is not a :class:`Vertex` or :class:`Edge` (a
        ``TypeError``).

    See Also
    --------
    to_dot : The same graph as Graphviz DOT text.

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> vertices = [
    ...     Vertex("X", "X", "source"),
    ...     Vertex("m", "machine:\\nStandardScaler", "machine"),
    ...     Vertex("W", "transform", "dynamic"),
    ... ]
    >>> edges = [Edge("X", "m", "training"), Edge("m", "W", "operation"), Edge("X", "W", "data")]
    >>> svg = to_svg(vertices, edges)
    >>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True
    >>> root = ET.fromstring(svg)
    >>> len(root.findall(".//{http://www.w3.org/2000/svg}text"))
    3
    """
    vertices, edges, pairs, layer = _check_graph(vertices, edges)
    layout = _layout(vertices, pairs, layer)
    w, h = _num(math.ceil(layout.width)), _num(math.ceil(layout.height))
    # Marker ids depend on the content, so several drawings can share a page.
    digest = hashlib.sha256(
        repr((vertices, edges)).encode("utf-8", "backslashreplace")
    ).hexdigest()[:10]
    marker = {c: f"ww-arrow-{digest}-{c.lstrip('#')}" for c, _ in _SVG_EDGE.values()}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="Helvetica, Arial, sans-serif" '
        f'font-size="{_FONT_SIZE}">',
        "<defs>",
    ]
    for colour, ident in marker.items():
        out.append(
            f'<marker id="{ident}" viewBox="0 0 10 10" refX="10" refY="5" '
            f'markerWidth="7" markerHeight="7" orient="auto">'
            f'<path d="M 0 0 L 10 5 L 0 10 z" fill="{colour}"/></marker>'
        )
    out.append("</defs>")
    out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>')
    for edge, route in zip(edges, layout.routes):
        colour, dashes = _SVG_EDGE[edge.kind]
        d = "M " + " L ".join(f"{_num(px)} {_num(py)}" for px, py in route)
        dash = f' stroke-dasharray="{dashes}"' if dashes else ""
        out.append(
            f'<g class="edge {edge.kind}"><title>{_xml(edge.tail)} -&gt; {_xml(edge.head)}'
            f'</title><path d="{d}" fill="none" stroke="{colour}" stroke-width="1.2"{dash} '
            f'marker-end="url(#{marker[colour]})"/></g>'
        )
    for vertex, (cx, cy), size in zip(vertices, layout.centres, layout.sizes):
        out.append(
            f'<g class="vertex {vertex.kind}" transform="translate({_num(cx)},{_num(cy)})">'
            f"<title>{_xml(vertex.id)}</title>{_svg_shape(vertex, size)}"
            f"{_svg_text(vertex.label)}</g>"
        )
    out.append("</svg>")
    return "\n".join(out)
