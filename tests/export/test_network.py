"""Trained networks and recipes exported as single ONNX graphs, checked with ONNX Runtime."""

from __future__ import annotations

import lightgbm
import numpy as np
import onnxruntime as ort
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.decomposition import PCA
from sklearn.ensemble import BaggingClassifier, HistGradientBoostingClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from _sklearn_data import TARGET, categorical_frame, categories_passed_through

import wirework as ww
from wirework.errors import ExportError, NotTrainedError


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(return_X_y=True)


def _nodes(model) -> list[str]:
    return [n.op_type for n in model.graph.node]


def test_stack_of_lightgbm_ridge_and_forest_is_one_graph_with_float64_parity(diabetes):
    # issue 5, acceptance 4
    X, y = diabetes
    stack = ww.Stack(
        [
            ("gbm", lightgbm.LGBMRegressor(n_estimators=30, num_leaves=15, n_jobs=1, verbose=-1)),
            ("ridge", Ridge()),
            ("forest", RandomForestRegressor(n_estimators=10, max_depth=6, random_state=0, n_jobs=1)),
        ],
        Ridge(),
        cv=KFold(3),
    ).fit(X, y)
    model = ww.to_onnx(stack)
    assert [i.name for i in model.graph.input] == ["X"]
    assert [o.name for o in model.graph.output] == ["predict"]
    assert _nodes(model).count("TreeEnsemble") == 2  # the full-data booster and forest, not the folds'
    report = ww.onnx.check_parity(stack, model, X)
    assert report.max_abs <= 1e-12
    assert ww.onnx.check_parity(stack, model, X, threads=2).max_abs <= 1e-12


def test_pipeline_with_a_scaler_matches(diabetes):
    X, y = diabetes
    pipe = ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(5, random_state=0)), ("ridge", Ridge())]).fit(X, y)
    report = ww.onnx.check_parity(pipe, ww.to_onnx(pipe), X)
    assert report.max_abs <= 1e-12
    float32 = ww.onnx.check_parity(pipe, ww.to_onnx(pipe, dtype="float32"), X)
    assert float32.outputs["predict"].max_rel <= 1e-5


def test_transformed_target_inverts_the_scaler_in_the_graph(diabetes):
    X, y = diabetes
    model = ww.TransformedTarget(Ridge(), StandardScaler()).fit(X, y)
    onnx_model = ww.to_onnx(model)
    assert "Mul" in _nodes(onnx_model) and "Add" in _nodes(onnx_model)
    assert ww.onnx.check_parity(model, onnx_model, X).max_abs <= 1e-12


@pytest.mark.parametrize("recipe", ["TransformedTarget", "Pipeline"])
def test_a_target_transformer_fit_on_one_column_inverts_the_predictions_as_that_column(diabetes, recipe):
    """The target transformer learned y as one column and its machine gives it the 1-D predictions as that
    column; the file gave it the vector, and QuantileTransformer's columns could not be sliced from it (the
    export failed: 'not a valid ONNX model', Slice axis 1)."""
    from sklearn.preprocessing import QuantileTransformer
    from sklearn.tree import DecisionTreeRegressor

    X, y = diabetes
    tree, quantiles = DecisionTreeRegressor(random_state=0), QuantileTransformer(n_quantiles=100)
    if recipe == "TransformedTarget":
        model = ww.TransformedTarget(tree, quantiles)
    else:
        model = ww.Pipeline([("scale", StandardScaler()), ("tree", tree)], target_transformer=quantiles)
    model.fit(X, y)
    assert ww.onnx.check_parity(model, ww.to_onnx(model, X[:5]), X).exact


@pytest.mark.parametrize("passthrough, levels", [(False, 1), (True, 1), (False, 2)])
def test_classifier_stacks_decode_labels_and_match_probabilities(passthrough, levels):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)  # so that the logistic regressions converge fast
    labels = np.where(y == 1, "benign", "malignant")
    stack = ww.Stack(
        [
            ("logistic", LogisticRegression(max_iter=1000)),
            ("forest", RandomForestClassifier(n_estimators=8, max_depth=4, random_state=0, n_jobs=1)),
        ],
        LogisticRegression(max_iter=1000),
        cv=3,
        passthrough=passthrough,
        levels=levels,
    ).fit(X, labels)
    model = ww.to_onnx(stack)
    report = ww.onnx.check_parity(stack, model, X)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["predict_proba"].max_abs <= 1e-12
    assert report.flips == 0


@pytest.mark.parametrize("recipe", ["average", "bagging", "random subspaces", "bootstrap features"])
def test_averages_of_classifiers(recipe):
    X, y = load_iris(return_X_y=True)
    if recipe == "average":
        ensemble = ww.Average(
            [("a", LogisticRegression(max_iter=1000)), ("b", LogisticRegression(C=0.1, max_iter=1000))],
            weights=[2.0, 1.0],
        )
    elif recipe == "bagging":
        ensemble = ww.Bagging(LogisticRegression(max_iter=1000), n_estimators=3, random_state=0)
    elif recipe == "random subspaces":  # each member sees two of the four columns: a Gather of its own columns
        ensemble = ww.Bagging(LogisticRegression(max_iter=1000), n_estimators=3, max_features=2, random_state=0)
    else:  # four columns drawn with replacement: some twice, gathered as drawn
        ensemble = ww.Bagging(LogisticRegression(max_iter=1000), n_estimators=3, bootstrap_features=True, random_state=0)
        assert any(len(np.unique(f)) < 4 for f in ensemble.fit(X, y).estimators_features_)
    ensemble.fit(X, y)
    report = ww.onnx.check_parity(ensemble, ww.to_onnx(ensemble), X)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["predict_proba"].max_abs <= 1e-15


@pytest.mark.parametrize(
    ("load", "options"),
    [(load_wine, {}), (load_wine, {"max_features": 0.5}), (load_breast_cancer, {}), (load_iris, {"max_features": 2})],
    ids=["wine", "wine subspaces", "cancer (binary)", "iris subspaces"],
)
def test_a_voting_bagging_exports_its_members_votes(load, options):
    # a classifier without predict_proba votes (the Votes wrapper): it had no converter, and the export was an
    # ExportError. Its labels and vote shares are exact, and equal scikit-learn's bagging of the same seed (a
    # pipeline takes no sample_weight, so scikit-learn's members train on the drawn rows too)
    X, y = load(return_X_y=True)
    labels = np.array(["a", "b", "c"])[y]
    member = make_pipeline(StandardScaler(), LinearSVC())
    bag = ww.Bagging(member, n_estimators=7, random_state=0, **options).fit(X, labels)
    native = BaggingClassifier(member, n_estimators=7, random_state=0, **options).fit(X, labels)
    np.testing.assert_array_equal(bag.predict(X), native.predict(X))
    np.testing.assert_array_equal(bag.predict_proba(X), native.predict_proba(X))
    model = ww.to_onnx(bag, methods=["predict", "predict_proba", "decision_function"])
    report = ww.onnx.check_parity(bag, model, X)
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["predict_proba"].max_abs == 0
    scores = report.outputs["decision_function"]
    assert scores.flips == 0 and scores.max_abs <= 1e-12 * np.abs(bag.decision_function(X)).max()


def test_a_voting_bagging_of_kernel_machines_exports():
    # SVC without probability=True votes too; its members (trained on the drawn rows' weights) export exactly
    X, y = load_iris(return_X_y=True)
    bag = ww.Bagging(SVC(C=0.5), n_estimators=5, max_samples=0.5, random_state=0).fit(X, y)
    report = ww.onnx.check_parity(bag, ww.to_onnx(bag), X)
    assert list(report.outputs) == ["predict", "predict_proba"]
    assert report.exact, report


@pytest.mark.parametrize(
    "weights", [None, [1.0, 1.0, 2.0], [0.1, 0.2, 0.3000000000000001]], ids=["equal", "one double", "tenths"]
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_hard_voting_counts_votes_and_breaks_ties_as_natively(weights, dtype):
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    voters = [
        ("stump", DecisionTreeClassifier(max_depth=1, random_state=0)),  # knows two of the three labels apart
        ("svc", SVC(C=0.05)),  # predict only
        ("lr", LogisticRegression(C=0.02, max_iter=1000)),
    ]
    vote = ww.Average(voters, weights=weights, voting="hard").fit(X, labels)
    picks = np.column_stack([vote.machines_[k].fitted_model.predict(X) for k in (1, 2, 3)])
    agree = picks[:, 0] == picks[:, 1]
    # rows (13 here) where stump and SVC vote label 1 against the third's label 2: a tie at weights 1, 1, 2,
    # which the smallest label wins; at 0.1, 0.2, 0.3000000000000001 the third wins in float64 (0.1 + 0.2 is
    # 0.30000000000000004), where float32 counts would see a tie and give label 1
    assert (agree & (picks[:, 1] == 1) & (picks[:, 2] == 2)).sum() >= 5
    model = ww.to_onnx(vote, dtype=dtype)
    assert [o.name for o in model.graph.output] == ["predict"]
    report = ww.onnx.check_parity(vote, model, X)
    assert report.outputs["predict"].rows_differ == 0


def test_a_hand_built_network_with_static_operations(diabetes):
    X, y = diabetes
    Xs, ys = ww.source(X, name="X"), ww.source(y, name="y")
    scaled = ww.machine(StandardScaler(), Xs).transform(Xs)
    first = ww.machine(Ridge(alpha=1.0), scaled, ys).predict(scaled)
    second = ww.machine(Ridge(alpha=10.0), scaled[:, [0, 2, 4]], ys).predict(scaled[:, [0, 2, 4]])
    features = ww.hcat(first, second, scaled[:, 1:3], scaled[:, 5])
    blended = ww.mean(first, second) * 0.5 + 2.0 - features[:, 0] / 3.0
    out = -blended
    out.fit()
    model = ww.to_onnx(out)
    assert ww.onnx.check_parity(out, model, X).max_abs <= 1e-12
    wide = ww.machine(Ridge(), features, ys).predict(features)
    wide.fit()
    assert ww.onnx.check_parity(wide, ww.to_onnx(wide), X).max_abs <= 1e-12


def test_static_nodes_of_numpy_functions(diabetes):
    X, y = diabetes
    Xs, ys = ww.source(X, name="X"), ww.source(y, name="y")
    logged = ww.node(np.log1p, ys)  # a log1p target, as TransformedTarget(func=np.log1p) trains
    scores = ww.machine(Ridge(), Xs, logged).predict(Xs)
    back = ww.node(np.expm1, scores)
    out = ww.node(np.sqrt, ww.node(np.absolute, back)) + ww.node(np.square, ww.node(np.negative, ww.node(np.exp, scores / 10.0)))
    out = out + ww.node(np.log, ww.node(np.exp, scores))
    out.fit()
    report = ww.onnx.check_parity(out, ww.to_onnx(out), X)
    assert report.outputs["predict"].max_rel <= 1e-14


def test_a_signature_exports_every_output(diabetes):
    X, y = diabetes
    pipe = ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(3, random_state=0))]).fit(X)
    model = ww.to_onnx(pipe)
    assert [o.name for o in model.graph.output] == ["transform"]
    assert ww.onnx.check_parity(pipe, model, X).max_abs <= 1e-12


def test_refusals_name_what_cannot_be_exported(diabetes):
    X, y = diabetes
    Xs, ys = ww.source(X, name="X"), ww.source(y, name="y")
    odd = ww.node(np.sinc, ww.machine(Ridge(), Xs, ys).predict(Xs))
    odd.fit()
    with pytest.raises(ExportError, match="'sinc'.*has no ONNX lowering. Supported: .*np.log1p"):
        ww.to_onnx(odd)
    typed = ww.node(np.sqrt, ww.machine(Ridge(), Xs, ys).predict(Xs), dtype=np.float64)
    typed.fit()
    with pytest.raises(ExportError, match="sqrt of .* cannot be exported: only one node, without keyword"):
        ww.to_onnx(typed)

    rows = ww.machine(Ridge(), Xs, ys).predict(Xs)[3]
    rows.fit()
    with pytest.raises(ExportError, match="cannot be exported"):
        ww.to_onnx(rows)

    from wirework.compose._ops import majority

    scores = ww.machine(Ridge(), Xs, ys).predict(Xs)
    vote = ww.node(majority, scores * 0.0, scores * 0.0)
    vote.fit()
    with pytest.raises(ExportError, match="majority vote of .* no classifier's predict"):
        ww.to_onnx(vote)

    other = ww.source(X, name="Z")
    both = ww.machine(Ridge(), Xs, ys).predict(Xs) + ww.machine(Ridge(), other, ys).predict(other)
    both.fit()
    with pytest.raises(ExportError, match="exactly one source.*'X', 'Z'"):
        ww.to_onnx(both)

    with pytest.raises(NotTrainedError, match="not been fitted yet"):
        ww.to_onnx(ww.Pipeline([("ridge", Ridge())]))

    pipe = ww.Pipeline([("ridge", Ridge())]).fit(X, y)
    with pytest.raises(ExportError, match="no predict_proba output"):
        ww.to_onnx(pipe, methods=["predict_proba"])


def test_a_network_failing_on_the_sample_is_refused_naming_the_public_error_class(diabetes):
    # wirework's errors that are also the builtin were named as the class that is both,
    # "NodeApplyError[ValueError]"; the message names NodeApplyError, as every other message does
    X, y = diabetes

    def at_least_three_rows(x):
        if len(x) < 3:
            raise ValueError("too few rows")
        return x

    Xs = ww.source(X, name="X")
    checked = ww.node(at_least_three_rows, Xs)
    yhat = ww.machine(Ridge(), checked, y).predict(checked)
    yhat.fit()
    with pytest.raises(ExportError, match=r"could not be evaluated on the sample input \(NodeApplyError: Computing") as info:
        ww.to_onnx(yhat, X[:2])
    assert "[ValueError]" not in str(info.value)
    ridge = ww.machine(Ridge(), Xs, y).predict(Xs)
    ridge.fit()
    with pytest.raises(ExportError, match=r"\(MachineApplyError: Machine \(Ridge\) failed in predict\(\)") as info:
        ww.to_onnx(ridge, X[:2, :3])
    assert "[ValueError]" not in str(info.value)


def test_export_is_deterministic(diabetes):
    X, y = diabetes
    stack = ww.Stack([("ridge", Ridge()), ("pca_ridge", Ridge(alpha=3.0))], Ridge(), cv=3).fit(X, y)
    assert ww.to_onnx(stack).SerializeToString() == ww.to_onnx(stack).SerializeToString()


@pytest.mark.parametrize("layout", ["matrix", "columns"])
def test_models_that_number_a_column_s_categories_differently_share_one_input(layout):
    from sklearn.ensemble import HistGradientBoostingRegressor
    from wirework.export.api import feed

    rng = np.random.default_rng(11)
    X = pd.DataFrame({"a": rng.normal(size=600), "b": rng.normal(size=600)})
    X["kind"] = pd.Categorical(rng.choice(["s", "q", "p"], 600), categories=["s", "q", "p", "unused"])
    X["band"] = pd.cut(X["b"], [-np.inf, -0.5, 0.5, np.inf], labels=["low", "mid", "high"])  # ordered
    y = X["a"] + X["kind"].cat.codes + X["band"].cat.codes.astype(float)
    stack = ww.Stack(
        [
            ("hist", HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype", random_state=0)),
            ("gbm", lightgbm.LGBMRegressor(n_estimators=20, n_jobs=1, verbose=-1, min_child_samples=5)),
        ],
        Ridge(),
        cv=KFold(3),
    ).fit(X, y)
    model = ww.to_onnx(stack, X_sample=X.head(), inputs=layout)
    assert "recode" in " ".join(n.name for n in model.graph.node)  # HistGradientBoosting sorts what it saw
    test = X.head(200).copy()
    test.loc[test.index[:10], "kind"] = "unused"  # known to LightGBM only: missing for HistGradientBoosting
    test.loc[test.index[10:20], "band"] = np.nan
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    assert np.abs(session.run(None, feed(model, test))[0].ravel() - stack.predict(test)).max() <= 1e-12


def _nested(kind: str):
    """Composites inside composites (and inside scikit-learn's Pipeline), with their data."""
    from sklearn.ensemble import ExtraTreesRegressor, HistGradientBoostingRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    if kind == "stack in a pipeline":
        X, y = load_diabetes(return_X_y=True)
        inner = ww.Stack(
            [("scaled", ww.Pipeline([("minmax", MinMaxScaler()), ("ridge", Ridge())])), ("trees", ExtraTreesRegressor(20, random_state=0))],
            Ridge(),
            cv=3,
        )
        return ww.Pipeline([("scale", StandardScaler()), ("stack", inner)]), X, y
    if kind == "pipelines as a classifier stack's base learners":
        X, y = load_iris(return_X_y=True)
        labels = np.array(["setosa", "versicolor", "virginica"])[y]
        base = [
            ("linear", ww.Pipeline([("scale", StandardScaler()), ("lr", LogisticRegression(max_iter=1000))])),
            ("forest", ww.Pipeline([("forest", RandomForestClassifier(20, random_state=0))])),
        ]
        return ww.Stack(base, LogisticRegression(max_iter=1000), cv=3), X, labels
    if kind == "bagged pipelines":
        X, y = load_diabetes(return_X_y=True)
        return ww.Bagging(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]), n_estimators=3, random_state=0), X, y
    if kind == "a target transform of a pipeline":
        X, y = load_diabetes(return_X_y=True)
        return ww.TransformedTarget(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]), StandardScaler()), X, y
    if kind == "scikit-learn's pipeline around a stack":
        X, y = load_diabetes(return_X_y=True)
        stack = ww.Stack([("ridge", Ridge()), ("ridge10", Ridge(alpha=10.0))], Ridge(), cv=3)
        return make_pipeline(StandardScaler(), stack), X, y
    # categories numbered differently by the models of a nested stack, read through its pipeline
    rng = np.random.default_rng(11)
    X = pd.DataFrame({"a": rng.normal(size=600), "b": rng.normal(size=600)})
    X["kind"] = pd.Categorical(rng.choice(["s", "q", "p"], 600), categories=["s", "q", "p", "unused"])
    y = X["a"] + X["kind"].cat.codes
    stack = ww.Stack(
        [
            ("hist", HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype", random_state=0)),
            ("gbm", lightgbm.LGBMRegressor(n_estimators=20, n_jobs=1, verbose=-1, min_child_samples=5)),
        ],
        Ridge(),
        cv=KFold(3),
    )
    return ww.Pipeline([("stack", stack)]), X, y


@pytest.mark.parametrize(
    "kind",
    [
        "stack in a pipeline",
        "pipelines as a classifier stack's base learners",
        "bagged pipelines",
        "a target transform of a pipeline",
        "scikit-learn's pipeline around a stack",
        "categories read through a nested stack",
    ],
)
def test_composites_inside_networks_export_their_own_networks(kind):
    model, X, y = _nested(kind)
    model.fit(X, y)
    exported = ww.to_onnx(model, X_sample=X[:5] if isinstance(X, np.ndarray) else X.head())
    served = X
    if isinstance(X, pd.DataFrame):
        served = X.head(100).copy()
        served.loc[served.index[:5], "kind"] = "unused"  # known to LightGBM only
        served.loc[served.index[5:10], "kind"] = np.nan
    report = ww.onnx.check_parity(model, exported, served)
    for name, output in report.outputs.items():
        assert output.rows_differ == 0 if name == "predict" and isinstance(y[0], str) else output.max_rel <= 1e-12, name


def test_a_nested_composite_without_its_trained_network_is_refused():
    model, X, y = _nested("stack in a pipeline")
    model.fit(X, y)
    inner = model.fitted_params_()["stack"]
    network = inner.__dict__.pop("network_")  # as after a failed fit of the inner composite
    with pytest.raises(ww.NotTrainedError, match="This Stack has not been fitted yet"):
        ww.to_onnx(model, X_sample=X[:5])  # no advice to pass X_sample: no sample would help
    with pytest.raises(ExportError, match="The Stack inside the network has no trained network"):
        ww.to_onnx(make_pipeline_of(inner), X_sample=X[:5])
    inner.network_ = network
    inner.__dict__.pop("n_features_in_")
    with pytest.raises(ExportError, match="The Stack inside the network has no n_features_in_"):
        ww.to_onnx(make_pipeline_of(inner), X_sample=X[:5])


def make_pipeline_of(step):
    """scikit-learn's Pipeline around an already fitted step (it asks the step for its input width)."""
    from sklearn.pipeline import Pipeline as SkPipeline

    return SkPipeline([("step", step)])


def test_a_recoded_model_with_two_outputs_is_converted_once():
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(3)
    data = pd.DataFrame({"a": rng.normal(size=600)})
    data["kind"] = pd.Categorical(rng.choice(["s", "q", "p"], 600), categories=["s", "q", "p", "unused"])
    target = (data["a"] + data["kind"].cat.codes > 1).astype(int).to_numpy()
    X, y = ww.source(data, name="X"), ww.source(target, name="y")
    gbm = ww.machine(lightgbm.LGBMClassifier(n_estimators=10, verbose=-1, n_jobs=1), X, y)
    hist = ww.machine(HistGradientBoostingClassifier(max_iter=10, categorical_features="from_dtype"), X, y)
    outputs = {"predict": hist.predict(X), "predict_proba": ww.mean(gbm.predict_proba(X), hist.predict_proba(X))}
    for node in outputs.values():
        node.fit()
    model = ww.to_onnx(outputs, X_sample=data.head())  # hist's two operations share one recoding and conversion
    assert _nodes(model).count("TreeEnsemble") == 2
    assert _nodes(model).count("LabelEncoder") == 2  # one recoding per model: each numbers "kind" otherwise
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    from wirework.export.api import feed

    got = dict(zip([o.name for o in model.graph.output], session.run(None, feed(model, data))))
    assert np.array_equal(got["predict"].ravel(), outputs["predict"](data))
    assert np.abs(got["predict_proba"] - outputs["predict_proba"](data)).max() <= 1e-12


@pytest.mark.parametrize(
    "functions",
    [
        {},
        {"func": np.log, "inverse_func": np.exp},
        {"func": np.sqrt, "inverse_func": np.square},
        {"func": np.log1p, "inverse_func": np.expm1},
    ],
    ids=["identity", "log-exp", "sqrt-square", "log1p-expm1"],
)
def test_transformed_target_functions_become_their_operators(diabetes, functions):
    X, y = diabetes
    model = ww.TransformedTarget(Ridge(), **functions).fit(X, y)
    onnx_model = ww.to_onnx(model)
    if functions:  # predictions only go back through the inverse function
        assert {np.exp: "Exp", np.square: "Mul", np.expm1: "Exp"}[functions["inverse_func"]] in _nodes(onnx_model)
    report = ww.onnx.check_parity(model, onnx_model, X)
    assert report.outputs["predict"].max_rel <= 1e-14


@pytest.mark.parametrize("function", [np.log1p, np.expm1])
def test_log1p_and_expm1_stay_accurate_near_zero_and_at_the_edges(function):
    # no ONNX operator computes them; log(1 + x) and exp(x) - 1 would lose every digit near 0
    rng = np.random.default_rng(0)
    tiny = rng.normal(0, 1e-9, 2000)
    values = np.concatenate([tiny, rng.normal(0, 3, 2000), np.logspace(-300, 2.8, 300), -np.logspace(-300, -0.01, 300)])
    values = np.concatenate([values, [0.0, -1.0, np.inf, -np.inf, np.nan, 1e-320, -745.0, 709.0, 710.0, 1e300]])
    column = values.reshape(-1, 1)
    transformer = FunctionTransformer(function).fit(column)
    model = ww.to_onnx(transformer, X_sample=column[:3], methods=["transform"])
    got = ww.onnx.session(model).run(None, {"X": column})[0].ravel()
    with np.errstate(all="ignore"):
        want = function(values)
    same_specials = np.array_equal(got[~np.isfinite(want)], want[~np.isfinite(want)], equal_nan=True)
    finite = np.isfinite(want) & (want != 0)
    relative = np.abs(got[finite] - want[finite]) / np.abs(want[finite])
    assert same_specials and relative.max() <= 1e-15  # within 3 ulps here
    naive = np.log(1 + tiny) if function is np.log1p else np.exp(tiny) - 1
    assert (np.abs(naive - function(tiny)) / np.abs(function(tiny))).max() > 1e-9  # what the plain forms give


def test_transformed_target_functions_without_an_operator_are_refused(diabetes):
    X, y = diabetes
    model = ww.TransformedTarget(Ridge(), func=np.log2, inverse_func=np.exp2).fit(X, y)
    with pytest.raises(ww.ExportError, match=r"inverse_transform\(\) applies exp2, which has no ONNX operator"):
        ww.to_onnx(model)
    keywords = ww.TransformedTarget(
        Ridge(), transformer=FunctionTransformer(np.log, np.exp, inv_kw_args={"out": None}, check_inverse=False)
    ).fit(X, y)
    with pytest.raises(ww.ExportError, match=r"inverse_transform\(\) passes keyword arguments to its function"):
        ww.to_onnx(keywords)


def test_a_sparse_value_in_a_network_is_the_dense_matrix_the_file_gives():
    # a OneHotEncoder's default output is sparse: reading it, or giving it as the output, failed ("carries object
    # values", then a Cast to string)
    from sklearn.preprocessing import OneHotEncoder

    data, y = load_diabetes(return_X_y=True)
    X = pd.DataFrame({"sex": np.where(data[:, 1] > 0, "male", "female")})
    encode = ww.Pipeline([("encode", OneHotEncoder(handle_unknown="ignore"))]).fit(X[["sex"]])
    assert ww.onnx.check_parity(encode, ww.to_onnx(encode, X[["sex"]]), X[["sex"]]).max_abs == 0.0
    predict = ww.Pipeline([("encode", OneHotEncoder()), ("tree", DecisionTreeClassifier(random_state=0))])
    predict.fit(X[["sex"]], y > 140)
    assert ww.onnx.check_parity(predict, ww.to_onnx(predict, X[["sex"]]), X[["sex"]]).max_abs == 0.0
    scaled = ww.Pipeline([("encode", OneHotEncoder()), ("scale", StandardScaler(with_mean=False))]).fit(X[["sex"]])
    assert ww.onnx.check_parity(scaled, ww.to_onnx(scaled, X[["sex"]]), X[["sex"]]).max_abs == 0.0


def test_a_boolean_scalar_key_is_refused_as_the_axis_it_adds(diabetes):
    """x[:, True] is NumPy's new axis ([N, 1, p]), not a column: the export wrote column 1 and failed in ONNX's
    checker ('not a valid ONNX model'); a boolean mask of every column still selects them."""
    X, _ = diabetes
    xs = ww.source(X)
    scaled = ww.machine(StandardScaler(), xs).transform(xs)
    scaled.fit()
    with pytest.raises(ExportError, match=r"indexes with a boolean scalar, which adds an axis; only column selection"):
        ww.to_onnx(scaled[:, True], X[:5])
    mask = np.arange(X.shape[1]) % 3 == 0
    picked = scaled[:, mask]
    assert ww.onnx.check_parity(picked, ww.to_onnx(picked, X[:5]), X).exact


@pytest.mark.parametrize("last", ["HistGradientBoosting", "LightGBM", "XGBoost"])
def test_a_network_reads_the_categoricals_a_column_transformer_passes_through(last):
    """ww.Pipeline([ColumnTransformer(remainder="passthrough") with pandas output, a model reading categoricals]):
    refused before ("carries object values, not numbers"): the transformer's output holds the categoricals. Now
    the input codes them as the model numbers them and the transformer hands the codes on."""
    import xgboost
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, served = categorical_frame()
    model = {
        "HistGradientBoosting": HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype"),
        "LightGBM": lightgbm.LGBMRegressor(n_estimators=20, verbose=-1),
        "XGBoost": xgboost.XGBRegressor(n_estimators=20, enable_categorical=True),
    }[last]
    pipe = ww.Pipeline(categories_passed_through(model)).fit(X, TARGET)
    exported = ww.to_onnx(pipe, X)
    rows = [X, served.iloc[[2]]] + ([] if last == "XGBoost" else [served])  # XGBoost refuses unseen categories
    for rows in rows:
        assert ww.onnx.check_parity(pipe, exported, rows).exact


def test_a_column_passed_through_and_numbered_otherwise_by_a_part_is_refused():
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.preprocessing import OrdinalEncoder

    X, _ = categorical_frame()
    X = X[["weight", "s5"]]
    mine = OrdinalEncoder(categories=[["mid", "low", "high", "very high"]])  # not the sorted order HGB keeps
    both = ColumnTransformer([("mine", mine, ["weight"]), ("kept", "passthrough", ["weight", "s5"])])
    last = HistGradientBoostingRegressor(max_iter=5, categorical_features="from_dtype")
    pipe = ww.Pipeline([("both", both.set_output(transform="pandas")), ("last", last)]).fit(X, TARGET)
    with pytest.raises(ExportError, match=r"Input column 'weight' is passed through this ColumnTransformer.*numbered otherwise"):
        ww.to_onnx(pipe, X)
    # the same codes read by two encoders numbering them otherwise: no one numbering to pass through
    ordinal = OrdinalEncoder(categories=[["mid", "low", "high", "very high"]], handle_unknown="use_encoded_value", unknown_value=-1)
    Xs, ys = ww.source(X[["weight"]], name="X"), ww.source(TARGET, name="y")
    kept = ww.machine(ColumnTransformer([("kept", "passthrough", ["weight"])]), Xs).transform(Xs)
    coded = [ww.machine(encoder, kept).transform(kept) for encoder in (ordinal, OrdinalEncoder())]
    predicted = ww.machine(Ridge(), ww.hcat(*coded), ys).predict(ww.hcat(*coded))
    predicted.fit()
    with pytest.raises(ExportError, match=r"carries object values, not numbers.*Encode its text or categorical columns"):
        ww.to_onnx(predicted, X[["weight"]])


@pytest.mark.parametrize("voting", ["regressor", "soft", "hard"])
def test_an_average_exports_its_transform(voting):
    """ww.Average's transform (each model's output as columns, scikit-learn's voting transform) was refused
    ("Static node 'side_by_side' has no ONNX lowering"). Over trees it is exact; hard voting's encoded labels
    stay int64."""
    X, y = load_wine(return_X_y=True)
    trees = [("a", DecisionTreeClassifier(max_depth=3, random_state=0)), ("b", DecisionTreeClassifier(random_state=1))]
    if voting == "regressor":
        average = ww.Average([(name, RandomForestRegressor(n_estimators=3, random_state=k)) for k, (name, _) in enumerate(trees)])
    else:
        average = ww.Average(trees, voting=voting)
        y = np.array(["barolo", "grignolino", "barbera"])[y]
    average.fit(X, y)
    exported = ww.to_onnx(average, methods=["predict", "transform"])
    assert ww.onnx.check_parity(average, exported, X).exact
    served = ww.onnx.session(exported).run(["transform"], ww.onnx.feed(exported, X[:3]))[0]
    assert served.dtype == average.transform(X[:3]).dtype
    flat = ww.Average(trees, flatten_transform=False).fit(X, y)
    with pytest.raises(ExportError, match="flatten_transform=False is 3-D .* Export it with flatten_transform=True"):
        ww.to_onnx(flat, methods=["transform"])


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier(random_state=0), HistGradientBoostingClassifier(max_iter=5)])
def test_a_bagging_exports_its_log_probabilities(estimator):
    """ww.Bagging's predict_log_proba was refused ("Static node 'log_of' has no ONNX lowering"): now ONNX
    Runtime's Log of the probabilities (members without predict_log_proba: HistGradientBoosting), or the members' own log
    probabilities added as np.logaddexp (trees: the log of their probabilities), within ulps of NumPy's; a
    probability 0 gives -inf as natively. Trees' np.log(0) warned while the export evaluated its sample,
    which stopped the export where warnings are errors."""
    X, y = load_iris(return_X_y=True)
    bagging = ww.Bagging(estimator, n_estimators=4, random_state=0).fit(X, y)
    exported = ww.to_onnx(bagging, methods=["predict_proba", "predict_log_proba"])
    with np.errstate(divide="ignore"):  # scikit-learn's trees warn on their log of 0, as BaggingClassifier's
        report = ww.onnx.check_parity(bagging, exported, X)
        native = bagging.predict_log_proba(X)
    # trees' probabilities are exact, HistGradientBoosting's softmax within ulps (docs/export.md)
    assert report.outputs["predict_proba"].max_abs <= 2.3e-16
    assert report.outputs["predict_log_proba"].max_abs <= 4.5e-16  # (relative: log values of 0 and 1e-16)
    assert report.outputs["predict_proba"].flips == report.outputs["predict_log_proba"].flips == 0
    assert np.isneginf(native).any() == isinstance(estimator, DecisionTreeClassifier)  # trees' zeros: -inf
    served = ww.onnx.session(exported).run(["predict_log_proba"], ww.onnx.feed(exported, X))[0]
    np.testing.assert_array_equal(np.isneginf(served), np.isneginf(native))


def test_a_bagging_of_gaussian_nb_says_its_log_probabilities_do_not_export():
    """GaussianNB's predict_log_proba is its own (joint likelihoods less their logsumexp), not the log of its
    probabilities: the file would differ where they underflow, so the export refuses it by name."""
    from sklearn.naive_bayes import GaussianNB

    X, y = load_iris(return_X_y=True)
    bagging = ww.Bagging(GaussianNB(), n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ExportError, match=r"GaussianNB\.predict_log_proba\(\) .* cannot be exported"):
        ww.to_onnx(bagging, methods=["predict_log_proba"])


@pytest.mark.parametrize("encode", ["OneHotEncoder", "ColumnTransformer"])
def test_a_network_encodes_the_strings_a_column_transformer_passes_through(encode):
    """ww.Pipeline([ColumnTransformer(remainder="passthrough"), an encoder of the strings it passed, Ridge]):
    the encoder learned NaN as a category, and a reader's categories holding NaN were taken as unlike
    themselves (NaN != NaN), so none were passed through; behind a second ColumnTransformer the object
    table of numbers it gives was refused. Now both are exact, with unseen and missing values and one row."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import OneHotEncoder

    X, served = categorical_frame()
    X = X[["s1", "s5", "sex", "pressure"]].astype({"sex": object, "pressure": object})
    served = served[["s1", "s5", "sex", "pressure"]].astype({"sex": object, "pressure": object})
    served.iloc[0, 3] = "never seen"
    numbers = ColumnTransformer([("numbers", SimpleImputer(), ["s1", "s5"])], remainder="passthrough")
    onehot = OneHotEncoder(handle_unknown="ignore")
    second = onehot if encode == "OneHotEncoder" else ColumnTransformer([("onehot", onehot, [2, 3])], remainder="passthrough")
    if encode == "OneHotEncoder":  # only the strings reach it
        numbers.set_params(numbers="drop")
    pipe = ww.Pipeline([("numbers", numbers), ("encode", second), ("ridge", Ridge())]).fit(X, TARGET)
    exported = ww.to_onnx(pipe, X)
    for rows in (X, served, served.iloc[[2]]):
        assert ww.onnx.check_parity(pipe, exported, rows).max_abs <= 1e-12
