"""ONNX forms of the recipes' own static operations and wrappers (registered with the export layer).

Each does the same operations in the same order as its function in
:mod:`wirework.compose._ops`, so a float64 export gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wirework.compose import _ops, _params
from wirework.compose.composite import Composite
from wirework.compose._members import Seeded, Votes, log_mean_exp
from wirework.errors import ExportError
from wirework.export.heads import class_values, majority, weighted_average
from wirework.export.elementwise import log1p
from wirework.export.network import Context, concat, lower, register_lowering
from wirework.export.registry import converter_for, register
from wirework.graph.nodes import Node, StaticNode


@register_lowering(_ops.meta_features)
def _meta_features(cx: Context, node: StaticNode) -> str:
    probabilities = node.kwargs.get("probabilities", ())
    parts = []
    for arg, is_proba in zip(node.args, probabilities):
        value = cx.matrix(arg)
        if is_proba and cx.ndim(arg) == 2 and np.shape(cx.sample[arg])[1] == 2:
            value = cx.g.columns(value, 1, 2)
        parts.append(value)
    passthrough = node.kwargs.get("passthrough")
    if passthrough is not None:
        if not isinstance(passthrough, Node):
            raise ExportError("A constant passthrough table cannot be exported.")
        parts.append(cx.matrix(passthrough))
    return concat(cx, parts)


@register_lowering(_params.one_target)
def _one_target(cx: Context, node: StaticNode) -> str:
    # the regressor's prediction, a one-column one as a vector (what the target transformer's inverse is given)
    (predictions,) = node.args
    one_column = cx.ndim(predictions) == 2 and np.shape(cx.sample[predictions])[1] == 1
    return cx.g.as_vector(cx.names[predictions]) if one_column else cx.names[predictions]


@register_lowering(_ops.weighted_mean)
def _weighted_mean(cx: Context, node: StaticNode) -> str:
    return weighted_average(cx.g, [cx.floats(arg) for arg in node.args], node.kwargs.get("weights"))


@register_lowering(_ops.majority)
def _majority(cx: Context, node: StaticNode) -> str:
    # the first largest weighted count, the smallest label of a tie, as the native bincount and argmax
    votes = [cx.matrix(arg) for arg in node.args]
    return majority(cx.g, votes, _label_count(node), node.kwargs.get("weights"))


def _label_count(node: StaticNode) -> int:
    """How many encoded labels the voters of a majority node know (their ``classes_`` are ``0..K-1``)."""
    known: set[int] = set()
    for arg in node.args:
        model = getattr(getattr(arg, "machine", None), "fitted_model", None)
        classes = getattr(model, "classes_", None)
        if classes is None:
            raise ExportError(
                f"A majority vote of {arg!r} cannot be exported: it is no classifier's predict, so the "
                "labels it can give are unknown."
            )
        known.update(int(c) for c in np.asarray(classes).ravel())
    return max(known) + 1


@register_lowering(_ops.side_by_side)
def _side_by_side(cx: Context, node: StaticNode) -> str:
    # ww.Average's transform: each model's output as columns, in order (encoded labels stay int64, as natively)
    if not node.kwargs.get("flatten", True):
        raise ExportError(
            "The transform of a ww.Average with flatten_transform=False is 3-D (models, rows, classes); the file "
            "gives tables only. Export it with flatten_transform=True, or export predict and predict_proba."
        )
    if all(np.asarray(cx.sample[arg]).dtype.kind in "iu" for arg in node.args):
        return concat(cx, [cx.g.as_column(cx.names[arg]) if cx.ndim(arg) == 1 else cx.names[arg] for arg in node.args])
    return concat(cx, [cx.matrix(arg) for arg in node.args])


@register_lowering(_ops.log_of)
def _log_of(cx: Context, node: StaticNode) -> str:
    # ww.Bagging's predict_log_proba: the log of its probabilities (ONNX Runtime's Log, within an ulp of NumPy's)
    return cx.g.op("Log", [cx.floats(node.args[0])], hint="log_proba")


@register_lowering(log_mean_exp)
def _log_mean_exp(cx: Context, node: StaticNode) -> str:
    # ww.Bagging's predict_log_proba from its members' own: np.logaddexp in the members' order (NumPy's steps:
    # x + log 2 where x == y, else the larger plus log1p(exp(-|x - y|))), less log(n)
    g = cx.g
    total = cx.floats(node.args[0])
    for arg in node.args[1:]:
        other = cx.floats(arg)
        difference = g.op("Sub", [total, other], hint="logaddexp")
        larger = g.op("Where", [g.op("Greater", [difference, g.const(0.0)]), total, other], hint="logaddexp")
        tail = log1p(g, g.op("Exp", [g.op("Neg", [g.op("Abs", [difference])])], hint="logaddexp"))
        added = g.op("Add", [larger, tail], hint="logaddexp")
        same = g.op("Add", [total, g.const(np.log(2.0))], hint="logaddexp")
        total = g.op("Where", [g.op("Equal", [total, other]), same, added], hint="logaddexp")
    return g.op("Sub", [total, g.const(np.log(len(node.args)))], hint="log_proba")


@register_lowering(_ops.argmax)
def _argmax(cx: Context, node: StaticNode) -> str:
    return cx.g.op("ArgMax", [cx.floats(node.args[0])], axis=1, keepdims=0, hint="argmax")


@register_lowering(_ops.subspace)
def _subspace(cx: Context, node: StaticNode) -> str:
    # with bootstrap_features, the columns drawn with replacement (some twice), even as many as the input's
    replace = bool(node.kwargs.get("bootstrap_features", False))
    return _columns_of(cx, node, lambda *drawing: _ops.drawn_columns(*drawing, replace), whole=not replace)


@register_lowering(_ops.member_columns)  # a bagging pickled before the draws were scikit-learn's
def _member_columns(cx: Context, node: StaticNode) -> str:
    return _columns_of(cx, node, _ops.feature_subset)


def _columns_of(cx: Context, node: StaticNode, draw: Any, whole: bool = True) -> str:
    """The columns the member sees; ``whole``: as many as the input's are the input itself."""
    (table,) = node.args
    width = np.shape(cx.sample[table])[1]
    columns = draw(width, node.kwargs["seed"], node.kwargs["max_features"])
    if whole and len(columns) == width:
        return cx.names[table]
    return cx.g.take_columns(cx.names[table], columns)


def _inner(model: Any) -> Any:
    return model.estimator_


def _convert_seeded(model: Seeded, method: str, g: Any, x: str, sample: Any = None) -> str:
    inner = _inner(model)
    return converter_for(inner).apply(inner, method, g, x, sample=sample)


register(
    Seeded,
    methods=lambda model: converter_for(_inner(model)).exports(_inner(model)),
    n_features=lambda model: converter_for(_inner(model)).n_features(_inner(model)),
    categories=lambda model: converter_for(_inner(model)).categories(_inner(model)),
    takes_sample=True,
)(_convert_seeded)


def _votes_methods(model: Votes) -> tuple[str, ...]:
    offered = converter_for(_inner(model)).methods(_inner(model))
    if "predict" not in offered:
        return ()
    return ("predict", "predict_proba", *(m for m in ("decision_function",) if m in offered))


@register(
    Votes,
    methods=_votes_methods,
    n_features=lambda model: converter_for(_inner(model)).n_features(_inner(model)),
    categories=lambda model: converter_for(_inner(model)).categories(_inner(model)),
    takes_sample=True,
)
def _convert_votes(model: Votes, method: str, g: Any, x: str, sample: Any = None) -> str:
    # Votes.predict_proba: 1.0 in the column of the class the model predicts, 0.0 in the others (the model's
    # labels compared with classes_, as the native ``==``); predict and decision_function are the model's own
    inner = _inner(model)
    converter = converter_for(inner)
    if method != "predict_proba":
        return converter.apply(inner, method, g, x, sample=sample)
    predicted = g.as_column(converter.apply(inner, "predict", g, x, sample=sample))
    classes = class_values(model.classes_)
    if classes.dtype.kind in "iuf":  # numbers: compared as float64 (the labels the converters give: int64 or float)
        predicted = g.cast(predicted, np.float64)
        known = g.const(classes.astype(np.float64).reshape(1, -1), "classes", dtype=np.float64)
    else:
        known = g.const(classes.reshape(1, -1), "classes")
    return g.cast(g.op("Equal", [predicted, known], hint="vote"), g.dtype)


# -- a composite inside a network (a ww.Stack as a pipeline step, a ww.Pipeline as a base learner): its own
# trained network, lowered in place on the value that reaches it


def _trained_network(model: Composite) -> dict[str, Node]:
    network = model.__dict__.get("network_")
    if network is None:
        raise ExportError(
            f"The {type(model).__name__} inside the network has no trained network (its last fit failed, or it "
            "was never fitted); fit the outer network again before exporting."
        )
    return dict(network)


def _composite_categories(model: Composite) -> Mapping[int, np.ndarray]:
    from wirework.export.api import _categories_of

    return _categories_of(model, _trained_network(model))[0]


def _composite_n_features(model: Composite) -> int:
    n = getattr(model, "n_features_in_", None)
    if n is None:
        raise ExportError(f"The {type(model).__name__} inside the network has no n_features_in_; is it fitted?")
    return int(n)


@register(
    Composite,
    methods=lambda model: tuple(_trained_network(model)),
    n_features=_composite_n_features,
    categories=_composite_categories,
    takes_sample=True,
)
def _convert_composite(model: Composite, method: str, g: Any, x: str, sample: Any = None) -> str:
    # the composite's input numbered as the models that read it expect (recode tables, as for a whole
    # export), then its network; without the native input (inside a scikit-learn Pipeline), zeros stand in
    from wirework.export.api import _categories_of, _zeros

    network = _trained_network(model)
    categories, recode = _categories_of(model, network)
    if sample is None:
        sample = _zeros(model, [str(k) for k in range(_composite_n_features(model))], categories)
    values, _ = lower(g, {method: network[method]}, x, sample, recode)
    return values[method]
