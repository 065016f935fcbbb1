"""A composite's ``predict(X, **params)`` against scikit-learn's: the parameters reach the model that predicts."""

import numpy as np
import pytest
import sklearn
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_diabetes
from sklearn.ensemble import StackingRegressor
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.linear_model import BayesianRidge, Ridge
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)
X_SMALL, Y_SMALL = X_DATA[:80], Y_DATA[:80] / 100.0  # a Gaussian process on few rows, a target of order 1


def steps(last):
    return [("scale", StandardScaler()), ("last", last)]


@pytest.mark.parametrize(
    ("last", "params"),
    [
        (BayesianRidge(), {"return_std": True}),
        (GaussianProcessRegressor(), {"return_std": True}),
        (GaussianProcessRegressor(), {"return_cov": True}),
        (DecisionTreeRegressor(max_depth=3, random_state=0), {"check_input": True}),
    ],
    ids=["bayesian ridge std", "gaussian process std", "gaussian process cov", "a tree's check_input"],
)
def test_a_pipeline_hands_predict_parameters_to_its_last_step_as_scikit_learn_s(last, params):
    # ww.Pipeline.predict took X only: predict(X, return_std=True) was Python's TypeError ("unexpected keyword
    # argument"), where scikit-learn's Pipeline gives its last step's predict(Xt, return_std=True)
    ours = ww.Pipeline(steps(last)).fit(X_SMALL, Y_SMALL)
    theirs = Pipeline(steps(last)).fit(X_SMALL, Y_SMALL)
    got, expected = ours.predict(X_DATA[80:120], **params), theirs.predict(X_DATA[80:120], **params)
    assert type(got) is type(expected)
    for a, b in zip(got if isinstance(got, tuple) else [got], expected if isinstance(expected, tuple) else [expected]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12 * max(1.0, np.abs(b).max()))
    np.testing.assert_array_equal(ours.predict(X_DATA[80:120]), theirs.predict(X_DATA[80:120]))  # without: unchanged


def test_a_regressor_stack_hands_them_to_its_final_estimator_and_a_target_transform_to_its_regressor():
    learners = [("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]
    ours = ww.Stack(learners, BayesianRidge(), cv=KFold(3)).fit(X_DATA, Y_DATA)
    theirs = StackingRegressor(learners, BayesianRidge(), cv=KFold(3)).fit(X_DATA, Y_DATA)
    for a, b in zip(ours.predict(X_DATA, return_std=True), theirs.predict(X_DATA, return_std=True), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # a parameter that keeps one value goes through the target transformer's inverse, as in scikit-learn's
    tree = DecisionTreeRegressor(max_depth=3, random_state=0)
    mapped = ww.TransformedTarget(tree, StandardScaler()).fit(X_DATA, Y_DATA).predict(X_DATA, check_input=True)
    expected = TransformedTargetRegressor(tree, transformer=StandardScaler()).fit(X_DATA, Y_DATA).predict(X_DATA, check_input=True)
    np.testing.assert_array_equal(mapped, expected)


def test_parameters_no_model_can_take_are_refused():
    ridge = ww.Pipeline(steps(Ridge())).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Pipeline\.predict got return_std=\.\.\. for last \(Ridge\), whose predict takes no return_std"):
        ridge.predict(X_DATA, return_std=True)
    with pytest.raises(TypeError):  # as scikit-learn's Pipeline, whose Ridge refuses it
        ridge.predict(X_DATA, return_std=True)
    # several values cannot go through the target transformer's inverse (scikit-learn's target transform fails on
    # the tuple)
    scaled = ww.Pipeline(steps(BayesianRidge()), target_transformer=StandardScaler()).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"BayesianRidge\)\.predict returns 2 values, but its predict output maps"):
        scaled.predict(X_DATA, return_std=True)
    with pytest.raises(AttributeError, match="'tuple' object has no attribute 'ndim'"):
        TransformedTargetRegressor(BayesianRidge(), transformer=StandardScaler()).fit(X_DATA, Y_DATA).predict(X_DATA, return_std=True)
    # an average's prediction is no one model's (scikit-learn's VotingRegressor.predict takes X only)
    average = ww.Average([("a", BayesianRidge()), ("b", BayesianRidge(alpha_1=1.0))]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Average\.predict got return_std=\.\.\., but its predict output is not one model's"):
        average.predict(X_DATA, return_std=True)


def test_with_metadata_routing_only_what_the_last_step_requests_reaches_it():
    with sklearn.config_context(enable_metadata_routing=True):
        unset = ww.Pipeline(steps(BayesianRidge())).fit(X_DATA, Y_DATA)
        with pytest.raises(ww.UnsetRequestError, match=r"\[return_std\] are passed but are not explicitly set as requested"):
            unset.predict(X_DATA, return_std=True)
        with pytest.raises(ValueError, match=r"\[return_std\] are passed"):  # scikit-learn's own error
            Pipeline(steps(BayesianRidge())).fit(X_DATA, Y_DATA).predict(X_DATA, return_std=True)
        declined = ww.Pipeline(steps(BayesianRidge().set_predict_request(return_std=False))).fit(X_DATA, Y_DATA)
        with pytest.raises(ww.ArgumentError, match=r"not routed to any object\. Request it on last \(BayesianRidge\)"):
            declined.predict(X_DATA, return_std=True)
        requested = ww.Pipeline(steps(BayesianRidge().set_predict_request(return_std=True))).fit(X_DATA, Y_DATA)
        mean, std = requested.predict(X_DATA, return_std=True)
        expected = Pipeline(steps(BayesianRidge().set_predict_request(return_std=True))).fit(X_DATA, Y_DATA)
        np.testing.assert_allclose(std, expected.predict(X_DATA, return_std=True)[1], rtol=1e-12)
        # the pipeline says so to scikit-learn's routers: one of its meta-estimators routes them through it
        outer = Pipeline([("inner", requested)]).fit(X_DATA, Y_DATA)
        np.testing.assert_allclose(outer.predict(X_DATA, return_std=True)[1], std, rtol=0)
