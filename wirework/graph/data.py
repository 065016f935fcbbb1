"""What counts as data in a network, and the few table operations the core needs.

Data is anything a scikit-learn estimator accepts as rows: numpy arrays,
pandas DataFrames and Series, scipy sparse matrices, and lists or tuples of
rows. Tables keep their kind as they flow through the core: a DataFrame
restricted to some rows is still a DataFrame with its index.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from wirework.errors import ArgumentError, DataError

__all__ = ["is_data", "n_rows", "take_rows", "describe", "buffer_bytes", "whole"]

_DATA_TYPES = (np.ndarray, pd.DataFrame, pd.Series, list, tuple)


def is_data(value: object) -> bool:
    """Return whether ``value`` is data a source may hold.

    Examples
    --------
    >>> import numpy as np
    >>> is_data(np.zeros((2, 3))), is_data("X")
    (True, False)
    """
    return isinstance(value, _DATA_TYPES) or sp.issparse(value)


def n_rows(value: Any) -> int:
    """Return the number of rows of a table, array or sequence.

    Examples
    --------
    >>> import pandas as pd
    >>> n_rows(pd.DataFrame({"a": [1, 2, 3]}))
    3
    """
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(value)
    except TypeError:
        raise DataError(
            f"Expected a table, array or sequence with rows. Received: {describe(value)}."
        ) from None


def whole(value: Any) -> bool:
    """Whether ``value`` is an integer, a NumPy one included (a ``GridSearchCV`` grid of ``np.arange``), but no bool.

    Examples
    --------
    >>> whole(3), whole(np.int64(3)), whole(True), whole(3.0)
    (True, True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def buffer_bytes(value: Any) -> int | None:
    """Bytes held by a table's buffers (a DataFrame's or Series' columns and index, a sparse matrix's three
    arrays; objects in an object column counted as pointers), or ``None`` for what is not such a table.

    Examples
    --------
    >>> buffer_bytes(np.zeros((2, 3))), buffer_bytes("X")
    (48, None)
    """
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=False).sum())
    if isinstance(value, pd.Series):
        return int(value.memory_usage(index=True, deep=False))
    if sp.issparse(value):
        parts = ("data", "indices", "indptr", "row", "col", "offsets")
        return sum(int(getattr(value, part).nbytes) for part in parts if isinstance(getattr(value, part, None), np.ndarray))
    return None


def take_rows(value: Any, rows: np.ndarray) -> Any:
    """Select ``rows`` (integer positions) of ``value``, keeping its kind.

    Examples
    --------
    >>> import numpy as np
    >>> take_rows(np.arange(5) * 10, np.array([1, 3]))
    array([10, 30])
    """
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.iloc[rows]
    if isinstance(value, np.ndarray) or sp.issparse(value):
        return value[rows]
    if isinstance(value, (list, tuple)):
        return type(value)(value[i] for i in rows)
    raise ArgumentError(
        f"Expected a table, array or sequence to select rows from. Received: {describe(value)}."
    )


def describe(value: object) -> str:
    """Return a short description of ``value`` for error messages.

    Examples
    --------
    >>> import numpy as np
    >>> describe(np.zeros((2, 3)))
    'numpy.ndarray of shape (2, 3)'
    >>> describe("X")
    "str 'X'"
    """
    shape = getattr(value, "shape", None)
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}.{kind.__name__}"
    if isinstance(shape, tuple):
        return f"{name} of shape {shape}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{name} {text}"
