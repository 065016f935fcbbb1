"""Overhead of predicting one row through a learning network (issue 2).

A 3-machine network (StandardScaler -> PCA -> Ridge on load_diabetes) is
compared, side by side in one run, with calling the three fitted estimators
by hand and with scikit-learn's ``Pipeline`` of the same steps. The three
candidates are timed in interleaved rounds (so machine noise hits them
alike); each round times a batch of calls, and the ratio reported is the
median over rounds of (candidate time / by-hand time in the same round).

Run: ``python benchmarks/bench_graph_predict.py [--rounds 200] [--calls 200]``.
Target: network / by hand <= 1.05 (scikit-learn's Pipeline: ~1.18).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.decomposition import PCA
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import wirework as ww


def build():
    X_data, y_data = load_diabetes(return_X_y=True)
    X, y = ww.source(X_data, name="X"), ww.source(y_data, name="y")
    scaler = ww.machine(StandardScaler(), X)
    Z = scaler.transform(X)
    pca = ww.machine(PCA(n_components=5), Z)
    W = pca.transform(Z)
    yhat = ww.machine(Ridge(), W, y).predict(W)
    yhat.fit()
    s, p, r = (m.fitted_model for m in yhat.machines())
    pipeline = make_pipeline(StandardScaler(), PCA(n_components=5), Ridge()).fit(X_data, y_data)
    row = X_data[:1].copy()

    def by_hand():
        return r.predict(p.transform(s.transform(row)))

    def network():
        return yhat(row)

    def sklearn_pipeline():
        return pipeline.predict(row)

    assert np.allclose(by_hand(), network(), rtol=0, atol=0)
    assert np.allclose(by_hand(), sklearn_pipeline(), rtol=1e-12)
    return {"by hand": by_hand, "wirework network": network, "scikit-learn Pipeline": sklearn_pipeline}


def measure(candidates, rounds: int, calls: int) -> dict[str, tuple[float, float]]:
    for fn in candidates.values():  # warm up
        for _ in range(calls):
            fn()
    times: dict[str, list[float]] = {name: [] for name in candidates}
    names = list(candidates)
    for k in range(rounds):
        order = names if k % 2 == 0 else names[::-1]
        for name in order:
            fn = candidates[name]
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls)
    base = times["by hand"]
    return {
        name: (statistics.median(t) * 1e6, statistics.median(a / b for a, b in zip(t, base)))
        for name, t in times.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    results = measure(build(), args.rounds, args.calls)
    print("| candidate | median µs per 1-row predict | ratio to by hand (median of per-round ratios) |")
    print("| --- | ---: | ---: |")
    for name, (micros, ratio) in results.items():
        print(f"| {name} | {micros:.1f} | {ratio:.3f}x |")


if __name__ == "__main__":
    main()
