"""ww.Bagging and ww.Average: shared or separate models, regression and classification."""

import pickle
import warnings

import numpy as np
import pytest
from _counting import Counting, WeightedCounting, fits
from _probes import ColumnRidge
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.compose import TransformedTargetRegressor
from sklearn.decomposition import PCA
from sklearn.ensemble import BaggingClassifier, BaggingRegressor, StackingRegressor, VotingClassifier, VotingRegressor
from sklearn.linear_model import Lasso, LogisticRegression, Ridge, SGDRegressor
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeRegressor

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


def test_bagging_seeds_every_random_state_of_each_member_as_scikit_learn_s():
    # A nested random_state left at None (a pipeline's tree) drew afresh at each training: two baggings of the same
    # seed predicted 84 apart on diabetes. A fixed one gave every member the same randomness, where scikit-learn's
    # bagging gives each member seeds of its own for all of them.
    pipe = make_pipeline(StandardScaler(), DecisionTreeRegressor(max_features=0.5))
    first = ww.Bagging(pipe, n_estimators=4, random_state=0).fit(X_DATA, Y_DATA)
    again = ww.Bagging(pipe, n_estimators=4, random_state=0).fit(X_DATA, Y_DATA)
    assert np.array_equal(first.predict(X_DATA), again.predict(X_DATA))
    assert pipe[-1].random_state is None  # the shared model is left as given
    fixed = DecisionTreeRegressor(max_features=0.5, random_state=0)
    ours = ww.Bagging(fixed, n_estimators=4, random_state=0).fit(X_DATA, Y_DATA)
    theirs = BaggingRegressor(fixed, n_estimators=4, random_state=0).fit(X_DATA, Y_DATA)
    for seeds in (
        [member[-1].random_state for member in first.estimators_],
        [member.random_state for member in ours.estimators_],
        [member.random_state for member in theirs.estimators_],
    ):
        assert all(type(seed) is int for seed in seeds) and len(set(seeds)) == 4


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
    with pytest.raises(ww.GraphError, match=r"max_samples must be a count \(an int >= 1\) or a fraction in \(0, 1\] or None \(every row\)\. Received: 0"):
        ww.Bagging(Ridge(), n_estimators=2, max_samples=0).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.DataError, match=r"max_samples gives 1000 rows per member, more than the 442 rows .* "
                       r"without replacement \(bootstrap=False\) cannot give\. Use max_samples <= 442, or bootstrap=True"):
        ww.Bagging(Ridge(), n_estimators=2, max_samples=1000, bootstrap=False).fit(X_DATA, Y_DATA)
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


@pytest.mark.parametrize("voting", ["soft", "hard"])
def test_a_voter_named_labels_is_a_voter_as_in_scikit_learn(voting):
    X, y = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"])[y]
    voters = [("labels", GaussianNB()), ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))]
    ours = ww.Average(voters, weights=[2, 1], voting=voting).fit(X, y)
    theirs = VotingClassifier(voters, weights=[2, 1], voting=voting).fit(X, y)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    if voting == "soft":
        assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-12
    assert list(ours.named_estimators_) == ["labels", "tree"] and isinstance(ours.estimators_[0], GaussianNB)
    params = ours.fitted_params_()
    assert params["labels"] is ours.named_estimators_["labels"] and list(params["labels_"].classes_) == list(theirs.classes_)
    assert set(ours.report_()["machines"]) == {"labels", "labels_", "tree"}


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


def test_average_of_predictions_of_different_shapes_is_a_clear_error():
    # (n, 1) beside (n,) was broadcast into an (n, n) table, silently (442 x 442 on load_diabetes); scikit-learn's
    # VotingRegressor raises NumPy's "inhomogeneous shape" ValueError there.
    average = ww.Average([("column", ColumnRidge()), ("ridge", Ridge())]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.DataError, match=r"The models' outputs have different shapes, \[\(5, 1\), \(5,\)\], so "
                       r"they cannot be averaged row by row") as info:
        average.predict(X_DATA[:5])
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError):
        VotingRegressor([("column", ColumnRidge()), ("ridge", Ridge())]).fit(X_DATA, Y_DATA).predict(X_DATA[:5])
    same = ww.Average([("column", ColumnRidge()), ("again", ColumnRidge())]).fit(X_DATA, Y_DATA)
    assert same.predict(X_DATA[:5]).shape == (5, 1)


def _draws(bag, y, classes):
    """Each member's drawn rows, drawn again as the bagging draws them (its seeds, then drawn_rows)."""
    from wirework.compose import _ops

    seeds = _ops.private_rng(bag.random_state).randint(np.iinfo(np.int32).max, size=bag.n_estimators)
    return [_ops.drawn_rows(y, int(s), bag.max_samples, classes, bag.bootstrap) for s in seeds]


def test_out_of_bag_predictions_average_the_members_that_did_not_draw_the_row():
    bag = ww.Bagging(DecisionTreeRegressor(max_depth=4), n_estimators=30, oob_score=True, random_state=0)
    bag.fit(X_DATA, Y_DATA)
    total, count = np.zeros(len(Y_DATA)), np.zeros(len(Y_DATA))
    for member, rows in zip(bag.estimators_, _draws(bag, Y_DATA, False), strict=True):
        out = np.setdiff1d(np.arange(len(Y_DATA)), rows)
        total[out] += member.predict(X_DATA[out])
        count[out] += 1
    assert count.min() > 0
    assert np.allclose(bag.oob_prediction_, total / count, rtol=0, atol=1e-9)
    assert bag.oob_score_ == pytest.approx(r2_score(Y_DATA, total / count), abs=1e-12)
    assert bag.report_()["oob_score"] == bag.oob_score_
    # the same estimate as scikit-learn's bagging, up to its other draws
    theirs = BaggingRegressor(DecisionTreeRegressor(max_depth=4), n_estimators=30, oob_score=True, random_state=0)
    assert abs(bag.oob_score_ - theirs.fit(X_DATA, Y_DATA).oob_score_) < 0.05


def test_out_of_bag_probabilities_and_accuracy_for_classifiers():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    bag = ww.Bagging(DecisionTreeClassifier(max_depth=2), n_estimators=40, oob_score=True, random_state=0).fit(X, labels)
    total = np.zeros((150, 3))
    for member, rows in zip(bag.estimators_, _draws(bag, y, True), strict=True):
        out = np.setdiff1d(np.arange(150), rows)
        total[out] += member.predict_proba(X[out])
    assert np.allclose(bag.oob_decision_function_, total / total.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)
    assert bag.oob_score_ == pytest.approx(np.mean(total.argmax(axis=1) == y), abs=1e-12)
    assert not hasattr(bag, "oob_prediction_")
    assert not hasattr(ww.Bagging(DecisionTreeClassifier()).fit(X, y), "oob_score_")


def scaled_wine():
    X, y = load_wine(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), np.array(["barolo", "grignolino", "barbera"])[y]


@pytest.mark.parametrize("model", [LinearSVC(), SVC(), LogisticRegression()], ids=["LinearSVC", "SVC", "LogisticRegression"])
def test_a_classifier_bagging_predicts_as_scikit_learn_s_with_or_without_predict_proba(model):
    # A model without predict_proba (LinearSVC, SVC) was refused, where scikit-learn's bagging averages the members'
    # votes; predict_log_proba and decision_function were missing. Drawing every row without replacement, the
    # members learn what scikit-learn's learn, whatever the draws.
    X, y = scaled_wine()
    ours = ww.Bagging(model, n_estimators=5, bootstrap=False, random_state=0).fit(X, y)
    theirs = BaggingClassifier(model, n_estimators=5, bootstrap=False, random_state=0).fit(X, y)
    for method in ("predict_proba", "predict_log_proba", "decision_function"):
        assert hasattr(ours, method) == hasattr(theirs, method)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10
    assert np.abs(ours.decision_function(X) - theirs.decision_function(X)).max() <= 1e-10
    with np.errstate(divide="ignore"):  # scikit-learn's log of a vote share of 0 warns
        expected = theirs.predict_log_proba(X)
    finite = np.isfinite(expected)
    assert np.array_equal(np.isfinite(ours.predict_log_proba(X)), finite)
    assert np.abs(ours.predict_log_proba(X)[finite] - expected[finite]).max() <= 1e-10
    assert [type(member) for member in ours.estimators_] == [type(model)] * 5


def test_out_of_bag_votes_of_members_without_predict_proba_as_scikit_learn_counts_them():
    X, y = scaled_wine()
    bag = ww.Bagging(LinearSVC(), n_estimators=20, oob_score=True, random_state=1).fit(X, y)
    codes = np.unique(y, return_inverse=True)[1]
    votes = np.zeros((len(y), 3))
    for member, rows in zip(bag.estimators_, _draws(bag, codes, True), strict=True):
        out = np.setdiff1d(np.arange(len(y)), rows)
        votes[out, member.predict(X[out])] += 1
    assert (votes.sum(axis=1) > 0).all()
    assert np.array_equal(bag.oob_decision_function_, votes / votes.sum(axis=1, keepdims=True))
    assert bag.oob_score_ == np.mean(votes.argmax(axis=1) == codes)


def test_rows_without_an_out_of_bag_estimate_warn_as_scikit_learn():
    with pytest.warns(UserWarning, match="Some inputs do not have OOB scores"):
        bag = ww.Bagging(Ridge(), n_estimators=1, oob_score=True, random_state=0).fit(X_DATA, Y_DATA)
    assert (bag.oob_prediction_ == 0).any()


class Rows(RegressorMixin, BaseEstimator):
    """Remembers the rows it trained on."""

    def fit(self, X, y):
        self.rows_ = np.asarray(X)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_without_bootstrap_each_member_draws_distinct_rows():
    X = np.arange(442.0).reshape(-1, 1)  # each row its own value
    pasted = ww.Bagging(Rows(), n_estimators=4, max_samples=0.5, bootstrap=False, random_state=0).fit(X, Y_DATA)
    for member in pasted.estimators_:
        assert len(member.rows_) == 221 == len(np.unique(member.rows_))
    drawn = ww.Bagging(Rows(), n_estimators=4, max_samples=0.5, random_state=0).fit(X, Y_DATA)
    assert all(len(np.unique(member.rows_)) < 221 for member in drawn.estimators_)  # with replacement: repeats


@pytest.mark.parametrize("max_samples, max_features", [(0.33, 0.55), (0.7, 0.7), (0.5, 3), (600, 1.0), (100, 0.25)])
def test_members_draw_as_many_rows_and_columns_as_scikit_learn_s(max_samples, max_features):
    # Fractions were rounded to the nearest (146 rows of 442 for 0.33, 6 columns of 10 for 0.55) where scikit-learn's
    # bagging rounds down (145, 5); a count above the rows was refused where it draws them with replacement.
    # KNeighborsRegressor's fit takes no weights, so scikit-learn's members train on the drawn rows themselves.
    options = {"n_estimators": 3, "max_samples": max_samples, "max_features": max_features, "random_state": 0}
    ours = ww.Bagging(KNeighborsRegressor(), **options).fit(X_DATA, Y_DATA)
    theirs = BaggingRegressor(KNeighborsRegressor(), **options).fit(X_DATA, Y_DATA)
    drawn = {(m.n_samples_fit_, m.n_features_in_) for m in theirs.estimators_}
    assert len(drawn) == 1 and {(m.n_samples_fit_, m.n_features_in_) for m in ours.estimators_} == drawn
    assert [len(f) for f in ours.estimators_features_] == [len(f) for f in theirs.estimators_features_]


@pytest.mark.parametrize(
    "model, options",
    [
        (DecisionTreeRegressor(max_depth=4), {}),
        (ExtraTreeRegressor(max_depth=4), {"max_features": 0.5}),
        (DecisionTreeRegressor(max_depth=4), {"max_features": 3, "bootstrap": False, "max_samples": 0.3}),
        (KNeighborsRegressor(), {"max_features": 0.95, "max_samples": 50}),
        (DecisionTreeRegressor(max_depth=4), {"max_features": 0.7, "oob_score": True}),
    ],
)
def test_bagging_equals_scikit_learn_s_of_the_same_random_state(model, options):
    # A member of seed s draws its columns, then its rows, from RandomState(s), and seeds its model's random_state
    # parameters from it too, as scikit-learn's bagging does: the same members, whatever the options. The columns
    # came from another generator (and were sorted), so a subspace bagging predicted apart from scikit-learn's.
    ours = ww.Bagging(model, n_estimators=30, random_state=0, **options).fit(X_DATA, Y_DATA)
    theirs = BaggingRegressor(model, n_estimators=30, random_state=0, **options).fit(X_DATA, Y_DATA)
    assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
    assert all(np.array_equal(a, b) for a, b in zip(ours.estimators_features_, theirs.estimators_features_, strict=True))
    if options.get("oob_score"):
        assert ours.oob_score_ == pytest.approx(theirs.oob_score_, abs=1e-12)
        assert np.abs(ours.oob_prediction_ - theirs.oob_prediction_).max() <= 1e-10


def banded(X):
    """``X`` standardized and rounded: few distinct rows, each shared by rows of other targets (ties)."""
    return np.round(StandardScaler().fit_transform(X), 0)


@pytest.mark.parametrize("model, options", [
    (KNeighborsRegressor(5), {}),
    (KNeighborsRegressor(5), {"bootstrap": False, "max_samples": 0.7}),
    (KNeighborsRegressor(5), {"max_features": 0.5, "max_samples": 300}),
    (make_pipeline(StandardScaler(), SGDRegressor(shuffle=False, max_iter=5, tol=None)), {}),
    (SGDRegressor(shuffle=False, max_iter=5, tol=None), {}),
], ids=["knn ties", "knn ties pasting", "knn ties subspaces", "sgd in a pipeline", "sgd"])
@pytest.mark.filterwarnings("ignore:Maximum number of iteration reached:sklearn.exceptions.ConvergenceWarning")
def test_members_train_on_their_rows_in_the_order_drawn_as_scikit_learn_s(model, options):
    # a member whose fit takes no weights trained on its drawn rows sorted, where scikit-learn's bagging indexes
    # them in the order drawn: a KNeighborsRegressor picks among tied neighbours by their order (up to 34 apart
    # on these banded columns), an SGDRegressor(shuffle=False) in a pipeline steps through the rows in order (4.0
    # apart); an SGDRegressor alone takes weights, so it trains on all rows with its draw's counts (equal before)
    X = banded(X_DATA[:, [2, 3]]) if isinstance(model, KNeighborsRegressor) else X_DATA
    assert not isinstance(model, KNeighborsRegressor) or len(np.unique(X, axis=0)) < len(X) / 10
    ours = ww.Bagging(model, n_estimators=10, random_state=0, **options).fit(X, Y_DATA)
    theirs = BaggingRegressor(model, n_estimators=10, random_state=0, **options).fit(X, Y_DATA)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10


def test_a_classifier_s_members_train_on_their_rows_in_the_order_drawn_as_scikit_learn_s():
    X, y = load_iris(return_X_y=True)
    X = banded(X)  # ties: rows of several classes at one place (0.34 apart in probability when sorted)
    ours = ww.Bagging(KNeighborsClassifier(5), n_estimators=10, random_state=0).fit(X, y)
    theirs = BaggingClassifier(KNeighborsClassifier(5), n_estimators=10, random_state=0).fit(X, y)
    assert all(set(y[drawn]) == set(y) for drawn in ours.estimators_samples_)  # no row added for a class
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10


def test_a_classifier_bagging_equals_scikit_learn_s_when_every_class_is_in_every_draw():
    X, y = scaled_wine()
    for model in (DecisionTreeClassifier(max_depth=3), LinearSVC()):  # probabilities, or votes
        ours = ww.Bagging(model, n_estimators=30, max_features=0.6, oob_score=True, random_state=0).fit(X, y)
        theirs = BaggingClassifier(model, n_estimators=30, max_features=0.6, oob_score=True, random_state=0).fit(X, y)
        assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10
        assert np.abs(ours.oob_decision_function_ - theirs.oob_decision_function_).max() <= 1e-10
        assert ours.oob_score_ == theirs.oob_score_


@pytest.mark.parametrize(
    "options",
    [{}, {"bootstrap": False, "max_samples": 0.3}, {"max_samples": 600, "max_features": 4}, {"bootstrap_features": True}],
    ids=["bootstrap", "pasting", "more rows than X, subspaces", "bootstrap features"],
)
def test_estimators_samples_are_scikit_learn_s(options):
    # ww.Bagging had no estimators_samples_: each member's rows in the order drawn, repeats included
    ours = ww.Bagging(KNeighborsRegressor(), n_estimators=7, random_state=0, **options).fit(X_DATA, Y_DATA)
    theirs = BaggingRegressor(KNeighborsRegressor(), n_estimators=7, random_state=0, **options).fit(X_DATA, Y_DATA)
    samples = ours.estimators_samples_
    assert len(samples) == 7
    members = zip(samples, theirs.estimators_samples_, ours.estimators_, ours.estimators_features_, strict=True)
    for drawn, expected, member, features in members:
        np.testing.assert_array_equal(drawn, expected)
        np.testing.assert_array_equal(member._fit_X, X_DATA[drawn][:, features])  # what it trained on, in that order
    again = ww.Bagging(KNeighborsRegressor(), n_estimators=7, random_state=0, **options)
    assert not hasattr(again, "estimators_samples_")  # not fitted


def test_estimators_samples_of_a_classifier_end_with_the_rows_added_for_missing_classes():
    X, y = scaled_wine()  # KNeighborsClassifier's fit takes no weights: each member trains on its drawn rows
    ours = ww.Bagging(KNeighborsClassifier(1), n_estimators=20, max_samples=5, random_state=0).fit(X, y)
    theirs = BaggingClassifier(KNeighborsClassifier(1), n_estimators=20, max_samples=5, random_state=0).fit(X, y)
    lengths = [len(drawn) for drawn in ours.estimators_samples_]
    assert min(lengths) == 5 and max(lengths) > 5  # some draws of 5 rows lacked a class
    for drawn, expected in zip(ours.estimators_samples_, theirs.estimators_samples_, strict=True):
        np.testing.assert_array_equal(drawn[:5], expected)
        assert set(y[drawn]) == set(y) and (len(drawn) == 5 or not set(y[drawn[5:]]) & set(y[drawn[:5]]))
    copy = pickle.loads(pickle.dumps(ours))
    assert all(np.array_equal(a, b) for a, b in zip(copy.estimators_samples_, ours.estimators_samples_, strict=True))
    del copy.report_values_["draws"]  # as fitted by a version that kept no draws
    with pytest.raises(ww.UnavailableError, match="kept no record of its draws.*Fit it again"):
        copy.estimators_samples_


def test_a_bagging_pickled_before_its_draws_were_kept_says_why_and_fits_again():
    # such a bagging also lacks bootstrap_features (both came on 2026-11-30): "Fit it again", as the message said,
    # failed with an AttributeError ('Bagging' object has no attribute 'bootstrap_features')
    bag = ww.Bagging(KNeighborsRegressor(), n_estimators=3, random_state=0).fit(X_DATA, Y_DATA)
    old = pickle.loads(pickle.dumps(bag))
    del old.__dict__["bootstrap_features"], old.report_values_["draws"]
    old = pickle.loads(pickle.dumps(old))  # what such a pickle holds, unpickled by this version
    np.testing.assert_array_equal(old.predict(X_DATA), bag.predict(X_DATA))
    with pytest.raises(ww.UnavailableError, match=(
        r"fitted by a version of wirework from before 2026-11-30, which kept no record of its draws, so it has no "
        r"estimators_samples_\. They cannot be drawn again from what it holds: each member's seed is kept, but a draw "
        r"also needs the number of training rows .* training data is not pickled.* Its predictions are unaffected\. "
        r"Fit it again on its training data, fit\(X, y\): that fit keeps the draws")):
        old.estimators_samples_
    assert old.bootstrap_features is False
    theirs = BaggingRegressor(KNeighborsRegressor(), n_estimators=3, random_state=0).fit(X_DATA, Y_DATA)
    samples = old.fit(X_DATA, Y_DATA).estimators_samples_
    assert all(np.array_equal(a, b) for a, b in zip(samples, theirs.estimators_samples_, strict=True))


@pytest.mark.parametrize("max_features", [1.0, 0.5, 7])
def test_bootstrap_features_draws_columns_with_replacement_as_scikit_learn_s(max_features):
    # bootstrap_features was missing: scikit-learn's bagging then draws each member's columns with replacement
    options = {"n_estimators": 30, "max_features": max_features, "bootstrap_features": True, "random_state": 0}
    ours = ww.Bagging(DecisionTreeRegressor(max_depth=4), oob_score=True, **options).fit(X_DATA, Y_DATA)
    theirs = BaggingRegressor(DecisionTreeRegressor(max_depth=4), oob_score=True, **options).fit(X_DATA, Y_DATA)
    assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
    assert all(np.array_equal(a, b) for a, b in zip(ours.estimators_features_, theirs.estimators_features_, strict=True))
    assert any(len(np.unique(f)) < len(f) for f in ours.estimators_features_)  # a column drawn twice
    assert ours.oob_score_ == pytest.approx(theirs.oob_score_, abs=1e-12)
    X, y = scaled_wine()
    ours = ww.Bagging(LinearSVC(), **options).fit(X, y)
    theirs = BaggingClassifier(LinearSVC(), **options).fit(X, y)
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10
    with pytest.raises(ww.GraphError, match=r"bootstrap_features must be a bool\. Received: 1"):
        ww.Bagging(Ridge(), bootstrap_features=1).fit(X_DATA, Y_DATA)


def test_growing_or_shrinking_n_estimators_keeps_the_members_trained_as_a_warm_start():
    # no warm_start parameter is needed: the member of seed k is the same in both networks (the seeds of n
    # members begin those of more), so a refit trains only the members added, as scikit-learn's warm start
    # does, and keeps the first ones when members are removed (which scikit-learn's warm start refuses)
    tree = Counting(DecisionTreeRegressor(max_depth=4), tag="tree")
    bag = ww.Bagging(tree, n_estimators=5, random_state=0).fit(X_DATA, Y_DATA)
    Counting.events.clear()
    bag.set_params(n_estimators=9).fit(X_DATA, Y_DATA)
    assert fits() == ["tree"] * 4
    warm = BaggingRegressor(DecisionTreeRegressor(max_depth=4), n_estimators=5, warm_start=True, random_state=0)
    warm.fit(X_DATA, Y_DATA).set_params(n_estimators=9).fit(X_DATA, Y_DATA)
    assert np.abs(bag.predict(X_DATA) - warm.predict(X_DATA)).max() <= 1e-10
    Counting.events.clear()
    bag.set_params(n_estimators=3).fit(X_DATA, Y_DATA)
    assert fits() == []
    fewer = BaggingRegressor(DecisionTreeRegressor(max_depth=4), n_estimators=3, random_state=0).fit(X_DATA, Y_DATA)
    assert np.abs(bag.predict(X_DATA) - fewer.predict(X_DATA)).max() <= 1e-10


def test_the_column_draws_of_a_bagging_pickled_before_are_kept():
    # a network pickled before the draws were scikit-learn's names these functions in its nodes: its members
    # trained on these columns, which it must go on giving them
    from wirework.compose import _ops

    assert list(_ops.feature_subset(10, 7, 0.55)) == sorted(np.random.RandomState([7, 1]).permutation(10)[:6])
    assert np.array_equal(_ops.member_columns(X_DATA, seed=7, max_features=0.55), X_DATA[:, _ops.feature_subset(10, 7, 0.55)])
    assert [list(f) for f in _ops.feature_sets(X_DATA, seeds=(7,), max_features=3)] == [list(_ops.feature_subset(10, 7, 3))]


def test_max_features_gives_each_member_its_columns_at_fit_and_predict():
    bag = ww.Bagging(Ridge(), n_estimators=6, max_features=0.5, random_state=0).fit(X_DATA, Y_DATA)
    features = bag.estimators_features_
    assert [len(f) for f in features] == [5] * 6 and all(len(np.unique(f)) == 5 for f in features)
    assert len({tuple(f) for f in features}) > 1
    assert all(member.n_features_in_ == 5 for member in bag.estimators_)
    members = np.mean([m.predict(X_DATA[:, f]) for m, f in zip(bag.estimators_, features, strict=True)], axis=0)
    assert np.allclose(bag.predict(X_DATA), members, rtol=0, atol=1e-9)
    frame = load_diabetes(as_frame=True).frame.drop(columns="target")
    named = ww.Bagging(Ridge(), n_estimators=6, max_features=3, random_state=0).fit(frame, Y_DATA)
    assert [list(m.feature_names_in_) for m in named.estimators_] == [
        list(frame.columns[f]) for f in named.estimators_features_
    ]
    everything = ww.Bagging(Ridge(), n_estimators=2, random_state=0).fit(X_DATA, Y_DATA)
    assert all(np.array_equal(f, np.arange(10)) for f in everything.estimators_features_)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"bootstrap": "yes"}, ww.GraphError, r"bootstrap must be a bool\. Received: 'yes'"),
        ({"oob_score": True, "bootstrap": False}, ww.GraphError, "out-of-bag estimation needs bootstrap=True"),
        ({"max_features": 0}, ww.GraphError, r"max_features must be a count \(an int >= 1\) or a fraction in \(0, 1\]"),
        ({"max_features": 1.5}, ww.GraphError, r"max_features must be a count .* Received: 1\.5"),
        ({"max_features": 11}, ww.DataError, "max_features gives 11 columns per member; it must give between 1 and 10"),
    ],
    ids=["bootstrap", "oob without bootstrap", "no column", "more than all", "more columns than X"],
)
def test_bad_draw_options(options, error, message):
    with pytest.raises(error, match=message):
        ww.Bagging(Ridge(), n_estimators=2, **options).fit(X_DATA, Y_DATA)


def test_numpy_numbers_are_taken_as_the_python_ones_and_bools_are_not_counts():
    X, y = X_DATA[:120], Y_DATA[:120]
    tree = DecisionTreeRegressor(max_depth=2)
    plain = ww.Bagging(tree, n_estimators=4, max_samples=60, max_features=1.0, random_state=0, n_jobs=2)
    numpy = ww.Bagging(
        tree, n_estimators=np.int64(4), max_samples=np.int32(60), max_features=np.float32(1.0), random_state=0,
        executor="threads", n_jobs=np.int64(2),
    )
    np.testing.assert_array_equal(numpy.fit(X, y).predict(X), plain.fit(X, y).predict(X))
    search = GridSearchCV(ww.Bagging(tree, random_state=0), {"n_estimators": np.arange(2, 6, 2)}, cv=3).fit(X, y)
    assert search.best_params_["n_estimators"] in (2, 4)
    with pytest.raises(ww.GraphError, match=r"n_estimators must be an int >= 1\. Received: True"):
        ww.Bagging(tree, n_estimators=True).fit(X, y)


@pytest.mark.parametrize("voting, flatten", [("soft", True), ("soft", False), ("hard", True)])
def test_average_transform_equals_voting_classifier_s(voting, flatten):
    X, y = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"])[y]
    voters = [("lr", LogisticRegression(max_iter=1000)), ("drop_me", "drop"), ("tree2", DecisionTreeClassifier(max_depth=2, random_state=0))]
    ours = ww.Average(voters, voting=voting, flatten_transform=flatten).fit(X, y)
    theirs = VotingClassifier(voters, voting=voting, flatten_transform=flatten).fit(X, y)
    assert ours.transform(X).shape == theirs.transform(X).shape
    assert np.max(np.abs(ours.transform(X) - theirs.transform(X))) <= 1e-12
    if voting == "soft" and not flatten:
        with pytest.raises(ValueError, match="flatten_transform=False"):
            ours.get_feature_names_out()
        return
    assert list(ours.get_feature_names_out()) == [n.replace("votingclassifier", "average") for n in theirs.get_feature_names_out()]
    frame = ours.set_output(transform="pandas").transform(X)
    assert list(frame.columns) == list(ours.get_feature_names_out())


def test_average_transform_equals_voting_regressor_s():
    voters = [("ridge", Ridge()), ("lasso", Lasso(alpha=0.1))]
    ours = ww.Average(voters, weights=[3, 1]).fit(X_DATA, Y_DATA)
    theirs = VotingRegressor(voters, weights=[3, 1]).fit(X_DATA, Y_DATA)
    assert np.max(np.abs(ours.transform(X_DATA) - theirs.transform(X_DATA))) <= 1e-10
    assert list(ours.get_feature_names_out()) == ["average_ridge", "average_lasso"]
    assert list(theirs.get_feature_names_out()) == ["votingregressor_ridge", "votingregressor_lasso"]
    assert np.array_equal(ours.fit_transform(X_DATA, Y_DATA), ours.transform(X_DATA))


W_DATA = np.random.RandomState(0).uniform(0.1, 3.0, len(Y_DATA))
DRAWS = [
    {},
    {"max_samples": 0.6, "max_features": 0.7},
    {"bootstrap": False, "max_samples": 0.5},
    {"max_samples": 60, "bootstrap_features": True},
    {"max_samples": 8},  # draws that lack a class
]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("options", DRAWS, ids=["bootstrap", "fraction, subspaces", "pasting", "count, features drawn", "few rows"])
@pytest.mark.parametrize("model", [LinearSVC(), LogisticRegression(max_iter=1000), Ridge()], ids=["LinearSVC", "LogisticRegression", "Ridge"])
def test_members_whose_fit_takes_weights_train_as_scikit_learn_s(model, options, weighted):
    # A member whose fit takes sample_weight trained on its drawn rows (repeated), where scikit-learn's bagging trains
    # it on all rows weighted by how many times it drew each: equal for trees, 4e-4 apart for LinearSVC's
    # decision_function, and with weights (which draw the rows there) every member differed
    classifier = not isinstance(model, Ridge)
    X, y = scaled_wine() if classifier else (X_DATA, Y_DATA)
    given = {"sample_weight": np.random.RandomState(1).uniform(0.1, 3.0, len(y))} if weighted else {}
    settings = {"n_estimators": 10, "random_state": 0, "oob_score": options.get("bootstrap", True), **options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's: few out-of-bag rows, weights without replacement
        ours = ww.Bagging(model, **settings).fit(X, y, **given)
        theirs = (BaggingClassifier if classifier else BaggingRegressor)(model, **settings).fit(X, y, **given)
    methods = ("predict_proba", "decision_function", "predict_log_proba") if classifier else ("predict",)
    if isinstance(model, LinearSVC) and "max_samples" in options and options["max_samples"] == 8:
        methods = methods[:1]  # a member that drew two classes decides between two: scikit-learn's sum then fails
    for method in methods:
        with np.errstate(divide="ignore"):
            expected = getattr(theirs, method)(X)
        finite = np.isfinite(expected)
        assert np.array_equal(np.isfinite(getattr(ours, method)(X)), finite)
        assert np.abs(getattr(ours, method)(X)[finite] - expected[finite]).max() <= 1e-10
    if classifier:
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert all(np.array_equal(a, b) for a, b in zip(ours.estimators_samples_, theirs.estimators_samples_, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(ours.estimators_features_, theirs.estimators_features_, strict=True))
    if settings["oob_score"]:
        assert ours.oob_score_ == pytest.approx(theirs.oob_score_, abs=1e-12)


def test_weights_draw_the_rows_of_a_model_whose_fit_takes_none_as_scikit_learn_s():
    # ww.Bagging refused weights its estimator's fit does not take; scikit-learn's bagging draws the rows with them
    for options in ({}, {"max_samples": 0.5, "max_features": 0.95}):
        ours = ww.Bagging(KNeighborsRegressor(), n_estimators=5, random_state=0, **options).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        theirs = BaggingRegressor(KNeighborsRegressor(), n_estimators=5, random_state=0, **options).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
        unweighted = ww.Bagging(KNeighborsRegressor(), n_estimators=5, random_state=0, **options).fit(X_DATA, Y_DATA)
        assert np.abs(ours.predict(X_DATA) - unweighted.predict(X_DATA)).max() > 1.0


def test_max_samples_none_draws_every_row_and_a_fraction_of_weights_their_sum():
    # max_samples defaulted to 1.0, scikit-learn's to None: the same without weights, but with weights 1.0 is a
    # share of their sum (here 673 rows of 442) and None the number of rows
    assert ww.Bagging(Ridge()).max_samples is None and BaggingRegressor().max_samples is None
    for max_samples in (None, 1.0, 0.25, 100):
        ours = ww.Bagging(Ridge(), n_estimators=3, max_samples=max_samples, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        theirs = BaggingRegressor(Ridge(), n_estimators=3, max_samples=max_samples, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        assert [len(s) for s in ours.estimators_samples_] == [len(s) for s in theirs.estimators_samples_]
        assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
    assert len(ww.Bagging(Ridge(), 1, max_samples=1.0).fit(X_DATA, Y_DATA, sample_weight=W_DATA).estimators_samples_[0]) == int(W_DATA.sum())


def test_draws_warn_and_refuse_as_scikit_learn_s():
    with pytest.warns(UserWarning, match=r"fractional value max_samples=0\.01 when the number of samples is 442 results in a low number \(4\)"):
        ww.Bagging(Ridge(), 2, max_samples=0.01, random_state=0).fit(X_DATA, Y_DATA)
    with pytest.warns(UserWarning, match="max_samples=0.01 when the number of samples is 442 results in a low number"):
        BaggingRegressor(Ridge(), n_estimators=2, max_samples=0.01, random_state=0).fit(X_DATA, Y_DATA)
    with pytest.warns(UserWarning, match=r"fractional value max_samples=0\.005 when the total sum of sample weights is 673\.6"):
        ww.Bagging(Ridge(), 2, max_samples=0.005, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.warns(UserWarning, match="When fitting Bagging with sample_weight it is recommended to use bootstrap=True, got False"):
        ww.Bagging(Ridge(), 2, max_samples=0.5, bootstrap=False, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.DataError, match=r"draws each member's rows with probabilities proportional to sample_weight.*"
                       r"Received 1 negative weights"):
        ww.Bagging(Ridge(), 2).fit(X_DATA, Y_DATA, sample_weight=np.where(np.arange(442) == 7, -1.0, 1.0))
    sparse = np.where(np.arange(442) < 50, 1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ww.DataError, match=r"gives 60 rows per member, more than the 50 rows of non-zero weight in "
                           r"the training data.*Use max_samples <= 50, or bootstrap=True"):
            ww.Bagging(Ridge(), 2, max_samples=60, bootstrap=False).fit(X_DATA, Y_DATA, sample_weight=sparse)
        with pytest.raises(ValueError, match="Fewer non-zero entries in p than size"):
            BaggingRegressor(Ridge(), n_estimators=2, max_samples=60, bootstrap=False).fit(X_DATA, Y_DATA, sample_weight=sparse)
        with pytest.raises(ww.DataError, match=r"gives 497 rows per member \(0\.9 of the weights' sum\), more than the 442"):
            ww.Bagging(Ridge(), 2, max_samples=0.9, bootstrap=False).fit(X_DATA, Y_DATA, sample_weight=1.25)


def test_members_trained_on_their_draws_counts_keep_the_fit_cache_and_growing_n_estimators():
    tree = WeightedCounting(Ridge(), tag="ridge")  # its fit takes sample_weight: all rows, the draws' counts
    bag = ww.Bagging(tree, n_estimators=5, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert fits()[-5:] == ["ridge"] * 5
    assert all(len(w) == len(Y_DATA) and w.sum() == len(Y_DATA) for _, w in WeightedCounting.weights[-5:])
    Counting.events.clear()
    bag.set_params(n_estimators=8).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert fits() == ["ridge"] * 3
    theirs = BaggingRegressor(Ridge(), n_estimators=8, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.abs(bag.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
    cache = ww.FitCache()
    ww.Bagging(tree, n_estimators=4, random_state=0, cache=cache).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    Counting.events.clear()
    clone = ww.Bagging(WeightedCounting(Ridge(), tag="ridge"), n_estimators=4, random_state=0, cache=cache)
    four = BaggingRegressor(Ridge(), n_estimators=4, random_state=0).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.abs(clone.fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA) - four.predict(X_DATA)).max() <= 1e-10
    assert fits() == []  # every member from the cache
    again = pickle.loads(pickle.dumps(bag))
    np.testing.assert_array_equal(again.predict(X_DATA), bag.predict(X_DATA))
    assert all(np.array_equal(a, b) for a, b in zip(again.estimators_samples_, theirs.estimators_samples_, strict=True))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda: ww.Pipeline([("pca", PCA(3)), ("ridge", Ridge(0.1))]), lambda: Pipeline([("pca", PCA(3)), ("ridge", Ridge(0.1))])),
        (lambda: ww.Pipeline([("scale", MinMaxScaler()), ("knn", KNeighborsRegressor())]),
         lambda: Pipeline([("scale", MinMaxScaler()), ("knn", KNeighborsRegressor())])),
        (lambda: ww.TransformedTarget(DecisionTreeRegressor(max_depth=3), MinMaxScaler()),
         lambda: TransformedTargetRegressor(DecisionTreeRegressor(max_depth=3), transformer=MinMaxScaler())),
        (lambda: ww.TransformedTarget(KNeighborsRegressor(), StandardScaler()),
         lambda: TransformedTargetRegressor(KNeighborsRegressor(), transformer=StandardScaler())),
        (lambda: ww.Stack([("ridge", Ridge()), ("lasso", Lasso(alpha=0.1))], Ridge(), cv=KFold(3)),
         lambda: StackingRegressor([("ridge", Ridge()), ("lasso", Lasso(alpha=0.1))], Ridge(), cv=KFold(3))),
        (lambda: ww.Stack([("knn", KNeighborsRegressor()), ("ridge", Ridge())], Ridge(), cv=KFold(3)),
         lambda: StackingRegressor([("knn", KNeighborsRegressor()), ("ridge", Ridge())], Ridge(), cv=KFold(3))),
        (lambda: ww.Average([("knn", KNeighborsRegressor()), ("ridge", Ridge())]),
         lambda: VotingRegressor([("knn", KNeighborsRegressor()), ("ridge", Ridge())])),
    ],
    ids=["pipeline PCA", "pipeline of no weights", "target transform", "target transform of no weights", "stack",
         "stack of no weights", "average of no weights"],
)
def test_recipe_members_train_on_their_drawn_rows_as_scikit_learn_s(ours, theirs, weighted):
    # Their fit takes sample_weight, so each member trained on all rows weighted by its draw's counts, where the fit
    # of their scikit-learn peers takes none (1.9: **fit_params), so its bagging trains them on their drawn rows. A
    # step or a target transformer that takes no weights then learned every row, the out-of-bag ones included (a
    # PCA: up to 4.0 from BaggingRegressor(Pipeline)'s); a stack's folds split other rows (12.9 apart); and a
    # KNeighborsRegressor last step, base learner or voter failed to train ("takes no sample_weight")
    given = {"sample_weight": W_DATA} if weighted else {}
    bag = ww.Bagging(ours(), n_estimators=30, random_state=0, oob_score=True).fit(X_DATA, Y_DATA, **given)
    peer = BaggingRegressor(theirs(), n_estimators=30, random_state=0, oob_score=True).fit(X_DATA, Y_DATA, **given)
    assert np.abs(bag.predict(X_DATA) - peer.predict(X_DATA)).max() <= 1e-9
    assert bag.oob_score_ == pytest.approx(peer.oob_score_, abs=1e-12)
    assert all(np.array_equal(a, b) for a, b in zip(bag.estimators_samples_, peer.estimators_samples_, strict=True))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("model", [GaussianNB(), DecisionTreeClassifier(max_depth=2)], ids=["GaussianNB", "tree"])
def test_log_probabilities_add_the_members_own_in_log_space_as_scikit_learn_s(model, weighted):
    # A member that has predict_log_proba gives its own; scikit-learn's bagging adds them with np.logaddexp. The
    # log of the mean probabilities was -inf where GaussianNB's probabilities underflow (scikit-learn: -809.4), and
    # 0.16 from scikit-learn's near there
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    given = {"sample_weight": np.random.RandomState(2).uniform(0.1, 3.0, len(y))} if weighted else {}
    ours = ww.Bagging(model, n_estimators=3, random_state=0).fit(X, y, **given)
    theirs = BaggingClassifier(model, n_estimators=3, random_state=0).fit(X, y, **given)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a tree's log of a probability 0, in both
        expected, got = theirs.predict_log_proba(X), ours.predict_log_proba(X)
    if isinstance(model, GaussianNB):
        assert (ours.predict_proba(X) == 0).any() and np.isfinite(expected).all()  # the case: probabilities that underflow
    np.testing.assert_array_equal(got, expected)
