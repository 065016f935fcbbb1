"""ww.Pipeline and ww.TransformedTarget against scikit-learn's Pipeline and TransformedTargetRegressor beyond the
predictions: tags, sparse input, splits of precomputed kernels, frames of mixed dtypes, the steps refused, scores,
last steps that embed only their training data (TSNE), and TransformedTarget's default regressor and its check of
the target."""

import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.cluster import DBSCAN, KMeans
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.datasets import load_diabetes, load_digits, load_iris
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.ensemble import HistGradientBoostingRegressor, IsolationForest, RandomForestClassifier
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer, TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.isotonic import IsotonicRegression
from sklearn.manifold import MDS, TSNE, SpectralEmbedding
from sklearn.linear_model import GammaRegressor, LogisticRegression, MultiTaskLasso, PoissonRegressor, Ridge
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.multioutput import MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, LocalOutlierFactor
from sklearn.pipeline import Pipeline as SkPipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, OneHotEncoder, StandardScaler
from sklearn.svm import SVC
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_transformer_preserve_dtypes
from threadpoolctl import threadpool_limits

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)
X_IRIS, Y_IRIS = load_iris(return_X_y=True)


@pytest.fixture(autouse=True)
def _one_thread():
    """One BLAS / OpenMP thread per model (boosting, GLM solvers): the machine's two cores are shared."""
    with threadpool_limits(1):
        yield


#: Step lists whose tags scikit-learn's Pipeline takes from the steps: ours must say the same.
TAGGED = {
    "scaler": lambda: [("scale", StandardScaler())],
    "sparse scaler, ridge": lambda: [("scale", MaxAbsScaler()), ("ridge", Ridge())],
    "dense scaler, ridge": lambda: [("scale", StandardScaler()), ("ridge", Ridge())],
    "imputer, boosting": lambda: [("impute", SimpleImputer()), ("boost", HistGradientBoostingRegressor())],
    "forest": lambda: [("forest", RandomForestClassifier())],
    "precomputed svc": lambda: [("svc", SVC(kernel="precomputed"))],
    "precomputed neighbours": lambda: [("knn", KNeighborsClassifier(metric="precomputed"))],
    "kmeans": lambda: [("kmeans", KMeans())],
    "dbscan": lambda: [("dbscan", DBSCAN())],
    "lof": lambda: [("lof", LocalOutlierFactor())],
    "isolation": lambda: [("iso", IsolationForest())],
    "multi-task": lambda: [("lasso", MultiTaskLasso())],
    "svd, logistic": lambda: [("svd", TruncatedSVD()), ("lr", LogisticRegression())],
    "tf-idf": lambda: [("tfidf", TfidfTransformer())],
    "one-hot": lambda: [("onehot", OneHotEncoder())],
    "scaler, tsne": lambda: [("scale", StandardScaler()), ("tsne", TSNE())],
}


class Noisy(TransformerMixin, BaseEstimator):
    """A transformer whose output is random: tagged non-deterministic (no scikit-learn estimator is)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X + np.random.normal(size=np.shape(X))

    def inverse_transform(self, X):
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags


@pytest.mark.parametrize("steps", TAGGED.values(), ids=TAGGED.keys())
def test_a_pipeline_s_tags_follow_its_steps_as_scikit_learn_s(steps):
    ours, theirs = get_tags(ww.Pipeline(steps())), get_tags(SkPipeline(steps()))
    assert ours.estimator_type == theirs.estimator_type
    assert ours.target_tags.multi_output == theirs.target_tags.multi_output
    assert ours.input_tags.sparse == theirs.input_tags.sparse
    assert ours.input_tags.pairwise == theirs.input_tags.pairwise
    assert ours.classifier_tags == theirs.classifier_tags and ours.regressor_tags == theirs.regressor_tags
    if theirs.transformer_tags is not None:
        assert ours.transformer_tags.preserves_dtype == theirs.transformer_tags.preserves_dtype


def test_where_a_pipeline_s_tags_say_more_than_scikit_learn_s_they_say_what_the_network_does():
    # scikit-learn's Pipeline keeps its defaults for these (no NaN, deterministic); ours asks the steps
    assert get_tags(ww.Pipeline(TAGGED["imputer, boosting"]())).input_tags.allow_nan
    assert not get_tags(ww.Pipeline(TAGGED["dense scaler, ridge"]() + [("svd", "passthrough")])).input_tags.allow_nan
    assert not get_tags(ww.Pipeline(TAGGED["dense scaler, ridge"]())).non_deterministic
    assert get_tags(ww.Pipeline([("scale", StandardScaler()), ("noise", Noisy())])).non_deterministic
    # the target transformer sees y, not X: its randomness counts, its input tags do not
    tags = get_tags(ww.Pipeline([("scale", MaxAbsScaler()), ("ridge", Ridge())], target_transformer=Noisy()))
    assert tags.input_tags.sparse and not get_tags(Noisy()).input_tags.sparse and tags.non_deterministic
    # a skipped first step: the first step that runs sees X (scikit-learn's Pipeline looks at steps[0] only)
    assert get_tags(ww.Pipeline([("skip", "passthrough"), ("svc", SVC(kernel="precomputed"))])).input_tags.pairwise
    # a transformer keeps the dtypes every step keeps (scikit-learn's copies the last step's)
    assert get_tags(ww.Pipeline([("scale", StandardScaler()), ("skip", "passthrough")])).transformer_tags.preserves_dtype == [
        "float64", "float32"
    ]


def test_the_identity_pipeline_is_tagged_and_works_as_scikit_learn_s_on_sparse_input():
    steps = [("a", "passthrough"), ("b", None)]
    tags = get_tags(ww.Pipeline(steps))
    assert tags.input_tags.sparse is get_tags(SkPipeline(steps)).input_tags.sparse is True
    assert tags.input_tags.allow_nan and tags.transformer_tags.preserves_dtype == ["float64", "float32"]
    for layout in ("csr", "csc"):
        S = sp.random(60, 8, density=0.3, format=layout, random_state=0)
        ours, theirs = ww.Pipeline(steps).fit(S), SkPipeline(steps).fit(S)
        for operation in ("transform", "inverse_transform"):
            out = getattr(ours, operation)(S)
            assert sp.issparse(out) and out.format == layout
            assert (out != getattr(theirs, operation)(S)).nnz == 0
        assert (ww.Pipeline(steps).fit_transform(S) != S).nnz == 0
    X = X_DATA.copy()
    X[::5, 2] = np.nan
    np.testing.assert_array_equal(ww.Pipeline(steps).fit(X).transform(X), X)


@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_a_pipeline_tagged_sparse_fits_sparse_input_as_scikit_learn_s(layout):
    S = sp.random(len(Y_DATA), 12, density=0.2, format=layout, random_state=0)
    steps = TAGGED["sparse scaler, ridge"]
    assert get_tags(ww.Pipeline(steps())).input_tags.sparse
    ours, theirs = ww.Pipeline(steps()).fit(S, Y_DATA), SkPipeline(steps()).fit(S, Y_DATA)
    np.testing.assert_allclose(ours.predict(S), theirs.predict(S), rtol=0, atol=1e-9)


@pytest.mark.parametrize("steps", [
    lambda: [("scale", StandardScaler())],
    lambda: [("scale", StandardScaler()), ("pca", PCA(3))],
    lambda: [("scale", StandardScaler()), ("skip", "passthrough")],
    lambda: [("skip", "passthrough")],
], ids=["scaler", "scaler, pca", "scaler, skipped", "identity"])
def test_a_transformer_pipeline_keeps_the_dtypes_its_tags_name(steps):
    pipe = ww.Pipeline(steps())
    assert get_tags(pipe).transformer_tags.preserves_dtype == ["float64", "float32"]
    check_transformer_preserve_dtypes("Pipeline", pipe)  # scikit-learn's check, over the dtypes the tag names


def test_a_classifier_pipeline_has_its_last_step_s_classifier_tags_and_learns_several_labels():
    assert get_tags(ww.Pipeline(TAGGED["forest"]())).classifier_tags.multi_label
    Y = np.c_[Y_IRIS == 0, Y_IRIS == 2].astype(int)  # two labels per row

    def steps():
        return [("scale", StandardScaler()), ("forest", RandomForestClassifier(n_estimators=10, random_state=0))]

    ours, theirs = ww.Pipeline(steps()).fit(X_IRIS, Y), SkPipeline(steps()).fit(X_IRIS, Y)
    np.testing.assert_array_equal(ours.predict(X_IRIS), theirs.predict(X_IRIS))


def test_a_precomputed_kernel_is_split_by_rows_and_columns_as_scikit_learn_s_pipeline_splits_it():
    kernel, distances = rbf_kernel(X_IRIS), euclidean_distances(X_IRIS)
    cv = KFold(3, shuffle=True, random_state=0)
    for data, steps in [
        (kernel, lambda: [("svc", SVC(kernel="precomputed"))]),
        (distances, lambda: [("knn", KNeighborsClassifier(metric="precomputed"))]),
    ]:
        theirs = cross_val_score(SkPipeline(steps()), data, Y_IRIS, cv=cv, error_score="raise")
        np.testing.assert_array_equal(cross_val_score(ww.Pipeline(steps()), data, Y_IRIS, cv=cv, error_score="raise"), theirs)
        skipped = ww.Pipeline([("skip", "passthrough"), *steps()])  # scikit-learn's would split the columns as rows
        np.testing.assert_array_equal(cross_val_score(skipped, data, Y_IRIS, cv=cv, error_score="raise"), theirs)


def test_a_transformed_target_of_a_precomputed_regressor_splits_the_kernel_as_the_regressor_alone():
    distances, y = euclidean_distances(X_DATA), Y_DATA
    cv = KFold(3, shuffle=True, random_state=0)
    regressor = KNeighborsRegressor(metric="precomputed")
    assert get_tags(ww.TransformedTarget(regressor, StandardScaler())).input_tags.pairwise
    assert not get_tags(TransformedTargetRegressor(regressor, transformer=StandardScaler())).input_tags.pairwise
    ours = cross_val_score(ww.TransformedTarget(regressor, StandardScaler()), distances, y, cv=cv, error_score="raise")
    alone = cross_val_score(regressor, distances, y, cv=cv, error_score="raise")  # a mean of neighbours: linear in y
    np.testing.assert_allclose(ours, alone, rtol=0, atol=1e-12)


def _mixed_frame():
    """The diabetes data as a frame of mixed dtypes: a categorical of strings beside bools, nullable integers,
    floats and booleans (with missing values), and dates, which no single NumPy dtype holds."""
    frame = load_diabetes(as_frame=True).data
    X = pd.DataFrame({
        "sex": pd.Categorical(np.where(frame["sex"] > 0, "m", "f")),
        "high_bp": frame["bp"] > 0,
        "age": pd.array((frame["age"] * 100).round().astype(int), dtype="Int64"),
        "bmi": pd.array(frame["bmi"], dtype="Float64"),
        "high_s1": pd.array(frame["s1"] > 0, dtype="boolean"),
        "s5": frame["s5"],
    })
    X.loc[::7, "age"] = pd.NA
    X.loc[::5, "bmi"] = pd.NA
    X.loc[::9, "high_s1"] = pd.NA
    return X


@pytest.mark.parametrize("columns", [
    ["sex", "high_bp"], ["sex", "age"], ["sex", "bmi"], ["sex", "high_s1"], ["sex", "high_bp", "age", "bmi", "high_s1", "s5"],
], ids="-".join)
def test_a_frame_of_mixed_dtypes_goes_to_the_steps_as_scikit_learn_s_pipeline_hands_it_on(columns):
    # scikit-learn's check_array cannot make one array of a categorical of strings and a boolean or nullable column
    # ("Cannot cast str dtype to float64"); its Pipeline does not ask it to, and its steps take the frame
    X, y = _mixed_frame()[columns], Y_DATA

    def steps():
        return [("boost", HistGradientBoostingRegressor(categorical_features="from_dtype", max_iter=20, random_state=0))]

    ours, theirs = ww.Pipeline(steps()).fit(X, y), SkPipeline(steps()).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert list(ours.feature_names_in_) == columns and ours.n_features_in_ == len(columns)
    tt = ww.TransformedTarget(steps()[0][1], StandardScaler()).fit(X, y)
    reference = TransformedTargetRegressor(steps()[0][1], transformer=StandardScaler()).fit(X, y)
    np.testing.assert_array_equal(tt.predict(X), reference.predict(X))
    with pytest.raises(ww.DataError, match=r"Found array with 0 sample\(s\) \(shape=\(0, \d\)\)"):  # still checked
        ww.Pipeline(steps()).fit(X.iloc[:0], y[:0])
    with pytest.raises(ww.DataError, match=r"inconsistent numbers of samples: \[442, 441\]"):
        ww.Pipeline(steps()).fit(X, y[1:])


def test_a_frame_with_dates_goes_to_a_column_transformer_as_scikit_learn_s_pipeline_hands_it_on():
    X = _mixed_frame()
    X["visit"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(X)), unit="D")

    def steps():
        encode = ColumnTransformer([
            ("days", FunctionTransformer(lambda d: (d["visit"] - d["visit"].min()).dt.days.to_frame()), ["visit"]),
            ("flags", "passthrough", ["high_bp"]),
            ("numbers", SimpleImputer(), ["age", "bmi", "s5"]),
        ])
        return [("encode", encode), ("ridge", Ridge())]

    ours, theirs = ww.Pipeline(steps()).fit(X, Y_DATA), SkPipeline(steps()).fit(X, Y_DATA)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-9)


@pytest.mark.parametrize("steps", [
    lambda: [("lr", LogisticRegression()), ("scale", StandardScaler())],
    lambda: [("lr", LogisticRegression()), ("skip", "passthrough")],
    lambda: [("scale", StandardScaler()), ("lr", LogisticRegression()), ("skip", None)],
], ids=["before a scaler", "before passthrough", "before None"])
def test_a_step_before_the_last_that_does_not_transform_is_refused_as_scikit_learn_s_pipeline_refuses_it(steps):
    with pytest.raises(TypeError, match="All intermediate steps should be transformers"):
        SkPipeline(steps()).fit(X_IRIS, Y_IRIS)
    pipe = ww.Pipeline(steps())
    with pytest.raises(ww.ArgumentError, match=r"step 'lr' \(LogisticRegression\) is not the last step, so it must be a "
                       r"transformer .* even when those after it are 'passthrough' or None"):
        pipe.fit(X_IRIS, Y_IRIS)
    assert "network_" not in pipe.__dict__ and "machines_" not in pipe.__dict__  # nothing trained


def test_a_transformed_target_without_a_regressor_is_scikit_learn_s_linear_regression():
    ours = ww.TransformedTarget(transformer=StandardScaler()).fit(X_DATA, Y_DATA)
    theirs = TransformedTargetRegressor(transformer=StandardScaler()).fit(X_DATA, Y_DATA)
    np.testing.assert_allclose(ours.predict(X_DATA), theirs.predict(X_DATA), rtol=0, atol=1e-9)
    assert type(ours.regressor_) is type(theirs.regressor_) and ours.regressor is None  # the parameter as given
    Y = np.c_[Y_DATA, np.sqrt(Y_DATA)]  # a linear regression learns several targets: so does the composite
    assert get_tags(ww.TransformedTarget()).target_tags.multi_output is get_tags(TransformedTargetRegressor()).target_tags.multi_output
    np.testing.assert_allclose(
        ww.TransformedTarget().fit(X_DATA, Y).predict(X_DATA), TransformedTargetRegressor().fit(X_DATA, Y).predict(X_DATA),
        rtol=0, atol=1e-9,
    )


@pytest.mark.parametrize("target", [Y_DATA.astype(str), Y_DATA.astype(bytes)], ids=["str", "bytes"])
def test_a_transformed_target_refuses_a_target_of_strings_as_scikit_learn_s(target):
    # a scaler would read '151.0' as a number; scikit-learn's TransformedTargetRegressor asks for numbers
    with pytest.raises(ValueError) as theirs:
        TransformedTargetRegressor(Ridge(), transformer=StandardScaler()).fit(X_DATA, target)
    ours = ww.TransformedTarget(Ridge(), StandardScaler())
    with pytest.raises(ww.DataError) as info:
        ours.fit(X_DATA, target)
    assert str(info.value) == f"TransformedTarget.fit cannot use the data it received: {str(theirs.value).rstrip('.')}."
    assert "n_features_in_" not in ours.__dict__  # refused before anything is set


@pytest.mark.parametrize("last, data", [
    (PoissonRegressor(), "diabetes"), (GammaRegressor(), "diabetes"),
    (MultiOutputClassifier(LogisticRegression()), "two labels"), (LogisticRegression(), "iris"),
], ids=["poisson", "gamma", "multi-output", "logistic"])
def test_a_pipeline_scores_by_its_last_step_s_score_as_scikit_learn_s(last, data):
    # Poisson and gamma regressors score by the deviance explained (D²), a multi-output classifier by the mean
    # accuracy per label: not R² or accuracy of the predictions
    X, y = {
        "diabetes": (X_DATA, Y_DATA), "iris": (X_IRIS, Y_IRIS),
        "two labels": (X_IRIS, np.c_[Y_IRIS == 0, Y_IRIS == 2].astype(int)),
    }[data]
    weights = np.random.RandomState(0).uniform(0.1, 3.0, len(X))

    def steps():
        return [("scale", StandardScaler()), ("last", clone(last))]

    ours, theirs = ww.Pipeline(steps()).fit(X, y), SkPipeline(steps()).fit(X, y)
    assert ours.score(X, y) == theirs.score(X, y)
    if data == "two labels":  # MultiOutputClassifier.score takes no weights
        with pytest.raises(TypeError, match="unexpected keyword argument 'sample_weight'"):
            theirs.score(X, y, sample_weight=weights)
        with pytest.raises(ww.ArgumentError, match=r"Pipeline.score is its last step's score \(MultiOutputClassifier\), "
                           "which takes no sample_weight"):
            ours.score(X, y, sample_weight=weights)
    else:
        assert ours.score(X, y, sample_weight=weights) == theirs.score(X, y, sample_weight=weights)
    grid = {"last__" + next(iter(p for p in ("alpha", "estimator__C", "C") if p in last.get_params())): [0.1, 10.0]}
    cv = KFold(3, shuffle=True, random_state=0)  # iris is sorted by class
    searched = [GridSearchCV(e, grid, cv=cv).fit(X, y).cv_results_["mean_test_score"] for e in (ours, theirs)]
    np.testing.assert_allclose(searched[0], searched[1], rtol=0, atol=1e-12)


def test_a_pipeline_with_a_target_transformer_scores_as_a_transformed_target_regressor():
    def steps():
        return [("scale", StandardScaler()), ("poisson", PoissonRegressor())]

    ours = ww.Pipeline(steps(), target_transformer=StandardScaler(with_mean=False)).fit(X_DATA, Y_DATA)
    theirs = TransformedTargetRegressor(SkPipeline(steps()), transformer=StandardScaler(with_mean=False)).fit(X_DATA, Y_DATA)
    assert ours.score(X_DATA, Y_DATA) == pytest.approx(theirs.score(X_DATA, Y_DATA), rel=0, abs=1e-12)  # R²


def test_a_frame_with_other_columns_is_not_copied_to_be_checked_again(monkeypatch):
    # a ColumnTransformer picks its columns by name from a frame with extra ones: the composite's check refuses
    # the names, and the frame goes on to the models; it must not be copied as objects on that way (every call)
    X = _mixed_frame()[["high_bp", "age", "s5"]]
    encode = ColumnTransformer([("flags", "passthrough", ["high_bp"]), ("numbers", SimpleImputer(), ["age", "s5"])])
    pipe = ww.Pipeline([("encode", encode), ("ridge", Ridge())]).fit(X, Y_DATA)
    copies = []
    astype = pd.DataFrame.astype
    monkeypatch.setattr(pd.DataFrame, "astype", lambda frame, dtype, *a, **k: copies.append(dtype) or astype(frame, dtype, *a, **k))
    np.testing.assert_array_equal(pipe.predict(X.assign(id=1)[["id", *X.columns]]), pipe.predict(X))
    assert object not in copies


def _iris_as_text_and_dicts():
    """Iris as short texts ("sl_5 sw_3 pl_1 pw_0", its measures rounded down) and as dicts of its measures."""
    names = ["sl", "sw", "pl", "pw"]
    texts = [" ".join(f"{name}_{int(value)}" for name, value in zip(names, row)) for row in X_IRIS]
    return texts, [dict(zip(names, map(float, row))) for row in X_IRIS]


@pytest.mark.parametrize("first, data", [
    (lambda: TfidfVectorizer(), 0), (lambda: CountVectorizer(binary=True), 0), (lambda: DictVectorizer(), 1),
], ids=["tf-idf", "counts", "dicts"])
def test_a_pipeline_whose_first_step_takes_text_or_dicts_gets_them_as_scikit_learn_s(first, data):
    X = _iris_as_text_and_dicts()[data]
    weights = np.random.RandomState(0).uniform(0.1, 3.0, len(X))

    def steps():
        return [("first", first()), ("lr", LogisticRegression(max_iter=1000))]

    ours, theirs = ww.Pipeline(steps()).fit(X, Y_IRIS), SkPipeline(steps()).fit(X, Y_IRIS)
    for operation in ("predict", "predict_proba", "decision_function"):
        np.testing.assert_allclose(getattr(ours, operation)(X[:20]), getattr(theirs, operation)(X[:20]), rtol=0, atol=1e-10)
    assert ours.score(X, Y_IRIS) == theirs.score(X, Y_IRIS)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ours)).predict(X), theirs.predict(X))
    assert not hasattr(ours, "n_features_in_") and not hasattr(theirs, "n_features_in_")  # no columns to count
    weighted = SkPipeline(steps()).fit(X, Y_IRIS, lr__sample_weight=weights)
    np.testing.assert_allclose(ww.Pipeline(steps()).fit(X, Y_IRIS, sample_weight=weights).predict_proba(X),
                               weighted.predict_proba(X), rtol=0, atol=1e-10)
    cv = KFold(3, shuffle=True, random_state=0)
    np.testing.assert_array_equal(cross_val_score(ww.Pipeline(steps()), X, Y_IRIS, cv=cv), cross_val_score(SkPipeline(steps()), X, Y_IRIS, cv=cv))
    transformer = ww.Pipeline(steps()[:1]).fit(X)  # names from the first step, given no input names
    assert list(transformer.get_feature_names_out()) == list(SkPipeline(steps()[:1]).fit(X).get_feature_names_out())
    with pytest.raises(ww.DataError, match=r"inconsistent numbers of samples: \[150, 149\]"):
        ww.Pipeline(steps()).fit(X, Y_IRIS[1:])
    with pytest.raises(ww.DataError, match="Found array with 0 sample"):
        ww.Pipeline(steps()).fit(X[:0], Y_IRIS[:0])


def test_an_isotonic_regression_takes_one_column_given_as_a_vector_as_in_scikit_learn():
    x = X_DATA[:, 2]  # one feature, 1-D, as IsotonicRegression takes it
    ours, theirs = ww.Pipeline([("iso", IsotonicRegression())]).fit(x, Y_DATA), SkPipeline([("iso", IsotonicRegression())]).fit(x, Y_DATA)
    np.testing.assert_array_equal(ours.predict(x), theirs.predict(x))
    tt = ww.TransformedTarget(IsotonicRegression(), StandardScaler()).fit(x, Y_DATA)
    np.testing.assert_allclose(tt.predict(x), TransformedTargetRegressor(IsotonicRegression(), transformer=StandardScaler()).fit(x, Y_DATA).predict(x), rtol=0, atol=1e-9)
    with pytest.raises(ww.DataError, match="Expected 2D array, got 1D array"):  # a first step that takes columns
        ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(x, Y_DATA)


#: What a pipeline may offer, to compare which of them ours and scikit-learn's have.
OPERATIONS = (
    "predict", "fit_predict", "transform", "fit_transform", "inverse_transform", "score", "score_samples",
    "decision_function", "get_feature_names_out",
)


def test_a_last_step_that_only_embeds_its_training_data_fits_and_transforms_as_scikit_learn_s_pipeline():
    # a last step with fit_transform and no transform was a GraphError at fit ("offers none of predict, ...")
    X = load_digits().data[:300]

    def steps(perplexity=30.0):
        return [("scale", StandardScaler()), ("tsne", TSNE(perplexity=perplexity, random_state=0, init="pca"))]

    ours, theirs = ww.Pipeline(steps()), SkPipeline(steps())
    offered = [op for op in OPERATIONS if hasattr(theirs, op)]
    assert [op for op in OPERATIONS if hasattr(ours, op)] == offered == ["fit_transform", "get_feature_names_out"]
    embedding = ours.fit_transform(X)
    np.testing.assert_array_equal(embedding, theirs.fit_transform(X))
    assert not hasattr(ours, "transform") and [op for op in OPERATIONS if hasattr(ours, op)] == offered  # fitted too
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out()) == ["tsne0", "tsne1"]
    # nothing changed: nothing trains, and the same values come back (fit or fit_transform)
    for again in (lambda: ours.fit_transform(X), lambda: ours.fit(X).fit_transform(X)):
        np.testing.assert_array_equal(again(), embedding)
        assert {m["action"] for m in ours.report_()["machines"].values()} == {"skipped"}
    ours.set_params(tsne__perplexity=10.0)
    np.testing.assert_array_equal(ours.fit_transform(X), SkPipeline(steps(10.0)).fit_transform(X))
    assert [m["action"] for m in ours.report_()["machines"].values()] == ["skipped", "updated"]  # the TSNE alone


@pytest.mark.parametrize(
    "last",
    [SpectralEmbedding(random_state=0), MDS(n_init=1, max_iter=100, init="random", random_state=0)],
    ids=["spectral", "mds"],
)
def test_an_embedding_last_step_fits_as_scikit_learn_s_pipeline_with_a_target_weights_and_after_a_pickle(last):
    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    weights = np.random.RandomState(0).uniform(0.5, 2.0, len(y))

    def steps():
        return [("scale", StandardScaler()), ("embed", clone(last))]

    ours = ww.Pipeline(steps()).fit(X, y)  # fit alone, as scikit-learn's: its fit_transform then trains nothing
    expected = SkPipeline(steps()).fit_transform(X, y)
    np.testing.assert_array_equal(ours.fit_transform(X, y), expected)
    assert {m["action"] for m in ours.report_()["machines"].values()} == {"skipped"}
    assert not hasattr(ours, "transform") and not hasattr(SkPipeline(steps()), "transform")
    copied = pickle.loads(pickle.dumps(ours))  # the embedding is dropped from the pickle: the step trains again
    np.testing.assert_array_equal(copied.fit_transform(X, y), expected)
    assert [m["action"] for m in copied.report_()["machines"].values()] == ["skipped", "trained"]
    # weights: the steps whose fit takes them, as scikit-learn's Pipeline given them per step
    weighted = ww.Pipeline(steps()).fit_transform(X, sample_weight=weights)
    np.testing.assert_array_equal(weighted, SkPipeline(steps()).fit_transform(X, scale__sample_weight=weights))
    assert np.abs(weighted - SkPipeline(steps()).fit_transform(X)).max() > 1e-6  # the weights mattered
    with pytest.raises(ww.GraphError, match=r"has a value on the training data only: .* has no transform\(\) for new data"):
        ours.network_["fit_transform"](X)


@pytest.mark.parametrize(
    "steps",
    [
        lambda: [("scale", StandardScaler()), ("lr", LogisticRegression())],
        lambda: [("scale", StandardScaler()), ("skip", "passthrough"), ("lr", LogisticRegression())],
        lambda: [("lr", LogisticRegression(max_iter=1000))],
        lambda: [("plain", FunctionTransformer()), ("knn", KNeighborsClassifier())],  # a step before the last lacks it
    ],
    ids=["scaler then classifier", "a step skipped", "classifier alone", "an unnamed transformer first"],
)
def test_get_feature_names_out_of_a_pipeline_that_predicts_is_there_and_raises_as_scikit_learn_s(steps):
    # ours had no get_feature_names_out when the last step predicts (hasattr false); scikit-learn's Pipeline has it
    # always, and calling it raises an AttributeError naming the first step without one
    ours, theirs = ww.Pipeline(steps()), SkPipeline(steps())
    assert [op for op in OPERATIONS if hasattr(ours, op)] == [op for op in OPERATIONS if hasattr(theirs, op)]
    assert hasattr(ours, "get_feature_names_out") and hasattr(theirs, "get_feature_names_out")
    lacking = next(name for name, step in steps() if step != "passthrough" and not hasattr(step, "get_feature_names_out"))
    first = lacking == steps()[0][0]
    for pipe in (ours, theirs):  # before fit: the error of the first step asked that cannot answer
        with pytest.raises(AttributeError if first else NotFittedError, match=f"{lacking} .*does not provide" if first else None):
            pipe.get_feature_names_out()
    ours.fit(X_IRIS, Y_IRIS)
    theirs.fit(X_IRIS, Y_IRIS)
    assert [op for op in OPERATIONS if hasattr(ours, op)] == [op for op in OPERATIONS if hasattr(theirs, op)]
    with pytest.raises(AttributeError, match=f"Estimator {lacking} does not provide get_feature_names_out"):
        theirs.get_feature_names_out()
    with pytest.raises(
        ww.UnavailableError,
        match=rf"Estimator {lacking} \(\w+\) does not provide get_feature_names_out, so this Pipeline names no output "
        rf"columns.*" + ("they are the pipeline's input" if first else "fit a ww.Pipeline of the steps before it"),
    ) as caught:
        ours.get_feature_names_out()
    assert isinstance(caught.value, AttributeError)
