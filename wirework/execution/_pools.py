"""The pools of worker processes ``ProcessExecutor`` fits in.

One pool per number of workers, shared by the passes that use it, started
with ``forkserver`` (or ``spawn``) and shut down at exit, also the exit of a
process started by ``multiprocessing``; starting one shuts down the idle
pools of other sizes. A child made by ``fork`` starts pools of its own.
Also when no pool can start (a main module workers could not import) and
what a broken pool's error says. The executor itself is in
:mod:`wirework.execution.executors`.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import multiprocessing
import multiprocessing.util
import os
import sys
import threading

from wirework.execution._shipping import _init_process
from wirework.execution.limits import inner_threads

__all__ = ["MAX_PROCESSES"]


_PROCESS_POOLS: dict[int, cf.ProcessPoolExecutor] = {}  # by number of workers
_POOL_USERS: dict[int, int] = {}  # passes using each pool now
_POOLS = threading.Lock()
_SHUT_DOWN_BY = [0]  # the process that registered _shutdown_pools with multiprocessing's finalizers
_FORKED: list[bool] = []  # [True] in a child made by fork

#: More worker processes than a system can run at once (Linux's default ``pid_max``).
MAX_PROCESSES = 32768


def _start_pool(workers: int) -> None:
    """Start the pool of ``workers`` processes, shutting down the idle pools of other sizes: a pool kept for
    every ``n_jobs`` ever used would keep its processes for good. The caller holds ``_POOLS``."""
    if _SHUT_DOWN_BY[0] != os.getpid():
        # In a process that multiprocessing started, atexit handlers do not run, and as it ends it waits for its
        # children, the pool's workers, before Python's own shutdown of the pools would tell them to stop: it
        # never ended. Its finalizers run before that wait (this one first: the pools' queues close after it).
        multiprocessing.util.Finalize(None, _shutdown_pools, kwargs={"wait": True}, exitpriority=100)
        _SHUT_DOWN_BY[0] = os.getpid()
    for size in [size for size in _PROCESS_POOLS if size != workers and not _POOL_USERS.get(size)]:
        _PROCESS_POOLS.pop(size).shutdown(wait=False, cancel_futures=True)
    # A child made by fork shares its parent's record of a forkserver, which is not its child: starting workers
    # through it raised ChildProcessError. It spawns them.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() and not _FORKED else "spawn"
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


def _end_pool(pool: cf.ProcessPoolExecutor, workers: int) -> bool:
    """End ``pool`` (of ``workers`` processes) unless another pass uses it now: its worker processes are
    terminated and awaited, and the next pass starts a new pool. Returns whether it was ended.

    An interrupted pass gives up its fits; those its workers run (or were sent ahead) would run to their end,
    results dropped, and keep the program from exiting until then (the pool's shutdown at exit waits for them).
    """
    with _POOLS:
        if _PROCESS_POOLS.get(workers) is pool:
            if _POOL_USERS.get(workers, 0) > 1:  # another pass's fits run there too: not this pass's to end
                return False
            del _PROCESS_POOLS[workers]
    processes = list((getattr(pool, "_processes", None) or {}).values())  # a copy: the pool's thread edits it
    for process in processes:
        process.terminate()  # SIGTERM: a worker ends at once, in C code too (it sets no handler)
    for process in processes:
        process.join(_END_WAIT)
        if process.is_alive():
            process.kill()
            process.join(_END_WAIT)
    # The pool's manager thread finds its workers dead, fails the futures left with BrokenProcessPool (none is
    # cancelled: failing a cancelled one raised InvalidStateError in that thread) and ends. Awaited: at exit,
    # Python's shutdown of the pools wrote to the pipe that thread was closing meanwhile (OSError: Bad file
    # descriptor, printed).
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(_END_WAIT)
    return True


_END_WAIT = 5.0  # seconds a terminated worker is given to end


@atexit.register
def _shutdown_pools(wait: bool = False) -> None:
    """Shut down every pool (fits not started are cancelled); ``wait``: until their workers have ended."""
    for pool in _PROCESS_POOLS.values():
        pool.shutdown(wait=wait, cancel_futures=True)
    _PROCESS_POOLS.clear()


def _forget_pools() -> None:
    """In a child made by ``fork``: the parent's pools are its own (their threads did not come along, and a fit
    submitted to one never ended); a pass here starts a pool of its own, by ``spawn``."""
    _FORKED[:] = [True]
    _PROCESS_POOLS.clear()
    _POOL_USERS.clear()
    if _POOLS.locked():  # held by a thread of the parent, which is not here
        _POOLS.release()


os.register_at_fork(after_in_child=_forget_pools)
