"""Deterministic content hashes ("tokens") for change detection and cache keys.

A token is the blake2b hex digest (32 characters) of a canonical, type-tagged,
prefix-free encoding of an object. Machines compare tokens to see whether
hyperparameters changed since the last training; model caches, possibly on a
disk shared between processes, use them as keys (class + deep hyperparameters
+ training data). Equal content gives equal tokens, in this process and in
others running the same library versions. Rules, tried in this order:

1. ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes`` are
   type-tagged: ``1``, ``1.0``, ``True``, ``"1"`` differ; so do ``0.0`` and
   ``-0.0``; all NaNs are equal (in arrays up to 4 KB too; in larger arrays
   NaNs with other bit patterns than ``np.nan`` may give other tokens — a
   safe miss, never a false match — so hashing them costs no extra pass).
2. ``tuple`` and ``list`` differ. Mappings hash their items in a canonical key
   order (string keys sorted, other keys by token), so insertion order does
   not matter; sets are order-independent. Subclasses (named tuples,
   ``OrderedDict``) add their class.
3. Classes, functions and builtins by module + qualname; a Python function
   (module-level, local or a lambda) also by code (bytecode, constants,
   names), defaults and closure, so a function defined again under its name
   with another body (a notebook cell run again after an edit) is another
   function. Bound methods by function +
   ``__self__``; ``functools.partial`` by func, args and keywords; enum
   members by class + name. An estimator a bound method or partial holds
   counts by rule 8 and by its pickle (what it learned): ``clone`` copies
   such a callable with what its estimators learned, so
   ``FunctionTransformer(ridge.predict)`` trained again computes with the
   ``ridge`` of that moment.
4. numpy arrays by dtype, shape and the raw bytes of a C-contiguous copy,
   and one that is not C-contiguous also by its strides (a model computes
   in another order on another layout: ``StandardScaler``'s ``mean_`` of a
   Fortran-ordered array differs in the last bit from that of its C copy);
   object and string arrays element by element, structured ones field by
   field; numpy scalars by dtype + value.
5. pandas objects by labels, names, dtypes, index and values; categoricals by
   categories, order flag and codes; other extension arrays by NA mask and
   the numpy form of their valid values; ``RangeIndex`` by start/stop/step;
   ``DatetimeIndex`` and ``TimedeltaIndex`` by their ``freq`` too (equal
   labels with ``freq='D'`` and ``freq=None`` differ: scikit-learn's pandas
   output carries the input's index, freq included).
6. scipy.sparse by class, format, shape, dtype, ``data``, ``indices``,
   ``indptr`` (after ``tocsr()`` for formats without them).
7. ``RandomState`` by ``get_state()``, ``Generator`` and bit generators by
   ``state``: a generator that has drawn numbers differs.
8. Estimators (objects with ``get_params``) by class and, recursively,
   ``get_params(deep=False)``, with their ``set_output`` configuration and
   their metadata requests (``set_fit_request(...)``: under scikit-learn's
   metadata routing, which steps of a ``Pipeline`` get the weights), each
   when set. If ``get_params`` fails, rule 9 applies.
   scikit-learn's ``FrozenEstimator`` (its ``fit`` does nothing and
   ``clone`` returns it: the model it wraps is used as trained) also by the
   pickle of the model it wraps, so its learned state counts: two frozen
   ``Ridge()`` trained on other rows differ.
9. Anything else by ``pickle.dumps(obj, protocol=5)``; if that fails, by
   identity (type, ``id()``, a per-process random salt): stable while the
   object lives, **never matching across processes**. An object that cannot
   be weakly referenced either has only ``id()``, which may be reused after
   it is garbage collected.

Costs and limits:

- Data costs one pass over its bytes with XXH3-128 (tens of GB/s: a
  3,000 × 20 float array takes ~10 µs, an 8 MB one ~0.3 ms); object and
  string arrays cost a Python loop over their elements, pickled objects a
  pickling. A function's code (bytecode, constants, names) is encoded once
  per code object, which is immutable, and its digest kept while the code
  object lives; its defaults and closure, which may change in place, at
  every token: ``FunctionTransformer(check_array)`` takes ~20 µs, not ~0.4 ms.
- Tokens see representation (byte order, memory layout, sparse index
  dtypes, ``RangeIndex`` versus ``Index``, numpy versus Python scalars). That only causes safe
  misses (a retraining, a cache miss), never equal tokens for different data.
- Classes count by name, not by body; functions by their own code, not by
  the globals they read (another function they call, defined again).
- Cycles become back-references (no ``RecursionError``); nesting deeper than
  ``MAX_DEPTH`` is hashed by rule 9, and pickles of objects holding sets may
  differ between processes.

This module holds the tokens' entry points, the hashing pass and rules 1 to
3, 8 and 9. Rules 4 to 6 (data: numpy, pandas, scipy.sparse) are in
:mod:`wirework.graph._data_tokens`; the byte writers every rule uses in
:mod:`wirework.graph._token_encoding`; the fast reading of an estimator's
parameters (:func:`param_values`, :func:`param_names`,
:func:`shallow_params`, ``attributes_getter``), which rule 8 and the
machines use, in :mod:`wirework.graph._params`. Their public names are
imported here again, where callers have always found them.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import itertools
import math
import os
import pickle
import struct
import threading
import types
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import xxhash
from sklearn.frozen import FrozenEstimator

from wirework.graph._data_tokens import (
    _feed_array_body,
    _feed_dtype,
    _feed_ndarray,
    _feed_pandas,
    _feed_sparse,
    _plain_dtype,
    _write_buffer,
    _written_as_digest,
)
from wirework.graph._params import attributes_getter, param_names, param_values, shallow_params
from wirework.graph._token_encoding import _Hash, _float_bytes, _qualname, _u64, _write_bytes, _write_str

__all__ = ["MAX_DEPTH", "model_token", "param_names", "param_values", "shallow_params", "tokenize"]
__all__ += ["attributes_getter"]  # moved to _params with param_values; still importable from here

#: Containers nested deeper than this are hashed by rule 9 (pickle).
MAX_DEPTH = 100

_DIGEST_SIZE = 16


def tokenize(*objs: object) -> str:
    """Return a deterministic hex token of the content of ``objs``.

    Equal content gives an equal token, in this process and in other
    processes running the same library versions. The rules for each type
    are listed in the module docstring.

    Parameters
    ----------
    *objs : object
        The objects to hash, taken together as a tuple.

    Returns
    -------
    str
        32 hexadecimal characters (a 128-bit blake2b digest).

    Examples
    --------
    >>> import numpy as np
    >>> from wirework.graph.fingerprint import tokenize
    >>> tokenize({"a": 1, "b": [1.0, None]}) == tokenize({"b": [1.0, None], "a": 1})
    True
    >>> tokenize(1) == tokenize(1.0)
    False
    >>> tokenize(np.arange(6.0)) == tokenize(np.arange(6.0))
    True
    """
    if len(objs) == 1 and type(objs[0]) is np.ndarray:  # training data: the common case in fewer steps
        array = objs[0]
        key = (array.dtype, array.shape)
        prefix = _DIGESTED_PREFIXES.get(key, _UNSEEN)
        if prefix is _UNSEEN:
            if len(_DIGESTED_PREFIXES) >= _MAX_PREFIXES:  # many shapes seen: start again
                _DIGESTED_PREFIXES.clear()
            prefix = _DIGESTED_PREFIXES[key] = _digested_prefix(array.dtype, array.shape)
        if prefix is not None and array.flags.c_contiguous:  # the bytes the general path writes for (array,)
            return hashlib.blake2b(prefix + xxhash.xxh3_128_digest(array), digest_size=_DIGEST_SIZE).hexdigest()
        plain = _plain_dtype(array.dtype)
        if plain is not None:
            h = hashlib.blake2b(b"tokenize:", digest_size=_DIGEST_SIZE)
            h.update(_ONE_ARRAY + plain + struct.pack(f"<{array.ndim + 1}Q", array.ndim, *array.shape))
            _write_buffer(h, array)
            return h.hexdigest()
    return _hexdigest(b"tokenize:", objs)


def model_token(model: object) -> str:
    """Return the token of an estimator's class and deep hyperparameters.

    Covers the class (module + qualname) and ``get_params(deep=False)``,
    where nested estimators (``Pipeline`` steps, meta-estimators, lists of
    ``(name, estimator)``) count by class and parameters in turn; fitted
    state is ignored, except the state of the model a scikit-learn
    ``FrozenEstimator`` wraps (rule 8). Other objects are hashed by the generic rules. Model
    tokens never equal :func:`tokenize` tokens (domain separation).

    Parameters
    ----------
    model : object
        Usually a scikit-learn-style estimator.

    Returns
    -------
    str
        32 hexadecimal characters.

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.pipeline import Pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from wirework.graph.fingerprint import model_token
    >>> def pipe(alpha):
    ...     return Pipeline([("s", StandardScaler()), ("r", Ridge(alpha=alpha))])
    >>> model_token(pipe(1.0)) == model_token(pipe(1.0))
    True
    >>> model_token(pipe(1.0)) == model_token(pipe(2.0))
    False
    """
    return _hexdigest(b"model:", model)


def _hexdigest(domain: bytes, obj: object) -> str:
    h = hashlib.blake2b(domain, digest_size=_DIGEST_SIZE)
    try:
        _Tokenizer().feed(h, obj)
    except RecursionError:  # the caller's stack was nearly full: never match
        h = hashlib.blake2b(b"unhashable:" + os.urandom(16), digest_size=_DIGEST_SIZE)
    return h.hexdigest()


class _Tokenizer:
    """One hashing pass; tracks the containers being encoded (cycles)."""

    __slots__ = ("_active", "_depth", "learned")

    def __init__(self) -> None:
        self._active: dict[int, int] = {}
        self._depth = 0
        self.learned = False  # within what a bound method or partial holds: estimators count by what they learned

    def digest(self, obj: object) -> bytes:
        h = hashlib.blake2b(digest_size=_DIGEST_SIZE)
        self.feed(h, obj)
        return h.digest()

    def feed(self, h: _Hash, obj: object) -> None:
        handler = _EXACT.get(type(obj))
        if handler is not None:
            handler(self, h, obj)
        else:
            _feed_other(self, h, obj)

    def feed_learned(self, h: _Hash, obj: object) -> None:
        """Encode ``obj``, held by a bound method or a partial: an estimator in it counts by what it learned too.

        ``clone`` copies such a callable with ``copy.deepcopy``, which keeps what the estimator learned (it
        clones an estimator that is a hyperparameter unfitted); so the copy a machine trains computes with it.
        """
        learned, self.learned = self.learned, True
        try:
            self.feed(h, obj)
        finally:
            self.learned = learned

    def descend(self, h: _Hash, obj: Any, write: Callable[..., None]) -> None:
        """Run ``write(self, h, obj)`` unless ``obj`` is on the stack."""
        key = id(obj)
        level = self._active.get(key)
        if level is not None:  # a cycle: refer back to the enclosing level
            h.update(b"backref:" + _u64(self._depth - level))
            return
        if self._depth >= MAX_DEPTH:
            _feed_opaque(self, h, obj)
            return
        self._active[key] = self._depth
        self._depth += 1
        try:
            write(self, h, obj)
        finally:
            self._depth -= 1
            del self._active[key]

    def feed_items(self, h: _Hash, items: list[tuple[Any, Any]]) -> None:
        """Encode mapping items in an order independent of insertion."""
        h.update(_u64(len(items)))
        if all(type(k) is str for k, _ in items):
            h.update(b"strkeys:")
            for key, value in sorted(items, key=lambda kv: kv[0]):
                _write_str(h, key)
                self.feed(h, value)
        else:
            h.update(b"keys:")
            keyed = sorted(((self.digest(k), v) for k, v in items), key=lambda kv: kv[0])
            if len({key_digest for key_digest, _ in keyed}) < len(keyed):
                # distinct keys with equal content (tuples holding different NaN objects, say): the values decide
                keyed.sort(key=lambda kv: (kv[0], self.digest(kv[1])))
            for key_digest, value in keyed:
                h.update(key_digest)
                self.feed(h, value)

    def feed_unordered(self, h: _Hash, elements: list[Any]) -> None:
        h.update(_u64(len(elements)))
        if all(type(e) is str for e in elements):
            h.update(b"strs:")
            for element in sorted(elements):
                _write_str(h, element)
        else:
            h.update(b"digests:")
            for element_digest in sorted(self.digest(e) for e in elements):
                h.update(element_digest)


# ------------------------------------------------------- rules 1 and 2
def _feed_int(tk: _Tokenizer, h: _Hash, n: int) -> None:
    h.update(b"int:")
    _write_bytes(h, n.to_bytes(n.bit_length() // 8 + 1, "little", signed=True))


def _feed_seq_items(tk: _Tokenizer, h: _Hash, seq: Any) -> None:
    h.update(_u64(len(seq)))
    for item in seq:
        tk.feed(h, item)


def _container(tag: bytes, body: Callable[..., None]) -> Callable[..., None]:
    def feed(tk: _Tokenizer, h: _Hash, obj: Any) -> None:
        h.update(tag)
        tk.descend(h, obj, body)

    return feed


_EXACT: dict[type, Callable[[_Tokenizer, _Hash, Any], None]] = {
    type(None): lambda tk, h, x: h.update(b"none:"),
    bool: lambda tk, h, x: h.update(b"true:" if x else b"false:"),
    int: _feed_int,
    float: lambda tk, h, x: h.update(b"float:" + _float_bytes(x)),
    complex: lambda tk, h, x: h.update(
        b"complex:" + _float_bytes(x.real) + _float_bytes(x.imag)
    ),
    str: lambda tk, h, x: (h.update(b"str:"), _write_str(h, x)),
    bytes: lambda tk, h, x: (h.update(b"bytes:"), _write_bytes(h, x)),
    bytearray: lambda tk, h, x: (h.update(b"bytearray:"), _write_bytes(h, bytes(x))),
    list: _container(b"list:", _feed_seq_items),
    tuple: _container(b"tuple:", _feed_seq_items),
    dict: _container(b"dict:", lambda tk, h, d: tk.feed_items(h, list(d.items()))),
    set: _container(b"set:", lambda tk, h, s: tk.feed_unordered(h, list(s))),
    frozenset: _container(b"frozenset:", lambda tk, h, s: tk.feed_unordered(h, list(s))),
    np.ndarray: lambda tk, h, x: _feed_ndarray(tk, h, x),  # the exact class; subclasses go by _feed_other
    types.FunctionType: lambda tk, h, x: _feed_callable(tk, h, x),  # neither type can be subclassed
    types.CodeType: lambda tk, h, x: _feed_callable(tk, h, x),
}


# ------------------------------------------------------------ dispatch
def _feed_other(tk: _Tokenizer, h: _Hash, obj: Any) -> None:
    if isinstance(obj, type):
        h.update(b"class:")
        _write_str(h, _qualname(obj))
    elif isinstance(obj, np.generic):
        h.update(b"npscalar:")
        _feed_array_body(tk, h, np.asarray(obj))
    elif isinstance(obj, np.ndarray):
        _feed_ndarray(tk, h, obj)
    elif isinstance(obj, enum.Enum):
        h.update(b"enum:")
        _write_str(h, _qualname(type(obj)))
        _write_str(h, obj.name)
    elif _feed_pandas(tk, h, obj) or _feed_sparse(tk, h, obj):
        pass
    elif isinstance(obj, np.random.RandomState):
        h.update(b"RandomState:")
        tk.feed(h, obj.get_state())
    elif isinstance(obj, (np.random.Generator, np.random.BitGenerator)):
        h.update(b"Generator:" if isinstance(obj, np.random.Generator) else b"BitGenerator:")
        bit_generator = obj.bit_generator if isinstance(obj, np.random.Generator) else obj
        tk.feed(h, bit_generator.state)
    elif not _feed_callable(tk, h, obj) and not _feed_estimator(tk, h, obj):
        _feed_container_or_opaque(tk, h, obj)


def _feed_estimator(tk: _Tokenizer, h: _Hash, obj: Any) -> bool:
    get_params = getattr(obj, "get_params", None)
    if not callable(get_params):
        return False
    try:
        params = shallow_params(obj)
    except Exception:  # a broken estimator: hash it by rule 9
        return False
    if not isinstance(params, Mapping):
        return False
    h.update(b"estimator:")
    _write_str(h, _qualname(type(obj)))
    learned = tk.learned
    if learned:  # it counts by what it learned: its pickle covers what it holds
        tk.learned = False
        try:
            tk.descend(h, obj, lambda tk, h, _: tk.feed_items(h, list(params.items())))
        finally:
            tk.learned = True
    else:
        tk.descend(h, obj, lambda tk, h, _: tk.feed_items(h, list(params.items())))
    output = getattr(obj, "_sklearn_output_config", None)
    if isinstance(output, Mapping) and output:  # set_output(...) changes what transform returns
        h.update(b"output:")
        tk.feed_items(h, list(output.items()))
    request = getattr(obj, "_metadata_request", None)
    if request is not None:  # set_fit_request(...): what a router (a Pipeline) gives it, under metadata routing
        h.update(b"requests:")
        serialize = getattr(request, "_serialize", None)
        tk.feed(h, serialize() if callable(serialize) else request)
    if learned:  # held by a bound method or partial, which clone copies as it is: what it learned counts
        h.update(b"learned:")
        _feed_opaque(tk, h, obj)
    elif isinstance(obj, FrozenEstimator):  # trained as it is: what it learned is what it predicts with
        h.update(b"frozen:")
        _feed_opaque(tk, h, obj.estimator)
    return True


def _feed_callable(tk: _Tokenizer, h: _Hash, obj: Any) -> bool:
    if isinstance(obj, types.FunctionType):
        h.update(b"function:")
        _write_str(h, _qualname(obj))
        # by code too, module-level ones included: one defined again under its name (a notebook cell run again
        # after an edit) is another function
        tk.descend(h, obj, _feed_function_body)
    elif isinstance(obj, types.BuiltinFunctionType):
        h.update(b"builtin:")
        _write_str(h, _qualname(obj))
        owner = getattr(obj, "__self__", None)
        tk.feed(h, None if isinstance(owner, types.ModuleType) else owner)
    elif isinstance(obj, types.MethodType):
        h.update(b"method:")
        tk.descend(h, obj, lambda tk, h, m: (tk.feed(h, m.__func__), tk.feed_learned(h, m.__self__)))
    elif isinstance(obj, functools.partial):
        h.update(b"partial:")
        tk.descend(h, obj, lambda tk, h, p: tk.feed_learned(h, (p.func, p.args, p.keywords)))
    elif isinstance(obj, types.CodeType):
        h.update(b"code:" + _code_digest(obj))
    elif isinstance(obj, types.ModuleType):
        h.update(b"module:")
        _write_str(h, obj.__name__)
    else:
        return False
    return True


def _feed_function_body(tk: _Tokenizer, h: _Hash, func: types.FunctionType) -> None:
    tk.feed(h, (func.__code__, func.__defaults__, func.__kwdefaults__))
    closure = func.__closure__ or ()
    h.update(_u64(len(closure)))
    for cell in closure:
        try:
            contents = cell.cell_contents
        except ValueError:  # an empty cell
            h.update(b"emptycell:")
        else:
            h.update(b"cell:")
            tk.feed(h, contents)


def _feed_code(tk: _Tokenizer, h: _Hash, code: types.CodeType) -> None:
    _write_bytes(h, code.co_code)
    tk.feed(h, (code.co_argcount, code.co_kwonlyargcount, code.co_flags))
    tk.feed(h, (code.co_consts, code.co_names, code.co_varnames))


#: Per code object, by identity: a weak reference to it and the digest of its encoding. A code object is
#: immutable, so its digest never changes; the entry goes when the code object does (``id()`` may be reused).
_CODE_DIGESTS: dict[int, tuple[weakref.ref[types.CodeType], bytes]] = {}


def _code_digest(code: types.CodeType) -> bytes:
    """The digest of ``code``'s encoding, computed once per code object.

    Encoding a code object walks its bytecode, constants (nested code included) and names: ~300 items and
    ~0.4 ms for scikit-learn's ``check_array``, at every token of a ``FunctionTransformer(check_array)``.
    A function defined again (a notebook cell run again) or given another ``__code__`` has another code
    object, so it is encoded afresh; its defaults and closure, which may change in place, are not cached.
    """
    key = id(code)
    entry = _CODE_DIGESTS.get(key)
    if entry is not None and entry[0]() is code:
        return entry[1]
    h = hashlib.blake2b(digest_size=_DIGEST_SIZE)
    _feed_code(_Tokenizer(), h, code)  # a pass of its own: the digest does not depend on where the code is met
    digest = h.digest()
    _CODE_DIGESTS[key] = (weakref.ref(code, functools.partial(_forget_code, key)), digest)
    return digest


def _forget_code(key: int, ref: weakref.ref[Any]) -> None:
    if (entry := _CODE_DIGESTS.get(key)) is not None and entry[0] is ref:  # not a newer code object's entry
        del _CODE_DIGESTS[key]


def _feed_container_or_opaque(tk: _Tokenizer, h: _Hash, obj: Any) -> None:
    if isinstance(obj, (Mapping, list, tuple, set, frozenset)):
        h.update(b"subclass:")
        _write_str(h, _qualname(type(obj)))
        tk.descend(h, obj, _feed_subclass_body)
    elif isinstance(obj, np.dtype):
        h.update(b"dtype:")
        _feed_dtype(tk, h, obj)
    elif isinstance(obj, memoryview):
        h.update(b"memoryview:")
        tk.feed(h, (obj.format, obj.shape))
        _write_bytes(h, obj.tobytes())
    else:
        _feed_opaque(tk, h, obj)


def _feed_subclass_body(tk: _Tokenizer, h: _Hash, obj: Any) -> None:
    if isinstance(obj, Mapping):
        tk.feed_items(h, list(obj.items()))
    elif isinstance(obj, (set, frozenset)):
        tk.feed_unordered(h, list(obj))
    else:
        _feed_seq_items(tk, h, obj)
    tk.feed(h, getattr(obj, "__dict__", None) or None)


# ---------------------------------------------------------------- rule 9

_IDENTITY_LOCK = threading.Lock()
_SERIALS: dict[int, tuple[weakref.ref[Any], int]] = {}
_COUNTER = itertools.count()
_SALT = os.urandom(16)


def _new_salt() -> None:
    global _SALT
    _SALT = os.urandom(16)


if hasattr(os, "register_at_fork"):  # a forked child must not share identities
    os.register_at_fork(after_in_child=_new_salt)


def _forget(oid: int, ref: weakref.ref[Any]) -> None:
    _SERIALS.pop(oid, None)  # runs as the object dies, before its id is reused


def _identity(obj: Any) -> bytes:
    """Process-local identity; a weak reference detects ``id()`` reuse."""
    oid = id(obj)
    with _IDENTITY_LOCK:
        entry = _SERIALS.get(oid)
        if entry is not None and entry[0]() is obj:
            serial = entry[1]
        else:
            try:
                ref = weakref.ref(obj, functools.partial(_forget, oid))
            except TypeError:  # not weakly referenceable: id() alone
                serial = 0
            else:
                serial = next(_COUNTER) + 1
                _SERIALS[oid] = (ref, serial)
    name = _qualname(type(obj)).encode("utf-8", "surrogatepass")
    return _SALT + _u64(oid) + _u64(serial) + _u64(len(name)) + name


def _feed_opaque(tk: _Tokenizer, h: _Hash, obj: Any) -> None:
    try:
        data = pickle.dumps(obj, protocol=5)
    except Exception:  # unpicklable (or too deep to pickle)
        h.update(b"identity:" + _identity(obj))
    else:
        h.update(b"pickle:")
        _write_bytes(h, data)


# ------------------------------------------- tokenize's fast path for one array
#: How the general path starts the encoding of a tuple holding one array.
_ONE_ARRAY = b"tuple:" + struct.pack("<Q", 1) + b"ndarray:"

#: Per ``(dtype, shape)``: what ``tokenize(array)`` writes before the XXH3 digest of a C-contiguous
#: buffer (see :func:`_write_buffer`), or ``None`` when such arrays are not hashed by their digest.
_DIGESTED_PREFIXES: dict[tuple[np.dtype, tuple[int, ...]], bytes | None] = {}
_MAX_PREFIXES = 1024
_UNSEEN = object()


def _digested_prefix(dtype: np.dtype, shape: tuple[int, ...]) -> bytes | None:
    plain = _plain_dtype(dtype)
    nbytes = dtype.itemsize * math.prod(shape)
    if plain is None or not _written_as_digest(dtype, nbytes):
        return None
    header = plain + struct.pack(f"<{len(shape) + 1}Q", len(shape), *shape)
    return b"tokenize:" + _ONE_ARRAY + header + _u64(nbytes) + b"xxh3:"
