"""ONNX forms of the recipes' own static operations and wrappers (registered with the export layer).

Each does the same operations in the same order as its function in
:mod:`wirework.compose._ops`, so a float64 export gives the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirework.compose import _ops
from wirework.compose.ensemble import Seeded
from wirework.errors import ExportError
from wirework.export.network import Context, concat, register_lowering, sum_in_order
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


@register_lowering(_ops.weighted_mean)
def _weighted_mean(cx: Context, node: StaticNode) -> str:
    values = [cx.floats(arg) for arg in node.args]
    weights = node.kwargs.get("weights")
    g = cx.g
    if weights is None:
        total = sum_in_order(cx, values)
        return g.op("Div", [total, g.const(float(len(values)), "count")], hint="mean")
    terms = [g.op("Mul", [g.const(float(w), "weight"), v], hint="weighted") for w, v in zip(weights, values)]
    total = sum_in_order(cx, terms)
    return g.op("Div", [total, g.const(float(sum(weights)), "weight_sum")], hint="mean")


@register_lowering(_ops.argmax)
def _argmax(cx: Context, node: StaticNode) -> str:
    return cx.g.op("ArgMax", [cx.floats(node.args[0])], axis=1, keepdims=0, hint="argmax")


@register_lowering(_ops.member_columns)
def _member_columns(cx: Context, node: StaticNode) -> str:
    (table,) = node.args
    width = np.shape(cx.sample[table])[1]
    columns = _ops.feature_subset(width, node.kwargs["seed"], node.kwargs["max_features"])
    if len(columns) == width:
        return cx.names[table]
    return cx.g.take_columns(cx.names[table], columns)


def _inner(model: Any) -> Any:
    return model.estimator_


register(
    Seeded,
    methods=lambda model: converter_for(_inner(model)).methods(_inner(model)),
    n_features=lambda model: converter_for(_inner(model)).n_features(_inner(model)),
    categories=lambda model: converter_for(_inner(model)).categories(_inner(model)),
)(lambda model, method, g, x: converter_for(_inner(model)).convert(_inner(model), method, g, x))
