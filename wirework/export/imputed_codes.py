"""A ``SimpleImputer`` that fills string columns, before the model that reads them as categories.

``SimpleImputer(strategy="most_frequent")`` or ``(strategy="constant",
fill_value="missing")`` on an object column gives strings, which only the
next step (an encoder, alone or in a ``ColumnTransformer``) turns into
numbers. The file's input holds such a column as category codes (see
:mod:`wirework.export.api`), so the imputer is written on the codes: the
input numbers the column as the next step does (its categories, then the
fill value and a string marker of missing values when it never saw them),
and the imputer maps each input code to the next step's own code, the
imputed missing value to the fill value's code. A missing value the imputer
does not impute (``None`` when it imputes NaN: scikit-learn's imputer tells
them apart in an object column) reaches the next step unchanged, which
takes it as it learned it, or as an unknown value.

:func:`imputes_strings` tells such an imputer; :func:`input_categories`
gives the input's categories it needs in front of the next step's;
:func:`impute_codes` writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wirework.errors import ExportError
from wirework.export.builder import MISSING_KINDS, UNKNOWN_CODE, GraphBuilder, missing_kind, split_missing, with_missing

__all__ = ["imputes_strings", "input_categories", "impute_codes"]


def _is_text(value: Any) -> bool:
    return isinstance(value, (str, bytes))


def imputes_strings(model: Any) -> bool:
    """Whether ``model`` is a fitted ``SimpleImputer`` that fills some column with a string."""
    from sklearn.impute import SimpleImputer

    statistics = getattr(model, "statistics_", None)
    return isinstance(model, SimpleImputer) and statistics is not None and any(map(_is_text, np.ravel(statistics)))


def _kept(model: Any) -> np.ndarray:
    """The input columns the imputer outputs, in order: those whose statistic is not missing (a column empty when
    fitted is dropped), or all of them with ``keep_empty_features``."""
    statistics = list(np.ravel(model.statistics_))
    if model.keep_empty_features:
        return np.arange(len(statistics))
    return np.array([k for k, s in enumerate(statistics) if missing_kind(s) is None], dtype=np.int64)


def _marker(model: Any) -> tuple[str | None, Any]:
    """The imputed missing value: its kind (``"nan"``, ``"None"``…) or, for a marker that is a value, ``None``
    and the value."""
    value = model.missing_values
    kind = missing_kind(value)
    return (kind, None) if kind is not None else (None, value)


def _column(model: Any, k: int, after: Mapping[int, np.ndarray], position: int) -> tuple[list, list[str], list, list[str]]:
    """For input column ``k`` (output ``position``) of a string-filling imputer: the input's known categories and
    missing kinds, and the next step's (``after``)."""
    statistic = np.ravel(model.statistics_)[k]
    names = getattr(model, "feature_names_in_", None)
    label = repr(str(names[k])) if names is not None else str(k)
    if position not in after:
        raise ExportError(
            f"The SimpleImputer fills column {label} with {statistic!r}, but the step after it does not read that "
            "column as categories, so the file cannot hold the strings it gives. Put an encoder (OneHotEncoder, "
            "OrdinalEncoder, TargetEncoder) right after the imputer on its string columns."
        )
    known, kinds = split_missing(after[position])
    kind, value = _marker(model)
    extra = [v for v in ([statistic] + ([value] if value is not None else [])) if v not in known]
    extra = list(dict.fromkeys(extra))  # the marker may be the fill value
    own_kinds = [m for m in MISSING_KINDS if m in set(kinds) | ({kind} if kind else set())]
    return known + extra, own_kinds, known, kinds


def input_categories(model: Any, after: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The input's categories of the columns a string-filling ``SimpleImputer`` fills with strings, by input
    column: the next step's categories of that column (``after``, by the imputer's output position), then the
    fill value and a string missing-value marker where it never saw them; the missing kinds the next step learned
    and the one the imputer imputes."""
    statistics = np.ravel(model.statistics_)
    out = {}
    for position, k in enumerate(_kept(model)):
        if _is_text(statistics[k]):
            known, kinds, _, _ = _column(model, int(k), after, position)
            out[int(k)] = with_missing(known, kinds)
    return out


def _code_of(value: Any, known: list, kinds: list[str]) -> float:
    """The next step's code of ``value`` (a known category, or a missing kind it learned), else unknown."""
    kind = missing_kind(value)
    if kind is None:
        return float(known.index(value)) if value in known else UNKNOWN_CODE
    if kind not in kinds:
        return UNKNOWN_CODE
    position = kinds.index(kind)
    return np.nan if position == 0 else float(len(known) + position - 1)


def _imputed_column(g: GraphBuilder, model: Any, column: str, k: int, after: Mapping[int, np.ndarray], position: int) -> str:
    """One string column imputed, as the next step's codes: the input's code of each known value and missing
    kind mapped to the next step's (the imputed missing value and the marker to the fill value's), any other
    code unknown."""
    statistic = np.ravel(model.statistics_)[k]
    own, own_kinds, known, kinds = _column(model, k, after, position)
    kind, marker = _marker(model)
    fill = _code_of(statistic, known, kinds)
    targets = [fill if value == marker and marker is not None else _code_of(value, known, kinds) for value in own]
    targets += [fill if m == kind else _code_of(_VALUES[m], known, kinds) for m in own_kinds]
    # the first missing kind's: the input's NaN code (none learned: any missing value, unknown to the next step)
    first = targets.pop(len(own)) if own_kinds else UNKNOWN_CODE
    keys = g.onnx.numpy_helper.from_array(np.arange(len(targets), dtype=g.dtype), "keys")
    looked = g.lookup(column, keys, np.array(targets), "imputed", default=UNKNOWN_CODE)
    return g.op("Where", [g.op("IsNaN", [column]), g.const(np.array([first]), "imputed_missing"), looked], hint="imputed")


#: One value of each kind of missing value, by kind.
_VALUES = dict(zip(MISSING_KINDS, with_missing([], MISSING_KINDS).tolist()))


def impute_codes(g: GraphBuilder, model: Any, x: str, after: Mapping[int, np.ndarray]) -> str:
    """``model.transform`` of the input ``x`` for a ``SimpleImputer`` that fills strings, its string columns as
    the codes of the next step (whose categories are ``after``, by the imputer's output position): each
    other column imputed as numbers; no indicator columns (``add_indicator`` is refused)."""
    if getattr(model, "indicator_", None) is not None:
        raise ExportError(
            "A SimpleImputer(add_indicator=True) that fills strings cannot be exported: its indicator columns "
            "would reach the encoder after it with the strings. Use a MissingIndicator as a part of its own."
        )
    statistics = np.ravel(model.statistics_)
    parts = []
    for position, k in enumerate(_kept(model)):
        column = g.columns(x, int(k), int(k) + 1)
        statistic = statistics[k]
        if _is_text(statistic):
            parts.append(_imputed_column(g, model, column, int(k), after, position))
            continue
        kind, marker = _marker(model)
        if kind == "nan" or (kind is None and isinstance(marker, (int, float, np.number))):
            gap = g.op("IsNaN", [column]) if kind == "nan" else g.op("Equal", [column, g.const(np.array([float(marker)]), "marker")])
        else:
            raise ExportError(
                f"The SimpleImputer marks missing values by {model.missing_values!r} and fills column {k} with the "
                f"number {statistic!r}; the file holds that column as numbers, where only NaN or a number can mark "
                "them. Mark missing values with np.nan."
            )
        try:
            number = float(statistic)
        except (TypeError, ValueError):
            number = np.nan
        parts.append(g.op("Where", [gap, g.const(np.array([number]), "statistic"), column], hint="imputed"))
    return g.hstack(parts, hint="imputed")
