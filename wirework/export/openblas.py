"""Float64 dot products as NumPy and SciPy get them from OpenBLAS, written with ONNX operators.

ONNX has no fused multiply-add, but ONNX Runtime 1.32's float64 ``MatMul`` computes every entry of a product as
one chain of them, left to right from 0: ``fma(a[k-1], b[k-1], ... fma(a[1], b[1], a[0] * b[0]))`` (checked in
``tests/export/test_openblas.py``). A chain that starts from a value ``s`` is then the product of ``[s, a...]``
and ``[1, b...]`` (``fma(s, 1, 0)`` is ``s``), and a row's chain with itself a batch of ``1 x k`` by ``k x 1``
products. With these, the graph adds what OpenBLAS adds, in its order, fused where it fuses.

Facts of OpenBLAS 0.3.31 (the library in NumPy's and SciPy's wheels) this module reproduces, for the kernels it
runs on an x86-64 CPU with AVX-512 (core type ``SkylakeX``, as ``threadpoolctl`` names it); its ``dgemv_t`` is
also the ``Haswell`` core type's (which OpenBLAS runs on AMD's Zen CPUs too), its ``ddot`` is not:

- ``x @ w`` of a C-ordered float64 ``[N, p]`` matrix and a vector (NumPy's ``matmul``) is ``ddot`` for one
  row and ``dgemv_t`` for more (with ``p == 1``, NumPy's own loop: one product per row, which both give too).
- ``dgemv_t`` (``kernel/x86_64/dgemv_t_4.c``) adds the first ``q = p - p % 4`` products of a row in one of three
  kernels, chosen by the row's position in the batch: the rows of the whole groups of 4 (rows below
  ``N - N % 4``) in four fused lanes (the products at positions ``j % 4 == l`` chained with FMA, lane by lane),
  then ``(L0 + L2) + (L1 + L3)``; when ``N % 4`` is 2 or 3, the next two rows in two unfused lanes (even and odd
  positions, each product rounded, then added), then ``L0 + L1``; when ``N % 4`` is odd, the last row in four
  unfused lanes, ``(L0 + L2) + (L1 + L3)``. The last ``p % 4`` products are then added by compiled C that GCC
  contracted: ``y = fma(a[q], w[q], y)`` for one, ``y + fma(a[q], w[q], a[q+1] * w[q+1])`` for two, and
  ``y + fma(a[q+2], w[q+2], fma(a[q], w[q], a[q+1] * w[q+1]))`` for three.
- ``ddot`` (``kernel/x86_64/ddot.c`` with its SkylakeX micro-kernel): below 16 products, one fused chain. From
  16, the first ``n1 = p - p % 16`` products go to 16 fused lanes ``(b, l)`` (``b`` < 4, ``l`` < 4): over the
  blocks of 32 below ``n32 = n1 - n1 % 32``, 32 lanes ``(b, l)`` for ``l`` < 8 chain the products at positions
  ``i + 8 * b + l``, and lane ``(b, l)`` starts from ``(b, l) + (b, l + 4)`` of them; over the blocks of 16 that
  remain it chains the products at ``i + 4 * b + l``; then ``v[l] = ((lane(0, l) + lane(1, l)) + lane(2, l)) +
  lane(3, l)``, the sum ``(v[0] + v[2]) + (v[1] + v[3])``, and the last ``p % 16`` products chained onto it.

OpenBLAS gives a thread a share of the rows of a ``dgemv_t`` once ``N * p`` reaches 460,800 (its
``GEMM_MULTITHREAD_THRESHOLD`` of 4 times 115,200), and the last rows of each share then take the kernels of
a batch's last rows: the graph follows one thread. A Fortran-ordered matrix (``np.asfortranarray``, a transpose)
goes to ``dgemv_n``, which adds in another order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from wirework.export.builder import GraphBuilder

__all__ = ["fused_chain", "ddot", "matrix_vector"]

_DOUBLE = np.float64


def fused_chain(
    g: GraphBuilder, x: str, columns: Sequence[int], weights: Any = None, start: str | None = None
) -> str:
    """``[N, 1]``: the products of the float64 ``x``'s ``columns`` with ``weights`` (a vector indexed by column;
    ``None``: each row with itself) added by fused multiply-adds, left to right, from ``start`` (``[N, 1]``) or
    from 0."""
    columns = list(columns)
    if len(columns) == 1 and start is None:  # fma(a, b, 0) is the rounded product
        column = g.columns(x, columns[0], columns[0] + 1)
        other = column if weights is None else g.const(np.asarray(weights, _DOUBLE)[columns], "weight", dtype=_DOUBLE)
        return g.op("Mul", [column, other], hint="product")
    part = g.take_columns(x, columns, hint="chain_columns")
    if weights is not None:
        values = np.asarray(weights, dtype=_DOUBLE)[columns]
        if start is not None:
            part = g.op("Concat", [start, part], axis=1, hint="chain_start")
            values = np.concatenate([[1.0], values])
        return g.op("MatMul", [part, g.const(values.reshape(-1, 1), "chain_weights", dtype=_DOUBLE)],
                    hint="fused_chain")
    left = right = part
    if start is not None:
        ones = g.op("Expand", [g.const(np.ones(1), "one", dtype=_DOUBLE), g.op("Shape", [start])], hint="ones")
        left = g.op("Concat", [start, part], axis=1, hint="chain_start")
        right = g.op("Concat", [ones, part], axis=1, hint="chain_start")
    rows = g.op("Unsqueeze", [left, g.const([1], "axis")], hint="chain_rows")
    cols = g.op("Unsqueeze", [right, g.const([2], "axis")], hint="chain_cols")
    return g.op("Reshape", [g.op("MatMul", [rows, cols], hint="fused_chain"), g.const([-1, 1], "column_shape")],
                hint="fused_chain")


def ddot(g: GraphBuilder, x: str, width: int, weights: Any = None) -> str:
    """``[N, 1]``: OpenBLAS's ``ddot`` (SkylakeX kernel) of each row of the float64 ``[N, width]`` ``x`` with
    ``weights``, or with itself (``None``): see the module's notes."""
    n1 = width - width % 16
    if n1 == 0:
        return fused_chain(g, x, range(width), weights)
    n32 = n1 - n1 % 32
    lanes = {}
    for b in range(4):
        for lane in range(4):
            start = None
            if n32:
                low, high = (fused_chain(g, x, range(8 * b + k, n32, 32), weights) for k in (lane, lane + 4))
                start = g.op("Add", [low, high], hint="ddot_lane")
            rest = range(n32 + 4 * b + lane, n1, 16)
            lanes[b, lane] = fused_chain(g, x, rest, weights, start) if len(rest) else start
    v = [g.added([lanes[b, lane] for b in range(4)]) for lane in range(4)]
    total = g.op("Add", [g.op("Add", [v[0], v[2]]), g.op("Add", [v[1], v[3]])], hint="ddot")
    return fused_chain(g, x, range(n1, width), weights, total) if width > n1 else total


def _unfused_lanes(g: GraphBuilder, products: str, stop: int, count: int) -> str:
    """``[N, count]``: lane ``l`` the sum of ``products[:, j]`` for ``j % count == l`` below ``stop``, left to
    right (each block of ``count`` columns added to the running lanes)."""
    running = g.columns(products, 0, count)
    for i in range(count, stop, count):
        running = g.op("Add", [running, g.columns(products, i, i + count)], hint="lanes")
    return running


def _four_lanes(g: GraphBuilder, lanes: list[str]) -> str:
    """``(L0 + L2) + (L1 + L3)``, as a 4-lane kernel ends."""
    return g.op("Add", [g.op("Add", [lanes[0], lanes[2]]), g.op("Add", [lanes[1], lanes[3]])], hint="lanes")


def _gemv_kernels(g: GraphBuilder, x: str, width: int, weights: np.ndarray) -> str:
    """``[N, 1]``: the first ``width - width % 4`` products of each row added by the ``dgemv_t`` kernel its
    position in the batch takes (see the module's notes)."""
    q = width - width % 4
    fused = _four_lanes(g, [fused_chain(g, x, range(lane, q, 4), weights) for lane in range(4)])
    products = g.op("Mul", [g.columns(x, 0, q), g.const(weights[:q].reshape(1, q), "weights", dtype=_DOUBLE)],
                    hint="products")
    two = _unfused_lanes(g, products, q, 2)
    paired = g.op("Add", [g.columns(two, 0, 1), g.columns(two, 1, 2)], hint="lanes")
    four = _unfused_lanes(g, products, q, 4)
    single = _four_lanes(g, [g.columns(four, lane, lane + 1) for lane in range(4)])
    # the row's position: below N - N % 4 (fused), the last row when N % 4 is odd (single), else paired
    n = g.op("Shape", [x], start=0, end=1, hint="rows")
    index = g.op("Range", [g.const(np.array(0), "zero_index"), g.op("Squeeze", [n]), g.const(np.array(1), "step")],
                 hint="row_index")
    index = g.op("Unsqueeze", [index, g.const([1], "axis")], hint="row_index")
    four_rows = g.const(np.array([4]), "four")
    remainder = g.op("Mod", [n, four_rows], hint="remainder")
    whole = g.op("Less", [index, g.op("Sub", [n, remainder])], hint="whole_groups")
    odd = g.op("Equal", [g.op("Mod", [remainder, g.const(np.array([2]), "two")]), g.const(np.array([1]), "one")])
    last = g.op("And", [odd, g.op("Equal", [index, g.op("Sub", [n, g.const(np.array([1]), "one")])])], hint="last")
    return g.op("Where", [whole, fused, g.op("Where", [last, single, paired])], hint="dgemv_t")


def matrix_vector(g: GraphBuilder, x: str, width: int, weights: Any) -> str:
    """``[N, 1]``: NumPy's ``x @ weights`` of the float64 C-ordered ``[N, width]`` ``x``: ``ddot`` for one row,
    ``dgemv_t`` for more, as OpenBLAS computes them (see the module's notes)."""
    weights = np.asarray(weights, dtype=_DOUBLE).reshape(-1)
    q = width - width % 4
    y = _gemv_kernels(g, x, width, weights) if q else None
    if width - q == 1:  # y = fma(a[q], w[q], y)
        y = fused_chain(g, x, [q], weights, y)
    elif width - q > 1:  # y + fma(a[q], w[q], a[q+1] * w[q+1]) (then fma(a[q+2], w[q+2], .)) before adding y
        tail = fused_chain(g, x, [q + 1, q, q + 2][: width - q], weights)
        y = tail if y is None else g.op("Add", [y, tail], hint="dgemv_t")
    single_row = g.op("Equal", [g.op("Shape", [x], start=0, end=1), g.const(np.array([1]), "one")], hint="one_row")
    return g.op("Where", [single_row, ddot(g, x, width, weights), y], hint="matrix_vector")
