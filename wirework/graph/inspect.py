"""Human views of a network: formulas, DOT text and SVG drawings.

Unnamed machines are numbered ``m1, m2, …`` and unnamed sources ``s1, s2,
…`` in the order a formula meets them, reading from the outermost operation
inwards, so the same network always prints the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from wirework.graph import drawing
from wirework.graph.nodes import Node
from wirework.graph.topology import ancestry

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine

__all__ = ["formula", "to_dot", "to_svg"]

_MAX_LENGTH = 400


class _Names:
    """Stable display names for the machines and sources of one view."""

    def __init__(self) -> None:
        self._names: dict[int, str] = {}
        self._counts = {"machine": 0, "source": 0}

    def __call__(self, item: Machine | Node) -> str:
        key = id(item)
        if key not in self._names:
            given = getattr(item, "name", None)
            if given:
                self._names[key] = given
            else:
                kind = "machine" if item.kind == "machine" else "source"
                self._counts[kind] += 1
                self._names[key] = f"{kind[0]}{self._counts[kind]}"
        return self._names[key]


def _constant(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array<{value.shape}>"
    if hasattr(value, "shape") and hasattr(value, "columns"):
        return f"DataFrame<{value.shape}>"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def formulas(targets: Sequence[Node]) -> list[str]:
    """Each node as an expression (see :func:`formula`), machines and sources numbered once across all of them:
    a machine's training arguments from two unnamed sources read ``s1, s2``, not ``s1, s1``."""
    names = _Names()
    return [formula(target, names) for target in targets]


def formula(target: Node, names: _Names | None = None) -> str:
    """The node as an expression, e.g. ``inverse_transform(m1, predict(m2, X))``.

    Subexpressions longer than a few hundred characters are cut with ``…``.
    """
    names = names or _Names()
    texts: dict[int, str] = {}
    # Name machines and sources in reading order (outermost first, left to right).
    stack = [target]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.kind == "dynamic":
            names(node.machine)
        elif node.kind == "source":
            names(node)
        stack.extend(reversed(node.parents))
    for node in ancestry([target]):
        if node.kind == "source":
            text = names(node)
        elif node.kind == "dynamic":
            text = f"{node.operation}({names(node.machine)}, {texts[id(node.parents[0])]})"
        else:
            parts = [texts[id(a)] if isinstance(a, Node) else _constant(a) for a in node.args]
            parts += [f"{k}={texts[id(v)] if isinstance(v, Node) else _constant(v)}" for k, v in node.kwargs.items()]
            text = node.template.format(*parts) if node.template else f"{node.label}({', '.join(parts)})"
        texts[id(node)] = text if len(text) <= _MAX_LENGTH else text[: _MAX_LENGTH - 1] + "…"
    return texts[id(target)]


def _graph(target: Node) -> tuple[list[drawing.Vertex], list[drawing.Edge]]:
    """Vertices and edges of the completed graph upstream of ``target``."""
    names = _Names()
    formula(target, names)  # fixes the display names of the formula's machines first
    ids: dict[int, str] = {}
    vertices: list[drawing.Vertex] = []
    edges: list[drawing.Edge] = []
    machines: list[Machine] = []
    pending: list[Node] = [target]
    nodes: list[Node] = []
    while pending:
        for node in ancestry(pending):
            if id(node) in ids:
                continue
            nodes.append(node)
            ids[id(node)] = f"node{len(nodes)}"
            if node.kind == "dynamic" and id(node.machine) not in ids:
                machines.append(node.machine)
                ids[id(node.machine)] = f"machine{len(machines)}"
        pending = [a for m in machines for a in m.args if id(a) not in ids]
    for node in nodes:
        if node.kind == "source":
            label = names(node)
        elif node.kind == "dynamic":
            label = node.operation
        else:
            label = node.label
        vertices.append(drawing.Vertex(ids[id(node)], label, node.kind))
        if node.kind == "dynamic":
            edges.append(drawing.Edge(ids[id(node.machine)], ids[id(node)], "operation"))
        edges.extend(drawing.Edge(ids[id(p)], ids[id(node)], "data") for p in node.parents)
    for machine in machines:
        label = f"{names(machine)}\n{type(machine.model).__name__}"
        vertices.append(drawing.Vertex(ids[id(machine)], label, "machine"))
        edges.extend(drawing.Edge(ids[id(a)], ids[id(machine)], "training") for a in machine.args)
    return vertices, edges


def to_dot(target: Node) -> str:
    """Graphviz DOT text of the completed graph upstream of ``target``."""
    return drawing.to_dot(*_graph(target))


def to_svg(target: Node) -> str:
    """SVG drawing of the completed graph upstream of ``target`` (no Graphviz needed)."""
    return drawing.to_svg(*_graph(target))
