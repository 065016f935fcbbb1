"""LightGBM models as one ``TreeEnsemble`` node.

Exports ``LGBMRegressor``, ``LGBMClassifier`` and a raw ``lightgbm.Booster``.
The trees are read from ``booster.dump_model()`` (the same iterations
``Booster.predict`` uses by default: the best iteration when early stopping
recorded one). Each split follows LightGBM's own prediction rules
(``Tree::NumericalDecision`` and ``Tree::CategoricalDecision`` of LightGBM 4):

0. LightGBM's predictor reads every value in ``[-1e-35f, 1e-35f]``
   (``kZeroThreshold``) as ``0.0``: it drops such values as the zeros of a
   sparse row. A threshold inside that band therefore compares as if the
   band were the single value ``0.0``.
1. Numerical split, missing type ``None``: NaN is read as ``0.0`` and then
   compared, so NaN takes the branch of zero; a row goes left when
   ``x <= threshold``.
2. Numerical split, missing type ``NaN``: NaN takes the ``default_left``
   branch; other values go left when ``x <= threshold``.
3. Numerical split, missing type ``Zero`` (``zero_as_missing=True``): NaN is
   read as ``0.0``, and every value in ``[-1e-35f, 1e-35f]`` (LightGBM's
   ``kZeroThreshold``) takes the ``default_left`` branch. When the threshold
   lies on the wrong side of that band the split becomes three comparisons,
   and one child subtree is written twice.
4. Categorical split: LightGBM reads the value as ``static_cast<int>``,
   toward zero (2.7 is code 2, -0.5 code 0), and the row goes left when
   that code is in the split's set. NaN, negative codes and codes the model
   never saw go right. The graph truncates the categorical columns before
   the ensemble (``x - fmod(x, 1)``; NaN stays NaN and ``±inf`` becomes
   NaN, which goes right): ONNX Runtime tests a set of codes 0-30 with a bit mask
   that no fractional value matches, and a larger set with a lookup that
   truncates, so without it 2.5 went right of a set holding 2.
5. Thresholds LightGBM stores as infinite are dumped as ``±1e300``; they are
   restored to infinity, as in the trained model.

The trees' outputs are summed in tree order in float64, as LightGBM does, so
a float64 export run by ONNX Runtime with one thread gives the raw scores
bit for bit. The output transform of the objective follows (rule 6):

6. ``regression``, ``regression_l1``, ``huber``, ``fair``, ``quantile``,
   ``mape``, ranking objectives: the raw score (``sqrt`` variants:
   ``sign(s) * s * s``); ``poisson``, ``gamma``, ``tweedie``: ``exp(s)``;
   ``binary`` and ``cross_entropy``: ``1 / (1 + exp(-sigmoid * s))``;
   ``multiclass``: softmax; ``multiclassova``: a sigmoid per class. Other
   objectives (``cross_entropy_lambda``, custom ones) are refused. ``exp`` is
   LightGBM's ``std::exp``: glibc's step by step (bit for bit) when the
   export asks for it (``to_onnx(..., exp="libm")``, see
   :func:`wirework.export.libm.c_exp`), else ONNX Runtime's ``Exp``.

Random-forest mode (``boosting="rf"``) divides the sum by the number of
iterations before the transform, as LightGBM does. ``decision_function``
(``LGBMClassifier``, LightGBM 4.7 and later) is the raw scores, 1-D for two
classes: the sum itself, undivided in random-forest mode too, as LightGBM's
``PredictRaw`` returns it. Linear trees are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import lightgbm
import numpy as np

from wirework.errors import ExportError
from wirework.export import heads
from wirework.export.builder import GraphBuilder
from wirework.export.libm import c_exp
from wirework.export.registry import register
from wirework.export.trees import Mode, PostTransform, Tree, logistic, native_width, single_leaf, softmax
from wirework.export.trees import tree_ensemble

__all__ = ["convert", "methods", "n_features", "categories", "trees_of"]

# LightGBM's kZeroThreshold: the float 1e-35f widened to double.
ZERO_BAND = float(np.float32(1e-35))
# Common::AvoidInf writes infinite thresholds as +-1e300.
_DUMPED_INF = 1e300

_IDENTITY = {"regression", "regression_l1", "huber", "fair", "quantile", "mape", "lambdarank", "rank_xendcg"}
_EXP = {"poisson", "gamma", "tweedie"}
_SIGMOID = {"binary", "cross_entropy"}


# -- reading the booster -----------------------------------------------------


def _booster(model: Any) -> lightgbm.Booster:
    if isinstance(model, lightgbm.Booster):
        return model
    booster = getattr(model, "_Booster", None)
    if booster is None:
        raise ExportError(f"{type(model).__name__} is not fitted. Call fit() before exporting it.")
    return booster


@dataclass(frozen=True)
class _Objective:
    """The objective of a dumped model: its name and its ``key:value`` options."""

    name: str
    options: Mapping[str, str] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> _Objective:
        words = str(text).split()
        if not words:
            raise ExportError(
                "The LightGBM model records no objective (it was trained with a custom objective function), so its "
                "output transform is unknown. Train with a built-in objective to export it."
            )
        options = dict(w.split(":", 1) for w in words[1:] if ":" in w)
        flags = frozenset(w for w in words[1:] if ":" not in w)
        return cls(words[0], options, flags)

    @property
    def sigmoid(self) -> float:
        return float(self.options.get("sigmoid", 1.0))


def _dump(model: Any) -> dict:
    dump = _booster(model).dump_model()
    objective = _Objective.parse(dump.get("objective", ""))
    known = _IDENTITY | _EXP | _SIGMOID | {"multiclass", "multiclassova"}
    if objective.name not in known:
        raise ExportError(
            f"LightGBM objective {objective.name!r} is not supported for ONNX export (its output transform has "
            f"no exact ONNX form). Supported: {', '.join(sorted(known))}. Export the raw scores of another model, "
            "or train with a supported objective."
        )
    if objective.flags - {"sqrt"}:
        raise ExportError(f"Unknown option(s) {sorted(objective.flags - {'sqrt'})} of LightGBM objective "
                          f"{objective.name!r}; cannot tell its output transform.")
    for info in dump["tree_info"]:
        if _is_linear(info["tree_structure"]):
            raise ExportError(
                "LightGBM linear trees (linear_tree=True) are not supported for ONNX export: TreeEnsemble leaves "
                "hold constants, not linear models. Retrain with linear_tree=False."
            )
    return dump


def _is_linear(structure: Mapping) -> bool:
    stack = [structure]
    while stack:
        node = stack.pop()
        if "leaf_value" in node:
            if "leaf_coeff" in node or "leaf_const" in node:
                return True
        else:
            stack.extend((node["left_child"], node["right_child"]))
    return False


def _threshold(value: Any) -> float:
    value = float(value)
    if value >= _DUMPED_INF:
        return np.inf
    if value <= -_DUMPED_INF:
        return -np.inf
    return value


# -- one tree ----------------------------------------------------------------


class _TreeWriter:
    """Flat arrays of one tree, filled while walking the dumped structure."""

    def __init__(self) -> None:
        self.feature: list[int] = []
        self.mode: list[int] = []
        self.split: list[float] = []
        self.children: list[list[int]] = []  # [true, false]
        self.missing: list[bool] = []
        self.leaves: list[float] = []
        self.members: dict[int, np.ndarray] = {}

    def node(self, feature: int, mode: Mode, split: float, missing_true: bool) -> int:
        self.feature.append(feature)
        self.mode.append(int(mode))
        self.split.append(split)
        self.children.append([0, 0])
        self.missing.append(bool(missing_true))
        return len(self.feature) - 1

    def tree(self, target: int) -> Tree:
        children = np.asarray(self.children, dtype=np.int64).reshape(-1, 2)
        return Tree(
            feature=np.asarray(self.feature, dtype=np.int64),
            mode=np.asarray(self.mode, dtype=np.uint8),
            split=np.asarray(self.split, dtype=np.float64),
            true_child=children[:, 0].copy(),
            false_child=children[:, 1].copy(),
            missing_true=np.asarray(self.missing, dtype=bool),
            leaf_weight=np.asarray(self.leaves, dtype=np.float64),
            members=self.members,
            target=target,
        )


def _at_most(w: _TreeWriter, feature: int, t: float, missing_true: bool) -> int:
    """One node sending ``x <= t`` to its true branch, where ``x`` in the zero band reads as ``0.0`` (rule 0)."""
    k = ZERO_BAND
    if -k <= t < k:  # the band straddles the threshold: it goes where 0.0 goes
        return w.node(feature, Mode.LEQ, k, missing_true) if t >= 0.0 else w.node(feature, Mode.LT, -k, missing_true)
    return w.node(feature, Mode.LEQ, t, missing_true)


def _split(w: _TreeWriter, node: Mapping) -> list[tuple[int, int, str]]:
    """Write the comparisons of one dumped split node.

    Returns ``(writer node, 0 for true / 1 for false, "left" or "right")``:
    which child slot of which written node receives which dumped child.
    """
    feature = int(node["split_feature"])
    missing_type = node.get("missing_type", "None")
    default_left = bool(node.get("default_left", True))
    if node["decision_type"] == "==":  # rule 4
        codes = np.asarray([int(c) for c in str(node["threshold"]).split("||")], dtype=np.int64)
        a = w.node(feature, Mode.MEMBER, 0.0, False)
        w.members[a] = np.unique(codes)
        return [(a, 0, "left"), (a, 1, "right")]
    if node["decision_type"] != "<=":
        raise ExportError(f"Unknown LightGBM decision type {node['decision_type']!r} (expected '<=' or '==').")
    t = _threshold(node["threshold"])
    if missing_type in ("None", "NaN"):  # rules 1 and 2
        missing_true = (0.0 <= t) if missing_type == "None" else default_left
        a = _at_most(w, feature, t, missing_true)
        return [(a, 0, "left"), (a, 1, "right")]
    if missing_type != "Zero":
        raise ExportError(f"Unknown LightGBM missing type {missing_type!r} (expected 'None', 'Zero' or 'NaN').")
    k = ZERO_BAND  # rule 3: the band [-k, k] and NaN take the default branch
    if default_left:
        if t >= k:  # the band lies left of the threshold already
            a = w.node(feature, Mode.LEQ, t, True)
            return [(a, 0, "left"), (a, 1, "right")]
        if t >= -k:  # left iff x <= k
            a = w.node(feature, Mode.LEQ, k, True)
            return [(a, 0, "left"), (a, 1, "right")]
        a = w.node(feature, Mode.LEQ, t, True)  # left: x <= t, or the band
        b = w.node(feature, Mode.LT, -k, False)
        c = w.node(feature, Mode.LEQ, k, False)
        w.children[a][1], w.children[b][1] = b, c
        return [(a, 0, "left"), (b, 0, "right"), (c, 0, "left"), (c, 1, "right")]
    if t < -k:  # the band lies right of the threshold already
        a = w.node(feature, Mode.LEQ, t, False)
        return [(a, 0, "left"), (a, 1, "right")]
    if t < k:  # left iff x < -k
        a = w.node(feature, Mode.LT, -k, False)
        return [(a, 0, "left"), (a, 1, "right")]
    a = w.node(feature, Mode.LT, -k, False)  # left: x < -k, or k < x <= t
    b = w.node(feature, Mode.LEQ, k, False)
    c = w.node(feature, Mode.LEQ, t, False)
    w.children[a][1], w.children[b][1] = b, c
    return [(a, 0, "left"), (b, 0, "right"), (c, 0, "left"), (c, 1, "right")]


def _tree(structure: Mapping, target: int) -> Tree:
    """One dumped ``tree_structure`` as a :class:`Tree` adding to ``target``."""
    if "leaf_value" in structure:
        return single_leaf(float(structure["leaf_value"]), target)
    w = _TreeWriter()
    pending: list[tuple[Mapping, int, int]] = [(structure, -1, 0)]  # (dumped node, parent, slot)
    while pending:
        node, parent, slot = pending.pop()
        if "leaf_value" in node:
            w.leaves.append(float(node["leaf_value"]))
            ref = ~(len(w.leaves) - 1)
        else:
            first = len(w.feature)
            slots = _split(w, node)
            ref = first
            for child_node, child_slot, side in reversed(slots):
                pending.append((node[f"{side}_child"], child_node, child_slot))
        if parent >= 0:
            w.children[parent][slot] = ref
    return w.tree(target)


def trees_of(model: Any) -> tuple[list[Tree], dict]:
    """The trees of a LightGBM model (each adding to its class) and the model's dump.

    Parameters
    ----------
    model : LGBMModel or lightgbm.Booster
        A fitted model.

    Returns
    -------
    trees : list of Tree
        One per dumped tree, in LightGBM's order; tree ``i`` adds to target
        ``i % num_tree_per_iteration``.
    dump : dict
        ``booster.dump_model()``.
    """
    dump = _dump(model)
    per_iteration = int(dump.get("num_tree_per_iteration", 1))
    trees = [_tree(info["tree_structure"], i % per_iteration) for i, info in enumerate(dump["tree_info"])]
    return trees, dump


# -- the registered converter --------------------------------------------------


def methods(model: Any) -> tuple[str, ...]:
    """``("predict", "predict_proba")`` for classifiers, and ``decision_function`` where LightGBM has it
    (4.7 and later); ``("predict",)`` otherwise."""
    if isinstance(model, lightgbm.LGBMClassifier):
        return ("predict", "predict_proba", "decision_function")[: 3 if hasattr(model, "decision_function") else 2]
    return ("predict",)


def n_features(model: Any) -> int:
    """Number of input columns of the model."""
    return int(_booster(model).num_feature())


def _feature_infos(booster: lightgbm.Booster) -> list[Any]:
    """Each feature's ``feature_infos`` (category values, or the range of its values), in feature order."""
    dump = booster.dump_model(num_iteration=1)  # the dump of one iteration is enough
    infos = dump.get("feature_infos", {})
    return [infos.get(name) for name in dump.get("feature_names", [])]


def _is_categorical(info: Any) -> bool:
    return isinstance(info, Mapping) and bool(info.get("values"))


def _fits_codes(info: Any, n_levels: int, categorical: bool) -> bool:
    """Whether a feature whose ``feature_infos`` is ``info`` can hold the codes of ``n_levels`` categories."""
    if not isinstance(info, Mapping):
        return False
    if categorical:
        return max(info["values"]) < n_levels
    low, high = info.get("min_value"), info.get("max_value")
    return (
        isinstance(low, (int, float)) and isinstance(high, (int, float))
        and 0 <= low <= high <= n_levels - 1 and float(low).is_integer() and float(high).is_integer()
    )


def _placements(infos: list[Any], levels: list[int]) -> list[list[int]]:
    """The ways (at most two) to give the pandas categorical columns, in order, increasing feature positions.

    Every categorical feature must get one (LightGBM's categorical features
    are pandas categoricals); a numeric feature may (an ordered pandas
    categorical, which LightGBM reads as its codes) if its values fit the
    codes. Counted by dynamic programming from the last feature, capped at two.
    """
    n, m = len(infos), len(levels)
    # ways[i][j]: placements of columns j.. among features i.. (capped at 2), with one example
    ways: list[list[tuple[int, list[int]]]] = [[(0, [])] * (m + 1) for _ in range(n + 1)]
    ways[n][m] = (1, [])
    for i in range(n - 1, -1, -1):
        categorical = _is_categorical(infos[i])
        ways[i][m] = (0, []) if categorical else ways[i + 1][m]
        for j in range(m - 1, -1, -1):
            count, example = (0, []) if categorical else ways[i + 1][j]
            if _fits_codes(infos[i], levels[j], categorical):
                taken, rest = ways[i + 1][j + 1]
                if taken and not count:
                    example = [i, *rest]
                count = min(2, count + taken)
            ways[i][j] = (count, example)
    count, example = ways[0][0]
    return [example] * count


def categories(model: Any) -> dict[int, np.ndarray]:
    """Category values of the columns LightGBM read as pandas categoricals.

    ``pandas_categorical`` holds the categories of the training DataFrame's
    categorical columns in column order. With ``categorical_feature="auto"``
    the unordered ones are the model's categorical features; an ordered one
    is read as its codes, a numeric feature whose values are codes. Its
    column is found by those values: where exactly one placement of the
    pandas columns, in order, fits every categorical feature and the codes
    of the others, that placement is the training DataFrame's. Columns
    given as integer codes (no pandas categories) are not listed: their
    codes are their values.
    """
    booster = _booster(model)
    pandas_categorical = getattr(booster, "pandas_categorical", None)
    if not pandas_categorical:
        return {}
    infos = _feature_infos(booster)
    columns = [i for i, info in enumerate(infos) if _is_categorical(info)]
    if len(columns) > len(pandas_categorical):
        raise ExportError(
            f"The LightGBM model has {len(columns)} categorical features ({columns}) but "
            f"{len(pandas_categorical)} pandas categorical columns; cannot tell which column has which categories. "
            "Train with categorical_feature='auto' on a DataFrame whose category columns are its only categoricals."
        )
    if len(columns) < len(pandas_categorical):  # ordered pandas categoricals, read as their codes
        found = _placements(infos, [len(values) for values in pandas_categorical])
        if len(found) != 1:
            raise ExportError(
                f"The LightGBM model has {len(columns)} categorical features ({columns}) but "
                f"{len(pandas_categorical)} pandas categorical columns: LightGBM reads an ordered pandas categorical "
                "(pd.cut makes them) as its codes, a numeric feature, and "
                f"{'no' if not found else 'more than one'} placement of those columns fits the model's features. "
                "Train on unordered categoricals (.cat.as_unordered()) or on the codes themselves."
            )
        columns = found[0]
    return {column: np.asarray(values) for column, values in zip(columns, pandas_categorical)}


def _transform(g: GraphBuilder, scores: str, objective: _Objective, width: int) -> str:
    """Rule 6: the objective's output transform of the raw scores."""
    name = objective.name
    if name in _IDENTITY:
        if "sqrt" in objective.flags:
            signed = g.op("Mul", [g.op("Sign", [scores], hint="sign"), scores], hint="signed")
            return g.op("Mul", [signed, scores], hint="squared")
        return scores
    if name in _EXP:
        return c_exp(g, scores)
    if name in _SIGMOID:
        return logistic(g, scores, objective.sigmoid if name == "binary" else 1.0)
    if name == "multiclassova":
        return logistic(g, scores, objective.sigmoid)
    return softmax(g, scores, native_width(g, width), loop=True, libm=True)  # LightGBM's Common::Softmax


def _truncated_codes(g: GraphBuilder, x: str, trees: list[Tree], n: int) -> str:
    """Rule 4: ``x`` with the columns of categorical splits truncated toward zero, as LightGBM reads them.

    ``x - fmod(x, 1)`` is exact; NaN stays NaN and ``±inf`` becomes NaN, both of which go right of every set,
    as in LightGBM (the cast of NaN or ``±inf`` to ``int`` gives a negative code on x86-64).
    """
    categorical = sorted({int(t.feature[i]) for t in trees for i in np.flatnonzero(t.mode == Mode.MEMBER)})
    if not categorical:
        return x
    mask = np.zeros(n, dtype=bool)
    mask[categorical] = True
    fraction = g.op("Mod", [x, g.const(np.ones(1), "one")], fmod=1, hint="fraction")
    whole = g.op("Sub", [x, fraction], hint="truncated")
    return g.op("Where", [g.const(mask, "categorical", dtype=bool), whole, x], hint="codes")


def _scores(model: Any, g: GraphBuilder, x: str, raw: bool = False) -> tuple[str, _Objective, int]:
    """The trees' scores, averaged in random-forest mode unless ``raw`` (LightGBM's ``PredictRaw`` adds them
    only; ``Predict`` divides before the output transform)."""
    trees, dump = trees_of(model)
    per_iteration = int(dump.get("num_tree_per_iteration", 1))
    n = n_features(model)
    scores = tree_ensemble(g, _truncated_codes(g, x, trees, n), trees, n_features=n, n_targets=per_iteration,
                           post_transform=PostTransform.NONE, hint="lightgbm_trees")
    if dump.get("average_output") and not raw:  # random forest mode: the sum over the number of iterations
        iterations = len(trees) // per_iteration
        scores = g.op("Div", [scores, g.const(np.array([float(iterations)]), "n_iterations")], hint="average")
    return scores, _Objective.parse(dump["objective"]), per_iteration


@register(
    lightgbm.LGBMRegressor,
    lightgbm.LGBMClassifier,
    lightgbm.Booster,
    methods=methods,
    n_features=n_features,
    categories=categories,
)
def convert(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    """Add ``model.<method>(x)`` of a LightGBM model to ``g``; returns the output value.

    Examples
    --------
    >>> import numpy as np, lightgbm
    >>> from wirework.export.builder import GraphBuilder
    >>> X = np.random.default_rng(0).normal(size=(200, 3)); y = X[:, 0] * 2
    >>> model = lightgbm.LGBMRegressor(n_estimators=5, n_jobs=1, verbose=-1).fit(X, y)
    >>> g = GraphBuilder("float64")
    >>> x = g.add_input("X", np.float64, [None, 3])
    >>> g.add_output(convert(model, "predict", g, x), "predict", np.float64, [None])
    >>> [n.op_type for n in g.to_model().graph.node]
    ['TreeEnsemble', 'Reshape']
    """
    if method not in methods(model):
        raise ExportError(f"{type(model).__name__} exports {methods(model)}. Received method {method!r}.")
    scores, objective, per_iteration = _scores(model, g, x, raw=method == "decision_function")
    is_classifier = isinstance(model, lightgbm.LGBMClassifier)
    if is_classifier and objective.name not in {"binary", "multiclass", "multiclassova", "cross_entropy"}:
        raise ExportError(f"LGBMClassifier with objective {objective.name!r} is not supported for ONNX export; "
                          "use 'binary' or 'multiclass'.")
    if method == "decision_function":  # the raw scores: 1-D for two classes
        return heads.vector(g, scores) if per_iteration == 1 else scores
    output = _transform(g, scores, objective, per_iteration)
    if not is_classifier:
        return heads.vector(g, output) if per_iteration == 1 else output
    if per_iteration == 1:
        output = heads.two_columns(g, output)
    # multiclassova: LGBMClassifier returns the per-class sigmoids as they are (rows need not sum to 1)
    if method == "predict_proba":
        return output
    return heads.labels(g, output, model.classes_)
