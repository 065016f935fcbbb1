"""ww.Bagging and ww.Average: shared or separate models, regression and classification."""

import numpy as np
import pytest
from _counting import Counting, fits
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.ensemble import VotingClassifier, VotingRegressor
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)


def test_average_equals_voting_regressor_with_weights():
    estimators = [("ridge", Ridge()), ("lasso", Lasso(alpha=0.1))]
    ours = ww.Average(estimators, weights=[3, 1]).fit(X_DATA, Y_DATA)
    theirs = VotingRegressor(estimators, weights=[3, 1]).fit(X_DATA, Y_DATA)
    assert np.max(np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA))) <= 1e-10


def test_average_equals_soft_voting_classifier():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    estimators = [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())]
    ours = ww.Average(estimators).fit(X, labels)
    theirs = VotingClassifier(estimators, voting="soft").fit(X, labels)
    assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-12
    assert (ours.predict(X) == theirs.predict(X)).all()


def test_average_machines_may_share_one_model():
    shared = Counting(Ridge(), tag="shared")
    avg = ww.Average([("a", shared), ("b", shared), ("c", Counting(Lasso(), tag="lasso"))]).fit(X_DATA, Y_DATA)
    assert sorted(fits()) == ["lasso", "shared", "shared"]
    Counting.events.clear()
    shared.estimator.alpha = 5.0
    avg.fit(X_DATA, Y_DATA)
    assert fits() == ["shared", "shared"]


def test_bagging_shares_the_model_and_retrains_all_members_on_a_change():
    tree = Counting(DecisionTreeRegressor(max_depth=3, random_state=0), tag="tree")
    bag = ww.Bagging(tree, n_estimators=5, random_state=0).fit(X_DATA, Y_DATA)
    assert fits() == ["tree"] * 5
    first = bag.predict(X_DATA)
    assert not np.allclose(first, bag.machines_[0].fitted_model.predict(X_DATA))  # members differ
    Counting.events.clear()
    bag.set_params(estimator__estimator__max_depth=2).fit(X_DATA, Y_DATA)
    assert fits() == ["tree"] * 5
    assert np.allclose(ww.Bagging(DecisionTreeRegressor(max_depth=3, random_state=0), n_estimators=5, random_state=0)
                       .fit(X_DATA, Y_DATA).predict(X_DATA), first)


def test_bagging_seeds_members_of_an_unseeded_model_reproducibly():
    a = ww.Bagging(DecisionTreeRegressor(max_features=0.5), n_estimators=4, random_state=1).fit(X_DATA, Y_DATA)
    b = ww.Bagging(DecisionTreeRegressor(max_features=0.5), n_estimators=4, random_state=1).fit(X_DATA, Y_DATA)
    assert np.array_equal(a.predict(X_DATA), b.predict(X_DATA))
    seeds = {m.fitted_model.estimator_.random_state for m in a.machines_}
    assert len(seeds) == 4


def test_bagging_classifier_sees_every_class_in_every_member():
    X, y = load_iris(return_X_y=True)
    bag = ww.Bagging(DecisionTreeClassifier(random_state=0), n_estimators=6, max_samples=6, random_state=0).fit(X, y)
    assert bag.predict_proba(X).shape == (150, 3)
    assert all(len(m.fitted_model.estimator_.classes_) == 3 for m in bag.machines_ if m.name.startswith("member"))
    assert bag.score(X, y) > 0.6


def test_bad_ensembles():
    with pytest.raises(ww.GraphError, match="all be regressors or all classifiers"):
        ww.Average([("r", Ridge()), ("c", LogisticRegression())]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"weights must be 2 non-negative numbers.*Received: \[1\]"):
        ww.Average([("r", Ridge()), ("l", Lasso())], weights=[1]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"n_estimators must be an int >= 1\. Received: 0"):
        ww.Bagging(Ridge(), n_estimators=0).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.DataError, match="max_samples gives 0 rows per member"):
        ww.Bagging(Ridge(), n_estimators=2, max_samples=0).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Bagging: expected estimator to be a model with fit\(\).*Received: NoneType None"):
        ww.Bagging(None).fit(X_DATA, Y_DATA)


def test_replacing_one_of_two_names_sharing_a_model_rebuilds_correctly():
    shared = Ridge(alpha=1.0)
    avg = ww.Average([("a", shared), ("b", shared)]).fit(X_DATA, Y_DATA)
    avg.set_params(b=Lasso(alpha=0.5)).fit(X_DATA, Y_DATA)
    fitted = avg.fitted_params_()
    assert isinstance(fitted["a"], Ridge) and isinstance(fitted["b"], Lasso)
    expected = (Ridge().fit(X_DATA, Y_DATA).predict(X_DATA) + Lasso(alpha=0.5).fit(X_DATA, Y_DATA).predict(X_DATA)) / 2
    assert np.allclose(avg.predict(X_DATA), expected)


def test_building_never_advances_a_random_state_hyperparameter():
    state = np.random.RandomState(7)
    before = state.get_state()[1].copy()
    bag = ww.Bagging(DecisionTreeRegressor(max_depth=2), n_estimators=3, random_state=state)
    assert hasattr(bag, "predict")  # builds a trial network
    first = bag.fit(X_DATA, Y_DATA).predict(X_DATA)
    assert np.array_equal(state.get_state()[1], before)
    assert np.array_equal(ww.Bagging(DecisionTreeRegressor(max_depth=2), n_estimators=3, random_state=np.random.RandomState(7))
                          .fit(X_DATA, Y_DATA).predict(X_DATA), first)
    from sklearn.model_selection import KFold
    stack = ww.Stack([("tree", DecisionTreeRegressor(max_depth=2, random_state=0))], Ridge(), cv=KFold(3, shuffle=True),
                     random_state=np.random.RandomState(1))
    assert stack.fit(X_DATA, Y_DATA).score(X_DATA, Y_DATA) > 0.2


def test_fitted_attributes_are_scikit_learn_s():
    X, y = load_iris(return_X_y=True)
    voters = [("lr", LogisticRegression(max_iter=1000)), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]
    ours = ww.Average(voters)
    assert not hasattr(ours, "estimators_")
    ours.fit(X, y)
    theirs = VotingClassifier(voters, voting="soft").fit(X, y)
    assert list(ours.named_estimators_) == ["lr", "tree"]
    assert np.array_equal(ours.estimators_[0].coef_, theirs.estimators_[0].coef_)
    bag = ww.Bagging(DecisionTreeClassifier(max_depth=3), n_estimators=3, random_state=0).fit(X, y)
    members = bag.estimators_
    assert [type(m).__name__ for m in members] == ["DecisionTreeClassifier"] * 3  # not the Seeded wrapper
    assert len({m.random_state for m in members}) == 3 and all(hasattr(m, "tree_") for m in members)
    assert not hasattr(ww.Bagging(DecisionTreeClassifier()), "estimators_")


@pytest.mark.parametrize("weights", [None, [1, 2, 1], [1, 1, 0]], ids=["equal", "weighted", "ties"])
def test_hard_voting_equals_scikit_learn_s(weights):
    X, y = load_breast_cancer(return_X_y=True)
    labels = np.where(y == 1, "benign", "malignant")
    # SVC has no predict_proba: hard voting needs only predict
    voters = [("svc", SVC()), ("tree", DecisionTreeClassifier(max_depth=2, random_state=0)), ("nb", GaussianNB())]
    ours = ww.Average(voters, weights=weights, voting="hard").fit(X, labels)
    theirs = VotingClassifier(voters, weights=weights, voting="hard").fit(X, labels)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    assert not hasattr(ours, "predict_proba") and not hasattr(theirs, "predict_proba")
    assert ours.score(X, labels) == theirs.score(X, labels)


def test_average_weights_and_voting_are_checked():
    voters = [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())]
    X, y = load_iris(return_X_y=True)
    for weights in (["a", 1], [np.nan, 1], [0, 0], [-1, 2]):
        with pytest.raises(ww.GraphError, match=r"weights must be 2 non-negative numbers with a positive sum"):
            ww.Average(voters, weights=weights).fit(X, y)
    with pytest.raises(ww.GraphError, match=r"voting must be 'soft' or 'hard'\. Received: 'Hard'"):
        ww.Average(voters, voting="Hard").fit(X, y)
    with pytest.raises(ww.GraphError, match=r"svc \(SVC\) has no predict_proba\(\)"):
        ww.Average([("svc", SVC())], voting="soft").fit(X, y)
