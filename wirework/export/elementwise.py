"""NumPy's elementwise functions as ONNX: what a ``FunctionTransformer`` applies and a static node computes.

ONNX has no ``log1p`` or ``expm1``. Kahan's forms keep their accuracy near
0, where ``log(1 + x)`` and ``exp(x) - 1`` lose every digit: within 3 ulps
of NumPy's on values from 1e-300 to 1e300, infinities and NaN as NumPy (not
bit for bit, as ONNX Runtime's ``Log`` and ``Exp`` themselves are not).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from wirework.export.builder import GraphBuilder

__all__ = ["FUNCTIONS", "log1p", "expm1", "interp", "names"]


def log1p(g: GraphBuilder, x: str) -> str:
    """``np.log1p``: ``u = 1 + x``; ``x`` where ``u == 1``, else ``log(u) * (x / (u - 1))``; ``+inf`` at ``+inf``."""
    one = g.const(np.ones(1), "one")
    u = g.op("Add", [x, one], hint="log1p_u")
    product = g.op("Mul", [g.op("Log", [u]), g.op("Div", [x, g.op("Sub", [u, one])])], hint="log1p")
    near = g.op("Where", [g.op("Equal", [u, one]), x, product], hint="log1p")
    return g.op("Where", [g.op("IsInf", [u], detect_negative=0), u, near], hint="log1p")


def expm1(g: GraphBuilder, x: str) -> str:
    """``np.expm1``: ``u = exp(x)``; ``x`` where ``u == 1``, ``-1`` where ``u - 1 == -1``, else
    ``(u - 1) * (x / log(u))``; ``+inf`` where ``u`` is."""
    one = g.const(np.ones(1), "one")
    u = g.op("Exp", [x], hint="expm1_u")
    less = g.op("Sub", [u, one], hint="expm1_d")
    product = g.op("Mul", [less, g.op("Div", [x, g.op("Log", [u])])], hint="expm1")
    near = g.op("Where", [g.op("Equal", [u, one]), x, product], hint="expm1")
    low = g.op("Where", [g.op("Equal", [less, g.const(-np.ones(1), "minus_one")]), less, near], hint="expm1")
    return g.op("Where", [g.op("IsInf", [u]), u, low], hint="expm1")


def interp(g: GraphBuilder, x: str, xp: np.ndarray, fp: np.ndarray) -> str:
    """``np.interp(x, xp, fp)`` of a ``[N, 1]`` value, step by step as NumPy computes it (``xp`` increasing,
    repeats allowed): ``j`` the last point with ``xp[j] <= x``; ``fp[0]`` below the first point, ``fp[-1]``
    from the last one on, ``fp[j]`` where ``x == xp[j]``, else ``slope * (x - xp[j]) + fp[j]`` with ``slope =
    (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])`` (from ``xp[j+1]`` if that is NaN, then ``fp[j]`` if still NaN and
    ``fp[j] == fp[j+1]``); NaN stays NaN."""
    xs, ys = np.asarray(xp, dtype=np.float64), np.asarray(fp, dtype=np.float64)
    n = len(xs)
    passed = g.cast(g.op("LessOrEqual", [g.const(xs.reshape(1, -1), "xp"), x], hint="passed"), np.int64)
    j = g.op("Sub", [g.op("ReduceSum", [passed, g.const([1], "axis")], keepdims=1), g.const(np.array(1))], hint="j")
    at = g.op("Max", [j, g.const(np.array(0))], hint="j")
    following = g.op("Min", [g.op("Add", [at, g.const(np.array(1))]), g.const(np.array(n - 1))], hint="j_next")
    x_j, x_next = (g.op("Gather", [g.const(xs, "xp_values"), i], axis=0) for i in (at, following))
    y_j, y_next = (g.op("Gather", [g.const(ys, "fp_values"), i], axis=0) for i in (at, following))
    slope = g.op("Div", [g.op("Sub", [y_next, y_j]), g.op("Sub", [x_next, x_j])], hint="slope")
    between = g.op("Add", [g.op("Mul", [slope, g.op("Sub", [x, x_j])]), y_j], hint="interpolated")
    other = g.op("Add", [g.op("Mul", [slope, g.op("Sub", [x, x_next])]), y_next], hint="interpolated")
    flat = g.op("And", [g.op("IsNaN", [other]), g.op("Equal", [y_j, y_next])], hint="flat")
    other = g.op("Where", [flat, y_j, other], hint="interpolated")
    value = g.op("Where", [g.op("IsNaN", [between]), other, between], hint="interpolated")
    exact = g.op("Or", [g.op("Equal", [x, x_j]), g.op("Equal", [j, g.const(np.array(n - 1))])], hint="on_point")
    value = g.op("Where", [exact, y_j, value], hint="interpolated")  # from the last point on: fp[-1]
    value = g.op("Where", [g.op("Less", [j, g.const(np.array(0))]), g.const(ys[:1], "fp_first"), value])
    return g.op("Where", [g.op("IsNaN", [x]), x, value], hint="interp")


def _operator(op_type: str) -> Callable[[GraphBuilder, str], str]:
    return lambda g, x: g.op(op_type, [x], hint=op_type.lower())


#: Each NumPy function exported, and how.
FUNCTIONS: dict[Callable, Callable[[GraphBuilder, str], str]] = {
    np.log: _operator("Log"),
    np.exp: _operator("Exp"),
    np.sqrt: _operator("Sqrt"),
    np.negative: _operator("Neg"),
    np.absolute: _operator("Abs"),
    np.square: lambda g, x: g.op("Mul", [x, x], hint="squared"),
    np.log1p: log1p,
    np.expm1: expm1,
}


def names() -> str:
    """The exported functions, as a user writes them."""
    return ", ".join(f"np.{function.__name__}" for function in FUNCTIONS)
