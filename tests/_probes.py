"""Models for execution tests: importable by worker processes (they live on sys.path)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from threadpoolctl import threadpool_info


class ThreadProbe(RegressorMixin, BaseEstimator):
    """Records, while fitting, the BLAS / OpenMP threads threadpoolctl reports and the name of the thread it fits
    in; ``log``: a file each fit adds a line to as it starts (from any process)."""

    def __init__(self, sleep: float = 0.0, log: str | None = None) -> None:
        self.sleep = sleep
        self.log = log

    def fit(self, X: Any, y: Any) -> ThreadProbe:
        if self.log is not None:
            with open(self.log, "a") as out:
                out.write("fit\n")
        time.sleep(self.sleep)
        self.threads_ = {info["user_api"]: info["num_threads"] for info in threadpool_info()}
        self.thread_name_ = threading.current_thread().name
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.mean_)


class Fragile(RegressorMixin, BaseEstimator):
    """Fails to fit (after ``sleep`` seconds) while ``fail`` is true (a hyperparameter to fix)."""

    def __init__(self, fail: bool = False, sleep: float = 0.0) -> None:
        self.fail = fail
        self.sleep = sleep

    def fit(self, X: Any, y: Any) -> Fragile:
        time.sleep(self.sleep)
        if self.fail:
            raise ValueError("Fragile was told to fail")
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.mean_)


class Doomed(RegressorMixin, BaseEstimator):
    """Ends the process it fits in at once, as a worker killed for memory would end."""

    def fit(self, X: Any, y: Any) -> Doomed:
        os._exit(1)

    def predict(self, X: Any) -> Any:
        return np.zeros(len(X))


class Brittle(RegressorMixin, BaseEstimator):
    """Fits; its ``predict`` raises ``KeyError`` while ``broken`` is true (a hyperparameter to fix)."""

    def __init__(self, broken: bool = False) -> None:
        self.broken = broken

    def fit(self, X: Any, y: Any) -> Brittle:
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        if self.broken:
            raise KeyError("Brittle was told to break")
        return np.full(len(X), self.mean_)


class CrossFitted(BaseEstimator):
    """A transformer whose ``fit_transform`` gives the training rows another value than ``transform``
    (``transform(X) + 1000``), as a cross-fitting encoder does; ``calls`` logs its real calls (in this process)."""

    calls: list[str] = []

    def __init__(self, shift: float = 0.0) -> None:
        self.shift = shift

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> CrossFitted:
        CrossFitted.calls.append("fit")
        self.mean_ = np.average(np.asarray(X, dtype=float), axis=0, weights=sample_weight)
        return self

    def transform(self, X: Any) -> Any:
        CrossFitted.calls.append("transform")
        return np.asarray(X, dtype=float) - self.mean_ + self.shift

    def fit_transform(self, X: Any, y: Any = None) -> Any:
        CrossFitted.calls.append("fit_transform")
        self.fit(X, y)
        CrossFitted.calls.pop()  # one call: fit_transform
        return np.asarray(X, dtype=float) - self.mean_ + self.shift + 1000.0


class Handle:
    """Something a model may hold that copies (as itself) but cannot be pickled: a connection, a device."""

    def __deepcopy__(self, memo: dict) -> Handle:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("cannot pickle 'Handle' object")


class Connected(RegressorMixin, BaseEstimator):
    """Holds a ``handle`` that cannot be pickled, so it cannot be sent to a worker process."""

    def __init__(self, handle: Any = None) -> None:
        self.handle = handle

    def fit(self, X: Any, y: Any) -> Connected:
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.mean_)


class KeepsLock(RegressorMixin, BaseEstimator):
    """Its fit makes a lock, so the fitted model cannot be pickled back from a worker process."""

    def fit(self, X: Any, y: Any) -> KeepsLock:
        import threading

        self.lock_ = threading.Lock()
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.mean_)


class JoblibProbe(RegressorMixin, BaseEstimator):
    """Records, while fitting, what joblib gives a parallel loop of ``n_jobs`` (as scikit-learn's models ask:
    ``-1`` for all cores): ``effective_`` (``joblib.effective_n_jobs``), ``backend_`` (the active backend's
    class) and ``threads_`` (the threads a loop of 8 short tasks ran in)."""

    def __init__(self, n_jobs: int | None = -1) -> None:
        self.n_jobs = n_jobs

    def fit(self, X: Any, y: Any) -> JoblibProbe:
        import threading

        import joblib
        from sklearn.utils.parallel import Parallel, delayed

        def task() -> int:
            time.sleep(0.02)
            return threading.get_ident()

        self.effective_ = joblib.effective_n_jobs(self.n_jobs)
        self.backend_ = type(joblib.parallel.get_active_backend()[0]).__name__
        self.threads_ = len(set(Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(task)() for _ in range(8))))
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.mean_)


class Logged(RegressorMixin, BaseEstimator):
    """Adds a line to the file ``log`` each time its fit starts (from any process), then raises ``ValueError``
    when ``fail`` is true, or ends its process at once (as a worker killed for memory) on the first fit logged
    when ``die_once`` is true."""

    def __init__(self, log: str = "", fail: bool = False, die_once: bool = False) -> None:
        self.log = log
        self.fail = fail
        self.die_once = die_once

    def fit(self, X: Any, y: Any) -> Logged:
        with open(self.log, "a") as out:
            out.write("fit\n")
        if self.fail:
            raise ValueError("Logged was told to fail")
        with open(self.log) as log:
            if self.die_once and log.read().count("fit") == 1:
                os._exit(1)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.mean_)


class ColumnRidge(RegressorMixin, BaseEstimator):
    """A Ridge whose predictions come as one column, ``(n, 1)``, even for a 1-D target, as some wrapped models
    (a Keras regressor, say) give them. It learns several targets, as a Ridge does."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: Any, y: Any) -> ColumnRidge:
        from sklearn.linear_model import Ridge

        self.ridge_ = Ridge().fit(X, y)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self.ridge_.predict(X).reshape(len(X), -1)
