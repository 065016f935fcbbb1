"""The LightGBM model of issue 5's acceptance 1, shared by its tests and ``benchmarks/bench_onnx.py``.

200 trees x 31 leaves on 5,000 rows: 19 numeric features (3 with NaN) and
one 40-level pandas categorical with missing values.
"""

from __future__ import annotations

import lightgbm
import numpy as np
import pandas as pd

N_CATS = 40


def acceptance_model(rng: np.random.Generator) -> tuple[lightgbm.LGBMRegressor, np.ndarray]:
    """The fitted model and its training rows as a float64 code matrix (NaN for a missing category)."""
    n = 5000
    X = pd.DataFrame(rng.normal(size=(n, 19)), columns=[f"f{i}" for i in range(19)])
    for c in ("f0", "f1", "f2"):
        X.loc[rng.random(n) < 0.15, c] = np.nan
    levels = [f"level{i:02d}" for i in range(N_CATS)]
    X["cat"] = pd.Categorical(rng.choice(levels, n), categories=levels)
    X.loc[rng.random(n) < 0.1, "cat"] = np.nan
    y = X["f3"] + np.nan_to_num(X["f0"], nan=2.0) * X["f4"] + (X["cat"].cat.codes % 7) * 0.3
    y = y + 0.1 * rng.normal(size=n)
    model = lightgbm.LGBMRegressor(n_estimators=200, num_leaves=31, n_jobs=1, verbose=-1).fit(X, y)
    codes = X.copy()
    codes["cat"] = X["cat"].cat.codes.astype(float).replace(-1, np.nan)
    return model, codes.to_numpy(np.float64)


def split_values(booster: lightgbm.Booster) -> dict[int, np.ndarray]:
    """Per feature: every numerical threshold of the model and its float64 neighbours both ways."""
    values: dict[int, set] = {}
    stack = [t["tree_structure"] for t in booster.dump_model()["tree_info"]]
    while stack:
        node = stack.pop()
        if "leaf_value" in node:
            continue
        stack.extend((node["left_child"], node["right_child"]))
        if node["decision_type"] == "<=":
            t = float(node["threshold"])
            t = np.inf if t >= 1e300 else t  # dump_model writes +inf as 1e300
            values.setdefault(int(node["split_feature"]), set()).update(
                (t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf))
            )
    return {f: np.array(sorted(v)) for f, v in values.items()}
