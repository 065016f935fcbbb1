"""Several targets (a 2-D y): taken where scikit-learn's peer takes them, refused with its message elsewhere."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_diabetes, load_linnerud
from sklearn.ensemble import BaggingRegressor
from sklearn.exceptions import DataConversionWarning
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import Pipeline as SkPipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import get_tags

import wirework as ww

# Linnerud: three exercise counts predict three physiological measurements, a real multi-target set.
X_FIT, Y_FIT = load_linnerud(return_X_y=True)
X_DIA, Y_DIA = load_diabetes(return_X_y=True)
LABELS = np.c_[Y_DIA > 140, Y_DIA > 200].astype(int)  # two binary targets (multilabel)


def steps(last):
    return [("scale", StandardScaler()), ("last", last)]


def test_pipeline_learns_several_targets_as_scikit_learn_s():
    ours = ww.Pipeline(steps(Ridge(alpha=2.0))).fit(X_FIT, Y_FIT)
    theirs = SkPipeline(steps(Ridge(alpha=2.0))).fit(X_FIT, Y_FIT)
    assert ours.predict(X_FIT).shape == (20, 3)
    assert np.array_equal(ours.predict(X_FIT), theirs.predict(X_FIT))


def test_multilabel_classifier_pipeline_equals_scikit_learn_s():
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    ours = ww.Pipeline(steps(tree)).fit(X_DIA, LABELS)
    theirs = SkPipeline(steps(tree)).fit(X_DIA, LABELS)
    assert np.array_equal(ours.predict(X_DIA), theirs.predict(X_DIA))
    for mine, reference in zip(ours.predict_proba(X_DIA), theirs.predict_proba(X_DIA), strict=True):
        assert np.array_equal(mine, reference)
    assert [list(c) for c in ours.classes_] == [list(c) for c in theirs.classes_] == [[0, 1], [0, 1]]


def test_the_tag_follows_the_model_that_learns_the_target_as_scikit_learn_s():
    for last in (Ridge(), LogisticRegression(), DecisionTreeClassifier()):
        assert get_tags(ww.Pipeline(steps(last))).target_tags.multi_output is get_tags(SkPipeline(steps(last))).target_tags.multi_output
    assert get_tags(ww.Pipeline(steps(Ridge()))).target_tags.multi_output is True
    assert get_tags(ww.Pipeline(steps(LogisticRegression()))).target_tags.multi_output is False
    for regressor in (Ridge(), DecisionTreeRegressor()):
        assert get_tags(ww.TransformedTarget(regressor, StandardScaler())).target_tags.multi_output is True
    assert get_tags(ww.Stack([("r", Ridge())], Ridge())).target_tags.multi_output is False


def test_a_single_target_model_still_gets_a_column_y_as_scikit_learn_gives_it():
    column = (Y_DIA > 140).astype(int)[:, None]
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        ours = ww.Pipeline(steps(LogisticRegression())).fit(X_DIA, column)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        theirs = SkPipeline(steps(LogisticRegression())).fit(X_DIA, column)
    assert np.array_equal(ours.predict_proba(X_DIA), theirs.predict_proba(X_DIA))


class NamedTargets(RegressorMixin, BaseEstimator):
    """A ridge that names its predictions' columns after the targets it learned (a DataFrame's)."""

    def fit(self, X, y):
        self.targets_ = list(getattr(y, "columns", []))
        self.ridge_ = Ridge().fit(X, y)
        return self

    def predict(self, X):
        return pd.DataFrame(self.ridge_.predict(X), columns=self.targets_ or None)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


def test_several_targets_in_a_dataframe_reach_the_last_step_as_scikit_learn_s_pipeline_hands_them():
    X, Y = load_linnerud(return_X_y=True, as_frame=True)
    ours = ww.Pipeline(steps(NamedTargets())).fit(X, Y)
    theirs = SkPipeline(steps(NamedTargets())).fit(X, Y)
    assert ours.fitted_params_()["last"].targets_ == theirs[-1].targets_ == ["Weight", "Waist", "Pulse"]
    pd.testing.assert_frame_equal(ours.predict(X), theirs.predict(X))


def test_transformed_target_learns_several_targets_and_keeps_a_column_target_2d():
    ours = ww.TransformedTarget(Ridge(), StandardScaler()).fit(X_FIT, Y_FIT)
    theirs = TransformedTargetRegressor(Ridge(), transformer=StandardScaler()).fit(X_FIT, Y_FIT)
    assert np.array_equal(ours.predict(X_FIT), theirs.predict(X_FIT))
    # Ridge predicts one target as a 1-D array; the transformer learned a column, so it gets one back, and the
    # predictions keep the target's shape (n, 1), as scikit-learn's.
    column = Y_DIA[:, None]
    ours = ww.TransformedTarget(Ridge(), StandardScaler()).fit(X_DIA, column)
    theirs = TransformedTargetRegressor(Ridge(), transformer=StandardScaler()).fit(X_DIA, column)
    assert ours.predict(X_DIA).shape == theirs.predict(X_DIA).shape == (442, 1)
    assert np.array_equal(ours.predict(X_DIA), theirs.predict(X_DIA))


def test_bagging_averages_several_targets():
    for estimator in (Ridge(), DecisionTreeRegressor(max_depth=4)):
        bag = ww.Bagging(estimator, n_estimators=4, random_state=0).fit(X_FIT, Y_FIT)
        members = np.mean([member.predict(X_FIT) for member in bag.estimators_], axis=0)
        assert bag.predict(X_FIT).shape == (20, 3)
        assert np.array_equal(bag.predict(X_FIT), members)


def test_bagging_takes_a_column_target_as_one_target_with_scikit_learn_s_warning():
    # BaggingRegressor ravels a column y (warning), so its predictions are 1-D even where the members would keep
    # the column (k-neighbours, a linear regression predict (n, 1) for an (n, 1) target)
    frame = load_diabetes(as_frame=True).frame
    for estimator in (KNeighborsRegressor(), LinearRegression()):
        one = ww.Bagging(estimator, n_estimators=3, random_state=0).fit(X_DIA, Y_DIA)
        for column in (Y_DIA[:, None], frame[["target"]]):
            with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
                bag = ww.Bagging(estimator, n_estimators=3, random_state=0).fit(X_DIA, column)
            with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
                theirs = BaggingRegressor(estimator, n_estimators=3, random_state=0).fit(X_DIA, column)
            assert bag.predict(X_DIA).shape == theirs.predict(X_DIA).shape == (442,)
            np.testing.assert_array_equal(bag.predict(X_DIA), one.predict(X_DIA))


@pytest.mark.parametrize(
    "model",
    [
        ww.Stack([("r", Ridge()), ("l", LinearRegression())], Ridge(), cv=3),
        ww.Average([("r", Ridge()), ("l", LinearRegression())]),
        ww.Bagging(DecisionTreeClassifier(), n_estimators=2),
        ww.Pipeline(steps(LogisticRegression())),
    ],
    ids=["Stack", "Average", "classifier Bagging", "Pipeline ending in LogisticRegression"],
)
def test_recipes_whose_peer_takes_one_target_refuse_several_with_its_message(model):
    y = LABELS if isinstance(model, (ww.Pipeline, ww.Bagging)) else Y_FIT
    X = X_DIA if y is LABELS else X_FIT
    with pytest.raises(ww.DataError, match=r"fit cannot use the data it received: y should be a 1d array, got an array of shape \(\d+, \d\)"):
        model.fit(X, y)


def test_a_sparse_multi_target_is_refused_as_scikit_learn_refuses_a_sparse_y():
    with pytest.raises(ww.ArgumentError, match="Sparse data was passed for y, but dense data is required") as info:
        ww.Pipeline(steps(Ridge())).fit(X_FIT, sp.csr_matrix(Y_FIT))
    assert isinstance(info.value, TypeError)


def test_changing_the_last_step_retrains_it_alone_with_several_targets():
    pipe = ww.Pipeline(steps(Ridge(alpha=1.0))).fit(X_FIT, Y_FIT)
    pipe.set_params(last__alpha=5.0).fit(X_FIT, Y_FIT)
    actions = {name: report["action"] for name, report in pipe.report_()["machines"].items()}
    assert actions == {"scale": "skipped", "last": "updated"}
    assert np.array_equal(pipe.predict(X_FIT), SkPipeline(steps(Ridge(alpha=5.0))).fit(X_FIT, Y_FIT).predict(X_FIT))


class Targets(RegressorMixin, ww.Composite):
    """A user-defined composite that says, in its tags, that it learns several targets."""

    def __init__(self, regressor=None, several=True):
        self.regressor = regressor
        self.several = several

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = self.several
        return tags

    def network(self, X, y=None):
        return ww.Signature(predict=ww.machine(self.regressor, X, y, name="regress").predict(X))


def test_a_user_composite_takes_several_targets_when_its_tags_say_so():
    ours = Targets(Ridge()).fit(X_FIT, Y_FIT)
    assert np.array_equal(ours.predict(X_FIT), Ridge().fit(X_FIT, Y_FIT).predict(X_FIT))
    with pytest.raises(ww.DataError, match="y should be a 1d array"):
        Targets(Ridge(), several=False).fit(X_FIT, Y_FIT)
