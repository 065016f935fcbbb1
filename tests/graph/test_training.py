"""Fit passes and the training values kept between them."""

import numpy as np
import pytest
from _counting import Counting, calls, counting_chain, fits
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
