"""The C library's ``expf`` as ONNX operators, bit for bit: what XGBoost's output transforms call.

XGBoost computes its probabilities and its ``exp`` objectives in float32
with ``expf`` (glibc's, on Linux). ONNX Runtime's ``Exp`` of a float32 is
another routine, and ``Exp`` in float64 rounded to float32 is the correctly
rounded value, which glibc's ``expf`` is not always (its error bound is
0.502 ulp): it gave 42 of 20,000 ``reg:logistic`` predictions one float32
step off, and a binary label can flip with them. glibc 2.27 and later compute ``expf`` (``sysdeps/ieee754/flt-32/e_expf.c``)
in float64 from a table of 32 values, and every step of it is an IEEE
operation ONNX Runtime rounds as C does:

1. ``z = x * 32 / ln 2`` (the constant ``0x1.71547652b82fep+0 * 32``);
2. ``k = round(z)``, half to even (glibc adds and subtracts ``0x1.8p52``);
   ``r = z - k``;
3. ``s = 2^((k mod 32) / 32) * 2^floor(k / 32)``: the table's correctly
   rounded powers of two, scaled exactly (glibc adds ``k << 47`` to the
   table entry's bits);
4. ``y = (C0 r + C1) r^2 + (C2 r + 1)``, then ``y * s`` rounded to float32.

glibc returns 0 below ``-0x1.9fe368p6`` (about -103.97) and infinity above
``0x1.62e42ep6`` (88.72); the steps give the same there, so the input is
clamped to ``[-104, 89]`` (which keeps the table indices in range) and NaN
stays NaN. Tested against ``expf`` through ``ctypes`` on float32 values a
few thousand steps apart from -105 to 105, on every float32 near both
limits and on random values: equal everywhere.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np

from wirework.export.builder import GraphBuilder

__all__ = ["expf"]

_N = 32
_INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * _N
_POLY = (
    float.fromhex("0x1.c6af84b912394p-5") / _N**3,
    float.fromhex("0x1.ebfce50fac4f3p-3") / _N**2,
    float.fromhex("0x1.62e42ff0c52d6p-1") / _N,
)
# x clamped to [-104, 89]: k in [-4802, 4109], so k + 4832 in [30, 8941] and floor(k / 32) + 151 in [0, 279].
_CLAMP = (-104.0, 89.0)
_SHIFT = 151 * _N
_SCALES = np.ldexp(1.0, np.arange(-151, 129))


def _table() -> np.ndarray:
    """``2^(i / 32)`` for ``i`` in ``0..31``, correctly rounded to float64 (glibc's ``__exp2f_data.tab``)."""
    with localcontext() as context:
        context.prec = 60
        ln2 = Decimal(2).ln()
        return np.array([float((ln2 * i / _N).exp()) for i in range(_N)])


_TABLE = _table()


def expf(g: GraphBuilder, x: str) -> str:
    """glibc's ``expf`` of a float32 value ``x``, elementwise; a float32 value (see the module docstring).

    Examples
    --------
    >>> import numpy as np, wirework as ww
    >>> from wirework.export.builder import GraphBuilder
    >>> g = GraphBuilder("float32")
    >>> g.add_output(expf(g, g.add_input("X", np.float32, [None])), "y", np.float32, [None])
    >>> ww.onnx.session(g.to_model()).run(None, {"X": np.float32([0, 1, -200, np.nan])})[0].tolist()
    [1.0, 2.7182817459106445, 0.0, nan]
    """
    f64 = np.float64
    xd = g.op("Clip", [g.cast(x, f64), *(g.const(np.array(v), "expf_clamp", dtype=f64) for v in _CLAMP)],
              hint="expf_x")  # NaN stays NaN
    z = g.op("Mul", [xd, g.const(np.array([_INV_LN2_N]), "inv_ln2_n", dtype=f64)], hint="expf_z")
    k = g.op("Round", [z], hint="expf_k")
    r = g.op("Sub", [z, k], hint="expf_r")
    shifted = g.op("Add", [g.cast(k, np.int64), g.const(np.array([_SHIFT]), "expf_shift")], hint="expf_k")
    # NaN's k is no integer: its index is clipped into the tables, and r keeps the result NaN
    shifted = g.op("Clip", [shifted, g.const(np.array(0), "zero_index"), g.const(np.array(len(_SCALES) * _N - 1),
                                                                           "expf_last")], hint="expf_k")
    n = g.const(np.array([_N]), "expf_n")
    entry = g.op("Gather", [g.const(_TABLE, "expf_table", dtype=f64), g.op("Mod", [shifted, n])], axis=0)
    scale = g.op("Gather", [g.const(_SCALES, "expf_scales", dtype=f64), g.op("Div", [shifted, n])], axis=0)
    c0, c1, c2 = (g.const(np.array([c]), f"expf_c{i}", dtype=f64) for i, c in enumerate(_POLY))
    head = g.op("Add", [g.op("Mul", [c0, r]), c1], hint="expf_p")
    tail = g.op("Add", [g.op("Mul", [c2, r]), g.const(np.ones(1), "one", dtype=f64)], hint="expf_q")
    y = g.op("Add", [g.op("Mul", [head, g.op("Mul", [r, r])]), tail], hint="expf_y")
    return g.cast(g.op("Mul", [y, g.op("Mul", [entry, scale], hint="expf_s")], hint="expf"), np.float32)
