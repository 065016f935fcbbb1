"""One input for the categorical columns that several models read, each model given the codes it learned.

A converter says which input columns its model reads as category codes
(``Converter.categories``: the values of code 0, 1…, then the missing values
it learned as categories of their own). When several models read one input
(the members of a scikit-learn ensemble, the parts of a ``ColumnTransformer``,
the models of a network), :func:`merge` numbers each column's categories as
the first model that reads it does, followed by any value only a later one
knows; a model that numbers them otherwise reads the input through a table
(:func:`recode`). HistGradientBoosting sorts the categories it saw, LightGBM
and XGBoost keep the DataFrame's order, an encoder given ``categories=``
keeps that order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.preprocessing import FunctionTransformer

from wirework.errors import ExportError
from wirework.export.builder import MISSING_KINDS, UNKNOWN_CODE, GraphBuilder, split_missing, with_missing
from wirework.export.registry import converter_for

__all__ = [
    "merge", "recode", "Member", "members_categories", "members_read", "member_inputs", "passed_through", "with_passed",
    "hands_on",
]

#: A model reading the input, and the input position of each of its columns (``None``: the same positions).
Member = tuple[Any, Sequence[int] | None]


def merge(readers: Sequence[Mapping[int, Any]]) -> tuple[dict[int, np.ndarray], list[dict[int, np.ndarray]]]:
    """The input's categories of each column read as codes by some of ``readers`` (each a ``{input column:
    values}`` of one model), and for each reader, in order, the tables that turn the input's codes into its own
    (by input column; empty when it numbers every column as the input does).

    A table maps input code ``k`` to the reader's code for that value, :data:`UNKNOWN_CODE` for a value it
    never saw; the codes after the categories (a second missing value learned as a category) map to the
    reader's own, or to unknown. Readers that learned different first missing values of one column (``None``
    for one, NaN for another) are refused: the input's NaN code cannot stand for both.
    """
    found: dict[int, list[Any]] = {}
    missing: dict[int, set[str]] = {}
    for categories in readers:
        for column, values in categories.items():
            own, kinds = split_missing(values)
            known = found.setdefault(column, [])
            seen = set(known)
            for value in own:
                if value not in seen:
                    known.append(value)
                    seen.add(value)
            missing.setdefault(column, set()).update(kinds)
    learned = {column: [kind for kind in MISSING_KINDS if kind in kinds] for column, kinds in missing.items()}
    tables: list[dict[int, np.ndarray]] = []
    for categories in readers:
        own_tables: dict[int, np.ndarray] = {}
        for column, values in categories.items():
            own, kinds = split_missing(values)
            if kinds != learned[column][: len(kinds)]:  # its missing code would stand for another missing value
                raise ExportError(
                    f"The models reading input column {column} learned different missing values as categories "
                    f"({' and '.join(learned[column])}, one of them only {' and '.join(kinds)}); the input cannot "
                    "code them for both. Fill the column's missing values with one value (None or NaN) before fitting."
                )
            if own == found[column]:  # the codes after them, further missing values: its own, or unknown to it
                continue
            codes = {v: code for code, v in enumerate(own)}
            further = {kind: len(own) + k - 1 for k, kind in enumerate(kinds) if k}
            table = [codes.get(v, UNKNOWN_CODE) for v in found[column]]
            table += [further.get(kind, UNKNOWN_CODE) for kind in learned[column][1:]]
            own_tables[column] = np.array(table, dtype=float)
        tables.append(own_tables)
    return {column: with_missing(values, learned[column]) for column, values in found.items()}, tables


def recode(g: GraphBuilder, x: str, tables: Mapping[int, np.ndarray]) -> str:
    """The input matrix ``x`` with each column of ``tables`` recoded: input code ``k`` to ``table[k]``; a
    missing value (NaN) stays missing, and any other code is unknown to the model too. Once per graph for
    the same tables."""
    if not tables:
        return x
    key = ("recode", x, tuple((column, tables[column].tobytes()) for column in sorted(tables)))
    if key in g.memo:
        return g.memo[key]
    tensor = g.onnx.numpy_helper.from_array
    parts, start = [], 0
    for column in sorted(tables):
        if column > start:
            parts.append(g.columns(x, start, column))
        table = tables[column]
        codes = tensor(np.arange(len(table), dtype=g.dtype), "keys")
        values = g.columns(x, column, column + 1)
        recoded = g.lookup(values, codes, table, "recode", default=UNKNOWN_CODE)
        parts.append(g.op("Where", [g.op("IsNaN", [values]), values, recoded], hint="recode"))
        start = column + 1
    parts.append(g.columns(x, start, np.iinfo(np.int64).max))  # the columns after the last (none: empty)
    g.memo[key] = g.hstack(parts, hint="recoded")
    return g.memo[key]


def _by_input(member: Member) -> dict[int, np.ndarray]:
    model, positions = member
    own = converter_for(model).categories(model)
    return {(k if positions is None else int(positions[k])): np.asarray(v) for k, v in own.items()}


def members_categories(members: Sequence[Member]) -> dict[int, np.ndarray]:
    """The input's categories (see :func:`merge`) for models that all read it: a meta-estimator's members."""
    return merge([_by_input(member) for member in members])[0]


def members_read(members: Sequence[Member]) -> frozenset[int] | None:
    """The input columns some member reads (``None``: every one)."""
    read: set[int] = set()
    for model, positions in members:
        own = converter_for(model).reads(model)
        if own is None and positions is None:
            return None
        columns = range(len(positions)) if own is None else own
        read.update(k if positions is None else int(positions[k]) for k in columns)
    return frozenset(read)


def member_inputs(g: GraphBuilder, x: str, members: Sequence[Member]) -> list[str]:
    """The input ``x`` as each member reads it: recoded where it numbers a column's categories otherwise than
    the input (see :func:`members_categories`), its own positions still to be taken."""
    _, tables = merge([_by_input(member) for member in members])
    return [recode(g, x, own) for own in tables]


def _hands_on(part: Any) -> bool:
    """Whether a fitted ``ColumnTransformer`` part gives its columns unchanged: ``"passthrough"``, or the
    identity ``FunctionTransformer`` scikit-learn fits for a ``remainder="passthrough"``."""
    if isinstance(part, str):
        return part == "passthrough"
    return isinstance(part, FunctionTransformer) and part.func is None


def hands_on(model: Any) -> bool:
    """Whether ``model`` is a fitted ``ColumnTransformer`` with a part that gives its columns unchanged."""
    return any(_hands_on(part) for _, part, _ in getattr(model, "transformers_", ()))


def passed_through(model: Any, read: Mapping[int, Any]) -> dict[int, np.ndarray]:
    """The input columns a fitted ``ColumnTransformer`` hands on unchanged (a ``"passthrough"`` part, the
    remainder, see :func:`_hands_on`) that the model after it reads as categories (``read``: its categories by its own input
    position), by the transformer's input position. A pandas categorical passed through to a
    HistGradientBoosting with ``categorical_features="from_dtype"`` (or LightGBM, XGBoost) is one."""
    slices = getattr(model, "output_indices_", None) or {}
    positions = getattr(model, "_transformer_to_input_indices", None) or {}
    passed: dict[int, np.ndarray] = {}
    for name, part, _ in getattr(model, "transformers_", ()):
        if not _hands_on(part) or name not in slices:
            continue
        for out, column in zip(range(slices[name].start, slices[name].stop), positions.get(name, ())):
            if out in read:
                passed[int(column)] = np.asarray(read[out])
    return passed


def with_passed(model: Any, own: Mapping[int, Any], read: Mapping[int, Any]) -> dict[int, np.ndarray]:
    """A ``ColumnTransformer``'s input categories: its parts' (``own``), and those of the columns it passes
    through to a model that reads them as categories (``read``, see :func:`passed_through`), whose codes then
    cross it unchanged. A column a part also reads, numbering its categories otherwise, is refused."""
    passed = passed_through(model, read)
    if not passed:
        return dict(own)
    categories, tables = merge([own, passed])
    if tables[1]:
        names = getattr(model, "feature_names_in_", None)
        column = min(tables[1])
        label = repr(str(names[column])) if names is not None else column
        raise ExportError(
            f"Input column {label} is passed through this ColumnTransformer to a model that reads it as categories, "
            "and a part of it reads the column as categories numbered otherwise; the input cannot hold codes for "
            "both. Pass the part a copy of the column under another name."
        )
    return categories
