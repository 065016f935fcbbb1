"""Orders over a learning network.

Two graphs live in one network:

* the **ordinary** graph: each node points to its parents. It says how a
  value is computed from the sources once every machine is trained.
* the **completed** graph: the ordinary graph plus *training edges*, from
  each training argument of a machine to every node the machine labels. It
  says what must be trained before what.

Nodes and machines say what they require in the completed graph through
``_requires()`` and what they are through ``kind`` (``"source"``,
``"dynamic"``, ``"static"`` or ``"machine"``).

Both graphs are acyclic by construction: a machine's training arguments are fixed
when it is created, before any node it labels exists, and nodes are
immutable. All traversals here are iterative (no recursion limit) and
deterministic (parents are visited left to right).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from wirework.errors import GraphError

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine
    from wirework.graph.nodes import Node

__all__ = [
    "CLOCK",
    "TrainingGraph",
    "ancestry",
    "owing_outputs",
    "parents_of",
    "post_order",
    "reading_outside",
    "requirements_of",
    "stamps",
    "state_of",
    "training_graph",
    "training_order",
    "upstream",
    "upstream_machines",
    "upstream_sources",
    "version_of",
]

#: A machine's state counter and a source's data version (mapped over upstream ones by the retraining rules).
state_of = operator.attrgetter("_state")
version_of = operator.attrgetter("version")


#: Bumped (``CLOCK[0] += 1``) whenever a machine's state or a source's version changes (a training, new data, a
#: training carried over): the stamps computed outside a fit pass (see :func:`stamps`) hold while it is unchanged.
CLOCK = [0]


#: What a walk follows: a node's ordinary edges, and the completed graph's (a machine's arguments, a node's machine).
parents_of = operator.attrgetter("parents")
requirements_of = operator.methodcaller("_requires")


def post_order(
    roots: Iterable[Any], children: Callable[[Any], Iterable[Any]], seen: set[int] | None = None
) -> Iterator[Any]:
    """Each item reachable from ``roots`` through ``children`` (roots included), after every item it reaches,
    each once: a depth-first walk without recursion (networks deeper than Python's recursion limit).

    ``seen``: ids of items to skip; each item walked is added to it.
    """
    seen = set() if seen is None else seen
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(children(root)))]
        while stack:
            item, pending = stack[-1]
            for child in pending:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(children(child))))
                    break
            else:
                stack.pop()
                yield item


def ancestry(roots: Iterable[Node]) -> list[Node]:
    """Nodes the ``roots`` depend on through ordinary edges, parents first.

    The result is a topological order of the ordinary graph restricted to the
    roots' ancestors (each root included); evaluating nodes in this order
    finds every parent's value ready.
    """
    return list(post_order(roots, parents_of))


def training_order(roots: Iterable[Node | Machine]) -> list[Machine]:
    """Machines the ``roots`` depend on through the completed graph, in an
    order in which each machine comes after every machine it needs.

    A root that is itself a machine is included last among its dependencies.
    """
    return [item for item in post_order(roots, requirements_of) if item.kind == "machine"]


class TrainingGraph:
    """The machines some roots need, in training order, and who needs whom among them.

    ``machines[k]`` needs ``needs[k]`` machines of the graph directly and is
    directly needed by ``machines[j]`` for each ``j`` in ``dependants[k]``.
    A machine needs every machine labelling a node its training arguments
    are computed from, and what those need in turn; it needs directly the
    few that stand for all of them (``machine._needs``, see :func:`_walk`),
    so the graph has about one edge per wire however deep the network, and
    a machine is ready exactly when it would be with an edge to each
    machine it needs. ``owed[k]`` names the training output of ``machines[k]`` a node of the
    graph takes (``"fit_transform"`` or ``"fit_predict"``; ``None``: none.
    See :func:`owing_outputs`). Nodes and machines are immutable, so each
    keeps the graph of its own ancestry (``_training_graph()``).
    """

    __slots__ = ("machines", "needs", "dependants", "owed", "_waves")

    def __init__(self, machines: tuple[Machine, ...], owing: Mapping[int, str] | None = None) -> None:
        position = {id(m): k for k, m in enumerate(machines)}
        dependants: list[list[int]] = [[] for _ in machines]
        needs = []
        for k, machine in enumerate(machines):
            if machine._needs is None:  # not met by a walk yet (see _walk)
                _walk([machine])
            direct = {position[id(u)] for u in machine._needs}
            needs.append(len(direct))
            for j in sorted(direct):
                dependants[j].append(k)
        self.machines = machines
        self.needs = tuple(needs)
        self.dependants = tuple(map(tuple, dependants))
        owing = owing or {}
        self.owed = tuple(owing.get(id(m)) for m in machines)
        self._waves: tuple[int, ...] | None = None

    @classmethod
    def of(cls, root: Node | Machine) -> TrainingGraph:
        """The graph of what ``root`` needs (a node's, or a machine's with the machine last)."""
        machines = tuple(_walk([root]))
        return cls(machines, owing_outputs([root], machines))

    def waves(self) -> tuple[int, ...]:
        """Positions in the order a pass visits them when each fit ends before the next starts.

        Wave by wave: the machines that need nothing, in training order; then
        those whose last need was met in the previous wave, in training order;
        and so on. Computed once.
        """
        if self._waves is None:
            waiting = list(self.needs)
            wave = [k for k, n in enumerate(waiting) if n == 0]
            order: list[int] = []
            while wave:
                order.extend(wave)
                following = []
                for k in wave:
                    for j in self.dependants[k]:
                        waiting[j] -= 1
                        if waiting[j] == 0:
                            following.append(j)
                wave = sorted(following)
            self._waves = tuple(order)
        return self._waves


def training_graph(roots: Iterable[Node | Machine]) -> TrainingGraph:
    """The :class:`TrainingGraph` of ``roots``: its machines are ``training_order(roots)``.

    Built from the graph each root keeps: a depth-first search from a later
    root, skipping what earlier roots reached, finds the machines it would
    find alone, minus those, in the same order.
    """
    roots = list(roots)
    if len(roots) == 1:
        return roots[0]._training_graph()
    order: list[Machine] = []
    seen: set[int] = set()
    owing: dict[int, str] = {}
    for root in roots:
        graph = root._training_graph()
        for machine, owed in zip(graph.machines, graph.owed):
            if owed:
                _owe(owing, machine, owed)
            if id(machine) not in seen:
                seen.add(id(machine))
                order.append(machine)
    return TrainingGraph(tuple(order), owing)


def _walk(roots: Iterable[Node | Machine]) -> list[Machine]:
    """``training_order(roots)``, giving each machine met its direct needs (``machine._needs``) on the way.

    A machine needs the machines labelling a node in the ordinary ancestry
    of its training arguments, and what they need. A few stand for all: a
    node's ancestry is stood for by none (a source), its parents' (a static
    node), or ``mach`` and those of ``p`` that ``mach`` does not need
    directly (``mach.op(p)``); a machine directly needs those of its
    arguments (one, in a chain). What it needs through them is all it needs,
    and the last of those to be done is one of them (none is done before
    what it needs), so a pass readies each machine when an edge to each
    machine needed would. One walk of the completed graph.
    """
    standing: dict[int, tuple] = {}
    machines = []
    for item in post_order(roots, requirements_of):
        kind = item.kind
        if kind == "machine":
            item._needs = _joined([standing[id(arg)] for arg in item.args])
            machines.append(item)
        elif kind == "dynamic":
            machine = item.machine
            inner = standing[id(item.parents[0])]
            if inner:  # what the machine itself needs is needed through it already
                covered = {id(m) for m in machine._needs}
                covered.add(id(machine))
                inner = tuple(m for m in inner if id(m) not in covered)
            standing[id(item)] = (machine, *inner)
        else:  # a source has no parents
            standing[id(item)] = _joined([standing[id(parent)] for parent in item.parents])
    return machines


def _joined(parts: list[tuple]) -> tuple:
    """The machines of ``parts``, each once, in order of first appearance (one part: itself)."""
    if len(parts) == 1:
        return parts[0]
    return tuple({id(m): m for part in parts for m in part}.values())


def stamps(nodes: Iterable[Node], token: object) -> tuple[int, int]:
    """The states of the machines and the versions of the sources upstream of ``nodes`` (ordinary edges), as two
    sums: each machine's state and each source's version counted once per path from a node of ``nodes`` to it.

    States and versions only grow, so a sum is unchanged exactly when every
    term is: what the retraining rules compare (conditions 3 and 4) at the
    cost of two numbers per machine, where the states themselves took one
    number per machine upstream. Each node keeps its own sums
    (``node._stamp``), valid for ``token``: a fit pass's (nothing upstream
    of a node whose sums it asks for trains again in that pass), or
    ``CLOCK[0]`` outside a pass. A pass asks for the sums of each machine's
    arguments after the machines it needs trained, so it computes each
    node's sums once, from its parents'.
    """
    states = versions = 0
    for node in nodes:
        found = node._stamp
        if found is None or found[0] is not token:
            # Inline, the common case (a source; a node whose parents have theirs): no call on a refit's path.
            if node.kind == "source":
                found = node._stamp = (token, 0, node.version)
            else:
                found = None
                node_states = node_versions = 0
                for parent in node.parents:
                    have = parent._stamp
                    if have is None or have[0] is not token:
                        break
                    node_states += have[1]
                    node_versions += have[2]
                else:
                    if node.kind == "dynamic":
                        node_states += node.machine._state
                    found = node._stamp = (token, node_states, node_versions)
                if found is None:
                    found = _stamp(node, token)
        states += found[1]
        versions += found[2]
    return states, versions


def _stamp(node: Node, token: object) -> tuple[object, int, int]:
    """``node._stamp`` for ``token``, computed from its parents' (theirs first, when they lack one): iteratively,
    visiting only the nodes without sums for ``token``."""
    stack = [node]
    while stack:
        item = stack[-1]
        found = item._stamp
        if found is not None and found[0] is token:  # met twice
            stack.pop()
            continue
        missing = [p for p in item.parents if p._stamp is None or p._stamp[0] is not token]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        kind = item.kind
        if kind == "source":
            item._stamp = (token, 0, item.version)
            continue
        states = versions = 0
        for parent in item.parents:
            states += parent._stamp[1]
            versions += parent._stamp[2]
        if kind == "dynamic":
            states += item.machine._state
        item._stamp = (token, states, versions)
    return node._stamp


#: The operation of a node that takes a machine's training output, and the method that gives it.
_TRAINING_OUTPUTS = {"transform": "fit_transform", "fit_transform": "fit_transform", "fit_predict": "fit_predict"}


def owing_outputs(roots: Iterable[Node | Machine], machines: Iterable[Machine]) -> dict[int, str]:
    """The ``machines`` whose training output a node takes, by id, each with the method giving that output:
    ``"fit_transform"`` for a node ``mach.transform(X)`` or ``mach.fit_transform(X)``, ``"fit_predict"`` for
    ``mach.fit_predict(X)``, ``X`` being the machine's own first training argument, upstream of the ``roots`` or
    of a training argument of the ``machines`` (those the roots need: see ``Machine``, "Training output").

    Raises
    ------
    GraphError
        A machine whose ``fit_transform`` and ``fit_predict`` outputs are both taken: it trains by one method.
    """
    nodes = [root for root in roots if root.kind != "machine"]
    nodes.extend(arg for machine in machines for arg in machine.args)
    owing: dict[int, str] = {}
    for node in ancestry(nodes):
        if node.kind == "dynamic" and node.operation in _TRAINING_OUTPUTS and node.parents[0] is node.machine.args[0]:
            _owe(owing, node.machine, _TRAINING_OUTPUTS[node.operation])
    return owing


def _owe(owing: dict[int, str], machine: Machine, method: str) -> None:
    """Record in ``owing`` that a node takes the output of ``machine``'s ``method`` on its training data."""
    if owing.setdefault(id(machine), method) != method:
        raise GraphError(
            f"Nodes take both the fit_transform and the fit_predict output of {machine._title()} on its "
            "training data, but it trains by one of them. Take one: compute the other from new data "
            "(mach.transform of another node), or use two machines."
        )


def upstream(nodes: Iterable[Node]) -> tuple[tuple[Machine, ...], tuple[Node, ...]]:
    """``(upstream_machines(nodes), upstream_sources(nodes))`` from one walk of their ancestry (each in the
    same order as alone)."""
    found: dict[int, Machine] = {}
    sources = []
    for node in ancestry(nodes):
        kind = node.kind
        if kind == "dynamic":
            found.setdefault(id(node.machine), node.machine)
        elif kind == "source":
            sources.append(node)
    return tuple(found.values()), tuple(sources)


def reading_outside(machines: Iterable[Machine], sources: Collection[Node]) -> Machine | None:
    """The first of ``machines`` whose training arguments are computed from a source not in ``sources`` (ordinary
    edges), or ``None``: what ``upstream_sources(machine.args)`` of each would say, from one walk of their
    ancestries together, each node's answer computed once from its parents'."""
    outside: dict[int, bool] = {}
    seen: set[int] = set()
    for machine in machines:
        for node in post_order(machine.args, parents_of, seen):
            if node.kind == "source":
                outside[id(node)] = node not in sources
            else:
                outside[id(node)] = any(outside[id(parent)] for parent in node.parents)
        if any(outside[id(arg)] for arg in machine.args):
            return machine
    return None


def upstream_machines(nodes: Iterable[Node]) -> tuple[Machine, ...]:
    """Machines labelling a node in the ordinary ancestry of ``nodes``.

    These are the machines whose retraining changes the values of
    ``nodes`` (condition 3 of the retraining rules).
    """
    found: dict[int, Machine] = {}
    for node in ancestry(nodes):
        if node.kind == "dynamic":
            found.setdefault(id(node.machine), node.machine)
    return tuple(found.values())


def upstream_sources(nodes: Iterable[Node]) -> tuple[Node, ...]:
    """Sources in the ordinary ancestry of ``nodes``, in order of first encounter."""
    return tuple(node for node in ancestry(nodes) if node.kind == "source")
