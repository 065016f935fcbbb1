"""A content-addressed cache of fitted models, shared by independent machines.

The key of a training is the token of the model's class and deep
hyperparameters together with the tokens of its training data (see
:mod:`wirework.graph.fingerprint`): two machines, in two clones of a
composite, that train equal models on equal data share one fit. A change in
any hyperparameter or any cell of the data gives another key, so an entry is
never stale.

Cost: computing a key hashes the machine's training data once (tens of GB/s
for numeric arrays: a 3,000 × 20 float array takes about 10 µs), paid only
when a cache is on. What cached fits predict during training (a stack's
out-of-fold predictions) is kept with them, keyed by a hash of the input
(:meth:`FitCache.applied`), and so is a ``fit_transform``'s output on the
training data when a machine trains by it (see
:class:`~wirework.graph.machines.Machine`, "Training output").
"""

from __future__ import annotations

import numbers
import os
import pickle
import re
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from wirework.errors import ArgumentError, FitCacheWarning, ParameterError, StorageError
from wirework.graph.data import describe
from wirework.graph.entries import UnusableEntry, encode_entry, read_entry
from wirework.graph.fingerprint import model_token, tokenize

__all__ = ["FitCache"]

#: The default ``stale_after`` of :class:`FitCache`: seconds after which a temporary file of the cache's directory
#: that no writer has touched is taken for the leftover of a writer that died (killed between writing an entry and
#: renaming it into place) and removed. By age rather than by the writer's process id: processes of other hosts
#: may share the directory (a network file system), and a process id says nothing there. A writer alive that long
#: after its last write (stopped, or on a file system that hung) finds its file gone when it renames it: its fit is
#: kept, not cached, with a ``FitCacheWarning``; never a half-written entry.
STALE_SECONDS = 3600.0


class FitCache:
    """Fitted models keyed by (model class + deep hyperparameters, training data).

    Parameters
    ----------
    location : str or path-like, optional
        A directory to keep entries in, so that processes can share them.
        Entries are written atomically and read back with ``pickle``: point
        it only at a directory you created for this cache. Each entry file
        carries the checksum of its pickle and the versions of the code it
        refers to, checked before it is unpickled: an entry cut short,
        corrupted or written by other code is a miss, removed (see
        :mod:`wirework.graph.entries`). The temporary files of writers that
        died before renaming them into place are removed once untouched for
        ``stale_after`` seconds. ``None`` keeps entries in this process's
        memory.
    max_bytes : int, optional
        Evict the least recently used entries once their pickled sizes add
        up to more than this; a fit larger than this by itself is not
        stored (with a :class:`FitCacheWarning`) and evicts nothing.
        ``None``: no limit; an in-memory cache then does not measure sizes
        (measuring pickles each fitted model).
    stale_after : float, default=3600.0
        Seconds after which a temporary file of the cache's directory that
        no writer has touched is taken for the leftover of a writer that
        died, and removed (see :data:`STALE_SECONDS`). It must exceed the
        time a live writer takes to write its largest entry: a writer whose
        file was removed keeps its fit uncached, with a
        :class:`FitCacheWarning`. ``float("inf")`` never removes them. Used
        by disk caches only.

    Attributes
    ----------
    hits, misses : int
        Lookups that found, or did not find, a fitted model.
    value_hits, value_misses : int
        Lookups of values computed during training by a cached fit (see
        :meth:`applied`).

    Notes
    -----
    Copying a cache (``copy.deepcopy``, hence ``sklearn.base.clone`` of an
    estimator holding it) returns the same cache, so clones share their fits.
    Pickling an in-memory cache pickles its settings, not its entries.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> cache = ww.FitCache()
    >>> X, y = np.eye(3), np.arange(3.0)
    >>> for _ in range(2):
    ...     _ = ww.machine(Ridge(), X, y).fit(cache=cache)
    >>> cache.hits, cache.misses
    (1, 1)
    """

    def __init__(
        self, location: str | os.PathLike | None = None, max_bytes: int | None = None, *, stale_after: float = STALE_SECONDS
    ) -> None:
        self._setup(_checked_location(location), max_bytes, stale_after)
        if self.location is not None:
            _prepare_directory(self.location)

    def _setup(self, location: Path | None, max_bytes: int | None, stale_after: float) -> None:
        self.location = location
        self.max_bytes = max_bytes
        self.stale_after = stale_after
        self.hits = 0
        self.misses = 0
        self.value_hits = 0
        self.value_misses = 0
        self._entries: OrderedDict[str, tuple[Any, int | None]] = OrderedDict()  # fitted model, pickled size
        self._values: dict[str, dict[str, tuple[Any, int | None]]] = {}  # per fit: value token -> value, size
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int | None:
        """The bound on the entries' pickled sizes, in bytes (``None``: no bound)."""
        return self._max_bytes

    @max_bytes.setter
    def max_bytes(self, value: int | None) -> None:
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
            raise ArgumentError(
                f"Expected max_bytes to be a positive int or None. Received: {describe(value)}"
                + (f"; give int({value!r})." if isinstance(value, float) and value.is_integer() else ".")
            )
        if value is not None and value <= 0:
            raise ParameterError(
                f"Expected max_bytes to be a positive int or None. Received: {value!r}. A bound of zero or less "
                "would store nothing: give None for no bound, or don't give a cache."
            )
        self._max_bytes = None if value is None else int(value)

    @property
    def stale_after(self) -> float:
        """Seconds after which a temporary file no writer has touched is removed (disk caches)."""
        return self._stale_after

    @stale_after.setter
    def stale_after(self, value: float) -> None:
        expected = "Expected stale_after to be a positive number of seconds (default 3600.0; inf: never)"
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ArgumentError(f"{expected}. Received: {describe(value)}.")
        if value != value:
            raise ParameterError(f"{expected}. Received: nan. Give a number of seconds.")
        if value <= 0:
            raise ParameterError(
                f"{expected}. Received: {value!r}. A writer's temporary file would be removed while it is written; "
                "give more seconds than the slowest write of an entry takes."
            )
        self._stale_after = float(value)

    def __repr__(self) -> str:
        where = "memory" if self.location is None else str(self.location)
        settings = "" if self.max_bytes is None else f", max_bytes={self.max_bytes}"
        if self._stale_after != STALE_SECONDS:
            settings += f", stale_after={self._stale_after!r}"
        return f"FitCache({where}{settings}, entries={len(self)}, hits={self.hits}, misses={self.misses})"

    # Clones share the cache; pickles carry settings only.
    def __copy__(self) -> FitCache:
        return self

    def __deepcopy__(self, memo: dict) -> FitCache:
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {"location": self.location, "max_bytes": self.max_bytes, "stale_after": self.stale_after}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Checks the settings, not the file system: unpickled elsewhere (a Dask worker, another host), a directory
        # that cannot be used there costs warnings when fits are stored, not an error while unpickling. A cache
        # pickled before stale_after was a setting has the default.
        self._setup(_checked_location(state["location"]), state["max_bytes"], state.get("stale_after", STALE_SECONDS))

    # -- keys ----------------------------------------------------------------

    @staticmethod
    def key(model: Any, values: Sequence[Any]) -> str:
        """The key of training ``model`` (or its :func:`model_token`) on ``values``,
        its evaluated training arguments."""
        return tokenize(model if isinstance(model, str) else model_token(model), *values)

    # -- lookups -------------------------------------------------------------

    def get(self, key: str, with_output: bool = False, kind: type | None = None) -> Any | None:
        """The fitted model stored under ``key``, or ``None``.

        ``with_output``: return ``(fitted, output)``, the model and the output
        its ``fit_transform`` gave on the training data, and ``None`` (a miss)
        when the entry was stored without one. ``kind``: the class of the
        model to fit; a fit of another class is a miss (tokens name classes,
        so a class defined again under its name, in a notebook, has the key
        of the old one, whose fit an in-memory cache still holds).
        """
        with self._lock:
            found = self._get(key)
            fitted = found.fitted if type(found) is _Trained else found
            if kind is not None and found is not None and type(fitted) is not kind:
                found = None
            if found is not None:
                if with_output:
                    found = self._with_output(key, found)
                elif type(found) is _Trained:
                    found = found.fitted
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def _with_output(self, key: str, found: Any) -> tuple[Any, Any] | None:
        if self.location is not None:  # on disk, an output is stored with its model
            return (found.fitted, found.output) if type(found) is _Trained else None
        kept = self._values.get(key, {}).get(_OUTPUT)
        return None if kept is None else (found, kept[0])

    def _get(self, key: str) -> Any | None:
        if self.location is None:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]
        path = self._path(key)
        try:
            fitted = read_entry(path)
        except (FileNotFoundError, NotADirectoryError):  # not stored, evicted by another process, or no directory
            return None
        except UnusableEntry as problem:  # cut short, corrupted, or written by other code: fit again
            warnings.warn(
                f"FitCache entry {path.name} {problem.reason}; it is removed, and the model fitted again and stored.",
                FitCacheWarning,
                stacklevel=3,
            )
            _remove_if_unchanged(path, problem.stat)
            return None
        except OSError as error:  # unreadable (permissions, say): left as it is
            warnings.warn(
                f"FitCache entry {path.name} could not be read ({type(error).__name__}: {error}); the model is "
                "fitted again.",
                FitCacheWarning,
                stacklevel=3,
            )
            return None
        try:
            stamp = _now()
            os.utime(path, ns=(stamp, stamp))  # most recently used (see _now)
        except OSError:  # evicted by another process meanwhile: the model read is still good
            pass
        return fitted

    def applied(self, fit_key: str, fitted: Any, operation: str, value: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, the result of ``fitted``'s ``operation`` on ``value``, kept with the fit.

        Clones of a composite that share this cache and its fits also share
        what those fits compute during training (a stack's out-of-fold
        predictions, say), so a search over a final estimator computes them
        once. Only an in-memory cache that holds ``fitted`` itself under
        ``fit_key`` keeps values, so a kept value is exactly what that model
        computed; it is dropped with the fit. Keyed by the token of
        ``operation`` and ``value`` (one pass over the input's bytes). As with
        a training pass's other values, callers must not change a returned
        value in place.
        """
        if self.location is not None:
            return compute()
        entry = self._entries.get(fit_key)
        if entry is None or entry[0] is not fitted:
            return compute()
        key = tokenize(operation, value)
        kept = self._values.get(fit_key, {}).get(key)
        if kept is not None:
            with self._lock:
                self.value_hits += 1
            return kept[0]
        result = compute()
        size = None if self.max_bytes is None else _size(result)
        with self._lock:
            self.value_misses += 1
            entry = self._entries.get(fit_key)
            if entry is not None and entry[0] is fitted:  # not evicted (nor replaced) meanwhile
                # kept only if the fit with its values still fits the bound: they are evicted together
                if size is None or (entry[1] or 0) + self._values_size(fit_key) + size <= self.max_bytes:
                    self._values.setdefault(fit_key, {})[key] = (result, size)
                    self._evict()
        return result

    def put(self, key: str, fitted: Any, output: Any = None) -> None:
        """Store ``fitted`` under ``key`` (then evict down to ``max_bytes``), with the ``output`` its
        ``fit_transform`` gave on the training data if it trained by one.

        A fit that cannot be pickled (to measure or write it) or written (a
        full disk, say) is not stored, with a :class:`FitCacheWarning`; the
        caller keeps its fit.
        """
        try:
            oversized = self._put(key, fitted, output)
        except Exception as error:
            warnings.warn(
                f"FitCache could not store a fitted {type(fitted).__name__} ({type(error).__name__}: {error}); "
                "the fit is kept, but not cached.",
                FitCacheWarning,
                stacklevel=2,
            )
            return
        if oversized is not None:
            warnings.warn(
                f"FitCache did not store a fitted {type(fitted).__name__}: it takes {oversized} bytes "
                f"{'with its fit_transform output ' if output is not None else ''}pickled, more than max_bytes "
                f"({self.max_bytes}), so it would evict every other entry and then itself. The fit is kept, but "
                "not cached; raise max_bytes to cache fits this large.",
                FitCacheWarning,
                stacklevel=2,
            )

    def _put(self, key: str, fitted: Any, output: Any) -> int | None:
        """Store, or return the size of an entry larger than ``max_bytes`` by itself (not stored; the entries
        kept are evicted down to the bound all the same)."""
        header = b""
        if self.location is None and self.max_bytes is None:  # nothing needs the size: not measured
            payload = None
        elif self.location is None:
            payload = pickle.dumps(fitted, protocol=pickle.HIGHEST_PROTOCOL)
        else:  # the entry file: a header (checksum, code versions), then the pickle
            header, payload = encode_entry(fitted if output is None else _Trained(fitted, output))
        # in memory, an output is kept among the fit's values (measured when bounded); on disk, in the payload
        output_size = (
            _size(output) if output is not None and self.location is None and self.max_bytes is not None else None
        )
        if self.max_bytes is not None and payload is not None:
            size = len(header) + len(payload) + (output_size or 0)
            if size > self.max_bytes:
                with self._lock:
                    self._evict()
                return size
        with self._lock:
            if self.location is None:
                old = self._entries.get(key)
                if old is not None and old[0] is not fitted:  # values kept with the old object are its own
                    self._values.pop(key, None)
                self._entries[key] = (fitted, None if payload is None else len(payload))
                self._entries.move_to_end(key)
                if output is not None:
                    self._values.setdefault(key, {})[_OUTPUT] = (output, output_size)
            else:
                assert payload is not None
                path = self._path(key)
                path.parent.mkdir(parents=True, exist_ok=True)  # the whole directory too, if removed since
                handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
                try:
                    with os.fdopen(handle, "wb") as out:
                        out.write(header)
                        out.write(payload)
                    stamp = _now()
                    os.utime(temporary, ns=(stamp, stamp))
                    os.replace(temporary, path)  # atomic: never a half-written entry
                except BaseException:
                    Path(temporary).unlink(missing_ok=True)
                    raise
                _remove_stale(path.parent.glob(_TEMP_GLOB), self._stale_after)  # left by writers that died
            self._evict()
        return None

    def _path(self, key: str) -> Path:
        assert self.location is not None
        name = key if _TOKEN.fullmatch(key) else tokenize("FitCache key", key)  # only entry-shaped file names
        return self.location / name[:2] / f"{name}.pkl"

    def _files(self) -> list[Path]:
        """The entries' files, least recently used first."""
        return [path for path, _ in self._sized()]

    def _sized(self) -> list[tuple[Path, int]]:
        """Each entry's file and size, least recently used first; files another process removes meanwhile
        are left out."""
        assert self.location is not None
        found = []
        for path in self.location.glob(_ENTRY_GLOB):  # entries only: never another file kept there
            if path.name[:2] != path.parent.name:
                continue
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            found.append((stat.st_mtime_ns, path, stat.st_size))
        found.sort(key=lambda entry: entry[0])
        return [(path, size) for _, path, size in found]

    def _evict(self) -> None:
        if self.max_bytes is None:
            return
        if self.location is None:
            for key, (fitted, size) in list(self._entries.items()):  # entries stored before a bound was set
                if size is None:
                    self._entries[key] = (fitted, len(pickle.dumps(fitted, protocol=pickle.HIGHEST_PROTOCOL)))
            total = sum(size for _, size in self._entries.values()) + sum(map(self._values_size, self._entries))
            while self._entries and total > self.max_bytes:
                key, (_, size) = self._entries.popitem(last=False)
                total -= size + self._values_size(key)
                self._values.pop(key, None)
            return
        files = self._sized()
        total = sum(size for _, size in files)
        if total > self.max_bytes:  # short of room: the temporary files of writers that died go too
            self._remove_stale()
        for path, size in files:
            if total <= self.max_bytes:
                break
            total -= size
            path.unlink(missing_ok=True)

    def _remove_stale(self) -> None:
        """Remove the temporary files in the directory that no writer has touched for :attr:`stale_after`."""
        assert self.location is not None
        _remove_stale(self.location.glob("[0-9a-f][0-9a-f]/" + _TEMP_GLOB), self._stale_after)
        _remove_stale(self.location.glob(_PROBE_GLOB), self._stale_after)

    def _values_size(self, fit_key: str) -> int:
        kept = self._values.get(fit_key)
        if not kept:
            return 0
        for token, (value, size) in list(kept.items()):  # values kept before a bound was set
            if size is None:
                kept[token] = (value, _size(value))
        return sum(size for _, size in kept.values())

    # -- housekeeping --------------------------------------------------------

    @property
    def nbytes(self) -> int | None:
        """Pickled size of the entries, in bytes; ``None`` when not measured
        (an in-memory cache without ``max_bytes`` does not pickle its entries)."""
        return self._count()[1]

    def __len__(self) -> int:
        return len(self._entries) if self.location is None else len(self._files())

    def _count(self) -> tuple[int, int | None, int]:
        """Entries, their size (``None`` when not measured) and values kept with them, taken together: one
        listing of the directory, or the memory under the lock."""
        with self._lock:
            values = sum(map(len, self._values.values()))
            if self.location is not None:
                files = self._sized()
                return len(files), sum(size for _, size in files), values
            sizes = [size for _, size in self._entries.values()]
            sizes += [size for kept in self._values.values() for _, size in kept.values()]
            return len(self._entries), None if None in sizes else sum(sizes), values

    def clear(self) -> None:
        """Remove every entry (on disk, with the temporary files writers that died left, see
        :attr:`stale_after`) and reset the counters."""
        with self._lock:
            self._entries.clear()
            self._values.clear()
            if self.location is not None:
                for path in self._files():
                    path.unlink(missing_ok=True)
                self._remove_stale()
            self.hits = self.misses = self.value_hits = self.value_misses = 0

    def stats(self) -> dict[str, int | None]:
        """``hits``, ``misses``, ``entries``, ``bytes`` (pickled size, ``None`` when not measured: see
        :attr:`nbytes`), ``value_hits``, ``value_misses`` and ``values`` (values kept with fits)."""
        entries, size, values = self._count()
        return {
            "hits": self.hits,
            "misses": self.misses,
            "entries": entries,
            "bytes": size,
            "value_hits": self.value_hits,
            "value_misses": self.value_misses,
            "values": values,
        }


_CLOCK = threading.Lock()
_last_stamp = 0


def _now() -> int:
    """The time an entry's file is stamped with when it is written or read, in nanoseconds: the clock's,
    strictly later than the last stamp of this process.

    Eviction goes by these times. The system would stamp files with the time
    of its last clock tick (milliseconds apart), which puts the entries
    written and read within one tick in an arbitrary order.
    """
    global _last_stamp
    with _CLOCK:
        _last_stamp = max(time.time_ns(), _last_stamp + 1)
        return _last_stamp


def _checked_location(location: Any) -> Path | None:
    """``location`` as a path, or ``None``; what cannot be one is refused."""
    if location is None:
        return None
    if not isinstance(location, (str, os.PathLike)) or isinstance(location, bytes):
        raise ArgumentError(
            f"Expected location to be a directory path (str or path-like) or None. Received: {describe(location)}."
        )
    path = Path(location)
    if not str(location).strip():
        raise ParameterError(
            "Expected location to be a directory path or None. Received an empty path, which would be the current "
            "directory. Give a directory you created for this cache."
        )
    return path


def _prepare_directory(location: Path) -> None:
    """Make ``location`` a directory this process can write entries in, or raise :class:`StorageError`."""
    if location.exists() and not location.is_dir():
        raise StorageError(
            f"FitCache location {str(location)!r} is a file. Give a directory (it is created if missing) that "
            "holds nothing but this cache."
        )
    try:
        location.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=location, prefix=".wirework-probe-")  # what os.access cannot tell
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise StorageError(
            f"FitCache cannot use {str(location)!r} as its directory: {error}. Give a directory this process may "
            "create and write in."
        ) from error


def _remove_stale(paths: Iterable[Path], stale_after: float) -> None:
    """Remove those of ``paths`` (temporary files of this cache's own names) untouched for ``stale_after`` seconds."""
    cutoff = time.time() - stale_after
    for path in paths:
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:  # renamed into place or removed meanwhile, or not ours to remove
            pass


def _remove_if_unchanged(path: Path, stat: os.stat_result | None) -> None:
    """Remove the unusable entry ``path`` unless another process has replaced it since it was read."""
    try:
        now = path.stat()
        if stat is None or (now.st_ino, now.st_mtime_ns, now.st_size) == (stat.st_ino, stat.st_mtime_ns, stat.st_size):
            path.unlink()
    except OSError:  # removed meanwhile, or not ours to remove: the next fit replaces it
        pass


#: The keys of entries (tokens) and the names of their files: ``<first two characters>/<key>.pkl``.
_TOKEN = re.compile(r"[0-9a-f]{32}")
_ENTRY_GLOB = "[0-9a-f][0-9a-f]/" + "[0-9a-f]" * 32 + ".pkl"
#: The temporary files of entries being written (next to them: ``.<key>.<random>.tmp``), and of the check that
#: the directory can be written in (at its top).
_TEMP_GLOB = "." + "[0-9a-f]" * 32 + ".*.tmp"
_PROBE_GLOB = ".wirework-probe-*"

#: Where an in-memory cache keeps a fit's ``fit_transform`` output among its values (tokens are hexadecimal).
_OUTPUT = "fit_transform output"


class _Trained:
    """An on-disk entry of a model that trained by ``fit_transform``: the model and that output."""

    __slots__ = ("fitted", "output")

    def __init__(self, fitted: Any, output: Any) -> None:
        self.fitted = fitted
        self.output = output

    def __getstate__(self) -> tuple[Any, Any]:
        return self.fitted, self.output

    def __setstate__(self, state: tuple[Any, Any]) -> None:
        self.fitted, self.output = state


def _size(value: Any) -> int:
    """Bytes of a kept value: an array's buffer, else its pickle."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int) and type(value).__module__ == "numpy":
        return nbytes
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
