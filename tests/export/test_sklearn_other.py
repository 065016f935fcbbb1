"""scikit-learn estimators that are not trees: ColumnTransformer, PCA, selectors, linear models, skl2onnx's parts."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.datasets import load_breast_cancer
from sklearn.decomposition import PCA, IncrementalPCA
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.feature_selection import (
    RFE,
    RFECV,
    SelectFromModel,
    SelectKBest,
    SequentialFeatureSelector,
    VarianceThreshold,
    f_regression,
)
from sklearn.linear_model import (
    ARDRegression,
    BayesianRidge,
    HuberRegressor,
    Lasso,
    LassoLarsIC,
    LogisticRegression,
    MultiTaskLasso,
    OrthogonalMatchingPursuit,
    QuantileRegressor,
    Ridge,
    SGDRegressor,
    TheilSenRegressor,
)
from sklearn.svm import LinearSVR
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import (
    OneHotEncoder,
    PolynomialFeatures,
    StandardScaler,
)
from sklearn.tree import DecisionTreeRegressor

from _sklearn_data import FRAME, SERUM, TARGET, categorical_frame, categories_passed_through, labelled, exact, hgb

import wirework as ww


@pytest.mark.parametrize("last", [Ridge(), hgb()], ids=["Ridge", "HistGradientBoosting"])
def test_a_column_transformer_selecting_by_name_exports_as_it_transforms(last):
    columns = ColumnTransformer(
        [("scaled", StandardScaler(), ["age", "bmi", "bp"]), ("serum", PCA(n_components=2), SERUM)],
        remainder="passthrough",
    )
    pipe = ww.Pipeline([("columns", columns), ("last", last)]).fit(FRAME, TARGET)
    # no X_sample: the network trained on a DataFrame is run on one to learn its shapes
    assert exact(pipe, FRAME) <= (0.0 if isinstance(last, HistGradientBoostingRegressor) else 1e-12)


def test_dropped_selected_and_remainder_parts_in_scikit_learn_s_order():
    with_group = FRAME.assign(group=pd.cut(FRAME.bmi, 4, labels=False).astype(float))
    columns = ColumnTransformer(
        [
            ("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["group"]),
            ("drop", "drop", ["bp"]),
            ("nothing", StandardScaler(), []),  # selects no column: no output, as in scikit-learn
            ("serum", make_pipeline(StandardScaler(), PCA(3)), make_column_selector(pattern="^s")),
        ],
        remainder=StandardScaler(),
    )
    pipe = Pipeline([("columns", columns), ("tree", hgb())]).fit(with_group, TARGET)
    assert exact(pipe, with_group, X_sample=with_group.iloc[:5]) == 0.0
    transformed = ww.to_onnx(columns, X_sample=with_group.iloc[:5], methods=["transform"])
    ours = ww.onnx.check_parity(columns, transformed, with_group)
    assert ours.outputs["transform"].max_abs <= 1e-12


@pytest.mark.parametrize(
    "projection",
    [PCA(n_components=3), PCA(n_components=3, whiten=True), IncrementalPCA(n_components=3)],
    ids=["PCA", "whitened", "incremental"],
)
def test_a_tree_after_a_projection_sees_the_very_values_scikit_learn_computes(projection):
    # HistGradientBoosting may put a threshold exactly on a training value: centring before projecting (as
    # skl2onnx does) moved 28 of the 442 diabetes rows across one
    X = FRAME.to_numpy()
    pipe = Pipeline([("projection", projection), ("tree", hgb())]).fit(X, TARGET)
    assert exact(pipe, X) == 0.0


def test_a_column_transformer_with_no_output_is_refused():
    nothing = ColumnTransformer([("drop", "drop", ["age"])]).fit(FRAME[["age"]])
    with pytest.raises(ww.ExportError, match="outputs no column"):
        ww.to_onnx(nothing, X_sample=FRAME[["age"]].iloc[:2], methods=["transform"])


@pytest.mark.parametrize("classes", [2, 3])
def test_linear_classifiers_scores_and_no_probabilities_they_lack(classes):
    from sklearn.datasets import load_wine
    from sklearn.linear_model import LogisticRegression, RidgeClassifier
    from sklearn.svm import SVC, LinearSVC

    X, y = load_wine(return_X_y=True)
    X, y = StandardScaler().fit_transform(X[y < classes]), y[y < classes]
    for model in (LogisticRegression(), LinearSVC(), RidgeClassifier()):
        model.fit(X, y)
        scores = ww.to_onnx(model, X_sample=X[:3], methods=["decision_function"])
        report = ww.onnx.check_parity(model, scores, X)
        assert report.outputs["decision_function"].max_abs <= 1e-12, type(model).__name__
        assert np.ndim(ww.onnx.session(scores).run(None, {"X": X})[0]) == (1 if classes == 2 else 2)
        labels = ww.to_onnx(model, X_sample=X[:3], methods=["predict"])  # LinearSVC: skl2onnx cannot, in float64
        assert ww.onnx.check_parity(model, labels, X).outputs["predict"].rows_differ == 0
    # a classifier without predict_proba exports none by default (skl2onnx's second output is its scores)
    assert [o.name for o in ww.to_onnx(LinearSVC().fit(X, y), X_sample=X[:3]).graph.output] == ["predict"]
    with pytest.raises(ww.ExportError, match=r"SVC: cannot export predict_proba; its converter exports predict, decision_function\."):
        ww.to_onnx(SVC().fit(X, y), X_sample=X[:3], methods=["predict_proba"])


def test_a_stack_over_scores_of_linear_classifiers_exports():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    X, y = load_breast_cancer(return_X_y=True)
    base = [("svc", make_pipeline(StandardScaler(), LinearSVC())), ("lr", make_pipeline(StandardScaler(), LogisticRegression()))]
    stack = ww.Stack(base, LogisticRegression(), cv=3).fit(X, y)  # stack_method "auto": the SVC's decision_function
    report = ww.onnx.check_parity(stack, ww.to_onnx(stack), X)
    assert report.outputs["predict"].rows_differ == 0 and report.outputs["predict_proba"].max_abs <= 1e-12


def test_an_output_whose_rank_shape_inference_cannot_tell_takes_the_rank_of_the_models_own():
    # a converter may write a label ONNX's shape inference gives no shape (skl2onnx's SVMClassifier did):
    # its rank is read from the model's own output on the sample rows, and without it the export is refused
    from sklearn.base import BaseEstimator, ClassifierMixin

    from wirework.export.heads import class_at
    from wirework.export.registry import register

    class Lost(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.n_features_in_, self.classes_ = np.shape(X)[1], np.unique(y)
            return self

        def predict(self, X):
            return self.classes_[(np.asarray(X)[:, 0] > 0).astype(int)]

    @register(Lost, methods=lambda model: ("predict",))
    def _convert_lost(model, method, g, x):
        index = g.cast(g.op("Greater", [g.columns(x, 0, 1), g.const(0.0, "zero")]), np.int64)
        rows = g.op("Compress", [g.op("Shape", [x]), g.const([True, False], "first", dtype=np.bool_)], axis=0)
        return class_at(g, g.op("Reshape", [index, rows]), model.classes_)  # [N], of a rank ONNX cannot infer

    X, y = np.array([[1.0, 2.0], [-1.0, 0.0], [2.0, 2.0], [-3.0, 1.0]]), np.array([0, 1, 1, 0])
    model = Lost().fit(X, y)
    exported = ww.to_onnx(model, X_sample=X[:3])
    label = exported.graph.output[0]
    assert label.name == "predict" and len(label.type.tensor_type.shape.dim) == 1
    assert ww.onnx.check_parity(model, exported, X).outputs["predict"].rows_differ == 0
    model.predict = lambda rows: 1 / 0  # its rank cannot be read natively either
    with pytest.raises(ww.ExportError, match="Cannot tell the shape of output 'predict': .* Pass X_sample= with a few real rows"):
        ww.to_onnx(model, X_sample=X[:3])


@pytest.mark.parametrize("data", ["iris", "wine", "breast_cancer"])
@pytest.mark.parametrize("params", [{}, {"reg_param": 0.1}, {"solver": "eigen", "shrinkage": 0.2}])
def test_quadratic_discriminant_analysis_exports_labels_scores_and_probabilities(data, params):
    # scikit-learn's per-class log posteriors step by step (skl2onnx gives no decision_function): the same
    # labels, scores within 1e-15 of their scale, probabilities within a few ulps
    import warnings as _warnings

    from sklearn import datasets
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    X, y = getattr(datasets, f"load_{data}")(return_X_y=True)
    if data == "breast_cancer":  # a binary problem; columns of full rank in each class
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        X = X[:, [1, 4, 8, 9, 11, 14]]
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")  # collinear variables
        model = QuadraticDiscriminantAnalysis(**params).fit(X, y)
    exported = ww.to_onnx(model, methods=["predict", "predict_proba", "decision_function"], X_sample=X[:3])
    report = ww.onnx.check_parity(model, exported, X).outputs
    assert report["predict"].rows_differ == 0
    scores = model.decision_function(X)
    assert scores.ndim == (1 if data == "breast_cancer" else 2)
    assert report["decision_function"].max_abs <= 1e-15 * np.abs(scores).max()
    assert report["predict_proba"].max_abs <= 4e-15


def test_a_converter_that_writes_an_invalid_graph_is_an_export_error():
    from sklearn.base import BaseEstimator, RegressorMixin

    from wirework.export.registry import register

    class Broken(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            self.n_features_in_ = np.shape(X)[1]
            return self

        def predict(self, X):
            return np.zeros(len(X))

    @register(Broken, methods=lambda model: ("predict",))
    def _convert_broken(model, method, g, x):
        return g.op("Add", [x], hint="one_operand")  # Add takes two

    model = Broken().fit(np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(ww.ExportError, match="The exported graph of Broken is not a valid ONNX model"):
        ww.to_onnx(model, X_sample=np.zeros((2, 2)))


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
def test_columns_a_column_transformer_drops_are_fed_whatever_they_hold(inputs):
    # a frame with an identifier and free text the model never reads: they stay inputs (the model was
    # trained on every column), marked unused, and feed() gives them NaN instead of refusing the strings
    X = labelled()[["weight", "s1", "s5"]].assign(
        patient=[f"p{k:03d}" for k in range(len(FRAME))], note=np.where(FRAME.s2 > 0, "seen twice", "")
    )
    columns = ColumnTransformer(
        [("cats", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["weight"]), ("nums", "passthrough", ["s1", "s5"])],
        remainder="drop",
    )
    pipe = ww.Pipeline([("columns", columns), ("ridge", Ridge())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:5], inputs=inputs)
    signature = {c["name"]: c for c in ww.onnx.input_signature(model)["columns"]}
    assert signature["patient"]["unused"] and signature["note"]["unused"] and "unused" not in signature["s1"]
    assert ww.onnx.check_parity(pipe, model, X).max_abs <= 1e-12
    kept = Pipeline([("columns", clone(columns)), ("ridge", Ridge())]).fit(X, TARGET)  # scikit-learn's own
    assert ww.onnx.check_parity(kept, ww.to_onnx(kept, X_sample=X.iloc[:5], inputs=inputs), X).max_abs <= 1e-12
    everything = ww.to_onnx(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(FRAME[SERUM], TARGET))
    assert not any("unused" in c for c in ww.onnx.input_signature(everything)["columns"])


@pytest.mark.parametrize(
    "selector",
    [
        VarianceThreshold(0.005),
        SelectKBest(f_regression, k=4),
        SelectFromModel(Lasso(alpha=0.5)),
        SequentialFeatureSelector(Ridge(), n_features_to_select=3, cv=3),
        RFE(Ridge(), n_features_to_select=4),
    ],
    ids=["variance", "k best", "from model", "sequential", "RFE"],
)
def test_feature_selectors_keep_their_columns_exactly(selector):
    X = FRAME[SERUM] * [1.0, 2.0, 1.0, 3.0, 1.0, 0.5]  # unequal variances (the threshold keeps two columns)
    selector = clone(selector).fit(X.to_numpy(), TARGET)
    kept = selector.transform(X.to_numpy())
    assert 0 < kept.shape[1] < len(SERUM)
    model = ww.to_onnx(selector, X_sample=X.to_numpy()[:3], methods=["transform"])
    assert ww.onnx.check_parity(selector, model, X.to_numpy()).max_abs == 0.0
    pipe = ww.Pipeline([("select", clone(selector)), ("tree", hgb())]).fit(X, TARGET)
    model = ww.to_onnx(pipe, X_sample=X.iloc[:3])
    assert ww.onnx.check_parity(pipe, model, X).max_abs == 0.0
    unused = [c["name"] for c in ww.onnx.input_signature(model)["columns"] if c.get("unused")]
    assert len(unused) == len(SERUM) - kept.shape[1]  # feed gives them NaN, whatever they hold


def test_recursive_elimination_predicts_with_its_fitted_model_on_the_kept_columns():
    # skl2onnx gave RFE's predictions the wrong shape ([4 N] for [N])
    rfe = RFE(Ridge(), n_features_to_select=4).fit(FRAME, TARGET)
    model = ww.to_onnx(rfe, X_sample=FRAME.iloc[:3])
    assert ww.onnx.check_parity(rfe, model, FRAME).max_abs <= 1e-12
    X, y = load_breast_cancer(return_X_y=True)
    chosen = RFECV(LogisticRegression(max_iter=5000), step=5, cv=3).fit(X, y)
    model = ww.to_onnx(chosen, X_sample=X[:3], methods=["predict", "predict_proba", "decision_function"])
    report = ww.onnx.check_parity(chosen, model, X)
    assert report.flips == 0 and report.max_abs <= 1e-9


def test_a_selector_that_keeps_no_column_is_refused():
    selector = SelectKBest(f_regression, k=0).fit(FRAME[SERUM], TARGET)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn's "No features were selected"
        with pytest.raises(ww.ExportError, match="SelectKBest keeps no column; there is nothing to export"):
            ww.to_onnx(selector, X_sample=FRAME[SERUM].iloc[:3], methods=["transform"])


@pytest.mark.parametrize(
    "regressor",
    [
        BayesianRidge(),
        ARDRegression(),
        HuberRegressor(max_iter=500),
        QuantileRegressor(alpha=0.0),
        TheilSenRegressor(random_state=0),
        SGDRegressor(random_state=0, max_iter=5000, tol=None),
        LinearSVR(random_state=0, max_iter=10000),
        LassoLarsIC(),
        OrthogonalMatchingPursuit(n_nonzero_coefs=4),
        MultiTaskLasso(alpha=0.1),
    ],
    ids=lambda model: type(model).__name__,
)
def test_linear_regressors_are_their_coefficients(regressor):
    # X @ coef_.T + intercept_ in the export dtype, as scikit-learn's predict computes it (several targets too)
    y = np.column_stack([TARGET, -TARGET / 2]) if isinstance(regressor, MultiTaskLasso) else TARGET
    fitted = clone(regressor).fit(FRAME, y)
    model = ww.to_onnx(fitted, X_sample=FRAME.iloc[:3])
    assert ww.onnx.check_parity(fitted, model, FRAME).max_abs <= 1e-12


@pytest.mark.parametrize(
    "options", [{"strategy": "mean"}, {"strategy": "quantile", "quantile": 0.3}, {"strategy": "constant", "constant": 3.5}]
)
def test_dummy_regressors_predict_their_constant_on_every_row(options):
    # baselines (of a stack, of a search): skl2onnx has no converter; rows with missing values too
    model = DummyRegressor(**options).fit(FRAME, TARGET)
    rows = np.vstack([FRAME.to_numpy(), np.full((1, FRAME.shape[1]), np.nan)])
    assert ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=FRAME.iloc[:3]), rows).max_abs == 0.0
    two = {**options, "constant": [3.5, -1.0]} if "constant" in options else options  # one per target
    several = DummyRegressor(**two).fit(FRAME, np.column_stack([TARGET, TARGET]))
    assert ww.onnx.check_parity(several, ww.to_onnx(several, X_sample=FRAME.iloc[:3]), FRAME).max_abs == 0.0


@pytest.mark.parametrize("strategy", ["most_frequent", "prior", "uniform", "constant"])
def test_dummy_classifiers_labels_and_probabilities(strategy):
    X, y = load_breast_cancer(return_X_y=True)
    labels = np.where(y == 1, "benign", "malignant")
    model = DummyClassifier(strategy=strategy, constant="malignant").fit(X, labels)
    methods = ["predict_proba"] if strategy == "uniform" else ["predict", "predict_proba"]  # uniform labels are random
    report = ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=X[:3], methods=methods), X)
    assert report.max_abs == 0.0 and report.flips == 0
    stratified = DummyClassifier(strategy="stratified").fit(X, labels)
    with pytest.raises(ww.ExportError, match="strategy='stratified'\\) draws labels at random"):
        ww.to_onnx(stratified, X_sample=X[:3], methods=["predict_proba"])


def _nudged(model):
    """``model`` whose own ``predict_proba`` gives 1e-9 more than it should: what a skl2onnx form that rounds
    otherwise looks like to the check."""
    honest = model.predict_proba
    model.predict_proba = lambda rows: honest(rows) + 1e-9
    return model


def test_a_skl2onnx_part_that_differs_in_float64_is_refused_where_a_sample_reaches_it():
    # every part skl2onnx converts is run alone on the sample rows that reach it: bare, inside scikit-learn's
    # Pipeline and inside a network (skl2onnx's LinearDiscriminantAnalysis probabilities were 1.5e-3 off so)
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    message = r"float64 form of GaussianNB.predict_proba differs by up to 1e-09 from scikit-learn.s on the sample"
    with pytest.raises(ww.ExportError, match=message):
        ww.to_onnx(_nudged(GaussianNB().fit(X, y)), X_sample=X[:20])
    pipe = make_pipeline(StandardScaler(), GaussianNB()).fit(X, y)
    _nudged(pipe[-1])
    with pytest.raises(ww.ExportError, match=message):
        ww.to_onnx(pipe, X_sample=X[:20])
    network = ww.Pipeline([("scale", StandardScaler()), ("nb", GaussianNB())]).fit(X, y)
    _nudged(network.fitted_params_()["nb"])
    with pytest.raises(ww.ExportError, match=message):
        ww.to_onnx(network, X_sample=X[:20])
    labels_only = ww.to_onnx(network, X_sample=X[:20], methods=["predict"])
    assert ww.onnx.check_parity(network, labels_only, X).outputs["predict"].rows_differ == 0
    honest = GaussianNB().fit(X, y)
    assert ww.onnx.check_parity(honest, ww.to_onnx(honest, X_sample=X[:20]), X).max_abs <= 1e-12


@pytest.mark.parametrize("data", ["binary", "multiclass"])
def test_linear_discriminant_probabilities_are_scikit_learn_s(data):
    # expit of the score for two classes, softmax otherwise; skl2onnx's were 1.5e-3 off in float64
    from sklearn.datasets import load_iris
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y = load_breast_cancer(return_X_y=True) if data == "binary" else load_iris(return_X_y=True)
    model = make_pipeline(StandardScaler(), LinearDiscriminantAnalysis()).fit(X, y)
    report = ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=X[:5]), X)
    assert report.flips == 0 and report.outputs["predict_proba"].max_abs <= 1e-15

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_neighbour_models_are_refused_whatever_the_sample(dtype):
    # skl2onnx's files picked other neighbours among equal distances and weighed a neighbour at distance 0
    # otherwise: 5 of iris' 150 labels flipped, probabilities 0.8 off, while sample rows without ties passed
    from sklearn.datasets import load_iris
    from sklearn.impute import KNNImputer
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, RadiusNeighborsRegressor

    X, y = load_iris(return_X_y=True)
    gaps = X.copy()
    gaps[::9, 1] = np.nan
    for model in (
        KNeighborsClassifier(weights="distance").fit(X, y),
        KNeighborsRegressor().fit(X, y),
        RadiusNeighborsRegressor(radius=2.0).fit(X, y),
        KNNImputer().fit(gaps),
        make_pipeline(StandardScaler(), KNeighborsClassifier()).fit(X, y),
    ):
        with pytest.raises(ww.ExportError, match="cannot be exported exactly: among neighbours at equal distances"):
            ww.to_onnx(model, X_sample=X[:20], dtype=dtype)


def test_kmeans_transform_is_its_distances_to_the_centres():
    # skl2onnx's KMeans gives its labels first and the distances second: the labels were taken for the
    # transform, and the sample check refused them ("gives shape (5,) where scikit-learn gives (5, 8)")
    from sklearn.cluster import KMeans

    X = FRAME.to_numpy()
    kmeans = KMeans(8, n_init=3, random_state=0).fit(X)
    model = ww.to_onnx(kmeans, X_sample=X[:5], methods=["transform"])
    assert ww.onnx.check_parity(kmeans, model, X).max_abs <= 1e-12 * np.abs(kmeans.transform(X)).max()


def test_a_feature_union_is_its_transformers_side_by_side():
    # each transformer on the whole input, times its weight, in order; "drop" left out, "passthrough" the input
    # itself; the codes of string columns its parts read (skl2onnx's form did not run in float64: refused)
    union = FeatureUnion(
        [("scaled", StandardScaler()), ("gone", "drop"), ("squares", PolynomialFeatures(2)), ("raw", "passthrough"),
         ("pca", PCA(3))],
        transformer_weights={"scaled": 2.5, "pca": 0.3},
    )
    assert ww.onnx.check_parity(union.fit(FRAME), ww.to_onnx(union, FRAME), FRAME).max_abs == 0.0
    assert exact(make_pipeline(clone(union), hgb()).fit(FRAME, TARGET), FRAME, X_sample=FRAME) == 0.0
    X = labelled()
    parts = FeatureUnion(
        [
            ("encoded", ColumnTransformer([("onehot", OneHotEncoder(handle_unknown="ignore"), ["sex", "weight"])])),
            ("scaled", ColumnTransformer([("scale", StandardScaler(), ["s1", "s5"])])),
        ]
    )
    model = make_pipeline(parts, DecisionTreeRegressor(random_state=0)).fit(X, TARGET)
    unseen = X.assign(weight="never seen")
    for layout in ("matrix", "columns"):
        exported = ww.to_onnx(model, X, inputs=layout)
        assert ww.onnx.check_parity(model, exported, X).max_abs == 0.0
        assert ww.onnx.check_parity(model, exported, unseen).max_abs == 0.0


def test_a_logistic_regression_exports_in_float32():
    # skl2onnx's float32 probabilities end in an ai.onnx.ml Normalizer, whose type ONNX cannot infer: the
    # export failed ("Cannot tell the type of output 'predict_proba'"); they are cast to the export dtype
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    single = X.astype(np.float32).astype(np.float64)  # the values a float32 file sees
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    report = ww.onnx.check_parity(model, ww.to_onnx(model, X_sample=X[:3], dtype="float32"), single)
    assert report.outputs["predict"].rows_differ == 0 and report.outputs["predict_proba"].max_abs <= 1e-6


@pytest.mark.parametrize("inputs", ["matrix", "columns"])
@pytest.mark.parametrize("last", ["HistGradientBoosting", "LightGBM"])
def test_categoricals_a_column_transformer_passes_through_are_inputs_of_categories(last, inputs):
    """A ColumnTransformer with pandas output hands pandas categoricals on to a model reading them as categories
    (remainder="passthrough", then categorical_features="from_dtype"): the pipeline's input declared them as
    numbers (the next step's categories were not looked for), so feed refused the frame it was trained on. Now
    the input codes them as that model numbers them, and the codes cross the transformer unchanged."""
    import lightgbm

    X, served = categorical_frame()
    model = hgb().set_params(categorical_features="from_dtype") if last == "HistGradientBoosting" else (
        lightgbm.LGBMRegressor(n_estimators=20, verbose=-1)
    )
    pipe = Pipeline(categories_passed_through(model)).fit(X, TARGET)
    exported = ww.to_onnx(pipe, X, inputs=inputs)
    recorded = {c["name"]: c["categories"] for c in ww.onnx.input_signature(exported)["columns"]}
    assert recorded["weight"] is not None and recorded["s1"] is None
    for rows in (X, served, served.iloc[[2]]):
        assert ww.onnx.check_parity(pipe, exported, rows).exact
