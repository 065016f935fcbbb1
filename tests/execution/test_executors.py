"""Every executor passes the same conformance tests: same predictions, retraining, errors."""

import time

import numpy as np
import pytest
from _probes import Brittle, Connected, CrossFitted, Doomed, Fragile, Handle, KeepsLock, ThreadProbe
from sklearn.cluster import DBSCAN
from sklearn.datasets import make_regression
from sklearn.decomposition import TruncatedSVD
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from sklearn.preprocessing import FunctionTransformer
from sklearn.tree import DecisionTreeRegressor

import wirework as ww

X_DATA, Y_DATA = make_regression(n_samples=300, n_features=8, noise=5.0, random_state=0)


def stack(**options):
    learners = [
        ("ridge", Ridge()),
        ("forest", RandomForestRegressor(n_estimators=10, random_state=0)),
        ("tree", DecisionTreeRegressor(max_depth=5, random_state=0)),
    ]
    return ww.Stack(learners, Ridge(), cv=KFold(5), **options)


def actions(model):
    return {name: report["action"] for name, report in model.report_()["machines"].items()}


@pytest.fixture(params=["sequential", "threads", "processes", "dask"])
def executor(request):
    if request.param == "dask":
        return ww.DaskExecutor(request.getfixturevalue("dask_client"))
    if request.param == "processes":
        return ww.ProcessExecutor(2)
    if request.param == "threads":
        return ww.ThreadExecutor(2)
    return "sequential"


class TestExecutorConformance:
    """What every executor must do exactly as the sequential one does."""

    def test_same_predictions_as_sequential(self, executor):
        reference = stack().fit(X_DATA, Y_DATA).predict(X_DATA)
        model = stack(executor=executor).fit(X_DATA, Y_DATA)
        assert np.array_equal(model.predict(X_DATA), reference)  # bit-identical
        assert len(model.machines_) == 3 * 6 + 2 - 1  # 3 learners x (5 folds + all rows) + final

    def test_same_retraining(self, executor):
        model = stack(executor=executor).fit(X_DATA, Y_DATA)
        model.set_params(forest__max_depth=3).fit(X_DATA, Y_DATA)
        retrained = sorted(name for name, action in actions(model).items() if action != "skipped")
        assert retrained == ["final", "forest", *[f"forest_fold{i}" for i in range(1, 6)]]
        model.set_params(final_estimator__alpha=4.0).fit(X_DATA, Y_DATA)
        assert [name for name, action in actions(model).items() if action != "skipped"] == ["final"]

    def test_same_training_outputs(self, executor):
        """A machine that trains by fit_transform brings its output back from wherever it trained."""
        X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
        encoder = ww.machine(CrossFitted(), X, y, name="encoder")
        Z = encoder.transform(X)
        ridge = ww.machine(Ridge(), Z, y, name="ridge")
        ridge.predict(Z).fit(executor=executor)
        shifted = X_DATA - X_DATA.mean(axis=0) + 1000.0
        np.testing.assert_array_equal(Z(), shifted)
        assert np.array_equal(ridge.fitted_model.coef_, Ridge().fit(shifted, Y_DATA).coef_)

    def test_same_labels_of_a_model_that_labels_only_its_training_data(self, executor):
        """A machine that trains by fit_predict brings its labels back from wherever it trained."""
        X = ww.source(X_DATA, name="X")
        labels = ww.machine(DBSCAN(eps=1.5, min_samples=3), X, name="dbscan").fit_predict(X)
        labels.fit(executor=executor)
        np.testing.assert_array_equal(labels(), DBSCAN(eps=1.5, min_samples=3).fit_predict(X_DATA))

    def test_same_errors_and_resume(self, executor):
        X = ww.source(X_DATA, name="X")
        y = ww.source(Y_DATA, name="y")
        good = ww.machine(Ridge(), X, y, name="good")
        bad = ww.machine(Fragile(fail=True), X, y, name="bad")
        judge = ww.machine(Ridge(), ww.hcat(good.predict(X), bad.predict(X)), y, name="judge")
        yhat = judge.predict(ww.hcat(good.predict(X), bad.predict(X)))
        with pytest.raises(ww.MachineFitError, match=r"Machine 'bad' \(Fragile\) failed to train.*Fragile was told to fail") as info:
            yhat.fit(executor=executor)
        assert isinstance(info.value, ValueError) and info.value.machine is bad
        assert good.state == 1 and bad.state == 0 and judge.state == 0
        assert judge.report()["action"] == "blocked" and bad.report()["action"] == "failed"
        bad.model.fail = False
        yhat.fit(executor=executor)
        assert (good.state, bad.state, judge.state) == (1, 1, 1)
        assert good.report()["action"] == "skipped"

    def test_a_prediction_failing_in_training_fails_the_machine_that_needs_it(self, executor):
        X = ww.source(X_DATA, name="X")
        y = ww.source(Y_DATA, name="y")
        brittle = ww.machine(Brittle(broken=True), X, y, name="brittle")
        judge = ww.machine(Ridge(), ww.hcat(brittle.predict(X)), y, name="judge")
        yhat = judge.predict(ww.hcat(brittle.predict(X)))
        with pytest.raises(ww.MachineApplyError, match=r"Machine 'brittle' \(Brittle\) failed in predict\(\)") as info:
            yhat.fit(executor=executor)
        assert isinstance(info.value, KeyError) and info.value.machine is brittle
        assert brittle.state == 1 and judge.state == 0
        report = judge.report()
        assert report["action"] == "failed" and report["reason"].startswith("its training values: MachineApplyError")
        brittle.model.broken = False
        yhat.fit(executor=executor)
        assert (brittle.state, judge.state) == (2, 1)

    def test_a_static_node_failing_in_training_fails_its_machine_and_keeps_the_fits_running(self, executor):
        X = ww.source(X_DATA, name="X")
        y = ww.source(Y_DATA, name="y")
        first = ww.machine(Ridge(), X, y, name="first")  # submitted before the next machine's values fail
        second = ww.machine(Ridge(), ww.node(_divide_by_zero, X), y, name="second")
        root = ww.hcat(first.predict(X), second.predict(X))
        message = r"Machine 'second' \(Ridge\) could not train .*the node _divide_by_zero\(X\) raised ZeroDivisionError"
        with pytest.raises(ww.MachineFitError, match=message) as info:
            root.fit(executor=executor)
        assert isinstance(info.value, ZeroDivisionError) and info.value.machine is second
        assert type(info.value.__cause__) is ZeroDivisionError
        assert first.state == 1 and first.report()["action"] == "trained"
        assert second.state == 0 and second.report()["action"] == "failed"
        assert second.report()["reason"].startswith("its training values: the node _divide_by_zero(X) raised")

    def test_continue_trains_what_failures_do_not_block(self, executor):
        X = ww.source(X_DATA, name="X")
        y = ww.source(Y_DATA, name="y")
        first = ww.machine(Fragile(fail=True), X, y, name="first")
        second = ww.machine(Fragile(fail=True), X, y, name="second")
        fine = ww.machine(Ridge(), X, y, name="fine")
        after = ww.machine(Ridge(), ww.hcat(first.predict(X)), y, name="after")
        root = ww.hcat(after.predict(ww.hcat(first.predict(X))), second.predict(X), fine.predict(X))
        with pytest.raises(ww.MachineFitError, match=r"2 machines failed to train: Machine 'first'.*Machine 'second'") as info:
            root.fit(executor=executor, on_error="continue")
        assert isinstance(info.value, ValueError)
        assert fine.state == 1 and after.state == 0
        assert after.report()["action"] == "blocked"


    def test_continue_lists_the_failures_in_training_order(self, executor):
        """Not in the order they came (the slow failure first in training order ends last), and not an error
        without a machine (rows that do not match) first."""
        X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
        slow = ww.machine(Fragile(fail=True, sleep=0.5), X, y, name="slow")
        fast = ww.machine(Fragile(fail=True), X, y, name="fast")
        rows = ww.machine(Ridge(), X, ww.node(_first_ten, y), name="rows")
        fine = ww.machine(Ridge(), X, y, name="fine")
        root = ww.hcat(*[m.predict(X) for m in (slow, fast, rows, fine)])
        with pytest.raises(ww.MachineFitError, match=r"^3 machines failed to train: Machine 'slow' .*; Machine 'fast' "
                           r".*; The training arguments of Machine 'rows' .*\(restrict every argument with the same "
                           r"folds\)\. The others that could train did") as info:
            root.fit(executor=executor, on_error="continue")
        assert [getattr(f, "machine", None) for f in info.value.failures] == [slow, fast, None]
        assert isinstance(info.value.failures[2], ww.DataError) and "'rows'" in str(info.value.failures[2])
        assert fine.state == 1 and [m.report()["action"] for m in (slow, fast, rows)] == ["failed"] * 3


def _first_ten(value):
    return value[:10]


def _divide_by_zero(value):
    raise ZeroDivisionError("the function of a static node failed")


@pytest.mark.parametrize("kind", ["threads", "processes"])
def test_an_error_out_of_the_loop_records_the_fits_still_running_first(kind):
    """A progress callback raising is not a machine's failure: it propagates, after what was running is kept."""

    def refuse(event):
        raise RuntimeError("the progress callback failed")

    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    machines = [ww.machine(Ridge(alpha=a), X, y, name=f"r{a}") for a in (1, 2, 3)]
    yhat = ww.mean(*[m.predict(X) for m in machines])
    with pytest.raises(RuntimeError, match="the progress callback failed"):
        yhat.fit(progress=refuse, executor=kind, n_jobs=3)
    assert [m.state for m in machines] == [1, 1, 1]
    assert {m.report()["action"] for m in machines} == {"trained"}


@pytest.mark.parametrize("kind", ["threads", "processes", "dask"])
def test_parallel_fits_limit_inner_threads(kind, request):
    """Workers x inner threads <= cores: with as many workers as cores, each fit gets 1 thread."""
    cores = ww.execution.executors.cores()
    if kind == "dask":
        client = request.getfixturevalue("dask_client")
        executor = ww.DaskExecutor(client)
        expected = max(1, cores // sum(client.nthreads().values()))
    else:
        executor = ww.ThreadExecutor(cores) if kind == "threads" else ww.ProcessExecutor(cores)
        expected = 1
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    machines = [ww.machine(ThreadProbe(), X, y, name=f"probe{i}") for i in range(2)]
    ww.mean(*[m.predict(X) for m in machines]).fit(executor=executor)
    for mach in machines:
        assert mach.fitted_model.threads_, "threadpoolctl found no thread pool in the worker"
        assert set(mach.fitted_model.threads_.values()) == {expected}


def shared_executor(kind, request):
    if kind == "dask":  # every value scattered, every array memory-mapped: the state a pass keeps
        return ww.DaskExecutor(request.getfixturevalue("dask_client"), scatter_bytes=0)
    return ww.ProcessExecutor(2, mmap_bytes=0) if kind == "processes" else ww.ThreadExecutor(2)


@pytest.mark.parametrize("kind", ["threads", "processes", "dask"])
def test_passes_at_once_on_one_executor_keep_their_own_pool_files_and_data(kind, request):
    """Clones of a composite share its executor, and joblib's threading backend fits them at once: the first pass
    to end shut down the others' thread pool ('cannot schedule new futures after shutdown'), removed their
    memory-mapped files (FileNotFoundError), or took their Dask futures (StopIteration)."""
    from joblib import parallel_config
    from sklearn.model_selection import GridSearchCV

    def search(**options):
        model = ww.Stack([("probe", ThreadProbe(sleep=0.05)), ("ridge", Ridge())], Ridge(), cv=KFold(3), **options)
        return GridSearchCV(model, {"final_estimator__alpha": [0.1, 1.0, 10.0]}, cv=2, n_jobs=2, error_score="raise")

    X, y = X_DATA[:100], Y_DATA[:100]
    expected = search().fit(X, y).cv_results_["mean_test_score"]
    executor = shared_executor(kind, request)
    with parallel_config(backend="threading"):
        found = search(executor=executor).fit(X, y).cv_results_["mean_test_score"]
    assert np.array_equal(found, expected)


def test_a_composite_nested_in_another_may_share_its_executor():
    """The inner pass shut down the outer pass's thread pool (AssertionError: open() the executor first)."""
    executor = ww.ThreadExecutor(2)
    inner = ww.Pipeline([("probe", ThreadProbe(sleep=0.05))], executor=executor)
    model = ww.Stack([("inner", inner), ("slow", ThreadProbe(sleep=0.2))], Ridge(), cv=KFold(3), executor=executor)
    model.fit(X_DATA, Y_DATA)
    assert set(actions(model).values()) == {"trained"}
    assert executor._pool is None  # the executor itself keeps no pass's pool


def test_sequential_fit_keeps_all_threads():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    mach = ww.machine(ThreadProbe(), X, y)
    mach.fit()
    assert max(mach.fitted_model.threads_.values()) >= 1


def test_progress_callback_sees_every_machine():
    events = []
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y, name=f"r{a}").predict(X) for a in (1, 2, 3)])
    yhat.fit(progress=events.append, executor="threads", n_jobs=2)
    assert [e["done"] for e in events] == [1, 2, 3] and {e["total"] for e in events} == {3}
    assert sorted(e["machine"] for e in events) == ["r1", "r2", "r3"]
    assert {e["action"] for e in events} == {"trained"}


def test_bad_execution_options():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    node = ww.machine(Ridge(), X, y).predict(X)
    with pytest.raises(ww.ArgumentError, match=r"Expected executor to be one of \['processes', 'sequential', 'threads'\]"):
        node.fit(executor="gpu")
    with pytest.raises(ww.ParameterError, match="Expected n_jobs to be a positive int, a negative one as joblib "
                       r"counts \(-1: all cores, -2: all but one\) or None. Received: 0, which would run no fit"):
        node.fit(executor="threads", n_jobs=0)
    with pytest.raises(ww.ArgumentError, match="Expected on_error to be 'raise' or 'continue'"):
        node.fit(on_error="ignore")


COUNTS = {  # the settings that are ints of 0 or more: (executor, what the message says 0 does)
    "mmap_bytes": (ww.ProcessExecutor, r"maps every array"),
    "retries": (ww.DaskExecutor, r"the default: a fit that raises fails its machine at once"),
    "scatter_bytes": (ww.DaskExecutor, r"scatters every array or table"),
}


@pytest.mark.parametrize("setting", sorted(COUNTS))
def test_count_settings_are_checked_when_the_executor_is_made_and_when_set(setting):
    """A negative, a bool, a float or a str for mmap_bytes, retries or scatter_bytes went unchecked until a fit
    compared it (or Dask refused it deep inside the pass)."""
    kind, zero = COUNTS[setting]
    expected = rf"Expected {setting} to be an int of 0 or more \(.*\)\. Received: "
    with pytest.raises(ww.ParameterError, match=rf"{expected}-1\. Give 0 \({zero}\) or more\.$") as info:
        kind(**{setting: -1})
    assert isinstance(info.value, ValueError)
    for wrong, shown in ((True, r"bool True\.$"), (2.5, r"float 2\.5\.$"), (1e6, r"float 1000000\.0\. Give int\(1000000\.0\)\.$"),
                         ("10", r"str '10'\.$"), (None, r"NoneType None\.$")):
        with pytest.raises(ww.ArgumentError, match=expected + shown) as info:
            kind(**{setting: wrong})
        assert isinstance(info.value, TypeError)
    made = kind(**{setting: np.int64(3)})  # a numpy integer is an int
    assert getattr(made, setting) == 3 and type(getattr(made, setting)) is int
    with pytest.raises(ww.ParameterError, match=rf"{expected}-2\."):
        setattr(made, setting, -2)  # set later: checked as well
    assert getattr(made, setting) == 3 and getattr(kind(**{setting: 0}), setting) == 0


def test_the_client_and_address_of_a_dask_executor_are_checked_when_it_is_made():
    with pytest.raises(ww.ArgumentError, match=r"Expected client to be a distributed.Client or None. Received: str "
                       r"'tcp://host:8786'\. To connect to a scheduler at that address, give it by name: "
                       r"DaskExecutor\(address='tcp://host:8786'\)\.$"):
        ww.DaskExecutor("tcp://host:8786")  # the address where the client goes
    for wrong, shown in ((8786, "int 8786"), (True, "bool True"), (object(), "object <object object")):
        with pytest.raises(ww.ArgumentError, match=rf"Expected client to be a distributed.Client or None. Received: "
                           rf"{shown}.*Give a client \(distributed.Client\(...\)\), a scheduler's address="):
            ww.DaskExecutor(wrong)
    with pytest.raises(ww.ArgumentError, match=r"Expected address to be a Dask scheduler's address \(a str such as "
                       r"'tcp://host:8786'\) or None. Received: int 8786\.$") as info:
        ww.DaskExecutor(address=8786)
    assert isinstance(info.value, TypeError)
    with pytest.raises(ww.ParameterError, match=r"Received an empty str. Give the address, or None") as info:
        ww.DaskExecutor(address=" ")
    assert isinstance(info.value, ValueError)

    class Client:  # what the executor uses of a client
        def submit(self): ...
        def scatter(self): ...

    with pytest.raises(ww.ParameterError, match=r"Expected a client or an address, not both. Received: client=.* and "
                       r"address='tcp://host:8786'. Give the client alone"):
        ww.DaskExecutor(Client(), address="tcp://host:8786")
    assert ww.DaskExecutor(address="tcp://host:8786").address == "tcp://host:8786"  # nothing connects yet


def test_an_executor_pickled_before_its_settings_were_checked_reads_them():
    old = ww.ProcessExecutor(2)
    state = dict(old.__dict__)
    state["mmap_bytes"] = state.pop("_mmap_bytes")  # as ProcessExecutor.__init__ kept it before
    restored = object.__new__(ww.ProcessExecutor)
    restored.__dict__.update(state)
    assert restored.mmap_bytes == 1_000_000


def test_n_jobs_may_be_a_numpy_integer():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    fit = ww.machine(Ridge(), X, y, name="ridge")
    fit.predict(X).fit(executor="threads", n_jobs=np.int64(2))
    assert fit.report()["action"] == "trained"


def test_processes_map_large_shared_data_once(monkeypatch):
    import os
    import tempfile

    from wirework.execution import executors

    folders = []  # each pass's folder of mapped files
    real = tempfile.TemporaryDirectory
    made = lambda **options: folders.append(real(**options)) or folders[-1]  # noqa: E731
    monkeypatch.setattr(executors.tempfile, "TemporaryDirectory", made)
    executor = ww.ProcessExecutor(2, mmap_bytes=10_000)
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0, 3.0)])
    yhat.fit(executor=executor)
    assert executor.mapped == 1  # X (19 KB) written once for the three fits; y (2.4 KB) travels with each job
    expected = np.mean([Ridge(alpha=a).fit(X_DATA, Y_DATA).predict(X_DATA) for a in (1.0, 2.0, 3.0)], axis=0)
    assert np.array_equal(yhat(), expected)
    assert len(folders) == 1 and not os.path.exists(folders[0].name)  # the files are gone after the pass


# -- models that write into their input: the values the network keeps stay whole, copied once -----------------


X_SHIFTED = X_DATA + 3.0  # columns whose means are far from 0: centring them in place shows


def svd_output():
    return TruncatedSVD(3, random_state=0).fit_transform(X_SHIFTED)


def in_place_network():
    """Ridge(copy_X=False) centres its X in place as it fits: on a TruncatedSVD's output (kept by the SVD's
    machine, which trains by its own fit_transform to give it), and on a source's data."""
    X, y = ww.source(X_SHIFTED.copy(), name="X"), ww.source(Y_DATA, name="y")
    svd = ww.machine(TruncatedSVD(3, random_state=0), X, name="svd")
    Z = svd.transform(X)
    on_kept = ww.machine(Ridge(copy_X=False), Z, y, name="on_kept")
    on_source = ww.machine(Ridge(copy_X=False), X, y, name="on_source")
    return ww.mean(on_kept.predict(Z), on_source.predict(X)), X, svd, on_kept, on_source


def in_place_executor(kind, request):
    if kind == "dask":
        return ww.DaskExecutor(request.getfixturevalue("dask_client"))
    if kind == "processes, mapped":  # values of 1 KB or more go through a read-only memory map
        return ww.ProcessExecutor(2, mmap_bytes=1000)
    return {"processes": ww.ProcessExecutor(2), "threads": ww.ThreadExecutor(2)}.get(kind, kind)


@pytest.mark.parametrize("kind", ["sequential", "threads", "processes", "processes, mapped", "dask"])
def test_the_values_a_network_keeps_stay_whole_when_a_model_writes_in_place(kind, request):
    executor = in_place_executor(kind, request)
    yhat, X, svd, on_kept, on_source = in_place_network()
    yhat.fit(executor=executor, verbose=0)
    Z_expected = svd_output()
    np.testing.assert_allclose(svd._output[1], Z_expected, rtol=1e-9)  # not centred where it is kept
    np.testing.assert_array_equal(X.data, X_SHIFTED)  # nor the source's data
    on_kept.model.alpha = 2.0  # condition 6: trains again, on the output kept
    yhat.fit(executor=executor, verbose=0)
    assert svd.report()["action"] == "skipped" and on_kept.report()["action"] == "updated"
    np.testing.assert_allclose(on_kept.fitted_model.coef_, Ridge(alpha=2.0).fit(Z_expected, Y_DATA).coef_, rtol=1e-9)
    np.testing.assert_allclose(on_source.fitted_model.coef_, Ridge().fit(X_SHIFTED, Y_DATA).coef_, rtol=1e-9)
    np.testing.assert_allclose(svd._output[1], Z_expected, rtol=1e-9)
    np.testing.assert_array_equal(X.data, X_SHIFTED)


@pytest.mark.parametrize("kind", ["sequential", "threads", "processes", "processes in a joblib worker", "dask"])
def test_a_model_that_writes_in_place_gets_one_copy_of_its_values(kind, request, monkeypatch):
    """Worker processes fit on values unpickled from the job, a copy already: the copy made before pickling was a
    second one (and, for a large value, a second file to map); so do Dask's worker processes (here: those of
    dask_client; workers in this process, see test_dask). Threads (a process executor inside a joblib worker
    fits in threads) still get copies."""
    from wirework.execution import executors
    from wirework.graph import _retraining

    if kind == "processes in a joblib worker":
        monkeypatch.setattr(executors, "_nested_instead", lambda workers: ww.ThreadExecutor(workers))
    made = []
    real = _retraining.copied
    monkeypatch.setattr(_retraining, "copied", lambda value: made.append(value) or real(value))
    executor = in_place_executor(kind.partition(" ")[0], request)
    yhat, X, svd, on_kept, on_source = in_place_network()
    yhat.fit(executor=executor, verbose=0)
    # X and y of each Ridge: copied here, or only by pickling the job
    assert len(made) == (0 if kind in ("processes", "dask") else 4)
    np.testing.assert_allclose(svd._output[1], svd_output(), rtol=1e-9)
    np.testing.assert_array_equal(X.data, X_SHIFTED)
    if kind == "processes":
        mapped = ww.ProcessExecutor(2, mmap_bytes=10_000)  # X (19 KB): one file for the SVD and on_source
        in_place_network()[0].fit(executor=mapped, verbose=0)
        assert mapped.mapped == 1  # the SVD's output (7 KB) travels with its job; a copy of X made a second file


def test_processes_refuse_a_program_read_from_standard_input_before_training():
    import subprocess
    import sys

    program = (
        "import numpy as np, wirework as ww\n"
        "from sklearn.linear_model import Ridge\n"
        "X, y = np.random.rand(40, 3), np.random.rand(40)\n"
        "stack = ww.Stack([('r', Ridge())], Ridge(), cv=2, executor='processes', n_jobs=2)\n"
        "try:\n"
        "    stack.fit(X, y)\n"
        "except ww.ParameterError as error:\n"
        "    print('refused:', error)\n"
        "    print('states:', sorted({m.state for m in stack.machines_}))\n"
    )
    done = subprocess.run([sys.executable, "-"], input=program, capture_output=True, text=True, timeout=120)
    assert "refused: executor='processes' cannot start worker processes in this program" in done.stdout, done.stderr
    assert "'<stdin>', which is not a file" in done.stdout
    assert "states: [0]" in done.stdout  # refused before any machine trained


def test_processes_inside_joblib_worker_processes():
    """cross_val_score(n_jobs=2) fits each clone in a loky worker, where no process pool can start (its
    children cannot find the 'loky' start method): the composite fits in threads there, as joblib's nested loops do."""
    from sklearn.model_selection import cross_val_score

    X, y = X_DATA[:120], Y_DATA[:120]

    def scores(executor):
        model = ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(3), executor=executor, n_jobs=2)
        return cross_val_score(model, X, y, cv=2, n_jobs=2, error_score="raise")

    assert np.array_equal(scores("processes"), scores("sequential"))


def test_processes_inside_worker_processes_of_their_own_fit_in_threads():
    """A composite with executor='processes' fitted as a machine in a worker process started a pool of its own
    there: 2 x 2 worker processes (and 2 forkservers) on 2 cores, 12.8 s where threads take 6.6 s."""
    inner = ww.Pipeline([("probe", ThreadProbe())], executor="processes", n_jobs=2)
    model = ww.Stack([("inner", inner), ("ridge", Ridge())], Ridge(), cv=KFold(2), executor=ww.ProcessExecutor(2))
    model.fit(X_DATA[:60], Y_DATA[:60])
    fitted_inner = model.named_estimators_["inner"]
    assert fitted_inner.fitted_params_()["probe"].thread_name_.startswith("ThreadPoolExecutor")  # the worker's threads
    reference = ww.Stack([("inner", ww.Pipeline([("probe", ThreadProbe())])), ("ridge", Ridge())], Ridge(), cv=KFold(2))
    assert np.array_equal(model.predict(X_DATA[:60]), reference.fit(X_DATA[:60], Y_DATA[:60]).predict(X_DATA[:60]))


def test_a_dead_worker_process_fails_its_machine_with_a_cause_and_a_remedy():
    from concurrent.futures.process import BrokenProcessPool

    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    yhat = ww.machine(Doomed(), X, y, name="doomed").predict(X)
    with pytest.raises(ww.MachineFitError, match="A worker process of executor='processes' died before this fit ended") as caught:
        yhat.fit(executor=ww.ProcessExecutor(1))
    assert "its error is printed on standard error" in str(caught.value) and "executor='threads'" in str(caught.value)
    assert isinstance(caught.value, RuntimeError)  # BrokenProcessPool's builtin class
    assert isinstance(caught.value.__cause__, BrokenProcessPool)
    assert isinstance(caught.value.__cause__.__cause__, BrokenProcessPool)  # Python's own error, kept


def waiting_network(sleep=1.0, n=6, log=None):
    """``n`` slow probes (2 fit at once) feeding one judge: the loop waits for the first probe done, not all."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    probes = [ww.machine(ThreadProbe(sleep=sleep, log=log), X, y, name=f"probe{i}") for i in range(n)]
    judge = ww.machine(Ridge(), ww.hcat(*[m.predict(X) for m in probes]), y, name="judge")
    return judge.predict(ww.hcat(*[m.predict(X) for m in probes])), probes + [judge]


def trained_or_untouched(machines):
    """Each machine either holds a whole new training or is as it was (never trained): nothing half-done."""
    trained = []
    for mach in machines:
        report = mach.report()
        if mach.state == 1:
            assert report["action"] == "trained" and mach.fitted_model is not None and mach._snapshot is not None
            trained.append(mach.name)
        else:
            assert mach.state == 0 and mach._fitted is None and mach._snapshot is None and report["action"] == "none"
    return trained


@pytest.mark.parametrize("kind", ["threads", "processes", "dask"])
def test_an_interrupt_stops_at_once_keeps_what_finished_and_half_trains_nothing(kind, request, tmp_path):
    """A KeyboardInterrupt in the scheduling thread (here from a progress callback, at the first machine done):
    fits not started are cancelled, running ones are not awaited, finished ones are recorded; the next fit
    trains the rest. (Threads waited for every queued fit, then lost them all; queued fits of processes ran.)"""
    executor = ww.DaskExecutor(request.getfixturevalue("dask_client")) if kind == "dask" else kind
    if kind == "dask":
        request.getfixturevalue("dask_client").wait_for_workers(2)
    log = tmp_path / "fits.log"
    root, machines = waiting_network(sleep=0.4, n=10, log=str(log))
    interrupted = []

    def interrupt(event):
        interrupted.append(time.perf_counter())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        root.fit(executor=executor, n_jobs=2, progress=interrupt)
    assert time.perf_counter() - interrupted[0] < 0.5  # 8 more fits of 0.4 s were waiting
    trained = trained_or_untouched(machines)
    time.sleep(1.5)  # what was not cancelled has run by now
    assert len(log.read_text().splitlines()) < 10  # (a process pool sends 3 fits ahead to its 2 workers)
    assert machines[0].name in trained or machines[1].name in trained  # the one whose visit was reported, at least
    assert "judge" not in trained and len(trained) <= 5
    root.fit(executor=executor, n_jobs=2)
    assert sorted(m.name for m in machines if m.report()["action"] == "skipped") == sorted(trained)
    assert all(m.state == 1 for m in machines)


def test_a_keyboard_interrupt_while_threads_fit_stops_at_once():
    """Ctrl-C as a terminal sends it: SIGINT to the main thread, waiting for the pool."""
    import signal
    import threading

    root, machines = waiting_network()
    sent = []
    timer = threading.Timer(
        1.5, lambda: (sent.append(time.perf_counter()), signal.pthread_kill(threading.main_thread().ident, signal.SIGINT))
    )
    # Python's own Ctrl-C handler, as in a terminal: a test run started in the background by a shell without job
    # control inherits SIGINT ignored, and the signal would be lost
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            root.fit(executor="threads", n_jobs=2)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, before)
    assert time.perf_counter() - sent[0] < 0.8
    assert 2 <= len(trained_or_untouched(machines)) <= 3  # the first two fits ended at 1 s; not the judge


CTRL_C_PROGRAM = """
import os, signal, sys, threading, time
import numpy as np, psutil
import wirework as ww
from sklearn.base import BaseEstimator, RegressorMixin
from wirework.execution import _pools


class Slow(RegressorMixin, BaseEstimator):
    def __init__(self, seconds=0.0, log=None):
        self.seconds = seconds
        self.log = log

    def fit(self, X, y):
        with open(self.log, "a") as out:
            out.write("started\\n")
        time.sleep(self.seconds)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def ctrl_c(log, workers, to):
    while len(open(log).read().splitlines()) < 4:  # the quick fits ended, the slow ones run
        time.sleep(0.05)
    time.sleep(1.0)
    workers.extend(_pools._PROCESS_POOLS[2]._processes)
    if to == "group":
        os.killpg(os.getpgid(0), signal.SIGINT)  # as a terminal sends Ctrl-C: to the whole group, the workers too
    else:
        os.kill(os.getpid(), signal.SIGINT)  # as kill -INT sends it: to this process alone


if __name__ == "__main__":
    # Python's Ctrl-C handler even when started with SIGINT ignored (by a shell without job control, in the
    # background): a program run from a terminal has it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    log, cache, to = sys.argv[1], ww.FitCache(sys.argv[2]), sys.argv[3]
    X, y = ww.source(np.eye(6), name="X"), ww.source(np.arange(6.0), name="y")
    machines = [ww.machine(Slow(s, log), X, y, name=f"m{s}") for s in (0.0, 0.1, 90.0, 91.0)]
    workers = []
    threading.Thread(target=ctrl_c, args=(log, workers, to), daemon=True).start()
    try:
        ww.mean(*[m.predict(X) for m in machines]).fit(executor=ww.ProcessExecutor(2), cache=cache, verbose=0)
    except KeyboardInterrupt:
        print("interrupted")
    print("states", [m.state for m in machines])
    print("workers", len(workers), "alive", [pid for pid in workers if psutil.pid_exists(pid)])
    again = [ww.machine(Slow(s, log), X, y) for s in (0.0, 0.1)]
    ww.mean(*[m.predict(X) for m in again]).fit(cache=cache, verbose=0)
    print("cached", ["cache" in m.report()["reason"] for m in again], flush=True)
"""


@pytest.mark.parametrize("to", ["group", "parent"])
def test_ctrl_c_while_worker_processes_fit_stops_them_and_prints_nothing_else(tmp_path, to):
    """SIGINT while worker processes fit, to the process group (Ctrl-C on a terminal) or to the parent alone:
    KeyboardInterrupt and nothing else printed (a worker interrupted while starting died with its traceback, the
    pool's thread then printed an InvalidStateError), no worker left running (a fit of 90 s ran on after the
    call, and the program could not exit before it ended); the fits that ended are kept, written whole to the
    disk cache."""
    import subprocess
    import sys

    program = tmp_path / "ctrl_c.py"
    program.write_text(CTRL_C_PROGRAM)
    log, cache = tmp_path / "fits.log", tmp_path / "cache"
    log.write_text("")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(program), str(log), str(cache), to],
        capture_output=True, text=True, timeout=300, start_new_session=True,  # a group of its own to interrupt
    )
    assert time.perf_counter() - started < 80  # not waiting for the 90 s fits
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["interrupted", "states [1, 1, 0, 0]", "workers 2 alive []"], done.stdout
    assert lines[3] == "cached [True, True]"
    assert len(list(cache.rglob("*.pkl"))) == 2 and not list(cache.rglob("*.tmp"))


def test_an_interrupt_while_a_fit_is_stored_loses_nothing(monkeypatch):
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    mach = ww.machine(Ridge(), X, y, name="ridge")

    def interrupted(self, key, fitted, output=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(ww.FitCache, "put", interrupted)
    with pytest.raises(KeyboardInterrupt):
        mach.fit(cache=ww.FitCache())
    assert mach.state == 1 and mach.report()["action"] == "trained"  # the fit finished: it is kept
    monkeypatch.undo()
    assert mach.fit().report()["action"] == "skipped"


@pytest.mark.parametrize("kind", ["processes", "dask"])
def test_a_model_that_cannot_be_pickled_fails_its_machine_saying_what_to_do(kind, request):
    """Dask's own TypeError came out of fit, and the machines that had finished were not recorded."""
    executor = ww.DaskExecutor(request.getfixturevalue("dask_client")) if kind == "dask" else ww.ProcessExecutor(2)
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    good = ww.machine(Ridge(), X, y, name="good")
    connected = ww.machine(Connected(Handle()), X, y, name="connected")
    root = ww.hcat(good.predict(X), connected.predict(X))
    where = "a worker process" if kind == "processes" else "the Dask cluster"
    with pytest.raises(ww.MachineFitError, match=rf"Machine 'connected' \(Connected\) failed to train .*: sending it to "
                       rf"{where} \(pickling the model and its data\) raised TypeError: cannot pickle 'Handle' object.*"
                       r"keep what cannot be pickled out of the model .* or use executor='threads'") as info:
        root.fit(executor=executor)
    assert isinstance(info.value, TypeError) and info.value.machine is connected
    assert "cannot pickle 'Handle' object" in str(info.value.__cause__)
    assert good.state == 1 and connected.report()["action"] == "failed"
    lambdas = ww.machine(FunctionTransformer(lambda x: 2 * x), X, name="lambda").transform(X)
    if kind == "processes":  # pickle cannot send a lambda; Dask's cloudpickle can
        with pytest.raises(ww.MachineFitError, match=r"pickling the model and its data\) raised .*lambda.*define it at "
                           "module level"):
            lambdas.fit(executor=executor)
    else:
        np.testing.assert_array_equal(lambdas.fit(executor=executor)(), 2 * X_DATA)


@pytest.mark.parametrize("kind", ["processes", "dask"])
def test_a_fitted_model_that_cannot_be_pickled_back_fails_its_machine_and_keeps_the_others(kind, request):
    executor = ww.DaskExecutor(request.getfixturevalue("dask_client")) if kind == "dask" else ww.ProcessExecutor(2)
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    machines = [ww.machine(Ridge(alpha=a), X, y, name=f"ridge{a}") for a in (1, 2)]
    locked = ww.machine(KeepsLock(), X, y, name="locked")
    root = ww.hcat(*[m.predict(X) for m in (*machines, locked)])
    back = "sending its fitted model back from the worker process" if kind == "processes" else (
        "bringing its fitted model back from the Dask worker")
    with pytest.raises(ww.MachineFitError, match=rf"Machine 'locked' \(KeepsLock\) failed to train .*: {back} \(pickling "
                       r"it\) raised TypeError: .*cannot pickle '_thread.lock' object.*the fitted model keeps something "
                       r"that cannot be pickled .* use executor='threads'") as info:
        root.fit(executor=executor)
    assert isinstance(info.value, TypeError) and "\n" not in str(info.value)  # no traceback pasted in
    assert [m.state for m in machines] == [1, 1] and locked.state == 0
    np.testing.assert_array_equal(root.fit(executor="threads")()[:, 2], np.full(len(X_DATA), Y_DATA.mean()))


def test_unshipped_pickles_under_the_executors_module_and_comes_back_whole():
    """Unshipped lives in _shipping but keeps the module path its pickles name (workers send it back pickled)."""
    import pickle

    from wirework.execution.executors import Unshipped

    error = Unshipped(TypeError("cannot pickle 'Handle' object"), "sending it", "use executor='threads'")
    data = pickle.dumps(error)
    assert b"wirework.execution.executors" in data and b"_shipping" not in data
    back = pickle.loads(data)
    assert type(back) is Unshipped and (str(back), back.step, back.advice) == (str(error), error.step, error.advice)
    assert str(back.error) == "cannot pickle 'Handle' object"


@pytest.mark.parametrize("kind", ["threads", "processes", "dask"])
def test_lightgbm_fits_in_parallel_are_capped_at_their_share_of_the_cores(kind, request):
    """LightGBM runs n_jobs threads (by default one per physical core) whatever OpenMP's limit: two such fits
    at once on 2 cores ran 2 threads each, 5-20x slower. Its own cap limits it, and is lifted after the pass."""
    from _lightgbm_probe import CappedProbe

    cores = ww.execution.executors.cores()
    if kind == "dask":
        client = request.getfixturevalue("dask_client")
        executor, expected = ww.DaskExecutor(client), max(1, cores // sum(client.nthreads().values()))
    else:
        executor, expected = (ww.ThreadExecutor(cores) if kind == "threads" else ww.ProcessExecutor(cores)), 1
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    machines = [ww.machine(CappedProbe(n_estimators=5, n_jobs=n_jobs, verbose=-1), X, y) for n_jobs in (None, 4)]
    ww.mean(*[m.predict(X) for m in machines]).fit(executor=executor)
    for mach in machines:
        assert mach.fitted_model.max_threads_ == expected and mach.fitted_model.openmp_threads_ <= {expected}
        assert mach.fitted_model.n_jobs == mach.model.n_jobs  # the model's own setting is left as it is
    alone = ww.machine(CappedProbe(n_estimators=5, verbose=-1), X, y).fit()
    assert alone.fitted_model.max_threads_ == -1  # a sequential fit, after the pass: no cap


def test_limits_of_overlapping_passes_are_restored_by_the_last():
    """Two passes on threads at once (nested, or from two threads): the first to end restored the BLAS limits
    while the other still fitted, and the other then left them limited for good."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas():
        return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}

    with threadpool_limits(limits=2, user_api="blas"):  # more than one thread to begin with, whatever the shell set
        before = blas()
        assert before == {2}
        first, second = ww.ThreadExecutor(2).open(), ww.ThreadExecutor(2).open()  # each the executor of a pass
        first.close()
        assert blas() == {1}  # the second pass still fits
        second.close()
        assert blas() == before


@pytest.mark.parametrize("kind", ["sequential", "threads", "processes", None])
def test_n_jobs_values(kind):
    """0 is a ValueError, a float, str or bool a TypeError (even where n_jobs is not used); negative values count
    as joblib's; more workers than cores fit the same, one inner thread each."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    node = ww.machine(Ridge(), X, y).predict(X)
    with pytest.raises(ww.ParameterError, match="Received: 0, which would run no fit") as info:
        node.fit(executor=kind, n_jobs=0)
    assert isinstance(info.value, ValueError)
    for wrong, shown in ((2.0, "float 2.0"), ("2", "str '2'"), (True, "bool True")):
        with pytest.raises(ww.ArgumentError, match=rf"Expected n_jobs to be an int \(-1: all cores, -2: all but one\) "
                           rf"or None. Received: {shown}\.") as info:
            node.fit(executor=kind, n_jobs=wrong)
        assert isinstance(info.value, TypeError)
    cores = ww.execution.executors.cores()
    assert ww.ThreadExecutor(-1).workers == cores and ww.ThreadExecutor(-2).workers == max(1, cores - 1)
    assert ww.ProcessExecutor(-100).workers == 1
    if kind in ("threads", "processes"):
        many = 3 * cores  # more workers than cores: each fit gets one inner thread
        machines = [ww.machine(ThreadProbe(), X, y, name=f"probe{i}") for i in range(3)]
        ww.mean(*[m.predict(X) for m in machines]).fit(executor=kind, n_jobs=many)
        assert all(set(m.fitted_model.threads_.values()) == {1} for m in machines)


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_a_process_started_by_multiprocessing_that_fits_in_worker_processes_ends(method):
    """Such a process waits for its children as it ends, before Python's shutdown of its pools tells the workers
    to stop, and runs no atexit handler: it never ended. A child made by fork submitted its fits to its parent's
    pool (whose threads did not come along: they never ended either), or, given a pool of its own, started its
    workers through the parent's forkserver (ChildProcessError)."""
    import multiprocessing
    import warnings

    import psutil
    from _process_child import fit_in_worker_processes

    fit_in_worker_processes()  # the pool and forkserver of this process, which a forked child inherits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12 warns that fork copies no thread
        child = multiprocessing.get_context(method).Process(target=fit_in_worker_processes)
        child.start()
    child.join(60)
    try:
        assert not child.is_alive() and child.exitcode == 0
    finally:
        if child.is_alive():
            for descendant in psutil.Process(child.pid).children(recursive=True):
                descendant.kill()
            child.kill()


def test_too_many_worker_processes_is_refused_and_pools_of_other_sizes_do_not_pile_up():
    """n_jobs=10**10 processes gave OverflowError from multiprocessing; every n_jobs used kept a pool for good."""
    from wirework.execution.executors import _PROCESS_POOLS

    with pytest.raises(ww.ParameterError, match=r"n_jobs to be at most 32768 worker processes.*Received: 10000000000"):
        ww.ProcessExecutor(10**10)
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    node = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0)])
    for n_jobs in (3, 4, 2):
        node.fit(executor="processes", n_jobs=n_jobs, force=True)
        assert sorted(_PROCESS_POOLS) == [n_jobs]  # the idle pools of other sizes were shut down


def test_the_view_of_thread_pools_is_made_again_only_after_imports():
    """Making threadpoolctl's controller scans every loaded library (~5 ms, paid by each fit on a Dask worker);
    a library loaded since (an import) must still be seen."""
    import importlib
    import sys

    from wirework.execution.limits import thread_pools

    first = thread_pools()
    assert thread_pools() is first
    sys.modules.pop("wave", None)
    importlib.import_module("wave")  # any import may load a library with a thread pool
    assert thread_pools() is not first
