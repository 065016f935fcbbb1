"""The scheduler: ready machines to an executor, results back, in dependency order.

A machine is *ready* when every machine it needs (upstream in the completed
graph) has finished its visit. Ready machines are planned in the scheduling
thread, in training order: each decides by the retraining rules and gathers
its training values (memoised for the pass); a machine that must fit hands
a job to the executor. Finished jobs are recorded in the scheduling thread,
which makes their dependants ready. Results do not depend on the executor:
the same jobs run on the same values.

Failures lose nothing: a machine whose fit raised keeps its last state;
machines that finished stay trained (the next fit resumes); with
``on_error="raise"`` running fits are awaited and recorded before the error
is raised; with ``on_error="continue"`` every machine not downstream of a
failure still trains and all failures are raised together at the end. An
interrupt (``KeyboardInterrupt``) cancels the fits not started, records
those done and propagates at once, without waiting for running ones.

A sequential pass that stops at the first failure (the default) needs none
of the bookkeeping of futures: it visits the machines one at a time in the
order the general loop would (``TrainingGraph.waves``), with the same
reports, and is cheaper per machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Set
from typing import Any

from wirework.errors import ArgumentError, MachineFitError, WireworkError, kind_name
from wirework.execution.executors import Unshipped, resolve_executor
from wirework.execution.progress import Progress, progress as watch
from wirework.graph.jobs import Job
from wirework.graph.machines import Machine
from wirework.graph.topology import training_graph
from wirework.graph.training import FitPass, register_scheduler

__all__ = ["schedule"]


def schedule(
    roots: Iterable[Any],
    *,
    run: FitPass,
    force: bool = False,
    forced: Sequence[Machine] = (),
    executor: Any = None,
    n_jobs: int | None = None,
    on_error: str = "raise",
    verbose: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[Machine]:
    """Train every machine ``roots`` need on ``executor``; return the machines visited.

    Parameters
    ----------
    roots : iterable of Node or Machine
    run : FitPass
        The pass's memo, cache and kept values.
    force, forced
        Condition 2 for every machine, or for the listed ones.
    executor : {"sequential", "threads", "processes"}, Executor or None
        Where fits run. ``None``: sequential, or threads when ``n_jobs > 1``.
    n_jobs : int, optional
        Workers of a thread or process pool (default: the cores).
    on_error : {"raise", "continue"}
        Stop at the first failure, or train everything the failures do not block.
    verbose : int, default=1
        ``0`` silences the progress bar (shown on a terminal for passes over ~1 s).
    progress : callable, optional
        Called with a dict (``done``, ``total``, ``machine``, ``action``,
        ``running``) after each machine's visit.
    """
    if on_error not in ("raise", "continue"):
        raise ArgumentError(f"Expected on_error to be 'raise' or 'continue'. Received: {on_error!r}.")
    # Machines by position in training order; who needs whom (kept by the roots between passes).
    graph = training_graph(roots)
    forced_ids = {id(m) for m in forced} if forced else _NONE_FORCED
    bar = watch(len(graph.machines), verbose=verbose, callback=progress)
    # The executor of this pass (its pools, files, scattered data its own): passes may share an executor at once.
    engine = resolve_executor(executor, n_jobs).open()
    try:
        if engine.name == "sequential" and on_error == "raise":  # each fit ends when submitted
            failure = _one_at_a_time(graph, run, force, forced_ids, engine, bar)
            failures = [] if failure is None else [failure]
        else:
            failures = _as_ready(graph, run, force, forced_ids, engine, bar, on_error)
    finally:
        engine.close()
        bar.close()
    if failures:
        if len(failures) == 1:
            raise failures[0]
        summary = "; ".join(str(f).split(". Model:")[0].rstrip(".") for f in failures)
        error = MachineFitError.wrapping(
            failures[0].__cause__ or failures[0],
            f"{len(failures)} machines failed to train: {summary}. The others that could train did; "
            "fix these and fit again to resume.",
        )
        error.failures = tuple(failures)
        raise error from failures[0]
    return list(graph.machines)


def _as_ready(
    graph: Any, run: FitPass, force: bool, forced_ids: Set[int], engine: Any, bar: Progress, on_error: str
) -> list[WireworkError]:
    """The general loop: ready machines to the executor, results back as they come; returns the failures, in
    training order (not as they came)."""
    machines, dependants = graph.machines, graph.dependants
    waiting = list(graph.needs)
    ready = [k for k, n in enumerate(waiting) if n == 0]
    blocked: set[int] = set()
    failures: list[tuple[int, WireworkError]] = []
    running: dict[Any, tuple[int, Job]] = {}
    deferred: list[Any] = []
    synchronous = engine.name == "sequential"
    watched = bar.watched  # then each machine is reported as its fit ends
    run.values_pickled = engine.pickles_values  # then a model that writes in place is not given copies

    def visited(k: int) -> None:
        bar.step(machines[k], running=len(running))
        for j in dependants[k]:
            waiting[j] -= 1
            if waiting[j] == 0:
                ready.append(j)

    def failed(k: int, error: WireworkError) -> None:
        failures.append((k, error))
        stack = [k]
        while stack:  # nothing downstream of a failure may train on stale or missing values
            for j in dependants[stack.pop()]:
                if j not in blocked:
                    blocked.add(j)
                    stack.append(j)
        visited(k)

    def collect(futures: list[Any]) -> None:
        for future, outcome in zip(futures, engine.outcomes(futures)):
            k, job = running.pop(future)
            failure = _record(job, outcome, run)
            if failure is not None:
                failed(k, failure)
                continue
            visited(k)

    try:
        while ready or running:
            ready.sort()  # positions in training order
            batch, ready[:] = list(ready), []
            for k in batch:
                machine = machines[k]
                stop = bool(failures) and on_error == "raise"
                if stop or k in blocked:
                    _block(machine, _STOPPED if stop else "a machine it needs failed")
                    visited(k)
                    continue
                try:
                    job = machine._plan(run, force=force or id(machine) in forced_ids, owed=graph.owed[k])
                except WireworkError as error:
                    _unplanned(machine, error)
                    failed(k, error)
                    continue
                if job is None:
                    visited(k)
                    continue
                try:
                    future = engine.submit(job.model, job.values, job.how)
                except Unshipped as error:  # its model or data cannot be pickled: this machine's failure
                    failed(k, _record(job, (None, error), run))  # type: ignore[arg-type]
                    continue
                running[future] = (k, job)
                if synchronous and getattr(future, "done", lambda: False)():
                    collect([future])  # known at once: a failure stops the batch right here
            if running:
                waiting_on = [f for f in running if f not in deferred]
                if not watched and all(not dependants[running[f][0]] for f in waiting_on):
                    done = engine.wait_all(waiting_on)  # nothing waits on any of them: one wait for all
                else:
                    done = engine.wait_any(waiting_on) if waiting_on else []
                # Results nothing waits for are fetched together later: one round trip for many (Dask); unless
                # progress is watched (the members of a flat ensemble were all reported at its end).
                if watched:
                    urgent = done
                else:
                    urgent = [f for f in done if dependants[running[f][0]]]
                    deferred.extend(f for f in done if not dependants[running[f][0]])
                if urgent:
                    collect(urgent)
                if deferred and len(deferred) == len(running):
                    batch_done, deferred[:] = list(deferred), []
                    collect(batch_done)
    except Exception:  # not a machine's failure (a progress callback raised, say): keep what runs, then raise
        _record_running(running, engine, run)
        raise
    except BaseException:  # an interrupt (KeyboardInterrupt, SystemExit): stop now, keeping what finished
        _record_finished(running, engine, run)
        raise
    return [error for _, error in sorted(failures, key=lambda failure: failure[0])]


def _one_at_a_time(
    graph: Any, run: FitPass, force: bool, forced_ids: Set[int], engine: Any, bar: Progress
) -> WireworkError | None:
    """The loop for an executor that fits in the calling thread, stopping at the first failure.

    Visits the machines in the order the general loop visits them when every
    fit is done as soon as it is submitted (:meth:`TrainingGraph.waves`), and
    reports the same actions. Returns the failure, or ``None``.
    """
    machines = graph.machines
    failure: WireworkError | None = None
    for k in graph.waves():
        machine = machines[k]
        if failure is not None:
            _block(machine, _STOPPED)
            bar.step(machine)
            continue
        try:
            job = machine._plan(run, force=force or id(machine) in forced_ids, owed=graph.owed[k])
        except WireworkError as error:
            _unplanned(machine, error)
            failure = error
            job = None
        if job is not None:
            failure = _record(job, engine.run(job.model, job.values, job.how), run)
        bar.step(machine)
    return failure


def _record_running(running: dict[Any, tuple[int, Job]], engine: Any, run: FitPass) -> None:
    """Wait for the fits still running and record them on their machines: nothing finished is lost."""
    futures = list(running)
    if futures:
        for future, outcome in zip(futures, engine.outcomes(engine.wait_all(futures))):
            _record(running.pop(future)[1], outcome, run)


def _record_finished(running: dict[Any, tuple[int, Job]], engine: Any, run: FitPass) -> None:
    """On an interrupt: cancel the fits not done, without waiting for them (a running one ends in the background
    and its result is dropped: its machine keeps its last training), and record those already done."""
    pending = [future for future in running if not future.done()]
    if pending:
        engine.cancel(pending)
    done = [future for future in running if future not in pending]
    if done:
        for future, outcome in zip(done, engine.outcomes(done)):
            _record(running.pop(future)[1], outcome, run)


_STOPPED = "an earlier failure stopped the pass"
_NONE_FORCED: frozenset[int] = frozenset()


def _block(machine: Machine, why: str) -> None:
    """Report ``machine`` as not visited by the rules: a failure stopped the pass or blocks it."""
    machine._report = {"action": "blocked", "reason": why}


def _unplanned(machine: Machine, error: WireworkError) -> None:
    """Report ``machine`` as failed before its fit: reading or checking its training values raised.

    An error of the machine's own (copying its model) has reported it already.
    """
    if getattr(error, "machine", None) is not machine:
        machine._report = {"action": "failed", "reason": f"its training values: {kind_name(error)}: {error}"}


def _record(job: Job, outcome: tuple[Any, BaseException | None], run: FitPass) -> WireworkError | None:
    """Record a finished job's ``(result, error)`` on its machine; return the failure to raise, if any."""
    result, error = outcome
    if isinstance(error, Unshipped):  # the job or its result could not travel to or from a worker
        return job.machine._failure(job, error.error, error.step, error.advice)
    if error is not None:  # the model's own error, from wherever it ran
        return job.machine._failure(job, error)
    fitted, output, seconds = result
    job.machine._finish(job, fitted, output, seconds, run.cache)
    return None


register_scheduler(schedule)
