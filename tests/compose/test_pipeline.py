"""ww.Pipeline and ww.TransformedTarget against scikit-learn, and their smart refits."""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from _counting import Counting, calls, fits
from _probes import ColumnRidge
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.compose import TransformedTargetRegressor
from sklearn.cluster import DBSCAN, AgglomerativeClustering, KMeans, SpectralClustering
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris
from sklearn.decomposition import NMF, PCA
from sklearn.ensemble import IsolationForest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.feature_selection import SelectKBest, f_regression
from sklearn.linear_model import Lasso, LogisticRegression, Ridge, SGDClassifier
from sklearn.mixture import GaussianMixture
from sklearn.manifold import TSNE
from sklearn.neighbors import KernelDensity, LocalOutlierFactor
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline as SkPipeline
from sklearn.preprocessing import MinMaxScaler, PowerTransformer, QuantileTransformer, StandardScaler, TargetEncoder
from sklearn.utils import all_estimators, get_tags
from sklearn.utils.fixes import parse_version

import wirework as ww
from wirework.compose.pipeline import _kind_of

X_DATA, Y_DATA = load_diabetes(return_X_y=True)


def test_pipeline_with_supervised_transformer_equals_scikit_learn():
    steps = [("scale", StandardScaler()), ("select", SelectKBest(f_regression, k=4)), ("ridge", Ridge(alpha=0.7))]
    ours = ww.Pipeline(steps).fit(X_DATA, Y_DATA)
    theirs = SkPipeline(steps).fit(X_DATA, Y_DATA)
    assert np.array_equal(ours.predict(X_DATA), theirs.predict(X_DATA))
    assert repr(ours.network_["predict"]) == "predict(ridge, transform(select, transform(scale, X)))"


def test_classifier_pipeline_offers_probabilities():
    X, y = load_iris(return_X_y=True)
    ours = ww.Pipeline([("scale", StandardScaler()), ("lr", LogisticRegression())]).fit(X, y)
    theirs = SkPipeline([("scale", StandardScaler()), ("lr", LogisticRegression())]).fit(X, y)
    assert np.allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)
    assert list(ours.classes_) == [0, 1, 2]


def test_transformer_pipeline_transforms_and_inverts():
    pipe = ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(n_components=10))]).fit(X_DATA)
    Z = pipe.transform(X_DATA)
    assert np.allclose(pipe.inverse_transform(Z), X_DATA, atol=1e-10)
    assert np.allclose(pipe.fit_transform(X_DATA), Z)


def test_passthrough_steps_are_skipped():
    pipe = ww.Pipeline([("scale", "passthrough"), ("none", None), ("ridge", Ridge())]).fit(X_DATA, Y_DATA)
    assert np.allclose(pipe.predict(X_DATA), Ridge().fit(X_DATA, Y_DATA).predict(X_DATA))
    assert [m.name for m in pipe.machines_] == ["ridge"]


def test_a_pipeline_whose_steps_are_all_skipped_is_scikit_learn_s_identity_transformer():
    steps = [("scale", "passthrough"), ("none", None)]
    ours, theirs = ww.Pipeline(steps).fit(X_DATA, Y_DATA), SkPipeline(steps).fit(X_DATA, Y_DATA)
    operations = ("predict", "predict_proba", "decision_function", "score_samples", "score", "fit_predict",
                  "transform", "fit_transform", "inverse_transform")
    offered = [op for op in operations if hasattr(theirs, op)]
    assert offered == ["transform", "fit_transform", "inverse_transform"]
    assert [op for op in operations if hasattr(ours, op)] == offered
    for operation in ("transform", "inverse_transform"):
        np.testing.assert_array_equal(getattr(ours, operation)(X_DATA), getattr(theirs, operation)(X_DATA))
    np.testing.assert_array_equal(ww.Pipeline(steps).fit_transform(X_DATA), SkPipeline(steps).fit_transform(X_DATA))
    assert ours.machines_ == [] and ours.report_() == {"machines": {}}  # nothing trains
    assert ours.__sklearn_tags__().estimator_type is None is theirs.__sklearn_tags__().estimator_type
    frame = pd.DataFrame(X_DATA, columns=[f"c{k}" for k in range(X_DATA.shape[1])])
    pd.testing.assert_frame_equal(ww.Pipeline(steps).fit(frame).transform(frame), SkPipeline(steps).fit(frame).transform(frame))
    assert list(ww.Pipeline(steps).fit(frame).get_feature_names_out()) == list(frame.columns)


def test_a_pipeline_whose_steps_are_all_skipped_refuses_what_nothing_would_use():
    with pytest.raises(ww.ArgumentError, match=r"no step takes sample_weight in fit \(every step is 'passthrough' or None\)"):
        ww.Pipeline([("a", "passthrough")]).fit(X_DATA, Y_DATA, sample_weight=np.ones(len(Y_DATA)))
    with pytest.raises(ww.GraphError, match="every step is 'passthrough' or None, so nothing predicts the target"):
        ww.Pipeline([("a", "passthrough")], target_transformer=StandardScaler()).fit(X_DATA, Y_DATA)


def test_skipped_steps_set_to_estimators_and_back_train_only_what_changed():
    pipe = ww.Pipeline([("scale", "passthrough"), ("pca", None)]).fit(X_DATA)
    pipe.set_params(scale=Counting(StandardScaler(), tag="scale")).fit(X_DATA)
    assert fits() == ["scale"]
    pipe.set_params(pca=Counting(PCA(3), tag="pca")).fit(X_DATA)
    assert fits() == ["scale", "pca"]  # the scaler kept its training
    theirs = SkPipeline([("scale", StandardScaler()), ("pca", PCA(3))]).fit(X_DATA)
    np.testing.assert_allclose(pipe.transform(X_DATA), theirs.transform(X_DATA), rtol=0, atol=1e-12)
    pipe.set_params(pca="passthrough").fit(X_DATA)
    pipe.set_params(scale=None).fit(X_DATA)
    assert fits() == ["scale", "pca"] and pipe.machines_ == []
    np.testing.assert_array_equal(pipe.transform(X_DATA), X_DATA)


def test_target_transformer_equals_transformed_target_regressor():
    transformer = QuantileTransformer(n_quantiles=50, output_distribution="normal")
    ours = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())], target_transformer=transformer)
    theirs = TransformedTargetRegressor(SkPipeline([("scale", StandardScaler()), ("ridge", Ridge())]), transformer=transformer)
    assert np.allclose(ours.fit(X_DATA, Y_DATA).predict(X_DATA), theirs.fit(X_DATA, Y_DATA).predict(X_DATA), atol=1e-9)
    for target in (StandardScaler(), PowerTransformer(), PowerTransformer(method="box-cox")):
        # PowerTransformer trains by its own fit_transform here; scikit-learn fits, then transforms: the same values
        tt = ww.TransformedTarget(Ridge(), target).fit(X_DATA, Y_DATA)
        reference = TransformedTargetRegressor(Ridge(), transformer=target).fit(X_DATA, Y_DATA)
        assert np.array_equal(tt.predict(X_DATA), reference.predict(X_DATA))


def test_changing_the_last_step_refits_it_alone_without_recomputing_transforms():
    pipe = ww.Pipeline(
        [("scale", Counting(StandardScaler(), tag="scale")), ("pca", Counting(PCA(5), tag="pca")),
         ("ridge", Counting(Ridge(), tag="ridge"))]
    ).fit(X_DATA, Y_DATA)
    Counting.events.clear()
    pipe.set_params(ridge__estimator__alpha=2.0).fit(X_DATA, Y_DATA)
    assert Counting.events == [("ridge", "fit")]
    Counting.events.clear()
    pipe.set_params(pca__estimator__n_components=3).fit(X_DATA, Y_DATA)
    assert fits() == ["pca", "ridge"]


def _encoded_diabetes():
    """The diabetes data with age and bmi as string bands (30 and 12 levels) and two numbers: a target
    encoder's data."""
    frame = load_diabetes(as_frame=True).frame
    X = pd.DataFrame({
        "age": pd.qcut(frame["age"], 30, duplicates="drop").astype(str),
        "bmi": pd.qcut(frame["bmi"], 12).astype(str),
        "bp": frame["bp"],
        "s5": frame["s5"],
    })
    return X, frame["target"].to_numpy()


def _target_encoder():
    if parse_version(sklearn.__version__) >= parse_version("1.9"):
        return TargetEncoder(target_type="continuous", cv=KFold(5, shuffle=True, random_state=0))
    return TargetEncoder(target_type="continuous", shuffle=True, random_state=0)


def test_a_step_that_cross_fits_trains_the_next_on_its_fit_transform_as_scikit_learn():
    """TargetEncoder's fit_transform gives out-of-fold encodings, its transform the leaky full-data ones:
    the next step must learn from the first, as in scikit-learn's Pipeline."""
    X, y = _encoded_diabetes()
    steps = [("encode", ColumnTransformer([("te", _target_encoder(), ["age", "bmi"])], remainder="passthrough")),
             ("ridge", Ridge(alpha=0.1))]
    ours, theirs = ww.Pipeline(steps).fit(X, y), SkPipeline(steps).fit(X, y)
    coef = theirs[-1].coef_
    assert np.array_equal(ours.fitted_params_()["ridge"].coef_, coef)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    encoder = clone(steps[0][1]).fit(X, y)
    leaky = Ridge(alpha=0.1).fit(encoder.transform(X), y).coef_  # what training on transform() learns
    assert np.abs(leaky - coef).max() > 0.1
    Counting.events.clear()
    ours.set_params(ridge__alpha=3.0).fit(X, y)
    theirs.set_params(ridge__alpha=3.0).fit(X, y)
    assert [report["action"] for report in ours.report_()["machines"].values()] == ["skipped", "updated"]
    assert np.array_equal(ours.predict(X), theirs.predict(X))


def test_steps_with_their_own_fit_transform_give_scikit_learn_s_pipeline():
    """PCA's fit_transform rounds otherwise than its transform: bit for bit only from the same one. NMF's
    returns the factor it learned, which its transform only approximates (predictions 0.08 apart); NMF
    itself differs run to run in the last digits (BLAS), so: to 1e-9."""
    steps = [("first", StandardScaler()), ("middle", PCA(5)), ("ridge", Ridge())]
    assert np.array_equal(
        ww.Pipeline(steps).fit(X_DATA, Y_DATA).predict(X_DATA), SkPipeline(steps).fit(X_DATA, Y_DATA).predict(X_DATA)
    )
    X = np.abs(X_DATA)
    steps = [("first", MinMaxScaler()), ("middle", NMF(3, init="nndsvda", max_iter=500)), ("ridge", Ridge())]
    ours, theirs = ww.Pipeline(steps).fit(X, Y_DATA).predict(X), SkPipeline(steps).fit(X, Y_DATA).predict(X)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


def test_fit_transform_gives_the_training_output_as_scikit_learn_s_pipeline():
    X, y = _encoded_diabetes()
    steps = [("scale", ColumnTransformer([("te", _target_encoder(), ["age", "bmi"])], remainder="passthrough"))]
    theirs = SkPipeline(steps).fit_transform(X, y)
    ours = ww.Pipeline(steps).fit_transform(X, y)
    assert np.array_equal(ours, theirs)
    assert not np.array_equal(ww.Pipeline(steps).fit(X, y).transform(X), theirs)  # new data: transform
    framed = ww.Pipeline(steps).set_output(transform="pandas").fit_transform(X.set_axis(X.index + 7), y)
    assert isinstance(framed, pd.DataFrame) and np.array_equal(framed.to_numpy(), theirs)
    assert list(framed.index) == list(X.index + 7)


def test_a_cross_fitting_step_tunes_and_nests_as_in_scikit_learn():
    """GridSearchCV with a fit cache (each split's encoder found with its output) and a ww.Pipeline as a step
    of scikit-learn's Pipeline (which calls its fit_transform) give scikit-learn's numbers exactly."""
    X, y = _encoded_diabetes()

    def encode():
        return ColumnTransformer([("te", _target_encoder(), ["age", "bmi"])], remainder="passthrough")

    grid = {"ridge__alpha": [0.1, 1.0, 10.0]}
    cache = ww.FitCache()
    ours = GridSearchCV(ww.Pipeline([("encode", encode()), ("ridge", Ridge())], cache=cache), grid, cv=KFold(3))
    theirs = GridSearchCV(SkPipeline([("encode", encode()), ("ridge", Ridge())]), grid, cv=KFold(3))
    ours.fit(X, y)
    theirs.fit(X, y)
    assert np.array_equal(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])
    assert cache.hits >= 6  # each split's encoder, for the second and third alpha
    nested = SkPipeline([("inner", ww.Pipeline([("encode", encode())])), ("ridge", Ridge())]).fit(X, y)
    flat = SkPipeline([("encode", encode()), ("ridge", Ridge())]).fit(X, y)
    assert np.array_equal(nested[-1].coef_, flat[-1].coef_)


def test_replacing_a_step_by_name_reuses_the_rest():
    pipe = ww.Pipeline([("scale", Counting(StandardScaler(), tag="scale")), ("model", Counting(Ridge(), tag="ridge"))])
    pipe.fit(X_DATA, Y_DATA)
    Counting.events.clear()
    pipe.set_params(model=Counting(Ridge(alpha=3.0), tag="ridge3")).fit(X_DATA, Y_DATA)
    assert fits() == ["ridge3"]
    assert pipe.get_params()["model__estimator__alpha"] == 3.0


def test_steps_edited_in_place_are_seen_by_the_next_fit():
    def counted(model, tag):
        return Counting(model, tag=tag)

    pipe = ww.Pipeline([("scale", counted(StandardScaler(), "scale")), ("ridge", counted(Ridge(), "ridge"))])
    pipe.fit(X_DATA, Y_DATA)
    Counting.events.clear()
    pipe.fit(X_DATA, Y_DATA)
    assert fits() == []
    pipe.steps[1] = ("ridge", counted(Lasso(alpha=0.1), "lasso"))  # the same list, another step
    pipe.fit(X_DATA, Y_DATA)
    assert fits() == ["lasso"]
    reference = SkPipeline([("scale", StandardScaler()), ("ridge", Lasso(alpha=0.1))]).fit(X_DATA, Y_DATA)
    np.testing.assert_array_equal(pipe.predict(X_DATA), reference.predict(X_DATA))
    Counting.events.clear()
    pipe.steps.insert(1, ("pca", counted(PCA(4), "pca")))  # one more step: a new network, the scaler's machine kept
    pipe.fit(X_DATA, Y_DATA)
    assert fits() == ["pca", "lasso"]
    reference = SkPipeline([("scale", StandardScaler()), ("pca", PCA(4)), ("ridge", Lasso(alpha=0.1))])
    np.testing.assert_allclose(pipe.predict(X_DATA), reference.fit(X_DATA, Y_DATA).predict(X_DATA), rtol=1e-12)
    Counting.events.clear()
    del pipe.steps[1]  # and out again: the lasso learns from the scaler again
    pipe.fit(X_DATA, Y_DATA)
    assert fits() == ["lasso"]
    Counting.events.clear()
    pipe.fit(X_DATA[:300], Y_DATA[:300])  # new data after a rebuild: every machine
    assert fits() == ["scale", "lasso"]
    reference = SkPipeline([("scale", StandardScaler()), ("ridge", Lasso(alpha=0.1))]).fit(X_DATA[:300], Y_DATA[:300])
    np.testing.assert_array_equal(pipe.predict(X_DATA), reference.predict(X_DATA))


def _constructed(estimator_class):
    """An instance with default arguments, or with a Ridge / LogisticRegression inside; ``None`` if neither works."""
    try:
        return estimator_class()
    except TypeError:
        for inner in (LogisticRegression(), Ridge()):
            for name, value in (("estimator", inner), ("estimators", [("a", inner)])):
                try:
                    return estimator_class(**{name: value})
                except TypeError:
                    continue
    return None


def test_the_kind_of_every_scikit_learn_estimator_is_the_one_its_tags_give():
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, estimator_class in all_estimators():
            estimator = _constructed(estimator_class)
            if estimator is None:
                continue
            try:
                expected = get_tags(estimator).estimator_type
            except Exception:  # tags that need an inner estimator the default lacks
                continue
            assert _kind_of(estimator) == expected, name
            checked += 1
    assert checked > 150


def test_the_kind_of_a_wrapper_or_of_several_mixins_comes_from_its_tags():
    class Wrapper(BaseEstimator):  # no kind mixin: its tags follow the inner estimator
        def __init__(self, estimator=None):
            self.estimator = estimator

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.estimator_type = get_tags(self.estimator).estimator_type
            return tags

    class Both(RegressorMixin, ClassifierMixin, BaseEstimator):  # tags: the first mixin wins
        pass

    wrapper = Wrapper(Ridge())
    assert _kind_of(wrapper) == "regressor"
    wrapper.set_params(estimator=LogisticRegression())
    assert _kind_of(wrapper) == "classifier"
    assert _kind_of(Both()) == get_tags(Both()).estimator_type == "regressor"
    assert _kind_of("passthrough") is None


def _steps(pipe):
    """Each step's name, class and parameters."""
    return [(name, type(step).__name__, step.get_params()) for name, step in pipe.steps]


@pytest.mark.parametrize(
    "params",
    [
        lambda: {"ridge__alpha": 3.0, "pca__n_components": 2},
        lambda: {"ridge": Lasso(alpha=0.5)},
        lambda: {"ridge": Lasso(alpha=0.5), "ridge__alpha": 0.25},  # nested goes to the new step
        lambda: {"steps": [("scale", StandardScaler()), ("ridge", Lasso())], "ridge__alpha": 0.25, "scale__with_std": False},
        lambda: {"steps": [("scale", StandardScaler()), ("ridge", Lasso())], "ridge": Ridge(alpha=7.0)},
    ],
)
def test_set_params_on_steps_does_what_scikit_learn_pipeline_does(params):
    def steps():
        return [("scale", StandardScaler()), ("pca", PCA(4)), ("ridge", Ridge())]

    given = steps()
    ours, theirs = ww.Pipeline(given), SkPipeline(steps())
    ours.set_params(**params())
    theirs.set_params(**params())
    assert _steps(ours) == _steps(theirs)
    assert [type(step).__name__ for _, step in given] == ["StandardScaler", "PCA", "Ridge"]  # replaced in a new list


def test_set_params_with_an_unknown_step_changes_nothing():
    pipe = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())])
    with pytest.raises(ww.ParameterError, match=r"Invalid parameter 'lasso__alpha' for Pipeline\. Valid parameters are: \[.*'ridge', 'scale', 'steps'"):
        pipe.set_params(ridge=Lasso(), lasso__alpha=2.0)
    assert isinstance(pipe.steps[1][1], Ridge)


def test_bad_steps():
    # an empty list: a ValueError, as scikit-learn's Pipeline raises ("The pipeline is empty"); it was a TypeError
    with pytest.raises(ww.GraphError, match=r"expected steps to be a non-empty list of \(name, estimator\) pairs"):
        ww.Pipeline([]).fit(X_DATA, Y_DATA)
    with pytest.raises(ValueError, match="The pipeline is empty"):
        SkPipeline([]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"non-empty list of \(name, estimator\) pairs\. Received: NoneType"):
        ww.Pipeline(None).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"names in steps must be unique\. Received duplicates: \['a'\]"):
        ww.Pipeline([("a", StandardScaler()), ("a", Ridge())]).fit(X_DATA, Y_DATA)
    steps = [("b", StandardScaler()), ("a", StandardScaler()), ("b", StandardScaler()), ("a", StandardScaler())]
    with pytest.raises(ww.GraphError, match=r"Received duplicates: \['a', 'b'\]\.$"):  # each once, sorted
        ww.Pipeline(steps + [("b", StandardScaler()), ("c", Ridge())]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"a fit\(\) method .* for machine 'regressor'\. Received: str 'ridge'"):
        ww.TransformedTarget("ridge", StandardScaler()).fit(X_DATA, Y_DATA)


def test_a_last_step_offering_other_operations_after_set_params_is_scikit_learn_s():
    # The pipeline kept the outputs of its last step as built: with loss="log_loss" set on a hinge SGDClassifier it
    # had no predict_proba after a refit, where scikit-learn's Pipeline has it.
    X, y = load_iris(return_X_y=True)
    ours = ww.Pipeline([("scale", StandardScaler()), ("sgd", SGDClassifier(random_state=0))]).fit(X, y)
    assert not hasattr(ours, "predict_proba")
    ours.set_params(sgd__loss="log_loss").fit(X, y)
    theirs = SkPipeline([("scale", StandardScaler()), ("sgd", SGDClassifier(loss="log_loss", random_state=0))]).fit(X, y)
    assert hasattr(ours, "predict_proba") and hasattr(ours, "predict_log_proba")
    np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))
    ours.set_params(sgd__loss="hinge").fit(X, y)
    assert not hasattr(ours, "predict_proba")
    assert {m.name: m.report()["action"] for m in ours.machines_} == {"scale": "skipped", "sgd": "updated"}


def test_transformed_target_fitted_attributes_are_scikit_learn_s():
    ours = ww.TransformedTarget(Ridge(), StandardScaler())
    assert not hasattr(ours, "regressor_")
    ours.fit(X_DATA, Y_DATA)
    theirs = TransformedTargetRegressor(Ridge(), transformer=StandardScaler()).fit(X_DATA, Y_DATA)
    assert np.array_equal(ours.regressor_.coef_, theirs.regressor_.coef_)
    assert np.array_equal(ours.transformer_.scale_, theirs.transformer_.scale_)


def test_transformed_target_with_functions_equals_scikit_learn_s():
    for options in ({"func": np.log, "inverse_func": np.exp}, {}):  # {}: the identity, as scikit-learn's default
        ours = ww.TransformedTarget(Ridge(alpha=0.5), **options).fit(X_DATA, Y_DATA)
        theirs = TransformedTargetRegressor(Ridge(alpha=0.5), **options).fit(X_DATA, Y_DATA)
        assert np.array_equal(ours.predict(X_DATA), theirs.predict(X_DATA))
        assert type(ours.transformer_).__name__ == "FunctionTransformer"
        assert ours.transformer_.func is options.get("func")
        assert ours.report_()["inverse_holds"] is True


@pytest.mark.parametrize("options", [{"transformer": StandardScaler()}, {"func": np.log, "inverse_func": np.exp}, {}])
@pytest.mark.parametrize("column", [False, True], ids=["1-D target", "column target"])
def test_a_regressor_predicting_one_column_gives_the_target_s_shape_as_scikit_learn_s(options, column):
    # A regressor predicting (n, 1) for a 1-D target gave (n, 1) predictions, where scikit-learn's
    # TransformedTargetRegressor squeezes them to (n,) (y - predict(X) then broadcast into an (n, n) table).
    y = Y_DATA.reshape(-1, 1) if column else Y_DATA
    theirs = TransformedTargetRegressor(ColumnRidge(), **clone(options, safe=False)).fit(X_DATA, y).predict(X_DATA)
    for ours in (
        ww.TransformedTarget(ColumnRidge(), **clone(options, safe=False)),
        ww.Pipeline([("scale", None), ("ridge", ColumnRidge())], target_transformer=options.get("transformer")),
    ):
        if isinstance(ours, ww.Pipeline) and "transformer" not in options:
            continue  # a pipeline's target transformer is a transformer (without one, it predicts as its last step)
        predicted = ours.fit(X_DATA, y).predict(X_DATA)
        assert predicted.shape == theirs.shape == y.shape
        np.testing.assert_allclose(predicted, theirs, rtol=1e-12)


def test_transformed_target_functions_keep_arrays_whatever_the_global_output():
    with config_context(transform_output="pandas"):
        ours = ww.TransformedTarget(Ridge(), func=np.log, inverse_func=np.exp).fit(X_DATA, Y_DATA)
        theirs = TransformedTargetRegressor(Ridge(), func=np.log, inverse_func=np.exp).fit(X_DATA, Y_DATA)
        assert isinstance(ours.predict(X_DATA), np.ndarray)
        assert np.array_equal(ours.predict(X_DATA), theirs.predict(X_DATA))


def test_transformed_target_warns_as_scikit_learn_when_the_inverse_does_not_hold():
    def caught(model):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            model.fit(X_DATA, Y_DATA)
        return [str(w.message) for w in seen if w.category is UserWarning]

    options = {"func": np.log, "inverse_func": np.sqrt}
    ours = ww.TransformedTarget(Ridge(), **options)
    first = caught(ours)
    assert first == caught(TransformedTargetRegressor(Ridge(), **options))
    assert any(m.startswith("The provided functions or transformer are not strictly inverse") for m in first)
    assert ours.report_()["inverse_holds"] is False
    assert caught(ours) == [] and ours.report_()["inverse_holds"] is False  # checked when the transformer trains
    quiet = ww.TransformedTarget(Ridge(), check_inverse=False, **options)
    assert caught(quiet) == caught(TransformedTargetRegressor(Ridge(), check_inverse=False, **options)) == []
    assert "inverse_holds" not in quiet.report_()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"transformer": StandardScaler(), "func": np.log}, "'transformer' and functions 'func'/'inverse_func' cannot both be set"),
        ({"func": np.log}, "when 'func' is provided, 'inverse_func' must also be provided"),
        ({"inverse_func": np.exp}, "when 'inverse_func' is provided, 'func' must also be provided"),
        ({"func": "log", "inverse_func": np.exp}, "expected func to be callable. Received: str 'log'"),
        ({"check_inverse": "yes"}, "expected check_inverse to be a bool. Received: str 'yes'"),
    ],
    ids=["both", "no inverse", "no func", "not callable", "check_inverse"],
)
def test_transformed_target_refuses_inconsistent_target_options(options, message):
    with pytest.raises(ww.ParameterError, match=message) as info:
        ww.TransformedTarget(Ridge(), **options).fit(X_DATA, Y_DATA)
    assert isinstance(info.value, ValueError)


def test_transformed_target_with_functions_retrains_only_the_regressor():
    tt = ww.TransformedTarget(Ridge(alpha=1.0), func=np.log1p, inverse_func=np.expm1).fit(X_DATA, Y_DATA)
    tt.set_params(regressor__alpha=4.0).fit(X_DATA, Y_DATA)
    actions = {name: report["action"] for name, report in tt.report_()["machines"].items()}
    assert actions == {"target_transformer": "skipped", "regressor": "updated"}
    reference = TransformedTargetRegressor(Ridge(alpha=4.0), func=np.log1p, inverse_func=np.expm1).fit(X_DATA, Y_DATA)
    assert np.array_equal(tt.predict(X_DATA), reference.predict(X_DATA))
    tt.set_params(func=np.log, inverse_func=np.exp).fit(X_DATA, Y_DATA)  # new functions: a new target
    reference = TransformedTargetRegressor(Ridge(alpha=4.0), func=np.log, inverse_func=np.exp).fit(X_DATA, Y_DATA)
    assert np.array_equal(tt.predict(X_DATA), reference.predict(X_DATA))


@pytest.mark.parametrize(
    "last",
    [IsolationForest(random_state=0), GaussianMixture(2, random_state=0), KMeans(3, n_init=2, random_state=0), KernelDensity()],
    ids=["outliers", "mixture", "clusters", "density"],
)
def test_unsupervised_last_steps_offer_what_scikit_learn_s_pipeline_offers(last):
    X = load_breast_cancer().data
    ours = ww.Pipeline([("scale", StandardScaler()), ("last", last)])
    theirs = SkPipeline([("scale", StandardScaler()), ("last", last)])
    operations = ("fit_predict", "predict", "predict_proba", "decision_function", "score_samples", "transform")
    offered = [op for op in operations if hasattr(theirs.fit(X), op)]
    assert [op for op in operations if hasattr(ours.fit(X), op)] == offered
    assert ("score_samples" in offered) is not isinstance(last, KMeans)
    for operation in offered:
        if operation == "fit_predict":
            assert np.array_equal(ours.fit_predict(X), theirs.fit_predict(X))
        else:
            assert np.array_equal(getattr(ours, operation)(X), getattr(theirs, operation)(X)), operation


@pytest.mark.parametrize(
    "last",
    [KMeans(3, n_init=2, random_state=0), GaussianMixture(2, random_state=0), KernelDensity(), PCA(2)],
    ids=["clusters", "mixture", "density", "PCA"],
)
def test_an_unsupervised_pipeline_scores_as_scikit_learn_s(last):
    X = load_iris().data
    ours = ww.Pipeline([("scale", StandardScaler()), ("last", last)]).fit(X)
    theirs = SkPipeline([("scale", StandardScaler()), ("last", last)]).fit(X)
    assert ours.score(X) == theirs.score(X)
    assert not hasattr(ww.Pipeline([("scale", StandardScaler()), ("outliers", IsolationForest())]), "score")
    weights = np.random.RandomState(0).uniform(0.1, 3.0, len(X))
    if "sample_weight" in inspect.signature(last.score).parameters:  # KMeans: the weights reach its score
        assert ours.score(X, sample_weight=weights) == theirs.score(X, sample_weight=weights)
    else:
        with pytest.raises(ww.ArgumentError, match="takes no sample_weight"):
            ours.score(X, sample_weight=weights)


def test_grid_search_selects_an_unsupervised_pipeline_by_its_score():
    X = load_iris().data
    grid = {"mixture__n_components": [1, 2, 3]}
    steps = [("scale", StandardScaler()), ("mixture", GaussianMixture(random_state=0))]
    ours = GridSearchCV(ww.Pipeline(steps), grid, cv=3).fit(X)
    theirs = GridSearchCV(SkPipeline(steps), grid, cv=3).fit(X)
    assert np.array_equal(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])
    supervised = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.DataError, match=r"Pipeline\.score needs y"):
        supervised.score(X_DATA)


def test_a_clusterer_composite_fits_and_predicts_its_training_labels():
    X = load_iris().data
    clusters = ww.Pipeline([("scale", StandardScaler()), ("kmeans", KMeans(3, n_init=2, random_state=0))])
    labels = clusters.fit_predict(X)
    assert np.array_equal(labels, clusters.fitted_params_()["kmeans"].labels_)
    assert not hasattr(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]), "fit_predict")


def test_fit_predict_gives_the_predictions_on_the_training_output_as_scikit_learn_s_pipeline():
    X, y = load_diabetes(return_X_y=True)
    bands = np.column_stack([np.digitize(X[:, j], np.quantile(X[:, j], np.linspace(0, 1, 11)[1:-1])) for j in (2, 3, 8)])
    steps = [("encode", TargetEncoder(target_type="continuous", cv=KFold(5))), ("kmeans", KMeans(5, n_init=2, random_state=0))]
    ours = ww.Pipeline(steps)
    labels = ours.fit_predict(bands, y)  # the clusters of the cross-fitted encodings KMeans trained on
    np.testing.assert_array_equal(labels, SkPipeline([(name, clone(step)) for name, step in steps]).fit_predict(bands, y))
    np.testing.assert_array_equal(labels, ours.fitted_params_()["kmeans"].labels_)
    np.testing.assert_array_equal(ours.fit(bands, y).labels_, labels)  # fit: the same training labels
    assert (labels != ours.predict(bands)).sum() > 0  # new data: encoded by the encoder fitted on all rows


def test_fit_predict_takes_sample_weight_as_scikit_learn_s_pipeline_takes_it_per_step():
    X = load_diabetes(return_X_y=True)[0][:200]
    weights = np.random.RandomState(0).rand(200) + 0.5
    steps = [("scale", StandardScaler()), ("kmeans", KMeans(4, n_init=2, random_state=0))]
    ours = ww.Pipeline([(name, clone(step)) for name, step in steps]).fit_predict(X, sample_weight=weights)
    theirs = SkPipeline(steps).fit_predict(X, scale__sample_weight=weights, kmeans__sample_weight=weights)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "last",
    [DBSCAN(eps=0.6), AgglomerativeClustering(3), SpectralClustering(3, random_state=0), LocalOutlierFactor()],
    ids=["dbscan", "agglomerative", "spectral", "local-outliers"],
)
def test_a_last_step_with_fit_predict_and_no_predict_fits_and_labels_as_scikit_learn_s_pipeline(last):
    X = load_iris().data
    ours = ww.Pipeline([("scale", StandardScaler()), ("last", last)])
    theirs = SkPipeline([("scale", StandardScaler()), ("last", last)])
    operations = ("fit_predict", "predict", "predict_proba", "decision_function", "score_samples", "score", "transform")
    assert [op for op in operations if hasattr(ours, op)] == [op for op in operations if hasattr(theirs, op)] == ["fit_predict"]
    labels = ours.fit_predict(X)
    np.testing.assert_array_equal(labels, clone(theirs).fit_predict(X))
    theirs.fit(X)
    if hasattr(theirs[-1], "labels_"):  # a clusterer: scikit-learn's Pipeline leaves them to its last step
        np.testing.assert_array_equal(ours.fit(X).labels_, theirs[-1].labels_)
        np.testing.assert_array_equal(ours.labels_, labels)
    else:  # an outlier detector: no labels, as scikit-learn's
        assert not hasattr(ours.fit(X), "labels_")
    assert repr(ours.network_["fit_predict"]) == "fit_predict(last, transform(scale, X))"


def test_a_last_step_that_only_labels_its_training_data_retrains_only_when_it_must():
    X = load_iris().data
    pipe = ww.Pipeline([("scale", Counting(StandardScaler(), tag="scale")), ("dbscan", Counting(DBSCAN(eps=0.6), tag="dbscan"))])
    np.testing.assert_array_equal(
        pipe.fit_predict(X), SkPipeline([("scale", StandardScaler()), ("dbscan", DBSCAN(eps=0.6))]).fit_predict(X)
    )
    assert fits() == ["scale"] and calls("dbscan", "fit_predict") == 1  # it trained by fit_predict, once
    pipe.fit(X)
    assert calls("dbscan", "fit_predict") == 1  # nothing changed
    pipe.set_params(dbscan__estimator=DBSCAN(eps=0.4)).fit(X)
    assert fits() == ["scale"] and calls("dbscan", "fit_predict") == 2
    expected = SkPipeline([("scale", StandardScaler()), ("dbscan", DBSCAN(eps=0.4))]).fit(X)[-1].labels_
    np.testing.assert_array_equal(pipe.fit_predict(X), expected)  # the labels it holds: no training
    assert calls("dbscan", "fit_predict") == 2


def test_a_last_step_that_only_labels_takes_weights_as_scikit_learn_s_pipeline_takes_them_per_step():
    X = load_iris().data
    weights = np.random.RandomState(0).randint(1, 4, len(X)).astype(float)
    steps = [("scale", StandardScaler()), ("dbscan", DBSCAN(eps=0.6))]
    ours = ww.Pipeline([(name, clone(step)) for name, step in steps]).fit_predict(X, sample_weight=weights)
    theirs = SkPipeline(steps).fit_predict(X, scale__sample_weight=weights, dbscan__sample_weight=weights)
    np.testing.assert_array_equal(ours, theirs)
    assert (ours != SkPipeline(steps).fit_predict(X)).any()  # the weights mattered
    with pytest.raises(ww.ArgumentError, match=r"its last step 'agglomerative' \(AgglomerativeClustering\) takes no sample_weight"):
        ww.Pipeline([("scale", StandardScaler()), ("agglomerative", AgglomerativeClustering())]).fit(X, sample_weight=weights)


@pytest.mark.parametrize("options", [{"func": np.log1p, "inverse_func": np.expm1}, {"transformer": StandardScaler()}])
def test_a_pandas_target_is_transformed_as_scikit_learn_transforms_it_without_warnings(options):
    # the transformer trained on the Series as a named column, then checked its inverse on an array: a
    # FunctionTransformer warned 'X does not have valid feature names' (an error under -W error)
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = ww.TransformedTarget(Ridge(), **{k: clone(v) if k == "transformer" else v for k, v in options.items()})
        ours.fit(X, y)
        piped = ww.Pipeline([("ridge", Ridge())], target_transformer=ww.TransformedTarget(Ridge(), **options)._target_transformer())
        piped.fit(X, y)
    theirs = TransformedTargetRegressor(Ridge(), **options).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_array_equal(piped.predict(X), theirs.predict(X))
    assert ours.report_()["inverse_holds"]


def test_a_last_step_whose_score_needs_the_target_gives_no_score_output():
    # the score node of such a model is refused (graph.md); the pipeline asked for it and could not be fitted
    class Plain(BaseEstimator):
        def fit(self, X, y=None):
            return self

        def predict(self, X):
            return np.zeros(len(X))

        def score(self, X, y):
            return 1.0

    X, y = load_diabetes(return_X_y=True)
    pipe = ww.Pipeline([("plain", Plain())]).fit(X, y)
    assert "score" not in pipe.network_ and np.array_equal(pipe.predict(X[:2]), np.zeros(2))


# -- values the network keeps: no step changes them in place, and the caller gets its own ----------------------


def _in_place_steps(first, with_std: bool, last=None) -> list:
    """``first`` -> a scaler working in place (``copy=False``) -> Ridge."""
    scaler = StandardScaler(copy=False, with_mean=False, with_std=with_std)
    return [("first", clone(first)), ("sc", scaler), ("r", clone(last) if last is not None else Ridge())]


def _digit_documents() -> tuple[list[str], np.ndarray]:
    """Each of 300 digit images as a text: the word ``p<j>`` once per unit of pixel ``j``'s ink; and the digits."""
    X, y = load_digits(return_X_y=True)
    return [" ".join(f"p{j}" for j, ink in enumerate(row) for _ in range(int(ink))) for row in X[:300]], y[:300]


@pytest.mark.parametrize(
    "first, frame",
    [(PCA(3), False), (MinMaxScaler(), False), (PCA(3), True)],
    ids=["a-kept-training-output", "a-pass-value-kept-between-fits", "a-kept-dataframe"],
)
def test_a_step_that_works_in_place_does_not_change_what_a_refit_trains_on(first, frame):
    """PCA's own fit_transform output (kept by its machine), a MinMaxScaler's output (kept between fits), a
    pandas output: the in-place scaler (copy=False) would scale each where it lies; a refit changing only it
    would then train on scaled values (82 off for PCA on main)."""
    X = pd.DataFrame(X_DATA, columns=[f"x{j}" for j in range(10)]) if frame else X_DATA
    ours = ww.Pipeline(_in_place_steps(first, True))
    if frame:
        ours.set_output(transform="pandas")
    ours.fit(X, Y_DATA)
    ours.set_params(sc__with_std=False).fit(X, Y_DATA)
    theirs = SkPipeline(_in_place_steps(first, False)).fit(X_DATA, Y_DATA)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X_DATA), rtol=1e-10)


def test_a_step_that_scales_a_kept_sparse_output_in_place_leaves_it_as_it_was():
    docs, digits = _digit_documents()

    def steps(with_std):
        return [("tfidf", TfidfVectorizer()), ("sc", StandardScaler(copy=False, with_mean=False, with_std=with_std)), ("r", Ridge())]

    ours = ww.Pipeline(steps(True)).fit(docs, digits)
    ours.set_params(sc__with_std=False).fit(docs, digits)  # TfidfVectorizer's output, kept: not scaled
    np.testing.assert_allclose(ours.predict(docs), SkPipeline(steps(False)).fit(docs, digits).predict(docs), rtol=1e-10)
    clusters = ww.Pipeline([("tfidf", TfidfVectorizer()), ("kmeans", KMeans(4, n_init=1, random_state=0))])
    expected = SkPipeline([("tfidf", TfidfVectorizer()), ("kmeans", KMeans(4, n_init=1, random_state=0))]).fit(docs)
    # KMeans.predict is given the kept sparse output itself (copy_x=True: it writes into nothing)
    np.testing.assert_array_equal(clusters.fit(docs).labels_, expected[-1].labels_)


@pytest.mark.parametrize(
    "steps, method",
    [
        ([("scale", StandardScaler()), ("pca", PCA(3))], "fit_transform"),
        ([("scale", StandardScaler()), ("pca", PCA(3)), ("minmax", MinMaxScaler())], "fit_transform"),
        ([("scale", StandardScaler()), ("tsne", TSNE(perplexity=10.0, max_iter=250, random_state=0))], "fit_transform"),
        ([("scale", StandardScaler()), ("kmeans", KMeans(3, n_init=1, random_state=0))], "fit_predict"),
        ([("scale", StandardScaler()), ("dbscan", DBSCAN(eps=3.0))], "fit_predict"),
    ],
    ids=["pca", "minmax-after-pca", "tsne", "kmeans", "dbscan"],
)
def test_what_fit_transform_and_fit_predict_return_is_the_caller_s_to_change(steps, method):
    pipe = ww.Pipeline(steps)
    value = getattr(pipe, method)(X_DATA[:200])
    expected = getattr(SkPipeline([(name, clone(step)) for name, step in steps]), method)(X_DATA[:200])
    np.testing.assert_allclose(value, expected, rtol=1e-10)
    value[:] = 7  # the caller's: writable, and no value the network keeps
    np.testing.assert_allclose(getattr(pipe, method)(X_DATA[:200]), expected, rtol=1e-10)
    if method == "fit_predict":
        labels = pipe.labels_
        labels[:] = 7  # scikit-learn's labels_ are writable (DBSCAN's relabelled noise, say)
        np.testing.assert_array_equal(pipe.fit_predict(X_DATA[:200]), expected)


def test_a_pandas_fit_transform_is_the_caller_s_to_change():
    X = pd.DataFrame(X_DATA, columns=[f"x{j}" for j in range(10)])
    pipe = ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(3))]).set_output(transform="pandas")
    value = pipe.fit_transform(X)
    before = value.copy()
    value.iloc[:, :] = 0.0
    pd.testing.assert_frame_equal(pipe.fit_transform(X), before)


@pytest.mark.parametrize("first_freq, then_freq", [("D", None), (None, "D")])
def test_a_refit_on_an_equal_index_of_another_freq_gives_scikit_learn_s_index(first_freq, then_freq):
    # Equal DatetimeIndexes with freq="D" and freq=None had one token: the refit trained nothing and handed back
    # the training output of the first fit, whose index carried the other freq (scikit-learn's carries the input's).
    days = pd.date_range("2020-01-01", periods=len(X_DATA), freq="D")
    frame = lambda freq: pd.DataFrame(X_DATA, index=pd.DatetimeIndex(days, freq=freq))  # noqa: E731
    steps = [("scale", StandardScaler()), ("pca", PCA(3))]
    pipe = ww.Pipeline(steps).set_output(transform="pandas")
    assert pipe.fit_transform(frame(first_freq)).index.freq == first_freq
    value = pipe.fit_transform(frame(then_freq))
    expected = SkPipeline(steps).set_output(transform="pandas").fit_transform(frame(then_freq))
    pd.testing.assert_frame_equal(value, expected, check_freq=True, rtol=1e-10)
    assert value.index.freq == then_freq


def test_a_cross_decomposition_step_gives_the_next_its_x_scores():
    # PLSRegression's fit_transform(X, y) is the pair (x_scores, y_scores): fed to the next step, scikit-learn's
    # Pipeline fails ("Found array with dim 3"), as ours did ("X has 2 rows"). Ours trains it by fit, and the next
    # step learns x_scores, what transform(X) gives on new data; fit_transform is fit(X, y).transform(X) (the pair
    # in scikit-learn's)
    from sklearn.cross_decomposition import PLSRegression

    X, y = load_diabetes(return_X_y=True)
    steps = lambda: [("scale", StandardScaler()), ("pls", PLSRegression(2)), ("ridge", Ridge())]  # noqa: E731
    with pytest.raises(ValueError, match="Found array with dim 3"):
        SkPipeline(steps()).fit(X, y)
    ours = ww.Pipeline(steps()).fit(X, y)
    scores = SkPipeline(steps()[:2]).fit(X, y).transform(X)
    np.testing.assert_allclose(ours.predict(X), Ridge().fit(scores, y).predict(scores), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(ww.Pipeline(steps()[:2]).fit_transform(X, y), ww.Pipeline(steps()[:2]).fit(X, y).transform(X))
