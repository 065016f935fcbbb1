"""XGBoost models as one ``TreeEnsemble`` node computed in float32, as XGBoost computes.

Exports ``XGBRegressor``, ``XGBClassifier`` (and their random-forest
variants) and a raw ``xgboost.Booster`` with the ``gbtree`` or ``dart`` booster. The
trees are read from ``booster.save_raw("json")``, whose numbers are the
shortest decimals that round-trip XGBoost's float32 thresholds and leaf
values, so every float32 is recovered exactly. The prediction follows
XGBoost's CPU predictor (XGBoost 2 and 3):

1. The input is cast to float32 (``static_cast<float>``, round to nearest)
   before anything is compared. The exported graph does the same: a float64
   graph starts with ``Cast(X -> float32)``, so it takes XGBoost's decisions
   exactly, including for values within half a float32 step of a threshold.
2. Numerical split: the row goes left when ``x < split`` (``Mode.LT`` on the
   float32 threshold); NaN takes the default (``default_left``) child.
   ``±inf`` are ordinary values (``-inf`` left, ``+inf`` right), as in
   ``inplace_predict``, which the scikit-learn wrappers use.
3. Categorical split (``enable_categorical=True``): the row goes *right* when
   its category code is in the split's set; NaN takes the default child;
   every other code goes left, including codes the model never saw, negative
   codes and ``±inf``. XGBoost truncates a fractional code to an integer
   before looking it up, so the graph floors the categorical columns first.
4. Leaf values are added in float32, one tree after the other, starting
   from the base margin, per output group (``tree_info``). The ``TreeEnsemble``
   runs in float32 with a first tree that is a single leaf holding the base
   margin, so ONNX Runtime run with one intra-op thread repeats these float32
   additions in the same order: the margins are equal bit for bit. (With
   several threads ONNX Runtime may sum batches of trees separately: the
   result then differs by float32 rounding, about ``1e-7`` relative to the
   largest partial sum.)
5. The base margin is what XGBoost itself computes from ``base_score``
   (``ProbToMargin`` of the objective): it is measured by predicting the
   margin of a copy of the first iteration whose leaves are all zero.
6. Output transforms, in float32 as in XGBoost (``common::Sigmoid``,
   ``common::Softmax``): ``reg:logistic``, ``binary:logistic``:
   ``1 / (expf(min(-m, 88.7)) + 1)``; ``count:poisson``, ``reg:gamma``,
   ``reg:tweedie``, ``survival:cox``: ``expf(m)``; ``multi:softprob``:
   ``expf(m - max)`` over their sum, added left to right in float64 and
   rounded to float32; ``multi:softmax``: the index of the largest margin
   (its ``predict_proba`` is the same softmax, where ``XGBClassifier``
   calls scipy's ``softmax`` of the float32 margins: NumPy's float32
   ``exp``, a SIMD routine chosen by the CPU, differs from ``expf`` in the
   last bit for about a third of values, so these probabilities agree
   within two float32 steps, 2.4e-7 on the digits data; adding them in
   float32 in NumPy's order instead was no closer); ``reg:squarederror``,
   ``reg:squaredlogerror``, ``reg:pseudohubererror``, ``reg:absoluteerror``,
   ``reg:quantileerror`` (one quantile) and ``binary:logitraw``: the margin
   itself. ``expf`` is glibc's, computed step by step
   (:func:`wirework.export.libm.expf`), so these outputs are bit for bit
   too. ``Exp`` in float64 rounded to float32, which the file used before,
   is correctly rounded and glibc's ``expf`` is not always: 42 of 20,000
   ``reg:logistic`` predictions and 9 ``count:poisson`` ones were one
   float32 step off, and a binary label whose probability is within one
   step of 0.5 could flip.
7. ``dart``: XGBoost adds ``((base + leaf) - base) * weight_drop[tree]`` in
   float32 for every tree; each leaf of the file holds that float32 value,
   so ``dart`` models are bit-exact too.
8. A float64 graph returns these float32 results cast to float64, which is
   what ``predict`` returns (a float32 array) read as float64.

Refused with :class:`~wirework.errors.ExportError`: the ``gblinear``
booster, vector-leaf trees (``multi_strategy="multi_output_tree"``),
objectives other than those above (ranking, ``survival:aft``,
``binary:hinge``…), and a scikit-learn model whose ``missing`` is not NaN.
A raw ``Booster`` is assumed to be fed NaN as missing, as ``DMatrix`` and
``inplace_predict`` do by default.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xgboost

from wirework.errors import ExportError
from wirework.export import heads
from wirework.export.builder import GraphBuilder
from wirework.export.libm import expf
from wirework.export.registry import register
from wirework.export.trees import Mode, Tree, single_leaf, tree_ensemble

__all__ = ["convert", "methods", "n_features", "categories"]

_IDENTITY = {
    "reg:squarederror",
    "reg:squaredlogerror",
    "reg:pseudohubererror",
    "reg:absoluteerror",
    "reg:quantileerror",
    "binary:logitraw",
}
_EXP = {"count:poisson", "reg:gamma", "reg:tweedie", "survival:cox"}
_LOGISTIC = {"reg:logistic", "binary:logistic"}
_SOFTMAX = {"multi:softprob", "multi:softmax"}
_CLASSIFIER_OBJECTIVES = _LOGISTIC | _SOFTMAX
_F32 = np.float32


# -- reading the booster -----------------------------------------------------


def _booster(model: Any) -> xgboost.Booster:
    if isinstance(model, xgboost.Booster):
        return model
    try:
        return model.get_booster()
    except Exception as error:  # XGBoost raises NotFittedError (a ValueError) on unfitted models
        raise ExportError(f"{type(model).__name__} is not fitted. Call fit() before exporting it.") from error


@dataclass(frozen=True)
class _Model:
    """What the converter needs from one fitted model, read once from its JSON."""

    trees: list[Mapping]
    groups: list[int]
    n_groups: int
    base: np.ndarray  # float32 base margin per group
    objective: str
    n_features: int
    weights: np.ndarray | None  # dart: the float32 weight of each tree


def _learner(booster: xgboost.Booster) -> Mapping:
    return json.loads(bytes(booster.save_raw("json")))["learner"]


def _body(learner: Mapping) -> Mapping:
    """The ``gbtree`` model inside the learner (a ``dart`` booster wraps one)."""
    gbm = learner["gradient_booster"]
    return gbm["gbtree"]["model"] if gbm["name"] == "dart" else gbm.get("model", {})


def _iterations(model: Any) -> int | None:
    """The iterations ``predict`` uses: up to the best one when early stopping recorded one."""
    if isinstance(model, xgboost.Booster):
        return None
    try:
        return int(model.best_iteration) + 1
    except AttributeError:
        return None


def _check_missing(model: Any) -> None:
    missing = getattr(model, "missing", np.nan)
    if missing is not None and not (isinstance(missing, float) and np.isnan(missing)):
        raise ExportError(
            f"{type(model).__name__} was built with missing={missing!r}. The export reads only NaN as missing. "
            "Refit with missing=np.nan (replace the sentinel value by NaN in the data)."
        )


def _read(model: Any) -> _Model:
    booster = _booster(model)
    _check_missing(model)
    learner = _learner(booster)
    objective = learner["objective"]["name"]
    gbm = learner["gradient_booster"]
    if gbm["name"] == "gblinear":
        raise ExportError(
            "XGBoost's gblinear booster is a linear model, not trees; it cannot be exported. "
            "Use booster='gbtree', or export a scikit-learn linear model instead."
        )
    if gbm["name"] not in ("gbtree", "dart"):
        raise ExportError(f"Unknown XGBoost booster {gbm['name']!r}. Supported: 'gbtree' and 'dart'.")
    if objective not in _IDENTITY | _EXP | _LOGISTIC | _SOFTMAX:
        raise ExportError(
            f"XGBoost objective {objective!r} is not supported. Supported: "
            f"{', '.join(sorted(_IDENTITY | _EXP | _LOGISTIC | _SOFTMAX))}."
        )
    body = _body(learner)
    trees, groups = list(body["trees"]), [int(v) for v in body["tree_info"]]
    weights = np.asarray(gbm["weight_drop"], _F32) if gbm["name"] == "dart" else None
    for tree in trees:
        if int(tree["tree_param"].get("size_leaf_vector", "1")) > 1:
            raise ExportError(
                "This XGBoost model has vector-leaf trees (multi_strategy='multi_output_tree'); they cannot be "
                "exported. Refit with multi_strategy='one_output_per_tree'."
            )
    stop = _iterations(model)
    if stop is not None:
        indptr = body.get("iteration_indptr")
        if indptr is None or stop >= len(indptr):
            raise ExportError(f"Cannot find the trees of the first {stop} iterations (best_iteration) in the model.")
        trees, groups = trees[: indptr[stop]], groups[: indptr[stop]]
        weights = None if weights is None else weights[: indptr[stop]]
    base = _base_margin(booster, body)
    param = learner["learner_model_param"]
    n_features = int(param["num_feature"])
    return _Model(trees, groups, len(base), base, objective, n_features, weights)


def _base_margin(booster: xgboost.Booster, body: Mapping) -> np.ndarray:
    """The float32 margin XGBoost starts every row from, one per output group.

    Measured rather than recomputed from ``base_score``: the first iteration
    with every leaf set to zero predicts exactly the base margin.
    """
    n_iterations = max(len(body.get("iteration_indptr") or [0]) - 1, 0)
    first = booster[0:1] if n_iterations else booster
    document = json.loads(bytes(first.save_raw("json")))
    learner = document["learner"]
    for tree in _body(learner)["trees"]:
        left = tree["left_children"]
        tree["split_conditions"] = [0.0 if child == -1 else v for child, v in zip(left, tree["split_conditions"])]
        tree["base_weights"] = [0.0] * len(tree["base_weights"])
    zeroed = xgboost.Booster(model_file=bytearray(json.dumps(document), "utf8"))
    n = int(learner["learner_model_param"]["num_feature"])
    margin = zeroed.inplace_predict(np.full((1, n), np.nan, np.float32), predict_type="margin")
    return np.asarray(margin, dtype=_F32).reshape(-1)


# -- trees -------------------------------------------------------------------


def _members(raw: Mapping, node: int) -> np.ndarray:
    where = raw["categories_nodes"].index(node)
    start, size = raw["categories_segments"][where], raw["categories_sizes"][where]
    return np.asarray(raw["categories"][start : start + size], dtype=np.float64)


def _tree(raw: Mapping, target: int) -> Tree:
    """One XGBoost tree (JSON arrays) as a :class:`Tree`, walked from the root (deleted nodes dropped)."""
    left, right = raw["left_children"], raw["right_children"]
    values, default_left = raw["split_conditions"], raw["default_left"]
    split_type = raw.get("split_type") or [0] * len(left)
    if left[0] == -1:
        return single_leaf(float(_F32(values[0])), target)
    index: dict[int, int] = {}
    order: list[int] = []
    leaves: list[float] = []

    def child(node: int) -> int:
        if left[node] == -1:
            leaves.append(float(_F32(values[node])))
            return ~(len(leaves) - 1)
        index[node] = len(order)
        order.append(node)
        return index[node]

    child(0)
    feature, mode, split, true_child, false_child, missing_true = ([] for _ in range(6))
    members: dict[int, np.ndarray] = {}
    position = 0
    while position < len(order):
        node = order[position]
        feature.append(int(raw["split_indices"][node]))
        lo, hi = child(left[node]), child(right[node])
        if int(split_type[node]) == 1:
            codes = _members(raw, node)
            if codes.size:  # in the set -> right
                mode.append(Mode.MEMBER)
                members[position] = codes
                true_child.append(hi), false_child.append(lo)
                missing_true.append(not default_left[node])
            else:  # empty set: every value goes left, NaN to the default child
                mode.append(Mode.LEQ)
                true_child.append(lo), false_child.append(hi)
                missing_true.append(bool(default_left[node]))
            split.append(np.inf if not codes.size else 0.0)
        else:
            mode.append(Mode.LT)
            split.append(float(_F32(values[node])))
            true_child.append(lo), false_child.append(hi)
            missing_true.append(bool(default_left[node]))
        position += 1
    return Tree(
        feature=np.asarray(feature, np.int64),
        mode=np.asarray(mode, np.uint8),
        split=np.asarray(split, np.float64),
        true_child=np.asarray(true_child, np.int64),
        false_child=np.asarray(false_child, np.int64),
        missing_true=np.asarray(missing_true, bool),
        leaf_weight=np.asarray(leaves, np.float64),
        members=members,
        target=target,
    )


def _all_trees(m: _Model) -> list[Tree]:
    """The base margin of each group as a first single-leaf tree, then every tree in model order."""
    out = [single_leaf(float(b), k) for k, b in enumerate(m.base)]
    for i, (raw, group) in enumerate(zip(m.trees, m.groups)):
        tree = _tree(raw, group)
        if m.weights is not None:  # rule 7: what dart adds for each leaf, in float32
            base, leaf = m.base[group], np.asarray(tree.leaf_weight, _F32)
            tree.leaf_weight = (((base + leaf) - base) * m.weights[i]).astype(np.float64)
        out.append(tree)
    return out


# -- the registered converter --------------------------------------------------


def _kind(model: Any) -> str:
    if isinstance(model, xgboost.Booster):
        return "booster"
    return "classifier" if isinstance(model, xgboost.XGBClassifier) else "regressor"


def methods(model: Any) -> tuple[str, ...]:
    """``("predict", "predict_proba")`` for an ``XGBClassifier``; ``("predict",)`` otherwise."""
    return ("predict", "predict_proba") if _kind(model) == "classifier" else ("predict",)


def n_features(model: Any) -> int:
    """The number of input columns of the booster."""
    return int(_learner(_booster(model))["learner_model_param"]["num_feature"])


def categories(model: Any) -> dict[int, np.ndarray]:
    """The training categories of each categorical column (XGBoost >= 3.1 stores them in the model).

    A model trained on category codes (no stored categories) gets ``0 .. K-1``,
    ``K - 1`` being the largest code any split uses.
    """
    learner = _learner(_booster(model))
    types = list(learner.get("feature_types") or [])
    body = _body(learner)
    cats = body.get("cats") or {}
    encoded = cats.get("enc") or []
    out: dict[int, np.ndarray] = {}
    for column, kind in enumerate(types):
        if kind != "c":
            continue
        enc = encoded[column] if column < len(encoded) else {}
        values = _decode(enc)
        if values is None:
            largest = max(
                (max(t["categories"]) for t in body.get("trees", []) if t.get("categories")),
                default=0,
            )
            values = np.arange(int(largest) + 1)
        out[column] = values
    return out


def _decode(enc: Mapping) -> np.ndarray | None:
    """The category values of one column as XGBoost stores them (strings as UTF-8 bytes + offsets)."""
    values = enc.get("values") or []
    if not values:
        return None
    offsets = enc.get("offsets")
    if offsets:
        raw = bytes(values)
        return np.asarray([raw[a:b].decode("utf-8") for a, b in zip(offsets[:-1], offsets[1:])], dtype=object)
    return np.asarray(values)


@contextlib.contextmanager
def _float32(g: GraphBuilder) -> Iterator[None]:
    """Build with float32 constants and ensembles inside a float64 graph."""
    saved = g.dtype
    g.dtype = np.dtype(np.float32)
    try:
        yield
    finally:
        g.dtype = saved


def _margins(g: GraphBuilder, m: _Model, x: str) -> str:
    """The float32 ``[N, n_groups]`` margins, summed as XGBoost sums them."""
    if g.dtype != np.float32:
        x = g.cast(x, np.float32)
    with _float32(g):
        used = {int(t["split_indices"][i]) for t in m.trees for i, kind in enumerate(t.get("split_type") or []) if kind}
        if used:  # rule 3: a fractional code is truncated (floored: negative codes go left either way)
            mask = np.zeros(m.n_features, bool)
            mask[sorted(used)] = True
            x = g.op("Where", [g.const(mask, "categorical", dtype=bool), g.op("Floor", [x]), x], hint="codes")
        return tree_ensemble(g, x, _all_trees(m), n_features=m.n_features, n_targets=m.n_groups, hint="xgboost")


def _sigmoid(g: GraphBuilder, margin: str) -> str:
    """XGBoost's ``Sigmoid``: ``1 / (expf(min(-m, 88.7)) + 1)`` in float32."""
    with _float32(g):
        negative = g.op("Min", [g.op("Neg", [margin]), g.const(np.array([88.7], _F32), "clip")])
        one = g.const(np.ones(1, _F32), "one")
        return g.op("Div", [one, g.op("Add", [expf(g, negative), one])], hint="probability")


def _softmax(g: GraphBuilder, margin: str, width: int) -> str:
    """XGBoost's ``Softmax``: ``expf(m - max)`` divided by their float64 sum (left to right) rounded to
    float32."""
    with _float32(g):
        shifted = g.op("Sub", [margin, g.op("ReduceMax", [margin, g.const([1], "axis")], keepdims=1)])
        exp = expf(g, shifted)
        wide = g.cast(exp, np.float64)
        total = g.added([g.columns(wide, j, j + 1) for j in range(width)])
        return g.op("Div", [exp, g.cast(total, np.float32)], hint="probabilities")


def _output(g: GraphBuilder, value: str) -> str:
    return value if g.dtype == np.float32 else g.cast(value, g.dtype)


def _check_kind(model: Any, m: _Model) -> None:
    kind = _kind(model)
    if kind == "classifier" and m.objective not in _CLASSIFIER_OBJECTIVES:
        raise ExportError(
            f"XGBClassifier with objective {m.objective!r} is not supported: its predict_proba is not a "
            "probability. Use 'binary:logistic', 'multi:softprob' or 'multi:softmax'."
        )
    if kind == "regressor" and m.objective in _SOFTMAX:
        raise ExportError(f"XGBRegressor with objective {m.objective!r} is not supported. Use an XGBClassifier.")


@register(
    xgboost.XGBRegressor,
    xgboost.XGBClassifier,
    xgboost.Booster,
    methods=methods,
    n_features=n_features,
    categories=categories,
)
def convert(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """Add ``model.<method>(x)`` for an XGBoost model; returns the output value.

    Examples
    --------
    >>> import numpy as np, xgboost
    >>> from wirework.export.builder import GraphBuilder
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> model = xgboost.XGBRegressor(n_estimators=3, max_depth=2, n_jobs=1).fit(X, X[:, 0])
    >>> g = GraphBuilder("float64")
    >>> out = convert(model, "predict", g, g.add_input("X", np.float64, [None, 3]))
    >>> sorted({n.op_type for n in g.nodes})
    ['Cast', 'Reshape', 'TreeEnsemble']
    """
    if method not in methods(model):
        raise ExportError(f"{type(model).__name__} has no exportable method {method!r}; it offers {methods(model)}.")
    m = _read(model)
    _check_kind(model, m)
    margin = _margins(g, m, x)
    kind, objective = _kind(model), m.objective
    if objective == "multi:softmax" and method == "predict":
        if kind == "classifier":  # XGBClassifier: the class of the largest margin
            return heads.labels(g, margin, model.classes_)
        index = g.op("ArgMax", [margin], axis=1, keepdims=0, hint="class_index")  # Booster: the index as a float
        return g.cast(index, g.dtype)
    if objective in _IDENTITY:
        result = margin
    elif objective in _EXP:
        result = expf(g, margin)
    elif objective in _LOGISTIC:
        result = _sigmoid(g, margin)
    else:  # multi:softprob, and predict_proba of multi:softmax
        result = _softmax(g, margin, m.n_groups)
    if kind != "classifier":
        return _output(g, heads.vector(g, result) if m.n_groups == 1 else result)
    if m.n_groups == 1:  # binary: [1 - p, p] in float32, as XGBClassifier.predict_proba
        with _float32(g):
            negative = g.op("Sub", [g.const(np.ones(1, _F32), "one"), result], hint="negative")
            result = g.op("Concat", [negative, result], axis=1, hint="probabilities")
    if method == "predict_proba":
        return _output(g, result)
    return heads.labels(g, result, model.classes_)
