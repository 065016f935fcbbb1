"""ww.Average: weights, voting and flatten_transform set on a fitted average take effect at once, without training.

scikit-learn's VotingClassifier and VotingRegressor read them at each predict; ww.Average builds its outputs again
on the trained machines when set_params changes them (Composite._output_params, _ComposedNetwork._rewire).
"""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_diabetes, load_iris
from sklearn.ensemble import VotingClassifier, VotingRegressor
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

import wirework as ww

TRAINED: list[str] = []  # the class of each model trained, in order


def _counted(base, tag):
    """``base`` whose ``fit`` logs ``tag`` in TRAINED (a module-level class: pickled by name)."""

    class Counted(base):
        def fit(self, X, y, sample_weight=None, **kwargs):
            TRAINED.append(tag)
            return super().fit(X, y, sample_weight=sample_weight, **kwargs)

    Counted.__name__ = Counted.__qualname__ = f"Counted{base.__name__}"
    return Counted


CountedLogisticRegression = _counted(LogisticRegression, "lr")
CountedGaussianNB = _counted(GaussianNB, "nb")
CountedDecisionTreeClassifier = _counted(DecisionTreeClassifier, "tree")
CountedRidge = _counted(Ridge, "ridge")
CountedLasso = _counted(Lasso, "lasso")


X_IRIS, Y_IRIS = load_iris(return_X_y=True)
LABELS = np.array(["setosa", "versicolor", "virginica"])[Y_IRIS]
X_DIAB, Y_DIAB = load_diabetes(return_X_y=True)


def _classifiers():
    return [
        ("lr", CountedLogisticRegression(max_iter=1000)),
        ("nb", CountedGaussianNB()),
        ("tree", CountedDecisionTreeClassifier(max_depth=2, random_state=0)),
    ]


def _same_as(ours, theirs, X):
    assert hasattr(ours, "predict_proba") == hasattr(theirs, "predict_proba")
    assert (ours.predict(X) == theirs.predict(X)).all()
    if hasattr(theirs, "predict_proba"):
        assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-12
    ours_t, theirs_t = ours.transform(X), theirs.transform(X)
    assert ours_t.shape == theirs_t.shape
    if ours.voting == "hard":  # ww.Average encodes the labels 0..k-1 (as its docs say); scikit-learn's too
        assert (ours_t == theirs_t).all()
    else:
        assert np.max(np.abs(ours_t - theirs_t)) <= 1e-12


@pytest.mark.parametrize(
    "changes",
    [
        [{"weights": [1, 2, 5]}],
        [{"voting": "hard"}],
        [{"voting": "hard", "weights": [3, 1, 1]}, {"voting": "soft"}],
        [{"flatten_transform": False}, {"flatten_transform": True, "weights": [0, 1, 1]}],
        [{"voting": "hard"}, {"weights": [1, 1, 3]}, {"voting": "soft", "weights": None}],
    ],
)
def test_set_params_on_a_fitted_classifier_average_acts_at_once_as_voting_classifier(changes):
    ours = ww.Average(_classifiers()).fit(X_IRIS, LABELS)
    theirs = VotingClassifier(_classifiers(), voting="soft").fit(X_IRIS, LABELS)
    TRAINED.clear()
    for change in changes:
        ours.set_params(**change)
        theirs.set_params(**change)
        _same_as(ours, theirs, X_IRIS)
    assert TRAINED == []  # nothing trained for it
    ours.fit(X_IRIS, LABELS)  # nor at the next fit on the same data
    assert TRAINED == []
    _same_as(ours, theirs, X_IRIS)


def test_set_params_on_a_fitted_regressor_average_acts_at_once_as_voting_regressor():
    estimators = [("ridge", CountedRidge()), ("lasso", CountedLasso(alpha=0.1))]
    ours = ww.Average(estimators).fit(X_DIAB, Y_DIAB)
    theirs = VotingRegressor(estimators).fit(X_DIAB, Y_DIAB)
    TRAINED.clear()
    for weights in ([3, 1], [0, 1], None):
        ours.set_params(weights=weights)
        theirs.set_params(weights=weights)
        assert np.max(np.abs(ours.predict(X_DIAB) - theirs.predict(X_DIAB))) <= 1e-10
        assert np.max(np.abs(ours.predict(X_DIAB[:1]) - theirs.predict(X_DIAB[:1]))) <= 1e-10
    assert TRAINED == []
    ours.set_params(weights=[1, 2]).fit(X_DIAB, Y_DIAB)
    assert TRAINED == []


def test_weights_set_after_a_weighted_fit_train_nothing_at_the_next_fit_with_the_same_weights():
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(Y_DIAB))
    estimators = [("ridge", CountedRidge()), ("lasso", CountedLasso(alpha=0.1))]
    ours = ww.Average(estimators).fit(X_DIAB, Y_DIAB, sample_weight=w)
    theirs = VotingRegressor(estimators).fit(X_DIAB, Y_DIAB, sample_weight=w)
    TRAINED.clear()
    ours.set_params(weights=[1, 4])
    theirs.set_params(weights=[1, 4])
    assert np.max(np.abs(ours.predict(X_DIAB) - theirs.predict(X_DIAB))) <= 1e-10
    ours.fit(X_DIAB, Y_DIAB, sample_weight=w)
    assert TRAINED == []


def test_an_average_given_new_weights_pickles_and_clones_with_them():
    ours = ww.Average(_classifiers()).fit(X_IRIS, LABELS).set_params(weights=[1, 0, 2], voting="hard")
    theirs = VotingClassifier(_classifiers(), weights=[1, 0, 2], voting="hard").fit(X_IRIS, LABELS)
    TRAINED.clear()
    loaded = pickle.loads(pickle.dumps(ours))
    _same_as(loaded, theirs, X_IRIS)
    loaded.set_params(voting="soft")
    theirs.set_params(voting="soft")
    _same_as(loaded, theirs, X_IRIS)
    assert TRAINED == []
    copy = clone(ours)
    assert copy.get_params()["weights"] == [1, 0, 2] and copy.voting == "hard"
    assert "network_" not in copy.__dict__
    _same_as(copy.fit(X_IRIS, LABELS), theirs.set_params(voting="hard"), X_IRIS)


def test_set_params_on_an_unfitted_average_builds_nothing():
    avg = ww.Average(_classifiers()).set_params(weights=[1, 1, 1], voting="hard")
    assert "_built" not in avg.__dict__ and "network_" not in avg.__dict__
    assert not hasattr(avg, "predict_proba")  # as VotingClassifier(voting="hard")


def test_voting_a_fitted_network_cannot_take_is_refused_at_predict_until_set_back():
    svc = ("svc", SVC(random_state=0))  # no predict_proba: soft voting cannot use it
    avg = ww.Average([("lr", CountedLogisticRegression(max_iter=1000)), svc], voting="hard").fit(X_IRIS, LABELS)
    expected = avg.predict(X_IRIS)
    TRAINED.clear()
    avg.set_params(voting="soft")
    with pytest.raises(ww.NotTrainedError, match=r"after fit cannot be applied .*GraphError: Average: svc \(SVC\)"):
        avg.predict(X_IRIS)
    avg.set_params(voting="maybe")
    with pytest.raises(ww.NotTrainedError, match=r"voting must be 'soft' or 'hard'. Received: 'maybe'.*set_params"):
        avg.transform(X_IRIS)
    with pytest.raises(ww.GraphError, match="voting must be 'soft' or 'hard'"):
        avg.fit(X_IRIS, LABELS)
    avg.set_params(voting="hard")
    assert (avg.predict(X_IRIS) == expected).all()
    assert TRAINED == []


def test_a_new_estimator_with_new_weights_waits_for_fit():
    avg = ww.Average([("ridge", CountedRidge()), ("lasso", CountedLasso(alpha=0.1))]).fit(X_DIAB, Y_DIAB)
    before = avg.predict(X_DIAB)
    TRAINED.clear()
    avg.set_params(estimators=[("ridge", avg.estimators[0][1]), ("lasso", CountedLasso(alpha=1.0))], weights=[1, 3])
    assert TRAINED == [] and (avg.predict(X_DIAB) == before).all()  # the network of the last fit, as before
    with pytest.raises(ww.NotTrainedError, match="changed since the last fit"):
        avg.named_estimators_
    avg.fit(X_DIAB, Y_DIAB)
    assert TRAINED == ["lasso"]
    theirs = VotingRegressor(avg.estimators, weights=[1, 3]).fit(X_DIAB, Y_DIAB)
    assert np.max(np.abs(avg.predict(X_DIAB) - theirs.predict(X_DIAB))) <= 1e-10
