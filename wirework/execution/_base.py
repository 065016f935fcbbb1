"""The executor protocol: where fits run, behind a tiny ``submit`` / ``wait_any`` adapter.

:class:`Executor` is what the scheduler calls; the executors themselves are
in :mod:`wirework.execution.executors` (sequential, threads, processes) and
:mod:`wirework.execution._dask`, and are re-exported there.
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Iterable
from typing import Any

from wirework.graph.jobs import How

__all__ = ["Executor"]


class Executor:
    """Runs fits. Subclasses implement :meth:`submit` and :meth:`wait_any`.

    :meth:`submit` raises :class:`Unshipped` when the fit cannot be sent to a
    worker; its future's error is an :class:`Unshipped` when the fitted model
    cannot come back.
    """

    __module__ = "wirework.execution.executors"  # where it was defined first (re-exported there)

    name = "executor"
    workers = 1
    #: Whether each job's values are pickled to another process, whose fit gets its own copy of them (set by
    #: ``open()``): then a model that writes into its input cannot change the values this process keeps, and the
    #: fit pass does not copy them first (see :mod:`wirework.graph.kept`).
    pickles_values = False

    #: The executor a pass copy was made from (see :meth:`_for_pass`); ``None`` for the executor itself.
    _owner: Any = None

    def open(self) -> Executor:
        """Prepare for one fit pass (start pools, connect) and return the executor that runs it, whose
        :meth:`close` ends the pass: this one when it keeps no state for a pass, else a copy of it with a state of
        its own (:meth:`_for_pass`)."""
        return self

    def close(self) -> None:
        """End one fit pass (forget per-pass state such as scattered data)."""

    def _fresh(self) -> None:
        """Set the state of one pass to what it is before the pass opens."""

    def _for_pass(self) -> Any:
        """A copy of this executor (its settings, and a state of its own) to run one pass.

        Passes may run at once on one executor: clones of a composite share
        it (GridSearchCV with a threading backend fits them in threads), and
        so does a composite nested in another given the same executor. Each
        pass then keeps its own pool, mapped files or scattered data, which
        another pass can neither replace nor shut down.
        """
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._owner = self
        twin._fresh()
        return twin

    def submit(self, model: Any, values: list[Any], how: How) -> Any:
        """Start fitting ``model`` on ``values``; return a future of :func:`run_job`'s ``(fitted, output, seconds)``."""
        raise NotImplementedError

    def wait_any(self, futures: Iterable[Any]) -> list[Any]:
        """Block until at least one of ``futures`` is done; return the done ones."""
        done, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
        return list(done)

    def wait_all(self, futures: list[Any]) -> list[Any]:
        """Block until every one of ``futures`` is done; return them."""
        cf.wait(futures)
        return list(futures)

    def cancel(self, futures: list[Any]) -> None:
        """Give up ``futures`` (an interrupted pass): those not started never run; running ones end unawaited."""
        for future in futures:
            future.cancel()

    def run(self, model: Any, values: list[Any], how: How) -> tuple[Any, BaseException | None]:
        """Fit now and wait: ``(result, None)`` or ``(None, error)`` (one-at-a-time passes)."""
        return self.outcomes([self.submit(model, values, how)])[0]

    def outcomes(self, futures: list[Any]) -> list[tuple[Any, BaseException | None]]:
        """``(result, None)`` or ``(None, error)`` for each done future."""
        results = []
        for future in futures:
            try:
                results.append((future.result(), None))
            except Exception as error:
                results.append((None, error))
        return results

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"

    # An executor is a handle on pools or a cluster: clones of an estimator share it.
    def __copy__(self) -> Executor:
        return self

    def __deepcopy__(self, memo: dict) -> Executor:
        return self
