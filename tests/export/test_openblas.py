"""NumPy's and SciPy's float64 dot products, added in the graph as OpenBLAS adds them (wirework/export/openblas.py).

The facts the module rests on are checked first: ONNX Runtime's ``MatMul`` computes each entry as one chain of
fused multiply-adds, and the OpenBLAS kernel a row of ``X @ w`` goes through depends on the row's position in
the batch. Then the graph's products against NumPy's (``dgemv_t``, ``ddot``) and SciPy's (``ddot``), bit for bit
where OpenBLAS runs its SkylakeX kernels (this machine's; elsewhere those tests are skipped, saying why).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from _openblas import needs_skylakex

import wirework as ww
from wirework.export.builder import GraphBuilder
from wirework.export.openblas import ddot, fused_chain, matrix_vector

pytest.importorskip("onnxruntime")


def _fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once (a Fraction is exact; its float is the nearest double)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _session(width: int, build):
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, width])
    g.add_output(build(g, x), "y", np.float64, [None, 1])
    return ww.onnx.session(g.to_model())


def _run(session, X: np.ndarray) -> np.ndarray:
    return session.run(None, {"X": np.ascontiguousarray(X)})[0][:, 0]


def _rows(rng, n: int, width: int) -> np.ndarray:
    """Rows whose columns differ in scale by orders of magnitude, so that the order of a sum shows."""
    return np.ascontiguousarray(rng.normal(size=(n, width)) * rng.lognormal(sigma=2, size=width))


@pytest.mark.parametrize("width", [2, 5, 13, 30, 64])
def test_a_matmul_is_one_fused_chain_and_a_start_joins_it(width):
    # the fact every product here rests on: entry = fma(a[k-1], b[k-1], ... fma(a[1], b[1], a[0] * b[0])); a
    # value prepended with a weight 1 is the chain's start; a row with itself is a batch of 1 x k products
    rng = np.random.default_rng(width)
    X, w = _rows(rng, 60, width), rng.normal(size=width)
    chain = np.array([_chain(row, w) for row in X])
    plain = np.array([sum((a * b for a, b in zip(row, w)), 0.0) for row in X])
    out = _run(_session(width, lambda g, x: g.op("MatMul", [x, g.const(w.reshape(-1, 1), "w")])), X)
    np.testing.assert_array_equal(out, chain)
    if width >= 5:  # where a chain and unfused products added left to right part
        assert (chain != plain).any()
    start = rng.normal(size=60) * 1e3
    started = _session(width, lambda g, x: fused_chain(
        g, g.columns(x, 1, width), range(width - 1), w[1:], g.columns(x, 0, 1)))
    np.testing.assert_array_equal(_run(started, np.column_stack([start, X[:, 1:]])),
                                  [_chain(row[1:], w[1:], s) for row, s in zip(X, start)])
    squares = _session(width, lambda g, x: fused_chain(g, x, range(width)))
    np.testing.assert_array_equal(_run(squares, X), [_chain(row, row) for row in X])


def _chain(a, b, start: float = 0.0) -> float:
    total = start
    for u, v in zip(a, b):
        total = _fma(float(u), float(v), total)
    return total


@needs_skylakex
def test_numpy_s_kernel_depends_on_the_row_s_position_in_the_batch():
    # the fact the position choice rests on: the same row gets other last bits as one of the last N % 4 rows
    rng = np.random.default_rng(0)
    X, w = _rows(rng, 400, 13), rng.normal(size=13)
    whole = X @ w
    assert ((X[:7] @ w)[4:] != whole[4:7]).any()  # rows 4-6 of 7: the paired and the single kernels
    singles = np.array([(X[i : i + 1] @ w)[0] for i in range(len(X))])  # one row: ddot
    assert (singles != whole).any()
    file = _session(13, lambda g, x: matrix_vector(g, x, 13, w))
    np.testing.assert_array_equal(_run(file, X[:7]), X[:7] @ w)
    np.testing.assert_array_equal(_run(file, X), whole)
    np.testing.assert_array_equal([_run(file, X[i : i + 1])[0] for i in range(len(X))], singles)

@needs_skylakex
@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 7, 13, 16, 17, 30, 33, 64])
def test_matrix_vector_is_numpy_s_product_for_every_batch_size(width):
    rng = np.random.default_rng(width)
    w = rng.normal(size=width)
    file = _session(width, lambda g, x: matrix_vector(g, x, width, w))
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 57]:
        X = _rows(rng, n, width)
        np.testing.assert_array_equal(_run(file, X), X @ w, err_msg=f"{n} rows of {width}")


@needs_skylakex
@pytest.mark.parametrize("width", [1, 5, 15, 16, 17, 31, 32, 33, 48, 64, 100])
def test_ddot_of_each_row_with_itself_is_scipy_s(width):
    # scikit-learn's squared row norms in its brute neighbour search: SciPy's BLAS ddot, row by row
    from sklearn.metrics._pairwise_distances_reduction._base import _sqeuclidean_row_norms64

    rng = np.random.default_rng(width)
    X = _rows(rng, 200, width)
    out = _run(_session(width, lambda g, x: ddot(g, x, width)), X)
    np.testing.assert_array_equal(out, np.asarray(_sqeuclidean_row_norms64(X, 1)))
    if width >= 16:  # from 16 columns the lanes are not one chain
        assert (out != [_chain(row, row) for row in X]).any()
