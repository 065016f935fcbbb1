"""scikit-learn's own meta-estimators exported through their members' converters, against their predictions."""

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.ensemble import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    AdaBoostRegressor,
    BaggingClassifier,
    BaggingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold
from sklearn.multioutput import MultiOutputClassifier, MultiOutputRegressor, RegressorChain
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer, PowerTransformer, StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import wirework as ww
from _glibc import needs_glibc_exp

pytest.importorskip("onnxruntime")

X_REG, Y_REG = load_diabetes(return_X_y=True)
X_IRIS, Y_IRIS = load_iris(return_X_y=True)
X_CANCER, Y_CANCER = load_breast_cancer(return_X_y=True)
NAMES = np.array(["setosa", "versicolor", "virginica"])


def exported(model, X, **options):
    fitted_model = ww.to_onnx(model, X_sample=X[:3], **options)
    return ww.onnx.check_parity(model, fitted_model, X)


@pytest.mark.parametrize(
    "options",
    [{"transformer": StandardScaler()}, {"func": np.log, "inverse_func": np.exp}, {"transformer": PowerTransformer()}],
    ids=["scaler", "log and exp", "power"],
)
def test_transformed_target_regressor(options):
    model = TransformedTargetRegressor(make_pipeline(StandardScaler(), Ridge()), **options).fit(X_REG, Y_REG)
    assert exported(model, X_REG).max_abs <= 1e-12 * np.abs(Y_REG).max()


def test_a_transformer_whose_inverse_has_no_converter_is_refused():
    """Its inverse_transform was asked of the KBinsDiscretizer's converter, which wrote its transform: the file's
    predictions were bin numbers (up to 289 off on the diabetes data)."""
    model = TransformedTargetRegressor(DecisionTreeRegressor(random_state=0), transformer=KBinsDiscretizer(
        n_bins=5, encode="ordinal"), check_inverse=False).fit(X_REG, Y_REG)
    with pytest.raises(ww.ExportError, match=r"KBinsDiscretizer\.inverse_transform\(\) cannot be exported; its "
                       r"converter exports transform\."):
        ww.to_onnx(model, X_sample=X_REG[:3])


@pytest.mark.parametrize("weights", [None, [1.0, 2.0, 0.5]])
def test_voting_regressor(weights):
    members = [("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=4, random_state=0)),
               ("boost", HistGradientBoostingRegressor(max_iter=20, random_state=0))]
    model = VotingRegressor(members, weights=weights).fit(X_REG, Y_REG)
    assert exported(model, X_REG).max_abs <= 1e-12


@pytest.mark.parametrize("voting", ["soft", "hard"])
@pytest.mark.parametrize("weights", [None, [1.0, 1.0, 2.0]])
def test_voting_classifier_decodes_its_labels(voting, weights):
    members = [("logistic", LogisticRegression(max_iter=2000)), ("forest", RandomForestClassifier(10, random_state=0)),
               ("boost", HistGradientBoostingClassifier(max_iter=10, random_state=0))]
    model = VotingClassifier(members, voting=voting, weights=weights).fit(X_IRIS, NAMES[Y_IRIS])
    methods = ["predict", "predict_proba"] if voting == "soft" else ["predict"]
    report = exported(model, X_IRIS, methods=methods)
    assert report.flips == 0 and report.max_abs <= 1e-12


@pytest.mark.parametrize("passthrough", [False, True])
def test_stacking_regressor(passthrough):
    members = [("ridge", Ridge()), ("boost", HistGradientBoostingRegressor(max_iter=20, random_state=0))]
    model = StackingRegressor(members, Ridge(), cv=KFold(5), passthrough=passthrough).fit(X_REG, Y_REG)
    assert exported(model, X_REG).max_abs <= 1e-12 * np.abs(Y_REG).max()


@pytest.mark.parametrize(
    ("X", "y"),
    [(X_CANCER, np.where(Y_CANCER == 1, "benign", "malignant")), (X_IRIS, NAMES[Y_IRIS])],
    ids=["binary", "multiclass"],
)
def test_stacking_classifier_with_probabilities_and_scores(X, y):
    # a binary stack keeps the second probability column only; LinearSVC has scores, no probabilities
    members = [("boost", HistGradientBoostingClassifier(max_iter=10, random_state=0)),
               ("svm", make_pipeline(StandardScaler(), LinearSVC(random_state=0)))]
    model = StackingClassifier(members, LogisticRegression(max_iter=5000), cv=KFold(5)).fit(X, y)
    report = exported(model, X, methods=["predict", "predict_proba"])
    assert report.flips == 0 and report.max_abs <= 1e-9


@pytest.mark.parametrize("n_jobs", [None, 2, 3])
def test_bagging_regressor_adds_as_its_jobs_do(n_jobs):
    # members added within each of scikit-learn's jobs, then the jobs' sums: bit for bit with exact members
    trees = BaggingRegressor(
        DecisionTreeRegressor(max_depth=4, random_state=0), n_estimators=7, max_features=0.6, n_jobs=n_jobs, random_state=0
    ).fit(X_REG, Y_REG)
    ridges = BaggingRegressor(Ridge(), n_estimators=5, bootstrap_features=True, n_jobs=n_jobs, random_state=0).fit(X_REG, Y_REG)
    with parallel_config(backend="threading"):  # the same groups of members, without starting processes
        assert exported(trees, X_REG).max_abs == 0.0
        assert exported(ridges, X_REG).max_abs <= 1e-12 * np.abs(Y_REG).max()


def test_voting_over_exact_members_is_exact():
    trees = [(f"tree{d}", DecisionTreeRegressor(max_depth=d, random_state=0)) for d in (3, 5, 7)]
    assert exported(VotingRegressor(trees).fit(X_REG, Y_REG), X_REG).max_abs == 0.0
    assert exported(VotingRegressor(trees, weights=[0.3, 1.0, 2.5]).fit(X_REG, Y_REG), X_REG).max_abs == 0.0


def test_adaboost_regressor_takes_the_weighted_median():
    trees = AdaBoostRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=15, random_state=0).fit(X_REG, Y_REG)
    assert exported(trees, X_REG).max_abs == 0.0  # sorted, weights added in order, first past half: exact
    ridges = AdaBoostRegressor(Ridge(), n_estimators=8, random_state=0).fit(X_REG, Y_REG)
    assert exported(ridges, X_REG).max_abs <= 1e-12 * np.abs(Y_REG).max()


@pytest.mark.parametrize(
    ("X", "y"), [(X_CANCER, Y_CANCER), (X_IRIS, NAMES[Y_IRIS])], ids=["binary", "multiclass with names"]
)
def test_adaboost_classifier_votes_labels_and_probabilities(X, y):
    model = AdaBoostClassifier(n_estimators=20, random_state=0).fit(X, y)
    report = exported(model, X, methods=["predict", "predict_proba", "decision_function"])
    assert report.flips == 0
    assert report.outputs["decision_function"].max_abs == 0.0  # the weighted votes, added as natively
    assert report.outputs["predict_proba"].max_abs <= 1e-15  # a softmax: ONNX Runtime's exp within an ulp


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize(
    ("X", "y", "base"),
    [
        (X_CANCER, Y_CANCER, HistGradientBoostingClassifier(max_iter=20, random_state=0)),  # its decision_function
        (X_IRIS, NAMES[Y_IRIS], RandomForestClassifier(20, random_state=0)),  # its probabilities, three classes
    ],
    ids=["boosting, binary", "forest, multiclass"],
)
def test_calibrated_classifiers_over_trees(method, ensemble, X, y, base):
    # skl2onnx refused these in float64; isotonic calibration over exact trees is exact (np.interp step by
    # step), sigmoid within an ulp of SciPy's expit
    model = CalibratedClassifierCV(base, method=method, ensemble=ensemble, cv=3).fit(X, y)
    report = exported(model, X, methods=["predict", "predict_proba"])
    assert report.flips == 0
    assert report.outputs["predict_proba"].max_abs <= (0.0 if method == "isotonic" else 1e-15)


def test_calibrated_probabilities_of_many_classes_are_normalised_as_numpy_adds_them():
    # ten classes: scikit-learn divides by np.sum(proba, axis=1), NumPy's pairwise sum from 8 values on; the
    # file's ReduceSum rounded otherwise on 1144 of the 1797 digits rows
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    base = RandomForestClassifier(10, random_state=0, n_jobs=1)
    model = CalibratedClassifierCV(base, method="isotonic", cv=3).fit(X, y)
    assert exported(model, X, methods=["predict_proba"]).outputs["predict_proba"].rows_differ == 0


def test_a_calibration_whose_scores_do_not_export_is_refused_and_boosting_scores_export():
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    model = CalibratedClassifierCV(OneVsRestClassifier(LogisticRegression()), cv=3).fit(X_IRIS, Y_IRIS)
    with pytest.raises(ww.ExportError, match="over OneVsRestClassifier calibrates its decision_function"):
        ww.to_onnx(model, X_sample=X_IRIS[:3])
    model = CalibratedClassifierCV(QuadraticDiscriminantAnalysis(), cv=3).fit(X_IRIS, Y_IRIS)  # its scores are ours
    report = exported(model, X_IRIS, methods=["predict", "predict_proba"])
    assert report.flips == 0 and report.outputs["predict_proba"].max_abs <= 1e-14
    for boosting in (
        HistGradientBoostingClassifier(max_iter=20, random_state=0),
        GradientBoostingClassifier(n_estimators=20, random_state=0),
    ):
        boosting.fit(X_IRIS, Y_IRIS)
        assert exported(boosting, X_IRIS, methods=["decision_function"]).max_abs == 0.0  # the raw scores
    exponential = GradientBoostingClassifier(n_estimators=20, loss="exponential", random_state=0).fit(X_CANCER, Y_CANCER)
    assert exported(exponential, X_CANCER, methods=["decision_function"]).max_abs == 0.0  # halved back: exact
    calibrated = CalibratedClassifierCV(exponential, method="isotonic", cv=3).fit(X_CANCER, Y_CANCER)
    assert exported(calibrated, X_CANCER).max_abs == 0.0


def _string_members():
    """Two pipelines reading diabetes' string columns: one-hot codes (sorted) and ordinal ones given in
    another order, so the input's codes must be recoded for the second; an "id" column both drop."""
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    from _sklearn_data import labelled

    X = labelled()
    X["id"] = pd.Series([f"row {i}" for i in range(len(X))], dtype=object)  # read by no member
    onehot = ColumnTransformer(
        [("cats", OneHotEncoder(handle_unknown="ignore"), ["sex", "weight", "pressure"]), ("num", "passthrough", ["s1", "s5"])]
    )
    order = [["very high", "high", "mid", "low"], ["male", "female"]]
    ordinal = ColumnTransformer(
        [
            ("cats", OrdinalEncoder(categories=order, handle_unknown="use_encoded_value", unknown_value=-1), ["weight", "sex"]),
            ("num", "passthrough", ["s1", "s5"]),
        ]
    )
    return X, onehot, ordinal


@pytest.mark.parametrize(
    "kind", ["voting regressor", "stacking regressor", "transformed target", "voting classifier", "stacking classifier", "calibrated"]
)
def test_meta_estimators_over_members_reading_string_columns(kind):
    # the members' categories were not declared: the export succeeded, and feed refused the strings of the
    # data the model was trained on ("Column 'sex' (object) cannot be fed"); members numbering a column's
    # categories otherwise each get their own codes, and a column no member reads is unused
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    X, onehot, ordinal = _string_members()
    y = Y_REG if "classifier" not in kind and kind != "calibrated" else np.digitize(Y_REG, [100, 200])
    if kind == "voting regressor":
        model = VotingRegressor([("linear", make_pipeline(onehot, Ridge())), ("tree", make_pipeline(ordinal, HistGradientBoostingRegressor(max_iter=10)))])
    elif kind == "stacking regressor":
        model = StackingRegressor([("linear", make_pipeline(onehot, Ridge())), ("tree", make_pipeline(ordinal, HistGradientBoostingRegressor(max_iter=10)))], Ridge(), cv=3)
    elif kind == "transformed target":
        model = TransformedTargetRegressor(make_pipeline(ordinal, Ridge()), func=np.log, inverse_func=np.exp)
    elif kind == "voting classifier":
        model = VotingClassifier([("linear", make_pipeline(onehot, LogisticRegression())), ("tree", make_pipeline(ordinal, HistGradientBoostingClassifier(max_iter=10)))], voting="soft")
    elif kind == "stacking classifier":
        model = StackingClassifier([("linear", make_pipeline(onehot, LogisticRegression())), ("tree", make_pipeline(ordinal, HistGradientBoostingClassifier(max_iter=10)))], LogisticRegression(), cv=3)
    else:
        model = CalibratedClassifierCV(make_pipeline(ordinal, HistGradientBoostingClassifier(max_iter=10)), method="isotonic", cv=3)
    model.fit(X, y)
    onnx_model = ww.to_onnx(model, X_sample=X.iloc[:5])
    signature = {c["name"]: c for c in ww.onnx.input_signature(onnx_model)["columns"]}
    assert signature["sex"]["categories"] == (["male", "female"] if kind in ("transformed target", "calibrated") else ["female", "male"])
    assert signature["id"].get("unused")
    served = pd.concat([X, X.iloc[:3].assign(weight=["enormous", None, "low"], sex=["male", "other", None])])
    tolerance = 0.0 if kind == "calibrated" else 1e-12
    assert ww.onnx.check_parity(model, onnx_model, served).max_abs <= tolerance


def test_two_parts_of_a_column_transformer_reading_one_string_column_each_get_their_codes():
    # the input numbered the column as the last part did: the first read the other's codes (2.0 off)
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    X, _, _ = _string_members()
    both = ColumnTransformer(
        [
            ("ordinal", OrdinalEncoder(categories=[["very high", "high", "mid", "low"]]), ["weight"]),
            ("onehot", OneHotEncoder(sparse_output=False), ["weight"]),
            ("num", "passthrough", ["s1"]),
        ]
    ).fit(X)
    for inputs in ("matrix", "columns"):
        onnx_model = ww.to_onnx(both, X_sample=X.iloc[:5], methods=["transform"], inputs=inputs)
        assert ww.onnx.check_parity(both, onnx_model, X).max_abs == 0.0


@pytest.mark.parametrize(
    "model",
    [
        MultiOutputRegressor(HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=2)),
        MultiOutputRegressor(Ridge()),
        RegressorChain(DecisionTreeRegressor(random_state=0), order=[2, 0, 1]),
        RegressorChain(Ridge(), order="random", random_state=1),
    ],
    ids=["multi-output boosting", "multi-output ridge", "chain of trees", "chain of ridges"],
)
def test_multi_output_regressors_give_one_column_per_target(model):
    # skl2onnx's MultiOutputRegressor had no typed output in float64 and wrote trees with the deprecated
    # operators; it had no RegressorChain
    from sklearn.datasets import load_linnerud

    X, Y = load_linnerud(return_X_y=True)
    model.fit(X, Y)
    report = exported(model, X)
    exact = not isinstance(model.estimators_[0], Ridge)
    assert report.outputs["predict"].max_abs <= (0.0 if exact else 1e-12)


def test_multi_output_classifier_labels_of_each_target():
    # labels of each target as natively, strings or numbers (integer and boolean targets: one int64 array)
    Y = np.column_stack([NAMES[Y_IRIS], np.where(X_IRIS[:, 0] > 5.8, "wide", "narrow")])
    strings = MultiOutputClassifier(RandomForestClassifier(5, random_state=0)).fit(X_IRIS, Y)
    assert exported(strings, X_IRIS).outputs["predict"].rows_differ == 0
    numbers = MultiOutputClassifier(LogisticRegression(max_iter=1000)).fit(X_IRIS, np.column_stack([Y_IRIS, X_IRIS[:, 0] > 5.8]))
    assert exported(numbers, X_IRIS).outputs["predict"].rows_differ == 0


@pytest.mark.parametrize(
    ("member", "options"),
    [
        # a pipeline takes no sample_weight: its members fit on 4 rows, some missing a class
        (make_pipeline(StandardScaler(), DecisionTreeClassifier(random_state=0)), {"max_samples": 4, "max_features": 0.5}),
        (DecisionTreeClassifier(random_state=0), {"max_samples": 0.3, "n_jobs": 3}),  # summed per job
        (LinearSVC(), {}),  # no predict_proba: one-hot votes for its label
    ],
    ids=["trees missing classes", "trees in three jobs", "votes"],
)
def test_bagging_classifier_averages_its_members_as_scikit_learn(member, options):
    # it was refused as a tree model ("no TreeEnsemble converter"), although it is none
    model = BaggingClassifier(member, n_estimators=15, random_state=0, **options).fit(X_IRIS, NAMES[Y_IRIS])
    if options.get("max_samples") == 4:
        assert any(len(m.classes_) < 3 for m in model.estimators_)
    with parallel_config(n_jobs=1):
        report = exported(model, X_IRIS)
    assert report.exact, report


@pytest.mark.parametrize(
    ("member", "options"),
    [(LinearSVC(), {}), (LinearSVC(), {"max_features": 0.5, "n_jobs": 3}), (LogisticRegression(max_iter=1000), {})],
    ids=["votes", "votes in three jobs", "probabilities"],
)
@pytest.mark.parametrize("binary", [False, True], ids=["three classes", "two classes"])
def test_bagging_classifier_decision_function_is_its_members_mean(member, options, binary):
    # scikit-learn's decision_function (the members' scores added per job, then across jobs, over their
    # number) was not exported; labels stay exact, and votes (a logistic's probabilities: within a few ulps)
    X, y = (X_CANCER, Y_CANCER) if binary else (X_IRIS, NAMES[Y_IRIS])
    model = BaggingClassifier(make_pipeline(StandardScaler(), member), n_estimators=9, random_state=0, **options)
    model.fit(X, y)
    with parallel_config(n_jobs=1):
        report = exported(model, X, methods=["predict", "predict_proba", "decision_function"])
    assert report.outputs["predict"].rows_differ == 0
    assert report.outputs["predict_proba"].max_abs <= (1e-15 if isinstance(member, LogisticRegression) else 0)
    assert report.outputs["decision_function"].max_abs <= 1e-12 * np.abs(model.decision_function(X)).max()


def test_bagging_classifier_decision_function_of_members_missing_classes_is_refused():
    # a member that learned 2 of 3 classes gives scores of another shape, which scikit-learn adds to the others
    model = BaggingClassifier(make_pipeline(StandardScaler(), LinearSVC()), n_estimators=15, max_samples=4,
                              random_state=0).fit(X_IRIS, Y_IRIS)
    assert any(len(m.classes_) < 3 for m in model.estimators_)
    with pytest.raises(ww.ExportError, match="a member learned 2 of its 3 classes"):
        ww.to_onnx(model, X_sample=X_IRIS[:3], methods=["decision_function"])
    assert exported(model, X_IRIS).exact  # predict and predict_proba still export


@needs_glibc_exp
@pytest.mark.parametrize("ensemble", [True, False])
def test_sigmoid_calibration_over_boosting_is_bit_for_bit_with_glibcs_exp(ensemble):
    # SciPy's expit(-(a T + b)) is 1 / (1 + exp(a T + b)) with the C library's exp: with exp="libm", exactly
    base = HistGradientBoostingClassifier(max_iter=20, random_state=0)
    model = CalibratedClassifierCV(base, method="sigmoid", ensemble=ensemble, cv=3).fit(X_CANCER, Y_CANCER)
    onnx_model = ww.to_onnx(model, X_CANCER[:5], methods=["predict_proba"], exp="libm")
    out = ww.onnx.session(onnx_model).run(None, {"X": X_CANCER})[0]
    assert np.array_equal(out, model.predict_proba(X_CANCER))


@pytest.mark.parametrize(
    "model, X, y",
    [
        (CalibratedClassifierCV(DecisionTreeClassifier(max_depth=3), cv=3), X_CANCER, Y_CANCER),
        (CalibratedClassifierCV(DecisionTreeClassifier(max_depth=3), method="isotonic", cv=3), X_IRIS, Y_IRIS),
        (AdaBoostRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=3, random_state=0), X_REG, Y_REG),
        (
            StackingClassifier([("tree", DecisionTreeClassifier(max_depth=3))], DecisionTreeClassifier(max_depth=2), cv=3),
            X_IRIS,
            Y_IRIS,
        ),
    ],
    ids=["sigmoid calibration", "isotonic calibration", "adaboost regressor", "stacking classifier"],
)
def test_an_empty_batch_gives_empty_outputs(model, X, y):
    """Each output keeps its columns and has no rows, as a tree's file gives them; these stopped in ONNX Runtime
    (a Reshape to [0, -1] of zero values)."""
    model.fit(X, y)
    onnx_model = ww.to_onnx(model, X_sample=X[:3])
    session = ww.onnx.session(onnx_model)
    whole = session.run(None, {"X": X[:2]})
    empty = session.run(None, {"X": X[:0]})
    assert [out.shape[1:] for out in empty] == [out.shape[1:] for out in whole]
    assert all(len(out) == 0 for out in empty)
