"""One training pass over the machines a network needs.

The pass visits each machine once, in dependency order (a topological order
of the completed graph), and lets the machine decide by its retraining rules
whether to train, update or leave itself alone (see
:class:`wirework.graph.machines.Machine`). Node values on the training data
are memoised for the length of the pass, so no transform is computed twice;
given a :class:`TrainingValues` store they are also kept *between* passes
and reused while nothing upstream of them changed.

The loop itself (which machine when, on which executor) belongs to the
execution layer: it registers it here with :func:`register_scheduler`, and
each machine contributes its steps (``_plan``: decide and gather the
training values; ``run_job``: fit, anywhere; ``_finish``: record).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from wirework.config import setting
from wirework.errors import ArgumentError, WireworkError
from wirework.graph.cache import FitCache
from wirework.graph.data import describe
from wirework.graph.nodes import apply_failure
from wirework.graph import topology
from wirework.graph.topology import post_order

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine
    from wirework.graph.nodes import Node

__all__ = ["fit_pass", "register_scheduler", "FitPass", "TrainingValues"]


class TrainingValues:
    """Values of nodes on the training data, kept between fit passes.

    Each value is stamped with the states of the machines and the versions of
    the sources upstream of its node (their sums: see
    :func:`~wirework.graph.topology.stamps`); it is reused only while the
    stamp is unchanged. Source values are never kept (the data stays the
    caller's).
    """

    def __init__(self) -> None:
        self._values: dict[Node, tuple[tuple, Any]] = {}

    def stamp(self, node: Node, token: object) -> tuple:
        """``node``'s stamp now, in the fit pass of ``token`` (``FitPass.token``)."""
        found = node._stamp
        if found is None or found[0] is not token:
            return topology.stamps((node,), token)
        return found[1], found[2]

    def get(self, node: Node, stamp: tuple) -> tuple[bool, Any]:
        entry = self._values.get(node)
        if entry is not None and entry[0] == stamp:
            return True, entry[1]
        return False, None

    def put(self, node: Node, stamp: tuple, value: Any) -> None:
        self._values[node] = (stamp, value)

    def clear(self) -> None:
        self._values.clear()

    def __len__(self) -> int:
        return len(self._values)


class FitPass:
    """The state of one pass: memoised values, the fit cache, the values store."""

    #: The executor pickles each job's values to another process (a worker process): a model that writes into its
    #: input changes its own copy there, so its machine is not given copies here (the scheduler sets it).
    values_pickled = False

    def __init__(self, cache: FitCache | None = None, store: TrainingValues | None = None) -> None:
        self.memo: dict[Node, Any] = {}
        self.cache = cache
        self.store = store
        self.failed: Node | None = None  # the node whose value last raised, for the error that names it
        # what the stamps of this pass's nodes are valid for (see topology.stamps): this pass alone
        self.token = object()

    def value(self, node: Node) -> Any:
        """Value of ``node`` on the training data, each ancestor computed at most once.

        A value kept in the store, or computed already in this pass, is taken
        without visiting its ancestors: a pass over a network visits each node
        once, however deep it is.
        """
        memo, store = self.memo, self.store
        if node in memo:
            return memo[node]
        if node.kind == "source":  # its data, never kept
            value = memo[node] = node._compute(memo, None)
            return value
        if store is not None:
            found, value = store.get(node, store.stamp(node, self.token))
            if found:
                memo[node] = value
                return value
        for item in post_order([node], self._unknown_parents):
            if item in memo:
                continue
            if item.kind == "source":
                memo[item] = item._compute(memo, None)
                continue
            if store is not None:
                stamp = store.stamp(item, self.token)
                found, value = store.get(item, stamp)
                if found:
                    memo[item] = value
                    continue
            try:
                value = self._compute(item)
            except Exception:
                self.failed = item
                raise
            if store is not None:
                store.put(item, stamp, value)
            memo[item] = value
        return memo[node]

    def _unknown_parents(self, node: Node) -> list[Node]:
        """The parents of ``node`` without a value in this pass yet: what :meth:`value` walks to."""
        memo = self.memo
        return [parent for parent in node.parents if parent not in memo]

    def output(self, node: Node) -> Any:
        """:meth:`value` of a node no machine trains on (a composite's report, its ``fit_transform`` output).

        Raises
        ------
        NodeApplyError
            A static node's function raised (see :func:`~wirework.graph.nodes.evaluate`).
        """
        try:
            return self.value(node)
        except WireworkError:
            raise
        except Exception as error:
            raise apply_failure(node, self.memo, error, new_data=False, fitting=True) from error

    def _compute(self, item: Node) -> Any:
        """``item``'s value from its parents' (in the memo).

        A machine's predictions go through the cache's
        :meth:`~wirework.graph.cache.FitCache.applied` when the machine's fit
        is cached there; transformer outputs do not (they are as large as the
        data, and cheap to recompute next to what keeping them would cost).
        """
        if item.kind != "dynamic":
            return item._compute(self.memo, None)
        cache = self.cache
        if cache is not None and item.operation in _KEPT_OPERATIONS:
            machine = item.machine
            fit_key = getattr(machine, "_fit_key", None)
            if fit_key is not None:
                return cache.applied(
                    fit_key,
                    machine._fitted,
                    item.operation,
                    self.memo[item.parents[0]],
                    lambda: item._compute(self.memo, None, self.token),
                )
        return item._compute(self.memo, None, self.token)


#: Operations whose training-pass values a fit cache keeps with the fit (see ``FitPass._compute``).
_KEPT_OPERATIONS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "score_samples"})

#: The scheduler loop, provided by the execution layer (``wirework.execution``).
_SCHEDULER: Callable[..., list[Machine]] | None = None


def register_scheduler(scheduler: Callable[..., list[Machine]]) -> None:
    """Install the loop that :func:`fit_pass` runs (the execution layer does this on import)."""
    global _SCHEDULER
    _SCHEDULER = scheduler


def fit_pass(
    roots: Iterable[Node | Machine],
    *,
    force: bool = False,
    forced: Sequence[Machine] = (),
    cache: FitCache | None = None,
    store: TrainingValues | None = None,
    **execution: Any,
) -> list[Machine]:
    """Train every machine the ``roots`` need; return the machines visited.

    Parameters
    ----------
    roots : iterable of Node or Machine
        What must be ready to compute after the pass.
    force : bool, default=False
        Train every visited machine from scratch (condition 2).
    forced : sequence of Machine, default=()
        Machines to train from scratch even when ``force`` is false.
    cache : FitCache, optional
        Where to look for fits before fitting; defaults to the ``cache``
        setting of :func:`wirework.set_config`.
    store : TrainingValues, optional
        Keep training-data values of nodes between passes.
    **execution
        ``executor``, ``n_jobs``, ``on_error``, ``verbose``, ``progress``:
        see :func:`wirework.execution.schedule`.
    """
    if _SCHEDULER is None:  # the layer above registers its scheduler when imported
        importlib.import_module("wirework.execution")
    assert _SCHEDULER is not None
    if cache is not None and not isinstance(cache, FitCache):
        raise ArgumentError(
            f"Expected cache to be a ww.FitCache or None. Received: {describe(cache)}. Make one with ww.FitCache()."
        )
    run = FitPass(cache if cache is not None else setting("cache"), store)
    try:
        return _SCHEDULER(roots, run=run, force=force, forced=forced, **execution)
    except TypeError:
        unknown = sorted(set(execution) - _EXECUTION_OPTIONS)
        if unknown:  # the call itself was refused: nothing ran
            raise ArgumentError(
                f"fit() takes force, cache and the options {', '.join(sorted(_EXECUTION_OPTIONS))}. "
                f"Received also: {unknown}. Remove them: a model's hyperparameters are set on the model itself."
            ) from None
        raise


#: The keyword options the scheduler takes from ``fit(...)``.
_EXECUTION_OPTIONS = frozenset({"executor", "n_jobs", "on_error", "verbose", "progress"})
