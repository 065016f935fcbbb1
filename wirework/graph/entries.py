"""The file of a fit cache entry on disk: a header, then the pickle of the fitted model.

A pickle alone cannot tell whether it is whole, nor whether the code that
wrote it is the code that will read it: a file cut short or with one byte
changed may still load (a model with another coefficient), and a model
pickled by another scikit-learn, or by another version of a class of the
user's, loads into a model that predicts wrongly or fails later. So each
entry starts with two lines:

1. ``wirework fit cache entry`` (anything else is not an entry of this
   format: a file written by an older wirework, or by something else);
2. a JSON object: the format number, the pickle's length and XXH3-128
   digest, and ``code``: for each module the pickle refers to, what it was
   when the entry was written (its package's version, or for a module
   without one the digest of its source file; the standard library by the
   Python version).

:func:`read_entry` checks all of it before unpickling anything; an entry
that is cut short, corrupted, or written by other code is an
:class:`UnusableEntry` (the cache counts it a miss, removes it and fits
again).
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import pickle
import sys
import threading
from typing import Any

import xxhash

__all__ = ["UnusableEntry", "encode_entry", "read_entry"]

_MAGIC = b"wirework fit cache entry\n"
_FORMAT = 1
_PYTHON = "python"


class UnusableEntry(Exception):
    """An entry file that cannot give its model back: ``reason`` says why, ``stat`` is the file's
    ``os.stat_result`` when it was read."""

    def __init__(self, reason: str, stat: os.stat_result | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stat = stat


class _Recording(pickle.Pickler):
    """A pickler that notes the module of every class and function the pickle refers to."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.modules: set[str] = set()

    def reducer_override(self, obj: Any) -> Any:
        module = type(obj).__module__
        if isinstance(module, str):
            self.modules.add(module)
        if isinstance(obj, type) or callable(obj):  # classes and functions are pickled by their module's name
            module = getattr(obj, "__module__", None)
            if isinstance(module, str):
                self.modules.add(module)
        return NotImplemented


def encode_entry(obj: Any) -> tuple[bytes, memoryview]:
    """The header and the pickle of ``obj``, to write one after the other.

    Raises what pickling raises (an object that cannot be pickled).
    """
    buffer = io.BytesIO()
    pickler = _Recording(buffer)
    pickler.dump(obj)
    payload = buffer.getbuffer()
    code = dict(sorted(map(_code_of, pickler.modules)))
    header = {"format": _FORMAT, "bytes": len(payload), "xxh3": xxhash.xxh3_128_hexdigest(payload), "code": code}
    return _MAGIC + json.dumps(header, separators=(",", ":")).encode() + b"\n", payload


def read_entry(path: str | os.PathLike) -> Any:
    """The object stored in the entry file at ``path``.

    Raises
    ------
    FileNotFoundError
        No such entry (not stored, or removed by another process).
    UnusableEntry
        Not an entry of this format, cut short, corrupted, written by other
        code, or failing to unpickle.
    OSError
        The file could not be read.
    """
    with open(path, "rb") as handle:
        stat = os.fstat(handle.fileno())
        data = handle.read()
    if not data.startswith(_MAGIC):
        raise UnusableEntry("is not an entry of this wirework's format (written by an older version?)", stat)
    end = data.find(b"\n", len(_MAGIC))
    try:
        header = json.loads(data[len(_MAGIC) : end]) if end > 0 else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != _FORMAT:
        raise UnusableEntry("has a header this wirework cannot read (cut short, or another format)", stat)
    payload = memoryview(data)[end + 1 :]
    if len(payload) != header.get("bytes"):
        raise UnusableEntry(f"is cut short or padded ({len(payload)} bytes of pickle, {header.get('bytes')} written)", stat)
    if xxhash.xxh3_128_hexdigest(payload) != header.get("xxh3"):
        raise UnusableEntry("is corrupted (its checksum does not match)", stat)
    code = header.get("code")
    if not isinstance(code, dict):
        raise UnusableEntry("has a header this wirework cannot read (no code versions)", stat)
    for name, written in code.items():
        now = _code_now(name)
        if now != written:
            raise UnusableEntry(f"was written by other code ({name}: {written}; here: {now})", stat)
    try:
        return pickle.loads(payload)  # noqa: S301 - a directory the user created for this cache
    except Exception as error:
        raise UnusableEntry(f"could not be unpickled ({type(error).__name__}: {error})", stat) from error


# -- what the code was -------------------------------------------------------

_CODES: dict[str, tuple[str, str]] = {}  # module -> (name, signature), for versioned packages and the stdlib
_SOURCES: dict[str, tuple[int, int, str]] = {}  # file -> (mtime_ns, size, digest)
_LOCK = threading.Lock()
_PROCESS = os.urandom(8).hex()  # a module without a file (python -c, a notebook) matches only in this process


def _code_of(module: str) -> tuple[str, str]:
    """``(name, signature)`` of the code of ``module`` as it is in this process: its top-level package and its
    version; ``("python", version)`` for the standard library; else the module and the digest of its source."""
    found = _CODES.get(module)
    if found is not None:
        return found
    top = module.partition(".")[0]
    if top in sys.stdlib_module_names:
        found = (_PYTHON, sys.version.split()[0])
    else:
        package = sys.modules.get(top)
        version = getattr(package, "__version__", None)
        if isinstance(version, str):
            found = (top, version)
        else:  # no version to go by: the source file's content
            return module, _source_of(sys.modules.get(module))
    with _LOCK:
        _CODES[module] = found
    return found


def _code_now(name: str) -> str:
    """The signature that ``name`` (a key of an entry's ``code``) has in this process."""
    if name == _PYTHON:
        return sys.version.split()[0]
    if name not in sys.modules:
        try:
            importlib.import_module(name)  # as unpickling the entry would
        except Exception as error:
            return f"not importable ({type(error).__name__})"
    found_name, signature = _code_of(name)
    return signature if found_name == name else f"{found_name} {signature}"


def _source_of(module: Any) -> str:
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return f"process {_PROCESS}"
    try:
        stat = os.stat(path)
        kept = _SOURCES.get(path)
        if kept is not None and kept[:2] == (stat.st_mtime_ns, stat.st_size):
            return kept[2]
        with open(path, "rb") as source:
            digest = "source " + hashlib.blake2b(source.read(), digest_size=16).hexdigest()
    except OSError:
        return f"process {_PROCESS}"
    with _LOCK:
        _SOURCES[path] = (stat.st_mtime_ns, stat.st_size, digest)
    return digest
