"""The pools of worker processes ``ProcessExecutor`` fits in.

One pool per number of workers, shared by the passes that use it, started
with ``forkserver`` (or ``spawn``) and shut down at exit; starting one shuts
down the idle pools of other sizes. Also when no pool can start (a main
module workers could not import) and what a broken pool's error says. The
executor itself is in :mod:`wirework.execution.executors`.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import multiprocessing
import os
import sys
import threading

from wirework.execution._shipping import _init_process
from wirework.execution.limits import inner_threads

__all__ = ["MAX_PROCESSES"]


_PROCESS_POOLS: dict[int, cf.ProcessPoolExecutor] = {}  # by number of workers
_POOL_USERS: dict[int, int] = {}  # passes using each pool now
_POOLS = threading.Lock()

#: More worker processes than a system can run at once (Linux's default ``pid_max``).
MAX_PROCESSES = 32768


def _start_pool(workers: int) -> None:
    """Start the pool of ``workers`` processes, shutting down the idle pools of other sizes: a pool kept for
    every ``n_jobs`` ever used would keep its processes for good. The caller holds ``_POOLS``."""
    for size in [size for size in _PROCESS_POOLS if size != workers and not _POOL_USERS.get(size)]:
        _PROCESS_POOLS.pop(size).shutdown(wait=False, cancel_futures=True)
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    _PROCESS_POOLS[workers] = cf.ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_init_process,
        initargs=(inner_threads(workers),),
    )


def _unimportable_main() -> str | None:
    """The path of the main module when worker processes could not import it, else ``None``.

    Workers started by ``forkserver`` or ``spawn`` import the parent's
    ``__main__`` again from its file (or by its name under ``python -m``);
    a program read from standard input has the file ``<stdin>``, which does
    not exist, and then every worker dies as it starts.
    """
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return None
    path = getattr(main, "__file__", None)
    return None if path is None or os.path.exists(path) else str(path)


_BROKEN = (
    "A worker process of executor='processes' died before this fit ended: killed (for memory, say), or failing as "
    "it started (its error is printed on standard error; a main module that starts fits when imported, without "
    "if __name__ == '__main__':, is a common cause). The next fit starts a new pool; executor='threads' needs no "
    "worker processes."
)


@atexit.register
def _shutdown_pools() -> None:
    for pool in _PROCESS_POOLS.values():
        pool.shutdown(wait=False, cancel_futures=True)
    _PROCESS_POOLS.clear()
