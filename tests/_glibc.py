"""Which build of glibc's double exp this machine runs, for the tests that compare exports with it."""

from __future__ import annotations

import pytest

from wirework.errors import ExportError
from wirework.export.libm import exp_build


def glibc_exp_build() -> str | None:
    """``"glibc-fma"`` or ``"glibc-sse2"``; None under another C library."""
    try:
        return exp_build()
    except ExportError:
        return None


needs_glibc_exp = pytest.mark.skipif(glibc_exp_build() is None, reason="the C library's exp is not one of glibc's "
                                     "two x86-64 builds (>= 2.28) that wirework reproduces")
