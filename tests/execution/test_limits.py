"""Threads inside parallel fits: joblib's loops capped at each fit's share of the cores."""

import threading

import joblib
import numpy as np
import pytest
from _probes import JoblibProbe
from sklearn.datasets import make_regression
from sklearn.ensemble import RandomForestRegressor

import wirework as ww
from wirework.execution.limits import cores, joblib_level, joblib_limited

X_DATA, Y_DATA = make_regression(n_samples=200, n_features=5, noise=5.0, random_state=0)


def outside():
    """What joblib gives a loop of n_jobs=-1 in this thread: the number of workers and the backend."""
    return joblib.effective_n_jobs(-1), type(joblib.parallel.get_active_backend()[0]).__name__


def probes(executor, n_jobs=-1):
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    machines = [ww.machine(JoblibProbe(n_jobs=n_jobs), X, y, name=f"probe{i}") for i in range(2)]
    ww.mean(*[m.predict(X) for m in machines]).fit(executor=executor, verbose=0)
    return [m.fitted_model for m in machines]


@pytest.mark.parametrize("kind", ["threads", "processes", "dask"])
def test_joblib_loops_inside_parallel_fits_are_capped_at_their_share_of_the_cores(kind, request):
    """A RandomForestRegressor(n_jobs=-1) in each of 2 workers on 2 cores ran 2 threads each: joblib's
    parallel_config(n_jobs=...) is only a default for loops without n_jobs, so the cap is the backend's."""
    before = outside()
    if kind == "dask":
        client = request.getfixturevalue("dask_client")
        executor, expected = ww.DaskExecutor(client), max(1, cores() // sum(client.nthreads().values()))
    else:
        executor, expected = (ww.ThreadExecutor(cores()) if kind == "threads" else ww.ProcessExecutor(cores())), 1
    for fitted in probes(executor):
        assert fitted.effective_ == expected and fitted.threads_ <= expected
        assert fitted.n_jobs == -1  # the model's own setting is left as it is
        assert fitted.backend_ == "CappedThreads"
    for fitted in probes(executor, n_jobs=None):  # None asks for one worker: never raised to the share
        assert fitted.effective_ == 1 and fitted.threads_ == 1
    assert outside() == before  # nothing changed in this thread
    alone = ww.machine(JoblibProbe(), X_DATA, Y_DATA).fit(verbose=0).fitted_model  # a sequential fit: no cap
    assert (alone.effective_, alone.backend_) == before


def test_the_joblib_cap_is_undone_when_the_fit_ends_and_lives_in_its_thread_only():
    before = outside()
    seen = []
    with joblib_limited(1):
        seen.append(outside())
        other = threading.Thread(target=lambda: seen.append(outside()))
        other.start()
        other.join()
    assert seen == [(1, "CappedThreads"), before] and outside() == before
    with joblib_limited(cores() + 5):  # a cap above the cores is no more than the cores
        assert outside()[0] == before[0]


def test_a_pass_nested_in_a_joblib_worker_runs_the_loops_of_its_fits_one_at_a_time():
    """Inside a joblib worker (level 1: GridSearchCV(composite, n_jobs=2)), the fits of a pass on threads are
    loops nested one level deeper, which joblib runs one at a time."""

    def nested_pass(_):
        return joblib_level(), probes(ww.ThreadExecutor(1))

    for level, fitted in joblib.Parallel(n_jobs=2, backend="threading")(joblib.delayed(nested_pass)(k) for k in range(2)):
        assert level == 1
        assert [(f.effective_, f.threads_) for f in fitted] == [(1, 1), (1, 1)]
    assert joblib_level() == 0


def test_forests_with_n_jobs_minus_one_grow_the_same_trees_in_parallel_fits():
    def grown(**execution):
        X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
        forests = [ww.machine(RandomForestRegressor(n_estimators=20, n_jobs=-1, random_state=k), X, y) for k in range(2)]
        ww.mean(*[m.predict(X) for m in forests]).fit(verbose=0, **execution)
        return [tree.tree_.threshold for m in forests for tree in m.fitted_model.estimators_]

    for capped, alone in zip(grown(executor="threads", n_jobs=2), grown(), strict=True):
        np.testing.assert_array_equal(capped, alone)
