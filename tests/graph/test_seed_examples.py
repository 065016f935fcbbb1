"""The three networks of the seed (MLJ's learning-network examples), against scikit-learn."""

import numpy as np
import pytest
from _counting import Counting, fits
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_diabetes
from sklearn.ensemble import StackingRegressor
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

import wirework as ww


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:342], y[:342], X[342:]


def test_target_transformation_equals_transformed_target_regressor(diabetes):
    X_train, y_train, X_test = diabetes
    X, y = ww.source(X_train, name="X"), ww.source(y_train, name="y")
    std = ww.machine(StandardScaler(), y)
    z = std.transform(y)
    tree = ww.machine(DecisionTreeRegressor(random_state=0), X, z)
    yhat = std.inverse_transform(tree.predict(X))
    yhat.fit()

    reference = TransformedTargetRegressor(DecisionTreeRegressor(random_state=0), transformer=StandardScaler())
    reference.fit(X_train, y_train)
    assert np.max(np.abs(yhat(X_test) - reference.predict(X_test))) == 0
    assert np.max(np.abs(yhat() - reference.predict(X_train))) == 0
    assert repr(yhat) == "inverse_transform(m1, predict(m2, X))"
    assert yhat.sources() == [X]
    assert yhat.machines() == [std, tree]


def test_target_transformation_with_pandas_keeps_series(diabetes):
    data = load_diabetes(as_frame=True)
    X, y = ww.source(data.data, name="X"), ww.source(data.target, name="y")
    std = ww.machine(StandardScaler(), y)
    z = std.transform(y)
    assert z.fit()().index.equals(data.target.index)
    yhat = std.inverse_transform(ww.machine(DecisionTreeRegressor(random_state=0), X, z).predict(X))
    reference = TransformedTargetRegressor(DecisionTreeRegressor(random_state=0), transformer=StandardScaler())
    reference.fit(data.data, data.target)
    assert np.array_equal(yhat.fit()(data.data.iloc[:20]), reference.predict(data.data.iloc[:20]))


def test_homogeneous_ensemble_retrains_the_three_members_only(diabetes):
    X_train, y_train, X_test = diabetes
    X, y = ww.source(X_train, name="X"), ww.source(y_train, name="y")
    shared = Counting(DecisionTreeRegressor(max_depth=3, random_state=0), tag="tree")
    f = ww.folds(X, 3)
    members = [ww.machine(shared, ww.restrict(X, f, i), ww.restrict(y, f, i)) for i in range(3)]
    judge = ww.machine(Counting(LinearRegression(), tag="final"), X, y)  # not downstream of the members
    yhat = ww.mean(*[m.predict(X) for m in members]) + 0 * judge.predict(X)
    yhat.fit()
    assert fits("tree") == 3 and fits("final") == 1

    rows = np.arange(342)
    by_hand = np.mean(
        [DecisionTreeRegressor(max_depth=3, random_state=0).fit(X_train[r], y_train[r]).predict(X_test)
         for r in np.array_split(rows, 3)],
        axis=0,
    )
    assert np.allclose(yhat(X_test), by_hand, rtol=0, atol=1e-12)
    assert [m.fitted_model.estimator_.tree_.n_node_samples[0] for m in members] == [114, 114, 114]

    Counting.events.clear()
    shared.estimator.max_depth = 5
    yhat.fit()
    assert fits() == ["tree", "tree", "tree"]
    assert [m.report()["reason"] for m in members] == ["condition 6: hyperparameters changed"] * 3
    assert judge.report()["action"] == "skipped"
    assert all(m.fitted_model.estimator_.get_depth() > 3 for m in members)


def _stack_by_hand(X, y, learners, meta, n_folds=3):
    f = ww.folds(X, n_folds)
    oof, full = [], []
    for learner in learners:
        fold_predictions = [
            ww.machine(learner, ww.corestrict(X, f, i), ww.corestrict(y, f, i)).predict(ww.restrict(X, f, i))
            for i in range(n_folds)
        ]
        oof.append(ww.vcat(*fold_predictions))
        full.append(ww.machine(learner, X, y).predict(X))
    judge = ww.machine(meta, ww.hcat(*oof), y)
    return judge.predict(ww.hcat(*full))


def test_stacking_by_hand_equals_stacking_regressor():
    X_all, y_all = load_diabetes(return_X_y=True)
    X_train, y_train, X_test = X_all[:441], y_all[:441], X_all[441:]
    X, y = ww.source(X_train, name="X"), ww.source(y_train, name="y")
    learners = [Ridge(alpha=0.5), DecisionTreeRegressor(max_depth=4, random_state=0)]
    yhat = _stack_by_hand(X, y, learners, LinearRegression())
    assert len(yhat.machines()) == 2 * 4 + 1
    yhat.fit()

    reference = StackingRegressor(
        [("ridge", Ridge(alpha=0.5)), ("tree", DecisionTreeRegressor(max_depth=4, random_state=0))],
        final_estimator=LinearRegression(),
        cv=KFold(3),
    ).fit(X_train, y_train)
    assert np.max(np.abs(yhat(X_test) - reference.predict(X_test))) <= 1e-10
    assert np.max(np.abs(yhat() - reference.predict(X_train))) <= 1e-10
