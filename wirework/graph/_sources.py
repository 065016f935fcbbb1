"""Sources: the origins of a network's data (see :mod:`wirework.graph.nodes`, which re-exports them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wirework.errors import ArgumentError, DataError
from wirework.graph._calling import _source_label
from wirework.graph._lazy import Node
from wirework.graph.data import describe, is_data
from wirework.graph.topology import CLOCK

__all__ = ["Source", "source"]

_MISSING = object()


class Source(Node):
    """An origin of data: training data now, new data at prediction time.

    Assigning ``source.data`` (or calling :meth:`rebind`) bumps ``version``,
    which machines compare to decide whether their data changed
    (condition 4). Mutating an array in place is not seen: assign it again.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import LinearRegression
    >>> X = ww.source(np.array([[0.0], [1.0], [2.0]]), name="X")
    >>> y = ww.source(np.array([1.0, 3.0, 5.0]), name="y")
    >>> line = ww.machine(LinearRegression(), X, y)
    >>> yhat = line.predict(X).fit()
    >>> y.version
    1
    >>> y.data = np.array([0.0, 2.0, 4.0])   # new training data
    >>> y.version
    2
    >>> yhat.fit()(np.array([[3.0]])).round(6)
    array([6.])
    >>> line.report()["reason"]
    'condition 4: source data changed'
    """

    kind = "source"
    __slots__ = ("name", "_data", "version", "fingerprint")

    def __init__(self, data: Any = None, *, name: str | None = None) -> None:
        super().__init__(())
        if name is not None and not isinstance(name, str):
            raise ArgumentError(f"Expected a source name as a str. Received: {describe(name)}.")
        self.name = name
        self._data = None
        self.version = 0
        self.fingerprint: str | None = None
        self.rebind(data)

    @property
    def data(self) -> Any:
        """The training data this source yields when called without arguments."""
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        self.rebind(value)

    def rebind(self, data: Any, *, fingerprint: str | None = None) -> Source:
        """Give the source new training data; machines depending on it retrain at the next fit.

        Parameters
        ----------
        data : data or None
            The new training data.
        fingerprint : str, optional
            A content token of ``data`` (see :func:`~wirework.graph.fingerprint.tokenize`).
            When it equals the token given with the previous data, the data
            counts as unchanged: ``version`` is not bumped and nothing retrains.
        """
        if data is not None and not is_data(data):
            raise ArgumentError(
                "Expected data (numpy array, pandas DataFrame or Series, sparse matrix, list) or None "
                f"for a source. Received: {describe(data)}."
            )
        self._data = data
        if fingerprint is None or fingerprint != self.fingerprint:
            self.version += 1
            CLOCK[0] += 1
        self.fingerprint = fingerprint
        return self

    def release(self) -> Source:
        """Drop the reference to the training data without counting it as a change.

        Rebinding the same data later (with the same ``fingerprint``) retrains nothing.
        """
        self._data = None
        return self

    def _compute(self, memo: dict, overrides: Mapping | None) -> Any:
        if overrides is not None:
            value = overrides.get(self, _MISSING)
            if value is not _MISSING:
                return value
        if self._data is None:
            raise DataError(
                f"Source {_source_label(self)} holds no data. Give it training data with "
                "source.data = ..., or call the node with new data for this source."
            )
        return self._data


Source.__module__ = "wirework.graph.nodes"  # pickles name the module where it always was (which re-exports it)


def source(data: Any = None, *, name: str | None = None) -> Source:
    """Create a source node, optionally holding training data.

    Parameters
    ----------
    data : array-like, DataFrame, Series, sparse matrix or None
        Training data. ``None`` makes a source that must be given data when
        its nodes are called.
    name : str, optional
        Name used to pass new data by keyword (``node(X=...)``) and in drawings.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> X = ww.source(np.ones((3, 2)), name="X")
    >>> X().shape
    (3, 2)
    """
    return Source(data, name=name)
