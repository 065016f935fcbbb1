"""Lists of (name, estimator) pairs: the names a recipe refuses, as scikit-learn's meta-estimators refuse them;
estimators dropped ("drop"), as scikit-learn's stacking and voting skip them."""

import pickle
import re

import numpy as np
import pytest
from _counting import Counting, fits
from sklearn.base import ClassifierMixin
from sklearn.datasets import load_diabetes, load_iris
from sklearn.decomposition import PCA
from sklearn.ensemble import StackingClassifier, StackingRegressor, VotingClassifier, VotingRegressor
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import estimator_html_repr

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)


@pytest.mark.parametrize(
    "recipe, name",
    [
        (lambda name: ww.Pipeline([(name, StandardScaler()), ("r", Ridge())]), "steps"),
        (lambda name: ww.Pipeline([("s", StandardScaler()), (name, Ridge())]), "n_jobs"),
        (lambda name: ww.Stack([(name, Ridge())], Ridge(), cv=3), "final_estimator"),
        (lambda name: ww.Stack([(name, Ridge())], Ridge(), cv=3), "cv"),
        (lambda name: ww.Average([("r", Ridge()), (name, Ridge())]), "weights"),
    ],
)
def test_a_name_that_is_a_parameter_of_the_recipe_is_refused_at_fit(recipe, name):
    with pytest.raises(ValueError, match=r"Estimator names conflict with constructor arguments: \['steps'\]"):
        Pipeline([("steps", StandardScaler()), ("r", Ridge())]).fit(X_DATA, Y_DATA)  # scikit-learn's refusal
    model = recipe(name)
    message = rf"{type(model).__name__}: estimator names conflict with constructor arguments: \['{name}'\]"
    with pytest.raises(ww.GraphError, match=message + r".*Rename them"):
        model.fit(X_DATA, Y_DATA)
    assert not hasattr(model, "network_")


def _regressors():
    return [("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0)), ("lasso", Lasso(alpha=0.1))]


def _classifiers():
    return [
        ("lr", LogisticRegression(max_iter=1000)),
        ("tree", DecisionTreeClassifier(max_depth=3, random_state=0)),
        ("nb", GaussianNB()),
    ]


class CountingClassifier(ClassifierMixin, Counting):
    """``Counting``, a classifier as its tags say (a voting classifier needs one)."""


def _counted(pairs):
    wrapper = CountingClassifier if pairs is _classifiers else Counting
    return [(name, wrapper(model, tag=name)) for name, model in pairs()]


#: (ours, scikit-learn's, the pairs, the data, extra options): each recipe that takes "drop" and its peer. The
#: options are made anew for each (scikit-learn's stacking seeds the KFold it is given, in place).
DROPPING = {
    "Stack": (ww.Stack, StackingRegressor, _regressors, load_diabetes, lambda: {"final_estimator": Ridge(), "cv": KFold(5)}),
    "Stack-classifier": (
        ww.Stack, StackingClassifier, _classifiers, load_iris,
        lambda: {"final_estimator": LogisticRegression(max_iter=1000), "cv": KFold(5)},
    ),
    "Average": (ww.Average, VotingRegressor, _regressors, load_diabetes, lambda: {"weights": [1, 5, 2]}),
    "Average-soft": (ww.Average, VotingClassifier, _classifiers, load_iris, lambda: {"voting": "soft", "weights": [2, 1, 1]}),
    "Average-hard": (ww.Average, VotingClassifier, _classifiers, load_iris, lambda: {"voting": "hard"}),
}


def _outputs(model, X):
    return {name: getattr(model, name)(X) for name in ("predict", "predict_proba", "transform") if hasattr(model, name)}


def _same(ours, theirs, X):
    """Equal outputs (exactly), the same named_estimators_ ("drop" included) and estimators_, as fitted models."""
    mine, peer = _outputs(ours, X), _outputs(theirs, X)
    assert set(mine) == set(peer)
    for name, values in mine.items():
        np.testing.assert_array_equal(values, peer[name], err_msg=name)
    assert list(ours.named_estimators_) == list(theirs.named_estimators_)
    for name, model in ours.named_estimators_.items():
        if model == "drop" or theirs.named_estimators_[name] == "drop":
            assert model == theirs.named_estimators_[name] == "drop"
        else:
            assert pickle.dumps(model) == pickle.dumps(theirs.named_estimators_[name]), name
    assert [type(m) for m in ours.estimators_] == [type(m) for m in theirs.estimators_]


@pytest.mark.parametrize("case", DROPPING, ids=list(DROPPING))
def test_a_dropped_estimator_is_skipped_as_scikit_learn_skips_it(case):
    ours_class, their_class, pairs, load, options = DROPPING[case]
    X, y = load(return_X_y=True)

    def dropping():
        listed = pairs()
        listed[1] = (listed[1][0], "drop")
        return listed

    ours = ours_class(dropping(), **options()).fit(X, y)
    theirs = their_class(dropping(), **options()).fit(X, y)
    _same(ours, theirs, X)
    assert ours.named_estimators_["tree"] == "drop" and len(ours.estimators_) == 2
    if ours_class is ww.Stack:  # scikit-learn's names, with the class's own name first
        prefix = type(theirs).__name__.lower()
        assert [n.replace(prefix, "stack") for n in theirs.get_feature_names_out()] == list(ours.get_feature_names_out())


@pytest.mark.parametrize("case", DROPPING, ids=list(DROPPING))
def test_set_params_to_drop_and_back_retrains_only_what_the_change_touches(case):
    ours_class, their_class, pairs, load, options = DROPPING[case]
    X, y = load(return_X_y=True)
    stack = ours_class is ww.Stack
    ours_options = options()
    if stack:
        wrapper = CountingClassifier if pairs is _classifiers else Counting
        ours_options["final_estimator"] = wrapper(ours_options["final_estimator"], tag="final")
    ours = ours_class(_counted(pairs), **ours_options).fit(X, y)
    theirs = their_class(pairs(), **options()).fit(X, y)
    Counting.events.clear()
    ours.set_params(tree="drop").fit(X, y)  # a new network, whose other learners are the old machines
    theirs.set_params(tree="drop").fit(X, y)
    assert fits() == (["final"] if stack else [])  # only what learns from the dropped learner retrains
    assert ours.named_estimators_["tree"] == "drop"
    for name, values in _outputs(ours, X).items():
        np.testing.assert_array_equal(values, _outputs(theirs, X)[name], err_msg=name)
    Counting.events.clear()
    tree = dict(_counted(pairs))["tree"]
    ours.set_params(tree=tree).fit(X, y)  # back: the tree's machines train, and the final estimator
    theirs.set_params(tree=tree.estimator).fit(X, y)
    folds = ours_options["cv"].get_n_splits() if stack else 0
    assert sorted(fits()) == sorted(["tree"] * (folds + 1) + (["final"] if stack else []))
    for name, values in _outputs(ours, X).items():
        np.testing.assert_array_equal(values, _outputs(theirs, X)[name], err_msg=name)


@pytest.mark.parametrize("recipe", [ww.Stack, ww.Average], ids=["Stack", "Average"])
def test_all_estimators_dropped_is_refused_as_scikit_learn_refuses_it(recipe):
    options = {"final_estimator": Ridge(), "cv": 3} if recipe is ww.Stack else {}
    everything = [("ridge", "drop"), ("lasso", "drop")]
    peer = StackingRegressor if recipe is ww.Stack else VotingRegressor
    with pytest.raises(ValueError, match="All estimators are dropped. At least one is required to be an estimator"):
        peer(everything, **options).fit(X_DATA, Y_DATA)
    message = rf"{recipe.__name__}: all estimators are dropped \('drop'\). At least one is required to be an estimator"
    with pytest.raises(ww.GraphError, match=message + r": set one back with set_params"):
        recipe(everything, **options).fit(X_DATA, Y_DATA)
    fitted = recipe([("ridge", Ridge()), ("lasso", Lasso())], **options).fit(X_DATA, Y_DATA)
    before = fitted.predict(X_DATA)
    with pytest.raises(ww.GraphError, match=message):
        fitted.set_params(ridge="drop", lasso="drop").fit(X_DATA, Y_DATA)
    np.testing.assert_array_equal(fitted.predict(X_DATA), before)  # a refused fit changes nothing


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda: ww.Stack([], Ridge(), cv=3), lambda: StackingRegressor([], Ridge(), cv=3)),
        (lambda: ww.Average([]), lambda: VotingRegressor([])),
        (lambda: ww.Pipeline([]), lambda: Pipeline([])),
    ],
    ids=["Stack", "Average", "Pipeline"],
)
def test_no_estimators_is_a_value_error_as_scikit_learn_s(ours, theirs):
    # an empty list was a ww.ArgumentError, a TypeError, where scikit-learn raises a ValueError
    with pytest.raises(ValueError, match="non-empty list of|pipeline is empty"):
        theirs().fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"non-empty list of \(name, estimator\) pairs\. Received: (list|tuple)"):
        ours().fit(X_DATA, Y_DATA)


def test_average_weights_count_the_dropped_estimators_as_scikit_learn_s_do():
    pairs = [("ridge", Ridge()), ("lasso", "drop"), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]
    with pytest.raises(ww.GraphError, match=r"weights must be 3 non-negative numbers"):
        ww.Average(pairs, weights=[1, 2]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"weights of the estimators not dropped must have a positive sum.*\['lasso'\] are dropped"):
        ww.Average(pairs, weights=[0, 1, 0]).fit(X_DATA, Y_DATA)


def test_a_grid_search_over_drop_scores_as_scikit_learn_s():
    grid = {"tree": ["drop", DecisionTreeRegressor(max_depth=3, random_state=0)], "final_estimator__alpha": [0.1, 10.0]}
    searches = [
        GridSearchCV(model(_regressors(), Ridge(), cv=KFold(4)), grid, cv=KFold(3)).fit(X_DATA, Y_DATA)
        for model in (ww.Stack, StackingRegressor)
    ]
    np.testing.assert_allclose(searches[0].cv_results_["mean_test_score"], searches[1].cv_results_["mean_test_score"], rtol=1e-12)
    assert searches[0].best_params_ == searches[1].best_params_


def test_a_pipeline_refuses_drop_as_scikit_learn_s_does_and_says_what_skips_a_step():
    with pytest.raises(TypeError, match="'drop' \\(type <class 'str'>\\) doesn't"):
        Pipeline([("x", "drop"), ("r", Ridge())]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Pipeline: step 'x' is 'drop', which a pipeline does not take.*"
                       r"Skip a step with 'passthrough' or None"):
        ww.Pipeline([("x", "drop"), ("r", Ridge())]).fit(X_DATA, Y_DATA)


def _diagram(estimator):
    """The labels of scikit-learn's HTML diagram of ``estimator``, in order: each box's class and each name shown."""
    html = estimator_html_repr(estimator)
    return re.findall(r"<label[^>]*>(?:<div><div>)?([^<]+)", html[html.index('<div class="sk-container"'):])


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (
            ww.Pipeline([("scale", StandardScaler()), ("skip", "passthrough"), ("pca", PCA(2)), ("ridge", Ridge())]),
            Pipeline([("scale", StandardScaler()), ("skip", "passthrough"), ("pca", PCA(2)), ("ridge", Ridge())]),
        ),
        (
            ww.Stack([("ridge", Ridge()), ("tree", DecisionTreeRegressor())], Lasso()),
            StackingRegressor([("ridge", Ridge()), ("tree", DecisionTreeRegressor())], Lasso()),
        ),
        (
            ww.Average([("ridge", Ridge()), ("reduced", ww.Pipeline([("pca", PCA(2)), ("lasso", Lasso())]))]),
            VotingRegressor([("ridge", Ridge()), ("reduced", Pipeline([("pca", PCA(2)), ("lasso", Lasso())]))]),
        ),
    ],
    ids=["Pipeline", "Stack", "Average"],
)
def test_the_html_diagram_shows_every_named_estimator_as_scikit_learn_s_peer(ours, theirs):
    drawn = _diagram(ours)
    assert drawn[0] == type(ours).__name__
    assert drawn[1:] == _diagram(theirs)[1:]


def test_a_pipeline_s_diagram_shows_its_target_transformer_beside_the_steps():
    drawn = _diagram(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())], target_transformer=MinMaxScaler()))
    assert drawn == ["Pipeline", "steps", "StandardScaler", "Ridge", "target_transformer: MinMaxScaler", "MinMaxScaler"]
