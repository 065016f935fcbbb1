"""ww.Stack against scikit-learn's stacking, retraining by counted fits, tuning with the cache."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from _counting import Counting, fits
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.ensemble import RandomForestClassifier, StackingClassifier, StackingRegressor
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.frozen import FrozenEstimator
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.linear_model import BayesianRidge, LogisticRegression, Ridge, SGDClassifier
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import wirework as ww

DIABETES = load_diabetes(return_X_y=True)


def regressors():
    return [("ridge", Ridge(alpha=0.5)), ("tree", DecisionTreeRegressor(max_depth=4, random_state=0))]


@pytest.mark.parametrize("passthrough", [False, True])
def test_stack_regressor_equals_stacking_regressor(passthrough):
    X, y = DIABETES
    ours = ww.Stack(regressors(), Ridge(alpha=2.0), cv=KFold(5), passthrough=passthrough).fit(X, y)
    theirs = StackingRegressor(regressors(), final_estimator=Ridge(alpha=2.0), cv=KFold(5), passthrough=passthrough)
    theirs.fit(X, y)
    assert np.max(np.abs(ours.predict(X) - theirs.predict(X))) <= 1e-10
    assert len(ours.machines_) == 2 * (5 + 1) + 1


def test_stack_binary_classifier_equals_stacking_classifier():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # scaled, so the linear models converge quickly
    y = np.where(y == 1, "benign", "malignant")
    estimators = [
        ("lr", LogisticRegression()),
        ("rf", RandomForestClassifier(n_estimators=20, random_state=0)),
        ("svc", LinearSVC()),  # no predict_proba: decision_function feeds the final estimator
    ]
    ours = ww.Stack(estimators, LogisticRegression(), cv=KFold(5)).fit(X, y)
    theirs = StackingClassifier(estimators, final_estimator=LogisticRegression(), cv=KFold(5)).fit(X, y)
    assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-10
    assert (ours.predict(X) == theirs.predict(X)).all()
    assert list(ours.classes_) == ["benign", "malignant"]
    assert np.max(np.abs(ours.decision_function(X) - theirs.decision_function(X))) <= 1e-10


def test_stack_multiclass_classifier_with_default_stratified_folds():
    X, y = load_iris(return_X_y=True)
    estimators = [("nb", GaussianNB()), ("rf", RandomForestClassifier(n_estimators=10, random_state=0))]
    ours = ww.Stack(estimators, LogisticRegression(max_iter=1000), cv=5).fit(X, y)
    theirs = StackingClassifier(estimators, final_estimator=LogisticRegression(max_iter=1000), cv=5).fit(X, y)
    assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-10
    shuffled = StratifiedKFold(5, shuffle=True, random_state=3)
    ours = ww.Stack(estimators, LogisticRegression(max_iter=1000), cv=shuffled).fit(X, y)
    theirs = StackingClassifier(estimators, final_estimator=LogisticRegression(max_iter=1000), cv=shuffled).fit(X, y)
    assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-10


def test_two_levels_pass_raw_features_upwards():
    X, y = DIABETES
    stack = ww.Stack(regressors(), Ridge(), cv=3, levels=2).fit(X, y)
    names = [m.name for m in stack.machines_]
    assert "ridge_level2_fold3" in names and "tree_level1" in names
    level2 = next(m for m in stack.machines_ if m.name == "ridge_level2")
    assert level2.fitted_model.n_features_in_ == X.shape[1] + 2  # raw features + two level-1 predictions
    assert stack.score(X, y) > 0.4


def test_two_levels_equal_scikit_learn_s_stack_whose_final_estimator_is_a_stack():
    # level 2 learns from level 1's out-of-fold predictions and the raw features, then the final estimator from
    # level 2's: scikit-learn's stacking with passthrough=True whose final estimator is a stacking of the learners
    X, y = DIABETES
    ours = ww.Stack(regressors(), Ridge(), cv=KFold(5), levels=2).fit(X, y)
    inner = StackingRegressor(regressors(), Ridge(), cv=KFold(5))
    theirs = StackingRegressor(regressors(), inner, cv=KFold(5), passthrough=True).fit(X, y)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    learners = [("lr", LogisticRegression()), ("nb", GaussianNB())]
    ours = ww.Stack(learners, LogisticRegression(), cv=StratifiedKFold(5), levels=2).fit(X, y)
    inner = StackingClassifier(learners, LogisticRegression(), cv=StratifiedKFold(5))
    theirs = StackingClassifier(learners, inner, cv=StratifiedKFold(5), passthrough=True).fit(X, y)
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10


def test_learners_named_final_and_labels_are_learners_as_in_scikit_learn():
    X, y = load_iris(return_X_y=True)
    y = np.array(["setosa", "versicolor", "virginica"])[y]
    estimators = [("final", GaussianNB()), ("labels", DecisionTreeClassifier(max_depth=2, random_state=0))]
    final = LogisticRegression(C=0.5, max_iter=1000)
    ours = ww.Stack(estimators, final, cv=StratifiedKFold(3)).fit(X, y)
    theirs = StackingClassifier(estimators, final_estimator=final, cv=StratifiedKFold(3)).fit(X, y)
    assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-10
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    assert np.max(np.abs(ours.final_estimator_.coef_ - theirs.final_estimator_.coef_)) <= 1e-10
    assert list(ours.named_estimators_) == ["final", "labels"]
    assert [type(e) for e in ours.estimators_] == [GaussianNB, DecisionTreeClassifier]
    assert ours.named_estimators_["labels"].get_depth() == 2
    params = ours.fitted_params_()
    assert params["final"] is ours.named_estimators_["final"] and params["labels"] is ours.named_estimators_["labels"]
    assert params["final_"] is ours.final_estimator_ and list(params["labels_"].classes_) == list(theirs.classes_)
    assert set(ours.report_()["machines"]) == set(params) and len(params) == len(ours.machines_) == 2 * 4 + 2


def test_a_learner_named_final_in_a_regressor_stack_and_one_named_like_a_fold():
    X, y = DIABETES
    estimators = [("final", Ridge(alpha=0.5)), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0)),
                  ("tree_fold1", Ridge(alpha=5.0))]
    ours = ww.Stack(estimators, Ridge(alpha=3.0), cv=KFold(5)).fit(X, y)
    theirs = StackingRegressor(estimators, final_estimator=Ridge(alpha=3.0), cv=KFold(5)).fit(X, y)
    assert np.max(np.abs(ours.predict(X) - theirs.predict(X))) <= 1e-10
    assert ours.final_estimator_.alpha == 3.0 and ours.named_estimators_["final"].alpha == 0.5
    assert ours.named_estimators_["tree_fold1"].alpha == 5.0
    assert ours.fitted_params_()["tree_fold1_"].get_depth() == 3  # the tree's first fold, which gave way
    assert len(ours.fitted_params_()) == len(ours.machines_) == 3 * 6 + 1


def test_levels_may_be_a_numpy_integer():
    X, y = DIABETES
    plain = ww.Stack(regressors(), Ridge(), cv=3, levels=2).fit(X, y)
    numpy = ww.Stack(regressors(), Ridge(), cv=3, levels=np.int64(2)).fit(X, y)
    np.testing.assert_array_equal(numpy.predict(X), plain.predict(X))
    assert list(numpy.named_estimators_) == list(plain.named_estimators_)
    assert list(numpy.get_feature_names_out()) == ["stack_ridge_level2", "stack_tree_level2"]
    with pytest.raises(ww.GraphError, match=r"levels must be an int >= 1\. Received: True"):
        ww.Stack(regressors(), Ridge(), levels=True).fit(X, y)


def counted_stack():
    estimators = [("ridge", Counting(Ridge(), tag="ridge")), ("tree", Counting(DecisionTreeRegressor(max_depth=3, random_state=0), tag="tree"))]
    return ww.Stack(estimators, Counting(Ridge(), tag="final"), cv=KFold(5))


def test_changing_the_final_estimator_retrains_only_it():
    X, y = DIABETES
    stack = counted_stack().fit(X, y)
    assert sorted(fits()) == ["final"] + ["ridge"] * 6 + ["tree"] * 6
    Counting.events.clear()
    stack.set_params(final_estimator__estimator__alpha=3.0).fit(X, y)
    assert fits() == ["final"]
    assert Counting.events == [("final", "fit")]  # and no base-learner prediction is recomputed


def test_changing_a_base_learner_retrains_its_machines_and_the_final_estimator():
    X, y = DIABETES
    stack = counted_stack().fit(X, y)
    Counting.events.clear()
    stack.set_params(tree__estimator__max_depth=5).fit(X, y)
    assert sorted(fits()) == ["final"] + ["tree"] * 6
    Counting.events.clear()
    stack.set_params(ridge=Counting(Ridge(alpha=9.0), tag="ridge")).fit(X, y)  # a replaced component
    assert sorted(fits()) == ["final"] + ["ridge"] * 6


def test_changing_levels_keeps_the_training_of_level_one():
    # level 1's machines were renamed (ridge -> ridge_level1, ridge_fold1 -> ridge_level1_fold1) when a level was
    # added, so they matched none of the last build's and all 13 machines trained again; they learn the same rows
    X, y = DIABETES
    stack = counted_stack().fit(X, y)
    Counting.events.clear()
    stack.set_params(levels=2).fit(X, y)
    assert sorted(fits()) == ["final"] + ["ridge"] * 6 + ["tree"] * 6  # level 2 and the final estimator only
    assert stack.report_()["machines"]["ridge_level1_fold1"]["action"] == "skipped"
    fresh = counted_stack().set_params(levels=2).fit(X, y)
    np.testing.assert_array_equal(stack.predict(X), fresh.predict(X))
    Counting.events.clear()
    stack.set_params(levels=1).fit(X, y)
    assert fits() == ["final"]  # level 1 again: only the final estimator learns from other columns
    np.testing.assert_array_equal(stack.predict(X), counted_stack().fit(X, y).predict(X))
    assert list(stack.named_estimators_) == ["ridge", "tree"]


def test_changing_levels_of_a_classifier_keeps_its_label_encoder_and_level_one():
    # beside a learner named "labels" the stack's label encoder is "labels_" at one level and "labels" at two
    # (the learner's machine is then "labels_level1"): it must keep its training too, or every learner retrains
    X, y = load_iris(return_X_y=True)
    learners = [("labels", Counting(LogisticRegression(max_iter=1000), tag="lr")), ("nb", Counting(GaussianNB(), tag="nb"))]
    stack = ww.Stack(learners, LogisticRegression(max_iter=1000), cv=StratifiedKFold(3), levels=2).fit(X, y)
    Counting.events.clear()
    stack.set_params(levels=1).fit(X, y)
    assert fits() == []
    assert stack.report_()["machines"]["labels_"]["action"] == "skipped"
    Counting.events.clear()
    stack.set_params(levels=3).fit(X, y)
    assert sorted(fits()) == ["lr"] * 8 + ["nb"] * 8  # levels 2 and 3
    fresh = ww.Stack(learners, LogisticRegression(max_iter=1000), cv=StratifiedKFold(3), levels=3).fit(X, y)
    np.testing.assert_array_equal(stack.predict_proba(X), fresh.predict_proba(X))


def test_new_data_retrains_everything_and_same_data_nothing():
    X, y = DIABETES
    stack = counted_stack().fit(X, y)
    Counting.events.clear()
    stack.fit(X.copy(), y.copy())  # equal content: nothing to do
    assert fits() == []
    changed = y.copy()
    changed[0] += 1.0
    stack.fit(X, changed)
    assert len(fits()) == 13


def test_frozen_base_learners_stack_as_scikit_learn_s_with_a_cache_and_after_a_refit_in_place():
    # A FrozenEstimator's token covered its model's hyperparameters only: with a FitCache the second stack took the
    # first one's frozen Ridge, and a frozen model trained again in place left the final estimator as it was.
    X, y = DIABETES
    cache = ww.FitCache()
    first, second = Ridge().fit(X[:200], y[:200]), Ridge().fit(X[200:], y[200:])

    def learners(model):
        return [("frozen", FrozenEstimator(model)), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]

    stacks = {}
    for model in (first, second):
        stacks[id(model)] = ours = ww.Stack(learners(model), Ridge(), cv=KFold(5), cache=cache).fit(X, y)
        theirs = StackingRegressor(learners(model), Ridge(), cv=KFold(5)).fit(X, y)
        assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10
    first.fit(X[300:], y[300:])
    ours = stacks[id(first)].fit(X, y)
    assert ours.report_()["machines"]["final"]["action"] == "trained"
    theirs = StackingRegressor(learners(first), Ridge(), cv=KFold(5)).fit(X, y)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10


@pytest.mark.parametrize("passthrough", [False, True])
def test_cv_prefit_uses_the_learners_as_trained_as_scikit_learn_s(passthrough):
    # scikit-learn 1.9.1's stacking still takes cv="prefit", with no deprecation; a stack refused it with "cannot
    # tell how many splits cv='prefit' makes".
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.array(["barolo", "grignolino", "barbera"])[y]
    weights = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    learners = [
        ("lr", LogisticRegression().fit(X[::2], y[::2])),
        ("svc", LinearSVC().fit(X[1::2], y[1::2])),  # decision_function feeds the final estimator
        ("nb", GaussianNB().fit(X, y)),
    ]
    ours = ww.Stack(learners, LogisticRegression(), cv="prefit", passthrough=passthrough)
    theirs = StackingClassifier(learners, LogisticRegression(), cv="prefit", passthrough=passthrough)
    ours.fit(X, y, sample_weight=weights)
    theirs.fit(X, y, sample_weight=weights)
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10
    assert np.abs(ours.transform(X) - theirs.transform(X)).max() <= 1e-10
    assert [a is b for a, b in zip(ours.estimators_, theirs.estimators_, strict=True)] == [True] * 3
    assert list(ours.named_estimators_) == ["lr", "svc", "nb"]
    names = [n.replace("stackingclassifier_", "stack_") for n in theirs.get_feature_names_out()]
    assert list(ours.get_feature_names_out()) == names
    X, y = DIABETES
    learners = [("ridge", Ridge().fit(X[:200], y[:200])), ("tree", DecisionTreeRegressor(max_depth=3).fit(X, y))]
    ours = ww.Stack(learners, Ridge(), cv="prefit", passthrough=passthrough).fit(X, y)
    theirs = StackingRegressor(learners, Ridge(), cv="prefit", passthrough=passthrough).fit(X, y)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10


def test_cv_prefit_trains_the_final_estimator_only_and_again_when_a_learner_is_trained_again():
    X, y = DIABETES
    ridge = Ridge().fit(X[:200], y[:200])
    stack = ww.Stack([("ridge", ridge)], Counting(Ridge(), tag="final"), cv="prefit").fit(X, y)
    assert fits() == ["final"]
    Counting.events.clear()
    stack.fit(X, y)
    assert fits() == []
    ridge.fit(X[200:], y[200:])  # in place: the stack's next fit sees another learner, as scikit-learn's would
    stack.fit(X, y)
    assert fits() == ["final"]
    theirs = StackingRegressor([("ridge", ridge)], Ridge(), cv="prefit").fit(X, y)
    assert np.abs(stack.predict(X) - theirs.predict(X)).max() <= 1e-10


def test_cv_prefit_refuses_learners_not_fitted_and_several_levels():
    X, y = DIABETES
    with pytest.raises(ww.NotTrainedError, match=r"cv='prefit' uses the base learners as they are, but 'tree' "
                       r"\(DecisionTreeRegressor\) is not fitted .* Fit it first, or give cv an int or a splitter"):
        ww.Stack([("ridge", Ridge().fit(X, y)), ("tree", DecisionTreeRegressor())], Ridge(), cv="prefit").fit(X, y)
    with pytest.raises(ww.GraphError, match=r"cv='prefit' stacks one level.*Received: levels=2"):
        ww.Stack([("ridge", Ridge().fit(X, y))], Ridge(), cv="prefit", levels=2).fit(X, y)


def test_grid_search_with_cache_equals_scikit_learn():
    X, y = DIABETES[0][:300], DIABETES[1][:300]
    grid = {"final_estimator__alpha": list(np.logspace(-3, 3, 10))}
    cache = ww.FitCache()
    ours = GridSearchCV(ww.Stack(regressors(), Ridge(), cv=KFold(5), cache=cache), grid, cv=KFold(3)).fit(X, y)
    theirs = GridSearchCV(StackingRegressor(regressors(), final_estimator=Ridge(), cv=KFold(5)), grid, cv=KFold(3))
    theirs.fit(X, y)
    for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
        assert np.max(np.abs(ours.cv_results_[key] - theirs.cv_results_[key])) <= 1e-10
    # Per split, the 12 base-learner machines train once; the other 9 candidates find them in the cache.
    assert cache.misses == 3 * 13 + 9 * 3 + 13  # + the refit on all rows
    assert cache.hits == 9 * 3 * 12
    # Their out-of-fold predictions (2 learners x 5 folds) too: computed once per split, then found.
    assert cache.value_misses == 3 * 10 + 10 and cache.value_hits == 9 * 3 * 10


def test_classifier_grid_search_with_cache_equals_scikit_learn():
    X, y = load_iris(return_X_y=True)
    estimators = [("nb", GaussianNB()), ("rf", RandomForestClassifier(n_estimators=10, random_state=0))]
    grid = {"final_estimator__C": [0.1, 1.0, 10.0]}
    cache = ww.FitCache()
    final = LogisticRegression(max_iter=1000)
    inner, outer = StratifiedKFold(5), KFold(3, shuffle=True, random_state=0)  # iris is sorted by class
    ours = GridSearchCV(ww.Stack(estimators, final, cv=inner, cache=cache), grid, cv=outer, scoring="neg_log_loss")
    theirs = GridSearchCV(StackingClassifier(estimators, final_estimator=final, cv=inner), grid, cv=outer,
                          scoring="neg_log_loss")
    ours.fit(X, y)
    theirs.fit(X, y)
    assert np.max(np.abs(ours.cv_results_["mean_test_score"] - theirs.cv_results_["mean_test_score"])) <= 1e-10
    assert cache.value_hits == 2 * 3 * 10  # the out-of-fold predict_proba of 2 learners x 5 folds, found
    assert np.max(np.abs(ours.predict_proba(X) - theirs.predict_proba(X))) <= 1e-10


def test_cv_larger_than_the_rows_is_a_clear_error():
    X, y = DIABETES
    with pytest.raises(ww.DataError, match=r"cv asks for 20 folds but the training data has only n_samples=10 rows"):
        ww.Stack(regressors(), Ridge(), cv=20).fit(X[:10], y[:10])


@pytest.mark.parametrize("routing", [False, True])
def test_a_splitter_that_needs_groups_is_refused_saying_to_give_its_splits(routing):
    # scikit-learn's stacking gives its splitter no groups either (GroupKFold raises, groups= is refused); the
    # messages said what failed but not what to do instead: give the splits
    X, y = DIABETES
    groups = np.arange(len(y)) % 7
    with pytest.raises(ww.DataError, match=r"'groups' parameter should not be None\. A stack gives its splitter no "
                       r"groups.*cv=list\(splitter\.split\(X, y, groups\)\)"):
        ww.Stack(regressors(), Ridge(), cv=GroupKFold(3)).fit(X, y)
    with sklearn.config_context(enable_metadata_routing=routing):
        with pytest.raises(ww.ArgumentError, match=r"Stack\.fit takes X, y and sample_weight\. Received also: "
                           r"\['groups'\]\. .*cv=list\(GroupKFold\(5\)\.split\(X, y, groups\)\)"):
            ww.Stack(regressors(), Ridge(), cv=GroupKFold(3)).fit(X, y, groups=groups)
        with pytest.raises(TypeError if routing else ValueError):  # routing off: "only supported if ... routing"
            StackingRegressor(regressors(), Ridge(), cv=GroupKFold(3)).fit(X, y, groups=groups)
    splits = list(GroupKFold(3).split(X, y, groups))
    ours = ww.Stack(regressors(), Ridge(), cv=splits).fit(X, y)
    theirs = StackingRegressor(regressors(), Ridge(), cv=splits).fit(X, y)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10


def test_a_stack_without_a_final_estimator_says_it_has_no_default():
    with pytest.raises(ww.GraphError, match=r"final_estimator \(NoneType\) has no predict\(\).*no default final "
                       r"estimator \(scikit-learn's stacking takes None for RidgeCV\(\) or LogisticRegression\(\)\)"):
        ww.Stack(regressors(), None).fit(*DIABETES)


def test_cv_as_a_generator_of_splits_is_listed_once_and_kept_for_refits():
    X, y = DIABETES[0][:90], DIABETES[1][:90]
    stack = ww.Stack(regressors(), Ridge(), cv=(split for split in KFold(3).split(X)))
    for alpha, passthrough in [(1.0, False), (4.0, False), (4.0, True)]:  # a refit, then a network built anew
        ours = stack.set_params(final_estimator__alpha=alpha, passthrough=passthrough).fit(X, y).predict(X)
        theirs = StackingRegressor(regressors(), Ridge(alpha=alpha), cv=KFold(3).split(X), passthrough=passthrough)
        assert np.abs(ours - theirs.fit(X, y).predict(X)).max() <= 1e-10


@pytest.mark.parametrize("change", [{"n_splits": 3}, {"random_state": 1}])
def test_a_cv_splitter_changed_in_place_retrains_the_folds_as_scikit_learn_s(change):
    # The network held the very splitter changed, so its old splits node showed the new splits too and the folds'
    # machines, trained on the old ones, were carried over untouched: predictions 4.6 apart (random_state).
    X, y = DIABETES
    stack = ww.Stack(regressors(), Ridge(), cv=KFold(4, shuffle=True, random_state=0)).fit(X, y)
    for name, value in change.items():
        setattr(stack.cv, name, value)
    ours = stack.fit(X, y).predict(X)
    splitter = KFold(**{"n_splits": 4, "shuffle": True, "random_state": 0, **change})
    theirs = StackingRegressor(regressors(), Ridge(), cv=splitter)
    assert np.abs(ours - theirs.fit(X, y).predict(X)).max() <= 1e-10
    assert {report["action"] for name, report in stack.report_()["machines"].items() if "_fold" in name} == {"trained"}


@pytest.mark.parametrize("before, after", [("hinge", "log_loss"), ("log_loss", "hinge")])
def test_a_learner_offering_other_operations_after_set_params_stacks_as_scikit_learn_s(before, after):
    # The network kept the operation chosen when it was built (decision_function of the hinge SGDClassifier):
    # predict_proba 0.61 apart from StackingClassifier's after loss="log_loss"; back to "hinge", fit failed.
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)

    def learners(loss):
        return [("sgd", SGDClassifier(loss=loss, random_state=0)), ("nb", GaussianNB())]

    stack = ww.Stack(learners(before), LogisticRegression(max_iter=1000), cv=KFold(3, shuffle=True, random_state=0))
    stack.fit(X, y)
    stack.set_params(sgd__loss=after).fit(X, y)
    theirs = StackingClassifier(learners(after), LogisticRegression(max_iter=1000), cv=KFold(3, shuffle=True, random_state=0))
    assert np.abs(stack.predict_proba(X) - theirs.fit(X, y).predict_proba(X)).max() <= 1e-10
    assert stack.transform(X).shape == theirs.transform(X).shape
    actions = {name: report["action"] for name, report in stack.report_()["machines"].items()}
    assert actions["nb"] == "skipped" and actions["sgd"] == "updated"  # built again, the rest carried over


@pytest.mark.parametrize("empty", [[], iter([])])
def test_cv_without_splits_is_a_clear_error(empty):
    X, y = DIABETES
    with pytest.raises(ww.GraphError, match=r"cv holds no \(train, test\) splits. Received: (list|list_iterator)"):
        ww.Stack(regressors(), Ridge(), cv=empty).fit(X, y)


def test_base_learner_without_predict_is_a_clear_error():
    from sklearn.preprocessing import StandardScaler

    X, y = DIABETES
    with pytest.raises(ww.GraphError, match=r"base learner 'scale' \(StandardScaler\) has no predict\(\)"):
        ww.Stack([("scale", StandardScaler())], Ridge()).fit(X, y)
    with pytest.raises(ww.GraphError, match=r"final_estimator \(StandardScaler\) has no predict\(\)"):
        ww.Stack(regressors(), StandardScaler()).fit(X, y)


def test_fitted_attributes_are_scikit_learn_s():
    X, y = load_iris(return_X_y=True)
    learners = [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())]
    ours = ww.Stack(learners, LogisticRegression(max_iter=1000), cv=StratifiedKFold(3))
    assert not hasattr(ours, "final_estimator_") and not hasattr(ours, "estimators_")
    ours.fit(X, y)
    theirs = StackingClassifier(learners, LogisticRegression(max_iter=1000), cv=StratifiedKFold(3)).fit(X, y)
    assert np.array_equal(ours.final_estimator_.coef_, theirs.final_estimator_.coef_)
    assert list(ours.named_estimators_) == ["lr", "nb"]
    assert np.array_equal(ours.estimators_[0].coef_, theirs.estimators_[0].coef_)
    assert ours.estimators_[1] is ours.fitted_params_()["nb"]
    deep = ww.Stack(learners, LogisticRegression(max_iter=1000), cv=3, levels=2).fit(X, y)
    assert list(deep.named_estimators_) == ["lr_level1", "nb_level1", "lr_level2", "nb_level2"]
    ours.set_params(estimators=[("other", GaussianNB())])
    with pytest.raises(ww.NotTrainedError, match="no trained 'other': the parameters that shape its network"):
        ours.estimators_
    # a shorter list of the same names: its trained models are not the parameters' either (it gave one of two)
    ours.set_params(estimators=learners[:1])
    for attribute in ("estimators_", "named_estimators_"):
        with pytest.raises(ww.NotTrainedError, match="has no trained models of its parameters: .* Call fit"):
            getattr(ours, attribute)
    ours.fit(X, y)
    assert list(ours.named_estimators_) == ["lr"]
    ours.set_params(lr__C=0.5)  # a hyperparameter: the models are still the last fit's, as scikit-learn's
    assert ours.estimators_[0].C == 1.0


@pytest.mark.parametrize("method", ["predict_proba", "decision_function", "predict"])
@pytest.mark.parametrize("load", [load_iris, load_breast_cancer])
def test_stack_method_equals_scikit_learn(method, load):
    X, y = load(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # standardized: the logistic regressions converge in a few steps
    learners = [("lr", LogisticRegression(max_iter=5000)), ("weak", LogisticRegression(C=0.01, max_iter=5000))]
    ours = ww.Stack(learners, LogisticRegression(max_iter=5000), cv=StratifiedKFold(3), stack_method=method).fit(X, y)
    theirs = StackingClassifier(learners, LogisticRegression(max_iter=5000), cv=StratifiedKFold(3), stack_method=method)
    assert np.abs(ours.predict_proba(X) - theirs.fit(X, y).predict_proba(X)).max() <= 1e-10


def test_stack_method_that_cannot_apply_is_a_graph_error():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ww.GraphError, match=r"base learner 'svc' \(LinearSVC\) has no predict_proba\(\)"):
        ww.Stack([("svc", LinearSVC())], LogisticRegression(), stack_method="predict_proba").fit(X, y)
    with pytest.raises(ww.GraphError, match=r"stack_method must be one of \['auto', 'predict'\] for a regressor"):
        ww.Stack([("ridge", Ridge())], Ridge(), stack_method="predict_proba").fit(X, y.astype(float))
    with pytest.raises(ww.GraphError, match=r"Received: 'transform'"):
        ww.Stack([("lr", LogisticRegression())], LogisticRegression(), stack_method="transform").fit(X, y)


MISSING_CLASS = "Number of classes in training fold"


def sorted_binary():
    """90 rows whose labels are sorted, as read from a file: KFold(3)'s last fold trains on class 0 only."""
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(90, 3)), np.r_[np.zeros(60, int), np.ones(30, int)]
    X[y == 1] += 1.0
    return X, y, KFold(3)


def rare_fourth_class():
    """iris with a fourth class of one row: the training folds of the split that tests that row lack it."""
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[0] = 3
    return X, y, KFold(5, shuffle=True, random_state=0)


@pytest.mark.parametrize(
    "data, learner, method",
    [
        (sorted_binary, DecisionTreeClassifier(max_depth=2, random_state=0), "auto"),
        (rare_fourth_class, LogisticRegression(max_iter=1000), "predict_proba"),
        pytest.param(  # the missing class's column holds the lowest float: the final estimator cannot converge
            rare_fourth_class,
            LogisticRegression(max_iter=1000),
            "decision_function",
            marks=pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
        ),
    ],
)
def test_a_training_fold_without_a_class_gets_its_columns_as_in_scikit_learn(data, learner, method):
    X, y, cv = data()
    with pytest.warns(RuntimeWarning, match=MISSING_CLASS):
        theirs = StackingClassifier([("m", learner)], LogisticRegression(), cv=cv, stack_method=method).fit(X, y)
    with pytest.warns(RuntimeWarning, match=MISSING_CLASS):
        ours = ww.Stack([("m", learner)], LogisticRegression(), cv=cv, stack_method=method).fit(X, y)
    assert np.array_equal(ours.final_estimator_.coef_, theirs.final_estimator_.coef_)
    assert np.abs(ours.predict_proba(X) - theirs.predict_proba(X)).max() <= 1e-10


def test_decision_function_of_a_fold_with_two_classes_of_three_is_refused_as_scikit_learn_does():
    X, y = load_iris(return_X_y=True)  # sorted by class: each of KFold(3)'s training folds has two classes
    lr = LogisticRegression(max_iter=1000)
    stack = ww.Stack([("lr", lr)], LogisticRegression(), cv=KFold(3), stack_method="decision_function")
    with pytest.warns(RuntimeWarning, match=MISSING_CLASS):
        with pytest.raises(ww.DataError, match=r"Only 2 class/es in training fold, but 3 in overall dataset.*"
                           r"or use stack_method='predict_proba'"):
            stack.fit(X, y)


@pytest.mark.parametrize("passthrough", [False, True])
def test_transform_gives_the_meta_features_as_scikit_learn(passthrough):
    X, y = load_iris(return_X_y=True, as_frame=True)
    learners = [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())]
    ours = ww.Stack(learners, LogisticRegression(max_iter=1000), cv=StratifiedKFold(3), passthrough=passthrough).fit(X, y)
    theirs = StackingClassifier(learners, LogisticRegression(max_iter=1000), cv=StratifiedKFold(3), passthrough=passthrough)
    theirs.fit(X, y)
    assert np.abs(np.asarray(ours.transform(X), dtype=float) - theirs.transform(X)).max() <= 1e-10
    names = [n.replace("stackingclassifier_", "stack_") for n in theirs.get_feature_names_out()]
    assert list(ours.get_feature_names_out()) == names
    if passthrough:  # pandas passthrough: a DataFrame, named as get_feature_names_out says
        assert list(ours.transform(X).columns) == names
    frame = ours.set_output(transform="pandas").transform(X)
    assert list(frame.columns) == names and frame.index.equals(X.index)


def test_a_raw_column_named_like_a_prediction_gives_plain_meta_features_as_scikit_learn():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X = X.rename(columns={"age": "stack_ridge", "sex": "stack_ridge_level1"})
    ours = ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(3), passthrough=True).fit(X, y)
    theirs = StackingRegressor([("ridge", Ridge())], Ridge(), cv=KFold(3), passthrough=True).fit(X, y)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10
    assert np.abs(ours.transform(X) - theirs.transform(X)).max() <= 1e-10
    deeper = ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(3), levels=2).fit(X, y)
    assert deeper.named_estimators_["ridge_level2"].n_features_in_ == 11 and deeper.score(X, y) > 0.4


@pytest.mark.parametrize("options", [{"passthrough": True}, {"levels": 2}])
def test_a_frame_with_integer_column_names_predicts_without_feature_name_warnings(options):
    X, y = DIABETES
    frame = pd.DataFrame(X)  # pandas' default column names: no feature names to scikit-learn
    ours = ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(3), **options).fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        predicted = ours.predict(frame)
    np.testing.assert_allclose(predicted, ours.predict(X), rtol=1e-12)
    if options.get("passthrough"):
        theirs = StackingRegressor([("ridge", Ridge())], Ridge(), cv=KFold(3), passthrough=True).fit(frame, y)
        assert np.abs(predicted - theirs.predict(frame)).max() <= 1e-10


def test_transform_names_of_regressor_binary_and_deeper_stacks():
    X, y = load_diabetes(return_X_y=True)
    regressor = ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(3)).fit(X, y)
    assert list(regressor.get_feature_names_out()) == ["stack_ridge"]
    assert np.abs(regressor.transform(X)[:, 0] - regressor.estimators_[0].predict(X)).max() == 0
    Xb, yb = load_breast_cancer(return_X_y=True)
    binary = ww.Stack([("nb", GaussianNB())], LogisticRegression(), cv=3).fit(Xb, yb)
    assert list(binary.get_feature_names_out()) == ["stack_nb"]  # one probability column for two classes
    Xi, yi = load_iris(return_X_y=True, as_frame=True)
    deep = ww.Stack([("nb", GaussianNB())], LogisticRegression(max_iter=1000), cv=3, levels=2, passthrough=True)
    names = list(deep.fit(Xi, yi).get_feature_names_out())
    assert names == ["stack_nb_level2_0", "stack_nb_level2_1", "stack_nb_level2_2", *Xi.columns]
    assert list(deep.transform(Xi).columns) == names
    level2 = deep.fitted_params_()["nb_level2"]
    assert list(level2.feature_names_in_) == ["stack_nb_level1_0", "stack_nb_level1_1", "stack_nb_level1_2", *Xi.columns]


def test_a_stack_exports_its_predictions_by_default_and_its_transform_when_asked():
    X, y = load_diabetes(return_X_y=True)
    stack = ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(3), passthrough=True).fit(X, y)
    assert [o.name for o in ww.to_onnx(stack).graph.output] == ["predict"]
    model = ww.to_onnx(stack, methods=["predict", "transform"])
    assert ww.onnx.check_parity(stack, model, X).outputs["transform"].max_abs <= 1e-12


class Shifted(Ridge):
    """A ridge whose predict takes a metadata, ``shift``, added to its predictions (classes: to their codes)."""

    def predict(self, X, shift=0.0):
        return super().predict(X) + shift


class ShiftedLabels(LogisticRegression):
    """A logistic regression whose predict takes ``shift``, added to the encoded class it predicts."""

    def predict(self, X, shift=0):
        return super().predict(X) + shift


def test_predict_parameters_reach_the_final_estimator_as_scikit_learn_s():
    X, y = DIABETES
    learners = [("ridge", Ridge(alpha=0.5)), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]
    small = slice(0, 80)
    process = GaussianProcessRegressor(alpha=1e-2, optimizer=None)  # a fixed kernel: no convergence warning
    for final, params in [(Shifted(), {"shift": 3.5}), (process, {"return_std": True}), (process, {"return_cov": True}),
                          (BayesianRidge(), {"return_std": True})]:
        ours = ww.Stack(learners, final, cv=KFold(3)).fit(X[small], y[small] / 100)
        theirs = StackingRegressor(learners, final, cv=KFold(3)).fit(X[small], y[small] / 100)
        got, expected = ours.predict(X[80:120], **params), theirs.predict(X[80:120], **params)
        assert type(got) is type(expected)
        for a, b in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, expected)), strict=True):
            assert np.abs(a - b).max() <= 1e-10
    # a classifier stack: its final estimator's predict, then the labels decoded (scikit-learn's too)
    Xi, yi = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[yi]
    trees = [("tree", DecisionTreeClassifier(max_depth=2, random_state=0))]
    ours = ww.Stack(trees, ShiftedLabels(), cv=StratifiedKFold(3)).fit(Xi, names)
    theirs = StackingClassifier(trees, ShiftedLabels(), cv=StratifiedKFold(3)).fit(Xi, names)
    np.testing.assert_array_equal(ours.predict(Xi[:60], shift=1), theirs.predict(Xi[:60], shift=1))
    assert set(ours.predict(Xi[:50], shift=1)) == {"versicolor"}  # setosa, one class on
    # scikit-learn's predict_proba takes X only (Python's TypeError): so does ours, with a message
    with pytest.raises(TypeError, match="unexpected keyword argument 'shift'"):
        theirs.predict_proba(Xi, shift=1)
    with pytest.raises(ww.ArgumentError, match=r"Stack\.predict_proba takes X only.*Received also: shift=\.\.\..*"
                       r"the output of predict\. Call predict_proba\(X\)"):
        ours.predict_proba(Xi, shift=1)


def shifted_stacks(final):
    learners = [("ridge", Ridge(alpha=0.5))]
    return ww.Stack(learners, final, cv=KFold(3)), StackingRegressor(learners, final, cv=KFold(3))


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - what it raised is what the test compares
        return error
    raise AssertionError("no error")


@pytest.mark.parametrize("outer", [None, Pipeline, ww.Pipeline], ids=["the stack", "in a Pipeline", "in a ww.Pipeline"])
def test_with_metadata_routing_the_final_estimator_s_predict_request_decides_as_in_scikit_learn(outer):
    # ww.Stack's get_metadata_routing() declared its learners' fit only, so scikit-learn's Pipeline around it
    # refused predict(X, shift=...) (a TypeError, "not routed to any object") that it routes to StackingRegressor
    X, y = DIABETES

    def fitted(final):
        ours, theirs = shifted_stacks(final)
        if outer is None:
            return ours.fit(X, y), theirs.fit(X, y)
        return outer([("stack", ours)]).fit(X, y), Pipeline([("stack", theirs)]).fit(X, y)

    with sklearn.config_context(enable_metadata_routing=True):
        ours, theirs = fitted(Shifted().set_predict_request(shift=True))
        assert np.abs(ours.predict(X, shift=2.0) - theirs.predict(X, shift=2.0)).max() <= 1e-10
        assert np.abs(ours.predict(X, shift=2.0) - ours.predict(X) - 2.0).max() <= 1e-10
        for stack in (ours, theirs):
            routing = (stack if outer is None else stack.steps[0][1]).get_metadata_routing()
            assert routing.consumes("predict", ["shift", "other"]) == {"shift"}
            assert routing.consumes("fit", ["shift"]) == set()
        ours, theirs = fitted(Shifted())  # unset: scikit-learn's error, naming the stack
        mine, expected = _error(lambda: ours.predict(X, shift=2.0)), _error(lambda: theirs.predict(X, shift=2.0))
        assert isinstance(expected, UnsetMetadataPassedError) and isinstance(mine, UnsetMetadataPassedError)
        assert str(mine) == str(expected).replace("StackingRegressor", "Stack")
        assert isinstance(mine, ww.UnsetRequestError) or outer is Pipeline  # scikit-learn's Pipeline: its own
        ours, theirs = fitted(Shifted().set_predict_request(shift=False))  # declined: routed to no one
        mine, expected = _error(lambda: ours.predict(X, shift=2.0)), _error(lambda: theirs.predict(X, shift=2.0))
        assert type(expected) is TypeError and isinstance(mine, TypeError)
        assert str(mine).startswith(str(expected).replace("StackingRegressor", "Stack"))
        assert isinstance(mine, ww.ArgumentError) or outer is Pipeline
        assert np.abs(ours.predict(X) - theirs.predict(X)).max() <= 1e-10


def test_the_routing_of_predict_names_the_trained_final_estimator_once_fitted():
    X, y = DIABETES
    with sklearn.config_context(enable_metadata_routing=True):
        stack = ww.Stack([("final_estimator_", Ridge())], Shifted().set_predict_request(shift=True), cv=KFold(3))
        assert stack.get_metadata_routing().consumes("predict", ["shift"]) == {"shift"}  # before fit: the parameter
        stack.fit(X, y)
        stack.final_estimator.set_predict_request(shift=False)  # the trained one still requests it, as it predicts
        assert stack.get_metadata_routing().consumes("predict", ["shift"]) == {"shift"}
        assert stack.final_estimator_.get_metadata_routing().consumes("predict", ["shift"]) == {"shift"}
        learner = stack.get_metadata_routing()  # a learner of that name keeps its own route: fit only
        assert learner.consumes("fit", ["sample_weight"]) == set() and "final_estimator__" in str(learner)


class Recording(RegressorMixin, BaseEstimator):
    """A Ridge that records the type, layout and values of what its ``fit`` and ``predict`` receive."""

    received: list = []

    def fit(self, X, y):
        Recording.received.append(("fit", type(X), getattr(X, "format", None), X))
        self.ridge_ = Ridge().fit(X, y)
        return self

    def predict(self, X):
        Recording.received.append(("predict", type(X), getattr(X, "format", None), X))
        return self.ridge_.predict(X)


@pytest.mark.parametrize("layout", [sp.csc_matrix, sp.csr_matrix, sp.csc_array, sp.csr_array])
def test_sparse_passthrough_reaches_the_final_estimator_in_the_layout_scikit_learn_s_stacking_gives_it(layout):
    # a CSC X came to the final estimator as CSR (and a sparse array as a matrix); scikit-learn's stacking joins
    # the predictions and X with sparse.hstack(..., format=X.format)
    X, y = DIABETES
    X = layout(X)
    Recording.received = []
    theirs = StackingRegressor([("ridge", Ridge())], final_estimator=Recording(), cv=KFold(5), passthrough=True)
    expected = theirs.fit(X, y).predict(X)
    seen_by_theirs, Recording.received = Recording.received, []
    ours = ww.Stack([("ridge", Ridge())], Recording(), cv=KFold(5), passthrough=True).fit(X, y)
    assert np.max(np.abs(ours.predict(X) - expected)) <= 1e-10
    assert [call[:3] for call in Recording.received] == [call[:3] for call in seen_by_theirs]
    assert [call[:3] for call in seen_by_theirs] == [(op, type(X), X.format) for op in ("fit", "predict")]
    for (*_, mine), (*_, theirs_) in zip(Recording.received, seen_by_theirs):
        assert np.max(np.abs((mine - theirs_).toarray())) <= 1e-10
    out = ours.transform(X)
    assert type(out) is type(X) and out.format == X.format
