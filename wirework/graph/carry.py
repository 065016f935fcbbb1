"""Carrying the training of a network's machines over to the same network built again.

A composite whose structure changes (a learner dropped from a stack, a step
added to a pipeline) builds a new network. Many of its machines are the old
ones again: a machine of the same name (or alias: a builder that renames a
machine computing the same, as a stack's level-1 learners when a level is
added, matches it by an alias) and model class, trained on nodes
computed in the same way (the same operations of matched machines, the same
functions of equal constants) from the same sources. :func:`carry_over`
finds them and gives each the training of its old counterpart, so that the
retraining rules (``Machine``) decide about it as they would have about the
old machine: a model whose hyperparameters changed meanwhile is updated
(condition 6), new data retrains it (condition 4), and otherwise it is left
alone. Only what the change touches trains.

The new network must be built on the old network's source objects (their
data versions are part of what a machine saw when it trained).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any

from wirework.graph.fingerprint import tokenize
from wirework.graph.machines import Machine
from wirework.graph.nodes import Node
from wirework.graph.topology import stamps

__all__ = ["carry_over", "constant_tokens"]


def carry_over(
    old: Iterable[Machine],
    new: Iterable[Machine],
    roles: Mapping[Node, str],
    *,
    aliases: tuple[Mapping[str, Hashable], Mapping[str, Hashable]] = ({}, {}),
    tokens: Mapping[Node, str | None] | None = None,
) -> list[Machine]:
    """Give each machine of ``new`` that matches one machine of ``old`` that machine's training.

    Parameters
    ----------
    old, new : iterables of Machine
        The machines of the last build (trained or not) and of the new one,
        ``new`` in training order (each after the machines it needs).
    roles : mapping of Source to str
        The sources both builds are made from, each with its role (``"X"``,
        ``"y"``…): only these can match.
    aliases : pair of mappings of str to hashable, optional
        For ``old`` and for ``new``: what a machine of that name is matched
        by instead of its name, when the builder renamed a machine that
        computes the same (a stack's level-1 learner ``lr`` becomes
        ``lr_level1`` when a second level is added). A machine whose name
        is not a key is matched by its name; an alias never matches a
        plain name.
    tokens : mapping of Node to str or None, optional
        The content tokens of static nodes' constants as
        :func:`constant_tokens` took them when their network was built. Give
        at least ``old``'s: a constant changed in place since (a splitter's
        ``n_splits`` set on the very object the old network holds), read
        now, would show its new value in both builds, and the machines
        trained on the old value would be carried. A node not in it is
        read now.

    Returns
    -------
    list of Machine
        The machines of ``new`` that were given a training.

    Notes
    -----
    Two machines match when their lineage keys are equal: name (or alias), model class,
    and, for each training argument, how it is computed (a source's role; a
    static node's function and constants, compared by content token, and
    its parents' keys; a dynamic node's operation, its machine's key and its
    parent's key). A key shared by several machines of either build matches
    none, and a machine is carried only when every machine upstream of its
    training arguments was carried too, to the old machine's own upstream
    machines, and it reads the same sources: the states and versions the
    retraining rules compare are then the ones the old machine saw.

    The ancestries of a machine's arguments and of its match's are compared
    node by node, each pair of nodes once for the whole call, so carrying a
    network over takes time in proportion to its size, however deep. Where
    the builds differ in which nodes they share (one node of one build is
    two nodes of equal keys in the other), the machines after it compare
    what a walk of each ancestry finds, as before: the same decisions. Such
    a machine's snapshot is then restated in its own build's paths of wires,
    so the retraining rules see what changed since its training, and
    nothing else.
    """
    old, new = list(old), list(new)
    interned: dict[tuple, int] = {}  # each distinct key, as a number: keys stay flat however deep the network
    tokens = {} if tokens is None else tokens
    old_keys = _keys(old, roles, interned, aliases[0], tokens)
    new_keys = _keys(new, roles, interned, aliases[1], tokens)
    old_count = Counter(old_keys[id(m)] for m in old)
    new_count = Counter(new_keys[id(m)] for m in new)
    by_key = {old_keys[id(m)]: m for m in old}
    origin: dict[int, Machine] = {}
    aligned: dict[tuple[int, int], int] = {}  # _aligned's verdict on each pair of nodes met, for the whole call
    carried = []
    token = object()  # the sums of nodes' states and versions (see _restamp) hold for the call: no machine of
    # the new build upstream of a machine changes once that machine is met, nor any of the old build
    for machine in new:
        key = new_keys[id(machine)]
        if old_count[key] != 1 or new_count[key] != 1:  # unmatched, or ambiguous
            continue
        match = by_key[key]
        if match._fitted is None:
            continue
        verdict = _aligned(machine.args, match.args, origin, aligned)
        if verdict == _UNCARRIED:
            continue
        if verdict == _UNALIGNED:  # not alike node by node (nodes shared differently...): what the two walks find
            machines, sources = machine._upstream_of_args()
            old_machines, old_sources = match._upstream_of_args()
            if sources != old_sources or tuple(origin.get(id(m)) for m in machines) != old_machines:
                continue
        machine._adopt(match)
        origin[id(machine)] = match
        if verdict == _UNALIGNED:  # its snapshot's sums count the paths of the old build's wires
            _restamp(machine, match, token)
        carried.append(machine)
    return carried


def _restamp(machine: Machine, match: Machine, token: object) -> None:
    """Make what ``machine`` saw at its training (adopted from ``match``) hold in its own build.

    The snapshot's sums count each state and version upstream once per path of wires
    (:func:`~wirework.graph.topology.stamps`): where the builds share nodes differently (``ww.hcat(d, d)`` in one,
    two equal nodes in the other) the same machines and sources sum otherwise, and the retraining rules would see
    a change that is not there (the machine trained again, "condition 3: upstream state changed"). Each sum is
    judged as ``match``'s rules would judge it, in the old build: unchanged since its training, it is the new
    build's sum now; changed (a source's new data, an upstream machine trained again), it is ``-1``, which no sum
    equals (states and versions count from 0), so the rules retrain the machine for that very condition (for
    condition 3, the states kept of the machines it needs directly name those that changed). The training output it
    holds keeps its value on the same terms."""
    snap = machine._snapshot
    if snap is None or type(snap.upstream_states) is tuple:  # pickled by an earlier wirework: compared by walks
        return
    old_now, new_now = stamps(match.args, token), stamps(machine.args, token)

    def moved(seen: tuple) -> tuple[int, int]:
        return tuple(new if was == old else -1 for was, old, new in zip(seen, old_now, new_now))

    states, versions = moved((snap.upstream_states, snap.source_versions))
    machine._snapshot = snap._replace(upstream_states=states, source_versions=versions)
    if machine._output is not None:
        seen, output, method = machine._output
        machine._output = ((*moved(seen[:2]), *seen[2:]), output, method)


#: What :func:`_aligned` finds of two machines' training arguments: alike, position by position; unaligned (the
#: builds differ otherwise: nodes shared in one and not in the other, say); or a machine of the new build upstream
#: that was not carried (then neither is the machine).
_SAME, _UNALIGNED, _UNCARRIED = 0, 1, 2


def _aligned(
    new_args: tuple[Node, ...], old_args: tuple[Node, ...], origin: Mapping[int, Machine], verdicts: dict
) -> int:
    """Whether the machines and sources upstream of ``new_args`` are those upstream of ``old_args``, compared
    node by node.

    The walk of the arguments' ancestry (:func:`~wirework.graph.topology.upstream`) lists each machine and source
    where it first meets it, and a node met again adds nothing new: it lists what a walk of the ancestry unfolded
    into a tree (each node met again walked again) lists at first meetings. So two unfolded ancestries alike
    position by position (parents in equal numbers; at a source, the very same source; at a dynamic node, a new
    machine carried to the old machine there) give the same lists, the new machines mapped by ``origin``: the
    machine is carried (``_SAME``). A new machine upstream that was not carried (``origin`` lacks it) is in no
    list of old machines: it is not (``_UNCARRIED``). Otherwise (``_UNALIGNED``: a node shared in one build and
    built twice in the other, a source of the same role in another place) only the two walks can tell.

    ``verdicts``: the verdict on each pair of nodes met (by ids), kept for the whole :func:`carry_over` call, so
    each pair is compared once, from its parents' verdicts, without recursion. In two builds alike each new node
    pairs with one old node, and a network is carried over in time proportional to its size, however deep.
    """
    worst = _SAME if len(new_args) == len(old_args) else _UNALIGNED
    for root in zip(new_args, old_args):
        stack = [root]
        while stack:
            n, m = stack[-1]
            if (id(n), id(m)) in verdicts:  # met twice
                stack.pop()
                continue
            kind = n.kind
            if kind == "dynamic" and id(n.machine) not in origin:
                verdict = _UNCARRIED
            elif kind != m.kind or len(n.parents) != len(m.parents):
                verdict = _UNALIGNED
            else:
                pending = [(p, q) for p, q in zip(n.parents, m.parents) if (id(p), id(q)) not in verdicts]
                if pending:
                    stack.extend(pending)
                    continue
                verdict = max((verdicts[id(p), id(q)] for p, q in zip(n.parents, m.parents)), default=_SAME)
                if kind == "source":
                    alike = n is m
                else:
                    alike = kind == "static" or origin[id(n.machine)] is m.machine
                if not alike:
                    verdict = max(verdict, _UNALIGNED)
            verdicts[id(n), id(m)] = verdict
            stack.pop()
        worst = max(worst, verdicts[id(root[0]), id(root[1])])
    return worst


def constant_tokens(machines: Iterable[Machine]) -> dict[Node, str | None]:
    """The content token of the constants of each static node the ``machines`` train on (``None``: they have
    none), as they are now: taken when a network is built, for :func:`carry_over` to compare its nodes as
    they were built when the network is built again."""
    return {item: _constants_token(item) for item in _lineage(list(machines)) if item.kind == "static"}


def _lineage(machines: list[Machine]) -> Iterator[Any]:
    """Each machine and node the ``machines`` need, once, after what it requires (without recursion)."""
    seen: set[int] = set()
    for root in machines:
        stack = [(root, iter(root._requires()))]
        while stack:
            item, children = stack[-1]
            for child in children:
                if id(child) not in seen:
                    stack.append((child, iter(child._requires())))
                    break
            else:
                stack.pop()
                if id(item) not in seen:
                    seen.add(id(item))
                    yield item


def _keys(
    machines: list[Machine],
    roles: Mapping[Node, str],
    interned: dict[tuple, int],
    aliases: Mapping[str, Hashable],
    tokens: Mapping[Node, str | None],
) -> dict[int, Any]:
    """The lineage key of each machine and node the ``machines`` need (by id), computed parents first. A key is
    the number ``interned`` gives its description (a new one for a new description), or a fresh ``object()``,
    equal to nothing else, for a node whose constants cannot be compared."""
    keys: dict[int, Any] = {}
    for item in _lineage(machines):
        described = _describe(item, keys, roles, aliases, tokens)
        keys[id(item)] = object() if described is None else interned.setdefault(described, len(interned))
    return keys


def _describe(
    item: Any,
    keys: dict[int, Any],
    roles: Mapping[Node, str],
    aliases: Mapping[str, Hashable],
    tokens: Mapping[Node, str | None],
) -> tuple | None:
    """What ``item``'s key stands for, from the keys of what it requires; ``None``: it matches nothing."""
    kind = item.kind
    if kind == "machine":
        model = type(item.model)
        name = ("alias", aliases[item.name]) if item.name in aliases else ("name", item.name)
        return ("machine", name, model.__module__, model.__qualname__, *(keys[id(a)] for a in item.args))
    if kind == "dynamic":
        return ("dynamic", item.operation, keys[id(item.machine)], keys[id(item.parents[0])])
    if kind == "source":
        role = roles.get(item)
        return None if role is None else ("source", role)
    args = tuple(keys[id(a)] if isinstance(a, Node) else None for a in item.args)
    kwargs = tuple((k, keys[id(v)] if isinstance(v, Node) else None) for k, v in item.kwargs.items())
    token = tokens[item] if item in tokens else _constants_token(item)
    return None if token is None else ("static", token, args, kwargs)


def _constants_token(item: Any) -> str | None:
    """The content token of a static node's function and constants; ``None`` when they have none (the node then
    matches nothing)."""
    constants = (
        [a for a in item.args if not isinstance(a, Node)],
        {k: v for k, v in item.kwargs.items() if not isinstance(v, Node)},
    )
    try:
        return tokenize(item.function, constants)
    except Exception:  # constants without a content token
        return None
