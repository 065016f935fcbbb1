"""Error-free transformations as ONNX operators: exact sums and products, and a fused multiply-add.

ONNX has no fused multiply-add, yet the C library's ``exp`` on an x86-64 CPU
with FMA is built of them (:func:`wirework.export.libm.exp`). Each function
here is a float64 graph of ordinary IEEE operations, which ONNX Runtime
rounds to nearest-even one at a time:

- :func:`split`: Veltkamp's splitting of ``a`` into ``hi + lo``, ``hi``
  holding its leading ``53 - s`` bits (``s = 27`` for products);
- :func:`two_sum`: Knuth's ``s + e = a + b`` exactly, ``s`` the rounded sum;
- :func:`two_product`: Dekker's ``p + e = a * b`` exactly, ``p`` the
  rounded product;
- :func:`odd_sum`: ``a + b`` rounded to odd (the neighbour whose last
  significand bit is 1 when the sum is not a float64);
- :func:`fma`: ``a * b + c`` rounded once, by Boldo and Melquiond's
  emulation ("Emulation of FMA and correctly rounded sums: proved algorithms
  using rounding to odd", IEEE Trans. Computers 57, 2008): ``uh + ul = a b``
  and ``th + tl = c + uh`` exactly, then ``th + RO(tl + ul)`` rounded to
  nearest is the correctly rounded ``a b + c``.

They are exact as long as nothing overflows (``|a|`` below about 1e300 in a
split) and no partial product falls below the normal range (about 1e-292
for a product's error term); :func:`wirework.export.libm.exp` keeps its
values in those ranges.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from wirework.export.builder import GraphBuilder

__all__ = ["split", "split_constant", "two_sum", "two_product", "odd_sum", "fma"]

_F64 = np.float64
#: A value's name, a constant (a float, or an array of one per last-axis position), or for :func:`two_product`'s
#: ``b`` the names of a value and of its :func:`split` halves.
Operand = Union[str, float, np.ndarray, tuple[str, str, str]]


def _const(g: GraphBuilder, value: Any, hint: str) -> str:
    return g.const(np.atleast_1d(np.asarray(value, dtype=_F64)), hint, dtype=_F64)


def split(g: GraphBuilder, a: str, s: int = 27) -> tuple[str, str]:
    """Veltkamp's ``(hi, lo)``: ``hi = t - (t - a)`` with ``t = (2^s + 1) a``, ``lo = a - hi``; ``hi`` holds
    ``53 - s`` bits and ``lo`` the rest, exactly.

    Examples
    --------
    >>> import numpy as np, wirework as ww
    >>> g = GraphBuilder("float64")
    >>> x = g.add_input("X", np.float64, [None])
    >>> hi, lo = split(g, x, s=1)  # lo != 0: the last significand bit is 1
    >>> g.add_output(lo, "lo", np.float64, [None])
    >>> ww.onnx.session(g.to_model()).run(None, {"X": np.array([1.0, 1 + 2**-52, 3.0])})[0].tolist()
    [0.0, 2.220446049250313e-16, 0.0]
    """
    t = g.op("Mul", [a, _const(g, 2.0**s + 1.0, f"veltkamp_{s}")], hint="split_t")
    hi = g.op("Sub", [t, g.op("Sub", [t, a], hint="split_d")], hint="split_hi")
    return hi, g.op("Sub", [a, hi], hint="split_lo")


def split_constant(value: Any) -> tuple[Any, Any]:
    """:func:`split` of a constant (or of each of an array's), computed here: ``(hi, lo)`` with ``hi + lo ==
    value``.

    Examples
    --------
    >>> hi, lo = split_constant(0.1)
    >>> hi + lo == 0.1, hi.hex()
    (True, '0x1.9999998000000p-4')
    """
    value = np.asarray(value, dtype=np.float64)
    t = value * np.float64(2.0**27 + 1.0)
    hi = t - (t - value)
    return (float(hi), float(value - hi)) if hi.ndim == 0 else (hi, value - hi)


def two_sum(g: GraphBuilder, a: str, b: str, *, ordered: bool = False) -> tuple[str, str]:
    """Knuth's ``(s, e)``: ``s = a + b`` rounded and ``e`` its error, ``s + e == a + b`` exactly; ``ordered``:
    ``a`` is 0 or its exponent is at least ``b``'s, and Dekker's three operations suffice (``e = b - (s - a)``).

    Examples
    --------
    >>> import numpy as np, wirework as ww
    >>> g = GraphBuilder("float64")
    >>> a, b = g.add_input("A", np.float64, [None]), g.add_input("B", np.float64, [None])
    >>> for i, v in enumerate(two_sum(g, a, b)):
    ...     g.add_output(v, f"v{i}", np.float64, [None])
    >>> ww.onnx.session(g.to_model()).run(None, {"A": np.array([1.0]), "B": np.array([1e-20])})
    [array([1.]), array([1.e-20])]
    """
    s = g.op("Add", [a, b], hint="two_sum")
    if ordered:
        return s, g.op("Sub", [b, g.op("Sub", [s, a], hint="two_sum_b")], hint="two_sum_e")
    b_virtual = g.op("Sub", [s, a], hint="two_sum_b")
    a_virtual = g.op("Sub", [s, b_virtual], hint="two_sum_a")
    error = g.op("Add", [g.op("Sub", [a, a_virtual], hint="two_sum_da"), g.op("Sub", [b, b_virtual], hint="two_sum_db")],
                 hint="two_sum_e")
    return s, error


def _halves(g: GraphBuilder, b: Operand) -> tuple[str, str, str]:
    if isinstance(b, tuple):
        return b
    if isinstance(b, str):
        return (b, *split(g, b))
    hi, lo = split_constant(b)
    return _const(g, b, "fma_b"), _const(g, hi, "fma_b_hi"), _const(g, lo, "fma_b_lo")


def two_product(g: GraphBuilder, a: str, b: Operand, *, short: bool = False) -> tuple[str, str]:
    """Dekker's ``(p, e)``: ``p = a * b`` rounded and ``e`` its error, ``p + e == a * b`` exactly; ``b`` a value
    or a constant (split once, here); ``short``: ``a`` holds at most 26 significant bits (an integer below
    2^26, say) and is its own high half.

    Examples
    --------
    >>> import numpy as np, wirework as ww
    >>> g = GraphBuilder("float64")
    >>> a = g.add_input("A", np.float64, [None])
    >>> for i, v in enumerate(two_product(g, a, 1 + 2**-30)):
    ...     g.add_output(v, f"v{i}", np.float64, [None])
    >>> ww.onnx.session(g.to_model()).run(None, {"A": np.array([1 + 2**-30])})[1].tolist() == [2.0**-60]
    True
    """
    b, b_hi, b_lo = _halves(g, b)
    a_hi, a_lo = (a, None) if short else split(g, a)
    p = g.op("Mul", [a, b], hint="two_product")
    e = g.op("Sub", [g.op("Mul", [a_hi, b_hi]), p], hint="two_product_e")
    e = g.op("Add", [e, g.op("Mul", [a_hi, b_lo])], hint="two_product_e")
    if a_lo is None:
        return p, e
    e = g.op("Add", [e, g.op("Mul", [a_lo, b_hi])], hint="two_product_e")
    return p, g.op("Add", [e, g.op("Mul", [a_lo, b_lo])], hint="two_product_e")


def odd_sum(g: GraphBuilder, a: str, b: str) -> str:
    """``a + b`` rounded to odd: the sum where it is a float64, else whichever of its two neighbours has an odd
    significand (the rounded sum ``v`` when that one is odd, else the next float64 toward the sum's error ``e``).

    The last bit is :func:`split`'s low part with ``s = 1``. The next float64 is ``v + sign(e) 0.6 |v| 2^-52``
    rounded to nearest: a step of 0.6 to 1.2 of ``v``'s ulp, or 0.6 of it down from a power of two, whose
    lower neighbour is half an ulp away; the neighbour each time.

    Examples
    --------
    >>> import numpy as np, wirework as ww
    >>> g = GraphBuilder("float64")
    >>> a, b = g.add_input("A", np.float64, [None]), g.add_input("B", np.float64, [None])
    >>> g.add_output(odd_sum(g, a, b), "s", np.float64, [None])
    >>> s = ww.onnx.session(g.to_model()).run(None, {"A": np.ones(3), "B": np.array([2**-60, -2**-60, 2**-52])})[0]
    >>> [v.hex() for v in s.tolist()]
    ['0x1.0000000000001p+0', '0x1.fffffffffffffp-1', '0x1.0000000000001p+0']
    """
    v, error = two_sum(g, a, b)
    _, last = split(g, v, s=1)  # 0 where the last significand bit is 0
    step = g.op("Mul", [g.op("Sign", [error]), _const(g, 0.6 * 2.0**-52, "odd_step")], hint="odd_step")
    neighbour = g.op("Add", [v, g.op("Mul", [g.op("Abs", [v]), step], hint="odd_step")], hint="odd_neighbour")
    even = g.op("Equal", [last, _const(g, 0.0, "zero_f64")], hint="even")
    return g.op("Where", [even, neighbour, v], hint="odd_sum")  # step 0 where the sum was exact


def fma(g: GraphBuilder, a: str, b: Operand, c: Operand, *, short: bool = False, ordered: bool = False) -> str:
    """``a * b + c`` rounded once to nearest-even, as a fused multiply-add gives it (see the module docstring);
    ``b`` and ``c`` values or constants; ``short``: as :func:`two_product`'s; ``ordered``: ``c``'s exponent is
    at least the rounded product's (or ``c`` is 0), as :func:`two_sum`'s.

    Examples
    --------
    >>> import numpy as np, wirework as ww
    >>> g = GraphBuilder("float64")
    >>> a = g.add_input("A", np.float64, [None])
    >>> g.add_output(fma(g, a, a, -1.0), "y", np.float64, [None])
    >>> ww.onnx.session(g.to_model()).run(None, {"A": np.array([1 + 2**-30])})[0].tolist() == [2**-29 + 2**-60]
    True
    """
    high, low = two_product(g, a, b, short=short)
    c = c if isinstance(c, str) else _const(g, c, "fma_c")
    head, tail = two_sum(g, c, high, ordered=ordered)
    return g.op("Add", [head, odd_sum(g, tail, low)], hint="fma")
