"""Fit passes and the training values kept between them."""

import gc
import tracemalloc

import numpy as np
import pytest
from _counting import Counting, calls, counting_chain, fits, wirework_calls
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.linear_model import Ridge

import wirework as ww

from wirework.graph.training import TrainingValues, fit_pass

RNG = np.random.default_rng(1)
X_DATA = RNG.normal(size=(40, 4))
Y_DATA = X_DATA @ np.array([1.0, -2.0, 0.5, 0.0])


class Watched(TrainingValues):
    """A store that records which nodes it was asked about."""

    def __init__(self):
        super().__init__()
        self.asked = []

    def get(self, node, stamp):
        self.asked.append(node)
        return super().get(node, stamp)


def test_a_kept_value_is_taken_without_looking_at_its_ancestors():
    yhat, net = counting_chain(X_DATA, Y_DATA)
    W, ridge = net.W, net.ridge
    store = Watched()
    fit_pass([yhat], store=store)
    assert fits() == ["scaler", "pca", "ridge"] and len(store) == 2  # Z and W: sources are never kept
    Counting.events.clear()
    store.asked.clear()
    ridge.model.estimator.alpha = 3.0
    fit_pass([yhat], store=store)
    assert Counting.events == [("ridge", "fit")]  # no transform recomputed
    assert store.asked == [W]  # the ridge's input only, not the scaler's output before it
    np.testing.assert_allclose(yhat(), Ridge(alpha=3.0).fit(W(), Y_DATA).predict(W()), rtol=1e-12)


def test_a_value_whose_upstream_retrained_is_computed_again():
    yhat, net = counting_chain(X_DATA, Y_DATA)
    W, pca = net.W, net.pca
    store = TrainingValues()
    fit_pass([yhat], store=store)
    Counting.events.clear()
    pca.model.estimator.n_components = 2
    fit_pass([yhat], store=store)
    assert fits() == ["pca", "ridge"]
    assert calls("scaler", "transform") == 0 and calls("pca", "transform") == 1  # Z kept, W new
    assert W().shape == (40, 2)


@pytest.mark.parametrize("fit", [lambda node, **kw: node.fit(**kw), lambda node, **kw: node.machines()[0].fit(**kw)])
def test_fit_refuses_a_cache_that_is_not_one_and_options_it_does_not_take(fit):
    yhat = ww.machine(Ridge(), X_DATA, Y_DATA).predict(ww.source(X_DATA))
    with pytest.raises(ww.ArgumentError, match=r"Expected cache to be a ww.FitCache or None\. Received: str 'yes'"):
        fit(yhat, cache="yes")
    with pytest.raises(ww.ArgumentError, match=r"fit\(\) takes force, cache and the options executor, .*Received also: \['foo'\]"):
        fit(yhat, foo=1, verbose=0)
    assert yhat.machines()[0].state == 0


class Shift(TransformerMixin, BaseEstimator):
    """Adds 1: the cheapest model, so that a pass over a deep chain is mostly wirework's own work."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X + 1.0


class OwnFitTransform(Shift):
    """A ``fit_transform`` of its own: its machine keeps the output, which a node takes on the training data."""

    def fit_transform(self, X, y=None):
        return self.fit(X).transform(X)


@ww.lift
def negated(values):
    return -values


def deep_chain(depth, kind):
    """``depth`` machines, each trained on and applied to the node before it; ``"lifted"``: a static node
    between each two, ``"kept"``: every other machine keeps its ``fit_transform`` output."""
    node = ww.source(np.ones((5, 2)), name="X")
    for k in range(depth):
        if kind == "lifted":
            node = negated(node)
        model = OwnFitTransform() if kind == "kept" and k % 2 else Shift()
        node = ww.machine(model, node).transform(node)
    return node


def kept_by(action):
    """The bytes allocated by ``action()`` and still held after it (``tracemalloc``)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        action()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", ["machines", "lifted", "kept"])
def test_the_work_of_a_pass_grows_linearly_with_the_depth_of_a_network(kind):
    """Each machine walked the whole ancestry of its arguments and kept the states of every machine upstream: a
    first fit 4,000 machines deep took a minute. Counted in calls and bytes (not seconds), 4 times deeper is 4
    times the work: a first fit (and what it leaves), a fit with nothing changed, calling the last node on new
    data and on the training data, a fit after the first machine changed (all retrain)."""
    work = {}
    for depth in (100, 400):
        root = deep_chain(depth, kind)
        first = root.machines()[0]
        work[depth] = [
            wirework_calls(root.fit),
            wirework_calls(root.fit),
            wirework_calls(lambda: root(np.zeros((1, 2)))),
            wirework_calls(root),
        ]
        first.model = OwnFitTransform() if type(first.model) is Shift else Shift()  # condition 5, then 3 below it
        work[depth].append(wirework_calls(root.fit))
        assert [m.report()["action"] for m in root.machines()] == ["trained"] * depth
        assert root.machines()[1].report()["reason"].startswith("condition 3: upstream state changed (Machine (")
        expected = np.ones((5, 2)) + depth if kind != "lifted" else np.full((5, 2), 1.0 - depth % 2)
        np.testing.assert_array_equal(root(), expected)
        work[depth].append(kept_by(deep_chain(depth, kind).fit))
    growth = [deeper / shallow for shallow, deeper in zip(work[100], work[400])]
    assert max(growth) < 5, (work, growth)
