"""The settings of the executors, checked when an executor is made (not deep inside a fit).

``n_jobs`` counts workers as joblib does (:func:`workers`); sizes in bytes
and counts of retries are ints of 0 or more (:func:`count`); a Dask
executor's ``client`` and ``address`` are checked by :func:`dask_target`.
Each wrong value is one :class:`~wirework.errors.ArgumentError` (a
``TypeError``: not an int, a bool, a float) or
:class:`~wirework.errors.ParameterError` (a ``ValueError``: an int out of
range), naming what was received and what to give.
"""

from __future__ import annotations

from typing import Any

from wirework.errors import ArgumentError, ParameterError
from wirework.execution.limits import cores
from wirework.graph.data import describe, whole

__all__ = ["Count", "count", "dask_target", "workers"]


def workers(n_jobs: int | None) -> int:
    """Workers for ``n_jobs`` as joblib counts them: ``None`` or -1 all cores, -2 all but one, and so on."""
    if n_jobs is None:
        return cores()
    if not whole(n_jobs):  # a numpy integer is one (a GridSearchCV grid of np.arange)
        raise ArgumentError(
            f"Expected n_jobs to be an int (-1: all cores, -2: all but one) or None. Received: {describe(n_jobs)}."
        )
    if n_jobs == 0:
        raise ParameterError(
            "Expected n_jobs to be a positive int, a negative one as joblib counts (-1: all cores, -2: all but one) "
            "or None. Received: 0, which would run no fit."
        )
    return int(n_jobs) if n_jobs > 0 else max(1, cores() + 1 + int(n_jobs))


def count(name: str, value: Any, meaning: str, zero: str) -> int:
    """``value`` as an int of 0 or more, for the setting ``name`` (``meaning``: what it counts; ``zero``: what 0
    does, for the message about a negative value).

    Examples
    --------
    >>> count("retries", 2, "times a fit that raised runs again", "a fit that raises fails at once")
    2
    >>> count("retries", -1, "times a fit that raised runs again", "a fit that raises fails at once")
    Traceback (most recent call last):
        ...
    wirework.errors.ParameterError: Expected retries to be an int of 0 or more (times a fit that raised runs again). Received: -1. Give 0 (a fit that raises fails at once) or more.
    """
    expected = f"Expected {name} to be an int of 0 or more ({meaning})."
    if not whole(value):  # a bool, a float, a str...; a numpy integer is an int
        advice = f" Give int({value!r})." if isinstance(value, float) and value.is_integer() else ""
        raise ArgumentError(f"{expected} Received: {describe(value)}.{advice}")
    if value < 0:
        raise ParameterError(f"{expected} Received: {value!r}. Give 0 ({zero}) or more.")
    return int(value)


class Count:
    """An executor's setting that is an int of 0 or more, checked by :func:`count` when set (at construction, and
    later), and kept in the instance's ``_<name>``.

    ``meaning``: what it counts; ``zero``: what 0 does (both for the message about a wrong value).
    """

    def __init__(self, meaning: str, zero: str) -> None:
        self.meaning = meaning
        self.zero = zero
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        kept = instance.__dict__
        return kept[f"_{self.name}"] if f"_{self.name}" in kept else kept[self.name]  # unpickled from before the check

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[f"_{self.name}"] = count(self.name, value, self.meaning, self.zero)


def dask_target(client: Any, address: Any) -> None:
    """Check a Dask executor's ``client`` (``None`` or a client: it has ``submit`` and ``scatter``) and
    ``address`` (``None`` or a scheduler address), and that at most one of them is given."""
    if isinstance(client, str):  # DaskExecutor("tcp://host:8786"): the address given where the client goes
        raise ArgumentError(
            f"Expected client to be a distributed.Client or None. Received: {describe(client)}. To connect to a "
            f"scheduler at that address, give it by name: DaskExecutor(address={client!r})."
        )
    if client is not None and not (callable(getattr(client, "submit", None)) and callable(getattr(client, "scatter", None))):
        raise ArgumentError(
            f"Expected client to be a distributed.Client or None. Received: {describe(client)}. Give a client "
            "(distributed.Client(...)), a scheduler's address=, or neither to use the client running in this process."
        )
    if address is None:
        return
    if not isinstance(address, str):
        raise ArgumentError(
            f"Expected address to be a Dask scheduler's address (a str such as 'tcp://host:8786') or None. "
            f"Received: {describe(address)}."
        )
    if not address.strip():
        raise ParameterError(
            "Expected address to be a Dask scheduler's address (such as 'tcp://host:8786') or None. Received an "
            "empty str. Give the address, or None to use the client running in this process."
        )
    if client is not None:
        raise ParameterError(
            f"Expected a client or an address, not both. Received: client={client!r} and address={address!r}. Give "
            "the client alone (it is connected already), or the address alone."
        )
