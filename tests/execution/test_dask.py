"""Dask specifics: a worker dying mid-fit, data scattered once."""

import os
import signal
import threading
import time

import numpy as np
from _probes import ThreadProbe
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


def test_large_training_data_is_scattered_once(dask_client):
    executor = ww.DaskExecutor(dask_client, scatter_bytes=10_000)
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0, 3.0, 4.0)])
    yhat.fit(executor=executor)
    assert executor.scatters == 2  # X and y, shared by the four fits
    assert np.allclose(yhat(), np.mean([Ridge(alpha=a).fit(X_DATA, Y_DATA).predict(X_DATA) for a in (1, 2, 3, 4)], axis=0))
