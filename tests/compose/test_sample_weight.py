"""fit(X, y, sample_weight=w): composites against scikit-learn's weighted estimators, and the weights' refits."""

import pickle
import warnings

import numpy as np
import pytest
from _counting import WeightedCounting, fits
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.cluster import KMeans
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.ensemble import BaggingRegressor, StackingClassifier, StackingRegressor, VotingClassifier, VotingRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.validation import has_fit_parameter

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)
W_DATA = np.random.RandomState(0).uniform(0.1, 3.0, len(Y_DATA))


def regressors():
    return [("ridge", Ridge(alpha=0.5)), ("tree", DecisionTreeRegressor(max_depth=4, random_state=0))]


def test_stack_with_weights_equals_scikit_learn():
    ours = ww.Stack(regressors(), Ridge(alpha=2.0), cv=KFold(5)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    theirs = StackingRegressor(regressors(), Ridge(alpha=2.0), cv=KFold(5)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
    unweighted = StackingRegressor(regressors(), Ridge(alpha=2.0), cv=KFold(5)).fit(X_DATA, Y_DATA)
    assert np.abs(ours.predict(X_DATA) - unweighted.predict(X_DATA)).max() > 1.0  # the weights mattered
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # standardized: the logistic regressions converge in a few steps
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(y))
    learners = [("lr", LogisticRegression(max_iter=5000)), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]
    ours = ww.Stack(learners, LogisticRegression(max_iter=5000), cv=StratifiedKFold(5)).fit(X, y, sample_weight=w)
    theirs = StackingClassifier(learners, LogisticRegression(max_iter=5000), cv=StratifiedKFold(5)).fit(X, y, sample_weight=w)
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10


def test_stack_takes_cv_as_a_list_of_splits_as_scikit_learn_does():
    splits = list(KFold(4, shuffle=True, random_state=3).split(X_DATA))
    ours = ww.Stack(regressors(), Ridge(), cv=splits).fit(X_DATA, Y_DATA)
    theirs = StackingRegressor(regressors(), Ridge(), cv=splits).fit(X_DATA, Y_DATA)
    assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-10
    assert len(ours.machines_) == 2 * (4 + 1) + 1
    assert np.array_equal(ours.fit(X_DATA, Y_DATA).predict(X_DATA), ours.predict(X_DATA))  # built again: same splits


def test_average_pipeline_and_transformed_target_with_weights_equal_scikit_learn():
    ours = ww.Average(regressors()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    theirs = VotingRegressor(regressors()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.array_equal(ours.predict(X_DATA), theirs.predict(X_DATA))
    X, y = load_iris(return_X_y=True)
    w = np.random.RandomState(2).uniform(0.1, 3.0, len(y))
    voters = [("lr", LogisticRegression(max_iter=1000)), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]
    soft = VotingClassifier(voters, voting="soft").fit(X, y, sample_weight=w)
    assert np.abs(ww.Average(voters).fit(X, y, sample_weight=w).predict_proba(X) - soft.predict_proba(X)).max() <= 1e-12
    tt = ww.TransformedTarget(Ridge(), StandardScaler()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    ttr = TransformedTargetRegressor(Ridge(), transformer=StandardScaler()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.array_equal(tt.predict(X_DATA), ttr.predict(X_DATA))
    # every step whose fit takes sample_weight gets them (PolynomialFeatures' does not)
    steps = [("scale", StandardScaler()), ("poly", PolynomialFeatures(2)), ("ridge", Ridge())]
    pipe = ww.Pipeline(steps).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    reference = Pipeline(steps).fit(X_DATA, Y_DATA, scale__sample_weight=W_DATA, ridge__sample_weight=W_DATA)
    assert np.abs(pipe.predict(X_DATA) - reference.predict(X_DATA)).max() <= 1e-9


class RowsSeen(RegressorMixin, BaseEstimator):
    """Keeps the rows (column 0 of X holds each row's position) and the weights its fit got."""

    def fit(self, X, y, sample_weight=None):
        self.rows_, self.weights_ = np.asarray(X)[:, 0].astype(int), sample_weight
        return self

    def predict(self, X):
        return np.zeros(len(X))


class RowsOnly(RegressorMixin, BaseEstimator):
    """Keeps the rows its fit got (column 0 of X), and takes no weights."""

    def fit(self, X, y):
        self.rows_ = np.asarray(X)[:, 0].astype(int)
        return self

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.parametrize("options", [{}, {"max_samples": 0.5}, {"max_samples": 300}, {"bootstrap": False, "max_samples": 0.4}])
def test_bagging_weights_draw_the_rows_as_scikit_learn_s(options):
    # ww.Bagging drew its rows without the weights and gave each member its drawn rows' weights (a row drawn twice
    # came twice), where scikit-learn's bagging draws each row with a probability proportional to its weight (a
    # fraction max_samples is a share of their sum) and gives the members no weights: one whose fit takes them
    # trains on all rows weighted by how many times it drew each, another on its drawn rows
    X = np.column_stack([np.arange(len(Y_DATA)), X_DATA[:, :3]])
    for model in (RowsSeen(), RowsOnly()):
        with warnings.catch_warnings():  # without replacement, scikit-learn's bagging recommends bootstrap=True
            warnings.simplefilter("error" if options.get("bootstrap", True) else "ignore")
            ours = ww.Bagging(model, n_estimators=3, random_state=0, **options).fit(X, Y_DATA, sample_weight=W_DATA)
            theirs = BaggingRegressor(model, n_estimators=3, random_state=0, **options).fit(X, Y_DATA, sample_weight=W_DATA)
        samples = zip(ours.estimators_, theirs.estimators_, ours.estimators_samples_, theirs.estimators_samples_, strict=True)
        for a, b, drawn, expected in samples:
            np.testing.assert_array_equal(drawn, expected)
            if isinstance(model, RowsSeen):
                np.testing.assert_array_equal(a.rows_, np.arange(len(Y_DATA)))
                np.testing.assert_array_equal(a.weights_, b.weights_)
                np.testing.assert_array_equal(a.weights_, np.bincount(drawn, minlength=len(Y_DATA)))
            else:
                np.testing.assert_array_equal(a.rows_, b.rows_)  # in the order drawn
    heavy = W_DATA > 2.0  # drawn more often than the others
    counts = np.sum(ours.estimators_samples_[0][:, None] == np.arange(len(Y_DATA)), axis=0)
    assert counts[heavy].mean() > 1.5 * counts[~heavy].mean()


def counting_stack():
    learners = [("ridge", WeightedCounting(Ridge(), tag="ridge")), ("tree", WeightedCounting(DecisionTreeRegressor(max_depth=3, random_state=0), tag="tree"))]
    return ww.Stack(learners, WeightedCounting(Ridge(), tag="final"), cv=KFold(3))


def test_the_weights_are_data_a_refit_compares_by_content():
    stack = counting_stack().fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert len(fits()) == 2 * 4 + 1
    stack.fit(X_DATA, Y_DATA, sample_weight=W_DATA.copy())  # equal weights: nothing retrains
    assert len(fits()) == 9
    changed = W_DATA.copy()
    changed[5] += 1.0
    stack.fit(X_DATA, Y_DATA, sample_weight=changed)  # every machine that trains on the weights
    assert len(fits()) == 18
    stack.set_params(final_estimator__estimator__alpha=3.0).fit(X_DATA, Y_DATA, sample_weight=changed)
    assert fits()[18:] == ["final"]
    stack.fit(X_DATA, Y_DATA)  # without weights: another network, trained anew
    assert len(fits()) == 19 + 9
    assert all(w is None for _, w in WeightedCounting.weights[-9:])
    ours = stack.fit(X_DATA, Y_DATA, sample_weight=changed).predict(X_DATA)
    restored = pickle.loads(pickle.dumps(stack))
    assert np.array_equal(restored.predict(X_DATA), ours)


@pytest.mark.parametrize(
    "recipe, attribute",
    [
        (lambda: ww.Stack(regressors(), Ridge(), cv=KFold(3)), "estimators_"),
        (lambda: ww.Average(regressors()), "named_estimators_"),
        (lambda: ww.TransformedTarget(Ridge(), StandardScaler()), "regressor_"),
        (lambda: ww.Bagging(Ridge(), n_estimators=2, random_state=0), "estimators_"),
    ],
    ids=["stack", "average", "target transform", "bagging"],
)
def test_a_pickled_composite_fitted_with_weights_keeps_its_fitted_attributes(recipe, attribute):
    # the pickle kept the network but not that it was built for weights: its fitted models were then taken for
    # those of other parameters (NotTrainedError) until the next fit
    model = recipe().fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    restored = pickle.loads(pickle.dumps(model))
    assert str(getattr(restored, attribute)) == str(getattr(model, attribute))
    np.testing.assert_array_equal(restored.predict(X_DATA), model.predict(X_DATA))


def test_weights_go_where_the_folds_send_the_rows():
    stack = counting_stack().fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    seen = {tag: [] for tag in ("ridge", "tree", "final")}
    for tag, w in WeightedCounting.weights:
        seen[tag].append(w)
    folds = [W_DATA[train] for train, _ in KFold(3).split(X_DATA)]
    assert [len(w) for w in seen["ridge"]] == [len(f) for f in folds] + [len(W_DATA)]
    assert all(np.array_equal(a, b) for a, b in zip(seen["ridge"], [*folds, W_DATA]))
    assert np.array_equal(seen["final"][0], W_DATA)
    assert stack.report_()["machines"]["final"]["n_rows"] == len(W_DATA)


def test_a_grid_search_with_weights_scores_as_scikit_learn():
    grid = {"final_estimator__alpha": [0.1, 1.0, 10.0]}
    ours = GridSearchCV(ww.Stack(regressors(), Ridge(), cv=KFold(3), cache=ww.FitCache()), grid, cv=KFold(3))
    theirs = GridSearchCV(StackingRegressor(regressors(), Ridge(), cv=KFold(3)), grid, cv=KFold(3))
    ours.fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    theirs.fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.abs(ours.cv_results_["mean_test_score"] - theirs.cv_results_["mean_test_score"]).max() <= 1e-10


class WeightedModel(RegressorMixin, ww.Composite):
    """A user-defined composite whose network takes weights (fit is ww.Composite's)."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def network(self, X, y=None, sample_weight=None):
        Z = ww.machine(StandardScaler(), X).transform(X)
        data = (Z, y) if sample_weight is None else (Z, y, sample_weight)
        return ww.Signature(predict=ww.machine(Ridge(alpha=self.alpha), *data).predict(Z))


def test_a_composite_takes_weights_when_its_network_does():
    ours = WeightedModel().fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA)
    reference = Pipeline([("s", StandardScaler()), ("r", Ridge())]).fit(X_DATA, Y_DATA, r__sample_weight=W_DATA)
    assert np.abs(ours - reference.predict(X_DATA)).max() <= 1e-9
    assert not has_fit_parameter(WeightedModel(), "sample_weight")  # ww.Composite.fit takes **fit_params

    class Named(ww.compose.WeightedFit, WeightedModel):
        pass

    assert has_fit_parameter(Named(), "sample_weight")
    assert np.array_equal(Named().fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA), ours)
    assert all(has_fit_parameter(e, "sample_weight") for e in (
        ww.Pipeline([("r", Ridge())]), ww.Stack([("r", Ridge())], Ridge()), ww.Average([("r", Ridge())]),
        ww.Bagging(Ridge()), ww.TransformedTarget(Ridge(), StandardScaler()),
    ))


class Unweighted(RegressorMixin, ww.Composite):
    def network(self, X, y=None):
        return ww.Signature(predict=ww.machine(Ridge(), X, y).predict(X))


def test_weights_nobody_can_take_are_refused_before_anything_changes():
    with pytest.raises(ww.ArgumentError, match=r"Unweighted.fit got sample_weight, but its network\(\) has no sample_weight"):
        Unweighted().fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"takes X, y and sample_weight. Received also: \['groups'\]"):
        Unweighted().fit(X_DATA, Y_DATA, groups=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Stack: base learner 'knn' \(KNeighborsRegressor\) takes no sample_weight"):
        ww.Stack([("knn", KNeighborsRegressor())], Ridge()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Stack: final_estimator \(KNeighborsRegressor\) takes no sample_weight"):
        ww.Stack([("r", Ridge())], KNeighborsRegressor()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Average: knn \(KNeighborsRegressor\)"):
        ww.Average([("r", Ridge()), ("knn", KNeighborsRegressor())]).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"TransformedTarget: regressor \(KNeighborsRegressor\)"):
        ww.TransformedTarget(KNeighborsRegressor(), StandardScaler()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Pipeline: its last step 'knn' \(KNeighborsRegressor\)"):
        ww.Pipeline([("s", StandardScaler()), ("knn", KNeighborsRegressor())]).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match="no step takes sample_weight"):
        ww.Pipeline([("poly", PolynomialFeatures())]).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match="no step takes sample_weight"):
        ww.Pipeline([("poly", PolynomialFeatures())]).fit(X_DATA, sample_weight=W_DATA)


@pytest.mark.parametrize("weights, message", [
    (W_DATA[:-1], "sample_weight.shape == \\(441,\\), expected \\(442,\\)"),
    (np.ones((len(Y_DATA), 2)), "Sample weights must be 1D array or scalar"),
    (np.array(["a"] * len(Y_DATA)), "could not convert string to float"),
])
def test_unusable_weights_are_a_data_error_and_keep_the_fit(weights, message):
    stack = ww.Stack(regressors(), Ridge(), cv=3).fit(X_DATA[:, :4], Y_DATA)
    before = stack.predict(X_DATA[:, :4])
    with pytest.raises(ww.DataError, match=message):
        stack.fit(X_DATA, Y_DATA, sample_weight=weights)
    assert stack.n_features_in_ == 4 and np.array_equal(stack.predict(X_DATA[:, :4]), before)


def test_a_scalar_weight_is_every_row_s():
    ours = ww.Average(regressors()).fit(X_DATA, Y_DATA, sample_weight=2.0).predict(X_DATA)
    assert np.array_equal(ours, VotingRegressor(regressors()).fit(X_DATA, Y_DATA, sample_weight=np.full(len(Y_DATA), 2.0)).predict(X_DATA))


def test_metadata_routing_passes_the_weights_as_scikit_learn_s():
    import sklearn

    grid = {"final_estimator__alpha": [0.1, 1.0]}
    with sklearn.config_context(enable_metadata_routing=True):
        def base():
            return [(name, model.set_fit_request(sample_weight=True)) for name, model in regressors()]

        ours = ww.Stack(base(), Ridge().set_fit_request(sample_weight=True), cv=KFold(3))
        ours.set_score_request(sample_weight=False)  # its score weighs the rows itself: say whether it should
        theirs = StackingRegressor(base(), Ridge().set_fit_request(sample_weight=True), cv=KFold(3))
        searched = [GridSearchCV(e, grid, cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA) for e in (ours, theirs)]
    scores = [s.cv_results_["mean_test_score"] for s in searched]
    assert np.abs(scores[0] - scores[1]).max() <= 1e-10


def test_a_pipeline_with_a_target_transformer_weights_its_steps_not_the_target():
    steps = [("scale", StandardScaler()), ("ridge", Ridge())]
    ours = ww.Pipeline(steps, target_transformer=StandardScaler()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    theirs = TransformedTargetRegressor(Pipeline(steps), transformer=StandardScaler())
    theirs.fit(X_DATA, Y_DATA, scale__sample_weight=W_DATA, ridge__sample_weight=W_DATA)
    assert np.abs(ours.predict(X_DATA) - theirs.predict(X_DATA)).max() <= 1e-9


def test_a_composite_whose_network_takes_weights_can_be_a_weighted_component():
    stack = ww.Stack([("own", WeightedModel()), ("ridge", Ridge())], Ridge(), cv=KFold(3))
    stack.fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    plain = ww.Stack([("own", Pipeline([("s", StandardScaler()), ("r", Ridge())])), ("ridge", Ridge())], Ridge(), cv=KFold(3))
    with pytest.raises(ww.ArgumentError, match=r"base learner 'own' \(Pipeline\) takes no sample_weight"):
        plain.fit(X_DATA, Y_DATA, sample_weight=W_DATA)  # scikit-learn's Pipeline.fit refuses it too
    with pytest.raises(ww.ArgumentError, match=r"base learner 'own' \(Unweighted\) takes no sample_weight"):
        ww.Stack([("own", Unweighted())], Ridge(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert np.abs(stack.estimators_[0].predict(X_DATA) - WeightedModel().fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA)).max() <= 1e-9


def test_a_pipeline_gives_weights_to_a_composite_step_whose_network_takes_them():
    pipe = ww.Pipeline([("scale", StandardScaler()), ("own", WeightedModel())])
    ours = pipe.fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA)
    reference = Pipeline([("scale", StandardScaler()), ("s", StandardScaler()), ("r", Ridge())])
    reference.fit(X_DATA, Y_DATA, scale__sample_weight=W_DATA, r__sample_weight=W_DATA)  # its own scaler: unweighted
    assert np.abs(ours - reference.predict(X_DATA)).max() <= 1e-9


def unsupervised_steps():
    return [("s", StandardScaler()), ("km", KMeans(3, n_init=1, random_state=0))]


def test_an_unsupervised_pipeline_trains_and_scores_with_weights_as_scikit_learn_s():
    ours = ww.Pipeline(unsupervised_steps()).fit(X_DATA, sample_weight=W_DATA)
    theirs = Pipeline(unsupervised_steps()).fit(X_DATA, s__sample_weight=W_DATA, km__sample_weight=W_DATA)
    assert np.abs(ours.transform(X_DATA) - theirs.transform(X_DATA)).max() <= 1e-10
    assert np.array_equal(ours.predict(X_DATA), theirs.predict(X_DATA))
    assert abs(ours.score(X_DATA, sample_weight=W_DATA) - theirs.score(X_DATA, sample_weight=W_DATA)) <= 1e-8
    assert abs(ours.score(X_DATA) - theirs.score(X_DATA)) <= 1e-8
    assert ours.score(X_DATA) != ours.score(X_DATA, sample_weight=W_DATA)
    scaled = ww.Pipeline([("s", StandardScaler())]).fit(X_DATA, sample_weight=W_DATA)
    assert np.abs(scaled.transform(X_DATA) - StandardScaler().fit(X_DATA, sample_weight=W_DATA).transform(X_DATA)).max() <= 1e-12
    with pytest.raises(ww.ArgumentError, match=r"its last step 'gm' \(GaussianMixture\) takes no sample_weight"):
        ww.Pipeline([("s", StandardScaler()), ("gm", GaussianMixture(2, random_state=0))]).fit(X_DATA, sample_weight=W_DATA)
    mixture = ww.Pipeline([("s", StandardScaler()), ("gm", GaussianMixture(2, random_state=0))]).fit(X_DATA)
    with pytest.raises(ww.ArgumentError, match="score output, which takes no sample_weight"):
        mixture.score(X_DATA, sample_weight=W_DATA)  # GaussianMixture.score takes none


def test_a_grid_search_of_an_unsupervised_pipeline_with_weights_weighs_fits_and_scores():
    grid = {"km__n_clusters": [2, 3]}
    search = GridSearchCV(ww.Pipeline(unsupervised_steps()), grid, cv=KFold(3)).fit(X_DATA, sample_weight=W_DATA)
    for k, n_clusters in enumerate((2, 3)):
        scores = []
        for train, test in KFold(3).split(X_DATA):
            theirs = Pipeline(unsupervised_steps()).set_params(km__n_clusters=n_clusters)
            theirs.fit(X_DATA[train], s__sample_weight=W_DATA[train], km__sample_weight=W_DATA[train])
            scores.append(theirs.score(X_DATA[test], sample_weight=W_DATA[test]))  # GridSearchCV weighs the score too
        assert abs(search.cv_results_["mean_test_score"][k] - np.mean(scores)) <= 1e-8 * abs(np.mean(scores))


def test_an_unsupervised_pipeline_routes_the_weights_by_request():
    import sklearn

    def steps():
        return [("s", StandardScaler().set_fit_request(sample_weight=False)), ("km", KMeans(3, n_init=1, random_state=0).set_fit_request(sample_weight=True))]

    with sklearn.config_context(enable_metadata_routing=True):
        ours = ww.Pipeline(steps()).fit(X_DATA, sample_weight=W_DATA)
        theirs = Pipeline(steps()).fit(X_DATA, sample_weight=W_DATA)
    assert np.abs(ours.transform(X_DATA) - theirs.transform(X_DATA)).max() <= 1e-10
