"""The layout of :func:`wirework.graph.drawing.to_svg`: where each vertex and edge goes.

A simplified Sugiyama (layered) layout, drawn top to bottom:

1. *Layering.* A vertex's layer is the length of the longest path reaching
   it from a vertex with no incoming edge, so every edge points downwards.
2. *Dummies.* An edge spanning several layers gets one invisible point per
   layer it crosses, so it bends around vertices rather than through them
   (within a budget; beyond it the longest edges are drawn straight).
3. *Ordering.* Alternating down and up barycenter sweeps order each layer;
   the ordering with the fewest crossings wins. Ties go to input order.
4. *Coordinates.* Each vertex is pulled towards the mean abscissa of its
   neighbours, then the layer is spread out so that nothing overlaps.
5. *Routing.* Each edge is a polyline through its dummies, clipped to the
   outlines of its end vertices, with an arrowhead marker.

Everything is deterministic: the same input gives byte-identical output.

Step 1, :func:`_layers`, also finds cycles: :mod:`wirework.graph.drawing`
runs it on every graph it validates, for DOT output too. The text metrics
and geometry constants (pixels) are here; the SVG output draws with them.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirework.errors import GraphError

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.drawing import Vertex

# Geometry (pixels). Text is measured, not rendered: ~7.5 px per character.
_FONT_SIZE = 12
_CHAR_WIDTH = 7.5
_LINE_HEIGHT = 15.0
_MARGIN = 20.0
_LAYER_GAP = 50.0
_NODE_GAP = 24.0
_DUMMY_WIDTH = 8.0
_HEX_INSET = 0.3  # how far (in heights) a hexagon's points stick out
_MAX_SWEEPS = 8
_X_PASSES = 3
_MAX_DUMMIES = 5000  # bounds layout time on graphs with many long edges

_NEWLINE = re.compile(r"\r\n|\r|\n")


# --- Layering ---


def _layers(vertices: Sequence[Vertex], pairs: Sequence[tuple[int, int]]) -> list[int]:
    """Longest-path layer of each vertex; raise ``GraphError`` on a cycle."""
    n = len(vertices)
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    for t, h in pairs:
        succ[t].append(h)
        pred[h].append(t)
        indegree[h] += 1
    order = [i for i in range(n) if indegree[i] == 0]
    layer = [0] * n
    for v in order:  # `order` grows while we walk it (Kahn's algorithm)
        for w in succ[v]:
            layer[w] = max(layer[w], layer[v] + 1)
            indegree[w] -= 1
            if indegree[w] == 0:
                order.append(w)
    if len(order) < n:
        raise GraphError(_cycle_message(vertices, pred, indegree))
    return layer


def _cycle_message(
    vertices: Sequence[Vertex], pred: list[list[int]], indegree: list[int]
) -> str:
    # Every vertex left with a positive in-degree has a predecessor that is
    # also left, so walking predecessors from one of them must loop.
    v = next(i for i, d in enumerate(indegree) if d > 0)
    path: list[int] = []
    seen: dict[int, int] = {}
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = next(u for u in pred[v] if indegree[u] > 0)
    cycle = path[seen[v]:][::-1]
    first = cycle.index(min(cycle))  # start from the earliest vertex in input order
    cycle = cycle[first:] + cycle[: first + 1]
    shown = " -> ".join(repr(vertices[i].id) for i in cycle)
    return f"The graph contains a cycle: {shown}. A drawing must be acyclic."


# --- Sizes, dummies, ordering, coordinates and routing ---


def _label_lines(label: str) -> list[str]:
    return _NEWLINE.split(label)


def _vertex_size(vertex: Vertex) -> tuple[float, float]:
    lines = _label_lines(vertex.label)
    text_w = max(len(line) for line in lines) * _CHAR_WIDTH
    text_h = len(lines) * _LINE_HEIGHT
    if vertex.kind == "source":  # an ellipse holding the text box: scale by sqrt(2)
        w, h = text_w * 1.42 + 16, text_h * 1.42 + 8
    elif vertex.kind == "machine":
        h = text_h + 14
        w = text_w + 24 + 2 * _HEX_INSET * h
    else:
        w, h = text_w + 24, text_h + 14
    return max(w, 54.0), max(h, 32.0)


def _chains(
    n: int, pairs: Sequence[tuple[int, int]], layer: list[int]
) -> tuple[list[int], list[list[int]]]:
    """Split edges into chains through dummy nodes (ids from `n` on).

    Returns the layer of every node (vertices then dummies) and, per edge,
    its chain of nodes from tail to head. Within the dummy budget, the
    shortest edges are split first; edges beyond it stay two-node chains.
    """
    node_layer = list(layer)
    spans = [layer[h] - layer[t] for t, h in pairs]
    budget = _MAX_DUMMIES
    split = [False] * len(pairs)
    for j in sorted(range(len(pairs)), key=lambda j: (spans[j], j)):
        if spans[j] - 1 > budget:
            break
        budget -= spans[j] - 1
        split[j] = True
    chains = []
    for j, (t, h) in enumerate(pairs):
        chain = [t]
        if split[j]:
            for level in range(layer[t] + 1, layer[h]):
                chain.append(len(node_layer))
                node_layer.append(level)
        chains.append(chain + [h])
    return node_layer, chains


def _crossings(layers: list[list[int]], down: list[list[int]], pos: list[int]) -> int:
    total = 0
    for row in layers[:-1]:
        ends = sorted((pos[u], pos[v]) for u in row for v in down[u])
        seen: list[int] = []
        for _, b in ends:
            total += len(seen) - bisect_right(seen, b)
            insort(seen, b)
    return total


def _order(
    node_layer: list[int], up: list[list[int]], down: list[list[int]]
) -> list[list[int]]:
    """Order each layer by barycenter sweeps; keep the fewest-crossing order."""
    layers: list[list[int]] = [[] for _ in range(max(node_layer) + 1)]
    for v, level in enumerate(node_layer):
        layers[level].append(v)  # vertices in input order, then dummies
    pos = [0] * len(node_layer)

    def renumber(row: list[int]) -> None:
        for i, v in enumerate(row):
            pos[v] = i

    for row in layers:
        renumber(row)
    best, fewest, stale = [row[:] for row in layers], _crossings(layers, down, pos), 0
    for sweep in range(_MAX_SWEEPS):
        if fewest == 0 or stale >= 2:
            break
        downward = sweep % 2 == 0
        neighbours = up if downward else down
        levels = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for level in levels:
            row = layers[level]
            keys = {}
            for v in row:
                ns = neighbours[v]
                keys[v] = (sum(pos[u] for u in ns) / len(ns) if ns else float(pos[v]), v)
            row.sort(key=keys.__getitem__)  # ties: input order (node id)
            renumber(row)
        count = _crossings(layers, down, pos)
        if count < fewest:
            best, fewest, stale = [row[:] for row in layers], count, 0
        else:
            stale += 1
    return best


def _place(row: list[int], desired: list[float], width: list[float], x: list[float]) -> None:
    """Put `row` as close to `desired` as its left-to-right order allows.

    Pushing right from the left and left from the right each give a
    non-overlapping placement; their average is one too, and is balanced.
    """
    n = len(row)
    sep = [(width[row[i]] + width[row[i + 1]]) / 2 + _NODE_GAP for i in range(n - 1)]
    left, right = desired[:], desired[:]
    for i in range(1, n):
        left[i] = max(desired[i], left[i - 1] + sep[i - 1])
    for i in range(n - 2, -1, -1):
        right[i] = min(desired[i], right[i + 1] - sep[i])
    for i, v in enumerate(row):
        x[v] = (left[i] + right[i]) / 2


def _abscissae(
    layers: list[list[int]], width: list[float], up: list[list[int]], down: list[list[int]]
) -> list[float]:
    x = [0.0] * len(width)
    for row in layers:
        _place(row, [0.0] * len(row), width, x)

    def align(levels: range, neighbours: list[list[int]]) -> None:
        for level in levels:
            row = layers[level]
            desired = []
            for v in row:
                ns = neighbours[v]
                desired.append(sum(x[u] for u in ns) / len(ns) if ns else x[v])
            _place(row, desired, width, x)

    for _ in range(_X_PASSES):
        align(range(1, len(layers)), up)
        align(range(len(layers) - 2, -1, -1), down)
    align(range(1, len(layers)), up)
    return x


def _clip(
    centre: tuple[float, float], toward: tuple[float, float], kind: str, size: tuple[float, float]
) -> tuple[float, float]:
    """Where the segment from a vertex's centre to `toward` leaves its outline."""
    (cx, cy), (px, py) = centre, toward
    dx, dy = px - cx, py - cy
    a, b = size[0] / 2, size[1] / 2
    if dx == 0 and dy == 0:
        return centre
    if kind == "source":
        s = 1 / math.hypot(dx / a, dy / b)
    else:  # box, or hexagon {|y| <= b, |x| <= a - inset * |y| / b}
        inset = _HEX_INSET * size[1] if kind == "machine" else 0.0
        across = abs(dx) + inset * abs(dy) / b
        s = min(b / abs(dy) if dy else math.inf, a / across if across else math.inf)
    s = min(s, 1.0)
    return cx + dx * s, cy + dy * s


@dataclass(frozen=True)
class _Layout:
    width: float
    height: float
    centres: list[tuple[float, float]]  # one per vertex
    sizes: list[tuple[float, float]]  # one per vertex
    routes: list[list[tuple[float, float]]]  # one polyline per edge


def _layout(vertices: list[Vertex], pairs: list[tuple[int, int]], layer: list[int]) -> _Layout:
    n = len(vertices)
    if n == 0:
        return _Layout(2 * _MARGIN, 2 * _MARGIN, [], [], [])
    sizes = [_vertex_size(v) for v in vertices]
    node_layer, chains = _chains(n, pairs, layer)
    up: list[list[int]] = [[] for _ in node_layer]
    down: list[list[int]] = [[] for _ in node_layer]
    for chain in chains:
        if len(chain) == 2 and node_layer[chain[1]] - node_layer[chain[0]] > 1:
            continue  # an unsplit long edge does not take part in the layout
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
    layers = _order(node_layer, up, down)
    width = [s[0] for s in sizes] + [_DUMMY_WIDTH] * (len(node_layer) - n)
    x = _abscissae(layers, width, up, down)
    shift = _MARGIN - min(x[v] - width[v] / 2 for v in range(len(x)))
    x = [xi + shift for xi in x]
    layer_y, top = [], _MARGIN
    for row in layers:
        height = max([sizes[v][1] for v in row if v < n], default=20.0)
        layer_y.append(top + height / 2)
        top += height + _LAYER_GAP
    point = [(x[v], layer_y[node_layer[v]]) for v in range(len(node_layer))]
    multiplicity: dict[tuple[int, int], int] = {}
    for pair in pairs:
        multiplicity[pair] = multiplicity.get(pair, 0) + 1
    seen: dict[tuple[int, int], int] = {}
    routes = []
    for pair, chain in zip(pairs, chains):
        route = [point[v] for v in chain]
        copies, k = multiplicity[pair], seen.get(pair, 0)
        seen[pair] = k + 1
        if copies > 1 and len(chain) == 2:  # fan out parallel edges
            (x0, y0), (x1, y1) = route
            route.insert(1, ((x0 + x1) / 2 + (k - (copies - 1) / 2) * 14, (y0 + y1) / 2))
        t, h = pair
        route[0] = _clip(route[0], route[1], vertices[t].kind, sizes[t])
        route[-1] = _clip(route[-1], route[-2], vertices[h].kind, sizes[h])
        routes.append(route)
    return _Layout(
        width=max(x[v] + width[v] / 2 for v in range(len(x))) + _MARGIN,
        height=top - _LAYER_GAP + _MARGIN,
        centres=point[:n],
        sizes=sizes,
        routes=routes,
    )
