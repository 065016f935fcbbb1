"""Machines: the retraining rules (counted by real fit calls), reports, freezing, failures."""

import importlib.util

import numpy as np
import pandas as pd
import pytest
import sklearn
from _counting import Counting, calls, counting_chain, fits
from _probes import CrossFitted
from sklearn.base import BaseEstimator
from sklearn.decomposition import PCA
from sklearn.ensemble import RandomForestRegressor, RandomTreesEmbedding
from sklearn.linear_model import Lasso, LinearRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import wirework as ww
from wirework.graph.fingerprint import param_values, shallow_params
from wirework.graph.machines import params_key

RNG = np.random.default_rng(0)
X_DATA = RNG.normal(size=(60, 4))
Y_DATA = X_DATA @ np.array([1.0, -2.0, 0.5, 0.0]) + RNG.normal(scale=0.1, size=60)


def chain():
    """scaler -> pca -> ridge, each a counting machine; returns (yhat, machines)."""
    yhat, net = counting_chain(X_DATA, Y_DATA)
    return yhat, (net.X, net.y, net.scaler, net.pca, net.ridge)


def test_first_fit_trains_each_machine_once_in_order():
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    assert fits() == ["scaler", "pca", "ridge"]
    assert [m.state for m in (scaler, pca, ridge)] == [1, 1, 1]
    assert ridge.report()["reason"] == "condition 1: never trained"
    assert ridge.report()["n_rows"] == 60 and ridge.report()["fit_time"] >= 0


def test_transform_values_are_memoised_within_one_fit_pass():
    yhat, _ = chain()
    yhat.fit()
    # scaler.transform feeds pca's training and ridge's training (through pca): computed once.
    assert calls("scaler", "transform") == 1
    assert calls("pca", "transform") == 1


def test_downstream_change_retrains_only_that_machine():
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    Counting.events.clear()
    ridge.model.set_params(estimator__alpha=3.0)
    yhat.fit()
    assert fits() == ["ridge"]
    assert calls("scaler", "transform") == 1  # the values ridge trains on are computed once
    assert ridge.report()["action"] == "updated"
    assert ridge.report()["reason"] == "condition 6: hyperparameters changed"
    assert scaler.report()["action"] == "skipped" and scaler.state == 1


def test_upstream_change_retrains_it_and_everything_downstream():
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    Counting.events.clear()
    pca.model.estimator.n_components = 2
    yhat.fit()
    assert fits() == ["pca", "ridge"]
    assert ridge.report()["reason"] == "condition 3: upstream state changed (Machine (Counting))"
    assert ridge.fitted_model.estimator_.coef_.shape == (2,)


def test_setting_a_hyperparameter_to_its_current_value_retrains_nothing():
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    Counting.events.clear()
    ridge.model.set_params(estimator__alpha=1.0, estimator=Ridge(alpha=1.0))  # equal, though a new object
    yhat.fit()
    assert fits() == []
    assert [m.state for m in (scaler, pca, ridge)] == [1, 1, 1]


def test_force_retrains_all():
    yhat, machines = chain()
    yhat.fit()
    Counting.events.clear()
    yhat.fit(force=True)
    assert fits() == ["scaler", "pca", "ridge"]
    assert {m.report()["reason"] for m in machines[2:]} == {"condition 2: forced"}


def test_frozen_machine_never_retrains_and_warns():
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    pca.freeze()
    assert pca.frozen
    Counting.events.clear()
    pca.model.estimator.n_components = 2
    with pytest.warns(ww.FrozenMachineWarning, match=r"Machine \(Counting\) is frozen.*\(condition 2: forced\).*thaw\(\)"):
        yhat.fit(force=True)
    assert fits() == ["scaler", "ridge"]
    assert pca.report()["action"] == "frozen" and pca.state == 1
    pca.thaw()
    Counting.events.clear()
    yhat.fit()
    assert fits() == ["pca", "ridge"]


def test_a_machine_behind_a_frozen_one_retrains_when_what_is_upstream_of_it_changes():
    """Its training values come from the frozen machine's transform of new values (condition 3), and the reason
    names the machine it needs directly, which kept its state."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    scaler = ww.machine(StandardScaler(), X, name="scaler")
    pca = ww.machine(PCA(n_components=2), scaler.transform(X), name="pca")
    W = pca.transform(scaler.transform(X))
    ridge = ww.machine(Ridge(), W, y, name="ridge")
    yhat = ridge.predict(W).fit()
    pca.freeze()
    scaler.model.with_std = False
    with pytest.warns(ww.FrozenMachineWarning, match="condition 3"):
        yhat.fit()
    assert [m.report()["action"] for m in (scaler, pca, ridge)] == ["updated", "frozen", "trained"]
    assert ridge.report()["reason"] == "condition 3: upstream state changed (upstream of Machine 'pca' (PCA))"
    np.testing.assert_allclose(ridge.fitted_model.coef_, Ridge().fit(W(), Y_DATA).coef_, rtol=1e-12)
    pca.thaw()
    yhat.fit()  # pca now: condition 3 (scaler), and ridge names it
    assert ridge.report()["reason"] == "condition 3: upstream state changed (Machine 'pca' (PCA))"


def test_a_snapshot_pickled_by_an_earlier_wirework_is_compared_as_it_was():
    """Earlier, a snapshot held the states and versions upstream themselves (tuples): they are compared, and the
    snapshot, when nothing changed, takes the sums compared since."""
    from wirework.graph.machines import _Snapshot
    from wirework.graph.topology import state_of, version_of

    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()

    def as_before():
        machines, sources = ridge._upstream_of_args()
        snap = ridge._snapshot
        old = (snap.model_type, snap.params_key, tuple(map(state_of, machines)), tuple(map(version_of, sources)))
        ridge._snapshot = _Snapshot(*old)  # what unpickling one of the four fields of then gives

    as_before()
    Counting.events.clear()
    yhat.fit()
    assert fits() == [] and ridge.report()["action"] == "skipped"
    assert type(ridge._snapshot.upstream_states) is int and ridge._snapshot.needs_states == (pca.state,)
    as_before()
    pca.model.estimator.n_components = 2
    yhat.fit()
    assert fits() == ["pca", "ridge"]
    assert ridge.report()["reason"] == "condition 3: upstream state changed (Machine (Counting))"
    as_before()
    yhat.fit()
    assert fits() == ["pca", "ridge"]  # nothing more
    ridge.model.estimator.alpha = 2.0
    yhat.fit()
    assert fits() == ["pca", "ridge", "ridge"] and ridge.report()["reason"] == "condition 6: hyperparameters changed"


def test_a_frozen_machine_never_trained_says_to_thaw_it():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    scaler = ww.machine(StandardScaler(), X, name="scaler").freeze()
    yhat = ww.machine(Ridge(), scaler.transform(X), y, name="ridge").predict(scaler.transform(X))
    advice = r"It is frozen, so fit passes skip it: call thaw\(\), then fit\(\) on a node downstream of it\."
    with pytest.warns(ww.FrozenMachineWarning, match="condition 1"):
        with pytest.raises(ww.NotTrainedError, match=rf"Machine 'scaler' \(StandardScaler\) has not been .*{advice}"):
            yhat.fit()
    with pytest.raises(ww.NotTrainedError, match=advice):
        scaler.fitted_model
    scaler.thaw()
    np.testing.assert_allclose(yhat.fit()(X_DATA[:2]), yhat(X_DATA[:2]))
    assert scaler.state == 1 and yhat.machines()[-1].state == 1
    with pytest.raises(ww.NotTrainedError, match=r"Call fit\(\) on a node downstream of it, or on the machine"):
        ww.machine(Ridge(), X, y).fitted_model


@pytest.mark.parametrize("executor", ["sequential", "threads"])
def test_the_frozen_warning_points_at_the_callers_fit_and_the_report_says_frozen_even_when_it_is_an_error(executor):
    # the warning pointed inside wirework (nodes.py, the fit_pass call); turned into an error, it left the
    # machine's report as it was before the pass
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    pca.freeze()
    pca.model.estimator.n_components = 2
    with pytest.warns(ww.FrozenMachineWarning) as caught:
        yhat.fit(executor=executor)
    assert [w.filename for w in caught] == [__file__]
    with pytest.warns(ww.FrozenMachineWarning) as caught:
        pca.fit(executor=executor)
    assert [w.filename for w in caught] == [__file__]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ww.FrozenMachineWarning)
        with pytest.raises(ww.FrozenMachineWarning):
            yhat.fit(executor=executor, force=True)
    assert pca.report()["action"] == "frozen" and pca.report()["reason"] == "frozen; otherwise condition 2: forced"


def test_a_machine_name_that_is_not_a_string_is_refused():
    # it was taken as is, and shown as predict(5, s1)
    expected = r"Expected a machine name as a str \(or None for no name\)\. Received: int 5\. Give a name such as name='ridge'\."
    with pytest.raises(ww.ArgumentError, match=expected):
        ww.machine(Ridge(), X_DATA, Y_DATA, name=5)
    assert ww.machine(Ridge(), X_DATA, Y_DATA, name=None).name is None


def test_frozen_machine_that_needs_nothing_is_skipped_silently():
    yhat, (_, _, scaler, pca, ridge) = chain()
    yhat.fit()
    scaler.freeze()
    Counting.events.clear()
    yhat.fit()  # warnings are errors in this run: none is issued
    assert fits() == []


def test_new_source_data_retrains_all_that_depend_on_it():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    scaler = ww.machine(Counting(StandardScaler(), tag="scaler"), X)
    target = ww.machine(Counting(StandardScaler(), tag="target"), y)
    ridge = ww.machine(Counting(Ridge(), tag="ridge"), scaler.transform(X), target.transform(y))
    yhat = target.inverse_transform(ridge.predict(scaler.transform(X)))
    yhat.fit()
    Counting.events.clear()
    y.data = Y_DATA * 2
    yhat.fit()
    assert fits() == ["target", "ridge"]
    assert target.report()["reason"] == "condition 4: source data changed"
    Counting.events.clear()
    X.rebind(X_DATA + 1)
    yhat.fit()
    assert sorted(fits()) == ["ridge", "scaler"]


def test_model_type_change_trains_from_scratch():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    mach = ww.machine(Ridge(), X, y)
    yhat = mach.predict(X)
    yhat.fit()
    mach.model = Lasso(alpha=0.01)
    yhat.fit()
    assert mach.report()["reason"] == "condition 5: model type changed (Ridge -> Lasso)"
    assert isinstance(mach.fitted_model, Lasso) and mach.state == 2


def test_nested_and_random_state_hyperparameters_compare_deeply():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    model = make_pipeline(StandardScaler(), RandomForestRegressor(n_estimators=5, random_state=np.random.RandomState(0)))
    mach = ww.machine(model, X, y)
    mach.predict(X).fit()
    mach.fit()
    assert mach.state == 1  # the RandomState given to the forest is not consumed by training
    model.steps[1][1].random_state = np.random.RandomState(0)  # a new but equal state
    mach.fit()
    assert mach.state == 1
    model.steps[1][1].random_state = np.random.RandomState(1)
    mach.fit()
    assert mach.state == 2 and mach.report()["action"] == "updated"
    model.set_params(standardscaler__with_mean=False)
    mach.fit()
    assert mach.state == 3


def test_update_uses_warm_start_when_the_model_asks_for_it():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    forest = RandomForestRegressor(n_estimators=5, warm_start=True, random_state=0)
    mach = ww.machine(forest, X, y)
    mach.fit()
    first = [t.tree_.threshold.copy() for t in mach.fitted_model.estimators_]
    forest.n_estimators = 8
    mach.fit()
    assert mach.report()["reason"] == "condition 6: hyperparameters changed (warm start)"
    assert len(mach.fitted_model.estimators_) == 8
    kept = [t.tree_.threshold for t in mach.fitted_model.estimators_[:5]]
    assert all(np.array_equal(a, b) for a, b in zip(kept, first))  # kept, not retrained
    assert mach.state == 2


def test_one_model_drives_several_machines_without_sharing_state():
    model = Ridge()
    a = ww.machine(model, X_DATA[:30], Y_DATA[:30])
    b = ww.machine(model, X_DATA[30:], Y_DATA[30:])
    a.fit()
    b.fit()
    assert not np.allclose(a.fitted_model.coef_, b.fitted_model.coef_)
    assert not hasattr(model, "coef_")


def test_machine_fit_trains_what_it_needs_and_force_applies_to_itself():
    yhat, (_, _, scaler, pca, ridge) = chain()
    pca.fit()
    assert fits() == ["scaler", "pca"]
    Counting.events.clear()
    pca.fit(force=True)
    assert fits() == ["pca"]
    assert ridge.state == 0


def test_sample_weight_is_the_third_argument():
    weights = np.where(np.arange(60) < 30, 1.0, 0.0)
    mach = ww.machine(LinearRegression(), X_DATA, Y_DATA, weights)
    mach.fit()
    expected = LinearRegression().fit(X_DATA[:30], Y_DATA[:30])
    assert np.allclose(mach.fitted_model.coef_, expected.coef_)


def test_fit_failure_names_the_machine_and_keeps_finished_work():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    scaler = ww.machine(Counting(StandardScaler(), tag="scaler"), X)
    Z = scaler.transform(X)
    pca = ww.machine(Counting(PCA(n_components=40), tag="pca"), Z, name="pca")
    ridge = ww.machine(Counting(Ridge(), tag="ridge"), pca.transform(Z), y)
    yhat = ridge.predict(pca.transform(Z))
    with pytest.raises(ww.MachineFitError, match=r"Machine 'pca' \(Counting\) failed to train.*n_components") as info:
        yhat.fit()
    assert isinstance(info.value.__cause__, ValueError) and info.value.machine is pca
    assert scaler.state == 1 and pca.state == 0 and pca.report()["action"] == "failed"
    Counting.events.clear()
    pca.model.estimator.n_components = 2
    yhat.fit()
    assert fits() == ["pca", "ridge"]


def test_a_composite_failing_inside_a_machine_is_reported_by_its_public_class():
    # the composite raises its own machine's MachineFitError, also a ValueError: the report said
    # "fit raised MachineFitError[ValueError]", the name of the class that is both
    gaps = np.array([[0.0], [np.nan], [1.0]])
    outer = ww.machine(ww.Pipeline([("ridge", Ridge())]), gaps, np.arange(3.0))
    with pytest.raises(ww.MachineFitError, match=r"failed to train \(condition 1: never trained\): MachineFitError: "):
        outer.fit()
    assert outer.report()["reason"] == "condition 1: never trained; fit raised MachineFitError"


def test_a_static_node_raising_in_training_fails_the_machine_that_needs_it_clearly():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    first = ww.machine(Ridge(), X, y, name="first")
    second = ww.machine(Ridge(), X["price"], y, name="second")  # a column name on an array: numpy's IndexError
    message = (
        r"Machine 'second' \(Ridge\) could not train \(condition 1: never trained\): computing its training "
        r"values, the node X\['price'\] raised IndexError: only integers.*Training arguments: X\['price'\], y\. "
        r"Machines trained before it stay trained"
    )
    with pytest.raises(ww.MachineFitError, match=message) as info:
        ww.hcat(first.predict(X), second.predict(X)).fit()
    assert isinstance(info.value, IndexError) and info.value.machine is second
    assert type(info.value.__cause__) is IndexError
    assert first.state == 1 and second.state == 0 and second.report()["action"] == "failed"


class Lookup(BaseEstimator):
    """Passes X through; raises ``KeyError`` for a first-column value not seen in training."""

    def fit(self, X, y=None):
        self.known_ = set(np.asarray(X)[:, 0].tolist())
        return self

    def transform(self, X):
        unseen = set(np.asarray(X)[:, 0].tolist()) - self.known_
        if unseen:
            raise KeyError(f"unseen values {sorted(unseen)}")
        return X


def test_apply_failure_names_the_machine_keeps_the_builtin_and_the_training():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    scaler = ww.machine(StandardScaler(), X, name="scaler")
    ridge = ww.machine(Ridge(), scaler.transform(X), y, name="ridge")
    yhat = ridge.predict(scaler.transform(X)).fit()
    expected = yhat(X_DATA[:3])
    bad = X_DATA[:3].copy()
    bad[0, 0] = np.nan  # the scaler passes NaN on; the Ridge refuses it
    message = (
        r"(?s)Machine 'ridge' \(Ridge\) failed in predict\(\) on numpy.ndarray of shape \(3, 4\): "
        r"ValueError: Input X contains NaN.*The machine stays trained"
    )
    with pytest.raises(ww.MachineApplyError, match=message) as info:
        yhat(bad)
    assert isinstance(info.value, ValueError) and info.value.machine is ridge
    assert type(info.value.__cause__) is ValueError
    assert ridge.state == 1 and scaler.state == 1
    np.testing.assert_array_equal(yhat(X_DATA[:3]), expected)


def test_apply_failure_of_another_builtin_kind_stays_that_kind():
    X = ww.source(np.arange(12.0).reshape(6, 2), name="X")
    lookup = ww.machine(Lookup(), X, name="lookup")
    out = lookup.transform(X).fit()
    with pytest.raises(ww.MachineApplyError, match=r"Machine 'lookup' \(Lookup\) failed in transform\(\)") as info:
        out(np.array([[99.0, 0.0]]))
    assert isinstance(info.value, KeyError) and not isinstance(info.value, ValueError)
    assert "KeyError: 'unseen values [99.0]'" in str(info.value)  # the message as written, not quoted again


class NeedsPackage(BaseEstimator):
    """Fits; its transform needs a package that is not installed (as scikit-learn's set_output to polars)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        try:
            import wirework_absent_package  # noqa: F401
        except ImportError as error:
            raise ImportError("Setting output container to 'absent' requires it to be installed") from error


def test_a_missing_package_at_apply_is_an_import_error_that_says_to_install_it():
    X = ww.source(np.arange(12.0).reshape(6, 2), name="X")
    needs = ww.machine(NeedsPackage(), X, name="needs")
    with pytest.raises(ww.MachineApplyError) as info:
        needs.transform(X).fit()()
    message = str(info.value)
    assert isinstance(info.value, ImportError)
    assert message.endswith(
        "The machine stays trained; install wirework_absent_package (or configure the model not to need it: "
        "another set_output container, say) and call again."
    )
    assert "fix the data" not in message
    names = [kind.__name__ for kind in type(info.value).__mro__]
    assert names[:2] == ["MachineApplyError[ImportError]", "MachineApplyError"] and len(set(names)) == len(names)


class FitNeedsPackage(NeedsPackage):
    def fit(self, X, y=None):
        import wirework_absent_package  # noqa: F401


def test_a_missing_package_at_fit_says_to_install_it():
    X = ww.source(np.arange(12.0).reshape(6, 2), name="X")
    with pytest.raises(ww.MachineFitError, match=r"stay trained; install wirework_absent_package \(or configure the "
                       r"model not to need it\) and fit again\.$") as info:
        ww.machine(FitNeedsPackage(), X, name="needs").transform(X).fit()
    assert isinstance(info.value, ModuleNotFoundError)


@pytest.mark.skipif(importlib.util.find_spec("polars") is not None, reason="polars is installed")
def test_a_pipeline_set_to_polars_without_polars_says_to_install_it():
    pipe = ww.Pipeline([("scale", StandardScaler()), ("pca", PCA(2))]).set_output(transform="polars")
    with pytest.raises(ww.MachineApplyError, match=r"install polars \(or configure the model not to need it") as info:
        pipe.fit(X_DATA, Y_DATA)
    assert isinstance(info.value, ImportError)


def test_an_inner_composite_error_is_not_wrapped_again():
    inner = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())])
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    outer = ww.machine(inner, X, y, name="outer")
    yhat = outer.predict(X).fit()
    bad = X_DATA[:2].copy()
    bad[1, 2] = np.nan
    with pytest.raises(ww.MachineApplyError, match=r"Machine 'ridge' \(Ridge\) failed in predict\(\)") as info:
        yhat(bad)
    assert info.value.machine is outer.fitted_model.machines_[-1]


def test_a_components_set_output_configuration_is_kept_and_its_change_retrains():
    frame = pd.DataFrame(X_DATA, columns=["a", "b", "c", "d"])
    X = ww.source(frame, name="X")
    scaler = StandardScaler().set_output(transform="pandas")
    std = ww.machine(scaler, X, name="std")
    out = std.transform(X).fit()
    assert isinstance(out(), pd.DataFrame) and list(out().columns) == ["a", "b", "c", "d"]  # as clone() keeps it
    scaler.set_output(transform="default")  # changes the configuration in place
    out.fit()
    assert std.report()["action"] == "updated" and isinstance(out(), np.ndarray)
    out.fit()
    assert std.report()["action"] == "skipped"
    del scaler._sklearn_output_config  # back to no configuration at all
    out.fit()
    assert std.report()["action"] == "updated" and isinstance(out(frame), np.ndarray)
    scaler.set_output(transform="pandas")  # on a model whose parameters are the very objects of the last fit
    out.fit()
    assert std.report()["action"] == "updated" and isinstance(out(frame), pd.DataFrame)


def test_a_warm_start_update_takes_the_models_output_configuration():
    frame = pd.DataFrame(X_DATA, columns=["a", "b", "c", "d"])
    X = ww.source(frame, name="X")
    embedding = RandomTreesEmbedding(n_estimators=2, max_depth=2, warm_start=True, sparse_output=False, random_state=0)
    trees = ww.machine(embedding, X, name="trees")
    out = trees.transform(X).fit()
    assert isinstance(out(), np.ndarray)
    embedding.set_params(n_estimators=3).set_output(transform="pandas")
    out.fit()
    assert trees.report()["reason"].endswith("(warm start)") and isinstance(out(), pd.DataFrame)


def test_the_fit_cache_tells_output_configurations_apart():
    cache = ww.FitCache()
    frame = pd.DataFrame(X_DATA, columns=["a", "b", "c", "d"])
    plain = ww.machine(StandardScaler(), frame).fit(cache=cache)
    pandas = ww.machine(StandardScaler().set_output(transform="pandas"), frame).fit(cache=cache)
    assert (cache.hits, cache.misses) == (0, 2)
    assert plain.report()["action"] == pandas.report()["action"] == "trained"


def _routed_pipeline(ridge_takes_weights):
    scaler = StandardScaler().set_fit_request(sample_weight=True)
    return make_pipeline(scaler, Ridge().set_fit_request(sample_weight=ridge_takes_weights))


def test_a_metadata_request_changed_in_place_retrains_and_the_fit_cache_tells_requests_apart():
    # Under scikit-learn's metadata routing a Pipeline gives the weights to the steps that request them. A request
    # changed in place was no change to condition 6 (the machine kept a Ridge trained with the weights), and a
    # FitCache gave that fit to a Pipeline whose Ridge declines them.
    weights = np.linspace(0.1, 5.0, len(Y_DATA))
    with sklearn.config_context(enable_metadata_routing=True):
        model = _routed_pipeline(True)
        mach = ww.machine(model, X_DATA, Y_DATA, weights)
        mach.fit()
        model.steps[1][1].set_fit_request(sample_weight=False)
        mach.fit()
        assert mach.report()["action"] == "updated"
        unweighted = _routed_pipeline(False).fit(X_DATA, Y_DATA, sample_weight=weights)
        np.testing.assert_allclose(mach.fitted_model.predict(X_DATA), unweighted.predict(X_DATA))
        mach.fit()
        assert mach.report()["action"] == "skipped"
        cache = ww.FitCache()
        ww.machine(_routed_pipeline(True), X_DATA, Y_DATA, weights).fit(cache=cache)
        declines = ww.machine(_routed_pipeline(False), X_DATA, Y_DATA, weights).fit(cache=cache)
        assert (cache.hits, cache.misses) == (0, 2)
        np.testing.assert_allclose(declines.fitted_model.predict(X_DATA), unweighted.predict(X_DATA))


def test_a_model_held_by_a_bound_method_parameter_trained_again_in_place_retrains():
    # clone copies FunctionTransformer(inner.predict) with what `inner` learned: the machine's copy computes with
    # `inner` as it was when it trained. `inner` trained again in place was no change to condition 6, and a
    # FitCache gave the transformer made with one trained Ridge to a machine given another.
    inner = Ridge().fit(X_DATA, Y_DATA)
    X = ww.source(X_DATA, name="X")
    mach = ww.machine(FunctionTransformer(inner.predict), X, name="ft")
    out = mach.transform(X).fit()
    inner.fit(X_DATA, -Y_DATA)
    out.fit()
    assert mach.report()["action"] == "updated"
    np.testing.assert_allclose(out(), inner.predict(X_DATA))
    out.fit()
    assert mach.report()["action"] == "skipped"
    cache = ww.FitCache()
    for target in (Y_DATA, -Y_DATA):
        other = Ridge().fit(X_DATA, target)
        cached = ww.machine(FunctionTransformer(other.predict), X_DATA).fit(cache=cache)
        np.testing.assert_allclose(cached.fitted_model.transform(X_DATA), other.predict(X_DATA))
    assert (cache.hits, cache.misses) == (0, 2)


def test_unsupervised_machine_on_a_vector_works_by_columns():
    y = ww.source(pd.Series([1.0, 2.0, 3.0], index=[7, 8, 9], name="target"))
    std = ww.machine(StandardScaler(), y)
    z = std.transform(y).fit()()
    assert isinstance(z, pd.Series) and list(z.index) == [7, 8, 9] and z.name == "target"
    back = std.inverse_transform(std.transform(y))()
    assert np.allclose(back, [1.0, 2.0, 3.0])
    assert std.inverse_transform(np.array([0.0])).__call__().shape == (1,)


def test_a_machine_that_learned_one_column_takes_a_1d_value_as_that_column():
    column = ww.source(Y_DATA[:, None])
    std = ww.machine(StandardScaler(), column)
    std.transform(column).fit()
    flat = std.transform(np.array([0.0, 1.0]))()
    assert flat.shape == (2, 1)  # the model's own output: a column, as it learned one
    assert np.array_equal(flat, std.fitted_model.transform(np.array([[0.0], [1.0]])))
    wide = ww.source(X_DATA[:, :2])
    two = ww.machine(StandardScaler(), wide)
    two.transform(wide).fit()
    with pytest.raises(ww.MachineApplyError, match=r"failed in transform\(\) on numpy.ndarray of shape \(2,\)"):
        two.transform(np.array([0.0, 1.0]))()  # two columns learned: a 1-D value is no row and no column


def test_a_model_class_is_refused_with_the_instance_to_pass():
    with pytest.raises(ww.ArgumentError, match=r"Expected a model instance for machine 'r'\. Received the class Ridge; pass an instance, Ridge\(\)\.") as info:
        ww.machine(Ridge, X_DATA, Y_DATA, name="r")
    assert isinstance(info.value, TypeError)


class _NeedsY(BaseEstimator):
    """Not tagged as a classifier or regressor, but its score needs the target, as theirs do."""

    def fit(self, X, y=None):
        return self

    def score(self, X, y):  # pragma: no cover - never called
        return 0.0


@pytest.mark.parametrize("model", [Ridge(), make_pipeline(StandardScaler(), Ridge()), _NeedsY()])
def test_a_score_node_of_a_model_scoring_against_a_target_is_refused_when_built(model):
    mach = ww.machine(model, X_DATA, Y_DATA, name="m")
    with pytest.raises(ww.GraphError, match=r"score\(\) compares its predictions with a target.*\(in Machine 'm' .*ww\.node\(r2_score"):
        mach.score(X_DATA)


def test_report_and_repr():
    yhat, (_, _, scaler, pca, ridge) = chain()
    assert ridge.report()["action"] == "none"
    yhat.fit()
    report = ridge.report()
    assert report["model"] == "Counting" and report["state"] == 1 and report["action"] == "trained"
    assert repr(ridge).startswith("machine(Counting(estimator=Ridge(), tag='ridge'), transform(m1, transform(m2, X)), y")


def test_reports_carry_the_state_at_every_kind_of_visit():
    yhat, (_, _, scaler, pca, ridge) = chain()
    assert ridge.report()["state"] == 0
    yhat.fit()
    yhat.fit()  # nothing changed: every machine skipped, the state kept
    assert [m.report()["action"] for m in (scaler, pca, ridge)] == ["skipped"] * 3
    assert [m.report()["state"] for m in (scaler, pca, ridge)] == [1, 1, 1]
    ridge.model.estimator.alpha = 3.0
    yhat.fit()
    assert ridge.report()["action"] == "updated" and ridge.report()["state"] == 2
    assert set(ridge.report()) == {"machine", "model", "state", "action", "reason", "fit_time", "n_rows"}
    assert scaler.report() == {
        "machine": None, "model": "Counting", "state": 1, "action": "skipped", "reason": "no retraining condition holds"
    }


class _NoParams(BaseEstimator):
    def fit(self, X, y=None):
        return self


class _OneParam(BaseEstimator):
    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y=None):
        return self


class _OwnGetParams(_OneParam):
    def get_params(self, deep=True):
        return {"alpha": self.alpha, "extra": "told"}


@pytest.mark.parametrize(
    "model, expected",
    [
        (_NoParams(), {}),
        (_OneParam(2.0), {"alpha": 2.0}),
        (Ridge(alpha=3.0), Ridge(alpha=3.0).get_params(deep=False)),
        (_OwnGetParams(4.0), {"alpha": 4.0, "extra": "told"}),
    ],
)
def test_shallow_params_equal_get_params(model, expected):
    assert shallow_params(model) == expected == model.get_params(deep=False)
    found = param_values(model)
    if isinstance(model, _OwnGetParams):
        assert found is None  # its own get_params is asked
    else:
        assert dict(zip(*found)) == expected


def test_params_keys_compare_values_with_their_types_and_nan():
    assert params_key(_OneParam(1.0)) == params_key(_OneParam(1.0))
    assert params_key(_OneParam(1)) != params_key(_OneParam(1.0)) != params_key(_OneParam(True))
    assert params_key(_OneParam(float("nan"))) == params_key(_OneParam(float("nan")))
    # -0.0 == 0.0 in Python, but they differ as hyperparameters (and in tokens): a sign a model may give back
    assert params_key(_OneParam(-0.0)) != params_key(_OneParam(0.0))
    assert params_key(_OneParam(-0.0)) == params_key(_OneParam(float("-0.0")))
    assert params_key(_OneParam(-0.0)) != params_key(_OneParam("-0.0"))
    assert params_key(_OneParam(2.0)) != params_key(_OwnGetParams(2.0))
    assert params_key(Ridge(alpha=1.0)) != params_key(Ridge(alpha=2.0))
    assert params_key(_NoParams()) == params_key(_NoParams())


def test_a_function_defined_again_under_its_name_is_condition_6():
    # A notebook cell defining f run again after an edit: the new f has the old one's module and name, which was all
    # a module-level function's token covered, so set_params(func=f) retrained nothing and the machine's copy
    # kept computing with the old f.
    first, second = {}, {}
    exec("def scale(X):\n    return X * 2.0\n", first)
    exec("def scale(X):\n    return X * 3.0\n", second)
    X = ww.source(X_DATA)
    mach = ww.machine(FunctionTransformer(first["scale"]), X)
    out = mach.transform(X)
    out.fit()
    mach.model.set_params(func=second["scale"])
    out.fit()
    assert mach.report()["reason"] == "condition 6: hyperparameters changed"
    np.testing.assert_array_equal(out(), X_DATA * 3.0)


def test_a_zero_hyperparameter_changed_to_minus_zero_retrains():
    # Condition 6 compared plain values with ==, for which -0.0 equals 0.0: the machine kept predicting 0.0
    from sklearn.dummy import DummyRegressor

    model = DummyRegressor(strategy="constant", constant=0.0)
    mach = ww.machine(model, X_DATA, Y_DATA)
    mach.fit()
    model.constant = -0.0
    mach.fit()
    assert mach.report()["action"] == "updated"
    assert np.signbit(mach.fitted_model.predict(X_DATA[:1])).all()
    model.constant = float("-0.0")  # another object, equal: no change
    mach.fit()
    assert mach.report()["action"] == "skipped"


class _LoggedPlain(BaseEstimator):
    """Plain hyperparameters (no validation); logs each fit."""

    fitted: list = []

    def __init__(self, a=1.0, b="x"):
        self.a = a
        self.b = b

    def fit(self, X, y=None):
        _LoggedPlain.fitted.append(self.a)
        return self

    def transform(self, X):
        return X


def test_equal_hyperparameters_are_no_change_whatever_their_objects():
    _LoggedPlain.fitted.clear()
    model = _LoggedPlain(a=1.5)
    mach = ww.machine(model, ww.source(np.ones((4, 2))))
    mach.fit()
    actions = []
    for value in [float("1.5"), float("nan"), float("nan"), 2, 2.0, float("2.0"), True, 1]:
        model.a = value  # a new object each time (equal or not to the last)
        mach.fit()
        actions.append(mach.report()["action"])
    # equal values of one type are the same hyperparameter; NaN equals NaN; 2, 2.0, True and 1 differ by type
    assert actions == ["skipped", "updated", "skipped", "updated", "updated", "skipped", "updated", "updated"]
    assert len(_LoggedPlain.fitted) == 1 + actions.count("updated")



class _LosesAParameter(_LoggedPlain):
    """A model that can lose a parameter attribute, which clone() needs."""


def test_a_model_that_cannot_be_copied_fails_its_machine_clearly():
    upstream = ww.machine(StandardScaler(), ww.source(np.arange(8.0).reshape(4, 2)))
    model = _LosesAParameter(a=1.0)
    mach = ww.machine(model, upstream.transform(upstream.args[0]), name="broken")
    mach.fit()
    del model.b  # no attribute for the parameter b: scikit-learn's clone() would fail too
    model.a = 2.0
    with pytest.raises(ww.MachineFitError, match=r"Machine 'broken' .*copying the model raised AttributeError") as info:
        mach.fit()
    assert isinstance(info.value, AttributeError) and isinstance(info.value.__cause__, AttributeError)
    assert "its repr raised AttributeError" in str(info.value)
    assert mach.report()["action"] == "failed" and mach.report()["state"] == 1
    assert mach.report()["reason"].endswith("copying the model raised AttributeError")  # its own words, kept
    assert upstream.report()["action"] == "skipped" and upstream.state == 1


# -- training output: a node transforming a machine's own training X takes fit_transform's output ----------


def crossfitted_network(X=X_DATA, y=Y_DATA):
    """encoder (CrossFitted) -> ridge; returns (yhat, Z, encoder, ridge)."""
    Xs, ys = ww.source(X, name="X"), ww.source(y, name="y")
    encoder = ww.machine(CrossFitted(), Xs, ys, name="encoder")
    Z = encoder.transform(Xs)
    ridge = ww.machine(Ridge(), Z, ys, name="ridge")
    return ridge.predict(Z), Z, encoder, ridge


def test_a_transform_of_the_training_x_takes_fit_transforms_output_in_training():
    yhat, Z, encoder, ridge = crossfitted_network()
    yhat.fit()
    assert CrossFitted.calls == ["fit_transform"]  # trained by it; its output served the ridge: no transform
    shifted = X_DATA - X_DATA.mean(axis=0) + 1000.0
    np.testing.assert_array_equal(Z(), shifted)  # the value on the training data
    np.testing.assert_array_equal(ridge.fitted_model.coef_, Ridge().fit(shifted, Y_DATA).coef_)
    np.testing.assert_array_equal(Z(X_DATA), X_DATA - X_DATA.mean(axis=0))  # new data (even equal): transform
    assert CrossFitted.calls == ["fit_transform", "transform"]


@pytest.mark.parametrize("kind", ["PLSRegression", "PLSCanonical", "CCA", "PLSSVD"])
def test_a_cross_decompositions_transform_of_the_training_x_is_its_x_scores(kind):
    # its fit_transform(X, y) is fit, then transform(X, y): the pair (x_scores, y_scores). Taken as the
    # node's value on the training data, the ridge after it trained on a tuple (a DataError: "X has 2 rows").
    from sklearn import cross_decomposition

    model = getattr(cross_decomposition, kind)(n_components=1)
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    pls = ww.machine(model, X, y, name="pls")
    scores = pls.transform(X)
    ridge = ww.machine(Ridge(), scores, y)
    yhat = ridge.predict(scores).fit()
    expected = getattr(cross_decomposition, kind)(n_components=1).fit(X_DATA, Y_DATA).transform(X_DATA)
    np.testing.assert_array_equal(scores(), expected)
    np.testing.assert_array_equal(yhat(), Ridge().fit(expected, Y_DATA).predict(expected))
    np.testing.assert_array_equal(yhat(X_DATA[:3]), Ridge().fit(expected, Y_DATA).predict(expected[:3]))
    with pytest.raises(ww.GraphError, match=r"its fit_transform is fit, then transform, so the machine trains by "
                       r"fit and holds no fit_transform output\. Use mach\.transform\(X\)"):
        pls.fit_transform(X)


def test_a_refit_downstream_reuses_the_kept_output():
    yhat, Z, encoder, ridge = crossfitted_network()
    yhat.fit()
    CrossFitted.calls.clear()
    ridge.model.alpha = 5.0
    yhat.fit()  # no store between passes: the machine holds the output
    assert CrossFitted.calls == [] and encoder.report()["action"] == "skipped"
    shifted = X_DATA - X_DATA.mean(axis=0) + 1000.0
    np.testing.assert_array_equal(ridge.fitted_model.coef_, Ridge(alpha=5.0).fit(shifted, Y_DATA).coef_)


def test_other_inputs_and_inherited_fit_transforms_train_by_fit():
    X = ww.source(X_DATA, name="X")
    other = ww.source(X_DATA[::-1].copy(), name="other")
    encoder = ww.machine(CrossFitted(), X)
    applied = encoder.transform(other)  # not its training X: transform, and fit suffices
    applied.fit()
    assert CrossFitted.calls == ["fit"]
    np.testing.assert_array_equal(applied(), X_DATA[::-1] - X_DATA.mean(axis=0))
    scaler = ww.machine(StandardScaler(), X)  # TransformerMixin's fit_transform is fit, then transform
    scaled = scaler.transform(X)
    scaled.fit()
    assert scaler._output is None
    np.testing.assert_array_equal(scaled(), StandardScaler().fit(X_DATA).transform(X_DATA))


def test_a_frozen_machine_whose_input_changed_does_not_serve_its_stale_output():
    X = ww.source(X_DATA, name="X")
    scaler = ww.machine(StandardScaler(), X)
    scaled = scaler.transform(X)
    encoder = ww.machine(CrossFitted(), scaled)
    Z = encoder.transform(scaled)
    Z.fit()
    np.testing.assert_allclose(Z(), scaled() - encoder.fitted_model.mean_ + 1000.0, rtol=1e-12)
    encoder.freeze()
    X.data = X_DATA * 2.0  # the scaler retrains; the frozen encoder does not
    with pytest.warns(ww.FrozenMachineWarning, match="condition 3"):
        Z.fit()
    new = StandardScaler().fit(X_DATA * 2.0).transform(X_DATA * 2.0)
    np.testing.assert_allclose(Z(), new - encoder.fitted_model.mean_, rtol=1e-12)  # transform, not +1000


def test_a_pickled_machine_drops_its_output_and_trains_again_when_a_node_needs_it():
    import pickle

    yhat, Z, encoder, ridge = crossfitted_network()
    yhat.fit()
    pickled = pickle.dumps(yhat)
    assert Z().tobytes() not in pickled and X_DATA.tobytes() in pickled  # the output is not in it; the data is
    copied = pickle.loads(pickled)
    copied.fit()
    machines = {m.name: m for m in ww.graph.topology.training_order([copied])}
    assert machines["encoder"].report()["reason"].startswith("condition 7")
    assert machines["ridge"].report()["reason"].startswith("condition 3")
    np.testing.assert_array_equal(copied(X_DATA), yhat(X_DATA))
    copied.fit()
    assert machines["encoder"].report()["action"] == "skipped"


def test_a_shallow_copy_of_a_machine_trains_itself_not_the_original():
    import copy

    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    ridge = ww.machine(Ridge(), X, y, name="ridge").fit()
    copied = copy.copy(ridge)
    assert copied.args == ridge.args and copied.model is ridge.model and copied.fitted_model is ridge.fitted_model
    copied.model = Ridge(alpha=100.0)
    copied.fit()  # condition 6, by the copy's own snapshot
    assert copied.report()["action"] == "updated" and copied.state == 2 and copied.fitted_model.alpha == 100.0
    assert ridge.state == 1 and ridge.fitted_model.alpha == 1.0  # the original is as it was
    np.testing.assert_allclose(copied.predict(X)(), Ridge(alpha=100.0).fit(X_DATA, Y_DATA).predict(X_DATA))


def test_weights_go_to_fit_when_fit_transform_does_not_take_them():
    weights = np.linspace(1.0, 2.0, len(Y_DATA))
    X, y, w = ww.source(X_DATA), ww.source(Y_DATA), ww.source(weights)
    encoder = ww.machine(CrossFitted(), X, y, w)
    Z = encoder.transform(X)
    Z.fit()
    assert CrossFitted.calls == ["fit"]
    np.testing.assert_allclose(Z(), X_DATA - np.average(X_DATA, axis=0, weights=weights), rtol=1e-12)
    assert CrossFitted.calls == ["fit", "transform"]
    Z.fit()
    assert encoder.report()["action"] == "skipped"  # no output is owed: condition 7 does not hold


def test_a_one_dimensional_training_x_gets_its_output_back_in_one_dimension():
    y = ww.source(pd.Series(Y_DATA, name="target"), name="y")
    encoder = ww.machine(CrossFitted(), y)
    z = encoder.transform(y)
    z.fit()
    value = z()
    assert isinstance(value, pd.Series) and value.name == "target"
    np.testing.assert_array_equal(value.to_numpy(), Y_DATA - Y_DATA.mean() + 1000.0)


def test_a_machine_trained_for_no_such_node_trains_by_fit_then_again_when_a_pass_needs_its_output():
    yhat, Z, encoder, ridge = crossfitted_network()
    encoder.fit()  # its own graph has no node taking its output
    assert CrossFitted.calls == ["fit"]
    np.testing.assert_array_equal(Z(), X_DATA - X_DATA.mean(axis=0))  # transform: no output held
    yhat.fit()
    assert encoder.report()["reason"].startswith("condition 7") and encoder.state == 2
    np.testing.assert_array_equal(Z(), X_DATA - X_DATA.mean(axis=0) + 1000.0)
    ridge.fit()  # the ridge's graph has the node as its training argument: the output is owed
    assert encoder.report()["action"] == "skipped"


def _no_target(X):
    return None


def test_an_unsupervised_model_trains_with_weights_after_a_target_node_of_none():
    X = np.random.RandomState(0).normal(size=(30, 2))
    w = np.random.RandomState(1).uniform(0.1, 3.0, 30)
    Xs, ws = ww.source(X, name="X"), ww.source(w, name="w")
    scaler = ww.machine(StandardScaler(), Xs, ww.node(_no_target, Xs), ws)
    assert np.allclose(scaler.transform(Xs).fit()(), StandardScaler().fit(X, sample_weight=w).transform(X))
    with pytest.raises(ww.DataError, match=r"different numbers of rows: X has 30, sample_weight has 29"):
        ww.machine(StandardScaler(), Xs, ww.node(_no_target, Xs), ww.source(w[:-1])).fit()


# -- training output of fit_predict: the labels of a model that has no predict (DBSCAN) ----------------------


def _iris():
    from sklearn.datasets import load_iris

    return StandardScaler().fit_transform(load_iris().data)


def test_a_fit_predict_node_takes_the_labels_fit_predict_gave_in_training():
    from sklearn.cluster import DBSCAN

    data = _iris()
    X = ww.source(data, name="X")
    dbscan = ww.machine(Counting(DBSCAN(eps=0.6), tag="dbscan"), X, name="dbscan")
    labels = dbscan.fit_predict(X)
    assert repr(labels) == "fit_predict(dbscan, X)"
    labels.fit()
    np.testing.assert_array_equal(labels(), DBSCAN(eps=0.6).fit_predict(data))
    assert Counting.events == [("dbscan", "fit_predict")]  # trained by it, once; the value is what it returned
    labels.fit()
    assert dbscan.report()["action"] == "skipped" and Counting.events == [("dbscan", "fit_predict")]
    with pytest.raises(ww.GraphError, match=r"fit_predict\(\) of Machine 'dbscan' \(Counting\) has a value on the "
                       r"training data only: Counting labels the data it trains on and has no predict\(\)"):
        labels(data)
    X.data = data[:100]  # new training data: trained again
    labels.fit()
    np.testing.assert_array_equal(labels(), DBSCAN(eps=0.6).fit_predict(data[:100]))


def test_a_fit_predict_node_is_of_the_training_x_and_of_a_model_that_has_fit_predict():
    from sklearn.cluster import DBSCAN, KMeans

    X, other = ww.source(_iris(), name="X"), ww.source(_iris(), name="other")
    with pytest.raises(ww.GraphError, match=r"its input must be the machine's first training argument"):
        ww.machine(DBSCAN(), X).fit_predict(other)
    with pytest.raises(ww.GraphError, match=r"Ridge has no fit_predict\(\)"):
        ww.machine(Ridge(), X, ww.source(np.zeros(150))).fit_predict(X)
    kmeans = ww.machine(KMeans(3, n_init=2, random_state=0), X, name="kmeans")
    with pytest.raises(ww.GraphError, match=r"Nodes take both the fit_transform and the fit_predict output of "
                       r"Machine 'kmeans' \(KMeans\)"):
        ww.node(np.column_stack, kmeans.transform(X), kmeans.fit_predict(X)).fit()


def test_a_fit_transform_node_takes_the_embedding_fit_transform_gave_in_training():
    from sklearn.manifold import SpectralEmbedding

    data = _iris()
    X = ww.source(data, name="X")
    embed = ww.machine(SpectralEmbedding(random_state=0), X, name="embed")
    embedding = embed.fit_transform(X)
    assert repr(embedding) == "fit_transform(embed, X)"
    embed.fit()  # its own graph has no node taking the embedding: trained by fit, which keeps none
    with pytest.raises(ww.NotTrainedError, match=r"holds no fit_transform output of its training data"):
        embedding()
    embedding.fit()
    assert embed.report()["reason"] == "condition 7: a node takes its fit_transform output, which it does not hold"
    np.testing.assert_array_equal(embedding(), SpectralEmbedding(random_state=0).fit_transform(data))
    np.testing.assert_array_equal(embedding(), embed.fitted_model.embedding_)
    state = embed.state
    embedding.fit()
    assert embed.report()["action"] == "skipped" and embed.state == state  # nothing changed: the output it holds
    with pytest.raises(ww.GraphError, match=r"fit_transform\(\) of Machine 'embed' \(SpectralEmbedding\) has a value "
                       r"on the training data only: SpectralEmbedding transforms the data it trains on and has no "
                       r"transform\(\) for new data"):
        embedding(data)


def test_a_fit_transform_node_is_of_the_training_x_and_of_a_model_that_trains_by_its_fit_transform():
    from sklearn.manifold import SpectralEmbedding

    X, other = ww.source(_iris(), name="X"), ww.source(_iris(), name="other")
    with pytest.raises(ww.GraphError, match=r"its input must be the machine's first training argument"):
        ww.machine(SpectralEmbedding(), X).fit_transform(other)
    with pytest.raises(ww.GraphError, match=r"Ridge has no fit_transform\(\)"):
        ww.machine(Ridge(), X, ww.source(np.zeros(150))).fit_transform(X)
    with pytest.raises(ww.GraphError, match=r"its fit_transform is fit, then transform, so the "
                       r"machine trains by fit and holds no fit_transform output\. Use mach\.transform\(X\)"):
        ww.machine(StandardScaler(), X).fit_transform(X)


def test_a_training_output_node_of_a_model_that_also_applies_to_new_data_says_which_node_does():
    # PCA has transform, KMeans predict: the error said they had none ("has no transform() for new data")
    from sklearn.cluster import KMeans

    data = _iris()
    X = ww.source(data, name="X")
    pca, kmeans = ww.machine(PCA(2), X, name="pca"), ww.machine(KMeans(3, n_init=2, random_state=0), X)
    embedding, labels = pca.fit_transform(X).fit(), kmeans.fit_predict(X).fit()
    np.testing.assert_array_equal(embedding(), PCA(2).fit_transform(data))
    with pytest.raises(ww.GraphError, match=r"fit_transform\(\) of Machine 'pca' \(PCA\) has a value on the training "
                       r"data only: the output of PCA's fit_transform when it trained\. Its transform\(\) gives values "
                       r"on new data: build mach\.transform\(X\), whose value on the training data is this one\."):
        embedding(data[:3])
    with pytest.raises(ww.GraphError, match=r"fit_predict\(\) of Machine \(KMeans\) has a value on the training data "
                       r"only: the output of KMeans's fit_predict when it trained\. Its predict\(\) gives values on new "
                       r"data: build mach\.predict\(X\)\.$"):
        labels(data[:3])


def test_a_machine_trained_by_fit_holds_no_labels_until_a_pass_needs_them():
    from sklearn.cluster import DBSCAN

    X = ww.source(_iris(), name="X")
    dbscan = ww.machine(DBSCAN(eps=0.6), X, name="dbscan")
    labels = dbscan.fit_predict(X)
    dbscan.fit()  # its own graph has no node taking its labels: trained by fit
    with pytest.raises(ww.NotTrainedError, match=r"holds no fit_predict output of its training data"):
        labels()
    labels.fit()
    assert dbscan.report()["reason"] == "condition 7: a node takes its fit_predict output, which it does not hold"
    np.testing.assert_array_equal(labels(), dbscan.fitted_model.labels_)


def test_a_pickled_trained_machine_names_the_machines_module_and_comes_back_trained():
    """Machine's retraining rules live in a base class in _retraining; pickles still name wirework.graph.machines
    (Machine and the snapshot of its training) and load back with the same training."""
    import pickle

    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    ridge = ww.machine(Ridge(), X, y, name="ridge")
    yhat = ridge.predict(X).fit()
    data = pickle.dumps(yhat)
    assert b"wirework.graph.machines" in data and b"_retraining" not in data
    assert b"_Snapshot" in data
    back = pickle.loads(data)
    machine = back.machines()[0]
    assert type(machine) is ww.Machine and type(machine._snapshot).__module__ == "wirework.graph.machines"
    np.testing.assert_array_equal(back(), yhat())
    assert back.fit().machines()[0].report()["action"] == "skipped" and machine.state == 1
