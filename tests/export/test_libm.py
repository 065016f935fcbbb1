"""glibc's expf as ONNX operators: compared with the C library's own expf through ctypes."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

import wirework as ww  # noqa: E402
from wirework.export.builder import GraphBuilder  # noqa: E402
from wirework.export.libm import expf  # noqa: E402

_LIBC, _VERSION = platform.libc_ver()
_GLIBC = _LIBC == "glibc" and tuple(int(p) for p in _VERSION.split(".")[:2]) >= (2, 27)
needs_glibc = pytest.mark.skipif(not _GLIBC, reason="glibc 2.27's expf is the one reproduced; this C library is "
                                 f"{_LIBC or 'unknown'} {_VERSION}")


def c_expf(values: np.ndarray) -> np.ndarray:
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype = ctypes.c_float
    libm.expf.argtypes = [ctypes.c_float]
    return np.array([libm.expf(float(v)) for v in values], dtype=np.float32)


def file_expf(values: np.ndarray) -> np.ndarray:
    g = GraphBuilder("float32")
    g.add_output(expf(g, g.add_input("X", np.float32, [None])), "y", np.float32, [None])
    return ww.onnx.session(g.to_model()).run(None, {"X": values})[0]


def near(value: float, steps: int) -> np.ndarray:
    """The float32 values ``steps`` on either side of ``value``, each one float32 step from the next."""
    bits = np.float32(value).view(np.int32)
    return np.arange(bits - steps, bits + steps, dtype=np.int32).view(np.float32)


@needs_glibc
def test_expf_is_the_c_librarys_on_its_whole_range_and_at_its_limits():
    rng = np.random.default_rng(0)
    every = np.arange(0, np.float32(105.0).view(np.int32), 4999, dtype=np.int32).view(np.float32)
    values = np.concatenate([
        every, -every,  # float32 values a few thousand steps apart over [-105, 105]
        *(near(v, 1500) for v in (88.72284, -103.97208, -103.27893, -87.33655, 1.0)),
        rng.uniform(-104, 89, 50_000).astype(np.float32),
        np.float32([np.inf, -np.inf, 3.4e38, -3.4e38, 1e-45, -1e-45, -0.0]),
    ])
    native = c_expf(values)
    assert np.array_equal(file_expf(values), native)


def test_expf_of_nan_is_nan_and_of_infinities_as_c():
    values = np.float32([np.nan, np.inf, -np.inf, 0.0, 1.0])
    out = file_expf(values)
    assert np.isnan(out[0])
    assert out[1:].tolist() == [np.inf, 0.0, 1.0, np.float32(np.e)]
