"""A LightGBM model that records the thread cap LightGBM has while it fits (imported by worker processes)."""

from __future__ import annotations

import ctypes
from typing import Any

import lightgbm
from lightgbm.libpath import _LIB
from threadpoolctl import threadpool_info


class CappedProbe(lightgbm.LGBMRegressor):
    """``LGBMRegressor`` recording ``max_threads_`` (LightGBM's own cap, -1: none) and ``openmp_threads_``."""

    def fit(self, X: Any, y: Any, **kwargs: Any) -> CappedProbe:
        cap = ctypes.c_int(0)
        _LIB.LGBM_GetMaxThreads(ctypes.byref(cap))
        self.max_threads_ = cap.value
        self.openmp_threads_ = {info["num_threads"] for info in threadpool_info() if info["user_api"] == "openmp"}
        return super().fit(X, y, **kwargs)
