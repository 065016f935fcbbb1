"""The Dask executor: fits on a ``distributed`` cluster, values over ``scatter_bytes`` scattered once per pass.

Re-exported by :mod:`wirework.execution.executors`, whose name its pickles
keep.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
import threading
from collections.abc import Iterable
from typing import Any

from wirework.errors import ArgumentError, ClusterError, ParameterError, brief
from wirework.execution._base import Executor
from wirework.execution._settings import Count, dask_target
from wirework.execution._shipping import _DASK_ADVICE, _RESULT_ADVICE, Unshipped, _host, _settled, _unserializable
from wirework.execution._shipping import _without_traceback, fit_on_worker
from wirework.graph.data import buffer_bytes
from wirework.graph.jobs import How
from wirework.graph.kept import writes_in_place

__all__ = ["DaskExecutor"]


_CONNECTING = threading.Lock()  # held while a Dask executor finds or makes its client
_CONNECTED: dict[str, Any] = {}  # the client this process connected to each scheduler address, shared by executors
_CLOSED = ("closing", "closed")  # the status of a client that can submit no more


class DaskExecutor(Executor):
    """Fits on a Dask ``distributed`` cluster (extra ``wirework[dask]``).

    Parameters
    ----------
    client : distributed.Client, optional
        The client to submit through. Pickled (a composite holding this
        executor sent to joblib's worker processes), it travels as its
        scheduler's address.
    address : str, optional
        A scheduler address to connect to when no client is given (one
        client per address in a process, shared by the executors that give
        it). With neither, the current default client is used.
    retries : int, default=0
        Times Dask runs again a fit that raised. A model's error is
        deterministic (the same model on the same data raises again), and a
        fit run again repeats its side effects, so by default a fit that
        raises fails its machine at once; give retries only for fits that
        may fail by chance (reading from a network, say). A worker dying
        mid-fit is another matter: Dask reschedules its fit on another
        worker whatever ``retries`` says (up to Dask's
        ``distributed.scheduler.allowed-failures`` times).
    scatter_bytes : int, default=1_000_000
        Training values larger than this are scattered to the cluster once
        per fit pass and shared by every fit that uses them.

    Examples
    --------
    Here a cluster of one worker in this process; a real one runs elsewhere
    (``DaskExecutor(address="tcp://scheduler:8786")``).

    >>> from distributed import Client
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y = ww.source(np.eye(4), name="X"), ww.source(np.arange(4.0), name="y")
    >>> yhat = ww.mean(*[ww.machine(Ridge(alpha=a), X, y).predict(X) for a in (1.0, 2.0)])
    >>> with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
    ...     yhat.fit(executor=ww.DaskExecutor(client), verbose=0)().round(3)
    array([0.875, 1.292, 1.708, 2.125])
    """

    __module__ = "wirework.execution.executors"  # where it was defined first: pickles name it there (re-exported)

    name = "dask"
    _connected: Any = None  # the client fits go through (see _client)
    retries = Count("times Dask runs again a fit that raised", "the default: a fit that raises fails its machine at once")
    scatter_bytes = Count("bytes from which a value is scattered once per pass", "scatters every array or table")

    def __init__(self, client: Any = None, address: str | None = None, *, retries: int = 0, scatter_bytes: int = 1_000_000) -> None:
        dask_target(client, address)
        self.client = client
        self.address = address
        self.retries = retries  # checked
        self.scatter_bytes = scatter_bytes  # checked
        self._fresh()

    def _fresh(self) -> None:
        self._scattered: dict[int, tuple[Any, Any]] = {}
        self._per_host: dict[str, int] | None = None
        self.scatters = 0  # values scattered during the pass (the executor itself: during the last pass to end)
        self._completed: Any = None
        self._pickles: bool | None = None  # see pickles_values

    def _client(self) -> Any:
        """The client fits go through: the one given, the default one, or one connected to ``address``."""
        connected = self._connected
        if connected is None or getattr(connected, "status", None) in _CLOSED:
            if self._owner is not None:  # a pass's copy: the executor's client, one for every pass
                connected = self._owner._client()
            else:
                with _CONNECTING:  # passes at once on this executor connect once
                    connected = self._connect()
            self._connected = connected
        return connected

    def _connect(self) -> Any:
        if self.client is not None:
            return self.client
        try:
            import distributed
        except ImportError as error:  # pragma: no cover - depends on the install
            raise ArgumentError(
                "executor=DaskExecutor(...) needs Dask's distributed package. Install it with: pip install 'wirework[dask]'."
            ) from error
        if not self.address:
            try:
                return distributed.get_client()
            except ValueError as error:  # no client runs in this process
                raise ParameterError(
                    "executor=DaskExecutor() found no Dask client: none was given, no address either, and none "
                    "runs in this process. Start one first (distributed.Client(), or Client(LocalCluster())), "
                    "or give DaskExecutor(client=...) or DaskExecutor(address='tcp://host:8786')."
                ) from error
        found = _CONNECTED.get(self.address)
        if found is None or found.status in _CLOSED:  # one client per address: each executor made its own, kept open
            try:
                found = distributed.Client(self.address)
            except OSError as error:  # refused, or timed out (TimeoutError is an OSError)
                raise ClusterError(
                    f"executor=DaskExecutor(address={self.address!r}) could not reach a Dask scheduler there: "
                    f"{brief(error)}. Check that the scheduler runs and its address, or use executor='threads'."
                ) from error
            _CONNECTED[self.address] = found
        return found

    def __getstate__(self) -> dict[str, Any]:
        """A client cannot be pickled (a composite holding this executor sent to joblib's worker processes by
        ``cross_val_score(n_jobs=2)``, say): it travels as its scheduler's address, connected to where unpickled."""
        state = dict(self.__dict__)
        state.pop("_connected", None)
        address = getattr(getattr(self.client, "scheduler", None), "address", None)
        if self.client is not None and isinstance(address, str):
            state["client"], state["address"] = None, address
        return state

    @property
    def workers(self) -> int:  # type: ignore[override]
        return max(1, sum(self._client().nthreads().values()))

    @property
    def pickles_values(self) -> bool:  # type: ignore[override]
        """Whether the workers are other processes, which get each job's values by serialization, a copy of
        their own: then a model that writes into its input is not given copies first (see
        :mod:`wirework.graph.kept`).

        Told by the scheduler's address, without reaching it: workers of an ``inproc://`` scheduler
        (``LocalCluster(processes=False)``) are threads of this process, and the data scattered to them is the
        very object (a value sent with a job is pickled even there, a scattered one is not); over ``tcp://``,
        ``tls://``, ``ucx://`` every value is serialized, in this process too. Without a client (the pass then
        says so as it submits), ``False``.
        """
        if self._pickles is None:
            try:
                address = self.address or self._client().scheduler.address
            except Exception:  # no client runs: the first fit submitted says so
                return False
            self._pickles = isinstance(address, str) and not address.startswith("inproc://")
        return self._pickles

    def __repr__(self) -> str:  # without reaching the cluster (a repr must not connect, nor wait)
        if self.client is not None:
            return f"DaskExecutor(client={self.client!r})"
        return f"DaskExecutor(address={self.address!r})" if self.address else "DaskExecutor()"

    def open(self) -> Executor:
        if _in_dask_task():
            return _in_task_instead()
        return self._for_pass()  # data scattered, and futures awaited, of its own

    def close(self) -> None:
        self._scattered.clear()
        self._completed = None
        if self._owner is not None:
            self._owner.scatters = self.scatters

    def _ship(self, value: Any) -> Any:
        size = buffer_bytes(value)  # DataFrames and sparse matrices too (they have no nbytes)
        if size is None or size < self.scatter_bytes:
            return value
        found = self._scattered.get(id(value))
        if found is None or found[0] is not value:
            # A key of its own (not the data's hash): the same data scattered by the last pass is being released
            # under its hash, and Dask then cancels the fits that need it ('lost dependencies').
            found = (value, self._client().scatter(value, direct=False, hash=False))
            self._scattered[id(value)] = found
            self.scatters += 1
        return found[1]

    def submit(self, model: Any, values: list[Any], how: How) -> Any:
        client = self._client()
        if self._per_host is None:
            self._per_host = {}
            for address, info in client.scheduler_info()["workers"].items():
                host = _host(address)
                self._per_host[host] = self._per_host.get(host, 0) + int(info.get("nthreads", 1))
        try:
            shipped = [self._ship(v) for v in values]
            # A scattered value is one object in a worker's memory, shared by the fits there: a model that writes
            # into it copies it on the worker (its values were not copied here: see pickles_values).
            scattered = [k for k, (value, sent) in enumerate(zip(values, shipped)) if sent is not value]
            copies = tuple(scattered) if scattered and self.pickles_values and writes_in_place(model) else ()
            future = client.submit(
                fit_on_worker, model, shipped, how, self._per_host, copies, pure=False, retries=self.retries
            )
        except Exception as error:
            if not _unserializable(error):
                raise
            cause = error.__cause__ if isinstance(error.__cause__, Exception) else error  # pickle's own error
            raise Unshipped(cause, "sending it to the Dask cluster (pickling the model and its data)", _DASK_ADVICE) from None
        if self._completed is None:
            import distributed

            self._completed = distributed.as_completed([future])
        else:
            self._completed.add(future)
        return future

    def wait_any(self, futures: Iterable[Any]) -> list[Any]:
        assert self._completed is not None, "submit() before wait_any()"
        wanted = {id(f) for f in futures}
        while True:  # futures already awaited by wait_all() come out of the queue too: skip them
            done = [f for f in self._completed.next_batch(block=True) if id(f) in wanted]
            if done:
                return done

    def wait_all(self, futures: list[Any]) -> list[Any]:
        import distributed

        try:
            distributed.wait(futures)
        except cf.CancelledError:  # raised once all are done when some were cancelled: each fails its machine
            pass
        return list(futures)

    def cancel(self, futures: list[Any]) -> None:
        try:
            self._client().cancel(list(futures))
        except Exception:  # the interrupt being raised matters more; Dask also drops futures no client holds
            pass

    def outcomes(self, futures: list[Any]) -> list[tuple[Any, BaseException | None]]:
        finished = [f for f in futures if f.status == "finished"]
        try:
            gathered = dict(zip(map(id, finished), self._client().gather(finished))) if finished else {}  # one trip
        except Exception:  # a result that cannot come back fails the whole gather: take them one by one
            gathered = {}
        outcomes = []
        for future in futures:
            if id(future) in gathered:
                outcomes.append((gathered[id(future)], None))
                continue
            result, error = _settled(future)
            if error is not None and future in finished and _unserializable(error):  # the fit ended; its model
                step = "bringing its fitted model back from the Dask worker (pickling it)"  # could not come back
                error = Unshipped(_without_traceback(error), step, _RESULT_ADVICE)
            outcomes.append((result, error))
        return outcomes


def _in_dask_task() -> bool:
    """Whether this thread runs a Dask task: a composite with a Dask executor fitted as a machine by another."""
    worker = sys.modules.get("distributed.worker")
    return worker is not None and getattr(worker.thread_state, "key", None) is not None


def _in_task_instead() -> Executor:
    """The executor of a pass inside a Dask task: the threads of the task's share of the cores (one at a time for a
    share of one), as a process pool inside a worker process of another pool.

    A pass that submitted its fits to the cluster from a task held its
    worker thread while it waited for them; once every worker thread was so
    held (two such composites on two threads), no fit could run: the fit
    never ended.
    """
    from joblib import effective_n_jobs

    from wirework.execution.executors import _SEQUENTIAL, ThreadExecutor  # they import this module

    share = effective_n_jobs(-1)  # the task's cap on joblib's loops (see fit_on_worker)
    return ThreadExecutor(share).open() if share > 1 else _SEQUENTIAL
