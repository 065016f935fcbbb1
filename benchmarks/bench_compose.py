"""Composites against scikit-learn (issue 3): re-tuning a stack, refitting a pipeline, predicting one row.

Three benchmarks, each a ratio measured side by side in one run against the
named scikit-learn peer (the machines are 2 shared, noisy cores, so absolute
times matter little). Candidates run in interleaved rounds whose order
alternates (forward on even rounds, reversed on odd ones), and each figure
is the median over rounds; ratios are medians of per-round ratios. The
whole run is inside one ``threadpoolctl.threadpool_limits(1)`` block
(entered once: entering it before each timed call slows the first BLAS call
after it, which would inflate small baselines), and every estimator that
takes ``n_jobs`` (wirework's composites included) gets ``n_jobs=1``. Before
timing, each benchmark asserts that wirework gives scikit-learn's answer, so
no row can show a win for a wrong result. Tables name the wirework commit.

``retune``
    ``GridSearchCV`` (``cv=KFold(3)``, 10 values of ``final_estimator__alpha``)
    over a stack of Ridge, RandomForestRegressor(100) and
    HistGradientBoostingRegressor with a Ridge final estimator
    (``cv=KFold(5)``) on ``make_regression(3000, 20)``: scikit-learn's
    ``StackingRegressor`` against ``ww.Stack`` with a fresh ``ww.FitCache``
    per round (so each round pays its own first fits). Headline:
    ``refit=False`` (the tuning itself); second row: ``refit=True``. The
    scores of the two searches must agree to 1e-10 in every round. Reported:
    seconds, speed-up (scikit-learn / wirework), the cache's ``stats()``, and
    the memory of extra, untimed searches, each in a fresh spawned process:
    the tracemalloc peak of a wirework search (it sees Python objects and
    numpy buffers but not the C heap where scikit-learn keeps its trees, so
    it undercounts cached forests) and the growth of the process's peak RSS
    (wirework; scikit-learn too with ``--peer-peak``). A wirework search
    takes about 30 s and a scikit-learn one about 4 min on the project's
    machines, so the default is 2 rounds.
    Target: >= 8x faster.

``refit``
    StandardScaler -> PCA(10) -> Ridge on ``make_regression(3000, 20)``.
    Each round, each candidate is fitted (untimed) with one alpha, then
    refitted (timed: the ``fit`` call only) after ``set_params`` gives the
    other alpha (the two values alternate, so every timed refit is a real
    change). Candidates: the leaf alone, ``Ridge(alpha).fit(Z, y)`` on the
    precomputed transformed data (the baseline); ``ww.Pipeline``;
    scikit-learn's ``Pipeline(memory=joblib.Memory(<temp dir>))``, whose
    transformers come back from its cache; scikit-learn's ``Pipeline``
    without memory, for reference. Each candidate's ratio is the median of
    per-pair ratios, each pair being one refit of the candidate and one of
    the leaf timed right beside it (the pair's order alternates), so each
    ratio compares two fits made in the same state of the machine. The
    candidates still share the rounds, and what ran before a candidate's
    untimed fit still shows in its timed one: with no other candidate,
    wirework's refits follow one another on every other round and measure
    a few hundredths lower than with any second candidate (even one that
    does nothing). ``--only wirework`` leaves scikit-learn's pipelines out;
    the floor stays, so wirework is always measured beside another row.
    A last row, the floor, times the leaf after hashing X and y with
    wirework's tokens: the part of the cost that any refit pays when it
    checks by content that the data did not change (a copy must count as
    the same data, an array edited in place as new data).
    Default 200 rounds. Runs of the same code in different processes
    differ by a few hundredths (each process lays out its memory anew):
    ``--processes N`` repeats the benchmark in N fresh processes, one
    after another, and reports each process's ratio and their median.
    Target: wirework <= 1.2x the leaf (scikit-learn's memory pipeline ~10x).

``predict``
    ``ww.Pipeline.predict`` on one row (StandardScaler -> PCA(5) -> Ridge on
    ``load_diabetes``) against the pipeline's own fitted steps called by hand
    and scikit-learn's ``Pipeline`` of the same steps; 200 interleaved
    rounds of 200 calls. Target: wirework <= 1.05x by hand (scikit-learn's
    Pipeline ~1.18x).

``disturb``
    Why the refit costs more than its calls: the leaf's fit, timed after the
    leaf's own fit as in ``refit``, with one more untimed thing run between
    the two, in a random order per round (seeded): nothing (the baseline);
    hashing X and y with wirework's tokens; ``set_params`` of an unrelated
    scikit-learn ``Pipeline`` (about 560 Python calls); a ``fit`` of an
    unrelated, fitted ``ww.Pipeline`` on ``load_diabetes`` in which nothing
    changed (a pass that trains nothing, about 210 calls). A last row times
    ``Ridge.fit`` itself (a wrapper around it, on every row) inside
    ``ww.Pipeline``'s refit of ``refit``. Each row: the median of per-round
    ratios of its timed ``Ridge.fit`` to the baseline's. No target: it
    splits the refit's overhead into wirework's own time and the leaf
    running slower after wirework's code ran.

Run: ``python benchmarks/bench_compose.py retune|refit|predict|disturb|all``
(options: ``--rounds``, ``--calls``, ``--only wirework``, ``--processes``; ``--peer-peak`` also measures the peak
RSS growth of one scikit-learn search, ~4 more minutes per row). Prints
Markdown tables; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import joblib
import numpy as np
import sklearn
from sklearn.datasets import load_diabetes, make_regression
from sklearn.decomposition import PCA
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor, StackingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

import wirework as ww
from wirework.graph.fingerprint import tokenize

# ---------------------------------------------------------------- helpers


def order_of(names: list[str], k: int) -> list[str]:
    """Round ``k``'s order: forward on even rounds, reversed on odd ones."""
    return list(names) if k % 2 == 0 else list(names)[::-1]


def timed(fn: Callable[[], object]) -> float:
    """Seconds taken by ``fn()`` (``main`` holds ``threadpool_limits(1)`` around the whole run)."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_ratio(times: list[float], base: list[float]) -> float:
    return statistics.median(a / b for a, b in zip(times, base))


_STARTED_AT: list[str] = []  # the wirework revision when main() started


def versions() -> str:
    start = _STARTED_AT[0] if _STARTED_AT else revision()
    now = revision()
    where = start if now == start else f"{start} (the checkout changed to {now} during the run)"
    return (
        f"Python {platform.python_version()}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"wirework {ww.__version__} at {where}"
    )


def revision() -> str:
    """The git commit of the wirework checkout being measured (``+ local changes`` when dirty)."""
    root = Path(ww.__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "wirework"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "an unknown commit"
    return f"{commit} + local changes" if dirty else commit


# ------------------------------------------------------------- 1. retune

GRID = {"final_estimator__alpha": np.logspace(-3, 3, 10)}


def regression_data() -> tuple[np.ndarray, np.ndarray]:
    return make_regression(n_samples=3000, n_features=20, noise=10, random_state=0)


def base_learners() -> list[tuple[str, object]]:
    return [
        ("ridge", Ridge()),
        ("forest", RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1)),
        ("boost", HistGradientBoostingRegressor(random_state=0)),
    ]


def sklearn_stack() -> StackingRegressor:
    return StackingRegressor(base_learners(), final_estimator=Ridge(), cv=KFold(5), n_jobs=1)


def wirework_stack(cache: ww.FitCache) -> ww.Stack:
    return ww.Stack(base_learners(), Ridge(), cv=KFold(5), cache=cache, n_jobs=1)


def search(estimator: object, refit: bool) -> GridSearchCV:
    return GridSearchCV(estimator, GRID, cv=KFold(3), n_jobs=1, refit=refit)


def check_stacks(X: np.ndarray, y: np.ndarray) -> float:
    """Fit both stacks once on all rows; their predictions must agree. Returns the max abs difference."""
    expected = sklearn_stack().fit(X, y).predict(X)
    got = wirework_stack(ww.FitCache()).fit(X, y).predict(X)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-8)
    return float(np.max(np.abs(got - expected)))


def score_gap(a: GridSearchCV, b: GridSearchCV) -> float:
    gap = float(np.max(np.abs(a.cv_results_["mean_test_score"] - b.cv_results_["mean_test_score"])))
    assert gap <= 1e-10, f"wirework's cv scores differ from scikit-learn's by {gap:.3g} (> 1e-10)"
    return gap


def peak_rss() -> int:
    """This process's peak resident set size in bytes (Linux ``VmHWM``; ``ru_maxrss`` elsewhere).

    ``VmHWM`` belongs to the address space, so a spawned child starts afresh;
    ``ru_maxrss`` survives ``execve`` and would carry the parent's peak over.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def _search_memory(who: str, refit: bool, trace: bool) -> int:
    """In a fresh process: bytes one search adds to the peak (tracemalloc peak, or peak RSS growth)."""
    X, y = regression_data()
    estimator = sklearn_stack() if who == "sklearn" else wirework_stack(ww.FitCache())
    grid = search(estimator, refit)
    gc.collect()
    if trace:
        tracemalloc.start()
    before = peak_rss()
    with threadpool_limits(1):
        grid.fit(X, y)
    if trace:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak
    return peak_rss() - before


def search_memory(who: str, refit: bool, trace: bool) -> int:
    """:func:`_search_memory` run in a spawned child, so earlier runs leave no high-water mark."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_search_memory, (who, refit, trace))


def bench_retune(rounds: int, peer_peak: bool) -> None:
    rows = retune_rows(rounds, peer_peak)
    print(f"\n### retune ({rounds} rounds; {versions()})\n")
    print(
        "| GridSearchCV | scikit-learn s | wirework s | speed-up (sklearn / wirework) | max abs Δ mean_test_score "
        "| cache hits / misses / entries (kept values: hits / misses) | cache MB (pickled) | wirework tracemalloc peak MB "
        "| peak RSS growth MB: wirework / scikit-learn |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for refit, sk_s, ww_s, speedup, gap, stats, (traced, rss, peer) in rows:
        peer_text = f"{peer / 1e6:.0f}" if peer is not None else "not measured"
        size_text = "not measured" if stats["bytes"] is None else f"{stats['bytes'] / 1e6:.0f}"  # unbounded caches skip it
        print(
            f"| refit={refit} | {sk_s:.1f} | {ww_s:.1f} | **{speedup:.2f}x** | {gap:.1e} "
            f"| {stats['hits']} / {stats['misses']} / {stats['entries']} "
            f"({stats['value_hits']} / {stats['value_misses']}) | {size_text} "
            f"| {traced / 1e6:.0f} | {rss / 1e6:.0f} / {peer_text} |"
        )


def retune_rows(rounds: int, peer_peak: bool) -> list[tuple]:
    X, y = regression_data()
    gap = check_stacks(X, y)
    print(f"check: ww.Stack and StackingRegressor predictions agree (max abs diff {gap:.2g})", file=sys.stderr)
    names = ["scikit-learn StackingRegressor", "wirework Stack + FitCache"]
    rows = []
    for refit in (False, True):
        times: dict[str, list[float]] = {name: [] for name in names}
        gaps, stats = [], None
        for k in range(rounds):
            searches: dict[str, GridSearchCV] = {}
            for name in order_of(names, k):
                if name == names[0]:
                    searches[name] = search(sklearn_stack(), refit)
                else:
                    cache = ww.FitCache()
                    searches[name] = search(wirework_stack(cache), refit)
                gc.collect()
                times[name].append(timed(lambda: searches[name].fit(X, y)))
                print(f"  refit={refit} round {k + 1}: {name} {times[name][-1]:.1f} s", file=sys.stderr)
            gaps.append(score_gap(*searches.values()))
            stats = cache.stats()
            if refit:
                sk, wk = searches[names[0]], searches[names[1]]
                assert sk.best_params_ == wk.best_params_
                np.testing.assert_allclose(wk.predict(X), sk.predict(X), rtol=1e-10, atol=1e-8)
        memory = (
            search_memory("wirework", refit, trace=True),
            search_memory("wirework", refit, trace=False),
            search_memory("sklearn", refit, trace=False) if peer_peak else None,
        )
        sk_t, ww_t = times[names[0]], times[names[1]]
        speedup = median_ratio(sk_t, ww_t)
        rows.append((refit, statistics.median(sk_t), statistics.median(ww_t), speedup, max(gaps), stats, memory))
    return rows


# -------------------------------------------------------------- 2. refit

ALPHAS = (1.0, 3.0)
LEAF = "leaf alone: Ridge.fit(Z, y)"
FLOOR = "floor: hash X and y (wirework's tokens), then the leaf"


def refit_steps(alpha: float) -> list[tuple[str, object]]:
    return [("scaler", StandardScaler()), ("pca", PCA(n_components=10, random_state=0)), ("ridge", Ridge(alpha=alpha))]


def refit_rows(rounds: int, only_wirework: bool = False) -> tuple[float, dict[str, tuple[float, float]]]:
    """The leaf's median ms, and each candidate's median ms and ratio (median of per-pair ratios)."""
    X, y = regression_data()
    with tempfile.TemporaryDirectory(prefix="bench_compose_") as location:
        memory = joblib.Memory(location, verbose=0)
        pipes = {
            "wirework Pipeline": ww.Pipeline(refit_steps(ALPHAS[0]), n_jobs=1),
            "scikit-learn Pipeline(memory=...)": Pipeline(refit_steps(ALPHAS[0]), memory=memory),
            "scikit-learn Pipeline (no memory)": Pipeline(refit_steps(ALPHAS[0])),
        }
        if only_wirework:
            pipes = {name: pipe for name, pipe in pipes.items() if name.startswith("wirework")}
        reference = Pipeline(refit_steps(ALPHAS[0])).fit(X, y)
        Z = reference[:-1].transform(X)

        # check: after the change, every candidate predicts as the leaf refitted on Z
        for pipe in pipes.values():
            pipe.set_params(ridge__alpha=ALPHAS[0]).fit(X, y)
            pipe.set_params(ridge__alpha=ALPHAS[1]).fit(X, y)
        leaf = Ridge(alpha=ALPHAS[1]).fit(Z, y)
        for name, pipe in pipes.items():
            np.testing.assert_allclose(pipe.predict(X), leaf.predict(Z), rtol=1e-10, atol=1e-8, err_msg=name)
        actions = {k: v["action"] for k, v in pipes["wirework Pipeline"].report_()["machines"].items()}
        assert actions == {"scaler": "skipped", "pca": "skipped", "ridge": "updated"}, actions

        def leaf_refit(before: float, after: float) -> float:
            Ridge(alpha=before).fit(Z, y)
            return timed(lambda: Ridge(alpha=after).fit(Z, y))

        def pipeline_refit(pipe: object) -> Callable[[float, float], float]:
            def run(before: float, after: float) -> float:
                pipe.set_params(ridge__alpha=before).fit(X, y)
                pipe.set_params(ridge__alpha=after)
                return timed(lambda: pipe.fit(X, y))

            return run

        def hashed_leaf_refit(before: float, after: float) -> float:
            tokenize(X), tokenize(y), Ridge(alpha=before).fit(Z, y)

            def run() -> None:
                tokenize(X), tokenize(y)  # what any refit that checks the data's content must read
                Ridge(alpha=after).fit(Z, y)

            return timed(run)

        leaf_name = LEAF
        candidates = {name: pipeline_refit(pipe) for name, pipe in pipes.items()}
        candidates[FLOOR] = hashed_leaf_refit
        names = list(candidates)
        leaf_refit(*ALPHAS)  # warm up
        for name in names:
            candidates[name](*ALPHAS)
        times: dict[str, list[float]] = {name: [] for name in names}
        leaves: dict[str, list[float]] = {name: [] for name in names}  # the leaf timed beside each candidate
        for k in range(rounds):
            before, after = ALPHAS if k % 2 == 0 else ALPHAS[::-1]
            for name in order_of(names, k):
                for who in order_of([leaf_name, name], k):
                    if who == leaf_name:
                        leaves[name].append(leaf_refit(before, after))
                    else:
                        times[name].append(candidates[name](before, after))

    all_leaves = [t for name in names for t in leaves[name]]
    rows = {name: (statistics.median(times[name]) * 1e3, median_ratio(times[name], leaves[name])) for name in names}
    return statistics.median(all_leaves) * 1e3, rows


def _refit_rows_alone(rounds: int, only_wirework: bool) -> tuple[float, dict[str, tuple[float, float]]]:
    with threadpool_limits(1):  # a spawned child: the parent's limit does not reach it
        return refit_rows(rounds, only_wirework)


def bench_refit(rounds: int, only_wirework: bool = False, processes: int = 1) -> None:
    alone = ", without scikit-learn's pipelines" if only_wirework else ""
    if processes == 1:
        leaf_ms, rows = refit_rows(rounds, only_wirework)
        print(f"\n### refit ({rounds} rounds{alone}; {versions()})\n")
        print("| candidate | median ms per refit | ratio to the leaf (median of per-pair ratios) |")
        print("| --- | ---: | ---: |")
        print(f"| {LEAF} | {leaf_ms:.2f} | 1.00x |")
        for name, (ms, ratio) in rows.items():
            print(f"| {name} | {ms:.2f} | {ratio:.2f}x |")
        return
    runs = []
    for k in range(processes):  # one after another, each in a new process (its own memory layout)
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            runs.append(pool.apply(_refit_rows_alone, (rounds, only_wirework)))
        print(f"  refit process {k + 1}/{processes} done", file=sys.stderr)
    print(f"\n### refit ({processes} processes x {rounds} rounds{alone}; {versions()})\n")
    print("| candidate | median ms per refit | ratio to the leaf, each process | median over processes |")
    print("| --- | ---: | --- | ---: |")
    print(f"| {LEAF} | {statistics.median(leaf for leaf, _ in runs):.2f} | | 1.00x |")
    for name in runs[0][1]:
        ratios = [rows[name][1] for _, rows in runs]
        ms = statistics.median(rows[name][0] for _, rows in runs)
        each = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"| {name} | {ms:.2f} | {each} | **{statistics.median(ratios):.2f}x** |")


# ------------------------------------------------------------ 3. predict


def predict_candidates() -> dict[str, Callable[[], object]]:
    X_data, y_data = load_diabetes(return_X_y=True)

    def steps() -> list[tuple[str, object]]:
        return [("scaler", StandardScaler()), ("pca", PCA(n_components=5)), ("ridge", Ridge())]

    pipe = ww.Pipeline(steps(), n_jobs=1).fit(X_data, y_data)
    reference = Pipeline(steps()).fit(X_data, y_data)
    fitted = pipe.fitted_params_()
    s, p, r = fitted["scaler"], fitted["pca"], fitted["ridge"]
    row = X_data[:1].copy()

    def by_hand():
        return r.predict(p.transform(s.transform(row)))

    def wirework_pipeline():
        return pipe.predict(row)

    def sklearn_pipeline():
        return reference.predict(row)

    np.testing.assert_array_equal(wirework_pipeline(), by_hand())
    np.testing.assert_allclose(sklearn_pipeline(), by_hand(), rtol=1e-12)
    return {"by hand": by_hand, "wirework Pipeline": wirework_pipeline, "scikit-learn Pipeline": sklearn_pipeline}


def bench_predict(rounds: int, calls: int) -> None:
    candidates = predict_candidates()
    names = list(candidates)
    times: dict[str, list[float]] = {name: [] for name in names}
    for fn in candidates.values():  # warm up
        for _ in range(calls):
            fn()
    for k in range(rounds):
        for name in order_of(names, k):
            fn = candidates[name]
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls)
    base = times["by hand"]
    print(f"\n### predict ({rounds} rounds of {calls} calls; {versions()})\n")
    print("| candidate | median µs per 1-row predict | ratio to by hand (median of per-round ratios) |")
    print("| --- | ---: | ---: |")
    for name in names:
        print(f"| {name} | {statistics.median(times[name]) * 1e6:.1f} | {median_ratio(times[name], base):.3f}x |")


# ------------------------------------------------------------ 4. disturb


def disturb_rows(rounds: int, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Each row's median ms of the timed ``Ridge.fit`` and its median per-round ratio to the baseline's."""
    X, y = regression_data()
    Z = Pipeline(refit_steps(ALPHAS[0])[:-1]).fit_transform(X, y)
    X_other, y_other = load_diabetes(return_X_y=True)
    other_ww = ww.Pipeline(refit_steps(ALPHAS[0]), n_jobs=1).fit(X_other, y_other)
    other_sk = Pipeline(refit_steps(ALPHAS[0]))
    pipe = ww.Pipeline(refit_steps(ALPHAS[0]), n_jobs=1).fit(X, y)
    inner: list[float] = []
    fit = Ridge.fit

    def timed_fit(self, X, y, sample_weight=None):  # the same wrapper on every row
        start = time.perf_counter()
        result = fit(self, X, y, sample_weight)
        inner.append(time.perf_counter() - start)
        return result

    def between(action: Callable[[], object]) -> Callable[[float, float], float]:
        def run(before: float, after: float) -> float:
            Ridge(alpha=before).fit(Z, y)
            action()
            Ridge(alpha=after).fit(Z, y)
            return inner[-1]

        return run

    def inside_refit(before: float, after: float) -> float:
        pipe.set_params(ridge__alpha=before).fit(X, y)
        pipe.set_params(ridge__alpha=after).fit(X, y)
        return inner[-1]

    rows = {
        "nothing (the baseline)": between(lambda: None),
        "hash X and y (wirework's tokens)": between(lambda: (tokenize(X), tokenize(y))),
        "scikit-learn Pipeline.set_params (unrelated)": between(lambda: other_sk.set_params(ridge__alpha=2.0)),
        "ww.Pipeline.fit, nothing changed (unrelated)": between(lambda: other_ww.fit(X_other, y_other)),
        "inside ww.Pipeline's refit": inside_refit,
    }
    rng = np.random.default_rng(seed)
    times: dict[str, list[float]] = {name: [] for name in rows}
    Ridge.fit = timed_fit
    try:
        for name in rows:  # warm up
            rows[name](*ALPHAS)
        for k in range(rounds):
            before, after = ALPHAS if k % 2 == 0 else ALPHAS[::-1]
            for name in rng.permutation(list(rows)):
                times[name].append(rows[name](before, after))
    finally:
        Ridge.fit = fit
    base = times["nothing (the baseline)"]
    return {name: (statistics.median(t) * 1e3, median_ratio(t, base)) for name, t in times.items()}


def bench_disturb(rounds: int) -> None:
    rows = disturb_rows(rounds)
    print(f"\n### disturb ({rounds} rounds, random order; {versions()})\n")
    print("| run between the leaf's two fits | median ms of the timed Ridge.fit | ratio to the baseline |")
    print("| --- | ---: | ---: |")
    for name, (ms, ratio) in rows.items():
        print(f"| {name} | {ms:.3f} | {ratio:.3f}x |")


# ------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", choices=["retune", "refit", "predict", "disturb", "all"])
    parser.add_argument("--rounds", type=int, default=None, help="default: retune 2, refit 200, predict 200, disturb 600")
    parser.add_argument("--calls", type=int, default=200, help="predict: calls per round")
    parser.add_argument("--only", choices=["wirework"], default=None, help="refit: leave scikit-learn's pipelines out (the leaf, wirework and the floor)")
    parser.add_argument(
        "--processes", type=int, default=1, help="refit: repeat in this many fresh processes, one after another"
    )
    parser.add_argument(
        "--peer-peak", action="store_true", help="retune: also measure the peak RSS of one scikit-learn search"
    )
    args = parser.parse_args()
    chosen = ["refit", "predict", "retune"] if args.benchmark == "all" else [args.benchmark]
    _STARTED_AT.append(revision())
    # One limit for the whole run: entering threadpool_limits before each timed call would make the
    # first BLAS call after it slower (~0.3 ms on the project's machines), inflating small baselines.
    with threadpool_limits(1):
        for name in chosen:
            if name == "retune":
                bench_retune(args.rounds or 2, args.peer_peak)
            elif name == "disturb":
                bench_disturb(args.rounds or 600)
            elif name == "refit":
                bench_refit(args.rounds or 200, only_wirework=args.only == "wirework", processes=args.processes)
            else:
                bench_predict(args.rounds or 200, args.calls)


if __name__ == "__main__":
    main()
