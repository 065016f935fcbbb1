"""Property tests over random learning networks (acceptance 5).

Each test builds a random DAG of sources, machines (toy models that log
their fits), dynamic and static nodes, while keeping its own book of which
machine depends on which; the library's behaviour is compared with the book.
"""

import numpy as np
from _counting import Toy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wirework as ww
from wirework.graph.topology import ancestry, training_graph, training_order

N_ROWS = 6


@st.composite
def networks(draw):
    """A random network and its book: for each machine, the machines it needs directly; for each node, the
    machines whose transform of their own training X is in its ordinary ancestry (``owing``); for each
    machine, its training arguments' positions in ``nodes`` (``args``)."""
    n_sources = draw(st.integers(1, 3))
    nodes = [ww.source(np.arange(N_ROWS, dtype=float) + k, name=f"s{k}") for k in range(n_sources)]
    below = [set() for _ in nodes]  # machines in each node's ordinary ancestry
    owing = [set() for _ in nodes]
    machines, needs, positions = [], {}, {}
    for step in range(draw(st.integers(1, 12))):
        if draw(st.booleans()) or not machines:
            args = draw(st.lists(st.integers(0, len(nodes) - 1), min_size=1, max_size=2))
            mach = ww.machine(Toy(tag=f"m{len(machines)}"), *[nodes[i] for i in args])
            needs[mach] = set().union(*(below[i] for i in args))
            positions[mach] = args
            machines.append(mach)
            parent = draw(st.sampled_from([args[0], draw(st.integers(0, len(nodes) - 1))]))
            nodes.append(mach.transform(nodes[parent]))
            below.append(below[parent] | {mach})
            owing.append(owing[parent] | ({mach} if parent == args[0] else set()))
        else:
            i, j = draw(st.integers(0, len(nodes) - 1)), draw(st.integers(0, len(nodes) - 1))
            nodes.append(nodes[i] + nodes[j])
            below.append(below[i] | below[j])
            owing.append(owing[i] | owing[j])
    # Every machine labels at least one node reachable from the root.
    root = ww.node(lambda *values: sum(values), *nodes[n_sources:])
    book = {"nodes": nodes, "owing": owing, "args": positions}
    return root, machines, needs, book


def closure(start, needs, machines):
    """``start`` and every machine that needs it, directly or not."""
    found = set(start)
    changed = True
    while changed:
        changed = False
        for m in machines:
            if m not in found and needs[m] & found:
                found.add(m)
                changed = True
    return found


def fitted_tags():
    return list(Toy.events)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(networks())
def test_training_order_respects_the_completed_graph(net):
    root, machines, needs = net[:3]
    order = training_order([root])
    assert sorted(map(id, order)) == sorted(map(id, machines))
    position = {m: k for k, m in enumerate(order)}
    for m in machines:
        assert all(position[u] < position[m] for u in needs[m])
    nodes = ancestry([root])
    seen = set()
    for node in nodes:
        assert all(p in seen for p in node.parents)
        seen.add(node)


@SETTINGS
@given(networks(), st.data())
def test_training_graph_orders_as_training_order(net, data):
    root, machines, needs = net[:3]
    candidates = [*ancestry([root]), *machines]
    picks = data.draw(st.lists(st.integers(0, len(candidates) - 1), min_size=1, max_size=4))
    roots = [candidates[i] for i in picks]
    for _ in range(2):  # the second time from the graphs the roots now keep
        graph = training_graph(roots)
        assert list(graph.machines) == training_order(roots)
        direct = {m: set() for m in graph.machines}
        for k, m in enumerate(graph.machines):
            for j in graph.dependants[k]:
                direct[graph.machines[j]].add(m)
        wave = {}
        for k, m in enumerate(graph.machines):
            # only machines it needs, few of them, standing for all it needs through them
            assert graph.needs[k] == len(direct[m]) and direct[m] <= needs[m]
            assert all_needed(direct, m) == all_needed(needs, m)
            wave[m] = 1 + max((wave[u] for u in needs[m]), default=-1)
        # visited as with an edge to each machine needed: wave by wave, in training order within a wave
        position = {m: k for k, m in enumerate(graph.machines)}
        expected = sorted(graph.machines, key=lambda m: (wave[m], position[m]))
        assert [graph.machines[k] for k in graph.waves()] == expected


def all_needed(needs, machine):
    """The machines ``machine`` needs through ``needs`` (each machine's), directly or not."""
    found, stack = set(), [machine]
    while stack:
        for u in needs[stack.pop()]:
            if u not in found:
                found.add(u)
                stack.append(u)
    return found


@SETTINGS
@given(networks(), st.data())
def test_a_graph_owes_the_outputs_its_nodes_take(net, data):
    """``owed`` marks the machines whose transform of their own training X is upstream of a root or of a
    training argument of a machine the graph holds (and merging the roots' graphs keeps it)."""
    root, machines, needs, book = net
    nodes, owing, args = book["nodes"], book["owing"], book["args"]
    picks = data.draw(st.lists(st.sampled_from([*range(len(nodes)), *machines]), min_size=1, max_size=3))
    roots = [nodes[p] if isinstance(p, int) else p for p in picks]
    for _ in range(2):  # the second time from the graphs the roots now keep
        graph = training_graph(roots)
        expected = set().union(*(owing[p] for p in picks if isinstance(p, int)))
        for m in graph.machines:
            expected |= set().union(*(owing[i] for i in args[m]))
        assert {m for m, owed in zip(graph.machines, graph.owed) if owed} == expected


@SETTINGS
@given(networks())
def test_sequential_passes_visit_in_waves_whatever_the_error_mode(net):
    """The sequential loop that stops at the first failure visits as the general loop does."""
    root, machines, needs = net[:3]
    graph = training_graph([root])
    waves = graph.waves()
    assert sorted(waves) == list(range(len(graph.machines)))
    position = {graph.machines[k]: p for p, k in enumerate(waves)}
    for m in machines:
        assert all(position[u] < position[m] for u in needs[m])
    orders = []
    for on_error in ("raise", "continue"):  # "continue" takes the general loop
        events = []
        Toy.events.clear()
        root.fit(force=True, on_error=on_error, progress=events.append)
        orders.append((fitted_tags(), [(e["done"], e["action"]) for e in events]))
    assert orders[0] == orders[1]
    assert orders[0][0] == [graph.machines[k].model.tag for k in waves]


@SETTINGS
@given(networks())
def test_each_machine_trains_at_most_once_per_fit(net):
    root, machines, needs = net[:3]
    Toy.events.clear()
    root.fit()
    assert sorted(fitted_tags()) == sorted(m.model.tag for m in machines)
    Toy.events.clear()
    root.fit(force=True)
    assert sorted(fitted_tags()) == sorted(m.model.tag for m in machines)
    position = {tag: k for k, tag in enumerate(fitted_tags())}
    for m in machines:  # the scheduler may interleave independent machines, never break a dependency
        assert all(position[u.model.tag] < position[m.model.tag] for u in needs[m])
    Toy.events.clear()
    root.fit()
    assert fitted_tags() == []


@SETTINGS
@given(networks(), st.data())
def test_retrained_set_is_the_downstream_closure_of_a_change(net, data):
    root, machines, needs = net[:3]
    root.fit()
    before = root()
    changed = data.draw(st.sampled_from(machines))
    changed.model.shift = 1.0
    Toy.events.clear()
    root.fit()
    expected = closure({changed}, needs, machines)
    assert sorted(fitted_tags()) == sorted(m.model.tag for m in expected)
    assert np.all(root() > before)  # every toy output grows with the shift and with its inputs
    changed.model.shift = 1.0  # the same value again
    Toy.events.clear()
    root.fit()
    assert fitted_tags() == []


@SETTINGS
@given(networks(), st.data())
def test_new_source_data_retrains_exactly_what_depends_on_it(net, data):
    root, machines, needs = net[:3]
    root.fit()
    sources = root.sources() or [s for m in machines for s in m.args if s.kind == "source"]
    src = data.draw(st.sampled_from(sources))
    src.data = src.data + 100.0
    Toy.events.clear()
    root.fit()
    direct = {m for m in machines if src in ancestry(m.args)}
    expected = closure(direct, needs, machines)
    assert sorted(fitted_tags()) == sorted(m.model.tag for m in expected)


@SETTINGS
@given(networks(), st.data())
def test_one_walk_finds_the_upstream_machines_and_sources_in_their_own_orders(net, data):
    from wirework.graph.topology import upstream, upstream_machines, upstream_sources

    nodes = net[3]["nodes"]
    picks = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=3))
    assert upstream(picks) == (upstream_machines(picks), upstream_sources(picks))


@SETTINGS
@given(networks(), st.data())
def test_one_walk_finds_the_first_machine_reading_a_source_outside_a_set(net, data):
    from wirework.graph.topology import reading_outside, upstream_sources

    root, machines = net[:2]
    order = training_order([root])
    sources = [node for node in net[3]["nodes"] if node.kind == "source"]
    allowed = set(data.draw(st.lists(st.sampled_from(sources), unique_by=id), label="allowed"))
    expected = next((m for m in order if any(s not in allowed for s in upstream_sources(m.args))), None)
    assert reading_outside(order, allowed) is expected
    assert reading_outside(order, set(sources)) is None
