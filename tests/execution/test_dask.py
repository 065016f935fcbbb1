"""Dask specifics: a worker dying mid-fit, data scattered once."""

import asyncio
import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from _probes import Logged, ThreadProbe
from sklearn.datasets import make_regression
from sklearn.linear_model import Ridge

import wirework as ww

X_DATA, Y_DATA = make_regression(n_samples=2000, n_features=10, noise=5.0, random_state=0)


def network():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    slow = [ww.machine(ThreadProbe(sleep=1.5), X, y, name=f"slow{i}") for i in range(2)]
    ridges = [ww.machine(Ridge(alpha=a), X, y, name=f"ridge{a}") for a in (1.0, 2.0)]
    return ww.mean(*[m.predict(X) for m in slow + ridges])


def test_a_worker_killed_mid_fit_has_its_fit_retried_elsewhere(dask_client):
    dask_client.wait_for_workers(2)
    expected = network().fit()()
    pids = list(dask_client.run(os.getpid).values())
    killer = threading.Timer(0.7, os.kill, args=(pids[0], signal.SIGKILL))
    yhat = network()
    killer.start()
    started = time.perf_counter()
    yhat.fit(executor=ww.DaskExecutor(dask_client))
    killer.join()
    assert time.perf_counter() - started >= 1.5
    assert np.array_equal(yhat(), expected)
    assert all(m.state == 1 for m in yhat.machines())
    assert pids[0] not in dask_client.run(os.getpid).values()  # that worker did die
    dask_client.wait_for_workers(2)


def test_a_fit_that_raises_runs_once_and_a_fit_whose_worker_dies_runs_again(dask_client, tmp_path):
    """Dask re-ran a fit that raised (retries=2): three fits for one error, side effects repeated. A fit's
    error is deterministic; a lost worker is not, and Dask still reschedules its fit."""
    dask_client.wait_for_workers(2)
    X_small, y_small = X_DATA[:50], Y_DATA[:50]
    failing = ww.machine(Logged(log=str(tmp_path / "failing.log"), fail=True), X_small, y_small)
    with pytest.raises(ww.MachineFitError, match="Logged was told to fail") as info:
        failing.fit(executor=ww.DaskExecutor(dask_client), verbose=0)
    assert isinstance(info.value, ValueError)
    assert (tmp_path / "failing.log").read_text() == "fit\n"
    dying = ww.machine(Logged(log=str(tmp_path / "dying.log"), die_once=True), X_small, y_small)
    dying.fit(executor=ww.DaskExecutor(dask_client), verbose=0)
    assert (tmp_path / "dying.log").read_text() == "fit\n" * 2 and dying.state == 1
    dask_client.wait_for_workers(2)


@pytest.mark.parametrize("kind", ["array", "frame"])
def test_large_training_data_is_scattered_once(dask_client, kind):
    # a DataFrame and a Series have no nbytes: they were never scattered, but sent with every fit
    executor = ww.DaskExecutor(dask_client, scatter_bytes=10_000)
    data = (X_DATA, Y_DATA) if kind == "array" else (pd.DataFrame(X_DATA), pd.Series(Y_DATA))
    X, y = ww.source(data[0], name="X"), ww.source(data[1], name="y")
    yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0, 3.0, 4.0)])
    yhat.fit(executor=executor)
    assert executor.scatters == 2  # X and y, shared by the four fits
    assert np.allclose(yhat(), np.mean([Ridge(alpha=a).fit(X_DATA, Y_DATA).predict(X_DATA) for a in (1, 2, 3, 4)], axis=0))


class _Future:
    """A Dask future as ``DaskExecutor.outcomes`` sees it: a status, and ``result()`` waiting for the outcome."""

    def __init__(self, status, result=None, error=None):
        self.status = status
        self._result = result
        self._error = error

    def result(self):
        if self._error is not None:
            raise self._error
        return self._result

    def exception(self):  # as Dask's: only an "error" future has one
        return self._error if self.status == "error" else None


def test_futures_lost_or_cancelled_give_their_result_or_an_error():
    """A "lost" future (its worker died after the fit, with the result) is computed again by Dask: awaited."""
    lost = _Future("lost", result=("fitted", None, 0.5))
    killed = _Future("error", error=RuntimeError("KilledWorker: all those workers died"))
    cancelled = _Future("cancelled", error=asyncio.CancelledError("cancelled by the scheduler"))
    (result, none), (nothing, error), (_, stopped) = ww.DaskExecutor().outcomes([lost, killed, cancelled])
    assert result == ("fitted", None, 0.5) and none is None
    assert nothing is None and str(error) == "KilledWorker: all those workers died"
    assert isinstance(stopped, asyncio.CancelledError)


def test_a_dask_executor_without_a_cluster_says_so_and_its_repr_does_not_connect(monkeypatch):
    # distributed's own ValueError came out of fit and even of repr(); an unreachable address blocked repr 30 s
    import dask
    import distributed

    def no_client():
        raise ValueError("No global client found and no address provided")

    monkeypatch.setattr(distributed, "get_client", no_client)
    X_small, y_small = X_DATA[:30], Y_DATA[:30]
    alone = ww.DaskExecutor()
    assert repr(alone) == "DaskExecutor()"
    with pytest.raises(ww.ParameterError, match=r"DaskExecutor\(\) found no Dask client: .* Start one first"):
        ww.machine(Ridge(), X_small, y_small).fit(executor=alone, verbose=0)
    far = ww.DaskExecutor(address="tcp://127.0.0.1:1")
    started = time.perf_counter()
    assert repr(ww.Stack([("r", Ridge())], Ridge(), executor=far)).count("DaskExecutor(address='tcp://127.0.0.1:1')") == 1
    assert time.perf_counter() - started < 1.0
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ww.ClusterError, match=r"address='tcp://127.0.0.1:1'\) could not reach a Dask scheduler") as info:
            ww.machine(Ridge(), X_small, y_small).fit(executor=far, verbose=0)
    assert isinstance(info.value, OSError) and info.value.__cause__ is not None


def test_passes_in_a_row_scattering_the_same_data_keep_it(dask_client, monkeypatch):
    """Scattered under its hash, data the last pass had scattered was still being released under that key when the
    next pass scattered it again: Dask cancelled the fits that needed it ('lost dependencies'), in 25 to 81 of 100
    passes in a row. Here the client's messages to the scheduler (a release among them) wait 0.3 s to be sent, as on
    a busy network, and a scatter does not: the next pass's scatter always came first."""
    monkeypatch.setattr(dask_client.scheduler_comm, "interval", 0.3)
    executor = ww.DaskExecutor(dask_client, scatter_bytes=0)
    X, y = ww.source(X_DATA[:60], name="X"), ww.source(Y_DATA[:60], name="y")
    root = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0, 3.0)])
    expected = root.fit(verbose=0)()
    for _ in range(5):
        assert np.array_equal(root.fit(executor=executor, force=True, verbose=0)(), expected)
    assert executor.scatters == 2  # X and y, in each pass


def test_a_cancelled_fit_fails_its_machine_and_the_others_are_kept(dask_client, monkeypatch):
    """Dask's wait raises FuturesCancelledError once every future is done if any was cancelled (by another client,
    a restart, lost data): it came out of fit as it was, and the fits that had finished were not recorded."""
    real = ww.DaskExecutor.submit

    def submit_then_cancel(self, model, values, how):
        future = real(self, model, values, how)
        if isinstance(model, ThreadProbe):
            self._client().cancel([future])
        return future

    monkeypatch.setattr(ww.DaskExecutor, "submit", submit_then_cancel)
    X, y = ww.source(X_DATA[:60], name="X"), ww.source(Y_DATA[:60], name="y")
    probe, ridge = ww.machine(ThreadProbe(sleep=1.0), X, y, name="probe"), ww.machine(Ridge(), X, y, name="ridge")
    root = ww.mean(probe.predict(X), ridge.predict(X))  # nothing waits on either: one wait for both
    with pytest.raises(ww.MachineFitError, match=r"Machine 'probe' \(ThreadProbe\) failed to train .*: "
                       r"FutureCancelledError: fit_on_worker-.* cancelled") as info:
        root.fit(executor=ww.DaskExecutor(dask_client), verbose=0)
    assert info.value.machine is probe and probe.report()["action"] == "failed"
    assert ridge.state == 1 and ridge.report()["action"] == "trained"
    monkeypatch.undo()
    root.fit(executor=ww.DaskExecutor(dask_client), verbose=0)
    assert (probe.state, ridge.report()["action"]) == (1, "skipped")


def _forget_client(address):
    """Close the client this process connected to ``address`` for a DaskExecutor, if any (before the cluster ends)."""
    from wirework.execution import _dask

    client = _dask._CONNECTED.pop(address, None)
    if client is not None:
        client.close()


def test_executors_given_one_address_share_one_client(dask_client):
    """Each DaskExecutor(address=...) connected a client of its own and kept it open: ten executors, ten clients
    (and eleven threads) more."""
    address = dask_client.scheduler.address

    def clients():
        return len(dask_client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.clients)))

    before = clients()
    try:
        for alpha in (1.0, 2.0, 3.0):
            mach = ww.machine(Ridge(alpha=alpha), X_DATA[:30], Y_DATA[:30])
            mach.fit(executor=ww.DaskExecutor(address=address), verbose=0)
            assert mach.state == 1
        assert clients() == before + 1
    finally:
        _forget_client(address)


def test_a_dask_executor_given_a_client_pickles_as_its_scheduler_address(dask_client):
    """A client cannot be pickled (cannot pickle '_asyncio.Task' object): neither could a composite holding
    DaskExecutor(client), and cross_val_score(composite, n_jobs=2) failed with joblib's PicklingError."""
    import pickle

    from sklearn.model_selection import KFold, cross_val_score

    address = dask_client.scheduler.address
    executor = ww.DaskExecutor(dask_client, scatter_bytes=0)
    back = pickle.loads(pickle.dumps(executor))
    assert (back.client, back.address, back.scatter_bytes) == (None, address, 0)
    assert executor.client is dask_client  # the executor itself keeps its client
    X, y = X_DATA[:80], Y_DATA[:80]
    try:
        mach = ww.machine(Ridge(), X, y)
        mach.fit(executor=back, verbose=0)
        assert back.scatters == 2 and np.array_equal(mach.fitted_model.coef_, Ridge().fit(X, y).coef_)
    finally:
        _forget_client(address)

    def stack(**options):
        return ww.Stack([("ridge", Ridge())], Ridge(), cv=KFold(2), **options)

    scores = cross_val_score(stack(executor=executor), X, y, cv=2, n_jobs=2, error_score="raise")
    assert np.array_equal(scores, cross_val_score(stack(), X, y, cv=2))


@pytest.mark.parametrize("inner", ["client", "default"])
def test_a_composite_on_dask_fitted_in_a_dask_task_fits_in_the_task(dask_client, inner):
    """Each of two Pipelines on Dask, fitted as machines of a Stack on Dask (one per worker thread), submitted its
    fits to the cluster and held its thread while it waited: no thread was left to run them, and the Stack's fit
    never ended."""
    from sklearn.model_selection import KFold

    dask_client.wait_for_workers(2)
    X, y = X_DATA[:60], Y_DATA[:60]

    def stack(**options):
        pipelines = [(f"p{a}", ww.Pipeline([("ridge", Ridge(alpha=a))], **options)) for a in (1.0, 2.0)]
        return ww.Stack(pipelines, Ridge(), cv=KFold(2), **options)

    model = stack(executor=ww.DaskExecutor(dask_client) if inner == "client" else ww.DaskExecutor())
    fitting = threading.Thread(target=model.fit, args=(X, y), daemon=True)
    fitting.start()
    fitting.join(30)
    if fitting.is_alive():
        dask_client.restart()  # the worker threads are held: free them for the other tests
        pytest.fail("the Stack's fit did not end within 30 s")
    assert np.array_equal(model.predict(X), stack().fit(X, y).predict(X))


@pytest.mark.parametrize("processes", [True, False])
def test_a_model_that_writes_in_place_gets_its_values_copied_once(processes, monkeypatch):
    """Workers in other processes get each value by serialization, a copy: the copy made before sending was a
    second one. A scattered value is one object in a worker's memory, shared by its fits: there a model that
    writes in place copies it. Workers of this process (processes=False: inproc) share the very objects: the
    values are copied before they are sent."""
    import distributed

    from wirework.graph import _retraining

    made = []
    real = _retraining.copied
    monkeypatch.setattr(_retraining, "copied", lambda value: made.append(value) or real(value))
    shifted = X_DATA + 3.0  # Ridge(copy_X=False) centres its X in place: columns far from 0 show it
    X, y = ww.source(shifted.copy(), name="X"), ww.source(Y_DATA, name="y")
    writers = [ww.machine(Ridge(alpha=a, copy_X=False), X, y, name=f"writer{a}") for a in (1.0, 2.0)]
    reader = ww.machine(Ridge(alpha=3.0), X, y, name="reader")
    yhat = ww.mean(*[m.predict(X) for m in [*writers, reader]])
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=processes, dashboard_address=":0", silence_logs=40
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        executor = ww.DaskExecutor(client, scatter_bytes=0)  # X and y scattered: shared by the three fits
        yhat.fit(executor=executor, verbose=0)
        assert executor.scatters == (2 if processes else 6)  # X and y; or a copy of both for each writer too
    assert len(made) == (0 if processes else 4)  # X and y of each writer, copied here
    for mach, alpha in zip([*writers, reader], (1.0, 2.0, 3.0)):
        expected = Ridge(alpha=alpha).fit(shifted, Y_DATA)
        np.testing.assert_allclose(mach.fitted_model.coef_, expected.coef_, rtol=1e-9)
        np.testing.assert_allclose(mach.fitted_model.intercept_, expected.intercept_, rtol=1e-9)
    np.testing.assert_array_equal(X.data, shifted)
