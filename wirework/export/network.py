"""Lowering a trained learning network to ONNX nodes.

The prediction path of each output is walked in topological order (training
edges are not followed: the folds of a stack, its out-of-fold predictions
and the target are not needed to predict). Each node becomes ONNX nodes:

- the input source is the graph's input matrix;
- a dynamic node goes to the converter of its machine's fitted model
  (:mod:`wirework.export.registry`);
- a static node goes to the lowering of its function, listed in
  :data:`LOWERINGS` (``hcat``, ``mean``, arithmetic, column selection; the
  recipes add their own operations with :func:`register_lowering`). Any
  other function is refused with :class:`~wirework.ExportError`.

The network is first evaluated natively on a sample of the input, which
tells each value's number of dimensions and kind (float, integer labels,
strings), so 1-D predictions become columns where scikit-learn would make
them so, exactly as the native network does.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from wirework.errors import ExportError, NotTrainedError, quoted
from wirework.export import elementwise
from wirework.export.builder import GraphBuilder, dense
from wirework.export.categories import hands_on, passed_through, recode
from wirework.export.imputed_codes import impute_codes, imputes_strings
from wirework.export.registry import converter_for, nothing_exported
from wirework.graph import library
from wirework.graph.nodes import DynamicNode, Node, Source, StaticNode, evaluate

__all__ = [
    "Context", "lower", "LOWERINGS", "register_lowering", "input_source", "concat", "imputed_for", "read_after",
]


class Context:
    """What the lowering of one node sees: the graph, ONNX names and native sample values of nodes."""

    def __init__(
        self,
        g: GraphBuilder,
        names: dict[Node, str],
        sample: dict[Node, Any],
        recode: Mapping[int, Mapping[int, np.ndarray]] | None = None,
    ) -> None:
        self.g = g
        self.names = names
        self.sample = sample
        self.recode = recode or {}  # by id of model: the input's category codes to the model's own, by column
        self.order: list[Node] = []  # the nodes being lowered, in order
        self.coded: set[Node] = set()  # nodes whose strings the graph holds as codes (imputed_codes)

    def value(self, item: Any) -> str:
        """The ONNX value of a node argument, or a constant for a plain argument."""
        if isinstance(item, Node):
            return self.names[item]
        array = np.asarray(item)
        if array.dtype.kind not in "biuf":
            raise ExportError(f"A constant {item!r} in the network is not numeric, so it cannot be exported.")
        return self.g.const(array.astype(np.float64), "constant")

    def ndim(self, item: Any) -> int:
        if isinstance(item, Source):
            return 2
        return np.ndim(dense(self.sample[item])) if isinstance(item, Node) else np.ndim(item)

    def floats(self, item: Node) -> str:
        """A node's value as floats of the graph's dtype (labels and codes are cast)."""
        if isinstance(item, Source) or item in self.coded:  # the float matrix, category columns as codes
            return self.names[item]
        kind = dense(self.sample[item]).dtype.kind  # a sparse value (a one-hot encoding) as the file holds it
        if kind in "biu" or (kind == "O" and _numbers_of_columns(item, self.sample[item])):
            return self.g.cast(self.names[item], self.g.dtype)
        if kind != "f":
            raise ExportError(
                f"{item!r} carries {dense(self.sample[item]).dtype} values, not numbers, and the file holds numbers "
                "only. Encode its text or categorical columns before (a OneHotEncoder, OrdinalEncoder or "
                "TargetEncoder), or pass them through a ColumnTransformer to the one model that reads them as "
                "categories."
            )
        return self.names[item]

    def matrix(self, item: Node) -> str:
        """A node's value as a float matrix (a 1-D value becomes one column)."""
        value = self.floats(item)
        return self.g.as_column(value) if self.ndim(item) == 1 else value


def _numbers_of_columns(item: Node, value: Any) -> bool:
    """Whether ``item`` is a ``ColumnTransformer``'s transform whose object value holds numbers only (its parts
    beside columns it passed through from an object table): the file computes them as numbers."""
    if not (isinstance(item, DynamicNode) and hasattr(item.machine.fitted_model, "transformers_")):
        return False
    try:
        dense(value).astype(np.float64)
    except (TypeError, ValueError):
        return False
    return True


def concat(cx: Context, parts: list[str]) -> str:
    return cx.g.hstack(parts)


def _hcat(cx: Context, node: StaticNode) -> str:
    if node.kwargs:
        raise ExportError(f"hcat with keyword arguments {sorted(node.kwargs)} cannot be exported.")
    parts = []
    for arg in node.args:
        if not isinstance(arg, Node):
            raise ExportError("hcat of a constant table cannot be exported; pass only nodes.")
        parts.append(cx.matrix(arg))
    return concat(cx, parts)


def _mean(cx: Context, node: StaticNode) -> str:
    args = node.args
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    values = [cx.floats(a) if isinstance(a, Node) else cx.value(a) for a in args]
    return cx.g.op("Div", [cx.g.added(values), cx.g.const(float(len(values)), "count")], hint="mean")


def _binary(op_type: str) -> Callable[[Context, StaticNode], str]:
    def lower_binary(cx: Context, node: StaticNode) -> str:
        left, right = node.args
        operands = [cx.floats(a) if isinstance(a, Node) else cx.value(a) for a in (left, right)]
        return cx.g.op(op_type, operands, hint=op_type.lower())

    return lower_binary


def _neg(cx: Context, node: StaticNode) -> str:
    return cx.g.op("Neg", [cx.floats(node.args[0])], hint="neg")


def _getitem(cx: Context, node: StaticNode) -> str:
    table, key = node.args
    sample = cx.sample[table]
    if not isinstance(sample, np.ndarray) or sample.ndim != 2:
        raise ExportError(
            f"Selection {key!r} on a {type(sample).__name__} cannot be exported; only column selection "
            "on numpy matrices (x[:, j], x[:, a:b], x[:, [i, j]]) is supported."
        )
    if not (isinstance(key, tuple) and len(key) == 2 and key[0] == slice(None)):
        raise ExportError(f"Selection {key!r} selects rows; only column selection x[:, ...] can be exported.")
    columns = key[1]
    if isinstance(columns, (bool, np.bool_)):  # NumPy reads a boolean scalar as a new axis, not a column
        raise ExportError(
            f"Selection {key!r} indexes with a boolean scalar, which adds an axis; only column selection "
            "(x[:, j], x[:, a:b], x[:, [i, j]], a boolean mask of every column) can be exported."
        )
    g = cx.g
    if isinstance(columns, (int, np.integer)):
        return g.op("Gather", [cx.names[table], g.const(int(columns), "column")], axis=1, hint="column")
    if isinstance(columns, slice):
        indices = np.arange(sample.shape[1])[columns]
    else:
        indices = np.asarray(columns)
        if indices.dtype == bool:
            indices = np.flatnonzero(indices)
        if indices.dtype.kind not in "iu":
            raise ExportError(f"Column selection by {columns!r} cannot be exported; use integer positions.")
    return g.take_columns(cx.names[table], indices)


def _elementwise(function: Callable) -> Callable[[Context, StaticNode], str]:
    def lower_elementwise(cx: Context, node: StaticNode) -> str:
        if len(node.args) != 1 or node.kwargs or not isinstance(node.args[0], Node):
            raise ExportError(
                f"{function.__name__} of {node.label!r} cannot be exported: only one node, without keyword "
                "arguments, can be."
            )
        return elementwise.FUNCTIONS[function](cx.g, cx.floats(node.args[0]))

    return lower_elementwise


LOWERINGS: dict[Callable, Callable[[Context, StaticNode], str]] = {
    library.hcat.__wrapped__: _hcat,
    library.mean_values: _mean,
    operator.add: _binary("Add"),
    operator.sub: _binary("Sub"),
    operator.mul: _binary("Mul"),
    operator.truediv: _binary("Div"),
    operator.neg: _neg,
    operator.getitem: _getitem,
    **{function: _elementwise(function) for function in elementwise.FUNCTIONS},
}


def register_lowering(function: Callable) -> Callable:
    """Decorator: ``lowering(cx, node) -> value`` becomes the ONNX form of static nodes applying ``function``.

    Layers above the export (the recipes' own operations) register theirs
    this way.
    """

    def decorate(lowering: Callable[[Context, StaticNode], str]) -> Callable:
        LOWERINGS[function] = lowering
        return lowering

    return decorate


def input_source(outputs: Mapping[str, Node]) -> Source:
    """The one source the outputs are computed from (training-only sources excluded)."""
    sources = {id(s): s for node in outputs.values() for s in node.sources()}
    if len(sources) != 1:
        names = sorted(s.name or "?" for s in sources.values())
        raise ExportError(
            f"An exported network must predict from exactly one source; these outputs need {len(sources)}: {names}."
        )
    return next(iter(sources.values()))


def imputed_for(order: Iterable[Node], node: DynamicNode) -> dict[int, np.ndarray]:
    """The categories of the one model that reads the output of ``node``, the ``transform`` of a
    ``SimpleImputer`` that fills strings (see :mod:`wirework.export.imputed_codes`): the codes its output takes.
    ``order``: the nodes of the outputs' prediction paths."""
    readers = [item for item in order if node in getattr(item, "parents", ())]
    models = {id(item.machine.fitted_model): item.machine.fitted_model for item in readers if isinstance(item, DynamicNode)}
    if len(models) != 1 or not all(isinstance(item, DynamicNode) and item.parents[0] is node for item in readers):
        what = ", ".join(
        f"{type(item.machine.fitted_model).__name__}.{item.operation}()" if isinstance(item, DynamicNode) else item.label
        for item in readers
    ) or "nothing"
        raise ExportError(
            f"{type(node.machine.fitted_model).__name__}.transform() fills string columns, and only one encoder reading its output can turn them into the "
            f"numbers the file holds; it is read by {what}. Put one encoder (OneHotEncoder, OrdinalEncoder, "
            "TargetEncoder) right after the imputer."
        )
    model = next(iter(models.values()))
    return {int(k): np.asarray(v) for k, v in converter_for(model).categories(model).items()}


def read_after(order: Iterable[Node], node: DynamicNode) -> dict[int, np.ndarray]:
    """The categories the models reading the output of ``node`` read it with, by column, when they all read it
    whole and alike ({} otherwise): the codes of the category columns a ``ColumnTransformer`` passes through
    to them (see :func:`wirework.export.categories.passed_through`). ``order``: the prediction paths' nodes."""
    readers = [item for item in order if node in getattr(item, "parents", ())]
    found = []
    for item in readers:
        if not isinstance(item, DynamicNode) or item.parents[0] is not node:
            return {}
        model = item.machine.fitted_model
        found.append({int(k): np.asarray(v) for k, v in converter_for(model).categories(model).items()})
    listed = [{k: [repr(v) for v in values.tolist()] for k, values in f.items()} for f in found]  # NaN equals NaN
    alike = all(f == listed[0] for f in listed)
    return found[0] if found and alike else {}


def _dynamic(cx: Context, node: DynamicNode) -> str:
    machine = node.machine
    model = machine.fitted_model
    if imputes_strings(model) and node.operation == "transform":  # the input's codes into its reader's
        cx.coded.add(node)
        return impute_codes(cx.g, model, cx.matrix(node.parents[0]), imputed_for(cx.order, node))
    if node.operation == "transform" and hands_on(model) and passed_through(model, read_after(cx.order, node)):
        cx.coded.add(node)  # a ColumnTransformer passing category codes through to its readers
    converter = converter_for(model)
    methods = converter.exports(model)
    if node.operation not in methods:
        raise ExportError(
            f"{type(model).__name__}.{node.operation}() of machine {machine.name or '?'} cannot be exported; "
            f"its converter exports {', '.join(methods) or 'nothing'}."
            + ("" if methods else nothing_exported(model))
        )
    parent = node.parents[0]
    # a 1-D value goes to a model that learned one column as that column (natively too: Machine's apply)
    column = node.operation != "inverse_transform" or getattr(model, "n_features_in_", None) == 1
    x = cx.matrix(parent) if column or cx.ndim(parent) == 2 else cx.names[parent]
    if isinstance(parent, Source) and id(model) in cx.recode:  # once per tables: its operations share it
        x = recode(cx.g, x, cx.recode[id(model)])
    out = converter.apply(model, node.operation, cx.g, x, sample=cx.sample[parent])
    if np.ndim(cx.sample[node]) == 1:
        out = cx.g.as_vector(out)
    return out


def lower(
    g: GraphBuilder,
    outputs: Mapping[str, Node],
    x: str,
    sample: Any,
    recode: Mapping[int, Mapping[int, np.ndarray]] | None = None,
) -> tuple[dict[str, str], dict]:
    """Add the nodes computing ``outputs`` from the input value ``x``.

    Returns the ONNX value of each output and the native sample value of every node.

    ``sample`` is input data (a few rows) on which the network is evaluated
    natively to learn the shape and kind of every intermediate value.
    ``recode``: by ``id`` of a model that reads the input, the tables that
    turn the input's category codes into its own (see ``_resolve._categories_of``).
    """
    source = input_source(outputs)
    memo: dict[Node, Any] = {}
    try:
        with np.errstate(all="ignore"):  # learning shapes and kinds: a log of 0 on the sample is not the user's concern
            for out in outputs.values():
                evaluate(out, memo, {source: sample})
    except NotTrainedError:  # a model of the network is not trained: no sample would help
        raise
    except Exception as exc:
        raise ExportError(
            f"The network could not be evaluated on the sample input ({quoted(exc)}). "
            "Pass X_sample= with a few real rows."
        ) from exc
    names: dict[Node, str] = {source: x}
    cx = Context(g, names, memo, recode)
    order = dict.fromkeys(n for out in outputs.values() for n in out._ancestry())  # union, in order
    cx.order = list(order)
    for item in order:
        if item in names:
            continue
        if isinstance(item, Source):
            raise ExportError(f"Source {item.name!r} is needed to predict but is not the input source.")
        if isinstance(item, DynamicNode):
            names[item] = _dynamic(cx, item)
        elif isinstance(item, StaticNode):
            lowering = LOWERINGS.get(item.function)
            if lowering is None:
                raise ExportError(
                    f"Static node {item.label!r} ({getattr(item.function, '__qualname__', item.function)!r}) "
                    "has no ONNX lowering. Supported: hcat, mean, + - * /, negation, column selection, "
                    f"{elementwise.names()}, and the recipes' own operations."
                )
            names[item] = lowering(cx, item)
        else:  # pragma: no cover - every node is one of the three kinds
            raise ExportError(f"Unknown node kind {type(item).__name__}.")
    return {name: names[node] for name, node in outputs.items()}, memo
