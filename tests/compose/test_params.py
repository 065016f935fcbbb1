"""A composite's ``predict(X, **params)``, ``transform(X, **params)``… against scikit-learn's ``Pipeline``: the
parameters reach the model that gives the output, and with metadata routing on each step that requests them."""

import numpy as np
import pytest
import sklearn
from sklearn.base import RegressorMixin
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.decomposition import PCA
from sklearn.ensemble import StackingRegressor
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.linear_model import BayesianRidge, LogisticRegression, Ridge
from sklearn.model_selection import KFold
from sklearn.neighbors import LocalOutlierFactor
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


# -- the other operations: transform, inverse_transform, decision_function, score ------------------------------------


class ShiftedLogistic(LogisticRegression):
    """A classifier whose decision_function takes metadata (scikit-learn's own take none there)."""

    def decision_function(self, X, shift=0.0):
        return super().decision_function(X) + shift


def _outcome(call):
    """What a call gave: ``("ok", value)`` or ``("error", the exception)``."""
    try:
        return "ok", call()
    except Exception as error:  # compared below, class and message
        return "error", error


def _same_outcome(ours, theirs, case):
    assert ours[0] == theirs[0], (case, ours, theirs)
    if ours[0] == "error":  # scikit-learn's exception class, its message first
        assert isinstance(ours[1], type(theirs[1])) and str(ours[1]).startswith(str(theirs[1])), (case, ours, theirs)
    else:
        np.testing.assert_array_equal(ours[1], theirs[1], err_msg=case)


def _scaler(transform=None, inverse=None):
    scaler = StandardScaler()
    if transform is not None:
        scaler.set_transform_request(copy=transform)
    if inverse is not None:
        scaler.set_inverse_transform_request(copy=inverse)
    return scaler


def test_without_routing_transform_inverse_transform_and_decision_function_refuse_parameters_as_scikit_learn_s():
    X, y = load_breast_cancer(return_X_y=True)
    pairs = [
        (ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(3))]).fit(X), Pipeline([("scale", StandardScaler()), ("pca", PCA(3))]).fit(X)),
        (ww.Pipeline([("scale", StandardScaler()), ("lr", ShiftedLogistic(max_iter=5000))]).fit(X, y),
         Pipeline([("scale", StandardScaler()), ("lr", ShiftedLogistic(max_iter=5000))]).fit(X, y)),
    ]
    for (ours, theirs), method, params in [
        (pairs[0], "transform", {"copy": False}), (pairs[0], "inverse_transform", {"copy": False}),
        (pairs[1], "decision_function", {"shift": 1.0}),
    ]:
        given = X if method != "inverse_transform" else theirs.transform(X)
        with pytest.raises(ValueError) as expected:
            getattr(theirs, method)(given.copy(), **params)
        copied = given.copy()
        with pytest.raises(ww.ParameterError, match="only supported if enable_metadata_routing=True") as got:
            getattr(ours, method)(copied, **params)
        assert str(got.value) == str(expected.value)
        np.testing.assert_array_equal(copied, given)  # nothing ran
    # score_samples takes X alone, as scikit-learn's
    ours = ww.Pipeline([("scale", StandardScaler()), ("lof", LocalOutlierFactor(novelty=True))]).fit(X)
    theirs = Pipeline([("scale", StandardScaler()), ("lof", LocalOutlierFactor(novelty=True))]).fit(X)
    for model in (ours, theirs):
        with pytest.raises(TypeError, match="unexpected keyword argument 'copy'"):
            model.score_samples(X, copy=False)


def test_without_routing_score_refuses_what_scikit_learn_s_ignores():
    ours = ww.Pipeline(steps(Ridge())).fit(X_DATA, Y_DATA)
    theirs = Pipeline(steps(Ridge())).fit(X_DATA, Y_DATA)
    assert theirs.score(X_DATA, Y_DATA, copy=False) == theirs.score(X_DATA, Y_DATA)  # scikit-learn's: dropped
    with pytest.raises(ww.ParameterError, match=r"Pipeline\.score got copy=\.\.\., which it routes .* only with scikit-learn's metadata routing on"):
        ours.score(X_DATA, Y_DATA, copy=False)
    assert ours.score(X_DATA, Y_DATA) == theirs.score(X_DATA, Y_DATA)


@pytest.mark.parametrize("request_", [None, False, True], ids=["unset", "declined", "requested"])
def test_with_routing_transform_and_inverse_transform_reach_each_step_that_requests_them_as_scikit_learn_s(request_):
    # copy=False reaches a scaler's transform only when it requests it: it then scales its input in place, as
    # scikit-learn's Pipeline makes it
    with sklearn.config_context(enable_metadata_routing=True):
        for method, make in [
            ("transform", lambda: [("scale", _scaler(transform=request_)), ("pca", PCA(3))]),
            ("predict", lambda: [("scale", _scaler(transform=request_)), ("ridge", Ridge())]),
            ("inverse_transform", lambda: [("pca", PCA(3)), ("scale", _scaler(inverse=request_))]),
        ]:
            ours, theirs = ww.Pipeline(make()).fit(X_DATA, Y_DATA), Pipeline(make()).fit(X_DATA, Y_DATA)
            given = X_DATA if method != "inverse_transform" else theirs.transform(X_DATA)
            mine, yours = given.copy(), given.copy()
            case = f"{method}, request {request_}"
            _same_outcome(
                _outcome(lambda: getattr(ours, method)(mine, copy=False)),
                _outcome(lambda: getattr(theirs, method)(yours, copy=False)),
                case,
            )
            np.testing.assert_array_equal(mine, yours, err_msg=case)
            assert (request_ is True) == (np.abs(mine - given).max() > 1.0), case  # scaled in place when requested


@pytest.mark.parametrize("request_", [None, False, True], ids=["unset", "declined", "requested"])
def test_with_routing_decision_function_and_score_route_as_scikit_learn_s(request_):
    X, y = load_breast_cancer(return_X_y=True)

    def classifier():
        model = ShiftedLogistic(max_iter=5000)
        return model if request_ is None else model.set_decision_function_request(shift=request_)

    with sklearn.config_context(enable_metadata_routing=True):
        ours = ww.Pipeline([("scale", StandardScaler()), ("lr", classifier())]).fit(X, y)
        theirs = Pipeline([("scale", StandardScaler()), ("lr", classifier())]).fit(X, y)
        _same_outcome(
            _outcome(lambda: ours.decision_function(X, shift=2.5)), _outcome(lambda: theirs.decision_function(X, shift=2.5)),
            f"decision_function, request {request_}",
        )
        if request_:  # shifted
            np.testing.assert_allclose(ours.decision_function(X, shift=2.5) - ours.decision_function(X), 2.5)
        # score: the steps before the last get their transform's requests, as in scikit-learn's
        ours = ww.Pipeline([("scale", _scaler(transform=request_)), ("ridge", Ridge())]).fit(X_DATA, Y_DATA)
        theirs = Pipeline([("scale", _scaler(transform=request_)), ("ridge", Ridge())]).fit(X_DATA, Y_DATA)
        mine, yours = X_DATA.copy(), X_DATA.copy()
        _same_outcome(
            _outcome(lambda: ours.score(mine, Y_DATA, copy=False)), _outcome(lambda: theirs.score(yours, Y_DATA, copy=False)),
            f"score, request {request_}",
        )
        np.testing.assert_array_equal(mine, yours)


def test_with_routing_a_pipeline_says_so_to_scikit_learn_s_routers():
    with sklearn.config_context(enable_metadata_routing=True):
        inner = ww.Pipeline([("scale", _scaler(transform=True)), ("pca", PCA(3))])
        outer = Pipeline([("inner", inner)]).fit(X_DATA)
        expected = Pipeline([("inner", Pipeline([("scale", _scaler(transform=True)), ("pca", PCA(3))]))]).fit(X_DATA)
        mine, yours = X_DATA.copy(), X_DATA.copy()
        np.testing.assert_allclose(outer.transform(mine, copy=False), expected.transform(yours, copy=False), atol=1e-12)
        np.testing.assert_array_equal(mine, yours)  # scaled in place through both
        assert np.abs(mine - X_DATA).max() > 1.0


class Joined(RegressorMixin, ww.Composite):
    """A network that is no chain: the ridge learns the scaled columns beside the raw ones."""

    def __init__(self, scaler=None):
        self.scaler = scaler

    def network(self, X, y=None):
        Z = ww.machine(self.scaler, X, name="scale").transform(X)
        joined = ww.hcat(Z, X)
        return ww.Signature(predict=ww.machine(BayesianRidge(), joined, y, name="ridge").predict(joined), transform=Z)


def test_in_a_network_that_is_no_chain_only_the_model_whose_operation_gives_the_output_gets_them():
    with sklearn.config_context(enable_metadata_routing=True):
        model = Joined(_scaler(transform=True)).fit(X_DATA, Y_DATA)
        mine = X_DATA.copy()
        np.testing.assert_array_equal(model.transform(mine, copy=False), mine)  # transform: the scaler's own output
        assert np.abs(mine - X_DATA).max() > 1.0  # scaled in place: the scaler got copy=False
        with pytest.raises(ww.ArgumentError, match=r"Only the model whose predict gives the output gets parameters here: its input is not computed from X by models alone"):
            model.predict(X_DATA, copy=False)  # the scaler requests it, but feeds the ridge through hcat
    requested = Joined(StandardScaler()).fit(X_DATA, Y_DATA)
    mean, std = requested.predict(X_DATA, return_std=True)  # routing off: the ridge gets them, as before
    np.testing.assert_array_equal(mean, requested.predict(X_DATA))
    assert std.shape == mean.shape and (std > 0).all()
