"""A bagging's members (wirework/compose/_members.py): networks pickled when members trained on sorted rows."""

import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from _counting import Counting, WeightedCounting, fits
from sklearn.datasets import load_diabetes
from sklearn.ensemble import BaggingRegressor
from sklearn.linear_model import Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.compose import _ops, ensemble
from wirework.compose._members import sorted_rows
from wirework.graph.topology import ancestry

X_DATA, Y_DATA = load_diabetes(return_X_y=True)
X_TIES = np.round(StandardScaler().fit_transform(X_DATA[:, [2, 3]]), 0)  # few distinct rows: tied neighbours


def _pickled_with_sorted_rows(model, monkeypatch, X=X_TIES):
    """A bagging fitted as wirework did before 2026-12 (its members' rows sorted: nodes of ``bootstrap_rows``),
    pickled and loaded by this version."""
    then = SimpleNamespace(**{**vars(_ops), "drawn_rows": _ops.bootstrap_rows})  # what its nodes named then
    with monkeypatch.context() as patch:
        patch.setattr(ensemble, "_ops", then)
        old = ww.Bagging(model, n_estimators=6, random_state=0).fit(X, Y_DATA)
    training = ancestry([arg for mach in old.machines_ for arg in mach.args])
    assert any(getattr(n, "function", None) is _ops.bootstrap_rows for n in training)
    return old, pickle.loads(pickle.dumps(old))


def test_a_bagging_pickled_when_its_members_trained_on_sorted_rows_predicts_so_and_retrains_them_at_its_next_fit(
    monkeypatch,
):
    old, loaded = _pickled_with_sorted_rows(Counting(KNeighborsRegressor(5), tag="knn"), monkeypatch)
    assert sorted_rows(loaded._built.machines) and not sorted_rows(ww.Bagging(KNeighborsRegressor()).fit(
        X_TIES, Y_DATA)._built.machines)
    np.testing.assert_array_equal(loaded.predict(X_TIES), old.predict(X_TIES))  # as it was trained
    assert len(loaded.estimators_) == 6  # its fitted attributes stay: nothing reshaped it
    theirs = BaggingRegressor(KNeighborsRegressor(5), n_estimators=6, random_state=0).fit(X_TIES, Y_DATA)
    assert np.abs(loaded.predict(X_TIES) - theirs.predict(X_TIES)).max() > 1.0  # sorted: not scikit-learn's
    Counting.events.clear()
    loaded.fit(X_TIES, Y_DATA)  # the same data: only the members train again, in the order drawn
    assert fits() == ["knn"] * 6
    assert np.abs(loaded.predict(X_TIES) - theirs.predict(X_TIES)).max() <= 1e-10
    assert not sorted_rows(loaded._built.machines)
    Counting.events.clear()
    loaded.fit(X_TIES, Y_DATA)
    assert fits() == []  # built once: the retraining rules as ever


def test_a_bagging_pickled_when_its_members_trained_on_their_draws_counts_is_kept(monkeypatch):
    # members whose fit takes weights train on all rows with their draw's counts, which the order does not change
    old, loaded = _pickled_with_sorted_rows(WeightedCounting(Ridge(), tag="ridge"), monkeypatch, X=X_DATA)
    assert not sorted_rows(loaded._built.machines)
    Counting.events.clear()
    loaded.fit(X_DATA, Y_DATA)
    assert fits() == []
    np.testing.assert_array_equal(loaded.predict(X_DATA), old.predict(X_DATA))


@pytest.mark.parametrize("classifier", [False, True])
def test_bootstrap_rows_are_the_drawn_rows_sorted(classifier):
    y = (Y_DATA > 150).astype(int) if classifier else Y_DATA
    drawn = _ops.drawn_rows(y, 7, 50, classifier)
    np.testing.assert_array_equal(_ops.bootstrap_rows(y, 7, 50, classifier), np.sort(drawn))
    assert not np.array_equal(drawn, np.sort(drawn))  # the order drawn is not sorted
