"""Threads inside parallel fits: each of ``n`` fits running at once on ``c`` cores gets its share, ``max(1, c // n)``.

Nested parallelism on small machines oversubscribes the cores badly (a
gradient boosting with 2 OpenMP threads in each of 2 parallel workers on 2
cores runs 5-20x slower), so a fit run beside others has its inner threads
limited, whatever pool it runs in (threads, worker processes, Dask):

- BLAS and OpenMP by threadpoolctl (BLAS pools are process-wide: held for as
  long as any fit needs them, :func:`hold_limits`);
- LightGBM, which runs its ``n_jobs`` threads whatever OpenMP's limit, by
  its own cap (``LGBM_SetMaxThreads``, :func:`lightgbm_cap`);
- joblib's parallel loops (a ``RandomForestRegressor(n_jobs=-1)``'s trees):
  their ``n_jobs`` is capped at the share by a joblib configuration active
  in the thread of the fit (:func:`joblib_limited`).

The models' own parameters (``n_jobs``) are never changed. A sequential
fit keeps the default thread counts.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from typing import Any

from joblib import parallel_config
from joblib.parallel import ThreadingBackend, get_active_backend
from threadpoolctl import ThreadpoolController, threadpool_limits

from wirework.graph.jobs import How, run_job

__all__ = [
    "cores",
    "inner_threads",
    "fit_limited",
    "run_capped",
    "joblib_limited",
    "joblib_level",
    "CappedThreads",
    "thread_pools",
    "hold_limits",
    "release_limits",
    "lightgbm_cap",
    "limit_openmp",
]


def cores() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def inner_threads(workers: int) -> int:
    """Inner threads (BLAS, OpenMP, LightGBM, joblib's loops) allowed per fit when ``workers`` fits run at once."""
    return max(1, cores() // max(1, workers))


def fit_limited(model: Any, values: list[Any], how: How, threads: int | None) -> tuple[Any, Any, float]:
    """:func:`run_job` with inner threads limited to ``threads`` (``None``: no limit): OpenMP and joblib's loops in
    this thread, BLAS and LightGBM in the process (shared with the fits running beside it, see :func:`hold_limits`)."""
    if threads is None:
        return run_job(model, values, how)
    hold_limits(threads)
    try:
        with thread_pools().limit(limits=threads, user_api="openmp"), joblib_limited(threads):
            return run_job(model, values, how)
    finally:
        release_limits()


_POOLS_SEEN: list[Any] = [None, -1]  # threadpoolctl's controller, and len(sys.modules) when it was made


def thread_pools() -> ThreadpoolController:
    """threadpoolctl's view of the thread pools loaded in this process, made again only when modules were
    imported since (a new library may have come with them): making one scans every loaded library, ~5 ms,
    which each fit on a Dask worker paid."""
    with _LIMITS:
        if _POOLS_SEEN[1] != len(sys.modules):
            _POOLS_SEEN[:] = [ThreadpoolController(), len(sys.modules)]
        return _POOLS_SEEN[0]


_LIMITS = threading.Lock()
_held: list[Any] = []  # the limits' holders: each hold_limits() adds one, release_limits() removes one
_restore: list[Any] = []  # what to restore when the last is released: threadpoolctl's limits, LightGBM's cap


def hold_limits(threads: int) -> None:
    """Limit the process-wide inner threads (BLAS, LightGBM) to ``threads`` until :func:`release_limits`.

    Holders overlap (two passes on threads at once, or the fits of a Dask
    worker running several): the first sets the limits, the last to release
    restores what was there before, so no fit finds them lifted while
    another still runs, nor are they left behind.
    """
    pools = thread_pools()
    with _LIMITS:
        if not _held:
            _restore[:] = [pools.limit(limits=threads, user_api="blas"), lightgbm_cap(threads)]
        _held.append(threads)


def release_limits() -> None:
    """Undo one :func:`hold_limits`; the last restores the limits found by the first."""
    with _LIMITS:
        _held.pop()
        if not _held:
            limits, cap = _restore
            limits.restore_original_limits()
            if cap is not None:
                lightgbm_cap(cap)
            _restore.clear()


def lightgbm_cap(threads: int) -> int | None:
    """Cap the threads of LightGBM's fits in this process (``-1``: no cap) when it is loaded; return the cap
    it had (``None``: not loaded).

    LightGBM runs ``num_threads`` threads (its ``n_jobs``; by default one per
    physical core) whatever OpenMP's limit, so threadpoolctl cannot limit
    it; its own cap (``LGBM_SetMaxThreads``, LightGBM >= 4.0) can.
    """
    library = getattr(sys.modules.get("lightgbm.libpath"), "_LIB", None)
    if library is None or not hasattr(library, "LGBM_SetMaxThreads"):
        return None
    previous = ctypes.c_int(-1)
    library.LGBM_GetMaxThreads(ctypes.byref(previous))
    library.LGBM_SetMaxThreads(ctypes.c_int(threads))
    return previous.value


def limit_openmp(threads: int) -> None:
    """Limit OpenMP to ``threads`` in this thread (the initializer of a thread pool's workers)."""
    threadpool_limits(limits=threads, user_api="openmp")


class CappedThreads(ThreadingBackend):
    """joblib's threading backend, running at most ``cap`` threads whatever ``n_jobs`` a loop asks for.

    ``joblib.parallel_config(n_jobs=...)`` is only a default for loops that
    give no ``n_jobs`` (scikit-learn passes its models' ``n_jobs``, ``-1``
    included, explicitly), so the cap lives in the backend: its
    :meth:`effective_n_jobs` is what ``Parallel`` runs and what scikit-learn
    splits work by (``joblib.effective_n_jobs``). A cap of 1 runs loops one
    batch at a time in the calling thread, as joblib does for ``n_jobs=1``.
    """

    def __init__(self, cap: int, nesting_level: int | None = None, **backend_kwargs: Any) -> None:
        super().__init__(nesting_level=nesting_level, **backend_kwargs)
        self.cap = cap

    def effective_n_jobs(self, n_jobs: int | None) -> int:
        return min(super().effective_n_jobs(n_jobs), self.cap)


def joblib_level() -> int:
    """The nesting level of joblib's parallel loops in this thread: 0 outside any, 1 in a worker of a joblib
    pool (``cross_val_score(composite, n_jobs=2)``), and so on."""
    return get_active_backend()[0].nesting_level or 0


def joblib_limited(threads: int, level: int = 0) -> parallel_config:
    """A joblib configuration, active in this thread until it exits (``with``), under which parallel loops run
    in at most ``threads`` threads, whatever their ``n_jobs`` (``-1`` included).

    The fits of a pool are loops nested one level below ``level`` (the
    level of the thread that runs the pool, :func:`joblib_level`), and joblib
    runs nested loops as its own workers do (``BatchedCalls``): in threads
    at the first level of nesting (a loop that prefers processes too), one
    at a time deeper. So at ``level`` 0 the loops get ``threads`` threads,
    deeper one; a loop's own loops run one at a time. A loop that names its
    backend itself (``Parallel(backend="loky")``) is not capped.
    """
    return parallel_config(backend=CappedThreads(threads if level == 0 else 1, nesting_level=level + 1))


def run_capped(model: Any, values: list[Any], how: How, threads: int, level: int = 0) -> tuple[Any, Any, float]:
    """:func:`run_job` with joblib's parallel loops capped at ``threads`` (see :func:`joblib_limited`): a fit in
    a worker thread of a pool whose BLAS and OpenMP limits are set already."""
    with joblib_limited(threads, level):
        return run_job(model, values, how)
