"""Which OpenBLAS kernels NumPy and SciPy run here: the bit-for-bit tests of the BLAS orders need SkylakeX's."""

from __future__ import annotations

import pytest
from scipy.linalg import blas as scipy_blas
from threadpoolctl import threadpool_info


def openblas_cores() -> set[str]:
    """The core types (``architecture``) of every OpenBLAS loaded: NumPy's and SciPy's."""
    assert callable(scipy_blas.ddot)  # SciPy's is loaded with its BLAS module, NumPy's with NumPy
    return {str(lib.get("architecture")) for lib in threadpool_info() if lib.get("internal_api") == "openblas"}


#: Where NumPy's and SciPy's OpenBLAS both run their SkylakeX kernels, whose orders wirework/export/openblas.py
#: writes; elsewhere (another core type, another BLAS) the products are added in other orders.
SKYLAKEX = openblas_cores() == {"SkylakeX"}

needs_skylakex = pytest.mark.skipif(
    not SKYLAKEX, reason=f"the file adds products as OpenBLAS's SkylakeX kernels do; here: {sorted(openblas_cores())}"
)
