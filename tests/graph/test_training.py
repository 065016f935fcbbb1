"""Fit passes and the training values kept between them."""

import numpy as np
from _counting import Counting, calls, counting_chain, fits
from sklearn.linear_model import Ridge

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
