"""Executors: where fits run. Each is a tiny ``submit`` / ``wait_any`` adapter.

Thread rule: when ``n`` fits run at once on a machine with ``c`` cores, each
fit may use ``max(1, c // n)`` inner threads (BLAS, OpenMP, LightGBM,
joblib's parallel loops), so that workers × inner threads ≤ cores (see
:mod:`wirework.execution.limits`).

Here: the sequential, thread and process executors and
:func:`resolve_executor`. The protocol they follow (:class:`Executor`) is in
:mod:`wirework.execution._base`, the Dask executor in
:mod:`wirework.execution._dask`; what travels to and from workers
(:class:`Unshipped`, the job runners a worker process or a Dask worker
calls) is in :mod:`wirework.execution._shipping`; the shared pools of
worker processes are in :mod:`wirework.execution._pools`. All are
re-exported here.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from wirework.errors import ArgumentError, ParameterError
from wirework.execution import _shipping
from wirework.execution._base import Executor
from wirework.execution._dask import DaskExecutor
from wirework.execution._pools import _BROKEN, _POOL_USERS, _POOLS, _PROCESS_POOLS, MAX_PROCESSES, _end_pool, _start_pool
from wirework.execution._pools import _unimportable_main
from wirework.execution._settings import Count, workers as _workers
from wirework.execution._shipping import _PROCESS_ADVICE, Unshipped, _Mapped, fit_on_worker, run_mapped, run_pickled
from wirework.execution.limits import cores, hold_limits, inner_threads, joblib_level, limit_openmp, release_limits, run_capped
from wirework.graph.data import describe
from wirework.graph.jobs import How, run_job

__all__ = ["Executor", "Unshipped", "SequentialExecutor", "ThreadExecutor", "ProcessExecutor", "DaskExecutor", "resolve_executor", "cores"]
__all__ += ["MAX_PROCESSES", "fit_on_worker", "run_mapped", "run_pickled"]  # moved to _shipping and _pools: still here


class _Ran:
    """The future of a fit that already ran in the calling thread: its result or its error."""

    __slots__ = ("_result", "_error")

    def __init__(self, result: Any = None, error: BaseException | None = None) -> None:
        self._result = result
        self._error = error

    def done(self) -> bool:
        return True

    def cancel(self) -> bool:
        return False

    def result(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._result


class SequentialExecutor(Executor):
    """Fits one machine at a time in the calling thread (the default; easiest to debug).

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y = ww.source(np.eye(4), name="X"), ww.source(np.arange(4.0), name="y")
    >>> yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0)])
    >>> yhat.fit(executor=ww.SequentialExecutor(), verbose=0)().round(3)   # as executor="sequential"
    array([0.875, 1.292, 1.708, 2.125])
    """

    name = "sequential"

    def run(self, model: Any, values: list[Any], how: How) -> tuple[Any, BaseException | None]:
        try:
            return run_job(model, values, how), None
        except Exception as error:  # reported by the scheduler, never lost
            return None, error

    def submit(self, model: Any, values: list[Any], how: How) -> _Ran:
        try:
            return _Ran(run_job(model, values, how))
        except BaseException as error:  # reported by the scheduler, never lost
            return _Ran(error=error)

    def wait_any(self, futures: Iterable[Any]) -> list[Any]:
        return list(futures)

    def wait_all(self, futures: list[Any]) -> list[Any]:
        return list(futures)


class ThreadExecutor(Executor):
    """Fits in a pool of threads (models that release the GIL: most of scikit-learn's heavy code).

    Parameters
    ----------
    n_jobs : int, optional
        Threads of the pool (``None`` or -1: one per core; -2: all cores but one, as joblib counts).

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y = ww.source(np.eye(4), name="X"), ww.source(np.arange(4.0), name="y")
    >>> yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0)])
    >>> yhat.fit(executor=ww.ThreadExecutor(n_jobs=2), verbose=0)().round(3)   # as executor="threads"
    array([0.875, 1.292, 1.708, 2.125])
    """

    name = "threads"

    def __init__(self, n_jobs: int | None = None) -> None:
        self.workers = _workers(n_jobs)
        self._fresh()

    def _fresh(self) -> None:
        self._pool: cf.ThreadPoolExecutor | None = None
        self._holding = False  # the process-wide limits, for the pass
        self._joblib = (1, 0)  # the cap of joblib's loops in each fit, and the nesting level of the pass's thread
        self._abandoned = False

    def open(self) -> ThreadExecutor:
        run = self._for_pass()  # a pool of its own: another pass on this executor cannot shut it down
        threads = inner_threads(run.workers)
        # BLAS pools and LightGBM's cap are process-wide: limit them for the pass; OpenMP is per thread: limit it
        # in each worker; joblib's loops per fit, one level below this thread's (read here: it is thread-local).
        hold_limits(threads)
        run._holding = True
        run._joblib = (threads, joblib_level())
        run._pool = cf.ThreadPoolExecutor(run.workers, initializer=limit_openmp, initargs=(threads,))
        return run

    def cancel(self, futures: list[Any]) -> None:
        super().cancel(futures)
        self._abandoned = True  # close() then does not wait for the fits still running

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=not self._abandoned, cancel_futures=True)
            self._pool = None
        if self._holding:
            release_limits()
            self._holding = False

    def submit(self, model: Any, values: list[Any], how: How) -> cf.Future:
        assert self._pool is not None, "open() the executor first"
        return self._pool.submit(run_capped, model, values, how, *self._joblib)


def _nested_instead(workers: int) -> Executor | None:
    """The executor to fit in when this process is a worker of another pool, else ``None``.

    A process pool cannot start in a loky worker (joblib's default backend:
    ``cross_val_score(n_jobs=2)``, ``GridSearchCV(n_jobs=2)``): its start
    method is ``'loky'``, which multiprocessing passes on to the children it
    starts, and they die as they start (``cannot find context for 'loky'``).
    A daemonic process (joblib's ``multiprocessing`` backend, a Dask worker)
    may start no children at all. A worker of this executor's own pools (a
    composite fitted there as a machine of another) would start a pool in
    each worker: processes of processes, more than the cores. There, fits run as joblib runs a parallel
    loop nested in its workers: ``workers`` threads at the first level of
    nesting, one at a time deeper (a loop nested below threads), so the
    cores the outer pool shares out are not oversubscribed.
    """
    if not (
        _shipping._worker_threads is not None  # a worker of ProcessExecutor: a pool in each would oversubscribe
        or multiprocessing.current_process().daemon
        or multiprocessing.get_start_method(allow_none=True) in _LOKY
    ):
        return None
    parallel = sys.modules.get("joblib.parallel")
    level = (parallel.get_active_backend()[0].nesting_level or 1) if parallel is not None else 1
    return ThreadExecutor(workers) if level <= 1 else _SEQUENTIAL


_LOKY = ("loky", "loky_init_main")  # the start methods of loky's worker processes


class ProcessExecutor(Executor):
    """Fits in a pool of worker processes (started once per ``n_jobs`` and reused).

    Workers are started with ``forkserver`` (no fork of a threaded parent)
    and limit their inner threads for good. Numpy training values larger
    than ``mmap_bytes`` are written once per pass to a temporary file that
    every worker maps read-only (as joblib does), so data shared by several
    fits (all rows of X, say) is not pickled again for each; smaller values
    are pickled with their job.

    In a worker process of another pool (a loky worker of joblib, as in
    ``cross_val_score(n_jobs=2)``, or a daemonic process), where no process
    pool can start, fits run in ``n_jobs`` threads instead, as joblib's own
    nested parallel loops do (see :func:`_nested_instead`).

    Parameters
    ----------
    n_jobs : int, optional
        Worker processes (``None`` or -1: one per core; -2: all cores but one, as joblib counts). One pool
        runs per ``n_jobs``; starting one shuts down the idle pools of other sizes.
    mmap_bytes : int, default=1_000_000
        Numpy training values of at least this many bytes are memory-mapped
        from a temporary file instead of pickled with each job.

    Examples
    --------
    A program that fits in worker processes starts its fits under
    ``if __name__ == "__main__":`` (each worker imports its main module).

    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y = ww.source(np.eye(4), name="X"), ww.source(np.arange(4.0), name="y")
    >>> yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0)])
    >>> yhat.fit(executor=ww.ProcessExecutor(n_jobs=2), verbose=0)().round(3)   # as executor="processes"
    array([0.875, 1.292, 1.708, 2.125])
    """

    name = "processes"
    mmap_bytes = Count("bytes from which a numpy value is memory-mapped", "maps every array")

    def __init__(self, n_jobs: int | None = None, *, mmap_bytes: int = 1_000_000) -> None:
        self.workers = _workers(n_jobs)
        if self.workers > MAX_PROCESSES:
            raise ParameterError(
                f"Expected n_jobs to be at most {MAX_PROCESSES} worker processes, more than a system runs at once. "
                f"Received: {n_jobs!r}. Give the number of cores ({cores()}) or fewer: more processes than cores "
                "only share them."
            )
        self.mmap_bytes = mmap_bytes  # checked
        self._fresh()

    def _fresh(self) -> None:
        self._using = False  # this executor counts among the users of its pool (between open and close)
        self._folder: Any = None
        self._mapped: dict[int, tuple[Any, _Mapped]] = {}
        self.mapped = 0  # arrays written during the pass (the executor itself: during the last pass to end)
        self._instead: Executor | None = None  # fits this pass in threads (or one at a time) instead
        self._pool: cf.ProcessPoolExecutor | None = None  # the pool this pass's fits were last sent to

    def _ship(self, value: Any) -> Any:
        import numpy as np

        if type(value) is not np.ndarray or value.dtype.hasobject or value.nbytes < self.mmap_bytes:
            return value
        found = self._mapped.get(id(value))
        if found is None or found[0] is not value:
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(prefix="wirework-")
            path = os.path.join(self._folder.name, f"{len(self._mapped)}.npy")
            np.save(path, value, allow_pickle=False)
            found = (value, _Mapped(path))
            self._mapped[id(value)] = found
            self.mapped += 1
        return found[1]

    def close(self) -> None:
        if self._instead is not None:
            self._instead.close()
            self._instead = None
        if self._using:
            with _POOLS:
                _POOL_USERS[self.workers] -= 1
            self._using = False
        self._mapped.clear()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        if self._owner is not None:
            self._owner.mapped = self.mapped

    def open(self) -> ProcessExecutor:
        run = self._for_pass()  # files of its own: another pass on this executor cannot remove them
        instead = _nested_instead(run.workers)
        run.pickles_values = instead is None  # in threads instead: the values are shared
        if instead is not None:
            run._instead = instead.open()
            return run
        run._join_pool()
        return run

    def _join_pool(self) -> None:
        """Count this pass among the users of the pool of its size, started if there is none."""
        with _POOLS:
            if self.workers not in _PROCESS_POOLS:
                missing = _unimportable_main()
                if missing is not None:
                    raise ParameterError(
                        "executor='processes' cannot start worker processes in this program: each would import its "
                        f"main module from {missing!r}, which is not a file (a program read from standard input, "
                        "python -, say). Run it from a file, or use executor='threads' or a ww.DaskExecutor."
                    )
                _start_pool(self.workers)
            _POOL_USERS[self.workers] = _POOL_USERS.get(self.workers, 0) + 1
            self._using = True

    def submit(self, model: Any, values: list[Any], how: How) -> Any:
        if self._instead is not None:
            return self._instead.submit(model, values, how)
        shipped = [self._ship(v) for v in values]
        try:  # here rather than in the pool's feeder thread, whose errors cannot be told from the fit's
            job = pickle.dumps((model, shipped, how), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            raise Unshipped(error, "sending it to a worker process (pickling the model and its data)", _PROCESS_ADVICE) from None
        pool = self._pool = _PROCESS_POOLS[self.workers]
        try:
            return pool.submit(run_pickled, job)
        except cf.process.BrokenProcessPool:  # a worker died earlier: start a new pool once
            with _POOLS:
                if _PROCESS_POOLS.get(self.workers) is pool:  # not replaced by another pass meanwhile
                    pool.shutdown(wait=False, cancel_futures=True)
                    _start_pool(self.workers)
            pool = self._pool = _PROCESS_POOLS[self.workers]
            return pool.submit(run_pickled, job)

    def cancel(self, futures: list[Any]) -> None:
        """Give up ``futures`` (an interrupted pass): the pool's worker processes, which run them or were sent
        them ahead, are ended and awaited, and the next pass starts a new pool (fits of 30 s ran on for 30 s after
        Ctrl-C, and kept the program from exiting). A pool another pass uses at the moment is left running: there
        the fits not started are cancelled, as threads do."""
        if self._instead is not None:
            self._instead.cancel(futures)
        elif self._pool is None or not _end_pool(self._pool, self.workers):
            super().cancel(futures)

    def wait_any(self, futures: Iterable[Any]) -> list[Any]:
        return (self._instead or super()).wait_any(futures)

    def wait_all(self, futures: list[Any]) -> list[Any]:
        return (self._instead or super()).wait_all(futures)

    def outcomes(self, futures: list[Any]) -> list[tuple[Any, BaseException | None]]:
        """As :meth:`Executor.outcomes`, the results unpickled, with a cause and a remedy added to a broken
        pool's error."""
        if self._instead is not None:
            return self._instead.outcomes(futures)
        results = super().outcomes(futures)
        for k, (result, error) in enumerate(results):
            if isinstance(error, cf.process.BrokenProcessPool):
                explained = cf.process.BrokenProcessPool(_BROKEN)
                explained.__cause__ = error
                results[k] = (None, explained)
            elif error is None:
                try:
                    results[k] = (pickle.loads(result), None)
                except Exception as failure:  # a class the worker had and this process cannot import, say
                    step = "reading the fitted model the worker process sent back (unpickling it)"
                    results[k] = (None, Unshipped(failure, step, "fit it with executor='threads'"))
        return results


_SEQUENTIAL = SequentialExecutor()  # it keeps no state: one serves every pass

_NAMES: dict[str, Callable[[int | None], Executor]] = {
    "sequential": lambda n_jobs: _SEQUENTIAL,
    "threads": ThreadExecutor,
    "processes": ProcessExecutor,
}


def resolve_executor(executor: Any, n_jobs: int | None = None) -> Executor:
    """An :class:`Executor` from a name (``"sequential"``, ``"threads"``, ``"processes"``),
    an executor object, or ``None`` (sequential, or threads when ``n_jobs`` asks for more than one)."""
    if n_jobs is not None:
        _workers(n_jobs)  # checked whatever the executor (the sequential one and an executor object ignore it)
    if isinstance(executor, Executor):
        return executor
    if executor is None:
        executor = "threads" if n_jobs not in (None, 1) else "sequential"
    if isinstance(executor, str) and executor in _NAMES:
        return _NAMES[executor](n_jobs)
    raise ArgumentError(
        f"Expected executor to be one of {sorted(_NAMES)}, an executor (ww.ThreadExecutor, ww.ProcessExecutor, "
        f"ww.DaskExecutor) or None. Received: {describe(executor)}."
    )

