"""scikit-learn's metadata routing on: each component of a recipe gets the weights exactly when it requests them."""

import itertools
import pickle

import numpy as np
import pytest
import sklearn
from _counting import WeightedCounting
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.cluster import DBSCAN, AgglomerativeClustering, KMeans
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.decomposition import PCA
from sklearn.ensemble import BaggingRegressor, StackingClassifier, StackingRegressor, VotingRegressor
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_validate
from sklearn.neighbors import KNeighborsRegressor, LocalOutlierFactor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)
W_DATA = np.random.RandomState(0).uniform(0.1, 3.0, len(Y_DATA))


@pytest.fixture(autouse=True)
def routing():
    """Metadata routing on for each test, and off again after it, whatever the test did."""
    with sklearn.config_context(enable_metadata_routing=True):
        yield
    assert not sklearn.get_config()["enable_metadata_routing"]


def gap(ours, theirs, method="predict", X=X_DATA):
    return np.abs(getattr(ours, method)(X) - getattr(theirs, method)(X)).max()


def learners(a=False, b=True):
    return [
        ("ridge", Ridge(alpha=0.1).set_fit_request(sample_weight=a)),
        ("tree", DecisionTreeRegressor(max_depth=4, random_state=0).set_fit_request(sample_weight=b)),
    ]


def test_a_stack_weights_exactly_the_learners_that_request_them_as_scikit_learn_s():
    def final_estimator():
        return Ridge().set_fit_request(sample_weight=True)

    everyone = StackingRegressor(learners(True, True), final_estimator(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    for a, b in [(False, True), (True, False), (True, True)]:
        ours = ww.Stack(learners(a, b), final_estimator(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        theirs = StackingRegressor(learners(a, b), final_estimator(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        assert gap(ours, theirs) <= 1e-10
        assert (a, b) == (True, True) or gap(ours, everyone) > 1.0  # a learner's False mattered


def test_a_classifier_stack_routes_as_scikit_learn_s():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(y))

    def parts():
        base = [
            ("lr", LogisticRegression(max_iter=5000).set_fit_request(sample_weight=False)),
            ("tree", DecisionTreeClassifier(max_depth=3, random_state=0).set_fit_request(sample_weight=True)),
        ]
        return base, LogisticRegression(max_iter=5000).set_fit_request(sample_weight=True)

    ours = ww.Stack(*parts(), cv=StratifiedKFold(5)).fit(X, y, sample_weight=w)
    theirs = StackingClassifier(*parts(), cv=StratifiedKFold(5)).fit(X, y, sample_weight=w)
    assert gap(ours, theirs, "predict_proba", X) <= 1e-10


def test_a_learner_that_takes_no_weights_trains_without_them_as_in_scikit_learn():
    def parts():
        return [("knn", KNeighborsRegressor()), ("ridge", Ridge().set_fit_request(sample_weight=True))], Ridge().set_fit_request(sample_weight=True)

    ours = ww.Stack(*parts(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert gap(ours, StackingRegressor(*parts(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)) <= 1e-10


@pytest.mark.parametrize("request_", [True, False, None], ids=["requested", "declined", "unset"])
def test_a_stack_s_final_estimator_gets_the_weights_whatever_its_request_as_scikit_learn_s(request_):
    # scikit-learn 1.9's stacking routes its learners' metadata and hands its final estimator every fit parameter
    def final():
        return Ridge(alpha=3.0) if request_ is None else Ridge(alpha=3.0).set_fit_request(sample_weight=request_)

    ours = ww.Stack(learners(True, True), final(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    theirs = StackingRegressor(learners(True, True), final(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    np.testing.assert_array_equal(ours.predict(X_DATA), theirs.predict(X_DATA))
    counted = WeightedCounting(Ridge(), tag="final")
    ww.Stack(learners(True, True), counted if request_ is None else counted.set_fit_request(sample_weight=request_),
             cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert [tag for tag, _ in WeightedCounting.weights] == ["final"]
    np.testing.assert_array_equal(WeightedCounting.weights[0][1], W_DATA)


def test_a_classifier_stack_s_final_estimator_that_declines_gets_the_weights_as_scikit_learn_s():
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(y))

    def parts():
        base = [("tree", DecisionTreeClassifier(max_depth=3, random_state=0).set_fit_request(sample_weight=True))]
        return base, LogisticRegression(max_iter=5000).set_fit_request(sample_weight=False)

    ours = ww.Stack(*parts(), cv=StratifiedKFold(5)).fit(X, y, sample_weight=w)
    theirs = StackingClassifier(*parts(), cv=StratifiedKFold(5)).fit(X, y, sample_weight=w)
    assert gap(ours, theirs, "predict_proba", X) <= 1e-10


def test_a_stack_refuses_weights_only_its_final_estimator_would_take_as_scikit_learn_s_does():
    def parts():
        return learners(False, False), Ridge().set_fit_request(sample_weight=True)

    with pytest.raises(TypeError, match=r"StackingRegressor.fit got unexpected argument\(s\) \{'sample_weight'\}"):
        StackingRegressor(*parts(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Stack.fit got unexpected argument\(s\) \{'sample_weight'\}, which are not routed"):
        ww.Stack(*parts(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sample_weight'"):  # a final that takes none
        StackingRegressor(learners(True, True), KNeighborsRegressor(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Stack: final_estimator \(KNeighborsRegressor\) takes no sample_weight"):
        ww.Stack(learners(True, True), KNeighborsRegressor(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)


@pytest.mark.parametrize("request_", [None, True, "w"], ids=["unset", "requested", "alias"])
def test_a_stack_refuses_weights_under_an_alias_as_scikit_learn_s_stacking_does(request_):
    # scikit-learn 1.9 would hand the final estimator w= (its fit takes every fit parameter as given); its
    # cross_val_predict already refuses the learner's alias. Training the final estimator unweighted, as a
    # stack did, is an answer scikit-learn never gives.
    def parts():
        final = Ridge(alpha=3.0) if request_ is None else Ridge(alpha=3.0).set_fit_request(sample_weight=request_)
        return [("ridge", Ridge().set_fit_request(sample_weight="w")), ("tree", learners()[1][1])], final

    with pytest.raises(TypeError, match=r"got unexpected argument\(s\) \{'sample_weight'\}"):
        StackingRegressor(*parts(), cv=KFold(3)).fit(X_DATA, Y_DATA, w=W_DATA)
    stack = ww.Stack(*parts(), cv=KFold(3))
    with pytest.raises(ww.ArgumentError, match=r"Stack\.fit got w=\.\.\. \(an alias its learners request for "
                       r"sample_weight\)\. A stack hands its final estimator every fit parameter as given, .*"
                       r"\(final_estimator\.fit\(X_meta, y, w=\.\.\.\)\)"):
        stack.fit(X_DATA, Y_DATA, w=W_DATA)
    assert "network_" not in stack.__dict__  # nothing trained


def test_a_pipeline_weights_the_steps_that_request_them_as_scikit_learn_s():
    for scale in (False, True):
        def steps():
            return [("s", StandardScaler().set_fit_request(sample_weight=scale)), ("r", Ridge().set_fit_request(sample_weight=True))]

        ours = ww.Pipeline(steps()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        theirs = Pipeline(steps()).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
        assert gap(ours, theirs) <= 1e-10
        assert np.array_equal(ours.fitted_params_()["s"].mean_, theirs[0].mean_)
        assert scale or np.array_equal(ours.fitted_params_()["s"].mean_, X_DATA.mean(axis=0))


def test_a_changed_request_rebuilds_the_network():
    pipe = ww.Pipeline([("s", StandardScaler().set_fit_request(sample_weight=False)), ("r", Ridge().set_fit_request(sample_weight=True))])
    before = pipe.fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA)
    pipe.steps[0][1].set_fit_request(sample_weight=True)
    after = pipe.fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA)
    theirs = Pipeline([("s", StandardScaler().set_fit_request(sample_weight=True)), ("r", Ridge().set_fit_request(sample_weight=True))])
    assert np.abs(after - theirs.fit(X_DATA, Y_DATA, sample_weight=W_DATA).predict(X_DATA)).max() <= 1e-10
    assert np.abs(after - before).max() > 1e-6


def test_an_alias_routes_the_weights_as_scikit_learn_s():
    def steps():
        return [("s", StandardScaler().set_fit_request(sample_weight=False)), ("r", Ridge().set_fit_request(sample_weight="w"))]

    ours = ww.Pipeline(steps()).fit(X_DATA, Y_DATA, w=W_DATA)
    theirs = Pipeline(steps()).fit(X_DATA, Y_DATA, w=W_DATA)
    assert gap(ours, theirs) <= 1e-10
    scores = [
        cross_validate(e, X_DATA, Y_DATA, params={"w": W_DATA}, cv=KFold(3), error_score="raise")["test_score"]
        for e in (ww.Pipeline(steps()), Pipeline(steps()))
    ]
    assert np.abs(scores[0] - scores[1]).max() <= 1e-10


def test_average_and_transformed_target_route_an_alias_as_scikit_learn_s():
    def models():
        return [("r", Ridge().set_fit_request(sample_weight="w")), ("s", Ridge(alpha=3.0).set_fit_request(sample_weight=False))]

    assert gap(ww.Average(models()).fit(X_DATA, Y_DATA, w=W_DATA), VotingRegressor(models()).fit(X_DATA, Y_DATA, w=W_DATA)) == 0.0
    ours = ww.TransformedTarget(Ridge().set_fit_request(sample_weight="w"), StandardScaler()).fit(X_DATA, Y_DATA, w=W_DATA)
    theirs = TransformedTargetRegressor(Ridge().set_fit_request(sample_weight="w"), transformer=StandardScaler())
    assert gap(ours, theirs.fit(X_DATA, Y_DATA, w=W_DATA)) <= 1e-10


def test_average_and_transformed_target_route_as_scikit_learn_s():
    ours = ww.Average(learners(False, True)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert gap(ours, VotingRegressor(learners(False, True)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)) <= 1e-10
    ours = ww.TransformedTarget(Ridge().set_fit_request(sample_weight=True), StandardScaler())
    theirs = TransformedTargetRegressor(Ridge().set_fit_request(sample_weight=True), transformer=StandardScaler())
    ours.fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert gap(ours, theirs.fit(X_DATA, Y_DATA, sample_weight=W_DATA)) <= 1e-10


class RowsSeen(RegressorMixin, BaseEstimator):
    """Keeps the rows (column 0 of X holds each row's position) and the weights its fit got."""

    def fit(self, X, y, sample_weight=None):
        self.rows_, self.weights_ = np.asarray(X)[:, 0].astype(int), sample_weight
        return self

    def predict(self, X):
        return np.zeros(len(X))


def _seen(member):
    """The rows a member trained on and their weights, in the order it got them (scikit-learn's: as drawn)."""
    weights = np.ones(len(member.rows_)) if member.weights_ is None else np.asarray(member.weights_, dtype=float)
    return member.rows_, weights, member.weights_ is None


@pytest.mark.parametrize("request_", [None, True, False, "w"], ids=["unset", "requested", "declined", "alias"])
def test_bagging_weights_draw_the_rows_whatever_the_request_as_scikit_learn_s(request_):
    # The weights went to the members, and only if the estimator requested them (an unset request was scikit-learn's
    # error). scikit-learn's bagging takes sample_weight as its own parameter, routing on or off: the draws'
    # probabilities; a member trains on all rows weighted by its draw's counts when the estimator requests
    # sample_weight, on its drawn rows otherwise. Weights under an alias the estimator requests are routed to it
    # instead: the members train on their drawn rows with those weights, the draws unweighted.
    X = np.column_stack([np.arange(len(Y_DATA)), X_DATA[:, :3]])

    def model():
        return RowsSeen() if request_ is None else RowsSeen().set_fit_request(sample_weight=request_)

    given = {"w": W_DATA} if request_ == "w" else {"sample_weight": W_DATA}
    ours = ww.Bagging(model(), n_estimators=3, random_state=0).fit(X, Y_DATA, **given)
    theirs = BaggingRegressor(model(), n_estimators=3, random_state=0).fit(X, Y_DATA, **given)
    for a, b in zip(ours.estimators_, theirs.estimators_, strict=True):
        for mine, expected in zip(_seen(a), _seen(b), strict=True):
            np.testing.assert_array_equal(mine, expected)
        counted = a.weights_ is not None and len(a.rows_) == len(Y_DATA) and (np.asarray(a.weights_) == 0).any()
        assert counted == (request_ is True)  # all rows, the undrawn ones of weight 0
    assert all(np.array_equal(a, b) for a, b in zip(ours.estimators_samples_, theirs.estimators_samples_, strict=True))
    if request_ == "w":
        with pytest.raises(ww.ArgumentError, match=r"got sample_weight and also \['w'\].*Pass one of them"):
            ww.Bagging(model(), n_estimators=3).fit(X, Y_DATA, sample_weight=W_DATA, w=W_DATA)


def test_bagging_members_train_as_the_request_says_when_it_changes_between_fits():
    # how the members train is decided when the network is built: a request changed (or routing switched) must
    # build it again, though no parameter changed
    X = np.column_stack([np.arange(len(Y_DATA)), X_DATA[:, :3]])
    estimator = RowsSeen()
    bag = ww.Bagging(estimator, n_estimators=2, random_state=0).fit(X, Y_DATA)
    assert all(m.weights_ is None for m in bag.estimators_)
    estimator.set_fit_request(sample_weight=True)
    assert all(len(m.weights_) == len(Y_DATA) for m in bag.fit(X, Y_DATA).estimators_)
    with sklearn.config_context(enable_metadata_routing=False):
        assert all(len(m.weights_) == len(Y_DATA) for m in bag.fit(X, Y_DATA).estimators_)  # fit takes them
    average = ww.Average([("a", RowsSeen().set_fit_request(sample_weight=False)), ("b", Ridge().set_fit_request(sample_weight=True))])
    assert average.fit(X, Y_DATA, sample_weight=W_DATA).named_estimators_["a"].weights_ is None


@pytest.mark.parametrize("make_ours, make_theirs", [
    (lambda: ww.Stack([("r", Ridge())], Ridge().set_fit_request(sample_weight=True), cv=3),
     lambda: StackingRegressor([("r", Ridge())], Ridge(), cv=3)),
    (lambda: ww.Pipeline([("s", StandardScaler()), ("r", Ridge().set_fit_request(sample_weight=True))]),
     lambda: Pipeline([("s", StandardScaler()), ("r", Ridge().set_fit_request(sample_weight=True))])),
    (lambda: ww.Average([("r", Ridge())]), lambda: VotingRegressor([("r", Ridge())])),
    (lambda: ww.TransformedTarget(Ridge(), StandardScaler()), lambda: TransformedTargetRegressor(Ridge(), transformer=StandardScaler())),
])
def test_a_component_whose_request_is_unset_is_scikit_learn_s_error(make_ours, make_theirs):
    with pytest.raises(UnsetMetadataPassedError) as theirs:
        make_theirs().fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    ours = make_ours()
    with pytest.raises(ww.UnsetRequestError) as info:
        ours.fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert isinstance(info.value, UnsetMetadataPassedError) and isinstance(info.value, ValueError)
    expected = str(theirs.value)
    for name in ("StackingRegressor", "VotingRegressor", "TransformedTargetRegressor"):
        expected = expected.replace(f"within {name}.fit", f"within {type(ours).__name__}.fit")
    assert str(info.value) == expected
    restored = pickle.loads(pickle.dumps(info.value))
    assert type(restored) is ww.UnsetRequestError and str(restored) == expected
    assert "network_" not in ours.__dict__  # nothing trained


def test_weights_the_network_cannot_take_are_refused_clearly():
    pipe = ww.Pipeline([("s", StandardScaler().set_fit_request(sample_weight="w1")), ("r", Ridge().set_fit_request(sample_weight="w2"))])
    with pytest.raises(ww.ArgumentError, match=r"would get different weights \('w1' for 's', 'w2' for 'r'\)"):
        pipe.fit(X_DATA, Y_DATA, w1=W_DATA, w2=W_DATA + 1.0)
    assert np.array_equal(  # the same weights under two names: one vector
        pipe.fit(X_DATA, Y_DATA, w1=W_DATA, w2=W_DATA).predict(X_DATA),
        Pipeline(pipe.steps).fit(X_DATA, Y_DATA, w1=W_DATA, w2=W_DATA).predict(X_DATA),
    )
    nested = Pipeline([("s", StandardScaler().set_fit_request(sample_weight=False)), ("r", Ridge().set_fit_request(sample_weight="w"))])
    stack = ww.Stack([("inner", nested), ("r", Ridge().set_fit_request(sample_weight=True))], Ridge(), cv=3)
    with pytest.raises(ww.ArgumentError, match=r"the metadata routed to 'inner' includes \['w'\]"):
        stack.fit(X_DATA, Y_DATA, sample_weight=W_DATA, w=W_DATA)
    with pytest.raises(ww.ArgumentError, match=r"Pipeline.fit got unexpected argument\(s\) \{'groups'\}"):
        ww.Pipeline([("r", Ridge().set_fit_request(sample_weight=True))]).fit(X_DATA, Y_DATA, sample_weight=W_DATA, groups=W_DATA)


def test_a_nested_scikit_learn_pipeline_gets_the_weights_its_steps_request():
    def inner():
        return Pipeline([("s", StandardScaler().set_fit_request(sample_weight=False)), ("r", Ridge().set_fit_request(sample_weight=True))])

    def final():
        return Ridge().set_fit_request(sample_weight=True)

    ours = ww.Stack([("p", inner())], final(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)
    assert gap(ours, StackingRegressor([("p", inner())], final(), cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA)) <= 1e-10


def test_the_routing_describes_the_components_for_a_grid_search():
    assert not hasattr(ww.Pipeline([("r", Ridge())]), "set_fit_request")  # as scikit-learn's Pipeline: its steps request
    routing = ww.Stack(learners(), Ridge().set_fit_request(sample_weight=False)).get_metadata_routing()
    assert routing.consumes("fit", ["sample_weight"]) == {"sample_weight"}
    theirs = StackingRegressor(learners(), Ridge().set_fit_request(sample_weight=False)).get_metadata_routing()
    final = "'final_estimator_': {'mapping': [{'caller': 'predict', 'callee': 'predict'}]"  # not reached by fit
    assert final in str(routing) and final in str(theirs)

    def steps():
        ridge = Ridge().set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
        return [("s", StandardScaler().set_fit_request(sample_weight=True)), ("r", ridge)]

    ours, theirs = ww.Pipeline(steps()), Pipeline(steps())  # Pipeline.score is its last step's: it requests them
    grid = {"r__alpha": [0.1, 10.0]}
    searched = [GridSearchCV(e, grid, cv=KFold(3)).fit(X_DATA, Y_DATA, sample_weight=W_DATA) for e in (ours, theirs)]
    assert np.abs(searched[0].cv_results_["mean_test_score"] - searched[1].cv_results_["mean_test_score"]).max() <= 1e-10


def _outcome(call):
    """What a call gave: ``("ok", value)`` or ``("error", the exception)``."""
    try:
        return "ok", call()
    except Exception as error:  # compared below, class and message
        return "error", error


def _requested(model, request):
    return model if request is None else model.set_fit_request(sample_weight=request)


@pytest.mark.parametrize("last", [
    DBSCAN(eps=0.8), LocalOutlierFactor(n_neighbors=10), AgglomerativeClustering(3), KMeans(3, n_init=2, random_state=0),
], ids=lambda last: type(last).__name__)
def test_a_pipeline_ending_in_a_labeller_routes_its_fits_as_scikit_learn_s(last):
    X, _ = load_iris(return_X_y=True)
    weights = np.random.RandomState(0).uniform(0.1, 3.0, len(X))
    requests = [None, False, True] if hasattr(last, "set_fit_request") else [None]
    for scale, labeller, method in itertools.product([None, False, True], requests, ["fit_predict", "fit"]):
        def steps():
            return [("scale", _requested(StandardScaler(), scale)), ("last", _requested(clone(last), labeller))]

        ours = _outcome(lambda: getattr(ww.Pipeline(steps()), method)(X, sample_weight=weights))
        theirs = _outcome(lambda: getattr(Pipeline(steps()), method)(X, sample_weight=weights))
        case = f"scale {scale}, last {labeller}, {method}"
        assert ours[0] == theirs[0], (case, ours, theirs)
        if ours[0] == "error":  # scikit-learn's exception, its message first ("... within Pipeline.fit_predict")
            assert isinstance(ours[1], type(theirs[1])) and str(ours[1]).startswith(str(theirs[1])), case
        elif method == "fit_predict":
            np.testing.assert_array_equal(ours[1], theirs[1], err_msg=case)
        else:
            np.testing.assert_array_equal(ours[1].fit_predict(X, sample_weight=weights), theirs[1].fit_predict(X, sample_weight=weights))


def test_a_transformer_pipeline_routes_fit_transform_as_scikit_learn_s():
    for scale in (None, False, True):
        def steps():
            return [("scale", _requested(StandardScaler(), scale)), ("pca", PCA(3))]

        ours = _outcome(lambda: ww.Pipeline(steps()).fit_transform(X_DATA, sample_weight=W_DATA))
        theirs = _outcome(lambda: Pipeline(steps()).fit_transform(X_DATA, sample_weight=W_DATA))
        assert ours[0] == theirs[0]
        if ours[0] == "error":  # unset: "... StandardScaler.fit_transform, which is used within Pipeline.fit_transform"
            assert isinstance(ours[1], type(theirs[1])) and str(ours[1]).startswith(str(theirs[1]))
        else:
            np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=1e-10)


def _scorer(model, request):
    return model if request is None else model.set_score_request(sample_weight=request)


@pytest.mark.parametrize("last", [Ridge(), KMeans(3, n_init=1, random_state=0)], ids=["Ridge", "KMeans"])
def test_a_pipeline_routes_the_weights_of_its_score_to_its_last_step_as_scikit_learn_s(last):
    # scikit-learn's Pipeline.score hands sample_weight to its last step's score when that requests them, and raises
    # when the request is unset or declined; the pipeline's own set_score_request does nothing there
    for request, weighted in itertools.product([None, False, True], [False, True]):
        def steps():
            return [("s", StandardScaler()), ("last", _scorer(clone(last), request))]

        ours, theirs = ww.Pipeline(steps()).fit(X_DATA, Y_DATA), Pipeline(steps()).fit(X_DATA, Y_DATA)
        ours.set_score_request(sample_weight=not request)  # not read: as scikit-learn's Pipeline's own request
        weights = {"sample_weight": W_DATA} if weighted else {}
        case = f"score request {request}, weighted {weighted}"
        mine = _outcome(lambda: ours.score(X_DATA, Y_DATA, **weights))
        if request is False and not weighted:  # scikit-learn 1.9.1 routes sample_weight=None and refuses it
            with pytest.raises(TypeError, match=r"Pipeline.score got unexpected argument\(s\) \{'sample_weight'\}"):
                theirs.score(X_DATA, Y_DATA)
            with sklearn.config_context(enable_metadata_routing=False):
                assert mine == ("ok", theirs.score(X_DATA, Y_DATA)), case  # declined: unweighted
            continue
        yours = _outcome(lambda: theirs.score(X_DATA, Y_DATA, **weights))
        assert mine[0] == yours[0], (case, mine, yours)
        if mine[0] == "error":  # scikit-learn's exception, its message first
            assert isinstance(mine[1], type(yours[1])) and str(mine[1]).startswith(str(yours[1])), (case, mine, yours)
            assert isinstance(mine[1], ww.WireworkError), case
        else:
            assert mine[1] == pytest.approx(yours[1], rel=1e-12), case
    with sklearn.config_context(enable_metadata_routing=False):  # off: the last step's score gets them, unasked
        ours = ww.Pipeline([("s", StandardScaler()), ("last", clone(last))]).fit(X_DATA, Y_DATA)
        theirs = Pipeline([("s", StandardScaler()), ("last", clone(last))]).fit(X_DATA, Y_DATA)
        assert ours.score(X_DATA, Y_DATA, sample_weight=W_DATA) == pytest.approx(
            theirs.score(X_DATA, Y_DATA, sample_weight=W_DATA), rel=1e-12
        )
        assert ours.score(X_DATA, Y_DATA, sample_weight=W_DATA) != ours.score(X_DATA, Y_DATA)


def test_a_declined_score_request_names_only_the_models_that_can_request_the_weights():
    ours = ww.Pipeline([("s", StandardScaler()), ("r", _scorer(Ridge(), False))]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"not routed to any object\. Request it on r \(Ridge\): "
                       r"set_score_request\(sample_weight=True\); or call score\(X, y\) without it\.$"):
        ours.score(X_DATA, Y_DATA, sample_weight=W_DATA)  # the scaler's set_transform_request takes copy only


def test_a_pipeline_s_routing_declares_its_score_as_scikit_learn_s():
    def steps():
        return [("s", StandardScaler()), ("r", _scorer(Ridge(), True))]

    ours, theirs = ww.Pipeline(steps()).get_metadata_routing(), Pipeline(steps()).get_metadata_routing()
    for routing in (ours, theirs):
        assert routing.consumes("score", ["sample_weight"]) == {"sample_weight"}  # the ridge's request
        assert "$self_request" not in routing._serialize()
    score = {"caller": "score", "callee": "score"}
    assert score in ours._serialize()["r"]["mapping"] and score in theirs._serialize()["r"]["mapping"]
    unset = ww.Pipeline([("s", StandardScaler()), ("r", Ridge())]).set_score_request(sample_weight=True)
    assert unset.get_metadata_routing().consumes("score", ["sample_weight"]) == set()  # its own request: not read
    # with a target transformer the pipeline's score is its R², weighed by its own request, and reaches no step
    transformed = ww.Pipeline(steps(), target_transformer=StandardScaler()).set_score_request(sample_weight=True)
    serialized = transformed.get_metadata_routing()._serialize()
    assert serialized["$self_request"] == {"score": {"sample_weight": True}}
    assert not any(m["caller"] == "score" for name in ("s", "r") for m in serialized[name]["mapping"])


def test_a_grid_search_scores_a_pipeline_by_its_last_step_s_request_as_scikit_learn_s():
    grid = {"r__alpha": [0.1, 10.0]}
    for fit, score in [(True, True), (True, None), (False, True), (True, False)]:
        def steps():
            ridge = _scorer(Ridge().set_fit_request(sample_weight=fit), score)
            return [("s", StandardScaler().set_fit_request(sample_weight=False)), ("r", ridge)]

        mine = _outcome(lambda: GridSearchCV(ww.Pipeline(steps()), grid, cv=KFold(3), error_score="raise").fit(
            X_DATA, Y_DATA, sample_weight=W_DATA).cv_results_["mean_test_score"])
        case = f"fit request {fit}, score request {score}"
        if score is False:  # scikit-learn's Pipeline.score then refuses sample_weight=None: computed by hand
            expected = []
            for alpha in grid["r__alpha"]:
                scores = []
                for train, test in KFold(3).split(X_DATA):
                    pipe = Pipeline(steps()).set_params(r__alpha=alpha).fit(X_DATA[train], Y_DATA[train], sample_weight=W_DATA[train])
                    with sklearn.config_context(enable_metadata_routing=False):
                        scores.append(pipe.score(X_DATA[test], Y_DATA[test]))  # unweighted
                expected.append(np.mean(scores))
            yours = ("ok", np.array(expected))
        else:
            yours = _outcome(lambda: GridSearchCV(Pipeline(steps()), grid, cv=KFold(3), error_score="raise").fit(
                X_DATA, Y_DATA, sample_weight=W_DATA).cv_results_["mean_test_score"])
        assert mine[0] == yours[0], (case, mine, yours)
        if mine[0] == "error":
            assert isinstance(mine[1], type(yours[1])) and str(mine[1]).startswith(str(yours[1])), (case, mine, yours)
        else:
            np.testing.assert_allclose(mine[1], yours[1], rtol=0, atol=1e-10, err_msg=case)
