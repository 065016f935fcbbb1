"""The demo: the seed's three learning networks on scikit-learn's diabetes data.

Each network is trained, compared with its scikit-learn equivalent, then a
hyperparameter is changed to show which machines the next ``fit`` retrains.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_diabetes
from sklearn.ensemble import StackingRegressor
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

import wirework as ww

__all__ = ["run", "target_transformation", "homogeneous_ensemble", "stacking"]


def target_transformation(X: ww.Source, y: ww.Source) -> ww.Node:
    """Standardize the target, fit a tree to it, map predictions back."""
    std = ww.machine(StandardScaler(), y, name="std")
    z = std.transform(y)
    tree = ww.machine(DecisionTreeRegressor(max_depth=3, random_state=0), X, z, name="tree")
    return std.inverse_transform(tree.predict(X))


def homogeneous_ensemble(X: ww.Source, y: ww.Source, n: int = 3) -> ww.Node:
    """Three machines share one tree model, each trained on its own rows; predictions averaged."""
    model = DecisionTreeRegressor(max_depth=3, random_state=0)
    f = ww.folds(X, n)
    members = [ww.machine(model, ww.restrict(X, f, i), ww.restrict(y, f, i), name=f"tree{i + 1}") for i in range(n)]
    return ww.mean(*[m.predict(X) for m in members])


def stacking(X: ww.Source, y: ww.Source, n_folds: int = 3) -> ww.Node:
    """Out-of-fold predictions of two base learners feed a linear adjudicator."""
    f = ww.folds(X, n_folds)
    learners = {"ridge": Ridge(alpha=0.5), "tree": DecisionTreeRegressor(max_depth=4, random_state=0)}
    oof, full = [], []
    for name, model in learners.items():
        folds = [
            ww.machine(model, ww.corestrict(X, f, i), ww.corestrict(y, f, i), name=f"{name}_fold{i + 1}")
            for i in range(n_folds)
        ]
        oof.append(ww.vcat(*[m.predict(ww.restrict(X, f, i)) for i, m in enumerate(folds)]))
        full.append(ww.machine(model, X, y, name=name).predict(X))
    judge = ww.machine(LinearRegression(), ww.hcat(*oof), y, name="judge")
    return judge.predict(ww.hcat(*full))


def _trained(node: ww.Node) -> str:
    done = [f"{m.name} ({m.report()['action']})" for m in node.machines() if m.report()["action"] in ("trained", "updated")]
    return ", ".join(done) or "none"


def _show(
    title: str,
    node: ww.Node,
    reference: np.ndarray,
    X_test: np.ndarray,
    rows: int,
    change: Callable[[ww.Node], str],
    *,
    by: str = "scikit-learn",
    kind: str = "test rows",
) -> None:
    """Train ``node``, print its predictions on ``X_test`` (``kind``) beside ``reference`` (computed ``by``),
    then make the ``change`` and train again."""
    print(f"\n== {title} ==")
    print(f"network: {node!r}")
    print(f"machines: {len(node.machines())}")
    node.fit()
    print(f"trained: {_trained(node)}")
    predictions = node(X_test)
    shown = min(rows, len(predictions))
    print(f"predictions on the first {shown} {kind}: {np.round(predictions[:shown], 2).tolist()}")
    print(f"max |wirework - {by}| on {len(X_test)} {kind}: {np.max(np.abs(predictions - reference)):.3g}")
    what = change(node)
    node.fit()
    print(f"after {what}: retrained {_trained(node)}")


def _machine(node: ww.Node, name: str) -> ww.Machine:
    return next(m for m in node.machines() if m.name == name)


def run(rows: int = 5) -> None:
    """Train the three networks on ``load_diabetes`` and print what happened."""
    X_all, y_all = load_diabetes(return_X_y=True)
    X_train, y_train, X_test = X_all[:342], y_all[:342], X_all[342:]
    X, y = ww.source(X_train, name="X"), ww.source(y_train, name="y")
    print(f"load_diabetes: {len(X_train)} training rows, {len(X_test)} test rows, {X_train.shape[1]} features")

    reference = TransformedTargetRegressor(DecisionTreeRegressor(max_depth=3, random_state=0), transformer=StandardScaler())
    reference.fit(X_train, y_train)

    def deeper_tree(node: ww.Node) -> str:
        _machine(node, "tree").model.max_depth = 5
        return "tree.model.max_depth = 5"

    _show("1. target transformation", target_transformation(X, y), reference.predict(X_test), X_test, rows, deeper_tree)

    rows_per_member = np.array_split(np.arange(len(X_train)), 3)
    by_hand = np.mean(
        [
            DecisionTreeRegressor(max_depth=3, random_state=0).fit(X_train[r], y_train[r]).predict(X_test)
            for r in rows_per_member
        ],
        axis=0,
    )

    def shared_model(node: ww.Node) -> str:
        _machine(node, "tree1").model.max_depth = 2  # the model object all three machines share
        return "max_depth = 2 on the shared model"

    _show(
        "2. homogeneous ensemble", homogeneous_ensemble(X, y), by_hand, X_test, rows, shared_model,
        by="scikit-learn's trees averaged by hand",
    )

    X_stack, y_stack = X_all[:441], y_all[:441]  # 441 rows: 3 folds of equal size, as KFold(3) makes them
    Xs, ys = ww.source(X_stack, name="X"), ww.source(y_stack, name="y")
    stacked = StackingRegressor(
        [("ridge", Ridge(alpha=0.5)), ("tree", DecisionTreeRegressor(max_depth=4, random_state=0))],
        final_estimator=LinearRegression(),
        cv=KFold(3),
    ).fit(X_stack, y_stack)

    def adjudicator(node: ww.Node) -> str:
        _machine(node, "judge").model.fit_intercept = False
        return "judge.model.fit_intercept = False"

    _show(
        "3. stacking by hand", stacking(Xs, ys), stacked.predict(X_all[:20]), X_all[:20], rows, adjudicator,
        by="scikit-learn's StackingRegressor", kind="training rows",
    )
