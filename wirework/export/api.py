"""``ww.to_onnx`` and ``ww.save_onnx``: a model, a trained network or a composite as one ONNX graph.

Input signature of an exported file (also stored in its metadata under
``wirework.inputs``, which :func:`feed` reads):

- ``inputs="matrix"`` (default): one input ``X`` of shape ``[N, n_features]``
  in the export dtype. Columns the model reads as categories hold category
  codes: the position of the value in the training categories (pandas'
  ``.cat.codes``); NaN is a missing value, and any other code outside the
  training categories (:func:`feed` gives an unseen value ``-1``) an
  unknown one. When a model learned ``None`` or NaN as a category (an
  encoder in an object column), the column's ``"missing"`` lists them:
  the first is NaN, the second the position after the categories, and any
  other missing value unknown. Each model treats them as it treats such codes natively:
  HistGradientBoosting and LightGBM take an unknown code as missing,
  XGBoost sends it to the not-in-set branch, and the encoders apply their
  ``handle_unknown``.
- ``inputs="columns"``: one input per column, named after the column, of
  shape ``[N, 1]``: numeric columns in the export dtype, categorical columns
  as their original values (strings, or int64 for integer categories),
  mapped to codes inside the graph: a missing value (``""`` for strings,
  the smallest int64 for integers, as :func:`feed` writes them, or the next
  value that is no category) to NaN, a value not seen in training to
  ``-1``.

When the model was trained on named columns the signature says
``"named": true`` and :func:`feed` takes a DataFrame's columns by name, in
any order. LightGBM writes each space of a column's name as ``_``: its
signature also says ``"spaces": "_"``, and :func:`feed` takes a column
``"a b"`` for the name ``"a_b"``.

A column no model reads (one a ``ColumnTransformer`` drops) is still an
input, marked ``"unused"`` in the signature; :func:`feed` gives it NaN
whatever it holds (an identifier or free text, say).

Outputs are named after the methods they compute: ``predict`` (1-D:
values, or class labels for a classifier, or -1 / 1 for an outlier
detector), ``predict_proba`` (``[N, n_classes]``), ``decision_function``,
``score_samples``, ``transform``…

Here: the entry points :func:`to_onnx` and :func:`save_onnx`, and
:func:`input_signature` and :func:`feed`, which read a file's signature and
write its inputs. What to export (the methods or a network's output nodes,
the input columns, their names and categories, and their declaration in the
graph) is resolved in :mod:`wirework.export._resolve`; the names this module
used to hold are imported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wirework.errors import ArgumentError, ExportError, StorageError, brief
from wirework.export._resolve import _bound_sample, _categories_of, _column_names, _columns_read, _default_methods
from wirework.export._resolve import _input_section, _is_outlier_detector, _kind_of_value, _markers, _n_features
from wirework.export._resolve import _native_ranks, _network_outputs, _zeros
from wirework.export.builder import UNKNOWN_CODE, GraphBuilder, missing_kind, resolve_dtype, split_missing
from wirework.export.heads import class_values
from wirework.export.libm import EXP_BUILDS, exp_build
from wirework.export.registry import converter_for, nothing_exported
from wirework.graph.data import describe

__all__ = ["to_onnx", "save_onnx", "feed", "input_signature"]


_METADATA_KEY = "wirework.inputs"


def to_onnx(
    obj: Any,
    X_sample: Any = None,
    *,
    dtype: str = "float64",
    name: str | None = None,
    inputs: str = "matrix",
    methods: Sequence[str] | None = None,
    exp: str = "onnx",
) -> Any:
    """Export a trained model, network or composite as one ONNX ``ModelProto``.

    Parameters
    ----------
    obj : estimator, Composite, Signature or Node
        A fitted supported model (LightGBM, XGBoost, scikit-learn trees and
        what skl2onnx converts), a fitted composite or recipe, or a trained
        network given by a signature or one output node.
    X_sample : array-like, optional
        A few input rows. Networks are evaluated on it to learn the shape of
        every value (zeros are used without it); a DataFrame also names the
        inputs in ``inputs="columns"`` layout.
    dtype : {"float64", "float32"}
        Type of the input and of the computation. ``float64`` reproduces
        native predictions; ``float32`` takes the native tree decisions for
        the float32 values of the rows (a float64 row that float32 moves
        across a LightGBM or HistGradientBoosting threshold goes the other
        way; a :class:`~wirework.errors.PrecisionWarning` says when that is
        known to happen).
    name : str, optional
        The graph's name (default: the class name).
    inputs : {"matrix", "columns"}
        Input layout; see the module documentation.
    methods : list of str, optional
        Outputs to export (default: the ``predict`` and ``predict_proba``
        that the model offers, or its ``transform`` if it offers neither; an
        outlier detector's ``predict``, ``decision_function`` and
        ``score_samples``).
    exp : {"onnx", "libm", "glibc-fma", "glibc-sse2"}
        How the exponentials that C code computes natively are computed in a
        float64 export: LightGBM's (``std::exp``: its probabilities and its
        ``poisson``, ``gamma`` and ``tweedie`` predictions) and SciPy's
        ``expit`` (scikit-learn's binary boosting and calibrated
        probabilities). ``"onnx"``: ONNX Runtime's ``Exp`` (within a few ulps
        of C's, one operator); ``"libm"``: glibc's ``exp`` step by step, in
        the build this machine's C library runs, so those outputs are bit
        for bit where the native model runs on a machine with the same build
        (245 operators per exponential instead of one, about 0.3 ms more
        per call);
        ``"glibc-fma"`` or ``"glibc-sse2"``: that build, named. See
        ``docs/export.md`` ("glibc's exp").

    Raises
    ------
    ExportError
        A model, operation or split kind that cannot be exported exactly.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_diabetes(return_X_y=True)
    >>> pipe = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(X, y)
    >>> model = ww.to_onnx(pipe)
    >>> [o.name for o in model.graph.output]
    ['predict']
    >>> ww.onnx.check_parity(pipe, model, X).max_abs < 1e-12
    True
    """
    if name is not None and not isinstance(name, str):
        raise ExportError(f"name must be a string (the graph's name) or None. Received: {describe(name)}.")
    g = GraphBuilder(resolve_dtype(dtype), name or type(obj).__name__)
    g.exp_build = _exp_build(exp, g.dtype)
    if isinstance(methods, str) or (methods is not None and not all(isinstance(m, str) for m in methods)):
        raise ExportError(f"methods must be a list of method names, such as ['predict']. Received: {methods!r}.")
    outputs = _network_outputs(obj, methods)
    if outputs and X_sample is None:
        X_sample = _bound_sample(outputs)
    trained_names = getattr(obj, "feature_names_in_", None)
    spaces = _renames_spaces(obj)
    if isinstance(X_sample, pd.DataFrame) and trained_names is not None:  # the model's order, not the sample's
        X_sample = _in_order(X_sample, [str(n) for n in trained_names], named=True, spaces=spaces)
    if outputs:
        n_features = _n_features(obj, X_sample)
    else:
        converter = converter_for(obj)
        n_features = converter.n_features(obj)
    expected = getattr(obj, "n_features_in_", None) if outputs else n_features
    if X_sample is not None and expected is not None and np.ndim(X_sample) == 2 and np.shape(X_sample)[1] != expected:
        raise ExportError(
            f"X_sample has {np.shape(X_sample)[1]} columns, but {type(obj).__name__} takes {int(expected)}. "
            "Pass a few rows of the data it was trained on."
        )
    names = _column_names(obj, X_sample, n_features)
    named = isinstance(X_sample, pd.DataFrame) or getattr(obj, "feature_names_in_", None) is not None
    categories, recode = _categories_of(obj, outputs)
    x = _input_section(g, inputs, names, categories)

    if outputs:
        from wirework.export.network import lower

        sample = X_sample if X_sample is not None else _zeros(obj, names, categories)
        values, native = lower(g, outputs, x, sample, recode)
        kinds = {m: _kind_of_value(g, native[node]) for m, node in outputs.items()}
    else:
        available = converter.methods(obj)
        wanted = list(methods) if methods is not None else _default_methods(available, _is_outlier_detector(obj))
        refused = [m for m in wanted if m not in available]
        if refused or not wanted:
            raise ExportError(
                f"{type(obj).__name__}: cannot export {', '.join(refused) or 'any method'}; "
                f"its converter exports {', '.join(available) or 'nothing'}."
                + ("" if available else nothing_exported(obj))
            )
        values = {method: converter.apply(obj, method, g, x, sample=X_sample) for method in wanted}
        kinds = {}  # found by ONNX shape inference when the model is finished (the rank natively, if it cannot)
        g.ranks.update(_native_ranks(obj, wanted, X_sample, names, categories))
    for method, value in values.items():
        g.add_output(value, method, *kinds.get(method, (None, None)))
    read = _columns_read(obj, outputs)
    columns = []
    for i, n in enumerate(names):
        known, kinds = split_missing(categories[i]) if i in categories else (None, [])
        column: dict[str, Any] = {"name": n, "categories": None if known is None else class_values(known).tolist()}
        if kinds:
            column["missing"] = kinds  # the missing values a model learned as categories: feed() tells them apart
        if read is not None and i not in read:
            column["unused"] = True  # no model reads it: feed() gives it NaN, whatever it holds
        columns.append(column)
    signature: dict[str, Any] = {"layout": inputs, "dtype": g.dtype.name, "columns": columns}
    if named:
        signature["named"] = True  # the columns' own names: feed() takes a DataFrame's columns by name
    if spaces:
        signature["spaces"] = "_"  # LightGBM's names: feed() takes a column "a b" for the name "a_b"
    g.metadata[_METADATA_KEY] = json.dumps(signature, sort_keys=True)
    model = g.to_model()
    try:
        g.onnx.checker.check_model(model, full_check=True)
    except Exception as error:  # a converter wrote what ONNX does not accept: say so, with ONNX's reason
        raise ExportError(
            f"The exported graph of {type(obj).__name__} is not a valid ONNX model ({brief(error)}). "
            "Export the network up to the model at fault, or replace it."
        ) from error
    return model


def save_onnx(obj: Any, path: str | os.PathLike, X_sample: Any = None, **options: Any) -> Path:
    """Export ``obj`` (see :func:`to_onnx`) and write it to ``path`` atomically; returns the path.

    ``options``: those of :func:`to_onnx` (``dtype``, ``name``, ``inputs``, ``methods``, ``exp``).
    The file is written to a temporary name beside ``path``, then renamed,
    so a file already at ``path`` is replaced whole or left unchanged.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import onnx
    >>> import wirework as ww
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = ww.save_onnx(tree, Path(folder) / "iris.onnx")
    ...     [output.name for output in onnx.load(path).graph.output]
    ['predict', 'predict_proba']
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentError(f"save_onnx needs a file path such as 'model.onnx'. Received: {describe(path)}.")
    unknown = sorted(set(options) - _TO_ONNX_OPTIONS)
    if unknown:
        raise ExportError(
            f"save_onnx takes the options of to_onnx ({', '.join(sorted(_TO_ONNX_OPTIONS))}). Received also: {unknown}."
        )
    path = Path(path)
    if path.is_dir():  # checked before the export, which can take a while
        example = str(path / "model.onnx")
        raise StorageError(f"save_onnx: {str(path)!r} is a directory. Give a file path such as {example!r}.")
    if not path.parent.is_dir():
        parent = str(path.parent)
        what = f"{parent!r} is a file, not a directory" if path.parent.exists() else (
            f"the directory {parent!r} does not exist. Create it first"
        )
        raise StorageError(f"save_onnx cannot write {str(path)!r}: {what}.")
    model = to_onnx(obj, X_sample, **options)
    temporary = path.with_name(f".{path.name}.partial")
    try:
        temporary.write_bytes(model.SerializeToString())
        os.replace(temporary, path)
    except OSError as error:
        raise StorageError(
            f"save_onnx could not write {str(path)!r}: {error}. A file already there is unchanged."
        ) from error
    finally:
        temporary.unlink(missing_ok=True)
    return path


#: The keyword options of :func:`to_onnx`, which :func:`save_onnx` passes on.
_TO_ONNX_OPTIONS = frozenset({"dtype", "name", "inputs", "methods", "exp"})


def _exp_build(exp: Any, dtype: np.dtype) -> str:
    """``to_onnx``'s ``exp`` option as the graph's ``exp_build``: ``"libm"`` resolved to this machine's build."""
    if not isinstance(exp, str) or exp not in EXP_BUILDS:
        raise ExportError(f"exp must be one of {', '.join(map(repr, EXP_BUILDS))}. Received: {exp!r}.")
    if exp != "onnx" and dtype != np.float64:
        raise ExportError(
            f"exp={exp!r} reproduces the C library's float64 exp, but a {dtype.name} export computes in {dtype.name}. "
            "Export with dtype='float64', or with exp='onnx'."
        )
    return exp_build() if exp == "libm" else exp


def input_signature(model: Any) -> dict:
    """The input layout an exported file expects (``layout``, ``dtype``, ``columns``).

    Examples
    --------
    >>> import pandas as pd
    >>> import wirework as ww
    >>> from sklearn.ensemble import HistGradientBoostingRegressor
    >>> X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "colour": pd.Categorical(["red", "blue"] * 2)})
    >>> model = HistGradientBoostingRegressor(max_iter=2).fit(X, [1.0, 2.0, 3.0, 4.0])
    >>> signature = ww.onnx.input_signature(ww.to_onnx(model, X))
    >>> signature["layout"], signature["dtype"], signature["named"]
    ('matrix', 'float64', True)
    >>> signature["columns"]
    [{'categories': None, 'name': 'size'}, {'categories': ['blue', 'red'], 'name': 'colour'}]
    """
    if not hasattr(model, "metadata_props"):
        raise ExportError(
            f"Expected an ONNX ModelProto written by ww.to_onnx (or read with onnx.load). Received: {type(model).__name__}."
        )
    for entry in model.metadata_props:
        if entry.key == _METADATA_KEY:
            return json.loads(entry.value)
    raise ExportError("This ONNX model has no wirework input signature; it was not written by ww.to_onnx.")


def _input_codes(column: Any, categories: list, kinds: list[str]) -> np.ndarray:
    """Each value's code in a categorical column of the ``matrix`` layout: its position in ``categories``,
    :data:`UNKNOWN_CODE` for an unseen one; for a missing value, NaN, except when the model learned missing
    values as categories of their own (``kinds``, from the signature's ``"missing"``: scikit-learn's encoders
    tell ``None`` from NaN in an object column): then the first kind is NaN, each next one the next position
    after the categories, and any other missing value is unknown, as natively."""
    lookup = {value: code for code, value in enumerate(categories)}
    extra = {kind: np.nan if k == 0 else float(len(categories) + k - 1) for k, kind in enumerate(kinds)}
    values = column.astype(object) if isinstance(getattr(column, "dtype", None), pd.CategoricalDtype) else column
    codes = []
    for value in values:
        kind = missing_kind(value)
        if kind is None:
            codes.append(lookup.get(value, UNKNOWN_CODE))
        else:
            codes.append(extra.get(kind, UNKNOWN_CODE) if kinds else np.nan)
    return np.array(codes, dtype=np.float64)


def _input_values(column: Any, categories: list, kinds: list[str]) -> np.ndarray:
    """A categorical column's values in the ``columns`` layout: strings (or int64 for integer categories), each
    missing value written as the marker the graph codes as :func:`_input_codes` does."""
    string = all(isinstance(c, str) for c in categories)
    markers = _markers(categories, string, max(1, len(kinds)) + 1)  # the last: a missing value taken as unknown
    written = {kind: markers[k] for k, kind in enumerate(kinds)}
    reserved = set(markers)  # a value such as "" that is no category but a marker: unknown, as natively
    values = []
    for value in pd.Series(column, dtype=object):  # a None stays None (pandas 3 would infer str: NaN)
        kind = missing_kind(value)
        if kind is not None:
            values.append(written.get(kind, markers[-1]) if kinds else markers[0])
            continue
        value = str(value) if string else int(value)
        values.append(markers[-1] if value in reserved else value)
    return np.array(values, dtype=object if string else np.int64).reshape(-1, 1)


def _renames_spaces(obj: Any) -> bool:
    """Whether ``obj``'s ``feature_names_in_`` are LightGBM's, which records a column ``"age years"`` as
    ``"age_years"`` (a scikit-learn ``Pipeline`` has its first step's names)."""
    from sklearn.pipeline import Pipeline

    while isinstance(obj, Pipeline) and obj.steps:
        obj = obj.steps[0][1]
    return type(obj).__module__.split(".")[0] == "lightgbm" and getattr(obj, "feature_names_in_", None) is not None


def _in_order(frame: pd.DataFrame, names: list[str], named: bool, spaces: bool = False) -> pd.DataFrame:
    """``frame``'s columns in the file's order: by name when the file records the names its model was trained
    with and the frame's columns are strings (as scikit-learn matches them), else by position. ``spaces``: the
    names are LightGBM's, so a column that is no name but is one with its spaces written ``_`` is that one."""
    if not named or not all(isinstance(c, str) for c in frame.columns):
        if frame.shape[1] != len(names):
            raise ExportError(f"The model expects {len(names)} columns. Received {frame.shape[1]}.")
        return frame
    if spaces:
        known = set(names)
        frame = frame.set_axis([c if c in known else c.replace(" ", "_") for c in frame.columns], axis=1)
    given = list(frame.columns)
    if given == names:
        return frame
    expected = set(names)
    missing = [n for n in names if n not in frame.columns]
    unexpected = [c for c in given if c not in expected]
    repeated = sorted(set(frame.columns[frame.columns.duplicated()]))
    if missing or unexpected or repeated:
        faults = [f"lacks {missing}"] if missing else []
        faults += [f"has unexpected columns {unexpected}"] if unexpected else []
        faults += [f"repeats {repeated}"] if repeated else []
        raise ExportError(
            f"The model expects the columns {names}; the DataFrame {', '.join(faults)}. Give the columns the "
            "model was trained on (in any order)."
        )
    return frame[names]


def _numbers(values: Any, name: str, dtype: Any) -> np.ndarray:
    """A numeric column's values as ``dtype``; strings (even of numbers, which scikit-learn refuses) are refused."""
    kind = getattr(values, "dtype", np.dtype(object))
    text = None
    if not pd.api.types.is_numeric_dtype(kind) and not pd.api.types.is_bool_dtype(kind):
        text = next((v for v in values if isinstance(v, (str, bytes))), None)
    try:
        if text is not None:
            raise ValueError(f"it holds strings, such as {text!r}")
        return np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as error:
        raise ExportError(
            f"Column {name!r} ({kind}) cannot be fed to the model: it expects numbers there ({brief(error)}). "
            "Give the column the model was trained on."
        ) from error


def feed(model: Any, X: Any) -> dict[str, np.ndarray]:
    """The ``{input name: array}`` for ONNX Runtime that feeds ``X`` to an exported ``model``.

    A DataFrame's columns are taken by name when the model was trained on
    named columns (in any order), else by position; the values of columns
    the model reads as categories are turned into the codes (``matrix``
    layout) or values (``columns`` layout) the file expects, whatever their
    dtype. An array is taken as it is: numbers in a category column are its
    codes.

    Examples
    --------
    >>> import pandas as pd
    >>> import wirework as ww
    >>> from sklearn.ensemble import HistGradientBoostingRegressor
    >>> X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "colour": pd.Categorical(["red", "blue"] * 2)})
    >>> model = HistGradientBoostingRegressor(max_iter=2).fit(X, [1.0, 2.0, 3.0, 4.0])
    >>> exported = ww.to_onnx(model, X)
    >>> ww.onnx.feed(exported, pd.DataFrame({"colour": ["blue", "green"], "size": [5.0, 6.0]}))
    {'X': array([[ 5.,  0.],
           [ 6., -1.]])}
    """
    spec = input_signature(model)
    dtype = np.dtype(spec["dtype"])
    columns = spec["columns"]
    names = [info["name"] for info in columns]
    frame = (
        _in_order(X, names, spec.get("named", False), spaces=spec.get("spaces") == "_")
        if isinstance(X, pd.DataFrame)
        else None
    )
    matrix = None if frame is not None else np.asarray(X)
    if matrix is not None and (matrix.ndim != 2 or matrix.shape[1] != len(columns)):
        raise ExportError(f"The model expects {len(columns)} columns. Received shape {matrix.shape}.")

    def column(i: int) -> Any:
        return frame.iloc[:, i] if frame is not None else matrix[:, i]

    if spec["layout"] == "matrix":
        if frame is None and matrix.dtype.kind not in "OUS":
            return {"X": np.ascontiguousarray(matrix, dtype=dtype)}
        if frame is None:  # an array of strings or objects: its string columns are coded as a frame's
            # as objects: pandas 3 would make a column of strings its str dtype, whose missing values are all NaN
            frame = pd.DataFrame(matrix, columns=[info["name"] for info in columns], dtype=object)
        parts = []
        for i, info in enumerate(columns):
            values = frame.iloc[:, i]
            if info.get("unused"):
                parts.append(np.full(len(values), np.nan))
                continue
            if info["categories"] is not None:  # values, whatever the column's dtype (an int column too)
                parts.append(_input_codes(values, info["categories"], info.get("missing", [])))
                continue
            parts.append(_numbers(values, info["name"], np.float64))
        return {"X": np.column_stack(parts).astype(dtype)}
    out = {}
    for i, info in enumerate(columns):
        values = column(i)
        if info.get("unused"):
            out[info["name"]] = np.full((len(values), 1), np.nan, dtype=dtype)
        elif info["categories"] is None:
            out[info["name"]] = _numbers(values, info["name"], dtype).reshape(-1, 1)
        else:
            out[info["name"]] = _input_values(values, info["categories"], info.get("missing", []))
    return out
