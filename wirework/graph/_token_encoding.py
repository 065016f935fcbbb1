"""The byte writers every token encoding of :mod:`wirework.graph.fingerprint` is made of.

Integers as 8 little-endian bytes, byte strings and text preceded by their
length, floats with one canonical NaN, and the ``module.qualname`` that
names a class or function.
"""

from __future__ import annotations

import struct
from typing import Any

_NAN_BYTES = struct.pack("<d", float("nan"))


# Every encoding starts with a tag ending in ":" and is self-delimiting
# (lengths and counts are written before variable-size content), so the
# concatenation of encodings is unambiguous.

_Hash = Any  # hashlib's blake2b object has no public type


def _u64(n: int) -> bytes:
    return struct.pack("<Q", n)


def _write_bytes(h: _Hash, data: bytes) -> None:
    h.update(_u64(len(data)))
    h.update(data)


def _write_str(h: _Hash, s: str) -> None:
    _write_bytes(h, s.encode("utf-8", "surrogatepass"))


def _float_bytes(x: float) -> bytes:
    return _NAN_BYTES if x != x else struct.pack("<d", x)


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', None)}"
