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


# -- exp (float64) ------------------------------------------------------------------------------------------

from fractions import Fraction  # noqa: E402

from wirework.errors import ExportError  # noqa: E402
from wirework.export import exact  # noqa: E402
from wirework.export.libm import _PROBES, exp, exp_build  # noqa: E402
from _glibc import glibc_exp_build, needs_glibc_exp  # noqa: E402


def c_exp(values: np.ndarray) -> np.ndarray:
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.exp.restype = ctypes.c_double
    libm.exp.argtypes = [ctypes.c_double]
    return np.array([libm.exp(v) for v in values.tolist()])


def file_exp(values: np.ndarray, fused: bool) -> np.ndarray:
    g = GraphBuilder("float64")
    g.add_output(exp(g, g.add_input("X", np.float64, [None]), fused=fused), "y", np.float64, [None])
    return ww.onnx.session(g.to_model()).run(None, {"X": values})[0]


def exp_inputs(seed: int, n: int) -> np.ndarray:
    """Random values over exp's whole range and near its limits, k ln2 / 128 and the midpoints between (where
    the table index changes), tiny and subnormal inputs, infinities and NaN; each with both its neighbours."""
    rng = np.random.default_rng(seed)
    step = np.log(2) / 128
    values = np.concatenate([
        rng.uniform(-760, 720, n), rng.normal(0, 5, n), rng.uniform(-745.2, -700, n), rng.uniform(700, 709.8, n),
        rng.uniform(-520, -505, n), rng.uniform(505, 520, n),
        (rng.integers(-138_000, 131_000, n) + 0.5) * step, rng.integers(-138_000, 131_000, n) * step,
        rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-1074, 0, n)),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 2.0**-54, -2.0**-54, 512.0, -512.0, 1024.0, 1e308, -1e308,
         709.782712893384, -745.1332191019411, -708.3964185322641],
    ])
    return np.concatenate([values, np.nextafter(values, np.inf), np.nextafter(values, -np.inf)])


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all((a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))))


@needs_glibc_exp
def test_exp_is_the_c_librarys_build_bit_for_bit_and_the_other_build_is_not():
    values = exp_inputs(0, 25_000)
    native = c_exp(values)
    fused = glibc_exp_build() == "glibc-fma"
    assert same_bits(file_exp(values, fused), native)
    other = file_exp(values, not fused)
    assert 20 <= int(np.sum(other != native)) <= 2_000  # about one value in two thousand


@needs_glibc_exp
def test_the_sse2_build_of_exp_matches_glibc_run_without_fma():
    """glibc picks its SSE2 build when told the CPU has no AVX2 and no FMA (its tunables, read at start-up):
    a child process computes exp so, and the unfused graph gives its values."""
    import subprocess
    import sys

    values = exp_inputs(1, 5_000)
    script = ("import sys, ctypes, ctypes.util, numpy as np; from wirework.export.libm import exp_build; "
              "f = ctypes.CDLL(ctypes.util.find_library('m')).exp; f.restype = ctypes.c_double; "
              "f.argtypes = [ctypes.c_double]; x = np.frombuffer(sys.stdin.buffer.read()); "
              "print(exp_build()); sys.stdout.flush(); sys.stdout.buffer.write(np.array([f(v) for v in x]).tobytes())")
    env = {**__import__("os").environ, "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"}
    done = subprocess.run([sys.executable, "-c", script], input=values.tobytes(), capture_output=True, env=env,
                          check=True)
    build, _, raw = done.stdout.partition(b"\n")
    assert build == b"glibc-sse2"
    assert same_bits(file_exp(values, fused=False), np.frombuffer(raw))


def test_exp_build_tells_the_two_builds_apart_and_refuses_another_library():
    def table(column):
        return lambda x: float.fromhex({p[0]: p[column] for p in _PROBES}[x.hex()])

    assert exp_build(table(1)) == "glibc-fma"
    assert exp_build(table(2)) == "glibc-sse2"
    with pytest.raises(ExportError, match=r"computes another exp .*Pass exp='glibc-fma' or exp='glibc-sse2'"):
        exp_build(lambda x: float(np.exp(np.float64(x)) * (1 + 2**-52)))


def fused_graph(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    g = GraphBuilder("float64")
    names = [g.add_input(n, np.float64, [None]) for n in "ABC"]
    g.add_output(exact.fma(g, *names), "y", np.float64, [None])
    return ww.onnx.session(g.to_model()).run(None, dict(zip("ABC", (a, b, c))))[0]


def test_emulated_fma_rounds_once_where_a_product_then_a_sum_rounds_twice():
    rng = np.random.default_rng(2)
    n = 30_000
    a, b = (rng.uniform(1, 2, n) * np.exp2(rng.integers(-30, 30, n)) * rng.choice([-1, 1], n) for _ in range(2))
    product = a * b
    kind = rng.integers(0, 3, n)
    exponent = np.frexp(product)[1]
    c = np.where(kind == 0, -product + rng.integers(-4, 5, n) * np.spacing(np.abs(product)) / 2,  # cancellation
                 np.where(kind == 1, np.ldexp(rng.integers(2**52, 2**53, n).astype(float), exponent - 51),  # ties
                          rng.uniform(-2, 2, n) * np.exp2(rng.integers(-30, 30, n))))
    # a tie of c + round(a b) that the product's error breaks: 1 + 2^-52 + (2^-53 - 2^-107)
    a, b, c = (np.append(v, w) for v, w in zip((a, b, c), (1 + 2**-27, (1 - 2**-27) * 2**-53, 1 + 2**-52)))
    exact_values = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a.tolist(), b.tolist(),
                                                                                    c.tolist())]
    got = fused_graph(a, b, c)
    assert got.tolist() == exact_values
    assert got[-1] == 1 + 2**-52 and (a * b + c)[-1] == 1 + 2**-51
    assert np.sum(a * b + c != np.array(exact_values)) > 1_000  # the unfused form is often another value


def test_exp_of_nan_is_nan_and_its_limits_are_glibcs():
    out = file_exp(np.array([np.nan, np.inf, -np.inf, 0.0, -800.0, 800.0, 1.0]), fused=True)
    assert np.isnan(out[0])
    assert out[1:].tolist() == [np.inf, 0.0, 1.0, 0.0, np.inf, np.e]
