"""Parallel training (issue 4): speed-up with 2 workers, and scheduler overhead per machine.

``python benchmarks/bench_execution.py speedup|overhead|nested|all [--rows 20000] [--rounds 1]``

speedup
    Fit of ``ww.Stack`` (Ridge, RandomForest(100), HistGradientBoosting;
    ``cv=KFold(5)``) on ``make_regression(rows, 20)``: 2 workers
    (``executor="threads"`` and ``"processes"``, ``n_jobs=2``) against 1
    (``executor="sequential"``), and scikit-learn's
    ``StackingRegressor(n_jobs=2)`` against ``n_jobs=1``, measured in the
    same run, candidates interleaved. Predictions are checked equal first.
    Target: wirework's 2-worker speed-up >= 1.7x (scikit-learn ~1.35x).
overhead
    20 Ridge fits on ``load_diabetes`` as 20 independent machines, fit
    through the scheduler with each executor, against a plain loop of
    ``clone(model).fit(X, y)``. Reported: milliseconds per machine over the
    plain loop (median of rounds). Target for Dask: <= 5 ms per machine.
nested
    4 ``RandomForestRegressor(n_estimators=200, n_jobs=-1)`` machines on
    ``make_regression(3000, 20)``, fitted with ``n_jobs=2`` threads and
    processes (pools warmed up first): seconds per fit and CPU seconds used
    by this process and its workers (medians of rounds; CPU time says what
    oversubscription costs even when other programs load the machine).
    To compare two checkouts, run this file with each on ``PYTHONPATH``,
    alternately (before the cap of joblib's loops, each forest ran as many
    threads as cores in each worker).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.base import clone
from sklearn.datasets import load_diabetes, make_regression
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor, StackingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold

import wirework as ww


def learners():
    return [
        ("ridge", Ridge()),
        ("forest", RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1)),
        ("boost", HistGradientBoostingRegressor(random_state=0)),
    ]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def speedup(rows: int, rounds: int) -> None:
    X, y = make_regression(n_samples=rows, n_features=20, noise=10.0, random_state=0)
    candidates = {
        "wirework sequential": lambda: ww.Stack(learners(), Ridge(), cv=KFold(5)).fit(X, y),
        "wirework threads n_jobs=2": lambda: ww.Stack(learners(), Ridge(), cv=KFold(5), executor="threads", n_jobs=2).fit(X, y),
        "wirework processes n_jobs=2": lambda: ww.Stack(learners(), Ridge(), cv=KFold(5), executor="processes", n_jobs=2).fit(X, y),
        "scikit-learn n_jobs=1": lambda: StackingRegressor(learners(), final_estimator=Ridge(), cv=KFold(5), n_jobs=1).fit(X, y),
        "scikit-learn n_jobs=2": lambda: StackingRegressor(learners(), final_estimator=Ridge(), cv=KFold(5), n_jobs=2).fit(X, y),
    }
    ww.Stack([("ridge", Ridge())], Ridge(), cv=2, executor="processes", n_jobs=2).fit(X[:100], y[:100])  # start the pool
    reference = candidates["wirework sequential"]().predict(X[:200])
    for name in ("wirework threads n_jobs=2", "wirework processes n_jobs=2"):
        assert np.array_equal(candidates[name]().predict(X[:200]), reference), name
    assert np.allclose(candidates["scikit-learn n_jobs=1"]().predict(X[:200]), reference, rtol=0, atol=1e-8)
    times: dict[str, list[float]] = {name: [] for name in candidates}
    names = list(candidates)
    for k in range(rounds):
        for name in names if k % 2 == 0 else names[::-1]:
            times[name].append(timed(candidates[name]))
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"\nStack of Ridge + RandomForest(100) + HistGradientBoosting, cv=KFold(5), {rows} x 20, {rounds} round(s)\n")
    print("| candidate | seconds (median) | speed-up vs its 1-worker run |")
    print("| --- | ---: | ---: |")
    for name in names:
        base = median["scikit-learn n_jobs=1"] if name.startswith("scikit") else median["wirework sequential"]
        print(f"| {name} | {median[name]:.1f} | {base / median[name]:.2f}x |")


def overhead(rounds: int) -> None:
    X_data, y_data = load_diabetes(return_X_y=True)
    models = [Ridge(alpha=0.1 * (k + 1)) for k in range(20)]

    def plain() -> None:
        for model in models:
            clone(model).fit(X_data, y_data)

    def through(executor) -> None:
        X, y = ww.source(X_data, name="X"), ww.source(y_data, name="y")
        machines = [ww.machine(model, X, y) for model in models]
        ww.mean(*[m.predict(X) for m in machines]).fit(executor=executor, verbose=0)

    import distributed

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40)
    client = distributed.Client(cluster)
    try:
        executors = {
            "sequential": "sequential",
            "threads (2)": ww.ThreadExecutor(2),
            "processes (2)": ww.ProcessExecutor(2),
            "dask LocalCluster (2 workers)": ww.DaskExecutor(client),
        }
        for executor in executors.values():  # warm up pools and workers
            through(executor)
        extra: dict[str, list[float]] = {name: [] for name in executors}
        for _ in range(rounds):
            base = timed(plain)
            for name, executor in executors.items():
                extra[name].append((timed(lambda: through(executor)) - base) / len(models) * 1e3)
            base_ms = base / len(models) * 1e3
        print(f"\n20 Ridge fits on load_diabetes, {rounds} rounds; plain loop: {base_ms:.2f} ms per fit\n")
        print("| executor | extra ms per machine over the plain loop (median) |")
        print("| --- | ---: |")
        for name, values in extra.items():
            print(f"| {name} | {statistics.median(values):.2f} |")
    finally:
        client.close()
        cluster.close()


def nested(rounds: int) -> None:
    X_data, y_data = make_regression(n_samples=3000, n_features=20, noise=10.0, random_state=0)

    def forests(kind: str) -> None:
        X, y = ww.source(X_data, name="X"), ww.source(y_data, name="y")
        machines = [
            ww.machine(RandomForestRegressor(n_estimators=200, n_jobs=-1, random_state=k), X, y) for k in range(4)
        ]
        ww.mean(*[m.predict(X) for m in machines]).fit(executor=kind, n_jobs=2, verbose=0)

    def cpu() -> float:  # seconds of CPU used by this process and its children (the pool's workers) so far
        import psutil

        here = psutil.Process()
        return sum(sum(p.cpu_times()[:2]) for p in [here, *here.children(recursive=True)] if p.is_running())

    ww.machine(Ridge(), X_data, y_data).fit(executor="processes", n_jobs=2, verbose=0)  # start the pool
    times: dict[str, list[tuple[float, float]]] = {"threads": [], "processes": []}
    for _ in range(rounds):
        for kind in times:
            used = cpu()
            wall = timed(lambda: forests(kind))
            times[kind].append((wall, cpu() - used))
    print(f"\n4 RandomForestRegressor(200, n_jobs=-1), 3000 x 20, n_jobs=2, {rounds} round(s); {ww.__file__}\n")
    print("| executor | seconds (median) | CPU seconds (median) |")
    print("| --- | ---: | ---: |")
    for kind, values in times.items():
        walls, cpus = zip(*values)
        print(f"| {kind} | {statistics.median(walls):.2f} | {statistics.median(cpus):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", choices=["speedup", "overhead", "nested", "all"], nargs="?", default="all")
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if args.which in ("overhead", "all"):
        overhead(max(args.rounds, 15))
    if args.which in ("speedup", "all"):
        speedup(args.rows, args.rounds)
    if args.which in ("nested", "all"):
        nested(args.rounds)


if __name__ == "__main__":
    main()
