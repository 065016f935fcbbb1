"""A process that fits through a disk FitCache shared with others (imported by worker processes from sys.path)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.linear_model import Ridge

import wirework as ww


def shared_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(200, 5)), rng.normal(size=200)


def fit_through(location: str, max_bytes: int | None, start: Any, rounds: int, seed: int, out: Any) -> None:
    """After ``start`` (a barrier), fit ``rounds`` ridges of a few alphas (the other processes fit the same ones)
    through the cache at ``location``; put ``(hits, misses, wrong fits, warnings or error)`` on ``out``."""
    X, y = shared_data()
    alphas = np.random.default_rng(seed).choice([1.0, 2.0, 3.0], size=rounds)
    cache = ww.FitCache(location, max_bytes=max_bytes)
    wrong = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            start.wait(timeout=60)
            for alpha in alphas:
                mach = ww.machine(Ridge(alpha=alpha), X, y).fit(cache=cache, verbose=0)
                wrong += not np.array_equal(mach.fitted_model.coef_, Ridge(alpha=alpha).fit(X, y).coef_)
        except BaseException as error:  # reported to the test, which fails with it
            out.put((cache.hits, cache.misses, wrong, f"{type(error).__name__}: {error}"))
            return
    out.put((cache.hits, cache.misses, wrong, [str(w.message) for w in caught]))


def resumable(fail: bool = False) -> Any:
    """A network to stop and resume: an encoder training by fit_transform, then ``first`` and ``middle`` (a
    Fragile told to ``fail``) on its output, then ``last`` on both. Returns the root node."""
    from _counting import Counting
    from _probes import CrossFitted, Fragile

    X_data, y_data = shared_data()
    X, y = ww.source(X_data, name="X"), ww.source(y_data, name="y")
    Z = ww.machine(CrossFitted(), X, y, name="encoder").transform(X)
    first = ww.machine(Counting(Ridge(), tag="first"), Z, y, name="first")
    middle = ww.machine(Fragile(fail=fail), Z, y, name="middle")
    both = ww.hcat(first.predict(Z), middle.predict(Z))
    return ww.machine(Counting(Ridge(), tag="last"), both, y, name="last").predict(both)


def actions(root: Any) -> dict[str, str]:
    return {mach.name: mach.report()["action"] for mach in root.machines()}
