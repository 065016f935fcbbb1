"""Human views of a network: formulas, DOT text and SVG drawings.

Unnamed machines are numbered ``m1, m2, …`` and unnamed sources ``s1, s2,
…`` in the order a formula meets them, reading from the outermost operation
inwards, so the same network always prints the same way. Each name shown
stands for one machine or source: numbers skip the names users gave, and a
name given to two is told apart (``X``, ``X#2``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from wirework.graph import drawing
from wirework.graph.nodes import Node
from wirework.graph.topology import ancestry

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine

__all__ = ["formula", "to_dot", "to_svg", "view_names"]

_MAX_LENGTH = 400


class _Names:
    """Display names for the machines and sources of one view, unique within it.

    A name given by the user wins: the first item of the view holding it (in
    reading order) shows it as is, and a later item holding the same name
    shows it with ``#2``, ``#3``… Unnamed machines are numbered ``m1, m2, …``
    and unnamed sources ``s1, s2, …`` in reading order, skipping every name
    the view holds already. Machines and sources share one namespace.
    """

    def __init__(self, items: Iterable[Machine | Node] = (), *, taken: Iterable[str] = ()) -> None:
        self._names: dict[int, str] = {}
        self._counts = {"machine": 0, "source": 0}
        items = list(items)
        # every name a user gave, reserved before any is handed out: auto names and suffixes skip them all
        self._reserved: set[str] = {name for item in items if (name := _given(item))}
        # names shown beside the view (a machine's own, next to its arguments): no item of the view takes them
        self._shown: set[str] = set(taken)
        for item in items:
            self(item)

    def __call__(self, item: Machine | Node) -> str:
        key = id(item)
        name = self._names.get(key)
        if name is None:
            given = _given(item)
            if given is not None:
                name, k = given, 1
                # a later item with a name the view shows already: the next number no user gave as a name
                while name in self._shown or (k > 1 and name in self._reserved):
                    k += 1
                    name = f"{given}#{k}"
            else:
                kind = "machine" if item.kind == "machine" else "source"
                while True:
                    self._counts[kind] += 1
                    name = f"{kind[0]}{self._counts[kind]}"
                    if name not in self._reserved and name not in self._shown:
                        break
            self._shown.add(name)
            self._names[key] = name
        return name


def _given(item: Machine | Node) -> str | None:
    """The name the user gave ``item``, or ``None`` (an empty name counts as none)."""
    return getattr(item, "name", None) or None


def _reading_order(targets: Iterable[Node]) -> list[Machine | Node]:
    """The machines and sources the formulas of ``targets`` show, in the order they are read: outermost first,
    left to right, each once (iterative: no recursion limit)."""
    found: list[Machine | Node] = []
    seen: set[int] = set()
    for target in targets:
        stack = [target]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if node.kind == "dynamic":
                if id(node.machine) not in seen:
                    seen.add(id(node.machine))
                    found.append(node.machine)
            elif node.kind == "source":
                found.append(node)
            stack.extend(reversed(node.parents))
    return found


def _constant(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array<{value.shape}>"
    if hasattr(value, "shape") and hasattr(value, "columns"):
        return f"DataFrame<{value.shape}>"
    if type(value).__module__.startswith("pandas") and type(value).__name__ in ("Series", "Index"):
        return f"{type(value).__name__}<{value.shape}>"  # its repr spans lines
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _completed(targets: Sequence[Node]) -> tuple[list[Node], list[Machine]]:
    """The nodes and machines of the completed graph upstream of ``targets``: the ordinary ancestry first, then
    what the machines met are trained on (training edges), round by round, each once."""
    seen: set[int] = set()
    nodes: list[Node] = []
    machines: list[Machine] = []
    pending, done = list(targets), 0
    while pending:
        for node in ancestry(pending):
            if id(node) in seen:
                continue
            seen.add(id(node))
            nodes.append(node)
            if node.kind == "dynamic" and id(node.machine) not in seen:
                seen.add(id(node.machine))
                machines.append(node.machine)
        pending = [a for m in machines[done:] for a in m.args if id(a) not in seen]
        done = len(machines)
    return nodes, machines


def view_names(targets: Sequence[Node], *, also: Sequence[Machine] = (), more: Sequence[Machine] = ()) -> _Names:
    """The names of one view of ``targets``: their formulas, the drawing of their completed graph, a composite's
    ``report_()`` and ``fitted_params_()`` keys. The machines and sources the formulas show come first, in reading
    order; then the machines and sources reached through training edges only; then the machines ``more`` not met
    (see :class:`_Names`). The names of the machines ``also`` are taken (a machine's own, shown next to its
    arguments)."""
    return _view(targets, also=also, more=more)[2]


def _view(
    targets: Sequence[Node], *, also: Sequence[Machine] = (), more: Sequence[Machine] = ()
) -> tuple[list[Node], list[Machine], _Names]:
    """The completed graph of ``targets`` (:func:`_completed`) and the names :func:`view_names` gives."""
    nodes, machines = _completed(targets)
    items = [*_reading_order(targets), *machines, *(n for n in nodes if n.kind == "source"), *more]
    return nodes, machines, _Names(items, taken=[name for m in also if (name := _given(m))])


def formulas(targets: Sequence[Node], *, also: Sequence[Machine] = ()) -> list[str]:
    """Each node as an expression (see :func:`formula`), machines and sources named once across all of them:
    a machine's training arguments from two unnamed sources read ``s1, s2``, not ``s1, s1``. The names of the
    machines ``also`` are taken too (a machine's own, shown next to its arguments). Named as :func:`view_names` says,
    so as the drawing names them."""
    shown = view_names(targets, also=also)
    return [formula(target, shown) for target in targets]


def formula(target: Node, names: _Names | None = None) -> str:
    """The node as an expression, e.g. ``inverse_transform(m1, predict(m2, X))``.

    Machines and sources are named as :class:`_Names` says. Subexpressions
    longer than a few hundred characters are cut with ``…``.
    """
    if names is None:
        names = view_names([target])
    texts: dict[int, str] = {}
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
    nodes, machines, names = _view([target])
    ids = {id(node): f"node{k}" for k, node in enumerate(nodes, start=1)}
    ids.update((id(machine), f"machine{k}") for k, machine in enumerate(machines, start=1))
    vertices: list[drawing.Vertex] = []
    edges: list[drawing.Edge] = []
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
