"""Tokens of data: rules 4 to 6 of :mod:`wirework.graph.fingerprint`.

How numpy arrays (and their dtypes), pandas objects and scipy.sparse
matrices are written into a token: buffers of plain dtypes by their bytes
(larger ones by their XXH3-128 digest), object and string arrays element
by element, structured ones field by field; pandas objects by labels,
names, dtypes and values (a ``DatetimeIndex`` or ``TimedeltaIndex`` by its
``freq`` too); sparse matrices by their parts.
"""

from __future__ import annotations

import struct
import sys
from typing import TYPE_CHECKING, Any

import numpy as np
import xxhash

from wirework.graph._token_encoding import _Hash, _qualname, _u64, _write_str

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.fingerprint import _Tokenizer

_SMALL_BUFFER = 4096  # bytes; larger array buffers are hashed with XXH3 first
# x87 long doubles keep 10 significant bytes in a 12/16-byte slot whose
# padding may hold garbage: only the significant bytes are hashed.
_X87 = np.finfo(np.longdouble).nmant == 63 and np.dtype(np.longdouble).itemsize > 10
_LONGDOUBLE_BYTES = 10 if _X87 and sys.byteorder == "little" else None


# ---------------------------------------------------------------- numpy
def _feed_dtype(tk: _Tokenizer, h: _Hash, dtype: Any) -> None:
    if isinstance(dtype, np.dtype):
        _write_str(h, dtype.str)
        nested = dtype.fields is not None or dtype.subdtype is not None
        _write_str(h, repr(dtype.descr) if nested else "")
        return
    # pandas extension dtype; categories are part of the values
    _write_str(h, _qualname(type(dtype)))
    categorical = type(dtype).__name__ == "CategoricalDtype"
    _write_str(h, "category" if categorical else repr(dtype))


def _feed_ndarray(tk: _Tokenizer, h: _Hash, arr: np.ndarray) -> None:
    if isinstance(arr, np.ma.MaskedArray):
        h.update(b"masked:")
        tk.feed(h, (np.ma.getmaskarray(arr), arr.filled(), arr.fill_value))
        return
    h.update(b"ndarray:")
    if type(arr) not in (np.ndarray, np.memmap):  # np.matrix and the like
        _write_str(h, _qualname(type(arr)))
    _feed_array_body(tk, h, arr)


#: Scalar types whose buffers may hold padding (hashed by the general path).
_WIDE = (np.longdouble, np.clongdouble)

#: The encoding of each plain dtype seen (``_feed_dtype`` of a dtype without fields or sub-arrays).
_PLAIN_DTYPES: dict[np.dtype, bytes] = {}


def _plain_dtype(dtype: np.dtype) -> bytes | None:
    """``_feed_dtype``'s bytes for a dtype whose arrays are hashed by their buffer and that has
    no fields or sub-arrays, else ``None``."""
    encoded = _PLAIN_DTYPES.get(dtype)
    if encoded is None and dtype.kind not in "OT" and not dtype.hasobject and dtype.fields is None and dtype.subdtype is None:
        name = dtype.str.encode("utf-8")
        encoded = _PLAIN_DTYPES[dtype] = _u64(len(name)) + name + _u64(0)
    return encoded


def _feed_array_body(tk: _Tokenizer, h: _Hash, arr: np.ndarray) -> None:
    dtype = arr.dtype
    plain = _plain_dtype(dtype)
    if plain is not None:  # the common case in fewer steps; the same bytes as below
        h.update(plain + struct.pack(f"<{arr.ndim + 1}Q", arr.ndim, *arr.shape))
        _write_buffer(h, arr)
        return
    _feed_dtype(tk, h, dtype)
    h.update(_u64(arr.ndim) + b"".join(_u64(n) for n in arr.shape))
    if dtype.names is not None:
        for name in dtype.names:  # field by field: skips padding bytes (a field is a view: its layout is not the data's)
            _feed_array_body(tk, h, np.ascontiguousarray(arr[name]))
    elif dtype.kind in "OT" or dtype.hasobject:
        h.update(b"elements:")
        tk.descend(h, arr, lambda tk, h, a: _feed_elements(tk, h, a.ravel().tolist()))
    else:
        _write_buffer(h, arr)


def _feed_elements(tk: _Tokenizer, h: _Hash, items: list[Any]) -> None:
    h.update(_u64(len(items)))
    if all(type(x) is str for x in items):  # fast path for text columns
        h.update(b"strs:")
        lengths = np.fromiter(map(len, items), dtype="<i8", count=len(items))
        h.update(lengths.view(np.uint8))
        _write_str(h, "".join(items))
    else:
        h.update(b"objs:")
        for item in items:
            tk.feed(h, item)


def _finite_sum(flat: np.ndarray) -> bool:
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(np.add.reduce(flat)))


def _written_as_digest(dtype: np.dtype, nbytes: int) -> bool:
    """Whether a C-contiguous buffer of ``nbytes`` bytes of ``dtype`` is written as its XXH3 digest."""
    return nbytes > _SMALL_BUFFER and dtype.kind in "biufc" and dtype.type not in _WIDE


def _write_buffer(h: _Hash, arr: np.ndarray) -> None:
    if arr.flags.c_contiguous:
        if _written_as_digest(arr.dtype, arr.nbytes):
            # the bytes of a C-contiguous buffer are hashed where they lie (no copy, no view)
            h.update(_u64(arr.nbytes) + b"xxh3:" + xxhash.xxh3_128_digest(arr))
            return
    else:  # its layout: a model computes in another order on another one (a last bit of StandardScaler's mean_)
        strides = (stride if n > 1 else 0 for n, stride in zip(arr.shape, arr.strides))
        h.update(b"strides:" + struct.pack(f"<{arr.ndim}q", *strides))
    flat = np.ascontiguousarray(arr).reshape(-1)
    if flat.dtype.kind == "c":
        flat = flat.view(flat.real.dtype)
    if flat.dtype.kind == "f" and flat.nbytes <= _SMALL_BUFFER and not _finite_sum(flat):
        nans = np.isnan(flat)
        if nans.any():  # every NaN payload becomes the canonical one
            flat = flat.copy()
            flat[nans] = np.nan
    raw = flat.view(np.uint8)
    if _LONGDOUBLE_BYTES is not None and flat.dtype.type is np.longdouble:
        raw = np.ascontiguousarray(raw.reshape(-1, flat.itemsize)[:, :_LONGDOUBLE_BYTES])
    h.update(_u64(raw.nbytes))
    if raw.nbytes <= _SMALL_BUFFER:
        h.update(raw)
    else:  # large buffers: their 128-bit XXH3 digest (tens of GB/s) stands for their bytes
        h.update(b"xxh3:" + xxhash.xxh3_128_digest(raw))


# --------------------------------------------------------------- pandas
def _feed_pandas(tk: _Tokenizer, h: _Hash, obj: Any) -> bool:
    pd = sys.modules.get("pandas")
    if pd is None:  # not imported, so obj cannot be a pandas object
        return False
    if isinstance(obj, pd.DataFrame):
        h.update(b"DataFrame:")
        tk.descend(h, obj, _feed_frame)
    elif isinstance(obj, pd.Series):
        h.update(b"Series:")
        tk.feed(h, obj.name)
        _feed_index(tk, h, obj.index)
        _feed_dtype(tk, h, obj.dtype)
        tk.descend(h, obj, _feed_values)
    elif isinstance(obj, pd.Index):
        _feed_index(tk, h, obj)
    elif isinstance(obj, pd.api.extensions.ExtensionArray):
        h.update(b"ExtensionArray:")
        _write_str(h, _qualname(type(obj)))
        _feed_dtype(tk, h, obj.dtype)
        tk.descend(h, obj, _feed_values)
    else:
        return False
    return True


def _feed_frame(tk: _Tokenizer, h: _Hash, df: Any) -> None:
    _feed_index(tk, h, df.columns)
    _feed_index(tk, h, df.index)
    dtypes = list(df.dtypes)
    h.update(_u64(len(dtypes)))
    for dtype in dtypes:
        _feed_dtype(tk, h, dtype)
    first = dtypes[0] if dtypes else None
    if isinstance(first, np.dtype) and first.kind not in "OTV" and len(set(dtypes)) == 1:
        h.update(b"block:")  # one numeric block: hash it in one pass
        _write_buffer(h, df.to_numpy().T)
    else:
        h.update(b"columns:")
        for j in range(len(dtypes)):
            _feed_values(tk, h, df.iloc[:, j])


def _feed_index(tk: _Tokenizer, h: _Hash, index: Any) -> None:
    pd = sys.modules["pandas"]
    if isinstance(index, pd.RangeIndex):
        h.update(b"RangeIndex:")
        tk.feed(h, (index.name, index.start, index.stop, index.step))
    elif isinstance(index, pd.MultiIndex):
        h.update(b"MultiIndex:")
        tk.feed(h, list(index.names))
        h.update(_u64(index.nlevels))
        for level, codes in zip(index.levels, index.codes):
            _feed_index(tk, h, level)
            _write_buffer(h, np.asarray(codes))
    else:
        h.update(b"Index:")
        _write_str(h, _qualname(type(index)))
        tk.feed(h, index.name)
        _feed_dtype(tk, h, index.dtype)
        if isinstance(index, (pd.DatetimeIndex, pd.TimedeltaIndex)):
            # scikit-learn's pandas output carries the input's index, freq included (a PeriodIndex's is its dtype's)
            h.update(b"freq:")
            tk.feed(h, index.freq)  # None, or a DateOffset (by its pickle, rule 9)
        tk.descend(h, index, _feed_values)


def _feed_values(tk: _Tokenizer, h: _Hash, values: Any) -> None:
    """Values of a Series, Index or ExtensionArray (dtype hashed by caller)."""
    pd = sys.modules["pandas"]
    if isinstance(values.dtype, np.dtype):
        _feed_array_body(tk, h, values.to_numpy())
        return
    arr = values if isinstance(values, pd.api.extensions.ExtensionArray) else values.array
    if isinstance(arr, pd.Categorical):
        tk.feed(h, arr.ordered)
        _feed_index(tk, h, arr.categories)
        _feed_array_body(tk, h, np.asarray(arr.codes))
        return
    nans = np.asarray(arr.isna(), dtype=bool)
    _write_buffer(h, nans)
    valid = arr[~nans] if nans.any() else arr
    try:
        data = np.asarray(valid._values_for_factorize()[0])
    except Exception:  # part of the extension interface, but optional
        data = np.asarray(valid.to_numpy())
    if data.dtype == object:  # e.g. masked integers: prefer the native dtype
        data = np.asarray(valid.to_numpy())
    _feed_array_body(tk, h, data)


# ----------------------------------------------------------- scipy.sparse
def _feed_sparse(tk: _Tokenizer, h: _Hash, obj: Any) -> bool:
    sparse = sys.modules.get("scipy.sparse")
    if sparse is None or not sparse.issparse(obj):
        return False
    h.update(b"sparse:")
    _write_str(h, _qualname(type(obj)))
    tk.feed(h, (obj.format, tuple(int(n) for n in obj.shape)))
    _feed_dtype(tk, h, obj.dtype)
    if obj.format not in ("csr", "csc", "bsr"):
        obj = obj.tocsr()
    for part in (obj.data, obj.indices, obj.indptr):
        _feed_array_body(tk, h, np.asarray(part))
    return True
