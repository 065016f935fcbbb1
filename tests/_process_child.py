"""What a process started by multiprocessing runs in the execution tests (importable there: tests/ is on sys.path)."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import Ridge

import wirework as ww


def fit_in_worker_processes() -> None:
    """Fit two machines in a pool of one worker process; raise if they do not train."""
    rng = np.random.RandomState(0)
    X, y = ww.source(rng.rand(40, 3), name="X"), ww.source(rng.rand(40), name="y")
    machines = [ww.machine(Ridge(alpha=a), X, y) for a in (1.0, 2.0)]
    ww.mean(*[m.predict(X) for m in machines]).fit(executor=ww.ProcessExecutor(1), verbose=0)
    assert [m.state for m in machines] == [1, 1]
