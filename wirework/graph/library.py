"""Ready-made static operations that accept nodes.

Each function computes at once on plain data and returns a static node when
any argument is a node (see :func:`wirework.lift`), so the same call builds
a network or transforms data. Tables keep their kind: numpy in, numpy out;
pandas in, pandas out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_random_state

from wirework.errors import DataError
from wirework.graph.data import describe, n_rows, take_rows, whole
from wirework.graph.nodes import Node, StaticNode, lift

__all__ = ["hcat", "vcat", "mean", "folds", "restrict", "corestrict"]


def _require_some(name: str, tables: tuple) -> None:
    if not tables:
        raise DataError(f"{name}() needs at least one table. Received none.")


def _same_rows(name: str, tables: tuple) -> int:
    rows = [n_rows(t) for t in tables]
    if len(set(rows)) > 1:
        raise DataError(f"{name}() needs tables with the same number of rows. Received rows {rows}.")
    return rows[0]


@lift
def hcat(*tables: Any) -> Any:
    """Join tables side by side, by position.

    All numpy (1-D arrays become columns) gives a numpy array; any sparse
    gives a CSR matrix; any pandas object gives a DataFrame with the index of
    the first pandas argument (other arguments are aligned by position, never
    by index label); numpy columns are named ``x<position>``, and when the
    labels would mix types they all become strings. A name that several
    tables give (two scalers' ``x0``, or a frame's ``x1`` and the 1-D array
    at position 1) is prefixed with each one's position (``x0_x1``,
    ``x1_x1``): scikit-learn refuses a frame with two columns of one name.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> ww.hcat(np.array([1, 2]), np.array([[3, 4], [5, 6]]))
    array([[1, 3, 4],
           [2, 5, 6]])
    """
    _require_some("hcat", tables)
    _same_rows("hcat", tables)
    for table in tables:
        if not 1 <= (getattr(table, "ndim", None) or np.ndim(table)) <= 2:
            shapes = [np.shape(t) for t in tables]
            raise DataError(
                f"hcat() joins 1-D and 2-D tables. Received shapes {shapes}. "
                "Reshape each to rows x columns (array.reshape(len(array), -1)) first."
            )
    if any(isinstance(t, (pd.DataFrame, pd.Series)) for t in tables):
        index = next(t.index for t in tables if isinstance(t, (pd.DataFrame, pd.Series)))
        frames = []
        for position, table in enumerate(tables):
            if isinstance(table, pd.Series):
                frame = table.to_frame(name=table.name if table.name is not None else f"x{position}")
            elif isinstance(table, pd.DataFrame):
                frame = table
            else:
                array = np.asarray(table.toarray() if sp.issparse(table) else table)
                array = array.reshape(len(array), -1)
                names = [f"x{position}" if array.shape[1] == 1 else f"x{position}_{j}" for j in range(array.shape[1])]
                frame = pd.DataFrame(array, columns=names)
            frames.append(frame.set_axis(index, axis=0))
        joined = pd.concat(frames, axis=1)
        labels = list(joined.columns)
        if not all(isinstance(c, str) for c in labels):
            labels = joined.columns = [str(c) for c in labels]  # scikit-learn needs one label type
        if len(set(labels)) < len(labels):  # several tables give one name: scikit-learn refuses such a frame
            joined.columns = _apart_by_position(labels, [frame.shape[1] for frame in frames])
        return joined
    if any(sp.issparse(t) for t in tables):
        columns = [t if sp.issparse(t) else np.asarray(t).reshape(n_rows(t), -1) for t in tables]
        return sp.hstack(columns, format="csr")
    return np.column_stack([np.asarray(t) for t in tables])


def _apart_by_position(labels: list[str], widths: list[int]) -> list[str]:
    """``labels`` of a join of tables ``widths`` columns wide, each label that more than one table gives prefixed
    with its table's position (``x1_price``), as scikit-learn's ``FeatureUnion`` prefixes its transformers' names."""
    positions = [position for position, width in enumerate(widths) for _ in range(width)]
    tables: dict[str, set[int]] = {}
    for label, position in zip(labels, positions):
        tables.setdefault(label, set()).add(position)
    return [
        f"x{position}_{label}" if len(tables[label]) > 1 else label for label, position in zip(labels, positions)
    ]


@lift
def vcat(*tables: Any) -> Any:
    """Stack tables on top of each other (same kind, same columns).

    numpy arrays give a numpy array, sparse matrices a CSR matrix, pandas
    objects a pandas object keeping each row's index label.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> ww.vcat(np.array([1, 2]), np.array([3]))
    array([1, 2, 3])
    """
    _require_some("vcat", tables)
    pandas = [isinstance(t, (pd.DataFrame, pd.Series)) for t in tables]
    if any(pandas) and not all(pandas):
        kinds = ", ".join(describe(t).split(" of ")[0] for t in tables)
        raise DataError(f"vcat() needs tables of one kind (all pandas or all numpy). Received: {kinds}.")
    if all(pandas):
        columns = [frozenset(t.columns) for t in tables if isinstance(t, pd.DataFrame)]
        if len(set(columns)) > 1:  # pd.concat would fill the missing columns with NaN
            named = [t.columns.tolist() for t in tables if isinstance(t, pd.DataFrame)]
            raise DataError(f"vcat() needs DataFrames with the same columns. Received columns {named}.")
        return pd.concat(tables, axis=0)
    arrays = [t if sp.issparse(t) else np.asarray(t) for t in tables]
    if len({a.ndim for a in arrays}) > 1:
        shapes = [a.shape for a in arrays]
        raise DataError(f"vcat() needs arrays with the same number of dimensions. Received shapes {shapes}.")
    if len({a.shape[1:] for a in arrays}) > 1:
        shapes = [a.shape for a in arrays]
        raise DataError(
            f"vcat() needs tables with the same columns. Received shapes {shapes}: "
            "all dimensions but the rows must agree."
        )
    if any(sp.issparse(t) for t in tables):
        return sp.vstack(tables, format="csr")
    return np.concatenate(arrays, axis=0)


def mean(*values: Any) -> Any:
    """Elementwise mean of several predictions (or of one list of them); a node when any is a node.

    Values are averaged by position: with any pandas value the result has the
    index (and columns) of the first, whatever labels the others carry.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> ww.mean(np.array([1.0, 2.0]), np.array([3.0, 6.0]))
    array([2., 4.])
    """
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        values = tuple(values[0])
    if any(isinstance(v, Node) for v in values):
        return StaticNode(mean_values, values, label="mean")
    return mean_values(*values)


def mean_values(*values: Any) -> Any:
    """The elementwise mean of values (no node among them): what a mean node computes."""
    _require_some("mean", values)
    shapes = [np.shape(v) for v in values]
    if len(set(shapes)) > 1:  # numpy would broadcast (n,) and (n, 1) to (n, n), or refuse
        raise DataError(
            f"mean() needs values of one shape. Received shapes {shapes}. "
            "Give predictions of the same rows and columns (reshape a column to 1-D, or the reverse)."
        )
    values = tuple(map(_summable, values))
    first = next((v for v in values if isinstance(v, (pd.Series, pd.DataFrame))), None)
    if first is not None:  # by position, as hcat joins: pandas would align labels (NaN where they differ)
        values = tuple(_positioned(v, first) for v in values)
    total = values[0]
    for value in values[1:]:
        total = total + value
    return total / len(values)


def _summable(value: Any) -> Any:
    """``value`` as the mean adds it: bools and integers in float64, as ``np.mean`` computes (``+`` of two bool
    arrays is their OR, of two ``int8`` arrays wraps), a list as an array (``+`` of lists joins them)."""
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    if isinstance(value, pd.DataFrame):
        whole = [i for i, kind in enumerate(value.dtypes) if kind.kind in "biu"]
        if whole:
            value = value.copy()
            for i in whole:
                value.isetitem(i, _summable(value.iloc[:, i]))
        return value
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind in "biu":
        return value.astype(np.float64 if isinstance(dtype, np.dtype) else "Float64")
    if isinstance(value, bool):
        return float(value)
    return value


def _positioned(value: Any, like: pd.Series | pd.DataFrame) -> Any:
    """A pandas ``value`` given the index (and, for two DataFrames, the columns) of ``like``, of its shape."""
    if isinstance(value, (pd.Series, pd.DataFrame)) and value is not like:
        value = value.set_axis(like.index, axis=0)
        if isinstance(value, pd.DataFrame) and isinstance(like, pd.DataFrame):
            value = value.set_axis(like.columns, axis=1)
    return value


@lift
def folds(X: Any, n: int, *, shuffle: bool = False, random_state: Any = None) -> tuple[np.ndarray, ...]:
    """Partition the rows of ``X`` into ``n`` folds of row positions.

    Each fold but the last has ``n_rows // n`` rows; the **last fold takes the
    remainder** (10 rows, ``n=3``: ``[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]``).
    This is the rule of MLJ's learning-network examples; scikit-learn's
    ``KFold`` instead gives the first folds one extra row each, so the two
    agree exactly when ``n`` divides the number of rows. With ``shuffle`` the
    positions are permuted first (``random_state`` as in scikit-learn) and
    each fold is sorted.

    Parameters
    ----------
    X : table, array or int
        The data whose rows are partitioned, or the number of rows.
    n : int
        Number of folds, at least 2 and at most the number of rows.

    Examples
    --------
    >>> import wirework as ww
    >>> [f.tolist() for f in ww.folds(10, 3)]
    [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    """
    rows = X if isinstance(X, (int, np.integer)) and not isinstance(X, bool) else n_rows(X)
    if not whole(n) or not 2 <= n <= rows:
        raise DataError(f"folds() needs an integer n with 2 <= n <= {rows} (the number of rows). Received n={n!r}.")
    positions = np.arange(rows)
    if shuffle:
        check_random_state(random_state).shuffle(positions)
    size = rows // n
    bounds = [i * size for i in range(n)] + [rows]
    parts = (positions[bounds[i] : bounds[i + 1]] for i in range(n))
    return tuple(np.sort(p) if shuffle else p for p in parts)


def _fold(X: Any, folds: Any, i: Any, name: str) -> np.ndarray:
    if not isinstance(folds, tuple) or not folds:
        raise DataError(f"{name}() needs the folds made by ww.folds(). Received: {describe(folds)}.")
    if not whole(i) or not 0 <= i < len(folds):
        raise DataError(f"{name}() needs a fold index 0 <= i < {len(folds)}. Received i={i!r}.")
    rows, made_for = n_rows(X), sum(map(len, folds))  # the folds partition the rows they were made for
    if rows != made_for:
        raise DataError(
            f"{name}() got folds made for {made_for} rows; the data has {rows}. "
            "Make the folds from the data they restrict (ww.folds(X, n)), and give every argument the same rows."
        )
    return folds[i]


@lift
def restrict(X: Any, folds: tuple[np.ndarray, ...], i: int) -> Any:
    """Rows of ``X`` in fold ``i`` (0-based), keeping the kind of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> f = ww.folds(6, 3)
    >>> ww.restrict(np.arange(6) * 10, f, 1)
    array([20, 30])
    """
    return take_rows(X, _fold(X, folds, i, "restrict"))


@lift
def corestrict(X: Any, folds: tuple[np.ndarray, ...], i: int) -> Any:
    """Rows of ``X`` outside fold ``i`` (0-based), in their original order.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> f = ww.folds(6, 3)
    >>> ww.corestrict(np.arange(6) * 10, f, 1)
    array([ 0, 10, 40, 50])
    """
    held_out = _fold(X, folds, i, "corestrict")
    keep = np.ones(n_rows(X), dtype=bool)
    keep[held_out] = False
    return take_rows(X, np.flatnonzero(keep))
