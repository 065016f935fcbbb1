"""ww.Composite: the estimator contract, smart refits, inspection and the errors of bad networks."""

import ast
import inspect
import pickle
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from _counting import Counting, fits, wirework_calls
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClusterMixin,
    DensityMixin,
    MetaEstimatorMixin,
    MultiOutputMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
    clone,
)
from sklearn.cluster import DBSCAN, KMeans
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.ensemble import BaggingRegressor, IsolationForest
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.manifold import TSNE
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler, TargetEncoder
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_mixin_order
from sklearn.utils.validation import check_is_fitted

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)


class TwoStage(RegressorMixin, ww.Composite):
    """Scale, then regress; the regressor is a component (a hyperparameter)."""

    def __init__(self, regressor=None, scaler=None):
        self.regressor = regressor
        self.scaler = scaler

    def network(self, X, y=None):
        scale = ww.machine(self.scaler, X, name="scale")
        Z = scale.transform(X)
        fit = ww.machine(self.regressor, Z, y, name="regress")
        return ww.Signature(predict=fit.predict(Z), report={"mean_prediction": ww.node(np.mean, fit.predict(Z))})


def two_stage():
    return TwoStage(Counting(Ridge(), tag="ridge"), Counting(StandardScaler(), tag="scale"))


def test_fit_predict_equals_the_scikit_learn_pipeline():
    model = TwoStage(Ridge(alpha=0.3), StandardScaler()).fit(X_DATA, Y_DATA)
    reference = make_pipeline(StandardScaler(), Ridge(alpha=0.3)).fit(X_DATA, Y_DATA)
    assert np.array_equal(model.predict(X_DATA), reference.predict(X_DATA))
    assert model.n_features_in_ == 10
    assert model.score(X_DATA, Y_DATA) == pytest.approx(reference.score(X_DATA, Y_DATA), abs=1e-12)


def test_nested_params_clone_and_model_selection_work():
    model = TwoStage(Ridge(), StandardScaler())
    assert model.get_params()["regressor__alpha"] == 1.0
    model.set_params(regressor__alpha=4.0)
    assert model.regressor.alpha == 4.0
    twin = clone(model)
    assert twin.regressor is not model.regressor and twin.regressor.alpha == 4.0
    search = GridSearchCV(model, {"regressor__alpha": [0.1, 10.0]}, cv=3).fit(X_DATA, Y_DATA)
    assert search.best_params_ == {"regressor__alpha": 0.1}
    assert cross_val_score(model, X_DATA, Y_DATA, cv=3).shape == (3,)
    chained = make_pipeline(StandardScaler(), TwoStage(Ridge(), StandardScaler())).fit(X_DATA, Y_DATA)
    assert chained.predict(X_DATA[:2]).shape == (2,)


def test_refit_retrains_only_what_changed():
    model = two_stage().fit(X_DATA, Y_DATA)
    assert fits() == ["scale", "ridge"]
    Counting.events.clear()
    model.set_params(regressor__estimator__alpha=5.0).fit(X_DATA, Y_DATA)
    assert fits() == ["ridge"]
    assert Counting.events == [("ridge", "fit"), ("ridge", "predict")]  # the scaled data is kept from the last fit
    Counting.events.clear()
    model.fit(X_DATA, Y_DATA)
    assert fits() == []
    model.set_params(regressor=Counting(Lasso(), tag="lasso")).fit(X_DATA, Y_DATA)
    assert fits() == ["lasso"]
    assert model.report_()["machines"]["regress"]["reason"] == "condition 6: hyperparameters changed"


def test_report_and_fitted_params():
    model = two_stage().fit(X_DATA, Y_DATA)
    report = model.report_()
    assert report["machines"]["scale"]["action"] == "trained"
    assert report["mean_prediction"] == pytest.approx(np.mean(model.predict(X_DATA)))
    fitted = model.fitted_params_()
    assert set(fitted) == {"scale", "regress"} and hasattr(fitted["regress"].estimator_, "coef_")


class SharedName(RegressorMixin, ww.Composite):
    """Two machines, named or not as ``names`` says, and a report node named ``report``."""

    def __init__(self, names=("model", "model"), report="mean"):
        self.names = names
        self.report = report

    def network(self, X, y=None):
        first = ww.machine(Ridge(), X, y, name=self.names[0]).predict(X)
        second = ww.machine(Lasso(), X, y, name=self.names[1]).predict(X)
        average = ww.mean(first, second)
        return ww.Signature(predict=average, report={self.report: ww.node(np.mean, average)})


def keyed(model):
    """``report_()["machines"]`` and ``fitted_params_()`` as ``{key: model class}`` (the same for both)."""
    reports = {key: report["model"] for key, report in model.report_()["machines"].items()}
    assert reports == {key: type(fitted).__name__ for key, fitted in model.fitted_params_().items()}
    return reports


def test_machines_given_one_name_are_refused_rather_than_hidden_from_the_report():
    model = SharedName(("model", "model"))
    shown = r"2 machines named 'model': Machine 'model' \(Ridge\), Machine 'model' \(Lasso\)"
    with pytest.raises(ww.GraphError, match=rf"SharedName.network\(\) has {shown}\. report_\(\) and fitted_params_"):
        model.fit(X_DATA, Y_DATA)
    assert keyed(model.set_params(names=("ridge", "lasso")).fit(X_DATA, Y_DATA)) == {"ridge": "Ridge", "lasso": "Lasso"}


@pytest.mark.parametrize(
    ("names", "keys"),
    [
        ((None, None), {"m1": "Ridge", "m2": "Lasso"}),  # unnamed, of one class or not: numbered, never shared
        ((None, "m1"), {"m2": "Ridge", "m1": "Lasso"}),  # the name given wins; the numbers skip it
        (("m2", None), {"m2": "Ridge", "m1": "Lasso"}),
        (("m1", None), {"m1": "Ridge", "m2": "Lasso"}),
        ((None, "m1_"), {"m1": "Ridge", "m1_": "Lasso"}),
    ],
)
def test_the_key_made_up_for_an_unnamed_machine_skips_a_name_given(names, keys):
    """As scikit-learn numbers the step names it makes up and refuses only duplicates among names given to it, an
    unnamed machine's number skips a name you gave (as in formulas and drawings: see the next test), where the
    network was refused."""
    model = SharedName(names).fit(X_DATA, Y_DATA)
    assert keyed(model) == keys
    assert list(model.report_()) == ["machines", "mean"]


class ReadOtherwise(RegressorMixin, ww.Composite):
    """Four machines, unnamed (the PCA named when ``name`` says), trained in another order than a formula reads
    them: the target's scaler is read first, and the lasso, whose predictions the ridge learns, is reached by
    training edges only."""

    def __init__(self, name=None):
        self.name = name

    def network(self, X, y=None):
        scale_y = ww.machine(StandardScaler(), y)
        Z = ww.machine(PCA(n_components=2), X, name=self.name).transform(X)
        lasso = ww.machine(Lasso(alpha=0.01), Z, scale_y.transform(y))
        ridge = ww.machine(Ridge(), Z, lasso.predict(Z))
        return ww.Signature(predict=scale_y.inverse_transform(ridge.predict(Z)))


@pytest.mark.parametrize("name", [None, "m2"])
def test_report_keys_are_the_names_formulas_and_drawings_show(name):
    """Before, report_() and fitted_params_() numbered unnamed machines in training order (m1 the PCA, m2 the
    target's scaler...) and formulas and drawings in reading order (m1 the target's scaler), so m1 was another
    machine in each; and an unnamed m2 beside your m2 was m2_ in one and m3 in the other. One naming now."""
    model = ReadOtherwise(name).fit(X_DATA, Y_DATA)
    keys = keyed(model)
    signature = model.network(ww.source(name="X"), ww.source(name="y"))
    assert dict(re.findall(r'label="([\w#]+)\\n(\w+)"', signature["predict"].to_dot())) == keys
    expected = {"m1": "StandardScaler", "m3": "Ridge", "m2": "PCA", "m4": "Lasso"} if name else None
    assert keys == (expected or {"m1": "StandardScaler", "m2": "Ridge", "m3": "PCA", "m4": "Lasso"})
    shown = {"StandardScaler": "inverse_transform", "Ridge": "predict", "PCA": "transform"}
    formula = "inverse_transform({}, predict({}, transform({}, X)))"
    assert repr(signature["predict"]) == formula.format(*(k for c in shown for k, v in keys.items() if v == c))
    assert repr(signature) == f"Signature(predict={repr(signature['predict'])})"
    assert keyed(pickle.loads(pickle.dumps(model))) == keys  # nothing new is pickled: old pickles key alike


def test_a_report_node_is_named_apart_from_the_machines_but_not_machines():
    """Report values sit beside ``"machines"`` in report_(), the machines' reports under it: a report node may
    take a machine's name, not ``"machines"``, whose value would replace every machine's report."""
    model = SharedName(("ridge", "lasso"), report="ridge").fit(X_DATA, Y_DATA)
    report = model.report_()
    assert report["ridge"] == pytest.approx(np.mean(model.predict(X_DATA)))
    assert report["machines"]["ridge"]["model"] == "Ridge"
    with pytest.raises(ww.GraphError, match=r"report= names a node 'machines', but a composite's report_\(\) keeps"):
        model.set_params(report="machines").fit(X_DATA, Y_DATA)
    X = ww.source(name="X")
    with pytest.raises(ww.GraphError, match="Give the node another name"):
        ww.Signature(predict=X, report={"machines": X})


def test_a_composite_inside_another_is_one_machine_of_it_with_its_own_report():
    inner = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())])
    outer = ww.Pipeline([("scale", StandardScaler()), ("inner", inner)]).fit(X_DATA, Y_DATA)
    assert keyed(outer) == {"scale": "StandardScaler", "inner": "Pipeline"}  # the inner "scale" is not the outer's
    assert keyed(outer.fitted_params_()["inner"]) == {"scale": "StandardScaler", "ridge": "Ridge"}


def test_operations_appear_exactly_when_the_signature_provides_them():
    model = TwoStage(Ridge(), StandardScaler())
    assert hasattr(model, "predict")
    for absent in ("predict_proba", "transform", "decision_function", "inverse_transform"):
        assert not hasattr(model, absent)


def test_pickle_round_trip_keeps_predictions_and_drops_training_data():
    model = TwoStage(Ridge(), StandardScaler()).fit(X_DATA, Y_DATA)
    restored = pickle.loads(pickle.dumps(model))
    assert np.array_equal(restored.predict(X_DATA), model.predict(X_DATA))
    assert restored._built.X.data is None and len(restored._built.store) == 0
    restored.set_params(regressor__alpha=2.0).fit(X_DATA, Y_DATA)  # a refit after loading retrains what changed
    actions = {name: report["action"] for name, report in restored.report_()["machines"].items()}
    assert actions == {"scale": "skipped", "regress": "updated"}
    state = pickle.loads(pickle.dumps(model))._built.__dict__.copy()
    state.pop("roots")  # as pickled before the network kept its roots
    old = object.__new__(type(model._built))
    old.__setstate__(state)
    assert old.roots == old.signature.nodes() and len(old.roots) == 2


def test_a_pickle_made_before_composite_was_split_into_modules_still_loads():
    # The fitted network's class, _Built, was defined in wirework.compose.composite: such a pickle names it there.
    model = TwoStage(Ridge(), StandardScaler()).fit(X_DATA, Y_DATA)
    made_now = pickle.dumps(model, protocol=0)  # names each class as "c<module>\n<name>\n"
    made_before = made_now.replace(b"cwirework.compose._building\n_Built\n", b"cwirework.compose.composite\n_Built\n")
    assert made_before != made_now
    restored = pickle.loads(made_before)
    assert type(restored._built) is type(model._built)
    np.testing.assert_array_equal(restored.predict(X_DATA), model.predict(X_DATA))
    assert (ww.Composite.__module__, ww.Composite.__qualname__) == ("wirework.compose.composite", "Composite")
    assert pickle.loads(pickle.dumps(ww.Composite)) is ww.Composite


def test_every_name_imported_from_the_composite_module_is_still_there():
    from wirework.compose import composite

    root = Path(__file__).parents[2]
    imported = {
        alias.name
        for path in [*root.glob("wirework/**/*.py"), *root.glob("tests/**/*.py")]
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module == "wirework.compose.composite"
        for alias in node.names
    }
    assert {"Composite", "_unusable", "_quick_key"} <= imported
    assert [name for name in sorted(imported) if not hasattr(composite, name)] == []


def test_the_mixin_rules_moved_to_their_own_module_are_still_where_they_were():
    # composite.py (617 lines) and pipeline.py were split: the kinds of scikit-learn's mixins and the rules of their
    # order moved to _kinds; the old paths give the same objects, and the classes stay where pickles name them
    from wirework.compose import _kinds, composite, ensemble, pipeline, stack

    for name in ("_KIND_MIXINS", "_KIND_MIXIN_CLASSES", "_check_mixin_order"):
        assert getattr(composite, name) is getattr(_kinds, name), name
    assert pipeline._kind_of is _kinds._kind_of
    for cls in (ww.Composite, ww.compose.WeightedFit, ww.Pipeline, ww.TransformedTarget, ww.Stack, ww.Bagging, ww.Average):
        module = {"Composite": composite, "WeightedFit": composite, "Pipeline": pipeline, "TransformedTarget": pipeline,
                  "Stack": stack, "Bagging": ensemble, "Average": ensemble}[cls.__name__]
        assert cls.__module__ == module.__name__ and pickle.loads(pickle.dumps(cls)) is cls, cls
    root = Path(__file__).parents[2]
    assert [path.name for path in (root / "wirework" / "compose").glob("*.py") if len(path.read_text().splitlines()) > 600] == []
    with pytest.raises(ww.ArgumentError, match=r"class Late\(OutlierMixin, Composite\)"):
        type("Late", (ww.Composite, OutlierMixin), {})  # the rule still holds, from its new module


@pytest.mark.parametrize("copy", [lambda m: pickle.loads(pickle.dumps(m)), lambda m: __import__("copy").deepcopy(m)],
                         ids=["pickle", "deepcopy"])
@pytest.mark.parametrize(
    "recipe, change, retrained",
    [
        (lambda: ww.Stack([("lr", LogisticRegression()), ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))],
                          LogisticRegression(), cv=3), {"final_estimator__C": 0.5}, {"final"}),
        (lambda: ww.Average([("lr", LogisticRegression()), ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))]),
         {"tree__max_depth": 3}, {"tree"}),
        (lambda: ww.Bagging(DecisionTreeClassifier(max_depth=2), n_estimators=3, random_state=0), {"n_estimators": 4},
         {"member4"}),
    ],
    ids=["Stack", "Average", "Bagging"],
)
def test_a_copied_classifier_recipe_retrains_only_what_a_change_touches(recipe, change, retrained, copy):
    # The label encoder of a classifier recipe trained by its own fit_transform, whose output a copy drops, so a
    # copy's refit trained it again (condition 7) and then every machine after it, on equal data too.
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.where(y == 1, "benign", "malignant")
    restored = copy(recipe().fit(X, y))
    restored.fit(X, y)
    assert {name for name, r in restored.report_()["machines"].items() if r["action"] != "skipped"} == set()
    restored = copy(restored).set_params(**change).fit(X, y)
    assert {name for name, r in restored.report_()["machines"].items() if r["action"] != "skipped"} == retrained
    assert np.array_equal(restored.predict(X), recipe().set_params(**change).fit(X, y).predict(X))


def test_pandas_input_keeps_feature_names():
    frame = load_diabetes(as_frame=True)
    model = TwoStage(Ridge(), StandardScaler()).fit(frame.data, frame.target)
    assert list(model.feature_names_in_) == list(frame.data.columns)
    # only machines read X: its scaler judges the columns, and refuses them as scikit-learn's Pipeline's first step
    with pytest.raises(ww.MachineApplyError, match=r"Machine 'scale' \(StandardScaler\) failed in transform\(\) .*The feature names should match"):
        model.predict(frame.data[frame.data.columns[::-1]])


def _by_name():
    """Three diabetes columns picked by name and scaled, then a ridge: scikit-learn's pandas workflow."""
    from sklearn.compose import ColumnTransformer

    return make_pipeline(ColumnTransformer([("scale", StandardScaler(), ["age", "bmi", "s5"])]), Ridge())


@pytest.mark.parametrize(
    "recipe, peer",
    [
        (
            lambda: ww.Pipeline([("columns", _by_name()[0]), ("ridge", Ridge())]),
            lambda: Pipeline([("columns", _by_name()[0]), ("ridge", Ridge())]),
        ),
        (
            lambda: ww.Stack([("picked", _by_name())], Ridge(), cv=KFold(3)),
            lambda: sklearn.ensemble.StackingRegressor([("picked", _by_name())], Ridge(), cv=KFold(3)),
        ),
        (
            lambda: ww.Average([("picked", _by_name()), ("other", _by_name().set_params(ridge__alpha=3.0))]),
            lambda: sklearn.ensemble.VotingRegressor(
                [("picked", _by_name()), ("other", _by_name().set_params(ridge__alpha=3.0))]
            ),
        ),
        (
            lambda: ww.TransformedTarget(_by_name(), StandardScaler()),
            lambda: sklearn.compose.TransformedTargetRegressor(_by_name(), transformer=StandardScaler()),
        ),
    ],
    ids=["pipeline", "stack", "average", "target transform"],
)
def test_models_that_pick_columns_by_name_take_frames_with_other_columns_as_in_scikit_learn(recipe, peer):
    # scikit-learn's Pipeline, stacking, voting and target transform hand X to their components, so a
    # ColumnTransformer first takes a frame with its columns in another order, or extra ones (an id, the target)
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X.index = [f"patient {k}" for k in np.random.default_rng(0).permutation(len(X))]
    model, reference = recipe().fit(X, y), peer().fit(X, y)
    assert list(model.feature_names_in_) == list(reference.feature_names_in_) and model.n_features_in_ == 10
    for other in (X[X.columns[::-1]], X.assign(id=np.arange(len(X)))[["id", *X.columns]], X.drop(columns="s6")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            predicted = model.predict(other)
        np.testing.assert_allclose(predicted, reference.predict(other), rtol=0, atol=1e-9)
        np.testing.assert_allclose(predicted, model.predict(X), rtol=0, atol=1e-9)
        assert model.score(other, y) == pytest.approx(reference.score(other, y), abs=1e-12)
    with pytest.raises(ValueError, match=r"columns are missing: \{'bmi'\}"):  # a column it picks: refused by it
        model.predict(X.drop(columns="bmi"))


class Doubled(RegressorMixin, ww.Composite):
    """A ridge on X and on a static node's doubling of X's values (by position)."""

    def network(self, X, y=None):
        both = ww.node(lambda frame: np.hstack([frame.to_numpy(), 2 * frame.to_numpy()]), X)
        return ww.Signature(predict=ww.machine(Ridge(), both, y).predict(both))


def test_a_frame_with_other_columns_is_refused_where_a_static_node_reads_x():
    # the static node takes columns by position: other columns would be a silent wrong answer
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = Doubled().fit(X, y)
    with pytest.raises(ww.DataError, match="Doubled.predict cannot use the data it received: The feature names"):
        model.predict(X[X.columns[::-1]])
    stack = ww.Stack([("picked", _by_name())], Ridge(), cv=KFold(3), passthrough=True).fit(X, y)
    with pytest.raises(ww.DataError, match="Stack.predict cannot use the data it received: The feature names"):
        stack.predict(X.assign(id=0.0))  # its passthrough columns are X's own
    bagging = ww.Bagging(Ridge(), 2, max_features=0.5, random_state=0).fit(X, y)
    with pytest.raises(ww.DataError, match="Bagging.predict cannot use the data it received: The feature names"):
        bagging.predict(X[X.columns[::-1]])  # its members' column subsets are positions


@pytest.mark.parametrize(
    "recipe",
    [
        lambda: ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]),
        lambda: ww.Stack([("ridge", Ridge()), ("scaled", make_pipeline(StandardScaler(), Ridge()))], Ridge(), cv=3),
        lambda: ww.TransformedTarget(Ridge(), StandardScaler()),
        lambda: TwoStage(Ridge(), StandardScaler()),
    ],
    ids=["pipeline", "stack", "target transform", "user composite"],
)
def test_an_array_given_after_a_frame_is_warned_of_once(recipe):
    # scikit-learn's check in the composite warns; the models inside, fitted on the frame too, stay silent
    frame = load_diabetes(as_frame=True)
    model = recipe().fit(frame.data, frame.target)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        predicted = model.predict(frame.data.to_numpy()[:5])
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith(
        f"X does not have valid feature names, but {type(model).__name__} was fitted with feature names"
    ), messages
    np.testing.assert_array_equal(predicted, model.predict(frame.data.iloc[:5]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the filter is gone after the call
        with pytest.raises(UserWarning, match="but StandardScaler was fitted with feature names"):
            StandardScaler().fit(frame.data).transform(frame.data.to_numpy()[:2])


def test_unfitted_use_is_a_not_trained_error():
    with pytest.raises(ww.NotTrainedError, match=r"This TwoStage has not been fitted yet\. Call fit\(X, y\)"):
        TwoStage(Ridge(), StandardScaler()).predict(X_DATA)


def test_wrong_feature_count_at_predict():
    model = TwoStage(Ridge(), StandardScaler()).fit(X_DATA, Y_DATA)
    message = "TwoStage.predict cannot use the data it received: X has 3 features, but TwoStage is expecting 10"
    with pytest.raises(ww.DataError, match=message):
        model.predict(X_DATA[:, :3])
    with pytest.raises(ww.DataError, match=message):
        model.predict(X_DATA[:, :3].tolist())  # not an array: scikit-learn's check says it


# -- bad networks: one clear error each (acceptance 5) ---------------------------


class NoSignature(RegressorMixin, ww.Composite):
    def network(self, X, y=None):
        ww.machine(Ridge(), X, y).predict(X)


class Disconnected(RegressorMixin, ww.Composite):
    def network(self, X, y=None):
        other = ww.source(np.zeros((3, 10)), name="Z")
        return ww.Signature(predict=ww.machine(Ridge(), X, y).predict(other))


class TrainsOnForeignData(RegressorMixin, ww.Composite):
    def network(self, X, y=None):
        return ww.Signature(predict=ww.machine(Ridge(), X_DATA, Y_DATA).predict(X))


class UnsupervisedSlot(RegressorMixin, ww.Composite):
    def network(self, X, y=None):
        return ww.Signature(predict=ww.machine(StandardScaler(), X, y).predict(X))


def test_network_that_returns_no_signature():
    with pytest.raises(ww.GraphError, match=r"NoSignature\.network\(\) must return a ww\.Signature\. Received: NoneType"):
        NoSignature().fit(X_DATA, Y_DATA)


def test_signature_node_that_does_not_descend_from_the_sources():
    with pytest.raises(ww.GraphError, match=r"predict node of Disconnected\.network\(\) depends on sources.*Sources it reaches: Z"):
        Disconnected().fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"trains on data that does not come from the X, y or sample_weight"):
        TrainsOnForeignData().fit(X_DATA, Y_DATA)


def test_a_machine_trained_on_data_of_its_own_in_a_network_names_what_it_reaches():
    """The error named the machine only: data given to ww.machine() itself, a source of its own, was not shown."""
    with pytest.raises(ww.GraphError, match=r"Machine \(Ridge\) in TrainsOnForeignData\.network\(\) trains on data that "
                       r"does not come from the X, y or sample_weight given to network\(\): it reaches <unnamed source> "
                       r"holding numpy\.ndarray of shape \(442, 10\), <unnamed source> holding numpy\.ndarray of shape "
                       r"\(442,\)\. Build every training argument from them \(data given to ww\.machine\(\) itself"):
        TrainsOnForeignData().fit(X_DATA, Y_DATA)


class PredictsFromTheTarget(RegressorMixin, ww.Composite):
    """An output that reads y: at prediction time the composite gives its outputs X alone."""

    def __init__(self, output="predict"):
        self.output = output

    def network(self, X, y=None):
        ridge = ww.machine(Ridge(), X, y, name="ridge")
        if self.output == "predict":  # the labels a classifier would map back to, read from y
            return ww.Signature(predict=ww.node(lambda p, t: p + 0 * np.mean(t), ridge.predict(X), y))
        if self.output == "transform":  # the target's own scaling, where X's was meant
            return ww.Signature(predict=ridge.predict(X), transform=ww.machine(StandardScaler(), y).transform(y))
        return ww.Signature(predict=ww.node(np.zeros, 3))  # a constant: reads no source at all


def test_an_output_that_reads_the_target_or_no_source_is_refused_when_the_network_is_built():
    """The composite pushes X alone through each output (``network_["predict"](X)``): an output reading y fitted
    and then failed at predict with a node's error no composite user can follow ("pass each by name,
    node(X=X_new, y=y_new)"), and one reading y alone took X for y, silently: a one-column X was scaled as the
    target had been. A constant output said to call it without data."""
    one_column = X_DATA[:, :1]
    with pytest.raises(ww.GraphError, match=r"The predict node of PredictsFromTheTarget\.network\(\) reads y\b.*"
                       r"given X alone.*Compute it from X"):
        PredictsFromTheTarget("predict").fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"The transform node of PredictsFromTheTarget\.network\(\) reads y\b"):
        PredictsFromTheTarget("transform").fit(one_column, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"The predict node of PredictsFromTheTarget\.network\(\) reads no source"):
        PredictsFromTheTarget("constant").fit(X_DATA, Y_DATA)


class ReusesANetwork(RegressorMixin, ww.Composite):
    def __init__(self, other=None):
        self.other = other

    def network(self, X, y=None):
        return self.other.network_  # the nodes of another composite's network, on its own sources X and y


def test_a_node_of_another_composite_s_network_says_its_source_x_is_another_x():
    """It said "Sources it reaches: X", though the X it reaches is the other network's, not the one given."""
    other = TwoStage(Ridge(), StandardScaler()).fit(X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"Sources it reaches: X \(another source of that name: not the one given "
                       r"to network\(\), perhaps one of another network\)\. Build every node from them"):
        ReusesANetwork(other).fit(X_DATA, Y_DATA)


def test_the_work_of_building_a_network_and_building_it_again_grows_linearly_with_its_depth():
    """Each machine walked the ancestry of its training arguments to check they read only X, y and sample_weight:
    quadratic in the depth of the network, at its first fit and at each structural change. Counted in calls (not
    seconds), 8 times deeper is about 8 times the work: a first fit, and a fit after the last step was replaced (the
    network built again, every other step carried over)."""
    work = {}
    for depth in (50, 400):
        steps = [(f"f{k}", FunctionTransformer()) for k in range(depth)]
        pipe = ww.Pipeline([*steps, ("last", Ridge())])
        work[depth] = [wirework_calls(lambda: pipe.fit(X_DATA, Y_DATA))]
        pipe.set_params(last=Lasso(alpha=0.01))
        work[depth].append(wirework_calls(lambda: pipe.fit(X_DATA, Y_DATA)))
        actions = {name: report["action"] for name, report in pipe.report_()["machines"].items()}
        assert actions.pop("last") == "trained" and set(actions.values()) == {"skipped"}
    growth = [deeper / shallow for shallow, deeper in zip(work[50], work[400])]
    assert max(growth) < 10, (work, growth)


def test_estimator_without_predict_in_a_supervised_slot():
    with pytest.raises(ww.GraphError, match=r"StandardScaler has no predict\(\)"):
        UnsupervisedSlot().fit(X_DATA, Y_DATA)
    with pytest.raises(ww.ArgumentError, match=r"step 'ridge' \(Ridge\) is not the last step, so it must be a transformer"):
        ww.Pipeline([("ridge", Ridge()), ("scale", StandardScaler())]).fit(X_DATA, Y_DATA)


def test_missing_target_and_bad_signature_values():
    with pytest.raises(ww.DataError, match="requires y to be passed, but the target y is None"):
        TwoStage(Ridge(), StandardScaler()).fit(X_DATA)
    with pytest.raises(ww.GraphError, match="at least one operation node"):
        ww.Signature()
    with pytest.raises(ww.ArgumentError, match="Expected a node for predict="):
        ww.Signature(predict=np.zeros(3))


def test_a_signature_given_a_misspelt_output_or_a_report_that_is_no_dict_says_so():
    """A misspelt output was Python's TypeError ("unexpected keyword argument"), not a wirework error; a report given
    as a list failed in dict() ("cannot convert dictionary update sequence"), one given as a node asked for its
    truth value, a string was a ValueError of dict()."""
    X, y = ww.source(name="X"), ww.source(name="y")
    ridge = ww.machine(Ridge(), X, y)
    with pytest.raises(ww.ArgumentError, match=r"ww\.Signature got predicts= \(did you mean predict=\?\), which names "
                       r"no output of a network\. Its outputs: predict=, predict_proba=.*report=\{\.\.\.\}"):
        ww.Signature(predicts=ridge.predict(X))
    for report in ([ridge.predict(X)], ridge.predict(X), "mean"):
        with pytest.raises(ww.ArgumentError, match=r"Expected report= to be a dict mapping names \(str\) to nodes\. "
                           r"Received: (list|wirework\.DynamicNode|str)"):
            ww.Signature(predict=ridge.predict(X), report=report)
    with pytest.raises(ww.ArgumentError, match=r"Received: wirework\.Machine .*Give one of its nodes, mach\.predict\(X\)"):
        ww.Signature(predict=ridge)


def test_a_signature_s_repr_names_each_machine_once_across_its_outputs():
    """Each output was numbered on its own: m1 was the Ridge in predict and the PCA in transform."""
    X, y = ww.source(name="X"), ww.source(name="y")
    Z = ww.machine(StandardScaler(), X).transform(X)
    pca, ridge = ww.machine(PCA(2), Z), ww.machine(Ridge(), Z, y)
    signature = ww.Signature(predict=ridge.predict(Z), transform=pca.transform(Z), report={"z": Z})
    assert repr(signature) == (
        "Signature(predict=predict(m1, transform(m2, X)), transform=transform(m3, transform(m2, X)), report=['z'])"
    )


def test_fit_errors_keep_their_builtin_class():
    data = X_DATA.copy()
    data[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN") as info:
        TwoStage(Ridge(), StandardScaler()).fit(data, Y_DATA)
    assert isinstance(info.value, ww.MachineFitError) and info.value.machine.name == "regress"


@pytest.mark.parametrize(
    ("X", "y", "error", "message"),
    [
        (X_DATA[:, 0], Y_DATA, ww.DataError, "Expected 2D array, got 1D array"),
        (X_DATA, np.where(Y_DATA > 100, Y_DATA, np.nan), ww.DataError, "Input y contains NaN"),
        (X_DATA, np.c_[Y_DATA, Y_DATA], ww.DataError, "y should be a 1d array"),
        (X_DATA[:0], Y_DATA[:0], ww.DataError, "Found array with 0 sample"),
        (X_DATA + 1j, Y_DATA, ww.DataError, "Complex data not supported"),
        (X_DATA, sp.csr_matrix(Y_DATA.reshape(-1, 1)), ww.ArgumentError, "Sparse data was passed for y"),
    ],
    ids=["1-D X", "NaN in y", "2-D y", "no rows", "complex X", "sparse y"],
)
def test_unusable_training_data_is_a_wirework_error_of_the_builtin_kind(X, y, error, message):
    model = TwoStage(Ridge(), StandardScaler())
    with pytest.raises(error, match=f"TwoStage.fit cannot use the data it received: {message}") as info:
        model.fit(X, y)
    builtin = TypeError if error is ww.ArgumentError else ValueError
    assert isinstance(info.value, builtin) and isinstance(info.value.__cause__, builtin)
    assert "network_" not in model.__dict__  # nothing trained, nothing half-kept


def test_a_classifier_composite_refuses_continuous_targets():
    model = ww.Pipeline([("scale", StandardScaler()), ("classify", LogisticRegression())])
    with pytest.raises(ww.DataError, match="Pipeline.fit cannot use the data it received: Unknown label type"):
        model.fit(X_DATA, Y_DATA + 0.5)  # continuous values


def test_unusable_data_at_predict_is_a_data_error_and_keeps_the_fit():
    model = TwoStage(Ridge(), StandardScaler()).fit(X_DATA, Y_DATA)
    before = model.predict(X_DATA[:5])
    with pytest.raises(ww.DataError, match="TwoStage.predict cannot use the data it received: Expected 2D array"):
        model.predict(X_DATA[0])
    bad = X_DATA[:5].copy()
    bad[2, 1] = np.nan  # passes the composite's check; its Ridge refuses it
    with pytest.raises(ww.MachineApplyError, match=r"Machine 'regress' \(Ridge\) failed in predict\(\)") as info:
        model.predict(bad)
    assert isinstance(info.value, ValueError) and info.value.machine.name == "regress"
    np.testing.assert_array_equal(model.predict(X_DATA[:5]), before)


def _non_negative(X):
    if (X < 0).any():
        raise ValueError("negative values")
    return X


class CheckedRidge(RegressorMixin, ww.Composite):
    """A Ridge behind a static node that refuses negative inputs."""

    def network(self, X, y=None):
        checked = ww.node(_non_negative, X)
        return ww.Signature(predict=ww.machine(Ridge(), checked, y, name="ridge").predict(checked))


def test_a_node_function_failing_at_predict_is_a_node_apply_error_and_keeps_the_fit():
    X = np.abs(X_DATA)
    model = CheckedRidge().fit(X, Y_DATA)
    before = model.predict(X[:5])
    message = r"Computing predict\(ridge, _non_negative\(X\)\) on new data, the node _non_negative\(X\) raised ValueError"
    with pytest.raises(ww.NodeApplyError, match=message) as info:
        model.predict(-X[:5])
    assert isinstance(info.value, ValueError) and type(info.value.__cause__) is ValueError
    np.testing.assert_array_equal(model.predict(X[:5]), before)


def _refuse(values):
    raise ValueError("no summary of these")


class BadReport(RegressorMixin, ww.Composite):
    """A Ridge whose report node's function raises."""

    def network(self, X, y=None):
        predictions = ww.machine(Ridge(), X, y, name="ridge").predict(X)
        return ww.Signature(predict=predictions, report={"summary": ww.node(_refuse, predictions)})


def test_a_report_node_failing_in_fit_is_a_node_apply_error_and_keeps_the_trained_machines():
    model = BadReport()
    message = (
        r"On the training data, the node _refuse\(predict\(ridge, X\)\) raised ValueError: no summary of these; "
        r"it received numpy.ndarray of shape \(442,\)\. The machines trained stay trained"
    )
    with pytest.raises(ww.NodeApplyError, match=message) as info:
        model.fit(X_DATA, Y_DATA)
    assert isinstance(info.value, ValueError) and type(info.value.__cause__) is ValueError
    assert model.report_()["machines"]["ridge"]["action"] == "trained"
    with pytest.raises(ww.NotTrainedError, match=r"The last fit of this BadReport failed \(NodeApplyError: On the"):
        model.predict(X_DATA)


def test_a_refused_fit_leaves_the_fitted_composite_as_it_was():
    frame = load_diabetes(as_frame=True)
    model = TwoStage(Ridge(), StandardScaler()).fit(frame.data, frame.target)
    before = model.predict(frame.data.iloc[:5])
    renamed = frame.data.rename(columns=lambda name: f"{name}_b").iloc[:, :4]
    with pytest.raises(ww.DataError, match="Input y contains NaN"):
        model.fit(renamed, frame.target.where(frame.target > 100))
    assert list(model.feature_names_in_) == list(frame.data.columns) and model.n_features_in_ == 10
    np.testing.assert_array_equal(model.predict(frame.data.iloc[:5]), before)


def test_a_failed_fit_pass_blocks_prediction_and_the_next_fit_resumes():
    model = two_stage().fit(X_DATA, Y_DATA)
    model.set_params(scaler__estimator=StandardScaler(with_std=False), regressor__estimator__alpha=-1.0)
    Counting.events.clear()
    with pytest.raises(ww.MachineFitError, match="Machine 'regress'"):
        model.fit(X_DATA, Y_DATA)  # the scaler retrains, then the Ridge refuses its alpha
    assert fits() == ["scale", "ridge"]
    actions = {name: report["action"] for name, report in model.report_()["machines"].items()}
    assert actions == {"scale": "updated", "regress": "failed"}
    message = r"The last fit of this TwoStage failed \(MachineFitError: Machine 'regress'.*fit\(X, y\) again"
    with pytest.raises(ww.NotTrainedError, match=message):
        model.predict(X_DATA[:3])  # the scaler is new, the Ridge old: no mixed answer
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    model.set_params(regressor__estimator__alpha=1.0)
    Counting.events.clear()
    model.fit(X_DATA, Y_DATA)
    assert fits() == ["ridge"]  # the scaler's finished training is kept
    expected = TwoStage(Ridge(alpha=1.0), StandardScaler(with_std=False)).fit(X_DATA, Y_DATA).predict(X_DATA[:3])
    np.testing.assert_allclose(model.predict(X_DATA[:3]), expected, rtol=1e-12)
    check_is_fitted(model)


def test_composite_accepts_pandas_series_target():
    frame = load_diabetes(as_frame=True)
    model = ww.TransformedTarget(Ridge(), StandardScaler()).fit(frame.data, pd.Series(frame.target))
    assert model.predict(frame.data.iloc[:3]).shape == (3,)
    # the target reaches the network as the Series it is; the recipe's transformer, as scikit-learn's
    # TransformedTargetRegressor's, trains on its values (a named column warned when given predictions)
    assert not hasattr(model.fitted_params_()["target_transformer"], "feature_names_in_")
    seen = []

    class Spy(ww.Composite):
        def __init__(self, regressor=None):
            self.regressor = regressor

        def network(self, X, y=None):
            return ww.Signature(predict=ww.machine(self.regressor, X, ww.node(lambda t: seen.append(t) or t, y)).predict(X))

    Spy(Ridge()).fit(frame.data, pd.Series(frame.target))
    assert isinstance(seen[0], pd.Series) and seen[0].name == "target"


def test_refit_on_the_same_arrays_mutated_in_place_retrains():
    X, y = X_DATA.copy(), Y_DATA.copy()
    model = two_stage().fit(X, y)
    Counting.events.clear()
    model.fit(X, y)
    assert fits() == []
    X[5, 3] = 0.25  # in place: the same object, other content
    model.fit(X, y)
    assert fits() == ["scale", "ridge"]
    Counting.events.clear()
    y[0] += 1.0
    model.fit(X, y)
    assert fits() == ["ridge"]


@pytest.mark.parametrize("layout", ["fortran", "frame"])
def test_refit_on_equal_values_in_another_memory_layout_retrains(layout):
    # A model computes in another order on another layout (StandardScaler's mean_ of a Fortran-ordered array differs
    # in the last bit); tokens ignored the layout, so a refit kept the fit of the first and predicted otherwise than
    # a fit of the second. A frame made with copy=False keeps the array's rows contiguous; a copy, its columns.
    X = np.random.default_rng(4).normal(size=(400, 30))
    y = X @ np.linspace(-1.0, 1.0, 30)
    first, second = (X, np.asfortranarray(X)) if layout == "fortran" else (pd.DataFrame(X), pd.DataFrame(X, copy=False))
    make = lambda: ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())])  # noqa: E731
    model = make().fit(first, y).fit(second, y)
    np.testing.assert_array_equal(model.predict(X), make().fit(second, y).predict(X))


# -- set_params ---------------------------------------------------------------


def _settings(model):
    """What set_params can change: every parameter, deeply, with components by class."""
    return {k: type(v).__name__ if hasattr(v, "get_params") else v for k, v in model.get_params(deep=True).items()}


@pytest.mark.parametrize(
    "params",
    [
        lambda: {},
        lambda: {"regressor__alpha": 4.0},
        lambda: {"regressor": Lasso(alpha=0.2)},
        lambda: {"regressor": Lasso(alpha=0.2), "regressor__alpha": 0.7},  # nested goes to the new component
        lambda: {"regressor__alpha": 0.7, "regressor": Lasso(alpha=0.2)},  # in either order
        lambda: {"scaler__with_mean": False, "regressor__alpha": 2.0, "regressor__fit_intercept": False},
    ],
)
def test_set_params_does_what_scikit_learn_does(params):
    ours, theirs = TwoStage(Ridge(), StandardScaler()), TwoStage(Ridge(), StandardScaler())
    assert ours.set_params(**params()) is ours
    super(ww.Composite, theirs).set_params(**params())  # BaseEstimator.set_params
    assert _settings(ours) == _settings(theirs)
    assert _settings(ours) != _settings(TwoStage(Ridge(), StandardScaler())) or not params()


def test_set_params_reads_no_component_parameters(monkeypatch):
    class Watched(Ridge):
        reads = 0

        def get_params(self, deep=True):
            Watched.reads += 1
            return super().get_params(deep=deep)

    model = TwoStage(Watched(), StandardScaler())
    model.set_params(scaler__with_std=False)
    assert Watched.reads == 0  # scikit-learn's BaseEstimator.set_params reads every component's
    model.set_params(regressor__alpha=2.0)
    assert Watched.reads == 1 and model.regressor.alpha == 2.0  # only its own set_params reads it

    class Plain(Ridge):  # BaseEstimator's get_params and set_params: its signature is read once per class
        pass

    model = TwoStage(Plain(), StandardScaler()).set_params(regressor__alpha=2.0)
    with monkeypatch.context() as patched:
        patched.setattr(Plain, "_get_param_names", classmethod(lambda cls: pytest.fail("signature read again")))
        model.set_params(regressor__alpha=3.0, regressor__fit_intercept=False)
    assert (model.regressor.alpha, model.regressor.fit_intercept) == (3.0, False)


def test_set_params_rejects_unknown_names_before_changing_anything():
    model = TwoStage(Ridge(), StandardScaler())
    with pytest.raises(ww.ParameterError, match=r"Invalid parameter 'regresor'.*Valid parameters are: \['regressor', 'scaler'\]"):
        model.set_params(regressor__alpha=9.0, regresor=Lasso())
    with pytest.raises(ValueError, match="Invalid parameter 'nope__alpha'"):
        model.set_params(scaler=None, nope__alpha=1.0)
    assert model.regressor.alpha == 1.0 and isinstance(model.scaler, StandardScaler)
    message = r"Invalid parameter regressor__nope for TwoStage: 'regressor' holds .*Ridge\(\), whose parameters are \['alpha'"
    with pytest.raises(ww.ParameterError, match=message):
        model.set_params(scaler__with_mean=False, regressor__nope=1.0)  # a component's names: checked first too
    assert model.scaler.with_mean is True


def test_set_params_checks_names_inside_nested_components_before_changing_anything():
    inner = Pipeline([("scale", StandardScaler()), ("ridge", Ridge())])
    stack = ww.Stack([("a", Ridge()), ("b", inner), ("c", BaggingRegressor(Ridge()))], Ridge())
    for bad in ({"a__alpha": 2.0, "b__ridge__nope": 1}, {"a__alpha": 2.0, "b__nope": 1}, {"a__alpha": 2.0, "c__estimator__nope": 1}):
        with pytest.raises(ww.ParameterError, match=r"Invalid parameter (b__ridge__nope|b__nope|c__estimator__nope) for Stack"):
            stack.set_params(**bad)
        assert stack.estimators[0][1].alpha == 1.0
    stack.set_params(a__alpha=2.0, b__ridge__alpha=3.0, c__estimator__alpha=4.0, b__scale=Lasso(), b__scale__alpha=5.0)
    assert (stack.estimators[0][1].alpha, inner.steps[1][1].alpha, stack.estimators[2][1].estimator.alpha) == (2.0, 3.0, 4.0)
    assert inner.steps[0][1].alpha == 5.0  # a sub-component replaced in the same call takes its own names
    message = r"Cannot set \['b__ridge', 'b__ridge__nope'\] on 'b' of Stack: Invalid parameter 'nope'"
    with pytest.raises(ww.ParameterError, match=message):
        stack.set_params(b__ridge=Ridge(), b__ridge__nope=1)  # what only the component can check: its error, ours
    with pytest.raises(ww.ParameterError, match=r"Cannot set \['b__ridge__nope'\] on 'b' of Stack"):
        stack.set_params(b__ridge__nope=1)  # the only component set: its own set_params checks (one read)


def test_set_params_into_something_without_parameters_says_so():
    model = TwoStage(Ridge(), None)
    with pytest.raises(ww.ParameterError, match=r"Cannot set 'with_mean' on 'scaler' of TwoStage: it holds NoneType None, which has no set_params"):
        model.set_params(regressor__alpha=3.0, scaler__with_mean=False)
    assert model.regressor.alpha == 1.0
    model.set_params(scaler=StandardScaler(), scaler__with_mean=False)  # a component given in the same call
    assert model.scaler.with_mean is False


def test_quick_key_takes_models_by_identity_and_anything_else_to_hashing():
    from wirework.compose.composite import _quick_key

    class Hidden:  # looks like a model to its class, not to hasattr on an instance
        get_params = Ridge.get_params

        @property
        def fit(self):
            raise AttributeError("no fit here")

    ridge = Ridge()
    assert _quick_key({"a": [("r", ridge)], "b": 1}) == _quick_key({"a": [("r", ridge)], "b": 1})
    assert _quick_key([ridge]) != _quick_key([Ridge()])  # another object, though equal
    assert _quick_key([1]) != _quick_key([1.0]) != _quick_key([True])
    assert _quick_key([Hidden()]) is None and _quick_key([np.zeros(2)]) is None


def test_kind_follows_a_replaced_last_step_on_refit():
    from sklearn.linear_model import LogisticRegression

    labels = (Y_DATA > np.median(Y_DATA)).astype(int)
    pipe = ww.Pipeline([("scale", StandardScaler()), ("model", Ridge())], n_jobs=1).fit(X_DATA, labels)
    assert not hasattr(pipe, "classes_")
    pipe.set_params(model=LogisticRegression()).fit(X_DATA, labels)
    np.testing.assert_array_equal(pipe.classes_, [0, 1])
    pipe.set_params(model=Ridge()).fit(X_DATA, labels)
    assert not hasattr(pipe, "classes_")


def test_execution_parameters_are_read_where_the_class_has_them(monkeypatch):
    from wirework.graph import training

    seen = []
    real = training.fit_pass
    monkeypatch.setattr(
        "wirework.compose.composite.fit_pass", lambda roots, **kw: seen.append(kw) or real(roots, **kw)
    )
    cache = ww.FitCache()
    ww.Pipeline([("ridge", Ridge())], cache=cache, n_jobs=1).fit(X_DATA, Y_DATA)
    assert seen[-1]["cache"] is cache and seen[-1]["n_jobs"] == 1 and seen[-1]["executor"] is None
    two_stage().fit(X_DATA, Y_DATA)  # a composite without execution parameters: the defaults
    assert seen[-1]["cache"] is None and seen[-1]["n_jobs"] is None and seen[-1]["verbose"] == 0


def test_new_arrays_are_checked_again_the_same_ones_are_not(monkeypatch):
    model = two_stage().fit(X_DATA, Y_DATA)
    assert model.n_features_in_ == X_DATA.shape[1]
    checked = []
    real = ww.Composite._check_fit_data
    monkeypatch.setattr(ww.Composite, "_check_fit_data", lambda self, X, y, w=None: checked.append(1) or real(self, X, y, w))
    model.fit(X_DATA, Y_DATA)  # the very arrays of the last fit
    assert checked == []
    model.fit(X_DATA[:, :4].copy(), Y_DATA)  # another X: checked, its feature count kept
    assert checked == [1] and model.n_features_in_ == 4
    with pytest.raises(ww.DataError, match="inconsistent numbers of samples"):
        model.fit(X_DATA[:, :4], Y_DATA[:-1].copy())  # another y, of another length


def test_after_a_failed_fit_the_arrays_of_the_last_good_fit_are_checked_again():
    X, y = X_DATA.copy(), Y_DATA.copy()
    frame = pd.DataFrame(X[:, :6], columns=list("abcdef"))
    frame.iloc[0, 0] = np.nan  # the scaler takes it; the Ridge fails on it
    for other in (frame.to_numpy(), frame):
        model = two_stage().fit(X, y)
        with pytest.raises(ww.MachineFitError, match="Machine 'regress'"):
            model.fit(other, y)
        model.fit(X, y)  # the very arrays of the last successful fit
        assert model.n_features_in_ == 10 and not hasattr(model, "feature_names_in_")
        assert model.predict(X[:2]).shape == (2,)


def test_a_network_that_cannot_be_built_keeps_the_attributes_of_the_last_fit():
    model = ww.Stack([("ridge", Ridge())], Ridge(), cv=3).fit(X_DATA, Y_DATA)
    before = model.predict(X_DATA[:3])
    model.set_params(levels=0)
    with pytest.raises(ww.GraphError, match="levels must be an int >= 1"):
        model.fit(X_DATA[:, :6].copy(), Y_DATA)
    assert model.n_features_in_ == 10
    np.testing.assert_array_equal(model.set_params(levels=1).predict(X_DATA[:3]), before)


@pytest.mark.parametrize("which", ["X", "y"])
def test_arrays_edited_in_place_are_checked_up_front_and_change_nothing(which):
    X, y = X_DATA.copy(), Y_DATA.copy()
    model = two_stage().fit(X, y)
    before = model.predict(X_DATA[:3])
    Counting.events.clear()
    if which == "y":
        y[0] = np.nan
        message = "Input y contains NaN"
    else:
        X.shape = (221, 20)  # the same object: half the rows, twice the columns
        message = r"inconsistent numbers of samples: \[221, 442\]"
    with pytest.raises(ww.DataError, match=message):
        model.fit(X, y)
    assert fits() == [] and model.n_features_in_ == 10
    np.testing.assert_array_equal(model.predict(X_DATA[:3]), before)


def test_a_classifier_refuses_a_target_made_continuous_in_place():
    X, y = X_DATA[:150], np.repeat([0.0, 1.0, 2.0], 50)
    model = ww.Average([("lr", LogisticRegression(max_iter=1000))]).fit(X, y)
    y += np.linspace(0, 0.5, len(y))
    with pytest.raises(ww.DataError, match="Unknown label type: continuous"):
        model.fit(X, y)
    assert list(model.classes_) == [0.0, 1.0, 2.0]


@pytest.mark.parametrize(
    "recipe",
    [
        lambda: ww.Pipeline([("s", StandardScaler()), ("r", Ridge())]),
        lambda: ww.Stack([("r", Ridge())], Ridge(), cv=3),
        lambda: ww.Average([("r", Ridge())]),
        lambda: ww.Bagging(Ridge(), n_estimators=2),
        lambda: ww.TransformedTarget(Ridge(), StandardScaler()),
    ],
    ids=["Pipeline", "Stack", "Average", "Bagging", "TransformedTarget"],
)
def test_a_recipe_refuses_unknown_fit_parameters_naming_itself_and_changes_nothing(recipe):
    model = recipe().fit(X_DATA, Y_DATA)
    before = model.predict(X_DATA[:3])
    name = type(model).__name__
    message = rf"{name}.fit takes X, y and sample_weight. Received also: \['r__sample_weight'\]. Give the weights as"
    with pytest.raises(ww.ArgumentError, match=message):
        model.fit(X_DATA[:50], Y_DATA[:50], r__sample_weight=np.ones(50))
    with pytest.raises(ww.ArgumentError, match=rf"{name}.fit takes X, y and sample_weight. Received also: \['groups'\]"):
        model.fit(X_DATA[:50], Y_DATA[:50], groups=np.ones(50))
    np.testing.assert_array_equal(model.predict(X_DATA[:3]), before)


def test_kind_follows_a_wrapper_whose_inner_model_changes_kind():
    from sklearn.linear_model import LogisticRegression

    labels = (Y_DATA > np.median(Y_DATA)).astype(int)
    # the same wrapper class both times, but it now offers predict_proba: the network is built again (it was kept,
    # without the pipeline's predict_proba, which scikit-learn's has), and the scaler keeps its training
    search = GridSearchCV(Ridge(), {"alpha": [1.0]}, cv=2)
    pipe = ww.Pipeline([("scale", StandardScaler()), ("model", search)], n_jobs=1)
    network = pipe.fit(X_DATA, labels).network_
    assert not hasattr(pipe, "classes_") and not hasattr(pipe, "predict_proba")
    pipe.set_params(model=GridSearchCV(LogisticRegression(), {"C": [1.0]}, cv=2)).fit(X_DATA, labels)
    assert pipe.network_ is not network and hasattr(pipe, "predict_proba")
    assert hasattr(Pipeline([("scale", StandardScaler()), ("model", GridSearchCV(LogisticRegression(), {}))]), "predict_proba")
    assert {m.name: m.report()["action"] for m in pipe.machines_} == {"scale": "skipped", "model": "updated"}
    np.testing.assert_array_equal(pipe.classes_, [0, 1])


# -- the output of transform: get_feature_names_out and set_output -----------------------------------------


class LogScaled(ww.Composite):
    """A transformer composite whose output is a static node, which no machine names."""

    def network(self, X, y=None):
        scaled = ww.machine(StandardScaler(), X).transform(X)
        return ww.Signature(transform=ww.node(np.abs, scaled))


class Unnamed(BaseEstimator):
    """A transformer without get_feature_names_out."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.asarray(X) * 2.0


def test_a_transformer_composite_names_its_columns_through_its_machines():
    X = load_diabetes(as_frame=True).data
    pipe = ww.Pipeline([("scale", StandardScaler()), ("skip", "passthrough"), ("pca", PCA(n_components=3))]).fit(X)
    assert list(pipe.get_feature_names_out()) == ["pca0", "pca1", "pca2"]
    scaled = ww.Pipeline([("scale", StandardScaler())]).fit(X.to_numpy())
    assert list(scaled.get_feature_names_out()) == [f"x{k}" for k in range(10)]
    assert list(scaled.get_feature_names_out(list("abcdefghij"))) == list("abcdefghij")
    assert list(ww.Pipeline([("scale", StandardScaler())]).fit(X).get_feature_names_out()) == list(X.columns)


def test_feature_names_refuse_wrong_input_names_and_unnamed_outputs():
    X = load_diabetes(as_frame=True).data
    fitted = ww.Pipeline([("scale", StandardScaler())]).fit(X)
    with pytest.raises(ww.DataError, match="not equal to feature_names_in_"):
        fitted.get_feature_names_out(list("abcdefghij"))
    with pytest.raises(ww.DataError, match=r"length equal to number of features \(10\), got 2"):
        ww.Pipeline([("scale", StandardScaler())]).fit(X.to_numpy()).get_feature_names_out(["a", "b"])
    with pytest.raises(ww.NotTrainedError):
        ww.Pipeline([("scale", StandardScaler())]).get_feature_names_out()
    with pytest.raises(ww.UnavailableError, match=r"Machine 'double' \(Unnamed\).*has no get_feature_names_out") as caught:
        ww.Pipeline([("scale", StandardScaler()), ("double", Unnamed())]).fit(X).get_feature_names_out()
    assert isinstance(caught.value, AttributeError)
    with pytest.raises(ww.UnavailableError, match="only a chain of machine transforms"):
        LogScaled().fit(X).get_feature_names_out()
    with pytest.raises(ww.UnavailableError, match="Estimator ridge .* does not provide get_feature_names_out"):
        ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(X, X["age"]).get_feature_names_out()


def test_set_output_gives_dataframes_at_once_and_the_steps_from_the_next_fit():
    X = load_diabetes(as_frame=True).data.iloc[50:]  # an index that does not start at 0
    pipe = ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(n_components=3))]).fit(X)
    before = pipe.transform(X)
    assert type(before) is np.ndarray
    out = pipe.set_output(transform="pandas").transform(X)  # the trained network, unchanged
    assert list(out.columns) == ["pca0", "pca1", "pca2"] and out.index.equals(X.index)
    assert np.array_equal(out.to_numpy(), before)
    assert {m.name: m.report()["action"] for m in pipe.machines_} == {"scale": "trained", "pca": "trained"}
    assert pipe.steps[0][1]._sklearn_output_config == {"transform": "pandas"}  # the steps, as scikit-learn's
    pipe.fit(X)  # the steps' new setting is a change: they retrain, the scaler now hands PCA a DataFrame
    assert {m.name: m.report()["action"] for m in pipe.machines_} == {"scale": "updated", "pca": "trained"}
    assert list(pipe.fitted_params_()["pca"].feature_names_in_) == list(X.columns)
    assert np.allclose(pipe.fit_transform(X).to_numpy(), before)
    pipe.set_output(transform="default")  # "default": what the network computes, and its steps still say pandas
    assert type(pipe.transform(X)) is pd.DataFrame
    assert type(pipe.fit(X).transform(X)) is np.ndarray


def test_global_transform_output_reaches_composites():
    X = load_diabetes(as_frame=True).data
    pipe = ww.Pipeline([("scale", StandardScaler())]).fit(X)
    with sklearn.config_context(transform_output="pandas"):
        assert list(pipe.transform(X).columns) == list(X.columns)
    assert type(pipe.transform(X)) is np.ndarray


@pytest.mark.parametrize("how", ["global", "set_output"])
@pytest.mark.parametrize("order", ["function first", "function last"])
def test_pandas_output_through_a_step_that_names_no_columns_is_scikit_learn_s(how, order):
    # A FunctionTransformer without feature_names_out names no columns: the composite's get_feature_names_out raised
    # from inside the output wrapper, so transform failed where scikit-learn's Pipeline gives a DataFrame.
    X = load_iris(as_frame=True).data.iloc[10:]  # an index that does not start at 0
    steps = [("square", FunctionTransformer(np.square)), ("scale", StandardScaler())]
    steps = steps if order == "function first" else steps[::-1]
    ours, theirs = ww.Pipeline(clone(steps, safe=False)), Pipeline(clone(steps, safe=False))
    with sklearn.config_context(transform_output="pandas" if how == "global" else "default"):
        if how == "set_output":
            ours.set_output(transform="pandas"), theirs.set_output(transform="pandas")
        expected = theirs.fit(X).transform(X)
        fresh = ww.Pipeline(clone(steps, safe=False)).set_output(transform="pandas")
        for got in (ours.fit(X).transform(X), fresh.fit_transform(X)):
            assert type(got) is pd.DataFrame and list(got.columns) == list(expected.columns) == list(X.columns)
            assert got.index.equals(X.index)
            np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-12)
    with pytest.raises(ww.UnavailableError, match=r"Machine 'square' \(FunctionTransformer\).*has no"):
        ours.get_feature_names_out()  # as scikit-learn's, which raises an AttributeError there too


def test_a_composite_inside_a_scikit_learn_pipeline_follows_its_set_output():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    inner = ww.Pipeline([("scale", StandardScaler())])
    outer = Pipeline([("inner", inner), ("ridge", Ridge())]).set_output(transform="pandas").fit(X, y)
    assert list(outer[-1].feature_names_in_) == list(X.columns)  # the ridge got the composite's DataFrame
    assert np.allclose(outer.predict(X), make_pipeline(StandardScaler(), Ridge()).fit(X, y).predict(X))


def test_bad_set_output_changes_nothing():
    steps = [("scale", StandardScaler()), ("double", Unnamed())]
    pipe = ww.Pipeline(steps)
    with pytest.raises(ww.ParameterError, match="step 'double' \\(Unnamed\\): it has no set_output"):
        pipe.set_output(transform="pandas")
    assert not hasattr(steps[0][1], "_sklearn_output_config") and not hasattr(pipe, "_sklearn_output_config")
    scaled = ww.Pipeline([("scale", StandardScaler())])
    with pytest.raises(ww.ParameterError, match="Received: 'arrow'"):
        scaled.set_output(transform="arrow")
    assert not hasattr(scaled, "_sklearn_output_config") and not hasattr(scaled.steps[0][1], "_sklearn_output_config")
    assert scaled.set_output(transform=None) is scaled and not hasattr(scaled, "_sklearn_output_config")


def test_output_a_dataframe_cannot_hold_is_a_data_error():
    from sklearn.preprocessing import OneHotEncoder

    X = np.array([["a"], ["b"], ["a"]], dtype=object)
    pipe = ww.Pipeline([("onehot", OneHotEncoder())]).fit(X)  # sparse output
    pipe._sklearn_output_config = {"transform": "pandas"}  # as scikit-learn's own set_output would leave it
    with pytest.raises(ww.DataError, match="cannot give its output as asked: .*sparse"):
        pipe.transform(X)
    pipe._sklearn_output_config = {"transform": "arrow"}
    with pytest.raises(ww.DataError, match="output config must be in"):
        pipe.transform(X)


class TypeSeen(BaseEstimator):
    """A transformer that keeps the type of what its transform got."""

    seen: list = []

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        TypeSeen.seen.append(type(X))
        return np.asarray(X, dtype=float)

    def get_feature_names_out(self, input_features=None):
        return np.asarray(input_features, dtype=object)


def test_a_network_trained_on_an_array_gets_an_array_and_the_output_the_caller_s_rows():
    X = load_diabetes(as_frame=True).data.iloc[100:]
    pipe = ww.Pipeline([("seen", TypeSeen())]).fit(X.to_numpy())
    TypeSeen.seen.clear()
    with pytest.warns(UserWarning, match="X has feature names, but Pipeline was fitted without feature names"):
        with sklearn.config_context(transform_output="pandas"):
            out = pipe.transform(X)
    assert TypeSeen.seen == [np.ndarray]  # as it trained
    assert out.index.equals(X.index) and list(out.columns) == [f"x{k}" for k in range(10)]
    framed = ww.Pipeline([("seen", TypeSeen())]).fit(X)
    TypeSeen.seen.clear()
    framed.transform(X)
    assert TypeSeen.seen == [pd.DataFrame]  # trained on a DataFrame: gets one, dtypes kept


def _fill_with_means(data):
    """A step that uses pandas' methods (a module-level function: it pickles)."""
    return data.fillna(data.mean())


def test_a_frame_with_pandas_default_column_names_reaches_the_network_as_a_frame_as_in_scikit_learn():
    # integer column names are no feature names to scikit-learn (no feature_names_in_), but the frame is still a
    # frame: scikit-learn's Pipeline hands it to its steps, so a step may use pandas' methods
    X, y = load_diabetes(return_X_y=True)
    frame = pd.DataFrame(X, index=[f"patient {k}" for k in range(len(X))])
    frame.iloc[::7, 2] = np.nan

    def fill():
        return sklearn.preprocessing.FunctionTransformer(_fill_with_means)

    pipe = ww.Pipeline([("fill", fill()), ("ridge", Ridge())]).fit(frame, y)
    reference = Pipeline([("fill", fill()), ("ridge", Ridge())]).fit(frame, y)
    assert not hasattr(pipe, "feature_names_in_") and not hasattr(reference, "feature_names_in_")
    np.testing.assert_allclose(pipe.predict(frame), reference.predict(frame), rtol=0, atol=1e-9)
    filled = ww.Pipeline([("fill", fill())]).fit(frame)
    out = filled.transform(frame.iloc[:5])
    assert isinstance(out, pd.DataFrame) and out.index.equals(frame.index[:5]) and list(out.columns) == list(range(10))
    named = frame.set_axis([f"c{k}" for k in range(10)], axis=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(pipe.predict(named), pipe.predict(frame))  # a frame still: fillna works
    assert [str(w.message)[:59] for w in caught] == ["X has feature names, but Pipeline was fitted without featur"]  # once
    restored = pickle.loads(pickle.dumps(pipe))  # kept through a pickle
    np.testing.assert_array_equal(restored.predict(frame.iloc[:5]), pipe.predict(frame.iloc[:5]))
    TypeSeen.seen.clear()
    ww.Pipeline([("seen", TypeSeen())]).fit(frame.fillna(0)).transform(frame.fillna(0).to_numpy())
    assert TypeSeen.seen == [np.ndarray]  # an array given stays an array, as scikit-learn's Pipeline gives it


def test_a_predicting_pipeline_s_set_output_hands_its_steps_dataframes():
    from sklearn.compose import ColumnTransformer

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    scaled = ColumnTransformer([("scale", StandardScaler(), ["age", "bmi", "bp"])])
    pipe = ww.Pipeline([("columns", scaled), ("ridge", Ridge())]).set_output(transform="pandas").fit(X, y)
    assert list(pipe.fitted_params_()["ridge"].feature_names_in_) == ["scale__age", "scale__bmi", "scale__bp"]
    reference = Pipeline([("columns", scaled), ("ridge", Ridge())]).set_output(transform="pandas").fit(X, y)
    assert np.allclose(pipe.predict(X), reference.predict(X), rtol=0, atol=1e-9)
    assert hasattr(pipe, "set_output") and not hasattr(pipe, "transform")  # as scikit-learn's Pipeline
    assert not hasattr(two_stage(), "set_output")  # a composite that does not transform has no output to set


@pytest.mark.parametrize("labels", ["Int64", "boolean"])
def test_pandas_nullable_labels_give_classes_of_the_dtype_the_models_predict(labels):
    # scikit-learn's models read pandas' nullable labels as floats: classes_ was int64 (or bool) while predict
    # gave floats; now both are scikit-learn's
    from sklearn.datasets import load_iris
    from sklearn.ensemble import StackingClassifier

    X, y = load_iris(return_X_y=True)
    target = pd.Series(np.array([5, 1, 3])[y], dtype="Int64") if labels == "Int64" else pd.Series(y == 1, dtype="boolean")
    ours = ww.Stack([("lr", LogisticRegression(max_iter=500))], LogisticRegression(max_iter=500)).fit(X, target)
    theirs = StackingClassifier([("lr", LogisticRegression(max_iter=500))], LogisticRegression(max_iter=500)).fit(X, target)
    assert ours.classes_.dtype == theirs.classes_.dtype == ours.predict(X[:3]).dtype == np.float64
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    pipe = ww.Pipeline([("lr", LogisticRegression(max_iter=500))]).fit(X, target)
    assert pipe.classes_.dtype == pipe.predict(X[:3]).dtype == np.float64


# -- scikit-learn's kind mixins, written first ---------------------------------------------------------------------


def _with_mixin(mixin, network):
    """A composite class declared by ``mixin``, written before ``ww.Composite`` (scikit-learn's rule)."""

    def __init__(self, model=None):
        self.model = model

    return type(f"{mixin.__name__}Composite", (mixin, ww.Composite), {"__init__": __init__, "network": network})


def _scaled_clusters(self, X, y=None):
    Z = ww.machine(StandardScaler(), X, name="scale").transform(X)
    return ww.Signature(predict=ww.machine(self.model, Z, name="cluster").predict(Z))


def _encoded(self, X, y=None):
    return ww.Signature(transform=ww.machine(self.model, X, y, name="encode").transform(X))


def _outliers(self, X, y=None):
    detect = ww.machine(self.model, X, name="detect")
    return ww.Signature(predict=detect.predict(X), score_samples=detect.score_samples(X))


def _density(self, X, y=None):
    return ww.Signature(score=ww.machine(self.model, X, name="density").score(X))


KIND_MIXINS = [ClassifierMixin, RegressorMixin, TransformerMixin, ClusterMixin, OutlierMixin, DensityMixin]


@pytest.mark.parametrize("mixin", KIND_MIXINS, ids=lambda mixin: mixin.__name__)
def test_the_methods_a_kind_mixin_shares_with_composite_are_the_composite_s(mixin):
    kind = _with_mixin(mixin, _encoded)
    for name in ("score", "fit_transform", "fit_predict", "set_output"):
        assert inspect.getattr_static(kind, name) is inspect.getattr_static(ww.Composite, name), name
    assert isinstance(kind(), mixin)  # the kind is still declared: its tags


LATE_MIXINS = [m for m in (*KIND_MIXINS, MultiOutputMixin, MetaEstimatorMixin) if m is not TransformerMixin]


@pytest.mark.parametrize("mixin", LATE_MIXINS, ids=lambda mixin: mixin.__name__)
def test_a_mixin_after_the_composite_is_refused_with_the_order_scikit_learn_s_rule_asks_for(mixin):
    with pytest.raises(AssertionError, match=f"(?s)wrong order.*{mixin.__name__} comes before/left side of BaseEstimator"):
        check_mixin_order("Late", type("Late", (BaseEstimator, mixin), {})())  # scikit-learn's rule for its own
    message = (
        rf"Late lists {mixin.__name__} after Composite, so scikit-learn would not read what it declares: .*"
        rf"Put the mixin first, as scikit-learn's rule is \(check_estimator's check_mixin_order\): "
        rf"class Late\({mixin.__name__}, Composite\)\."
    )
    with pytest.raises(ww.ArgumentError, match=message) as caught:
        type("Late", (ww.Composite, mixin), {"network": _encoded})
    assert isinstance(caught.value, TypeError)


def test_the_refusal_names_the_bases_to_move_first_for_a_recipe_or_a_mixin_of_one_s_own():
    class Declares(OutlierMixin):
        """A user's mixin, deriving from scikit-learn's."""

    with pytest.raises(ww.ArgumentError, match=r"Late lists ClusterMixin after Pipeline.*class Late\(ClusterMixin, Pipeline\)"):
        type("Late", (ww.Pipeline, ClusterMixin), {})
    with pytest.raises(ww.ArgumentError, match=r"OutlierMixin after Composite.*class Late\(Declares, Composite, Extra\)"):
        type("Late", (ww.Composite, Declares, type("Extra", (), {})), {"network": _outliers})
    detector = type("Early", (Declares, ww.Composite), {"network": _outliers})  # first: an outlier detector
    assert get_tags(detector()).estimator_type == "outlier_detector"


def test_transformer_mixin_after_the_composite_still_comes_before_base_estimator_and_is_taken():
    # TransformerMixin derives from scikit-learn's _SetOutputMixin, as Composite does: the MRO puts it before both
    late = type("Late", (ww.Composite, TransformerMixin), {"__init__": lambda self, model=None: setattr(self, "model", model),
                                                           "network": _encoded})
    check_mixin_order("Late", late())  # scikit-learn's rule holds
    assert get_tags(late()).transformer_tags is not None
    assert inspect.getattr_static(late, "fit_transform") is inspect.getattr_static(ww.Composite, "fit_transform")


def test_a_composite_s_own_methods_and_a_recipe_s_are_not_replaced_by_a_mixin():
    class Own(TransformerMixin, ww.Composite):
        def fit_transform(self, X, y=None):
            return "own"

    class Piped(TransformerMixin, ww.Pipeline):
        pass

    assert Own().fit_transform(X_DATA) == "own"
    assert inspect.getattr_static(Piped, "set_output") is inspect.getattr_static(ww.Pipeline, "set_output")


def test_a_clusterer_composite_fit_predicts_as_scikit_learn_s_kmeans():
    X = load_iris().data
    clusters = _with_mixin(ClusterMixin, _scaled_clusters)(KMeans(3, n_init=2, random_state=0))
    expected = KMeans(3, n_init=2, random_state=0).fit_predict(StandardScaler().fit_transform(X))
    np.testing.assert_array_equal(clusters.fit_predict(X), expected)
    np.testing.assert_array_equal(clusters.predict(X), expected)


class CountingClusterer(ClusterMixin, Counting):
    """``Counting``, a clusterer as its tags say."""


def test_a_clusterer_composite_sets_labels_at_fit_as_scikit_learn_s_clusterers():
    X = load_iris().data
    clusters = _with_mixin(ClusterMixin, _scaled_clusters)(KMeans(3, n_init=2, random_state=0))
    assert not hasattr(clusters, "labels_")
    clusters.fit(X)
    expected = KMeans(3, n_init=2, random_state=0).fit(StandardScaler().fit_transform(X)).labels_
    np.testing.assert_array_equal(clusters.labels_, expected)
    assert clusters.labels_.dtype == expected.dtype
    np.testing.assert_array_equal(clusters.fit_predict(X), clusters.labels_)
    clusters.set_params(model=KMeans(2, n_init=2, random_state=0)).fit(X[:100])  # refit: the new labels
    np.testing.assert_array_equal(
        clusters.labels_, KMeans(2, n_init=2, random_state=0).fit(StandardScaler().fit_transform(X[:100])).labels_
    )


def test_a_pipeline_ending_in_a_clusterer_has_the_labels_scikit_learn_s_last_step_has():
    X = load_iris().data
    steps = [("scale", StandardScaler()), ("kmeans", KMeans(3, n_init=2, random_state=0))]
    ours = ww.Pipeline([(name, clone(step)) for name, step in steps]).fit(X)
    theirs = Pipeline(steps).fit(X)
    assert not hasattr(theirs, "labels_")  # scikit-learn's Pipeline leaves them to its last step
    np.testing.assert_array_equal(ours.labels_, theirs[-1].labels_)
    ours.set_params(kmeans=Ridge()).fit(X, X[:, 0])  # no longer a clusterer: no labels left
    assert not hasattr(ours, "labels_")


def test_labels_cost_one_prediction_of_the_training_data_and_nothing_for_other_kinds():
    X = load_iris().data
    clusters = ww.Pipeline([("scale", StandardScaler()), ("kmeans", CountingClusterer(KMeans(3, n_init=2, random_state=0), tag="k"))])
    clusters.fit(X)
    assert Counting.events.count(("k", "predict")) == 1
    Counting.events.clear()
    np.testing.assert_array_equal(clusters.fit_predict(X), clusters.labels_)  # the same value, not computed again
    assert Counting.events == []
    regress = ww.Pipeline([("scale", StandardScaler()), ("ridge", Counting(Ridge(), tag="ridge"))]).fit(X, X[:, 0])
    assert Counting.events == [("ridge", "fit")] and not hasattr(regress, "labels_")


class Neighbourhoods(ClusterMixin, ww.Composite):
    """A user clusterer composite whose model labels only its training data: a ``fit_predict`` output."""

    def __init__(self, eps=0.6):
        self.eps = eps

    def network(self, X, y=None):
        Z = ww.machine(StandardScaler(), X).transform(X)
        return ww.Signature(fit_predict=ww.machine(DBSCAN(eps=self.eps), Z, name="dbscan").fit_predict(Z))


class LoggedNeighbourhoods(Neighbourhoods):
    """The same, with a fit of its own (which fit_predict must run)."""

    fitted = 0

    def fit(self, X, y=None):
        LoggedNeighbourhoods.fitted += 1
        return super().fit(X, y)


@pytest.mark.parametrize("kind", [Neighbourhoods, LoggedNeighbourhoods])
def test_a_composite_with_a_fit_predict_output_labels_its_training_data_as_scikit_learn_s_clusterer(kind):
    X = load_iris().data
    expected = DBSCAN(eps=0.6).fit(StandardScaler().fit_transform(X)).labels_
    clusters = kind()
    assert hasattr(clusters, "fit_predict") and not hasattr(clusters, "predict")
    labels = clusters.fit_predict(X)
    np.testing.assert_array_equal(labels, expected)
    labels[:] = 9  # the caller's copy: what the machine keeps stays as it was
    np.testing.assert_array_equal(clusters.fit_predict(X), expected)
    np.testing.assert_array_equal(clusters.labels_, expected)
    assert list(clusters.network_) == ["fit_predict"]
    narrower = DBSCAN(eps=0.4).fit(StandardScaler().fit_transform(X)).labels_
    np.testing.assert_array_equal(clusters.set_params(eps=0.4).fit(X).labels_, narrower)
    assert LoggedNeighbourhoods.fitted == (3 if kind is LoggedNeighbourhoods else 0)
    LoggedNeighbourhoods.fitted = 0


class LoggedEmbedding(ww.Composite, TransformerMixin):
    """A network whose output is TSNE's training output, with a fit of its own (which fit_transform must run)."""

    def network(self, X, y=None):
        Z = ww.machine(StandardScaler(), X).transform(X)
        return ww.Signature(fit_transform=ww.machine(TSNE(perplexity=10.0, max_iter=250, random_state=0), Z).fit_transform(Z))

    def fit(self, X, y=None):
        return super().fit(X, y)


def test_a_composite_with_a_fit_of_its_own_hands_the_caller_a_copy_of_its_training_output():
    X = load_iris().data
    expected = TSNE(perplexity=10.0, max_iter=250, random_state=0).fit_transform(StandardScaler().fit_transform(X))
    embedding = LoggedEmbedding()
    value = embedding.fit_transform(X)
    np.testing.assert_array_equal(value, expected)
    value[:] = 0.0
    np.testing.assert_array_equal(embedding.fit_transform(X), expected)


def test_a_failed_fit_leaves_no_labels():
    X = load_iris().data
    clusters = ww.Pipeline([("scale", StandardScaler()), ("kmeans", KMeans(3, n_init=2, random_state=0))]).fit(X)
    clusters.set_params(kmeans__n_clusters=1000)
    with pytest.raises(ww.MachineFitError, match="n_samples=150 should be >= n_clusters=1000"):
        clusters.fit(X)
    assert not hasattr(clusters, "labels_")


def test_an_outlier_detector_composite_fit_predicts_as_scikit_learn_s():
    X = load_breast_cancer().data
    detector = _with_mixin(OutlierMixin, _outliers)(IsolationForest(n_estimators=20, random_state=0))
    expected = IsolationForest(n_estimators=20, random_state=0).fit_predict(X)
    np.testing.assert_array_equal(detector.fit_predict(X), expected)


def test_a_transformer_composite_fit_transforms_its_training_output_and_checks_set_output():
    rng = np.random.RandomState(0)
    X, y = rng.randint(0, 5, size=(200, 2)), rng.rand(200)
    encoder = _with_mixin(TransformerMixin, _encoded)(TargetEncoder(cv=KFold(5)))
    expected = TargetEncoder(cv=KFold(5)).fit_transform(X, y)  # cross-fitted: not fit(X, y).transform(X)
    np.testing.assert_array_equal(encoder.fit_transform(X, y), expected)
    assert not np.allclose(encoder.transform(X), expected)
    with pytest.raises(ww.ParameterError, match="Received: 'bogus'"):
        encoder.set_output(transform="bogus")
    assert "_sklearn_output_config" not in encoder.__dict__


def test_a_density_composite_scores_by_its_network():
    X = load_iris().data
    density = _with_mixin(DensityMixin, _density)(KernelDensity())
    assert density.fit(X).score(X) == KernelDensity().fit(X).score(X)


def _density_per_row(self, X, y=None):
    return ww.Signature(score=ww.machine(self.model, X, name="density").score_samples(X))  # one score per row


def test_a_score_output_that_gives_more_than_one_number_says_so():
    """A score output given a node of one score per row failed in float() with NumPy's TypeError ("only
    0-dimensional arrays can be converted to Python scalars")."""
    X = load_iris().data
    density = _with_mixin(DensityMixin, _density_per_row)(KernelDensity()).fit(X)
    with pytest.raises(ww.GraphError, match=r"DensityMixinComposite\.score gives its network's score output, which "
                       r"must be one number.*It gave numpy\.ndarray of shape \(150,\)\. A score per row is score_samples"):
        density.score(X)
    assert density.score(X[:1]) == KernelDensity().fit(X).score_samples(X[:1])[0]  # one row: one number


class Texts(ClassifierMixin, ww.Composite):
    """A composite of one's own whose first model takes texts."""

    def __init__(self, C=1.0):
        self.C = C

    def network(self, X, y=None):
        words = ww.machine(TfidfVectorizer(), X, name="words").transform(X)
        return ww.Signature(predict=ww.machine(LogisticRegression(C=self.C), words, y, name="logistic").predict(words))


class RawTexts(Texts):
    def _raw_input(self):
        return True


def test_texts_refused_by_a_composite_of_one_s_own_say_how_to_hand_them_on():
    """scikit-learn's message alone said to reshape the texts into a column, which TfidfVectorizer refuses."""
    texts, y = ["good movie", "bad movie", "great film", "awful film"] * 5, [1, 0, 1, 0] * 5
    with pytest.raises(ww.DataError, match=r"(?s)Texts\.fit cannot use the data it received: Expected 2D array.*Reshape "
                       r"your data.* If the first model of its network takes X as it is \(texts for a TfidfVectorizer, "
                       r"dicts for a DictVectorizer\), give Texts a _raw_input\(self\) method returning True"):
        Texts().fit(texts, y)
    with pytest.raises(ww.DataError, match=r"if it contains a single sample\.$"):  # numbers: scikit-learn's advice alone
        Texts().fit(np.arange(20.0), y)
    with pytest.raises(ww.DataError, match=r"if it contains a single sample\.$"):  # a recipe knows its own first step
        ww.Pipeline([("scale", StandardScaler()), ("logistic", LogisticRegression())]).fit(texts, y)
    expected = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, y).predict(["good film", "awful movie"])
    np.testing.assert_array_equal(RawTexts().fit(texts, y).predict(["good film", "awful movie"]), expected)


def test_a_regressor_composite_scored_without_y_says_what_it_needs():
    model = two_stage().fit(X_DATA, Y_DATA)
    assert model.score(X_DATA, Y_DATA) == Pipeline([("s", StandardScaler()), ("r", Ridge())]).fit(X_DATA, Y_DATA).score(X_DATA, Y_DATA)
    with pytest.raises(ww.DataError, match=r"TwoStage\.score needs y"):
        model.score(X_DATA)
