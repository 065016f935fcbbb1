"""What travels between this process and the workers of the process and Dask executors.

The :class:`Unshipped` error (a fit, or its fitted model, could not be
pickled) and the advice it carries; the job runners a worker calls
(:func:`run_pickled` and :func:`run_mapped` in a worker process of
``ProcessExecutor``, :func:`fit_on_worker` on a Dask worker) with what they
read (memory-mapped values, the thread cap set as a worker process starts);
and how what comes back from Dask is read (its serialization errors, a
future's outcome). The executors themselves are in
:mod:`wirework.execution.executors`, which re-exports these names.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import re
import signal
from typing import Any

from threadpoolctl import threadpool_limits

from wirework.execution.limits import cores, fit_limited, joblib_limited, lightgbm_cap
from wirework.graph.jobs import How, run_job
from wirework.graph.kept import copied

__all__ = ["Unshipped", "fit_on_worker", "run_mapped", "run_pickled"]


def _host(address: str) -> str:
    return address.split("://")[-1].rsplit(":", 1)[0]


def fit_on_worker(
    model: Any, values: list[Any], how: How, threads_per_host: dict[str, int], copies: tuple[int, ...] = ()
) -> tuple[Any, Any, float]:
    """A Dask task: fit with inner threads limited by the worker threads sharing this host, on copies of the
    values at positions ``copies`` (scattered values, shared by the fits on this worker, that the model may
    write into)."""
    from distributed import get_worker

    busy = threads_per_host.get(_host(get_worker().address), 1)
    if copies:
        values = [copied(value) if k in copies else value for k, value in enumerate(values)]
    return fit_limited(model, values, how, max(1, cores() // busy))


class Unshipped(Exception):
    """A fit, or its fitted model, could not travel between this process and a worker (pickling raised).

    ``error`` is what pickling raised, ``step`` what was being done and
    ``advice`` what to do; the scheduler makes it the machine's
    ``MachineFitError`` (chaining ``error``).
    """

    __module__ = "wirework.execution.executors"  # where it was defined first: pickles name it there (re-exported)

    def __init__(self, error: BaseException, step: str, advice: str) -> None:
        super().__init__(f"{step}: {type(error).__name__}: {error}")
        self.error = error
        self.step = step
        self.advice = advice

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a worker process, it comes back whole
        return (Unshipped, (self.error, self.step, self.advice))


_SENT_ADVICE = (
    "keep what cannot be pickled out of the model and its data ({}a lock, an open file or connection), or use "
    "executor='threads' (nothing is pickled),"
)
_PROCESS_ADVICE = _SENT_ADVICE.format("a lambda, or a function or class defined inside another function: define "
                                      "it at module level; ")
_DASK_ADVICE = _SENT_ADVICE.format("")
_RESULT_ADVICE = (
    "the fitted model keeps something that cannot be pickled (a lock, an open file or connection, made by its fit): "
    "use executor='threads' (nothing is pickled),"
)


def _init_process(threads: int) -> None:
    """Set up a worker process of ``ProcessExecutor``: its inner threads, and deaf to Ctrl-C.

    A terminal sends Ctrl-C's SIGINT to the whole foreground process group,
    the workers too. A worker fitting then sent ``KeyboardInterrupt`` back as
    its fit's error and went on to the next fit queued; an idle one died with
    a traceback, breaking the pool (whose manager thread then printed an
    ``InvalidStateError`` as it failed the futures the pass had cancelled).
    The parent alone handles the interrupt: it stops the pass and ends the
    workers still running its fits (see ``ProcessExecutor.cancel``).
    """
    global _worker_threads
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(threads)
    threadpool_limits(limits=threads)
    _worker_threads = threads


_worker_threads: int | None = None  # in a worker process of ProcessExecutor: the inner threads each fit may use


class _Mapped:
    """A numpy array saved once per pass; workers open it as a read-only memory map."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path


def run_mapped(model: Any, values: list[Any], how: How) -> tuple[Any, Any, float]:
    """:func:`run_job` in a worker process, opening memory-mapped values first."""
    import numpy as np

    opened = [np.load(v.path, mmap_mode="r") if isinstance(v, _Mapped) else v for v in values]
    return run_job(model, opened, how)


def run_pickled(job: bytes) -> bytes:
    """:func:`run_mapped` of a job pickled by the parent process; returns the result pickled (a result that
    cannot be pickled is an :class:`Unshipped` error, not the pool's own)."""
    model, values, how = pickle.loads(job)
    if _worker_threads is None:  # not in a worker process of ProcessExecutor
        result = run_mapped(model, values, how)
    else:
        lightgbm_cap(_worker_threads)  # LightGBM is loaded by now if the model is one: cap it (for good)
        with joblib_limited(_worker_threads):  # joblib's loops: for this fit
            result = run_mapped(model, values, how)
    try:
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        raise Unshipped(error, "sending its fitted model back from the worker process (pickling it)", _RESULT_ADVICE) from None


def _unserializable(error: BaseException) -> bool:
    """Whether Dask's ``error`` says it could not serialize (pickle) something: a ``TypeError`` "Could not
    serialize object of type ...", pickle's own error chained."""
    return "could not serialize" in str(error).lower() or isinstance(error, pickle.PicklingError)


def _without_traceback(error: BaseException) -> BaseException:
    """Dask's ``error`` whose message carries the worker's traceback, as one line: its first line and the last
    error the traceback names (``Could not serialize object of type X (TypeError: cannot pickle ...)``); the
    original is chained."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    if len(lines) < 2 or not any(line.startswith("Traceback") for line in lines):
        return error
    last = next((line for line in reversed(lines) if re.match(r"[A-Za-z_][\w.]*(Error|Exception)\b[^:]*: ", line)), None)
    try:
        plain = type(error)(lines[0] if last is None else f"{lines[0]} ({last})")
    except Exception:  # an exception class that takes other arguments: keep it as it is
        return error
    plain.__cause__ = error
    return plain


def _settled(future: Any) -> tuple[Any, BaseException | None]:
    """``(result, None)`` or ``(None, error)`` of a Dask future that did not finish as it is now.

    ``"error"``: what the fit raised, or ``KilledWorker`` when its workers
    kept dying. ``"lost"``: the fit ended but the worker holding its result
    died; Dask computes it again (a client still wants it), so it is awaited.
    ``"cancelled"``: Dask's ``CancelledError``. (``exception()`` gives
    ``None`` for the last two.)
    """
    try:
        return future.result(), None
    except (Exception, asyncio.CancelledError) as error:  # reported by the scheduler, never lost
        return None, error
