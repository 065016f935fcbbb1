"""ww.Stack with a multilabel y (a 2-D 0/1 indicator) against scikit-learn's StackingClassifier."""

import warnings

import numpy as np
import pandas as pd
import pytest
from _counting import Counting
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier, StackingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.model_selection import KFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

import wirework as ww

# generated here, with a fixed seed: 150 rows, 8 features, 3 labels
X, Y = make_multilabel_classification(n_samples=150, n_features=8, n_classes=3, random_state=0)
# 120 rows, 2 labels: scikit-learn's stacking then keeps one of an MLP's two probability columns
X2, Y2 = make_multilabel_classification(n_samples=120, n_features=6, n_classes=2, random_state=1)

quiet = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # the small MLPs, both sides


def learners():
    return [
        ("knn", KNeighborsClassifier()),
        ("rf", RandomForestClassifier(n_estimators=10, random_state=0)),  # predict_proba: one array per label
        ("mlp", MLPClassifier(hidden_layer_sizes=(5,), max_iter=50, random_state=0)),  # one array, a column per label
        ("ridge", RidgeClassifier()),  # decision_function, a column per label
    ]


def both(final, X=X, Y=Y, estimators=learners, **options):
    ours = ww.Stack(estimators(), final(), cv=KFold(5), **options).fit(X, Y)
    theirs = StackingClassifier(estimators(), final(), cv=KFold(5), **options).fit(X, np.asarray(Y))
    return ours, theirs


def assert_close(a, b):
    assert np.shape(a) == np.shape(b)
    assert np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))) <= 1e-10


@quiet
@pytest.mark.parametrize("passthrough", [False, True])
@pytest.mark.parametrize(
    "final",
    [KNeighborsClassifier, lambda: RandomForestClassifier(n_estimators=10, random_state=0), RidgeClassifier],
    ids=["knn", "forest", "ridge"],
)
def test_a_multilabel_stack_equals_stacking_classifier(final, passthrough):
    # a 2-D y was refused ("y should be a 1d array"); scikit-learn's StackingClassifier takes a multilabel indicator
    ours, theirs = both(final, passthrough=passthrough)
    assert_close(ours.transform(X), theirs.transform(X))  # out-of-fold at fit, full-data learners here
    assert ours.transform(X).shape == (150, 12 + 8 * passthrough)
    predicted = ours.predict(X)
    assert predicted.dtype == theirs.predict(X).dtype and np.array_equal(predicted, theirs.predict(X))
    assert [list(c) for c in ours.classes_] == [list(c) for c in theirs.classes_] == [[0, 1]] * 3
    for operation in ("predict_proba", "decision_function"):
        assert hasattr(ours, operation) == hasattr(theirs, operation)
        if hasattr(theirs, operation):
            assert_close(getattr(ours, operation)(X), getattr(theirs, operation)(X))
    names = ours.get_feature_names_out()
    assert list(names[:6]) == ["stack_knn0", "stack_knn1", "stack_knn2", "stack_rf0", "stack_rf1", "stack_rf2"]
    assert len(names) == ours.transform(X).shape[1]


@quiet
@pytest.mark.parametrize("stack_method", ["auto", "predict"])
@pytest.mark.parametrize("target", [lambda y: y, lambda y: y + 1, lambda y: pd.DataFrame(y, columns=["a", "b"])],
                         ids=["0/1", "1/2", "frame"])
def test_two_labels_other_values_and_a_frame_as_scikit_learn_s(stack_method, target):
    # two labels: an MLP's (n, 2) probabilities lose their first column, as scikit-learn's classes_ has two entries
    def estimators():
        return learners()[1:3]

    ours, theirs = both(KNeighborsClassifier, X2, target(Y2), estimators, stack_method=stack_method)
    assert_close(ours.transform(X2), theirs.transform(X2))
    assert np.array_equal(ours.predict(X2), theirs.predict(X2))
    assert_close(ours.predict_proba(X2), theirs.predict_proba(X2))
    expected = ["stack_rf0", "stack_rf1", "stack_mlp"] if stack_method == "auto" else [
        "stack_rf0", "stack_rf1", "stack_mlp0", "stack_mlp1"]
    assert list(ours.get_feature_names_out()) == expected


def test_a_fold_that_lacks_a_class_of_a_label_warns_and_fills_as_cross_val_predict():
    y = Y2.copy()
    y[:, 1] = 0
    y[:3, 1] = 1  # the second label's 1s all in the first fold: its training rows have none

    def estimators():
        return [("rf", RandomForestClassifier(n_estimators=10, random_state=0))]

    with pytest.warns(RuntimeWarning, match=r"Number of classes in training fold \(1\) does not match") as ours_said:
        ours = ww.Stack(estimators(), KNeighborsClassifier(), cv=KFold(5)).fit(X2, y)
    with pytest.warns(RuntimeWarning) as theirs_said:
        theirs = StackingClassifier(estimators(), KNeighborsClassifier(), cv=KFold(5)).fit(X2, y)
    assert [str(w.message) for w in ours_said] == [str(w.message) for w in theirs_said]
    assert_close(ours.transform(X2), theirs.transform(X2))
    assert_close(ours.predict_proba(X2), theirs.predict_proba(X2))


@quiet
def test_a_final_estimator_with_one_probability_array_predicts_but_refuses_predict_proba():
    # scikit-learn's stacking fails there (an IndexError: it takes each label's first column of a list)
    def final():
        return MLPClassifier(max_iter=50, random_state=0)

    ours, theirs = both(final)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    with pytest.raises(IndexError):
        theirs.predict_proba(X)
    with pytest.raises(ww.DataError, match=r"final estimator \(MLPClassifier\) gives one array of shape \(150, 3\)"):
        ours.predict_proba(X)


def test_only_the_machines_a_change_touches_retrain():
    def counted():
        return [
            ("tree", Counting(DecisionTreeClassifier(max_depth=3, random_state=0), tag="tree")),
            ("knn", Counting(KNeighborsClassifier(), tag="knn")),
        ]

    stack = ww.Stack(counted(), KNeighborsClassifier(), cv=KFold(3))
    Counting.events = []
    stack.fit(X, Y)
    assert sorted(e for e in Counting.events if e[1] == "fit") == [("knn", "fit")] * 4 + [("tree", "fit")] * 4
    plain = [(name, model.estimator) for name, model in counted()]
    expected = StackingClassifier(plain, KNeighborsClassifier(n_neighbors=3), cv=KFold(3)).fit(X, Y)
    Counting.events = []
    stack.set_params(final_estimator__n_neighbors=3).fit(X, Y)
    assert Counting.events == []  # no base learner trains or predicts again
    actions = {name: report["action"] for name, report in stack.report_()["machines"].items()}
    assert actions.pop("final") == "updated" and set(actions.values()) == {"skipped"}
    assert_close(stack.predict_proba(X), expected.predict_proba(X))
    stack.set_params(tree__estimator__max_depth=2).fit(X, Y)
    assert sorted(e for e in Counting.events if e[1] == "fit") == [("tree", "fit")] * 4  # 3 folds and all rows
    actions = {name: report["action"] for name, report in stack.report_()["machines"].items()}
    assert {name for name, action in actions.items() if action != "skipped"} == {
        "tree_fold1", "tree_fold2", "tree_fold3", "tree", "final"}


@quiet
def test_switching_between_one_target_and_several_builds_the_network_for_each():
    labels = Y[:, 0]
    stack = ww.Stack(learners()[:2], KNeighborsClassifier(), cv=KFold(5))
    one = ww.Stack(learners()[:2], KNeighborsClassifier(), cv=KFold(5)).fit(X, labels).predict_proba(X)
    several = ww.Stack(learners()[:2], KNeighborsClassifier(), cv=KFold(5)).fit(X, Y).predict_proba(X)
    for target, expected in [(labels, one), (Y, several), (labels, one)]:
        assert_close(stack.fit(X, target).predict_proba(X), expected)


def test_a_2d_y_that_is_not_multilabel_or_a_final_estimator_that_cannot_learn_it_is_refused_with_advice():
    several_classes = np.c_[Y[:, 0], Y[:, 1] + Y[:, 2]]  # multiclass-multioutput: scikit-learn's refuses it too
    cases = [(KNeighborsClassifier(), several_classes), (LogisticRegression(), Y)]
    for final, y in cases:
        with pytest.raises(
            ww.DataError,
            match=r"Stack.fit cannot use the data it received: y should be a 1d array, got an array of shape "
            r"\(150, \d\) instead\. A stack classifier takes a 2-D y as a multilabel indicator",
        ):
            ww.Stack([("knn", KNeighborsClassifier())], final, cv=KFold(5)).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.raises(ValueError, match="y should be a 1d array"):
            StackingClassifier([("knn", KNeighborsClassifier())], KNeighborsClassifier(), cv=KFold(5)).fit(X, several_classes)


def test_two_levels_and_prefit_learners_as_scikit_learn_s():
    def estimators():
        return learners()[:2]

    # levels=2: scikit-learn's stacking with passthrough whose final estimator is a stacking of the same learners
    ours = ww.Stack(estimators(), KNeighborsClassifier(), cv=KFold(5), levels=2).fit(X, Y)
    inner = StackingClassifier(estimators(), KNeighborsClassifier(), cv=KFold(5))
    theirs = StackingClassifier(estimators(), inner, cv=KFold(5), passthrough=True).fit(X, Y)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    fitted = [(name, model.fit(X, Y)) for name, model in estimators()]
    ours, theirs = (kind(fitted, KNeighborsClassifier(), cv="prefit").fit(X, Y) for kind in (ww.Stack, StackingClassifier))
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    assert_close(ours.predict_proba(X), theirs.predict_proba(X))
