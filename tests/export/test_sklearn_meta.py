"""scikit-learn's own meta-estimators exported through their members' converters, against their predictions."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.ensemble import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    AdaBoostRegressor,
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
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PowerTransformer, StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeRegressor

import wirework as ww

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
