"""What :func:`~wirework.export.api.to_onnx` exports, resolved before any converter runs.

The outputs: which methods (a model's defaults, an outlier detector's), or
which nodes of a network (a composite's trained signature, a signature, a
node), and the rank of a bare model's outputs found natively. The inputs:
how many columns and their names, a sample to run a network on (the rows
bound to its source, else zeros), the categories of each categorical
column (merged across the models that read it) and the columns no model
reads; and their declaration in the graph (the ``matrix`` or ``columns``
layout, a ``columns`` layout's categorical values turned into codes).
The entry points, and :func:`~wirework.export.api.feed` which writes the
inputs a file expects, are in :mod:`wirework.export.api`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from wirework.errors import ExportError, NotTrainedError
from wirework.export.builder import UNKNOWN_CODE, GraphBuilder, dense, split_missing
from wirework.export.categories import hands_on, merge, with_passed
from wirework.export.heads import class_values
from wirework.export.imputed_codes import imputes_strings, input_categories
from wirework.export.registry import converter_for


_PREDICTIONS = ("predict", "predict_proba")
_OUTLIER_OUTPUTS = ("predict", "decision_function", "score_samples")


def _default_methods(available: Sequence[str], outlier: bool = False) -> list[str]:
    """What is exported when ``methods`` is not given: a predictor's ``predict`` and ``predict_proba``, or a
    transformer's ``transform`` (a predictor that also transforms, as a stack does, exports its predictions);
    an outlier detector's ``predict`` (-1 or 1) and its ``decision_function`` and ``score_samples``."""
    predictions = [m for m in (_OUTLIER_OUTPUTS if outlier else _PREDICTIONS) if m in available]
    return predictions or (["transform"] if "transform" in available else [])


def _is_outlier_detector(obj: Any) -> bool:
    """Whether ``obj`` is an outlier detector by scikit-learn's tags (``False`` for what has none: a node)."""
    from sklearn.base import is_outlier_detector

    try:
        return bool(is_outlier_detector(obj))
    except Exception:  # not an estimator (a signature, a node): its tags cannot be read
        return False


def _network_outputs(obj: Any, methods: Sequence[str] | None) -> dict:
    """The output nodes to export when ``obj`` is a network (a composite, a signature or a node); else empty."""
    from wirework.graph.nodes import Node

    if isinstance(obj, Node):
        if methods is not None and len(methods) != 1:
            raise ExportError(f"A node has one output; methods={list(methods)} names {len(methods)}.")
        return {(methods or ["predict"])[0]: obj}
    if isinstance(obj, Mapping) and obj and all(isinstance(v, Node) for v in obj.values()):
        signature = obj
    elif callable(getattr(obj, "network", None)):  # a composite: its trained network
        signature = obj.__dict__.get("network_")
        if signature is None:
            raise NotTrainedError(f"This {type(obj).__name__} has not been fitted yet. Call fit(X, y) before exporting.")
    else:
        return {}
    available = dict(signature)
    wanted = list(methods) if methods is not None else _default_methods(list(available), _is_outlier_detector(obj))
    missing = [m for m in wanted if m not in available]
    if missing or not wanted:
        raise ExportError(
            f"The network has no {', '.join(missing) or 'exportable'} output; it offers {sorted(available)}."
            + _refusals(available.values())
        )
    return {m: available[m] for m in wanted}


def _refusals(nodes: Any) -> str:
    """Why the models whose operations give ``nodes`` export nothing, as their converters say (a
    ``LocalOutlierFactor`` with ``novelty=False``); empty when none says."""
    reasons: list[str] = []
    for node in nodes:
        model = getattr(getattr(node, "machine", None), "fitted_model", None)
        if model is None:
            continue
        try:
            reason = converter_for(model).refusal(model)
        except ExportError:  # no converter at all: the export says so where it reaches the model
            continue
        if reason and reason not in reasons:
            reasons.append(reason)
    return "".join(f" {reason}" for reason in reasons)


def _n_features(obj: Any, sample: Any) -> int:
    if sample is not None:
        return int(np.shape(sample)[1])
    n = getattr(obj, "n_features_in_", None)
    if n is None:
        raise ExportError(f"Cannot tell how many input columns {type(obj).__name__} takes. Pass X_sample=.")
    return int(n)


def _bound_sample(outputs: dict) -> Any:
    """A few rows of the data bound to the network's input source, if it still holds some."""
    from wirework.export.network import input_source
    from wirework.graph.data import n_rows, take_rows

    data = input_source(outputs).data
    if data is None:
        return None
    return take_rows(data, np.arange(min(5, n_rows(data))))


def _column_names(obj: Any, sample: Any, n: int) -> list[str]:
    """The inputs' names: the columns the model was trained on, else the sample's, else ``x0, x1…``."""
    names = getattr(obj, "feature_names_in_", None)
    if names is not None and len(names) == n:
        return [str(c) for c in names]
    if isinstance(sample, pd.DataFrame):
        return [str(c) for c in sample.columns]
    return [f"x{i}" for i in range(n)]


def _zeros(obj: Any, names: list[str], categories: dict) -> Any:
    """Two rows of zeros to run the network on, as it was trained: a DataFrame of its columns when it learned
    from one without categorical columns (a ColumnTransformer may select them by name), else an array."""
    zeros = np.zeros((2, len(names)))
    if getattr(obj, "feature_names_in_", None) is not None and not categories:
        return pd.DataFrame(zeros, columns=list(obj.feature_names_in_))
    return zeros


def _kind_of_value(g: GraphBuilder, value: Any) -> tuple[np.dtype, list]:
    """Element type and shape of an output, from its native value on the sample."""
    array = dense(value)  # a sparse output (a one-hot encoding) is the dense matrix the file gives
    kind = array.dtype.kind
    dtype = g.dtype if kind == "f" else np.dtype(np.int64) if kind in "biu" else np.dtype(object)
    return dtype, [None] * array.ndim


def _input_section(g: GraphBuilder, layout: str, names: list[str], categories: dict[int, np.ndarray]) -> str:
    """Declare the inputs; the value of the ``[N, n_features]`` float matrix the converters read."""
    if layout == "matrix":
        return g.add_input("X", g.dtype, [None, len(names)])
    if layout != "columns":
        raise ExportError(f"inputs must be 'matrix' or 'columns'. Received: {layout!r}.")
    parts = []
    for i, name in enumerate(names):
        values = categories.get(i)
        if values is None:
            parts.append(g.add_input(name, g.dtype, [None, 1]))
            continue
        known, kinds = split_missing(values)
        keys = class_values(known)
        string = keys.dtype.kind == "U"
        if keys.dtype.kind == "f" and len(keys):
            raise ExportError(f"Column {name!r} has float categories; feed codes with inputs='matrix'.")
        column = g.add_input(name, object if string else np.int64, [None, 1])
        parts.append(_coded(g, column, keys, string, kinds, f"{name}_code"))
    return g.hstack(parts, hint="X")


def _markers(categories: list, string: bool, count: int) -> list:
    """The values :func:`feed` writes for missing values in a string or integer categorical column
    (``inputs="columns"``), none of them a category: ``""`` (or the smallest int64) for the missing value, then
    one for each further kind of missing value learned as a category of its own (see :func:`_input_codes`),
    then (the last of ``count``) one for a missing value the model takes as unknown."""
    taken = set(categories)
    markers: list = []
    candidate: Any = "" if string else int(np.iinfo(np.int64).min)
    while len(markers) < count:
        if candidate not in taken:
            markers.append(candidate)
        candidate = candidate + "\u2205" if string else candidate + 1
    return markers


def _coded(g: GraphBuilder, column: str, keys: np.ndarray, string: bool, kinds: list[str], hint: str) -> str:
    """A categorical input column's codes (see :func:`_input_codes`): each training category's position, NaN
    for the missing value, the next positions for further kinds of missing value learned as categories,
    :data:`UNKNOWN_CODE` for any other value."""
    markers = _markers(keys.tolist(), string, max(1, len(kinds)))
    positions = [*range(len(keys)), np.nan, *range(len(keys), len(keys) + len(markers) - 1)]
    keys = np.array([*keys.tolist(), *markers], dtype=str if string else np.int64)
    tensor = (
        g.onnx.helper.make_tensor("keys", g.onnx.TensorProto.STRING, [len(keys)], [str(k).encode() for k in keys])
        if string
        else g.onnx.numpy_helper.from_array(keys.astype(np.int64), "keys")
    )
    return g.lookup(column, tensor, np.array(positions, dtype=float), hint, default=UNKNOWN_CODE)


def _categories_of(obj: Any, outputs: dict) -> tuple[dict[int, np.ndarray], dict[int, dict[int, np.ndarray]]]:
    """Category values of each categorical input column, from the models that read the input; and how to
    recode the input's codes for each model that numbers a column's categories otherwise (by ``id`` of the
    model; see :func:`wirework.export.categories.merge`).
    """
    if not outputs:
        return dict(converter_for(obj).categories(obj)), {}
    from wirework.export.network import imputed_for, input_source, read_after
    from wirework.graph.nodes import DynamicNode

    source = input_source(outputs)
    order = list(dict.fromkeys(n for out in outputs.values() for n in out._ancestry()))
    readers: dict[int, dict[int, np.ndarray]] = {}
    for item in order:
        if isinstance(item, DynamicNode) and item.parents[0] is source:
            model = item.machine.fitted_model
            if id(model) in readers:
                continue
            if imputes_strings(model) and item.operation == "transform":  # numbered as its reader numbers them
                readers[id(model)] = input_categories(model, imputed_for(order, item))
            else:  # a ColumnTransformer's, with the categories it passes through to its readers
                own = {c: np.asarray(v) for c, v in converter_for(model).categories(model).items()}
                read = read_after(order, item) if item.operation == "transform" and hands_on(model) else {}
                readers[id(model)] = with_passed(model, own, read)
    categories, tables = merge(list(readers.values()))
    return categories, {model: own for model, own in zip(readers, tables) if own}


def _columns_read(obj: Any, outputs: dict) -> frozenset[int] | None:
    """The input columns some model reads (``None``: every one): a ``ColumnTransformer`` may drop some, and
    the file then ignores them (:func:`feed` gives them NaN, whatever they hold)."""
    if not outputs:
        return converter_for(obj).reads(obj)
    from wirework.export.network import input_source
    from wirework.graph.nodes import DynamicNode

    source = input_source(outputs)
    read: set[int] = set()
    for out in outputs.values():
        for item in out._ancestry():
            if source not in item.parents:
                continue
            if not isinstance(item, DynamicNode):  # a static node takes the whole input
                return None
            columns = converter_for(item.machine.fitted_model).reads(item.machine.fitted_model)
            if columns is None:
                return None
            read.update(columns)
    return frozenset(read)


def _native_ranks(obj: Any, methods: Sequence[str], X_sample: Any, names: list[str], categories: dict) -> dict[str, int]:
    """The rank of each exported method's output of a bare model, from its native output on a few rows
    (``X_sample``, else zeros), for outputs whose shape ONNX shape inference cannot tell (skl2onnx's SVMs);
    a method whose native call fails is left out."""
    if X_sample is not None:
        from wirework.graph.data import n_rows, take_rows

        sample = take_rows(X_sample, np.arange(min(2, n_rows(X_sample))))
    else:
        sample = _zeros(obj, names, categories)
    ranks = {}
    for method in methods:
        try:
            ranks[method] = int(np.ndim(dense(getattr(obj, method)(sample))))
        except Exception:  # e.g. zeros a model refuses (a Box-Cox needs positive values)
            continue
    return ranks
