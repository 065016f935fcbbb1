"""scikit-learn's categorical encoders: ``OneHotEncoder``, ``OrdinalEncoder`` and ``TargetEncoder``.

A string column is read as category codes (so it can sit in the numeric
input matrix; its categories are recorded with the input), a numeric one by
its values. What each input value becomes is read back from the fitted
encoder itself, by transforming every known category, the learned missing
one and an unseen value: infrequent groups, ``drop``, ``handle_unknown``,
``encoded_missing_value`` and a target encoder's encodings come out as
scikit-learn computes them. skl2onnx's ``TargetEncoder`` does not run in
float64.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, TargetEncoder

from wirework.errors import ExportError, brief
from wirework.export.builder import MISSING_KINDS, GraphBuilder, dense, is_missing, missing_kind, split_missing, with_missing
from wirework.export.registry import register

__all__: list[str] = []


def _named_categories(values: np.ndarray) -> bool:
    """Whether a one-hot encoder's categories of one column are strings (read as codes) rather than numbers."""
    return any(isinstance(v, str) for v in values.tolist())


def _encoder_categories(model: OneHotEncoder | OrdinalEncoder) -> dict[int, np.ndarray]:
    """The columns a ``OneHotEncoder`` or ``OrdinalEncoder`` reads as category codes: those whose categories are
    strings; the missing values it learned as categories (``None``, NaN, both) listed after them, since it takes
    any other missing value as unknown (the input codes the first as NaN, the next after the categories)."""
    return {
        k: with_missing(*split_missing(values)) for k, values in enumerate(model.categories_) if _named_categories(values)
    }


class _Encoding:
    """What an encoder makes of one input column, read from the encoder itself (see :func:`_encodings`).

    ``keys``: what the input holds for each known category (its code for a string column, its value for a
    numeric one), then for each further missing value learned as a category (the codes after the categories);
    ``outputs``: the encoder's output for each (an ordinal value, or the index of the one-hot column it sets
    within the column's block, -1 for none); ``missing`` and ``unknown``: the output for a missing value (NaN
    in the input) and for any other value; ``width``: the block's number of columns.
    """

    __slots__ = ("keys", "outputs", "missing", "unknown", "width")

    def __init__(self, keys: np.ndarray, outputs: np.ndarray, missing: float, unknown: float, width: int) -> None:
        self.keys, self.outputs, self.missing, self.unknown, self.width = keys, outputs, missing, unknown, width


def _probed(model: Any, probes_unknown: bool) -> tuple[list[tuple[bool, list, list]], np.ndarray]:
    """What a fitted encoder (one with ``categories_``) makes of each input column's known categories, then
    its learned missing ones, then (``probes_unknown``) an unseen value: per column, whether its categories
    are strings, the known ones and the learned missing ones (``None``, NaN or both, in
    :data:`MISSING_KINDS` order), and the dense ``transform`` output of those probe rows (a shorter column
    repeats its first probe)."""
    columns = []
    for categories in model.categories_:
        values = categories.tolist()
        known = [v for v in values if not is_missing(v)]
        learned = sorted((v for v in values if is_missing(v)), key=lambda v: MISSING_KINDS.index(missing_kind(v)))
        named = _named_categories(categories)
        if not named and any(missing_kind(v) not in (None, "nan") for v in learned):
            kinds = ", ".join(repr(missing_kind(v)) for v in learned)
            names = getattr(model, "feature_names_in_", None)
            column = repr(names[len(columns)]) if names is not None else len(columns)
            raise ExportError(
                f"This {type(model).__name__} learned the missing value(s) {kinds} in column {column}, whose "
                "categories are numbers: the file's numeric input holds NaN for every missing value, so it cannot "
                "tell them apart as the encoder does. Give that column NaN for its missing values (for example "
                "X[col].astype(float)) and fit again."
            )
        unseen: Any = None
        if probes_unknown:
            if named:
                unseen = "wirework unseen value"
                while unseen in known:
                    unseen += "'"
            else:  # the next float past the largest finite category (or before the smallest, at the top)
                finite = [float(v) for v in known if np.isfinite(float(v))] or [0.0]
                with np.errstate(over="ignore"):
                    unseen = float(np.nextafter(max(finite), np.inf))
                if not np.isfinite(unseen) or unseen in known:
                    unseen = float(np.nextafter(min(finite), -np.inf))
        columns.append((named, known, learned, unseen))
    probes = [known + learned + ([unseen] if probes_unknown else []) for _, known, learned, unseen in columns]
    rows = max(map(len, probes))
    cells = {k: list(p) + [p[0]] * (rows - len(p)) for k, p in enumerate(probes)}
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        frame = pd.DataFrame({names[k]: pd.Series(cells[k], dtype=object if columns[k][0] else float) for k in cells})
    elif all(not named for named, *_ in columns):
        frame = np.array([cells[k] for k in cells], dtype=np.float64).T
    else:
        frame = np.array([cells[k] for k in cells], dtype=object).T
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown values, with a drop or handle_unknown="warn"
            out = model.transform(frame)
    except Exception as error:
        raise ExportError(
            f"Could not read the encoding of this {type(model).__name__} from its transform ({brief(error)}); "
            "it cannot be exported."
        ) from error
    return [(named, known, learned) for named, known, learned, _ in columns], dense(out).astype(np.float64)


def _encoding(named: bool, known: list, learned: list, found: np.ndarray, unknown: float, width: int) -> _Encoding:
    """One column's :class:`_Encoding` from ``found``, the output for each probe of :func:`_probed`.

    A string column's input codes the first missing value learned as NaN and the next ones (``None`` and NaN
    both learned, as two categories) after the categories; a numeric column holds NaN for any missing value.
    """
    missing = found[len(known)] if learned else unknown  # nothing missing learned: a missing value is unknown
    if not named:
        if len(learned) > 1:
            raise ExportError(
                "This encoder learned None and NaN as two categories of a numeric column, which the input holds as "
                "one NaN. Fill the column's missing values with NaN before fitting (a float column)."
            )
        return _Encoding(np.array(known, dtype=np.float64), found[: len(known)], float(missing), float(unknown), width)
    further = found[len(known) + 1 : len(known) + len(learned)]
    keys = np.arange(len(known) + len(further), dtype=np.float64)
    return _Encoding(keys, np.concatenate([found[: len(known)], further]), float(missing), float(unknown), width)


def _encodings(model: OneHotEncoder | OrdinalEncoder) -> list[_Encoding]:
    """Each input column's :class:`_Encoding`, found by transforming every known category, the learned
    missing one and an unseen value with the fitted encoder: its own rules (infrequent groups, ``drop``,
    ``handle_unknown``, ``encoded_missing_value``…) decide, none is rewritten here.

    With ``handle_unknown="error"`` (which raises natively) an unknown value sets no one-hot column and is
    NaN for an ordinal encoder.
    """
    onehot = isinstance(model, OneHotEncoder)
    probes_unknown = model.handle_unknown != "error"
    columns, out = _probed(model, probes_unknown)
    widths = list(getattr(model, "_n_features_outs", [])) if onehot else [1] * len(columns)
    if len(widths) != len(columns) or sum(widths) != out.shape[1]:
        raise ExportError(
            f"Could not tell which output columns of this {type(model).__name__} each input column sets; "
            "it cannot be exported with this scikit-learn version."
        )
    encodings, offset = [], 0
    for k, ((named, known, learned), width) in enumerate(zip(columns, widths)):
        block = out[:, offset : offset + width]
        offset += width
        if onehot:
            if not np.isin(block, (0.0, 1.0)).all() or (block.sum(axis=1) > 1).any():
                raise ExportError(f"OneHotEncoder column {k} sets several columns for one value; it cannot be exported.")
            found = np.where(block.any(axis=1), block.argmax(axis=1) if width else -1, -1).astype(np.float64)
        else:
            found = block[:, 0]
        unknown = found[len(known) + len(learned)] if probes_unknown else (-1.0 if onehot else np.nan)
        encodings.append(_encoding(named, known, learned, found, unknown, width))
    return encodings


def _keys(g: GraphBuilder, encoding: _Encoding, model: Any, k: int) -> np.ndarray:
    """The keys of input column ``k`` in the graph's dtype; numeric categories that it holds as one value
    (1.0 and 1.0 + 1e-9 in float32, int64 identifiers beyond 2**53 in float64) are refused: the file would
    take both for one, training rows included."""
    keys = encoding.keys.astype(g.dtype)
    unique, counts = np.unique(keys, return_counts=True)
    if len(unique) == len(keys):
        return keys
    same = keys == unique[counts > 1][0]
    names = getattr(model, "feature_names_in_", None)
    column = repr(str(names[k])) if names is not None else k
    what = " and ".join(repr(v) for v in model.categories_[k][np.flatnonzero(same)].tolist())
    advice = (
        "Export with dtype='float64'" if g.dtype == np.float32 else
        "Give the column as strings (X[col].astype(str)) and fit again"
    )
    raise ExportError(
        f"This {type(model).__name__}'s categories {what} of column {column} are one value in {g.dtype}, the "
        f"file's input type: the file cannot tell them apart as the encoder does. {advice}."
    )


def _encoded(g: GraphBuilder, column: str, encoding: _Encoding, model: Any, k: int) -> str:
    """The ``[N, 1]`` output of :class:`_Encoding` for input column ``k`` of ``model``: known keys looked
    up, any other value unknown, NaN missing."""
    if len(encoding.keys):
        keys = g.onnx.numpy_helper.from_array(_keys(g, encoding, model, k), "keys")
        out = g.lookup(column, keys, encoding.outputs, hint="encoded", default=encoding.unknown)
    else:  # only a missing category was learned
        out = g.const(np.array([encoding.unknown]), "unknown")
    return g.op("Where", [g.op("IsNaN", [column]), g.const(np.array([encoding.missing]), "missing"), out], hint="encoded")


@register(OneHotEncoder, methods=lambda model: ("transform",), categories=_encoder_categories)
def _convert_onehot(model: OneHotEncoder, method: str, g: GraphBuilder, x: str) -> str:
    # each input column: the index of the column it sets in its block, read from the encoder (its categories
    # in scikit-learn's order, infrequent ones grouped, the dropped one none, an unknown value none or the
    # infrequent group's); a string column arrives as its code, a numeric one as its value; then one-hot
    parts = []
    for k, encoding in enumerate(_encodings(model)):
        if encoding.width == 0:
            continue
        index = _encoded(g, g.columns(x, k, k + 1), encoding, model, k)
        flags = g.op("Equal", [index, g.const(np.arange(encoding.width, dtype=np.float64), "positions")], hint="onehot")
        parts.append(g.cast(flags, g.dtype))
    if not parts:
        raise ExportError("This OneHotEncoder outputs no column; there is nothing to export.")
    return g.hstack(parts, hint="onehot")


@register(OrdinalEncoder, methods=lambda model: ("transform",), categories=_encoder_categories)
def _convert_ordinal(model: OrdinalEncoder, method: str, g: GraphBuilder, x: str) -> str:
    # each input column's value, read from the encoder: a category's position (infrequent ones grouped), a
    # missing value's, an unknown one's unknown_value (handle_unknown="use_encoded_value"; "error" would raise)
    encodings = _encodings(model)
    return g.hstack([_encoded(g, g.columns(x, k, k + 1), e, model, k) for k, e in enumerate(encodings)], hint="ordinal")


@register(TargetEncoder, methods=lambda model: ("transform",), categories=_encoder_categories)
def _convert_target_encoder(model: TargetEncoder, method: str, g: GraphBuilder, x: str) -> str:
    # transform (not fit_transform's cross-fitted values: those are the training rows' only): each known
    # category's encoding read from the encoder, the learned missing one's, and target_mean_ for an unseen
    # value; a multiclass encoder gives one column per class for each input column, in its order
    columns, out = _probed(model, probes_unknown=True)
    width = out.shape[1] // max(1, len(columns))
    if width * len(columns) != out.shape[1]:
        raise ExportError("Could not tell which output columns of this TargetEncoder each input column gives.")
    parts = []
    for k, (named, known, learned) in enumerate(columns):
        column = g.columns(x, k, k + 1)
        for j in range(width):
            found = out[:, k * width + j]
            unknown = found[len(known) + len(learned)]
            parts.append(_encoded(g, column, _encoding(named, known, learned, found, unknown, 1), model, k))
    return g.hstack(parts, hint="target_encoded")
