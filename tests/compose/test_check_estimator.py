"""scikit-learn's own estimator checks, run over every recipe and a user-defined composite."""

from importlib.util import find_spec

import numpy as np
import pytest
from sklearn.base import ClassifierMixin, ClusterMixin, RegressorMixin, TransformerMixin, clone
from sklearn.cluster import DBSCAN, KMeans
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import shuffle
from sklearn.utils.estimator_checks import (
    check_get_feature_names_out_error,
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
    check_global_output_transform_pandas,
    check_global_set_output_transform_polars,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_set_output_transform_polars,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    parametrize_with_checks,
)

import wirework as ww


class ScaledModel(ww.Composite):
    """A user-defined composite: standardize X, then any model (regressor or classifier)."""

    def __init__(self, model=None, scaler=None):
        self.model = model
        self.scaler = scaler

    def _kind(self):
        return "classifier" if isinstance(self.model, ClassifierMixin) else "regressor"

    def network(self, X, y=None):
        default = StandardScaler(with_mean=False)  # works on sparse input, as the tags computed from model say
        scaler = ww.machine(self.scaler if self.scaler is not None else default, X)
        Z = scaler.transform(X)
        model = ww.machine(self.model, Z, y)
        outputs = {"predict": model.predict(Z)}
        if hasattr(self.model, "predict_proba"):
            outputs["predict_proba"] = model.predict_proba(Z)
        return ww.Signature(**outputs)


class Reduce(TransformerMixin, ww.Composite):
    """A user-defined transformer composite."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def network(self, X, y=None):
        scaled = ww.machine(StandardScaler(), X)
        pca = ww.machine(PCA(n_components=self.n_components), scaled.transform(X))
        return ww.Signature(transform=pca.transform(scaled.transform(X)))


class Clusters(ClusterMixin, ww.Composite):
    """A user-defined clusterer composite: scikit-learn's clustering checks read its labels_."""

    def __init__(self, n_clusters=3, random_state=None):
        self.n_clusters = n_clusters
        self.random_state = random_state

    def network(self, X, y=None):
        Z = ww.machine(StandardScaler(), X).transform(X)
        kmeans = KMeans(self.n_clusters, n_init=2, random_state=self.random_state)
        return ww.Signature(predict=ww.machine(kmeans, Z).predict(Z))


ESTIMATORS = [
    ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]),
    ww.Pipeline([("scale", StandardScaler()), ("logistic", LogisticRegression())]),
    ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())], target_transformer=StandardScaler()),
    ww.Pipeline([("scale", StandardScaler()), ("poly", PolynomialFeatures(degree=2))]),
    ww.TransformedTarget(Ridge(), StandardScaler()),
    ww.Stack([("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))], Ridge(), cv=3),
    ww.Stack([("lr", LogisticRegression()), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))], LogisticRegression(), cv=3),
    ww.Stack([("ridge", Ridge())], Ridge(), cv=3, passthrough=True, levels=2),
    ww.Bagging(DecisionTreeRegressor(max_depth=3, random_state=0), n_estimators=3, random_state=0),
    ww.Bagging(DecisionTreeClassifier(max_depth=3, random_state=0), n_estimators=3, random_state=0),
    ww.Average([("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]),
    ww.Average([("lr", LogisticRegression()), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))], weights=[2, 1]),
    ScaledModel(Ridge()),
    ScaledModel(LogisticRegression()),
    Reduce(),
    ww.TransformedTarget(Ridge()),  # no transformer: the identity FunctionTransformer, as scikit-learn's default
    ww.Pipeline([("scale", StandardScaler()), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]),
    ww.Average([("lr", LogisticRegression()), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))], voting="hard"),
    ww.Bagging(Ridge(tol=1e-12), n_estimators=3, max_features=0.8, bootstrap=False, random_state=0),
    Clusters(),
    ww.Pipeline([("scale", StandardScaler()), ("dbscan", DBSCAN())]),  # labels its training data only: fit_predict
    ww.Pipeline([("scale", StandardScaler()), ("kmeans", KMeans(3, n_init=2, random_state=0))]),
]

_BOOTSTRAP = (
    "the weights are the draws' probabilities, as in scikit-learn's bagging: a row of weight 2 is drawn as often as "
    "its two repeats on average, not in the same draws (scikit-learn lists the same check for its BaggingRegressor "
    "and BaggingClassifier)"
)
_PASTING = (
    "the weights are the draws' probabilities, as in scikit-learn's bagging: drawing every row without replacement "
    "(bootstrap=False, max_samples=None) needs every row to weigh something, and the check weighs some 0, a "
    "DataError (scikit-learn's bagging raises too, and lists the same check)"
)
#: Checks that cannot apply, with the reason, by estimator (its position in ESTIMATORS): the one place
#: where any is listed. scikit-learn itself also skips one check per estimator, check_array_api_input
#: ("SCIPY_ARRAY_API is not set"): composites declare no array-API support, so it does not apply to them.
EXPECTED_FAILED_CHECKS: dict[int, dict[str, str]] = {
    7: {  # Stack(levels=2, passthrough=True) of Ridge: sparse features reach Ridge
        "check_sample_weight_equivalence_on_sparse_data": (
            "Ridge solves sparse input iteratively (sparse_cg, tol=1e-4), so weighted and repeated rows agree to "
            "about 1e-4, not the check's 1e-7; with tol=1e-12 the same stack passes "
            "(test_weights_on_sparse_stacked_levels_are_repeated_rows)"
        ),
    },
    8: {"check_sample_weight_equivalence_on_dense_data": _BOOTSTRAP,
        "check_sample_weight_equivalence_on_sparse_data": _BOOTSTRAP},
    9: {"check_sample_weight_equivalence_on_dense_data": _BOOTSTRAP,
        "check_sample_weight_equivalence_on_sparse_data": _BOOTSTRAP},
    18: {"check_sample_weight_equivalence_on_dense_data": _PASTING,
         "check_sample_weight_equivalence_on_sparse_data": _PASTING},
    21: {  # Pipeline(StandardScaler, KMeans); its sparse check does not run (StandardScaler centres: not sparse)
        "check_sample_weight_equivalence_on_dense_data": (
            "KMeans's own: scikit-learn lists both equivalence checks for its KMeans ('sample_weight is not "
            "equivalent to removing/repeating samples'), whose k-means++ seeding draws rows at random, weighing "
            "them, so repeated rows change the draws, and whose empty clusters are re-seeded at the farthest rows, "
            "which a repeated row fills twice. The pipeline gives scikit-learn's Pipeline's results with the same "
            "weights per step, bit for bit, weighted and repeated, and with a fixed init passes "
            "(test_a_kmeans_pipeline_weighs_as_scikit_learn_s_and_its_check_fails_as_kmeans_s)"
        ),
    },
}


def _expected(estimator):
    return EXPECTED_FAILED_CHECKS.get(next(k for k, e in enumerate(ESTIMATORS) if e is estimator), {})


@pytest.mark.filterwarnings("ignore::UserWarning")  # sklearn's checks feed odd data on purpose
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


def test_the_listed_checks_name_the_estimators_meant():
    assert [type(ESTIMATORS[k]).__name__ for k in EXPECTED_FAILED_CHECKS] == ["Stack", "Bagging", "Bagging", "Bagging", "Pipeline"]
    assert ESTIMATORS[18].bootstrap is False
    assert ESTIMATORS[7].levels == 2 and ESTIMATORS[7].passthrough
    assert isinstance(ESTIMATORS[21].steps[-1][1], KMeans)


def test_weights_on_sparse_stacked_levels_are_repeated_rows():
    exact = Ridge(solver="sparse_cg", tol=1e-12)
    check_sample_weight_equivalence_on_sparse_data(
        "Stack", ww.Stack([("ridge", exact)], clone(exact), cv=3, passthrough=True, levels=2)
    )


def test_a_kmeans_pipeline_weighs_as_scikit_learn_s_and_its_check_fails_as_kmeans_s():
    rng = np.random.RandomState(42)  # the check's data: 15 rows, integer weights (zeros too), shuffled
    X, _, weights = rng.rand(15, 30), rng.randint(0, 3, size=15), rng.randint(0, 5, size=15)
    repeated = X.repeat(weights, axis=0)
    shuffled, weights = shuffle(X, weights, random_state=0)

    def steps(**options):
        return [("scale", StandardScaler()), ("kmeans", KMeans(3, n_init=2, random_state=0, **options))]

    outputs = {}
    for how, data, ours_options, theirs_options in [
        ("weighted", shuffled, {"sample_weight": weights}, {"scale__sample_weight": weights, "kmeans__sample_weight": weights}),
        ("repeated", repeated, {}, {}),
    ]:
        ours, theirs = ww.Pipeline(steps()).fit(data, **ours_options), Pipeline(steps()).fit(data, **theirs_options)
        for method in ("predict", "transform"):
            np.testing.assert_array_equal(getattr(ours, method)(X), getattr(theirs, method)(X))
        outputs[how] = theirs.predict(X)
    assert (outputs["weighted"] != outputs["repeated"]).any()  # scikit-learn's own pipeline: not equivalent either
    with pytest.raises(AssertionError, match="fitting with `sample_weight` is not equivalent"):
        check_sample_weight_equivalence_on_dense_data("KMeans", KMeans(3, n_init=2, random_state=0))
    fixed = np.random.RandomState(1).rand(3, 30)  # no k-means++ draws: weights are repeated rows
    for check in (check_sample_weight_equivalence_on_dense_data, check_sample_weight_equivalence_on_sparse_data):
        check("Pipeline", ww.Pipeline([("kmeans", KMeans(3, init=fixed, n_init=1))]))


def test_kinds_are_declared():
    kinds = [e.__sklearn_tags__().estimator_type for e in ESTIMATORS]
    assert kinds == ["regressor", "classifier", "regressor", None, "regressor", "regressor", "classifier", "regressor",
                     "regressor", "classifier", "regressor", "classifier", "regressor", "classifier", None,
                     "regressor", "classifier", "classifier", "regressor", "clusterer", "clusterer", "clusterer"]
    several = [e.__sklearn_tags__().target_tags.multi_output for e in ESTIMATORS]  # scikit-learn's checks follow it
    assert [k for k, multi in enumerate(several) if multi] == [0, 2, 4, 8, 15, 16, 18]
    assert isinstance(ESTIMATORS[0], ww.Composite) and not isinstance(ESTIMATORS[0], RegressorMixin)


#: The composites above that transform: scikit-learn runs its output checks on such transformers separately.
TRANSFORMERS = [e for e in ESTIMATORS if hasattr(e, "transform")]
#: scikit-learn's checks of get_feature_names_out and set_output (run by its own test_common, not by
#: parametrize_with_checks); the polars ones only where polars is installed (it is not a test dependency).
OUTPUT_CHECKS = [
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    check_get_feature_names_out_error,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_global_output_transform_pandas,
    *([check_set_output_transform_polars, check_global_set_output_transform_polars] if find_spec("polars") else []),
]


def test_the_transformer_composites_are_checked():
    assert [type(e).__name__ for e in TRANSFORMERS] == [
        "Pipeline", "Stack", "Stack", "Stack", "Average", "Average", "Reduce", "Average", "Pipeline"
    ]


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")  # they transform arrays after a fit on a DataFrame, on purpose
@pytest.mark.parametrize("check", OUTPUT_CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("estimator", TRANSFORMERS, ids=lambda estimator: type(estimator).__name__)
def test_sklearn_output_checks(estimator, check):
    check(type(estimator).__name__, clone(estimator))
