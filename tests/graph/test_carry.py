"""Carrying machines' training over to a network built again (``wirework.graph.carry``)."""

import re
from unittest import mock

import numpy as np
import pytest
from _counting import Counting, fits, wirework_calls
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import Lasso, Ridge
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import wirework as ww
from wirework.graph import carry
from wirework.graph.carry import carry_over, constant_tokens
from wirework.graph.topology import training_order

RNG = np.random.default_rng(0)
X_DATA = RNG.normal(size=(60, 4))
Y_DATA = X_DATA @ np.array([1.0, -2.0, 0.5, 0.0]) + RNG.normal(scale=0.1, size=60)


def build(X, y, models, *, pca=True, scale=1.0, ridge_name="ridge"):
    """scaler -> (pca) -> ridge on sources ``X`` and ``y``; the models given by tag, shared between builds."""
    Z = ww.machine(models["scaler"], X, name="scaler").transform(X)
    Z = ww.node(np.multiply, Z, scale)
    if pca:
        Z = ww.machine(models["pca"], Z, name="pca").transform(Z)
    return ww.machine(models["ridge"], Z, y, name=ridge_name).predict(Z)


def models():
    return {
        "scaler": Counting(StandardScaler(), tag="scaler"),
        "pca": Counting(PCA(n_components=3), tag="pca"),
        "ridge": Counting(Ridge(), tag="ridge"),
    }


def two_builds(first=None, second=None):
    """A trained first build, and a second one on the same sources (not yet carried); the fit log cleared."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = models()
    old = build(X, y, shared, **(first or {}))
    old.fit()
    Counting.events.clear()
    new = build(X, y, shared, **(second or {}))
    return old, new, {X: "X", y: "y"}


def test_the_same_network_built_again_is_carried_whole_and_retrains_nothing():
    old, new, roles = two_builds()
    carried = carry_over(training_order([old]), training_order([new]), roles)
    assert [m.name for m in carried] == ["scaler", "pca", "ridge"]
    assert [m.state for m in carried] == [1, 1, 1]
    new.fit()
    assert fits() == []
    assert {m.report()["action"] for m in carried} == {"skipped"}
    np.testing.assert_array_equal(new(X_DATA[:5]), old(X_DATA[:5]))


def test_only_what_a_change_touches_retrains():
    old, new, roles = two_builds(second={"pca": False})  # the ridge now learns from the scaler directly
    carried = carry_over(training_order([old]), training_order([new]), roles)
    assert [m.name for m in carried] == ["scaler"]
    new.fit()
    assert fits() == ["ridge"]
    expected = Ridge().fit(StandardScaler().fit_transform(X_DATA), Y_DATA).predict(StandardScaler().fit(X_DATA).transform(X_DATA))
    np.testing.assert_allclose(new(X_DATA), expected, rtol=1e-12)


def test_a_constant_changed_upstream_retrains_everything_after_it():
    old, new, roles = two_builds(second={"scale": 2.0})
    assert [m.name for m in carry_over(training_order([old]), training_order([new]), roles)] == ["scaler"]
    new.fit()
    assert fits() == ["pca", "ridge"]


def test_a_renamed_machine_is_another_machine():
    old, new, roles = two_builds(second={"ridge_name": "other"})
    assert [m.name for m in carry_over(training_order([old]), training_order([new]), roles)] == ["scaler", "pca"]


def test_a_renamed_machine_given_the_same_alias_in_both_builds_is_carried():
    old, new, roles = two_builds(second={"ridge_name": "other"})
    aliases = ({"ridge": "the ridge"}, {"other": "the ridge"})
    carried = carry_over(training_order([old]), training_order([new]), roles, aliases=aliases)
    assert [m.name for m in carried] == ["scaler", "pca", "other"]
    new.fit()
    assert fits() == []


def test_an_alias_never_matches_a_plain_name():
    old, new, roles = two_builds()
    aliases = ({}, {"ridge": "ridge"})  # the new ridge goes by an alias that spells the old one's name
    assert [m.name for m in carry_over(training_order([old]), training_order([new]), roles, aliases=aliases)] == [
        "scaler", "pca"
    ]


def test_a_carried_machine_still_follows_the_retraining_rules():
    old, new, roles = two_builds()
    carry_over(training_order([old]), training_order([new]), roles)
    new.machine.model.set_params(estimator__alpha=5.0)  # the models are shared: condition 6 for the ridge
    new.fit()
    assert fits() == ["ridge"] and new.machine.report()["action"] == "updated"
    roles_X = next(s for s, r in roles.items() if r == "X")
    roles_X.data = X_DATA * 2  # new data: condition 4, for every machine
    new.fit()
    assert fits() == ["ridge", "scaler", "pca", "ridge"]


def test_machines_that_cannot_be_told_apart_are_not_carried():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")

    def trio():  # two unnamed Ridge machines on the same arguments (one key), a Lasso, and a machine after them
        machines = [ww.machine(model, X, y) for model in (Ridge(alpha=1.0), Ridge(alpha=9.0), Lasso(alpha=0.1))]
        predictions = ww.hcat(*(m.predict(X) for m in machines))
        return ww.machine(Ridge(), predictions, y, name="final").predict(predictions)

    old = trio()
    old.fit()
    carried = carry_over(training_order([old]), training_order([trio()]), {X: "X", y: "y"})
    assert [type(m.model).__name__ for m in carried] == ["Lasso"]  # "final": its own key, but not its upstream


def test_an_untrained_machine_and_what_needs_it_are_not_carried():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = models()
    old = build(X, y, shared)
    scaler = next(m for m in training_order([old]) if m.name == "scaler")
    scaler.fit()  # the scaler only
    new = build(X, y, shared)
    assert [m.name for m in carry_over(training_order([old]), training_order([new]), {X: "X", y: "y"})] == ["scaler"]


def test_other_sources_match_nothing():
    old, new, roles = two_builds()
    X = next(s for s, r in roles.items() if r == "X")
    carried = carry_over(training_order([old]), training_order([new]), {X: "X"})  # y has no role: the ridge's
    assert [m.name for m in carried] == ["scaler", "pca"]
    elsewhere = ww.source(X_DATA, name="X")
    assert carry_over(training_order([old]), training_order([build(elsewhere, elsewhere, models())]), roles) == []


def test_a_source_in_the_place_of_another_of_the_same_role_is_another_machine():
    old, _, roles = two_builds()
    X = next(s for s, r in roles.items() if r == "X")
    y = next(s for s, r in roles.items() if r == "y")
    other = ww.source(X_DATA, name="X")  # the same role and data, another source: it may change on its own
    new = build(other, y, models())
    carried = carry_over(training_order([old]), training_order([new]), {**roles, other: "X"})
    assert carried == []
    assert len(carry_over(training_order([old]), training_order([build(X, y, models())]), {**roles, other: "X"})) == 3


def test_a_function_is_compared_by_content_closures_included():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = models()

    def built(factor):
        Z = ww.node(lambda data: data * factor, X)
        return ww.machine(shared["ridge"], Z, y, name="ridge").predict(Z)

    old = built(2.0)
    old.fit()
    assert len(carry_over(training_order([old]), training_order([built(2.0)]), {X: "X", y: "y"})) == 1
    assert carry_over(training_order([old]), training_order([built(3.0)]), {X: "X", y: "y"}) == []


def shared_twice(X, y, shared, share, *, pca=False):
    """scaler -> hcat(d, d) (one node read twice) or hcat(d, d2) (two equal nodes) -> (pca ->) ridge."""
    Z = ww.machine(shared["scaler"], X, name="scaler").transform(X)
    doubled = ww.node(np.multiply, Z, 2.0)
    W = ww.hcat(doubled, doubled if share else ww.node(np.multiply, Z, 2.0))
    if pca:
        W = ww.machine(shared["pca"], W, name="pca").fit_transform(W)
    return ww.machine(shared["ridge"], W, y, name="ridge").predict(W)


@pytest.mark.parametrize("old_shares", [True, False])
def test_a_node_shared_in_one_build_and_built_twice_in_the_other_is_judged_by_what_it_reaches(old_shares):
    """The builds are compared node by node; where one shares a node that the other builds twice (equal keys, other
    parents), the machines and sources upstream decide, as they always did: here the same, so all is carried. Its
    inputs computed the same from the same sources and machines, the ridge is left alone (before, it trained again,
    "condition 3: upstream state changed (upstream of Machine 'scaler')": its snapshot counted the paths to what is
    upstream, one in one build and two in the other)."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = models()
    old = shared_twice(X, y, shared, old_shares)
    old.fit()
    Counting.events.clear()
    new = shared_twice(X, y, shared, not old_shares)
    carried = carry_over(training_order([old]), training_order([new]), {X: "X", y: "y"})
    assert [m.name for m in carried] == ["scaler", "ridge"]
    new.fit()
    assert fits() == []
    assert [m.report()["action"] for m in carried] == ["skipped", "skipped"]
    np.testing.assert_allclose(new(X_DATA[:5]), old(X_DATA[:5]), rtol=1e-12)


@pytest.mark.parametrize("old_shares", [True, False])
@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("y", "condition 4: source data changed"),
        ("scaler", r"condition 3: upstream state changed \(Machine 'scaler' \(Counting\)\)"),
    ],
)
def test_what_changed_meanwhile_is_the_reason_where_the_builds_share_a_node_differently(old_shares, change, reason):
    """A change between the builds (new target data; the scaler retrained) retrains the ridge after carry-over, and
    its report says which: not the state of upstream machines when only the data changed."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = models()
    old = shared_twice(X, y, shared, old_shares)
    old.fit()
    if change == "y":
        y.data = Y_DATA + 1.0
    else:
        old.machines()[0].fit(force=True)
    Counting.events.clear()
    new = shared_twice(X, y, shared, not old_shares)
    carry_over(training_order([old]), training_order([new]), {X: "X", y: "y"})
    new.fit()
    assert fits() == ["ridge"]
    ridge = new.machine
    assert ridge.report()["action"] == "trained"
    assert re.fullmatch(reason, ridge.report()["reason"])


@pytest.mark.parametrize("old_shares", [True, False])
def test_a_training_output_carried_where_the_builds_share_a_node_differently_is_still_its_value(old_shares):
    """The PCA's fit_transform output, kept with its training, is the value of its node in the new build too (before,
    it counted as stale: the new build's fit raised NotTrainedError, the PCA holding no output)."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = {**models(), "pca": PCA(n_components=3)}  # a fit_transform of its own (Counting has none)
    old = shared_twice(X, y, shared, old_shares, pca=True)
    old.fit()
    Counting.events.clear()
    new = shared_twice(X, y, shared, not old_shares, pca=True)
    carried = carry_over(training_order([old]), training_order([new]), {X: "X", y: "y"})
    assert [m.name for m in carried] == ["scaler", "pca", "ridge"]
    new.fit()
    assert fits() == []
    assert [m.report()["action"] for m in carried] == ["skipped"] * 3
    np.testing.assert_array_equal(new.parents[0](), old.parents[0]())


def test_sources_of_one_role_shared_in_one_build_and_not_in_the_other_are_told_apart():
    """A node built on ``X`` twice in the old build, on ``X`` and on ``X2`` (of the same role, so of equal keys) in
    the new: the new ridge reads another source, so it is not carried (its parents are not alike in number)."""
    X, X2, y = ww.source(X_DATA, name="X"), ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")

    def built(second):
        doubled = ww.node(np.multiply, X, 2.0)
        W = ww.hcat(doubled, doubled if second is X else ww.node(np.multiply, second, 2.0))
        return ww.machine(Ridge(), W, y, name="ridge").predict(W)

    old = built(X)
    old.fit()
    roles = {X: "X", X2: "X", y: "y"}
    assert carry_over(training_order([old]), training_order([built(X2)]), roles) == []
    assert len(carry_over(training_order([old]), training_order([built(X)]), roles)) == 1


def test_a_machine_trained_after_an_old_machine_not_given_is_not_carried():
    """Two old machines of one key, one not among the old machines given: the new machine of that key takes the
    other's training, so a machine after it is not the old one trained after the machine not given."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    old_first, old_second = (ww.machine(StandardScaler(), X, name="scaler") for _ in range(2))
    old_ridge = ww.machine(Ridge(), old_first.transform(X), y, name="ridge")
    old_ridge.fit()
    old_second.fit()
    scaler = ww.machine(StandardScaler(), X, name="scaler")
    ridge = ww.machine(Ridge(), scaler.transform(X), y, name="ridge")
    carried = carry_over([old_second, old_ridge], [scaler, ridge], {X: "X", y: "y"})
    assert carried == [scaler] and scaler.fitted_model is old_second.fitted_model


def chain(X, depth):
    """``depth`` machines, each trained on and applied to the node before it."""
    node = X
    for k in range(depth):
        node = ww.machine(FunctionTransformer(), node, name=f"m{k}").transform(node)
    return node


def test_carrying_a_deep_network_over_is_linear_in_its_depth():
    """Each machine carried walked the whole ancestry of its arguments, and of its old counterpart's: a chain 2,000
    machines deep took 4 s to carry over. Counted in calls (not seconds), 4 times deeper is 4 times the work."""
    work = {}
    for depth in (100, 400):
        X = ww.source(np.ones((5, 2)), name="X")
        old = chain(X, depth)
        old.fit(verbose=0)
        old_machines, new_machines = training_order([old]), training_order([chain(X, depth)])
        carried = []
        work[depth] = wirework_calls(lambda: carried.extend(carry_over(old_machines, new_machines, {X: "X"})))
        assert carried == new_machines
    growth = work[400] / work[100]
    assert growth < 5, (work, growth)


class Doubled(TransformerMixin, BaseEstimator):
    """Doubles what it is given, of any shape (as ``FunctionTransformer()`` takes any)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.asarray(X) * 2.0


#: The models of the random builds below, taking any shape: two unsupervised ones to swap (a model class changed),
#: and a supervised one.
KINDS = {"identity": FunctionTransformer, "doubled": Doubled, "mean": DummyRegressor}


@st.composite
def recipes(draw):
    """Steps building on nodes by position (0: ``X``, 1: ``y``, 2: a second source ``X2``): a machine and one of its
    nodes, another node of a machine, a product by a constant, or ``hcat``; and the outputs the root joins."""
    steps, machines = [], []
    for _ in range(draw(st.integers(1, 8))):
        n_nodes = 3 + len(steps)
        pick = st.integers(0, n_nodes - 1)
        what = draw(st.sampled_from(["machine", "op", "scale", "hcat"] if machines else ["machine", "scale", "hcat"]))
        if what == "machine":
            machines.append((draw(st.sampled_from(["a", "b", None])), draw(st.sampled_from(sorted(KINDS))), draw(pick)))
            steps.append(("op", len(machines) - 1, draw(pick)))
        elif what == "op":
            steps.append(("op", draw(st.integers(0, len(machines) - 1)), draw(pick)))
        elif what == "scale":
            steps.append(("scale", draw(st.sampled_from([2.0, 3.0])), draw(pick)))
        else:
            steps.append(("hcat", draw(pick), draw(pick)))
    return steps, machines


def edited(draw, recipe):
    """``recipe`` with a few changes: a machine's name or model class, a constant, or ``X`` and ``X2`` swapped where
    a machine trains on one or a step takes one (the same key when ``X2`` has the role ``"X"``)."""
    steps, machines = list(recipe[0]), list(recipe[1])
    swapped = {0: 2, 2: 0}
    for _ in range(draw(st.integers(0, 3))):
        what = draw(st.sampled_from(["machine", "constant", "source"]))
        if what == "machine" and machines:
            k = draw(st.integers(0, len(machines) - 1))
            name, kind, arg = machines[k]
            if draw(st.booleans()):
                machines[k] = (name, kind, swapped.get(arg, arg))
            else:
                machines[k] = (draw(st.sampled_from(["a", "b", None])), draw(st.sampled_from(sorted(KINDS))), arg)
        elif what in ("constant", "source"):
            k = draw(st.integers(0, len(steps) - 1))
            kind, a, b = steps[k]
            if what == "source":
                steps[k] = (kind, swapped.get(a, a) if kind == "hcat" else a, swapped.get(b, b))
            elif kind == "scale":
                steps[k] = ("scale", 5.0 - a, b)
    return steps, machines


def built(recipe, sources, shared):
    """The network of ``recipe`` on ``sources``: each node at a position where ``shared`` says so is built once,
    the others anew wherever they are used (equal keys, other objects). Returns the root, and the node of each
    step."""
    steps, specs = recipe
    kept, machines = {}, {}

    def node(i):
        if i < 3:
            return sources[i]
        if shared[i] and i in kept:
            return kept[i]
        what, a, b = steps[i - 3]
        if what == "op":
            if a not in machines:
                name, kind, arg = specs[a]
                args = (node(arg), sources[1]) if kind == "mean" else (node(arg),)
                machines[a] = ww.machine(KINDS[kind](), *args, name=name)
            made = getattr(machines[a], "predict" if specs[a][1] == "mean" else "transform")(node(b))
        elif what == "scale":
            made = ww.node(np.multiply, node(b), a)
        else:
            made = ww.hcat(node(a), node(b))
        kept[i] = made
        return made

    tops = [node(i) for i in range(3, 3 + len(steps))]
    return ww.hcat(*tops), tops


@settings(max_examples=100, deadline=None)
@given(recipes(), st.data())
def test_comparing_the_builds_node_by_node_carries_what_walking_each_ancestry_carried(recipe, data):
    """Random builds, sharing nodes differently, with a second source that may share ``X``'s role, machines of one
    name and arguments (ambiguous), machines not trained, old machines not given: the machines carried are those
    carry_over carried when it walked the ancestry of each machine's arguments (what it does still where the builds
    are not alike node by node)."""
    rows = np.arange(8.0).reshape(4, 2)
    sources = (ww.source(rows, name="X"), ww.source(rows[:, 0], name="y"), ww.source(rows + 1.0, name="X2"))
    roles = {sources[0]: "X", sources[1]: "y"}
    role = data.draw(st.sampled_from(["X", "X", "X2", None]), label="role of X2")
    if role is not None:
        roles[sources[2]] = role
    n_nodes = 3 + len(recipe[0])
    sharing = data.draw(st.lists(st.booleans(), min_size=n_nodes, max_size=n_nodes), label="old sharing")
    old, tops = built(recipe, sources, sharing)
    tops[data.draw(st.integers(0, len(tops) - 1), label="trained")].fit(verbose=0)  # what it needs: the rest not
    new_recipe = edited(data.draw, recipe)
    sharing = data.draw(st.lists(st.booleans(), min_size=n_nodes, max_size=n_nodes), label="new sharing")
    old_order = training_order([old])
    listed = data.draw(st.lists(st.booleans(), min_size=len(old_order), max_size=len(old_order)), label="listed")
    old_order = [m for m, keep in zip(old_order, listed) if keep or not any(listed)]  # the old machines given

    def positions_carried(walking):
        new_order = training_order([built(new_recipe, sources, sharing)[0]])
        if walking:  # as before: every machine judged by the two walks
            with mock.patch.object(carry, "_aligned", lambda *_: carry._UNALIGNED):
                carried = carry_over(old_order, new_order, roles)
        else:
            carried = carry_over(old_order, new_order, roles)
        return [new_order.index(m) for m in carried]

    assert positions_carried(walking=False) == positions_carried(walking=True)


def test_a_constant_changed_in_place_differs_from_its_tokens_taken_when_built():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    shared = models()
    factor = np.ones(4)
    old = build(X, y, shared, scale=factor)
    old.fit()
    tokens = constant_tokens(training_order([old]))
    assert sorted(node.label for node in tokens) == ["multiply"]
    factor[:] = 2.0  # in place: the old network's node holds this very array, and showed 2.0 as its constant too
    Counting.events.clear()
    new = build(X, y, shared, scale=factor)
    carried = carry_over(training_order([old]), training_order([new]), {X: "X", y: "y"}, tokens=tokens)
    assert [m.name for m in carried] == ["scaler"]
    new.fit()
    assert fits() == ["pca", "ridge"]
