"""Property tests of the retraining rules over random networks of real (cheap) scikit-learn models.

A network is drawn as a *spec*: sources ``X`` (two columns) and ``y``,
machines (a scaler, PCA, ridge, tree or nearest-neighbours model, each
wrapped in ``Counting`` to log its real fits) and nodes (a machine's
operation, ``hcat``, a product by a constant). The test keeps its own book
of who needs whom, built from the spec alone, and compares the library with
it: after a change (``set_params``, new source data) exactly the machines
downstream of it train, and their reports say why; a fit with nothing
changed trains nothing; the values equal those of the changed spec built
and trained from scratch; a network built again from an edited spec (out
of place) carries over exactly the machines that are the same and leaves
the first untouched; frozen machines keep their training and catch up when
thawed; a fit that fails at one machine leaves every machine whole and the
next fit trains what is left, once; copies and pickles retrain alike.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

import numpy as np
from _counting import Counting, fits
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.linear_model import Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

import wirework as ww
from wirework.graph.carry import carry_over
from wirework.graph.topology import training_order

N_ROWS = 8
RNG = np.random.default_rng(7)
X_DATA = RNG.normal(size=(N_ROWS, 2))
Y_DATA = X_DATA @ np.array([1.5, -2.0]) + RNG.normal(scale=0.1, size=N_ROWS)
X_NEW = RNG.normal(size=(5, 2))

#: model kind -> (class, whether supervised, the hyperparameter values a spec may give)
KINDS = {
    "scaler": (StandardScaler, False, {"with_mean": [True, False], "with_std": [True, False]}),
    "pca": (PCA, False, {"n_components": [1], "whiten": [False, True]}),
    "ridge": (Ridge, True, {"alpha": [0.1, 1.0, 10.0]}),
    "tree": (DecisionTreeRegressor, True, {"max_depth": [1, 2, 3], "random_state": [0]}),
    "knn": (KNeighborsRegressor, True, {"n_neighbors": [1, 2, 3]}),
}
SUPERVISED = [k for k, (_, supervised, _) in KINDS.items() if supervised]
#: The kinds of the in-place property: a PCA whose machine keeps its fit_transform output, and a scaler that
#: scales what it is given in place (copy=False), the source's data included.
IN_PLACE_KINDS = {
    "kept_pca": (PCA, False, {"n_components": [1], "whiten": [False, True]}),
    "in_place": (StandardScaler, False, {"with_mean": [True, False], "with_std": [True, False]}),
    "scaler": KINDS["scaler"],
    "ridge": KINDS["ridge"],
}
ALL_KINDS = {**KINDS, **IN_PLACE_KINDS}


@dataclass(frozen=True)
class MachineSpec:
    name: str
    kind: str
    params: tuple  # sorted (name, value) pairs
    args: tuple[int, ...]  # node positions: (X,) or (X, y)


@dataclass
class Spec:
    """Nodes by position: ``("source", role)``, ``("op", machine, parent)``, ``("scale", c, parent)`` or
    ``("hcat", a, b)``; ``machines`` by position; ``outputs``: the nodes joined into the root."""

    nodes: list[tuple] = field(default_factory=lambda: [("source", "X"), ("source", "y")])
    machines: list[MachineSpec] = field(default_factory=list)
    outputs: tuple[int, ...] = ()

    def copy(self) -> Spec:
        return Spec(list(self.nodes), list(self.machines), self.outputs)


class KeepingCounting(Counting):
    """``Counting`` with a ``fit_transform`` of its own: its machine trains by it and keeps the output."""

    def fit_transform(self, X, y=None):
        Counting.events.append((self.tag, "fit"))
        self.estimator_ = clone(self.estimator)
        return self.estimator_.fit_transform(X)


def model_of(spec: MachineSpec) -> Counting:
    cls = ALL_KINDS[spec.kind][0]
    if spec.kind == "kept_pca":
        return KeepingCounting(cls(**dict(spec.params)), tag=spec.name)
    if spec.kind == "in_place":
        return Counting(cls(copy=False, **dict(spec.params)), tag=spec.name)
    return Counting(cls(**dict(spec.params)), tag=spec.name)


def build(spec: Spec, X: ww.Source, y: ww.Source) -> tuple[ww.Node, dict[str, ww.Machine]]:
    """The network of ``spec`` on the sources ``X`` and ``y``: its root and its machines by name."""
    built: list[ww.Node] = []
    machines = {}
    by_position: list[ww.Machine | None] = [None] * len(spec.machines)
    for entry in spec.nodes:
        what = entry[0]
        if what == "source":
            built.append(X if entry[1] == "X" else y)
        elif what == "op":
            k, parent = entry[1], entry[2]
            mach = by_position[k]
            if mach is None:
                m = spec.machines[k]
                mach = by_position[k] = ww.machine(model_of(m), *(built[i] for i in m.args), name=m.name)
                machines[m.name] = mach
            operation = "predict" if ALL_KINDS[spec.machines[k].kind][1] else "transform"
            built.append(getattr(mach, operation)(built[parent]))
        elif what == "scale":
            built.append(ww.node(np.multiply, built[entry[2]], entry[1]))
        else:
            built.append(ww.hcat(built[entry[1]], built[entry[2]]))
    return ww.hcat(*(built[i] for i in spec.outputs)), machines


def fresh_sources() -> tuple[ww.Source, ww.Source]:
    return ww.source(X_DATA.copy(), name="X"), ww.source(Y_DATA.copy(), name="y")


def trained_network(spec: Spec) -> tuple[ww.Node, dict[str, ww.Machine], ww.Source, ww.Source]:
    """``spec``'s network built on fresh sources and trained, the fit counts cleared first:
    ``(root, machines, X, y)``."""
    Counting.events.clear()
    X, y = fresh_sources()
    root, machines = build(spec, X, y)
    root.fit(verbose=0)
    return root, machines, X, y


# -- the book: what the spec alone says ------------------------------------------------------------------------


def needed(spec: Spec) -> set[str]:
    """Names of the machines the root needs (through ordinary and training edges)."""
    found: set[str] = set()
    stack = list(spec.outputs)
    seen: set[int] = set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        entry = spec.nodes[i]
        if entry[0] == "op":
            m = spec.machines[entry[1]]
            found.add(m.name)
            stack.extend([entry[2], *m.args])
        elif entry[0] == "scale":
            stack.append(entry[2])
        elif entry[0] == "hcat":
            stack.extend(entry[1:])
    return found


def machines_below(spec: Spec, i: int) -> set[str]:
    """Names of the machines labelling a node in the ordinary ancestry of node ``i``."""
    entry = spec.nodes[i]
    if entry[0] == "source":
        return set()
    if entry[0] == "op":
        return {spec.machines[entry[1]].name} | machines_below(spec, entry[2])
    if entry[0] == "scale":
        return machines_below(spec, entry[2])
    return machines_below(spec, entry[1]) | machines_below(spec, entry[2])


def sources_below(spec: Spec, positions: tuple[int, ...]) -> set[str]:
    """Roles of the sources in the ordinary ancestry of the nodes at ``positions``."""
    found: set[str] = set()
    stack = list(positions)
    while stack:
        entry = spec.nodes[stack.pop()]
        if entry[0] == "source":
            found.add(entry[1])
        elif entry[0] == "op":
            stack.append(entry[2])
        elif entry[0] == "scale":
            stack.append(entry[2])
        else:
            stack.extend(entry[1:])
    return found


def needs_of(spec: Spec) -> dict[str, set[str]]:
    """Each machine's name, with the names of the machines it needs directly."""
    return {m.name: set().union(*(machines_below(spec, i) for i in m.args)) for m in spec.machines}


def downstream(spec: Spec, start: set[str]) -> set[str]:
    """``start`` and every machine of ``spec`` that needs one of them, directly or not."""
    needs = needs_of(spec)
    found = set(start)
    grown = True
    while grown:
        grown = False
        for name, below in needs.items():
            if name not in found and below & found:
                found.add(name)
                grown = True
    return found


def lineage(spec: Spec, item: tuple) -> tuple:
    """How a node (``("node", i)``) or a machine (``("machine", k)``) is computed: name, operations,
    functions and constants, source roles; not the hyperparameters. (Nor the model's class: every model is
    a ``Counting``, whose ``estimator`` is a hyperparameter.)"""
    what, i = item
    if what == "machine":
        m = spec.machines[i]
        return ("machine", m.name, tuple(lineage(spec, ("node", a)) for a in m.args))
    entry = spec.nodes[i]
    if entry[0] == "source":
        return entry
    if entry[0] == "op":
        return ("op", lineage(spec, ("machine", entry[1])), lineage(spec, ("node", entry[2])))
    if entry[0] == "scale":
        return ("scale", entry[1], lineage(spec, ("node", entry[2])))
    return ("hcat", lineage(spec, ("node", entry[1])), lineage(spec, ("node", entry[2])))


def same_machines(old: Spec, new: Spec) -> set[str]:
    """Names of the machines of ``new`` (that its root needs) computed as a machine of ``old`` was."""
    used = needed(new)
    old_lineages = {lineage(old, ("machine", k)) for k, m in enumerate(old.machines) if m.name in needed(old)}
    return {
        m.name for k, m in enumerate(new.machines) if m.name in used and lineage(new, ("machine", k)) in old_lineages
    }


# -- drawing specs -----------------------------------------------------------------------------------------------


@st.composite
def specs(draw, kinds: dict = KINDS) -> Spec:
    spec = Spec()
    shape = {0: 2, 1: 0}  # node position -> columns (0: a vector)
    for step in range(draw(st.integers(1, 7))):
        tables = [i for i, c in shape.items() if c]
        vectors = [i for i, c in shape.items() if not c]
        what = "machine" if step == 0 else draw(st.sampled_from(["machine", "machine", "scale", "hcat"]))
        if what == "machine":
            kind = draw(st.sampled_from(list(kinds)))
            supervised = kinds[kind][1]
            x = draw(st.sampled_from(tables))
            args = (x, draw(st.sampled_from(vectors))) if supervised else (x,)
            params = tuple(sorted((p, draw(st.sampled_from(values))) for p, values in kinds[kind][2].items()))
            k = len(spec.machines)
            spec.machines.append(MachineSpec(f"m{k}", kind, params, args))
            # applied to its own training X, or to another table of as many columns
            parent = draw(st.sampled_from([i for i in tables if shape[i] == shape[x]]))
            spec.nodes.append(("op", k, parent))
            shape[len(spec.nodes) - 1] = 0 if supervised else (1 if kind in ("pca", "kept_pca") else shape[x])
        elif what == "scale":
            parent = draw(st.sampled_from(sorted(shape)))
            spec.nodes.append(("scale", draw(st.sampled_from([0.5, 2.0])), parent))
            shape[len(spec.nodes) - 1] = shape[parent]
        else:
            a, b = draw(st.sampled_from(sorted(shape))), draw(st.sampled_from(sorted(shape)))
            spec.nodes.append(("hcat", a, b))
            shape[len(spec.nodes) - 1] = (shape[a] or 1) + (shape[b] or 1)
    # the root joins every node built (so every machine is needed), and X
    spec.outputs = (0, *range(2, len(spec.nodes)))
    return spec


def other_params(draw, m: MachineSpec) -> tuple:
    """Hyperparameters of ``m``'s kind with at least one value changed, or ``m``'s own when none can change."""
    options = {p: [v for v in values if v != dict(m.params)[p]] for p, values in ALL_KINDS[m.kind][2].items()}
    changeable = sorted(p for p, values in options.items() if values)
    if not changeable:
        return m.params
    p = draw(st.sampled_from(changeable))
    return tuple(sorted({**dict(m.params), p: draw(st.sampled_from(options[p]))}.items()))


@st.composite
def edits(draw, spec: Spec) -> tuple[Spec, str]:
    """An edited copy of ``spec`` (out of place) and what the edit was."""
    new = spec.copy()
    choices = ["params", "rename", "outputs"]
    if any(m.kind in SUPERVISED for m in spec.machines):
        choices.append("kind")
    if any(entry[0] == "scale" for entry in spec.nodes):
        choices.append("constant")
    what = draw(st.sampled_from(choices))
    if what in ("params", "rename", "kind"):
        pool = [k for k, m in enumerate(spec.machines) if what != "kind" or m.kind in SUPERVISED]
        k = draw(st.sampled_from(pool))
        m = spec.machines[k]
        if what == "params":
            new.machines[k] = replace(m, params=other_params(draw, m))
        elif what == "rename":
            new.machines[k] = replace(m, name=m.name + "_renamed")
        else:
            kind = draw(st.sampled_from([s for s in SUPERVISED if s != m.kind]))
            params = tuple(sorted((p, values[0]) for p, values in KINDS[kind][2].items()))
            new.machines[k] = replace(m, kind=kind, params=params)
    elif what == "constant":
        i = draw(st.sampled_from([i for i, entry in enumerate(spec.nodes) if entry[0] == "scale"]))
        c, parent = spec.nodes[i][1:]
        new.nodes[i] = ("scale", 3.0 if c != 3.0 else 0.25, parent)
    else:  # keep some of the outputs: the machines no longer needed leave the network
        kept = draw(st.lists(st.sampled_from(spec.outputs), min_size=1, unique=True))
        new.outputs = tuple(sorted(kept))
    return new, what


# -- the properties ---------------------------------------------------------------------------------------------


def values(root: ww.Node) -> tuple:
    """The root's value on the training data and on new data."""
    return root(), root(X=X_NEW) if [s.name for s in root.sources()] == ["X"] else None


def from_scratch(spec: Spec, data: dict | None = None) -> tuple:
    """The values of ``spec`` built on new sources (holding ``data``, by role) and trained once; the fit log
    left as it was."""
    events = list(Counting.events)
    data = data or {"X": X_DATA, "y": Y_DATA}
    root, _ = build(spec, ww.source(data["X"].copy(), name="X"), ww.source(data["y"].copy(), name="y"))
    root.fit(verbose=0)
    Counting.events[:] = events
    return values(root)


def assert_same(got: tuple, expected: tuple) -> None:
    np.testing.assert_array_equal(got[0], expected[0])
    if expected[1] is not None:
        np.testing.assert_array_equal(got[1], expected[1])


SETTINGS = settings(max_examples=25, deadline=None)


@SETTINGS
@given(specs(), st.data())
def test_set_params_retrains_exactly_what_is_downstream_and_equals_a_fresh_build(spec, data):
    spec = spec.copy()  # edited below
    root, machines, X, y = trained_network(spec)  # (the fixture clears once per test, not per example)
    assert sorted(fits()) == sorted(needed(spec))
    Counting.events.clear()
    root.fit(verbose=0)
    assert fits() == []  # nothing changed: nothing trains
    data_now = {"X": X_DATA, "y": Y_DATA}
    for _ in range(data.draw(st.integers(1, 3), label="rounds")):
        if data.draw(st.booleans(), label="new data"):  # condition 4 for the machines reading the source
            role = data.draw(st.sampled_from(["X", "y"]), label="source")
            data_now[role] = data_now[role] * 1.5 + 0.25
            (X if role == "X" else y).data = data_now[role]
            reading = {m.name for m in spec.machines if role in sources_below(spec, m.args)}
            changed, cause = reading, "condition 4"
        else:
            trained_with = {m.name: m.params for m in spec.machines}
            for k in data.draw(st.lists(st.integers(0, len(spec.machines) - 1), min_size=1, max_size=2), label="k"):
                m = spec.machines[k]
                params = other_params(data.draw, m)
                spec.machines[k] = replace(m, params=params)
                machines[m.name].model.set_params(**{f"estimator__{p}": v for p, v in params})  # in place
            changed = {m.name for m in spec.machines if m.params != trained_with[m.name]}  # (twice: maybe back)
            cause = "condition 6"
        Counting.events.clear()
        executor = data.draw(st.sampled_from(["sequential", "threads"]), label="executor")
        root.fit(verbose=0, executor=executor, n_jobs=2)
        retrained = downstream(spec, changed)
        assert sorted(fits()) == sorted(retrained)
        for name in retrained:  # condition 3 is checked first: a machine after one that retrained cites it
            after = needs_of(spec)[name] & retrained
            assert machines[name].report()["reason"].startswith("condition 3" if after else cause)
        states = {name: m.state for name, m in machines.items()}
        for name, m in machines.items():  # the reports agree with the fits: each says what its visit did
            report = m.report()
            assert report["state"] == m.state and report["machine"] == name and report["model"] == "Counting"
            first_cause = name in changed and not needs_of(spec)[name] & retrained
            updated = first_cause and cause == "condition 6"
            assert report["action"] == ("updated" if updated else "trained" if name in retrained else "skipped")
            assert ("fit_time" in report and report["n_rows"] == N_ROWS) == (name in retrained)
        assert_same(values(root), from_scratch(spec, data_now))
        Counting.events.clear()
        root.fit(verbose=0)
        assert fits() == [] and {m.report()["action"] for m in machines.values()} == {"skipped"}
        assert {name: m.state for name, m in machines.items()} == states


@SETTINGS
@given(specs(), st.data())
def test_a_network_built_again_carries_exactly_the_machines_that_are_the_same(spec, data):
    old_root, old_machines, X, y = trained_network(spec)
    before = values(old_root)
    new_spec, what = data.draw(edits(spec), label="edit")
    new_root, new_machines = build(new_spec, X, y)
    carried = carry_over(training_order([old_root]), training_order([new_root]), {X: "X", y: "y"})
    same = same_machines(spec, new_spec)
    assert {m.name for m in carried} == same, what
    # a carried machine whose hyperparameters changed is updated; what is not carried trains from scratch
    old_models = {m.name: (m.kind, m.params) for m in spec.machines}
    updated = {m.name for m in new_spec.machines if m.name in same and (m.kind, m.params) != old_models[m.name]}
    Counting.events.clear()
    new_root.fit(verbose=0)
    expected = downstream(new_spec, updated | (needed(new_spec) - same)) & needed(new_spec)
    assert sorted(fits()) == sorted(expected), what
    assert {name for name in updated if new_machines[name].report()["action"] == "updated"} == updated
    assert_same(values(new_root), from_scratch(new_spec))
    Counting.events.clear()
    new_root.fit(verbose=0)
    assert fits() == []
    # out of place: the first network is as it was, and trained
    old_root.fit(verbose=0)
    assert fits() == []
    assert_same(values(old_root), before)
    assert all(m.state == 1 for m in old_machines.values())


@SETTINGS
@given(specs(), st.data())
def test_copies_and_pickles_of_a_trained_random_network_predict_alike_and_retrain_alike(spec, data):
    import pickle

    spec = spec.copy()
    root, machines, X, y = trained_network(spec)
    expected = values(root)
    twin = pickle.loads(pickle.dumps(root)) if data.draw(st.booleans(), label="pickle") else copy.deepcopy(root)
    assert_same(values(twin), expected)
    Counting.events.clear()
    twin.fit(verbose=0)
    assert fits() == []  # nothing changed in the copy either
    k = data.draw(st.integers(0, len(spec.machines) - 1), label="machine")
    m = spec.machines[k]
    params = other_params(data.draw, m)
    twin_machine = next(t for t in twin.machines() if t.name == m.name)
    twin_machine.model.set_params(**{f"estimator__{p}": v for p, v in params})
    spec.machines[k] = replace(m, params=params)
    twin.fit(verbose=0)
    changed = {m.name} if params != m.params else set()
    assert sorted(fits()) == sorted(downstream(spec, changed))
    assert_same(values(twin), from_scratch(spec))
    assert_same(values(root), expected)  # the original is untouched


@SETTINGS
@given(specs(), st.data())
def test_frozen_machines_keep_their_training_and_catch_up_when_thawed(spec, data):
    import warnings

    spec = spec.copy()
    root, machines, X, y = trained_network(spec)
    names = [m.name for m in spec.machines]  # in an order in which each comes after those it needs
    frozen = set(data.draw(st.lists(st.sampled_from(names), unique=True), label="frozen"))
    trained_with = {m.name: m.params for m in spec.machines}
    for k in data.draw(st.lists(st.integers(0, len(names) - 1), min_size=1, max_size=2), label="k"):
        m = spec.machines[k]
        spec.machines[k] = replace(m, params=other_params(data.draw, m))
        machines[m.name].model.set_params(**{f"estimator__{p}": v for p, v in spec.machines[k].params})
    changed = {m.name for m in spec.machines if m.params != trained_with[m.name]}
    for name in frozen:
        machines[name].freeze()
    needs = needs_of(spec)
    retrained, owing = set(), set()
    for name in names:  # a frozen machine does not train, so nothing retrains because of it
        if name in changed or needs[name] & retrained:
            (owing if name in frozen else retrained).add(name)
    Counting.events.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        root.fit(verbose=0)
    assert sorted(fits()) == sorted(retrained)
    warned = {m.name for m in machines.values() if m.report()["action"] == "frozen"}
    assert warned == owing and len(caught) == len(owing)
    assert all(issubclass(w.category, ww.FrozenMachineWarning) for w in caught)
    for name in frozen:
        machines[name].thaw()
    Counting.events.clear()
    root.fit(verbose=0)
    caught_up = set()
    for name in names:
        if name in owing or needs[name] & caught_up:
            caught_up.add(name)
    assert sorted(fits()) == sorted(caught_up)
    assert_same(values(root), from_scratch(spec))


#: A hyperparameter value each kind refuses when it trains (scikit-learn's parameter validation).
REFUSED = {
    "scaler": ("with_mean", "yes"),
    "pca": ("n_components", -5),
    "ridge": ("alpha", -1.0),
    "tree": ("max_depth", 0),
    "knn": ("n_neighbors", 0),
}


@SETTINGS
@given(specs(), st.data())
def test_a_failed_fit_leaves_every_machine_whole_and_the_next_fit_resumes(spec, data):
    spec = spec.copy()
    root, machines, X, y = trained_network(spec)
    trained = {name: (m.state, m.fitted_model) for name, m in machines.items()}
    original = {m.name: m.params for m in spec.machines}
    for k in data.draw(st.lists(st.integers(0, len(spec.machines) - 1), max_size=2), label="changed"):
        m = spec.machines[k]
        spec.machines[k] = replace(m, params=other_params(data.draw, m))
        machines[m.name].model.set_params(**{f"estimator__{p}": v for p, v in spec.machines[k].params})
    failing = spec.machines[data.draw(st.integers(0, len(spec.machines) - 1), label="failing")]
    name, value = REFUSED[failing.kind]
    machines[failing.name].model.set_params(**{f"estimator__{name}": value})
    on_error = data.draw(st.sampled_from(["raise", "continue"]), label="on_error")
    executor = data.draw(st.sampled_from(["sequential", "threads"]), label="executor")
    Counting.events.clear()
    try:
        root.fit(verbose=0, on_error=on_error, executor=executor, n_jobs=2)
    except ww.MachineFitError as error:
        assert error.machine is machines[failing.name] and isinstance(error, ValueError)
    else:
        raise AssertionError("the refused hyperparameter did not fail the fit")
    first = fits()
    for machine_name, m in machines.items():  # each machine is its last training or a new one, whole
        action = m.report()["action"]
        if action in ("trained", "updated"):
            assert m.state == trained[machine_name][0] + 1 and m.fitted_model is not trained[machine_name][1]
        else:
            assert action in ("failed", "blocked", "skipped"), action
            assert (m.state, m.fitted_model) == trained[machine_name]
    assert machines[failing.name].report()["action"] == "failed"
    below_failure = downstream(spec, {failing.name}) - {failing.name}
    assert not any(machines[n].report()["action"] in ("trained", "updated") for n in below_failure)
    # the failing machine given a value it takes: the next fit trains what is left, once
    machines[failing.name].model.set_params(**{f"estimator__{p}": v for p, v in failing.params})
    Counting.events.clear()
    root.fit(verbose=0)
    changed = {m.name for m in spec.machines if m.params != original[m.name]}
    assert sorted(first + fits()) == sorted([*downstream(spec, changed), failing.name])
    assert_same(values(root), from_scratch(spec))


@SETTINGS
@given(specs(IN_PLACE_KINDS), st.data())
def test_a_model_working_in_place_changes_no_value_the_network_keeps(spec, data):
    """Random networks where scalers with copy=False transform PCA's kept outputs, the values of a pass and the
    source's data: each fit trains on what a fresh build would (a scaled output would be trained on again when
    only what is after it changes), every output a machine keeps is what its model computed, and the caller's
    data stays as it was."""
    spec = spec.copy()
    root, machines, X, y = trained_network(spec)
    assert_same(values(root), from_scratch(spec))
    for _ in range(data.draw(st.integers(1, 3), label="rounds")):
        for k in data.draw(st.lists(st.integers(0, len(spec.machines) - 1), min_size=1, max_size=2), label="k"):
            m = spec.machines[k]
            spec.machines[k] = replace(m, params=other_params(data.draw, m))
            machines[m.name].model.set_params(**{f"estimator__{p}": v for p, v in spec.machines[k].params})
        root.fit(verbose=0)
        assert_same(values(root), from_scratch(spec))
        for m in machines.values():
            if m._output is not None:  # the kept output, as the model computes it from its input now
                computed = m.fitted_model.estimator_.transform(m.args[0]())
                np.testing.assert_allclose(m._output[1], computed, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(X.data, X_DATA)  # the caller's data: given to scalers, not scaled where it lay
