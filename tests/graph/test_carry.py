"""Carrying machines' training over to a network built again (``wirework.graph.carry``)."""

import numpy as np
from _counting import Counting, fits
from sklearn.decomposition import PCA
from sklearn.linear_model import Lasso, Ridge
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.graph.carry import carry_over
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
