"""Rows that probe tree thresholds, shared by the tests of the tree converters (tests/export/test_sklearn_*.py)."""

import numpy as np

from wirework.export.sklearn_trees import float32_cut


def tree_thresholds(model) -> list[tuple[int, float]]:
    """``(feature, threshold)`` of every split of a scikit-learn tree, forest or boosting model (each tree's own
    feature numbering)."""
    estimators = getattr(model, "estimators_", [model])
    pairs = []
    for estimator in np.ravel(np.asarray(estimators, dtype=object)):
        tree = estimator.tree_
        inner = tree.children_left != -1
        pairs.extend(zip(tree.feature[inner].tolist(), tree.threshold[inner].tolist()))
    return pairs


def edge_rows(X: np.ndarray, pairs, *, float32_inputs: bool, limit: int = 400, seed: int = 1) -> np.ndarray:
    """Rows with one feature exactly at a threshold, one ulp around it, and around its float32 cut."""
    rng = np.random.default_rng(seed)
    pairs = sorted(set(pairs))
    if len(pairs) > limit:
        pairs = [pairs[i] for i in rng.choice(len(pairs), limit, replace=False)]
    rows = []
    for feature, t in pairs:
        values = [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf)]
        if float32_inputs and np.isfinite(t):
            _, (cut,) = float32_cut(np.array([t]))
            a = np.float32(t)
            values += [float(a), float(np.nextafter(a, np.float32(-1e38))), float(np.nextafter(a, np.float32(1e38)))]
            values += [cut, np.nextafter(cut, -np.inf), np.nextafter(cut, np.inf)]
        for value in values:
            if not abs(value) <= np.finfo(np.float32).max:  # scikit-learn refuses what float32 cannot hold
                continue
            row = X[rng.integers(len(X))].copy()
            row[feature] = value
            rows.append(row)
    return np.array(rows)
