"""Global settings of wirework, with a context manager to change them for a block.

Examples
--------
>>> import wirework as ww
>>> ww.get_config()["cache"] is None
True
>>> with ww.config_context(cache=ww.FitCache()):
...     ww.get_config()["cache"] is not None
True
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from wirework.errors import ArgumentError

__all__ = ["get_config", "set_config", "config_context"]

_DEFAULTS: dict[str, Any] = {"cache": None}
_global: dict[str, Any] = dict(_DEFAULTS)


class _Local(threading.local):
    config: dict[str, Any] | None = None  # a thread's settings inside config_context, else the global ones


_local = _Local()


def _current() -> dict[str, Any]:
    config = _local.config  # read without a failed lookup: setting() is on every fit's path
    return _global if config is None else config


def setting(name: str) -> Any:
    """One setting in force, without copying them all (for the library's hot paths)."""
    return _current()[name]


def get_config() -> dict[str, Any]:
    """A copy of the settings in force: ``cache`` (a ``FitCache`` or ``None``).

    Examples
    --------
    >>> import wirework as ww
    >>> ww.get_config()
    {'cache': None}
    """
    return dict(_current())


def _check(settings: dict[str, Any]) -> None:
    from wirework.graph.cache import FitCache

    unknown = sorted(set(settings) - set(_DEFAULTS))
    if unknown:
        raise ArgumentError(f"Unknown setting(s) {unknown}. Known settings: {sorted(_DEFAULTS)}.")
    cache = settings.get("cache")
    if cache is not None and not isinstance(cache, FitCache):
        raise ArgumentError(f"Expected cache to be a ww.FitCache or None. Received: {type(cache).__name__}.")


def set_config(**settings: Any) -> None:
    """Change settings for the whole process (the current thread's block, inside ``config_context``).

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> cache = ww.FitCache()
    >>> ww.set_config(cache=cache)   # every fit from now on looks in this cache
    >>> for _ in range(2):
    ...     _ = ww.machine(Ridge(), np.eye(3), np.arange(3.0)).fit()
    >>> cache.hits, cache.misses
    (1, 1)
    >>> ww.set_config(cache=None)    # back to the default
    """
    _check(settings)
    _current().update(settings)


@contextlib.contextmanager
def config_context(**settings: Any) -> Iterator[None]:
    """Change settings inside a ``with`` block (for the current thread), then restore them.

    Examples
    --------
    >>> import wirework as ww
    >>> with ww.config_context(cache=ww.FitCache()):
    ...     type(ww.get_config()["cache"]).__name__
    'FitCache'
    >>> ww.get_config()["cache"] is None
    True
    """
    _check(settings)
    previous = _local.config
    _local.config = {**_current(), **settings}
    try:
        yield
    finally:
        _local.config = previous
