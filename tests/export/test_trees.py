"""The TreeEnsemble encoder against a plain Python walk of the same trees, run by ONNX Runtime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.parity import session
from wirework.export.trees import (
    Aggregate,
    Mode,
    PostTransform,
    Tree,
    count_entries,
    moved_by_float32,
    single_leaf,
    tree_ensemble,
)

N_FEATURES = 3


def _goes_true(mode: int, x: float, split: float, members) -> bool:
    return {
        Mode.LEQ: lambda: x <= split,
        Mode.LT: lambda: x < split,
        Mode.GTE: lambda: x >= split,
        Mode.GT: lambda: x > split,
        Mode.EQ: lambda: x == split,
        Mode.NEQ: lambda: x != split,
        Mode.MEMBER: lambda: x in set(members),
    }[Mode(mode)]()


def walk(tree: Tree, row: np.ndarray) -> tuple[int, float]:
    """(target, leaf weight) of the leaf ``row`` reaches."""
    if tree.n_nodes == 0:
        return tree.target, float(tree.leaf_weight[0])
    node = 0
    while True:
        x = row[tree.feature[node]]
        if np.isnan(x):
            branch = bool(tree.missing_true[node])
        else:
            branch = _goes_true(tree.mode[node], x, tree.split[node], tree.members.get(node, ()))
        child = tree.true_child[node] if branch else tree.false_child[node]
        if child < 0:
            return tree.target, float(tree.leaf_weight[~child])
        node = child


def reference(trees: list[Tree], X: np.ndarray, n_targets: int) -> np.ndarray:
    out = np.zeros((len(X), n_targets))
    for i, row in enumerate(X):
        for tree in trees:
            target, weight = walk(tree, row)
            out[i, target] += weight
    return out


@st.composite
def trees(draw, n_targets: int = 2) -> Tree:
    """A random full binary tree with every split mode."""
    n_nodes = draw(st.integers(0, 6))
    if n_nodes == 0:
        return single_leaf(draw(st.floats(-5, 5)), target=draw(st.integers(0, n_targets - 1)))
    # node i's children: later nodes or leaves, so the structure is a tree
    free = list(range(1, n_nodes))
    leaves = 0
    true_child, false_child = [], []
    for node in range(n_nodes):
        pair = []
        for _ in range(2):
            if free and free[0] > node and draw(st.booleans()):
                pair.append(free.pop(0))
            else:
                pair.append(-(leaves + 1))
                leaves += 1
        true_child.append(pair[0])
        false_child.append(pair[1])
    # nodes left unattached become leaves' siblings: attach them by replacing leaf children
    for orphan in free:
        parent = next(n for n in range(orphan) if true_child[n] < 0 or false_child[n] < 0)
        if true_child[parent] < 0:
            true_child[parent] = orphan
        else:
            false_child[parent] = orphan
    used = sorted({~c for c in true_child + false_child if c < 0})
    remap = {old: new for new, old in enumerate(used)}
    true_child = [c if c >= 0 else ~remap[~c] for c in true_child]
    false_child = [c if c >= 0 else ~remap[~c] for c in false_child]
    modes = draw(st.lists(st.sampled_from(list(Mode)), min_size=n_nodes, max_size=n_nodes))
    members = {
        i: np.array(sorted(draw(st.sets(st.integers(0, 5), min_size=1, max_size=4))), dtype=float)
        for i, m in enumerate(modes)
        if m == Mode.MEMBER
    }
    return Tree(
        feature=np.array(draw(st.lists(st.integers(0, N_FEATURES - 1), min_size=n_nodes, max_size=n_nodes))),
        mode=np.array(modes, np.uint8),
        split=np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, -1.0]), min_size=n_nodes, max_size=n_nodes))),
        true_child=np.array(true_child),
        false_child=np.array(false_child),
        missing_true=np.array(draw(st.lists(st.booleans(), min_size=n_nodes, max_size=n_nodes))),
        leaf_weight=np.array(draw(st.lists(st.floats(-5, 5), min_size=len(used), max_size=len(used)))),
        members=members,
        target=draw(st.integers(0, n_targets - 1)),
    )


def run(trees_: list[Tree], X: np.ndarray, dtype: str = "float64", **options) -> np.ndarray:
    g = GraphBuilder(dtype, "trees")
    x = g.add_input("X", dtype, [None, X.shape[1]])
    out = tree_ensemble(g, x, trees_, n_features=X.shape[1], **options)
    g.add_output(out, "predict", dtype, [None, options.get("n_targets", 1)])
    model = g.to_model()
    onnx.checker.check_model(model, full_check=True)
    return session(model).run(None, {"X": X.astype(dtype)})[0]


ROWS = np.array(
    [[a, b, c] for a in (-1.0, 0.0, 1.0, 2.5, 3.0, np.nan) for b in (0.0, 1.0, 2.0, 5.0, np.nan) for c in (2.5, -2.0)]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=4))
def test_random_trees_match_a_python_walk(forest):
    np.testing.assert_array_equal(run(forest, ROWS, n_targets=2), reference(forest, ROWS, 2))


def test_single_leaf_tree_is_written_as_a_split_with_two_equal_leaves():
    out = run([single_leaf(7.5)], ROWS)
    assert np.all(out == 7.5)
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, 3])
    g.add_output(tree_ensemble(g, x, [single_leaf(1.0)], n_features=3), "predict", np.float64, [None, 1])
    assert count_entries(g.to_model()) == 3  # one split node, two leaves


def test_member_zero_and_missing_codes():
    tree = Tree(
        feature=np.array([0]),
        mode=np.array([Mode.MEMBER], np.uint8),
        split=np.zeros(1),
        true_child=np.array([-1]),
        false_child=np.array([-2]),
        missing_true=np.array([False]),
        leaf_weight=np.array([1.0, 2.0]),
        members={0: np.array([0.0, 3.0])},
    )
    X = np.array([[0.0], [3.0], [1.0], [np.nan], [-1.0], [40.0]])
    np.testing.assert_array_equal(run([tree], X).ravel(), [1, 1, 2, 2, 2, 2])


def test_aggregate_and_post_transform_are_passed_through():
    forest = [single_leaf(1.0), single_leaf(3.0)]
    assert run(forest, ROWS[:2], aggregate=Aggregate.AVERAGE).ravel().tolist() == [2.0, 2.0]
    logistic = run(forest, ROWS[:1], post_transform=PostTransform.LOGISTIC).ravel()[0]
    assert logistic == pytest.approx(1 / (1 + np.exp(-4.0)), rel=1e-15)
    two = [single_leaf(1.0, 0), single_leaf(3.0, 1)]
    probabilities = run(two, ROWS[:1], post_transform=PostTransform.SOFTMAX, n_targets=2).ravel()
    np.testing.assert_allclose(probabilities, np.exp([1.0, 3.0]) / np.exp([1.0, 3.0]).sum(), rtol=1e-15)
    with pytest.raises(ExportError, match="PROBIT is not supported"):
        run(forest, ROWS[:1], post_transform=PostTransform.PROBIT)


def _threshold_tree(mode: Mode, split: float) -> Tree:
    return Tree(
        feature=np.array([0]),
        mode=np.array([mode], np.uint8),
        split=np.array([split]),
        true_child=np.array([-1]),
        false_child=np.array([-2]),
        missing_true=np.array([False]),
        leaf_weight=np.array([1.0, 0.0]),
    )


@pytest.mark.parametrize("mode", [Mode.LEQ, Mode.LT, Mode.GTE, Mode.GT])
def test_float32_thresholds_keep_every_float32_decision(mode):
    rng = np.random.default_rng(0)
    for split in np.concatenate([rng.normal(size=20) * 10, [0.1, 1e300, -1e300, 1e-45, 16777217.0]]):
        tree = _threshold_tree(mode, split)
        with np.errstate(over="ignore"):
            x32 = np.float32(split)
        near = np.array(
            [np.nextafter(x32, np.float32(-np.inf)), x32, np.nextafter(x32, np.float32(np.inf))], dtype=np.float32
        )
        X = near.reshape(-1, 1)
        expected = np.array([_goes_true(mode, float(v), split, ()) for v in near], dtype=float)
        np.testing.assert_array_equal(run([tree], X, "float32").ravel(), expected)


def test_bad_trees_are_refused():
    good = _threshold_tree(Mode.LEQ, 0.5)
    with pytest.raises(ExportError, match="at least one tree"):
        run([], ROWS)
    with pytest.raises(ExportError, match="splits on feature 7"):
        bad = _threshold_tree(Mode.LEQ, 0.5)
        bad.feature = np.array([7])
        run([bad], ROWS)
    with pytest.raises(ExportError, match="points outside"):
        bad = _threshold_tree(Mode.LEQ, 0.5)
        bad.true_child = np.array([-5])
        run([bad], ROWS)
    with pytest.raises(ExportError, match="integer category codes"):
        member = _threshold_tree(Mode.MEMBER, 0.0)
        member.members = {0: np.array([0.5])}
        run([member], ROWS)
    with pytest.raises(ExportError, match="fit in int32"):
        member = _threshold_tree(Mode.MEMBER, 0.0)
        member.members = {0: np.array([2.0**40])}
        run([member], ROWS)
    with pytest.raises(ExportError, match="non-empty set"):
        member = _threshold_tree(Mode.MEMBER, 0.0)
        run([member], ROWS)
    with pytest.raises(ExportError, match="target 3"):
        good.target = 3
        run([good], ROWS, n_targets=2)
    with pytest.raises(ExportError, match="no exact float32"):
        run([_threshold_tree(Mode.EQ, 0.1)], ROWS, "float32")
    with pytest.raises(ExportError, match="no float32 value"):
        member = _threshold_tree(Mode.MEMBER, 0.0)
        member.members = {0: np.array([3.0, 2.0**24 + 1])}
        run([member], ROWS, "float32")


def test_thresholds_moved_by_float32_are_those_whose_own_value_takes_the_other_branch():
    below, above = np.float32(1.5), np.nextafter(np.float32(1.5), np.float32(2))
    step = float(above) - float(below)
    split = np.array([
        1.5 + 0.7 * step,  # nearer the float32 above: the value itself goes right in the file
        1.5 + 0.3 * step,  # nearer the float32 below: it stays left
        1.5,  # a float32
        1.5 + 0.5 * step,  # a tie: the midpoint of two float32 values (a model fit on float32 data)
        (float(np.float32(0.9)) + float(np.float32(1.1))) / 2,  # a midpoint across a power of two
        0.1,  # rounds up to float32 0.10000000149
        0.2 + 2.0**-40,
        1e300,  # beyond float32: inf
        np.inf, np.nan,
    ])
    moved = moved_by_float32(split)
    assert moved.tolist() == [True, False, False, False, False, True, True, True, False, False]
    for t, flagged in zip(split[:8], moved[:8]):  # what the float32 file does with the value t itself
        tree = _threshold_tree(Mode.LEQ, float(t))
        with np.errstate(over="ignore"):
            value = np.float32(t)
        goes_left = run([tree], np.array([[value, 0.0, 0.0]]), "float32")[0, 0] == 1.0
        assert goes_left != flagged  # natively t <= t: left


def test_the_same_trees_give_the_same_bytes():
    forest = [_threshold_tree(Mode.LEQ, 0.5), single_leaf(2.0)]

    def build() -> bytes:
        g = GraphBuilder("float64")
        x = g.add_input("X", np.float64, [None, 3])
        g.add_output(tree_ensemble(g, x, forest, n_features=3), "predict", np.float64, [None, 1])
        return g.to_model().SerializeToString()

    assert build() == build()


def _written_modes(trees_: list[Tree], dtype: str = "float64") -> list[int]:
    g = GraphBuilder(dtype, "trees")
    x = g.add_input("X", dtype, [None, 3])
    g.add_output(tree_ensemble(g, x, trees_, n_features=3), "predict", dtype, [None, 1])
    node = next(n for n in g.to_model().graph.node if n.op_type == "TreeEnsemble")
    return onnx.numpy_helper.to_array(next(a.t for a in node.attribute if a.name == "nodes_modes")).tolist()


def _chain(modes: list[Mode], splits: list[float]) -> Tree:
    """Node k's true branch is leaf k, its false branch node k + 1 (the last one's: one more leaf)."""
    n = len(modes)
    return Tree(
        feature=np.arange(n) % 3,
        mode=np.array(modes, np.uint8),
        split=np.array(splits),
        true_child=np.array([~k for k in range(n)]),
        false_child=np.array([k + 1 for k in range(n - 1)] + [~n]),
        missing_true=np.array([k % 2 == 0 for k in range(n)]),
        leaf_weight=np.arange(n + 1.0),
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mixed_numeric_modes_are_written_as_one_mode_that_routes_alike(dtype):
    mixed = [_chain([Mode.LEQ, Mode.LT, Mode.GT, Mode.GTE, Mode.LT], [1.0, 2.5, -1.0, 0.0, np.inf]),
             _chain([Mode.GTE, Mode.LEQ, Mode.GT], [np.inf, 0.0, 2.5])]
    assert set(_written_modes(mixed, dtype)) == {Mode.LEQ}
    rows = np.vstack([ROWS, [[np.inf, -np.inf, 0.0], [-np.inf, np.inf, -0.0], [-0.0, 2.5, 1.0]]])
    np.testing.assert_array_equal(run(mixed, rows, dtype), reference(mixed, rows.astype(dtype).astype(float), 1))
    single = [_chain([Mode.LT, Mode.LT], [1.0, 2.5])]  # one mode already (XGBoost's): left as it is
    assert _written_modes(single, dtype) == [Mode.LT, Mode.LT]
    below_everything = [_chain([Mode.LEQ, Mode.LT], [1.0, -np.inf])]  # x < -inf has no LEQ form
    assert _written_modes(below_everything, dtype) == [Mode.LEQ, Mode.LT]
    np.testing.assert_array_equal(run(below_everything, rows, dtype), reference(below_everything, rows, 1))
