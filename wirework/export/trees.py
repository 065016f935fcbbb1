"""Tree ensembles as one ``TreeEnsemble`` node (``ai.onnx.ml`` opset 5).

Converters describe each tree with a :class:`Tree` (flat arrays, one entry
per split node, leaves numbered separately) and hand a list of them to
:func:`tree_ensemble`, which checks them, encodes them in the operator's
attributes and returns the output value ``[N, n_targets]``.

Encoding rules, each a fact of the operator or of ONNX Runtime (>= 1.30):

- ``nodes_modes``: 0 LEQ, 1 LT, 2 GTE, 3 GT, 4 EQ, 5 NEQ, 6 MEMBER; a
  MEMBER node's set goes into ``membership_values``, the sets of all MEMBER
  nodes in order, each followed by NaN. Members must be integers that fit in
  int32 (ONNX Runtime's set path).
- A tree that is a single leaf is written as one split whose two branches
  are two leaves of the same value (a lone node is mis-routed by some
  runtimes). A NEQ split is written as EQ with its branches swapped
  (ONNX Runtime sends NaN to the true branch of NEQ whatever
  ``nodes_missing_value_tracks_true`` says).
- A leaf entry adds one weight to one target, so a tree whose leaves carry
  several targets (a forest's class distribution) is given as one
  :class:`Tree` per target, each with its ``target``.
- ``post_transform`` (LOGISTIC, SOFTMAX) is applied by separate ONNX nodes
  after the operator, in the graph's precision: ONNX Runtime 1.32 misreads
  the operator's own attribute and computes it in float32.
- Numeric splits of mixed modes (LEQ with LT, say) are all written as LEQ:
  ``x < c`` as ``x <= c'`` with ``c'`` the value just below ``c`` in the
  graph's precision, GT and GTE as LEQ and LT with their branches and NaN
  direction swapped. ONNX Runtime walks a single-mode ensemble in a faster
  loop (about 20%).
- ``float32`` graphs: each threshold is rounded to the float32 that gives
  the same decision for every float32 input (down for LEQ and GT, up for LT
  and GTE), so casting a float32 input to double in the native model and
  comparing it there takes the same branch. Leaf weights are rounded to
  nearest. A float64 input between a threshold and its float32 value can
  still change branch once cast (:func:`moved_by_float32`). Equality
  thresholds and set members that float32 cannot hold exactly (a category
  16777217) are refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from wirework.errors import ExportError
from wirework.export.builder import ML_DOMAIN, GraphBuilder
from wirework.export.libm import c_exp

__all__ = [
    "Mode",
    "Aggregate",
    "PostTransform",
    "Tree",
    "tree_ensemble",
    "single_leaf",
    "count_entries",
    "moved_by_float32",
    "logistic",
    "softmax",
    "native_width",
]

_INT32 = np.iinfo(np.int32)


class Mode(IntEnum):
    """Comparison of a split node: the branch is "true" when ``x <mode> split``."""

    LEQ = 0
    LT = 1
    GTE = 2
    GT = 3
    EQ = 4
    NEQ = 5
    MEMBER = 6


class Aggregate(IntEnum):
    """How the leaves reached in every tree are combined per target."""

    AVERAGE = 0
    SUM = 1
    MIN = 2
    MAX = 3


class PostTransform(IntEnum):
    """Function applied to the aggregated scores."""

    NONE = 0
    SOFTMAX = 1
    LOGISTIC = 2
    SOFTMAX_ZERO = 3
    PROBIT = 4


@dataclass
class Tree:
    """One tree as flat arrays.

    Split nodes are numbered ``0 .. n_nodes-1`` (node 0 is the root); leaves
    ``0 .. n_leaves-1``. A child ``c >= 0`` is split node ``c``; a child
    ``c < 0`` is leaf ``~c`` (that is ``-c - 1``).

    Attributes
    ----------
    feature, mode, split : arrays of length n_nodes
        Feature index, :class:`Mode` and threshold of each split node
        (``split`` is ignored for MEMBER nodes).
    true_child, false_child : int arrays of length n_nodes
        Where the row goes when the comparison holds / does not hold.
    missing_true : bool array of length n_nodes
        Whether a NaN feature value goes to the true branch.
    leaf_weight : float array of length n_leaves
        Value each leaf adds to target ``target``.
    members : dict of node index -> values
        The set of each MEMBER node.
    target : int
        The target every leaf of this tree adds to.
    """

    feature: np.ndarray
    mode: np.ndarray
    split: np.ndarray
    true_child: np.ndarray
    false_child: np.ndarray
    missing_true: np.ndarray
    leaf_weight: np.ndarray
    members: Mapping[int, np.ndarray] = field(default_factory=dict)
    target: int = 0

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def n_leaves(self) -> int:
        return len(self.leaf_weight)


def single_leaf(value: Any, target: int = 0) -> Tree:
    """A tree that is only a leaf of ``value``, added to ``target``."""
    return Tree(
        feature=np.zeros(0, np.int64),
        mode=np.zeros(0, np.uint8),
        split=np.zeros(0),
        true_child=np.zeros(0, np.int64),
        false_child=np.zeros(0, np.int64),
        missing_true=np.zeros(0, bool),
        leaf_weight=np.asarray([value], dtype=np.float64),
        target=target,
    )


def _as_encoded(tree: Tree) -> Tree:
    """``tree`` as ONNX Runtime reads it right.

    A lone leaf becomes a split with two equal leaves. A NEQ node becomes an
    EQ node with its branches swapped: ONNX Runtime (1.32) sends NaN to the
    true branch of a NEQ node even when ``missing_value_tracks_true`` is 0.
    """
    if tree.n_nodes:
        neq = np.asarray(tree.mode) == Mode.NEQ
        if not neq.any():
            return tree
        return Tree(
            feature=tree.feature,
            mode=np.where(neq, Mode.EQ, tree.mode).astype(np.uint8),
            split=tree.split,
            true_child=np.where(neq, tree.false_child, tree.true_child),
            false_child=np.where(neq, tree.true_child, tree.false_child),
            missing_true=np.where(neq, ~np.asarray(tree.missing_true, bool), tree.missing_true),
            leaf_weight=tree.leaf_weight,
            members=tree.members,
            target=tree.target,
        )
    if tree.n_leaves != 1:
        raise ExportError(f"A tree without split nodes must have exactly one leaf. Received {tree.n_leaves}.")
    weight = np.asarray(tree.leaf_weight, dtype=np.float64)
    return Tree(
        feature=np.zeros(1, np.int64),
        mode=np.array([Mode.LEQ], np.uint8),
        split=np.zeros(1),
        true_child=np.array([-1]),
        false_child=np.array([-2]),
        missing_true=np.ones(1, bool),
        leaf_weight=np.concatenate([weight, weight]),
        target=tree.target,
    )


def _check(tree: Tree, index: int, n_features: int, n_targets: int) -> None:
    n, leaves = tree.n_nodes, tree.n_leaves
    for name in ("mode", "split", "true_child", "false_child", "missing_true"):
        if len(getattr(tree, name)) != n:
            raise ExportError(f"Tree {index}: {name} has {len(getattr(tree, name))} entries for {n} split nodes.")
    children = np.concatenate([tree.true_child, tree.false_child]).astype(np.int64)
    bad = children[(children >= n) | (children < -leaves)]
    if bad.size:
        raise ExportError(f"Tree {index}: child {int(bad[0])} points outside its {n} nodes and {leaves} leaves.")
    if n and (tree.feature.min() < 0 or tree.feature.max() >= n_features):
        raise ExportError(
            f"Tree {index} splits on feature {int(tree.feature.max())}, but the input has {n_features} features."
        )
    modes = np.asarray(tree.mode)
    if modes.size and (modes.max() > Mode.MEMBER):
        raise ExportError(f"Tree {index}: unknown split mode {int(modes.max())}.")
    if np.ndim(tree.leaf_weight) != 1:
        raise ExportError(f"Tree {index}: leaf_weight must be 1-D (one Tree per target). Received shape "
                          f"{np.shape(tree.leaf_weight)}.")
    if not 0 <= tree.target < n_targets:
        raise ExportError(f"Tree {index} writes to target {tree.target}, but the ensemble has {n_targets} targets.")
    for node in np.flatnonzero(modes == Mode.MEMBER):
        values = np.asarray(tree.members.get(int(node), ()), dtype=np.float64)
        if values.size == 0:
            raise ExportError(f"Tree {index}, node {node}: a set-membership split needs a non-empty set.")
        if not np.all(np.isfinite(values)) or np.any(values != np.round(values)):
            raise ExportError(
                f"Tree {index}, node {node}: set members must be integer category codes. Received {values[:5]}."
            )
        if values.min() < _INT32.min or values.max() > _INT32.max:
            raise ExportError(f"Tree {index}, node {node}: set members must fit in int32 (ONNX Runtime's set path).")


def _float32_threshold(split: np.ndarray, mode: np.ndarray) -> np.ndarray:
    """Thresholds as float32 that keep every float32 input on the same branch."""
    split = np.asarray(split, dtype=np.float64)
    with np.errstate(over="ignore"):
        nearest = split.astype(np.float32)  # beyond float32's range: +-inf, then stepped back below
        above = nearest.astype(np.float64) > split
        below = nearest.astype(np.float64) < split
    down = np.where(above, np.nextafter(nearest, np.float32(-np.inf)), nearest)
    up = np.where(below, np.nextafter(nearest, np.float32(np.inf)), nearest)
    round_down = (mode == Mode.LEQ) | (mode == Mode.GT)
    round_up = (mode == Mode.LT) | (mode == Mode.GTE)
    inexact = (above | below) & ((mode == Mode.EQ) | (mode == Mode.NEQ))
    if np.any(inexact):
        raise ExportError("An equality split's threshold has no exact float32 value. Export with dtype='float64'.")
    return np.where(round_down, down, np.where(round_up, up, nearest)).astype(np.float32)


def moved_by_float32(split: np.ndarray) -> np.ndarray:
    """Which ``x <= t`` thresholds send the float64 input ``x == t`` the other way once it is cast to float32.

    A float32 graph compares the float32 value of ``x`` with ``t`` rounded down
    (so every float32 input keeps its branch). When ``t`` lies between two
    float32 values, nearer the upper one, the float32 value of ``t`` itself is
    that upper one and goes right where ``t`` goes left. Only thresholds whose
    significand needs more than 32 bits are counted: a float64 training value
    needs about 53, while the midpoint of two float32 values (what a model fit
    on float32 data splits at) needs at most 25 plus the number of binades
    between them, and no float32 input can hold it.

    Those are the splits a model that compares float64 inputs and puts its
    thresholds on training values (HistGradientBoosting) is known to flip.
    """
    t = np.asarray(split, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = t.astype(np.float32)
        rounds_up = np.isfinite(t) & (nearest.astype(np.float64) > t)
        significand, _ = np.frexp(np.abs(np.where(np.isfinite(t), t, 0.0)))
    whole = (significand * 2.0**53).astype(np.int64)  # exact: a significand in [0.5, 1) has 53 bits
    trailing = np.log2((whole & -whole) | (whole == 0)).astype(np.int64)
    return rounds_up & (53 - trailing > 32)


def thresholds(g: GraphBuilder, values: Any, mode: Mode, hint: str = "threshold") -> str:
    """Constants to compare inputs of the graph's dtype with by ``mode`` (``x <mode> constant``), so that each
    input falls on the side it falls of the float64 ``values``: in float32 each rounded the way that keeps it so."""
    values = np.asarray(values, dtype=np.float64)
    if g.dtype == np.float32:
        values = _float32_threshold(values, np.full(values.shape, mode))
    return g.const(values, hint)


def _one_numeric_mode(
    mode: np.ndarray, split: np.ndarray, branches: tuple[np.ndarray, ...], dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """Numeric splits of mixed modes rewritten as LEQ splits that route every input the same way.

    ONNX Runtime walks an ensemble whose splits all have one mode in a
    specialised loop, and any mix in a general one, about 20% slower. In the
    graph's precision ``x < c`` is ``x <= c'`` with ``c'`` the value just
    below ``c``, and ``x > c`` / ``x >= c`` are the negations of ``x <= c`` /
    ``x < c``: their branches and their NaN direction swap. Left as they are
    when the numeric splits already share a mode, or when an LT or GTE
    threshold is -inf (no value lies below it).
    """
    numeric = mode <= Mode.GT
    if np.unique(mode[numeric]).size <= 1:
        return mode, split, branches
    strict = numeric & ((mode == Mode.LT) | (mode == Mode.GTE))
    if np.any(strict & (split == -np.inf)):
        return mode, split, branches
    below = np.nextafter(split.astype(dtype), np.array(-np.inf, dtype)).astype(np.float64)
    swap = numeric & ((mode == Mode.GT) | (mode == Mode.GTE))
    true_id, false_id, true_leaf, false_leaf, missing_true = branches
    branches = (
        np.where(swap, false_id, true_id),
        np.where(swap, true_id, false_id),
        np.where(swap, false_leaf, true_leaf),
        np.where(swap, true_leaf, false_leaf),
        np.where(swap, 1 - missing_true, missing_true),
    )
    return np.where(numeric, Mode.LEQ, mode).astype(np.uint8), np.where(strict, below, split), branches


def tree_ensemble(
    g: GraphBuilder,
    x: str,
    trees: Sequence[Tree],
    *,
    n_features: int,
    n_targets: int = 1,
    aggregate: Aggregate = Aggregate.SUM,
    post_transform: PostTransform = PostTransform.NONE,
    hint: str = "trees",
    dtype: Any = None,
) -> str:
    """Add one ``TreeEnsemble`` node over the matrix ``x``; returns its ``[N, n_targets]`` output.

    ``dtype``: the precision of ``x``, the thresholds, leaf weights and output (default: the graph's); a
    float32 graph may run an ensemble on its input cast to float64 (what scikit-learn's isolation forest adds
    up after casting its input to float32).
    """
    dtype = g.dtype if dtype is None else np.dtype(dtype)
    if dtype != g.dtype and post_transform != PostTransform.NONE:
        raise ExportError(f"A {dtype.name} tree ensemble in a {g.dtype.name} graph takes no post_transform.")
    if not trees:
        raise ExportError("A tree ensemble needs at least one tree. Received none.")
    encoded = [_as_encoded(t) for t in trees]
    for i, tree in enumerate(encoded):
        _check(tree, i, n_features, n_targets)

    features, modes, splits, true_ids, false_ids, true_leafs, false_leafs, missing = ([] for _ in range(8))
    roots, leaf_targets, leaf_weights, members = [], [], [], []
    node_offset = leaf_offset = 0
    for tree in encoded:
        leaf_start = leaf_offset + np.arange(tree.n_leaves)
        leaf_targets.append(np.full(tree.n_leaves, tree.target))
        leaf_weights.append(np.asarray(tree.leaf_weight, dtype=np.float64))
        roots.append(node_offset)
        for child, ids, leafs in ((tree.true_child, true_ids, true_leafs), (tree.false_child, false_ids, false_leafs)):
            child = np.asarray(child, dtype=np.int64)
            is_leaf = child < 0
            leafs.append(is_leaf.astype(np.int64))
            ids.append(np.where(is_leaf, leaf_start[np.where(is_leaf, ~child, 0)], child + node_offset))
        features.append(np.asarray(tree.feature, dtype=np.int64))
        modes.append(np.asarray(tree.mode, dtype=np.uint8))
        splits.append(np.asarray(tree.split, dtype=np.float64))
        missing.append(np.asarray(tree.missing_true, dtype=np.int64))
        for node in np.flatnonzero(np.asarray(tree.mode) == Mode.MEMBER):
            members.extend(np.asarray(tree.members[int(node)], dtype=np.float64).tolist())
            members.append(np.nan)
        node_offset += tree.n_nodes
        leaf_offset += tree.n_leaves

    mode = np.concatenate(modes)
    split = np.concatenate(splits)
    split = np.where(mode == Mode.MEMBER, 0.0, split)
    if dtype == np.float32:
        split = _float32_threshold(split, mode)
    branches = (np.concatenate(true_ids), np.concatenate(false_ids), np.concatenate(true_leafs),
                np.concatenate(false_leafs), np.concatenate(missing))
    mode, split, branches = _one_numeric_mode(mode, split, branches, dtype)
    true_id, false_id, true_leaf, false_leaf, missing_true = branches
    onnx = g.onnx
    tensor = onnx.numpy_helper.from_array
    attributes: dict[str, Any] = dict(
        n_targets=int(n_targets),
        aggregate_function=int(aggregate),
        post_transform=int(PostTransform.NONE),
        tree_roots=roots,
        nodes_featureids=np.concatenate(features).tolist(),
        nodes_modes=tensor(mode),
        nodes_splits=tensor(split.astype(dtype)),
        nodes_truenodeids=true_id.tolist(),
        nodes_trueleafs=true_leaf.tolist(),
        nodes_falsenodeids=false_id.tolist(),
        nodes_falseleafs=false_leaf.tolist(),
        nodes_missing_value_tracks_true=missing_true.tolist(),
        leaf_targetids=np.concatenate(leaf_targets).astype(np.int64).tolist(),
        leaf_weights=tensor(np.concatenate(leaf_weights).astype(dtype)),
    )
    if members:
        values = np.asarray(members, dtype=np.float64)
        written = values.astype(dtype)
        inexact = np.isfinite(values) & (written.astype(np.float64) != values)
        if np.any(inexact):  # two categories would share one code, and an input the other's branch
            raise ExportError(
                f"Set-membership splits test the category codes {np.unique(values[inexact])[:5].tolist()}, which "
                f"have no {dtype.name} value: a {dtype.name} input cannot tell them from their neighbours. "
                "Export with dtype='float64', or train on category codes 0..n-1 (a pandas 'category' column)."
            )
        attributes["membership_values"] = tensor(written)
    scores = g.op("TreeEnsemble", [x], domain=ML_DOMAIN, hint=hint, **attributes)
    return _post_transform(g, scores, PostTransform(post_transform))


def native_width(g: GraphBuilder, width: int) -> int | None:
    """``width`` for :func:`softmax` to add a row as the native float64 sum does, or ``None`` (``ReduceSum``) in
    a float32 graph, which cannot: left to right in float32 moved LightGBM's digits probabilities 2.9e-7
    from the native ones, ``ReduceSum`` 2.2e-7."""
    return width if g.dtype == np.float64 else None


def logistic(g: GraphBuilder, scores: str, scale: float = 1.0) -> str:
    """``1 / (1 + exp(-scale * scores))``, elementwise, in the graph's precision, with C's ``exp``
    (:func:`~wirework.export.libm.c_exp`: LightGBM's ``std::exp``, SciPy's ``expit``)."""
    one = g.const(np.ones(1), "one")
    if scale == 1.0:
        negative = g.op("Neg", [scores], hint="neg")
    else:
        negative = g.op("Mul", [scores, g.const(np.array([-scale]), "neg_scale")], hint="neg")
    return g.op("Div", [one, g.op("Add", [one, c_exp(g, negative)], hint="denominator")], hint="probability")


def softmax(g: GraphBuilder, scores: str, width: int | None = None, *, loop: bool = False, libm: bool = False) -> str:
    """Row-wise ``exp(s - max) / sum(exp(s - max))``, as LightGBM, XGBoost and scikit-learn compute it.

    ``width``: the number of columns, when known, to add each row as NumPy adds it (scikit-learn's own
    ``softmax``; :meth:`GraphBuilder.row_sum`) rather than with ``ReduceSum``; with ``loop=True``, left
    to right as a C loop adds it (LightGBM's ``Common::Softmax``). ``ReduceSum`` rounds otherwise: it
    was 4.4e-16 off LightGBM's digits probabilities, 2.2e-16 the ``Exp`` alone. ``libm``: the exponentials
    are C's (:func:`~wirework.export.libm.c_exp`, LightGBM's ``std::exp``), not NumPy's.
    """
    axis = g.const([1], "axis")
    top = g.op("ReduceMax", [scores, axis], keepdims=1, hint="row_max")
    shifted = g.op("Sub", [scores, top], hint="shifted")
    exp = c_exp(g, shifted) if libm else g.op("Exp", [shifted], hint="exp")
    if width is None:
        total = g.op("ReduceSum", [exp, axis], keepdims=1, hint="row_sum")
    elif loop:
        total = g.added([g.columns(exp, j, j + 1) for j in range(width)])
    else:
        total = g.row_sum(exp, width)
    return g.op("Div", [exp, total], hint="probabilities")


def _post_transform(g: GraphBuilder, scores: str, transform: PostTransform) -> str:
    # Written as separate nodes, never as the operator's attribute: ONNX Runtime 1.32 reads that
    # attribute off by one (1 gives LOGISTIC, 2 SOFTMAX), skips LOGISTIC for a single target and
    # computes it in float32 precision even for double inputs.
    if transform == PostTransform.NONE:
        return scores
    if transform == PostTransform.LOGISTIC:
        return logistic(g, scores)
    if transform == PostTransform.SOFTMAX:
        return softmax(g, scores)
    raise ExportError(f"post_transform {transform.name} is not supported; apply it with ONNX operators instead.")


def count_entries(model: Any) -> int:
    """Node plus leaf entries of every ``TreeEnsemble`` node in a ``ModelProto`` (a size measure).

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    >>> ww.onnx.count_entries(ww.to_onnx(tree)), tree.tree_.node_count   # 3 splits and 4 leaves
    (7, 7)
    """
    total = 0
    for node in model.graph.node:
        if node.op_type == "TreeEnsemble":
            for attribute in node.attribute:
                if attribute.name == "nodes_featureids":
                    total += len(attribute.ints)
                elif attribute.name == "leaf_targetids":
                    total += len(attribute.ints)
    return total
