"""ONNX export of a LightGBM model: size, conversion time, parity and latency against native and onnxmltools.

Run with ``python benchmarks/bench_onnx.py [--rounds 15] [--probe] [--control]``; prints a Markdown table.

The model is the one of issue 5's acceptance 1: ``LGBMRegressor`` with 200
trees of 31 leaves on 19 numeric features (3 with NaN) and one 40-level
pandas categorical with missing values, trained on 5,000 rows.

Candidates, all on one thread:

- native: ``Booster.predict(X, num_threads=1)`` on a float64 numpy matrix
  whose categorical column holds the category codes (NaN when missing). It
  is LightGBM's fastest Python path: the sklearn wrapper's ``predict`` on a
  DataFrame adds pandas conversion on top.
- wirework: ``ww.to_onnx(model)`` (float64 and float32), ONNX Runtime with
  ``intra_op_num_threads = inter_op_num_threads = 1``.
- onnxmltools: ``onnxmltools.convert_lightgbm(model, initial_types=[("X",
  DoubleTensorType([None, 20]))], zipmap=False)`` (it writes a float32
  ``TreeEnsembleRegressor`` either way). It cannot read pandas categories:
  it is given the same booster and the same code matrix; it writes each
  categorical split as a chain of equality nodes.

Latency: candidates are interleaved in rounds; each round times every
candidate on the same batch, and the reported ratio is the median over
rounds of the per-round ratios.

``--control`` adds a control: the same recipe (200 trees x 31 leaves, 5,000
rows) on 20 numeric features and no categorical one, so no split is a set;
it times wirework's export against onnxmltools' on it (after checking that
ours is bit-exact), to tell what the categorical sets cost from what the
rest of the file costs.

``--probe`` adds a timing-only candidate (not exact, not a product): our
export with every categorical set cut down to its codes <= 30, the sets
ONNX Runtime 1.32 loads as a bit mask; the other sets (any code > 30) it
loads as ``BRANCH_MEMBER_BIGSET``, a hash-set lookup.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import lightgbm
import numpy as np
import onnxruntime as ort

import wirework as ww
from wirework.export.parity import session
from wirework.export.trees import count_entries

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _lightgbm_case import N_CATS, acceptance_model, split_values  # noqa: E402


def make_model(seed: int = 0) -> tuple[lightgbm.LGBMRegressor, np.ndarray]:
    """The acceptance-1 model (shared with the tests) and its training rows as a code matrix."""
    return acceptance_model(np.random.default_rng(seed))


def threshold_rows(model: lightgbm.LGBMRegressor, n_rows: int, rng: np.random.Generator) -> np.ndarray:
    """Rows whose numeric features sit on split thresholds or one float64 step beside them."""
    values = split_values(model.booster_)
    rows = rng.normal(size=(n_rows, 20))
    for f, v in values.items():
        rows[:, f] = rng.choice(v, n_rows)
    rows[:, 19] = rng.integers(0, N_CATS, n_rows)
    return rows


def peer_model(model):
    """The same model converted by onnxmltools (None when it is not installed)."""
    try:
        import onnxmltools
        from onnxmltools.convert.common.data_types import DoubleTensorType
    except ImportError:
        return None, float("nan")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = onnxmltools.convert_lightgbm(model, initial_types=[("X", DoubleTensorType([None, 20]))], zipmap=False)
    return converted, time.perf_counter() - start


def tree_entries(model_proto) -> int:
    """Split nodes plus leaves of every tree operator (TreeEnsemble, or the older TreeEnsembleRegressor)."""
    total = count_entries(model_proto)
    for node in model_proto.graph.node:
        if node.op_type == "TreeEnsembleRegressor":  # one entry per node, leaves included
            total += len(next(a for a in node.attribute if a.name == "nodes_featureids").ints)
    return total


def runner(sess: ort.InferenceSession, dtype) -> callable:
    """Run ``sess`` on a batch; a batch of another float type is converted once, not in every timed call
    (a user of a float32 file holds float32 data)."""
    name = sess.get_inputs()[0].name
    elem = np.float32 if sess.get_inputs()[0].type == "tensor(float)" else np.float64
    converted: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def run(X: np.ndarray) -> np.ndarray:
        if X.dtype != elem:
            source, copy = converted.get(id(X), (None, None))
            if source is not X:
                copy = X.astype(elem)
                converted[id(X)] = (X, copy)
            X = copy
        return sess.run(None, {name: X})[0]

    return run


def fast_path_probe(model):
    """Timing only: our export with each set cut to its codes <= 30 (ONNX Runtime's bit-mask path)."""
    import wirework.export.lightgbm as lgb_export
    from wirework.export.trees import Tree

    original = lgb_export.trees_of

    def cut(tree):
        members = {k: (v[v <= 30] if (v <= 30).any() else np.array([0])) for k, v in tree.members.items()}
        return Tree(tree.feature, tree.mode, tree.split, tree.true_child, tree.false_child, tree.missing_true,
                    tree.leaf_weight, members, tree.target)

    def trees_of(m):
        trees, dump = original(m)
        return [cut(t) for t in trees], dump

    lgb_export.trees_of = trees_of
    try:
        return ww.to_onnx(model)
    finally:
        lgb_export.trees_of = original


def timed(fn, X: np.ndarray, repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        fn(X)
    return (time.perf_counter() - start) / repeats


def latency(candidates: dict, batches: dict, rounds: int) -> dict:
    """Per batch size: seconds per call of each candidate in each round."""
    out = {}
    for batch, (X, repeats) in batches.items():
        for fn in candidates.values():
            fn(X)  # warm-up
        per_round = {name: [] for name in candidates}
        for _ in range(rounds):
            for name, fn in candidates.items():
                per_round[name].append(timed(fn, X, repeats))
        out[batch] = per_round
    return out


def median_ratio(a: list, b: list) -> float:
    return statistics.median(x / y for x, y in zip(a, b))


def control_rows(rounds: int) -> list[tuple[str, str, str, str]]:
    """wirework / onnxmltools time on an all-numeric model of the same size (no set splits)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5000, 20))
    X[rng.random(5000) < 0.15, 0] = np.nan
    y = X[:, 3] + np.nan_to_num(X[:, 0], nan=2.0) * X[:, 4] + 0.1 * rng.normal(size=5000)
    model = lightgbm.LGBMRegressor(n_estimators=200, num_leaves=31, n_jobs=1, verbose=-1).fit(X, y)
    peer, _ = peer_model(model)
    if peer is None:
        return []
    ours = runner(session(ww.to_onnx(model)), np.float64)
    rows = rng.normal(size=(10_000, 20))
    assert np.array_equal(ours(rows), model.booster_.predict(rows, num_threads=1)), "control export not exact"
    candidates = {"wirework": ours, "onnxmltools": runner(session(peer), np.float64)}
    batches = {1: (rows[:1], 400), 100: (rows[:100], 100), 10_000: (rows, 3)}
    return [
        (f"control, all-numeric model: wirework / onnxmltools time, batch {batch:,}",
         f"{median_ratio(per_round['wirework'], per_round['onnxmltools']):.2f}×", "", "no set splits")
        for batch, per_round in latency(candidates, batches, rounds).items()
    ]


def main(rounds: int, probe: bool = False, control: bool = False) -> None:
    model, train = make_model()
    booster = model.booster_
    rng = np.random.default_rng(1)
    random_rows = rng.normal(size=(10_000, 20))
    random_rows[:, 19] = rng.integers(0, N_CATS, 10_000)
    random_rows[rng.random(10_000) < 0.1, 0] = np.nan
    on_thresholds = threshold_rows(model, 10_000, rng)

    start = time.perf_counter()
    ours = ww.to_onnx(model)
    ours_seconds = time.perf_counter() - start
    ours32 = ww.to_onnx(model, dtype="float32")
    peer, peer_seconds = peer_model(model)

    def native(X):
        return booster.predict(X, num_threads=1)

    candidates = {"native": native, "wirework": runner(session(ours), np.float64),
                  "wirework_f32": runner(session(ours32), np.float32)}
    if peer is not None:
        candidates["onnxmltools"] = runner(session(peer), np.float64)
    if probe:
        candidates["probe"] = runner(session(fast_path_probe(model)), np.float64)

    def max_diff(name, X):
        if name not in candidates:
            return float("nan")
        ref = native(X.astype(np.float32).astype(np.float64) if name == "wirework_f32" else X)
        return float(np.max(np.abs(np.ravel(candidates[name](X)).astype(np.float64) - ref)))

    batch_rows = np.vstack([random_rows, on_thresholds])
    batches = {1: (batch_rows[:1], 400), 100: (batch_rows[:100], 100), 10_000: (batch_rows[:10_000], 3)}
    times = latency(candidates, batches, rounds)

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"Measured {datetime.date.today()} at commit {commit}: Python {sys.version.split()[0]}, "
          f"lightgbm {lightgbm.__version__}, onnxruntime {ort.__version__}, numpy {np.__version__}"
          + (f", onnxmltools {__import__('onnxmltools').__version__}" if peer is not None else "")
          + f"; {rounds} rounds.\n")
    size = lambda m: len(m.SerializeToString()) / 1024  # noqa: E731
    rows = [
        ("node + leaf entries", f"{tree_entries(ours):,}", f"{tree_entries(peer):,}" if peer else "–", "≤ 12,200"),
        ("file size (KB)", f"{size(ours):.0f}", f"{size(peer):.0f}" if peer else "–", "≤ 320"),
        ("conversion time (s)", f"{ours_seconds:.2f}", f"{peer_seconds:.2f}", "≤ 1"),
        ("max abs diff, random rows", f"{max_diff('wirework', random_rows):.3g}",
         f"{max_diff('onnxmltools', random_rows):.3g}", "0"),
        ("max abs diff, threshold rows", f"{max_diff('wirework', on_thresholds):.3g}",
         f"{max_diff('onnxmltools', on_thresholds):.3g}", "0"),
        ("max abs diff, float32 export (threshold rows)", f"{max_diff('wirework_f32', on_thresholds):.3g}", "",
         "≤ 1e-5"),
    ]
    targets = {1: "≤ 0.30×", 100: "≤ 0.85×", 10_000: "≤ 0.95×"}
    for batch, per_round in times.items():
        ms = {k: statistics.median(v) * 1e3 for k, v in per_round.items()}
        ratio = median_ratio(per_round["wirework"], per_round["native"])
        peer_ratio = median_ratio(per_round["onnxmltools"], per_round["native"]) if peer is not None else float("nan")
        rows.append((f"latency vs native, batch {batch:,}", f"{ratio:.2f}× ({ms['wirework']:.3f} ms)",
                     f"{peer_ratio:.2f}× ({ms.get('onnxmltools', float('nan')):.3f} ms)",
                     f"{targets[batch]} (native {ms['native']:.3f} ms)"))
    for batch, per_round in times.items():
        if peer is not None:
            rows.append((f"wirework / onnxmltools time, batch {batch:,}",
                         f"{median_ratio(per_round['wirework'], per_round['onnxmltools']):.2f}× (float64); "
                         f"{median_ratio(per_round['wirework_f32'], per_round['onnxmltools']):.2f}× (float32)", "",
                         "≤ 1.00×"))
    if probe:
        for batch, per_round in times.items():
            ref = per_round["onnxmltools"] if peer is not None else per_round["native"]
            rows.append((f"probe (sets cut to codes <= 30, not exact) / {'onnxmltools' if peer is not None else 'native'}"
                         f", batch {batch:,}", f"{median_ratio(per_round['probe'], ref):.2f}×", "", "timing only"))
    if control:
        rows.extend(control_rows(rounds))
    print("| measure | wirework | onnxmltools | target |")
    print("| --- | ---: | ---: | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--probe", action="store_true",
                        help="also time a non-exact variant whose categorical sets fit ONNX Runtime's bit-mask path")
    parser.add_argument("--control", action="store_true",
                        help="also time wirework against onnxmltools on an all-numeric model of the same size")
    args = parser.parse_args()
    main(args.rounds, args.probe, args.control)
