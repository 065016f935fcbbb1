"""Assembling one ONNX graph: unique names, constants, nodes, sub-models.

Every converter writes into a :class:`GraphBuilder`. The builder names
values deterministically (a hint plus a counter), so the same model gives
the same bytes, and it owns the two opsets every exported file declares:
the default domain at :data:`OPSET` and ``ai.onnx.ml`` at :data:`ML_OPSET`
(the first release with the ``TreeEnsemble`` operator).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from wirework.errors import ExportError

__all__ = [
    "GraphBuilder", "OPSET", "ML_OPSET", "ML_DOMAIN", "UNKNOWN_CODE", "MISSING_KINDS", "dense", "is_missing",
    "missing_kind", "split_missing", "with_missing",
]

OPSET = 21
ML_OPSET = 5
ML_DOMAIN = "ai.onnx.ml"
#: The input code of a categorical value never seen in training (a missing value's code is NaN).
UNKNOWN_CODE = -1.0


def dense(value: Any) -> np.ndarray:
    """A native value as an array: a sparse matrix (a one-hot encoding, say) made dense, as the file gives it."""
    return np.asarray(value.toarray() if hasattr(value, "toarray") else value)


#: The kinds of missing category value, in the order scikit-learn's encoders list them among their categories.
MISSING_KINDS = ("None", "nan", "NA", "NaT")
_MISSING_VALUES = {"None": None, "nan": np.nan, "NA": pd.NA, "NaT": pd.NaT}


def missing_kind(value: Any) -> str | None:
    """Which missing value a category value is (``"None"``, ``"nan"``, ``"NA"`` or ``"NaT"``); ``None`` when it
    is not missing. scikit-learn's encoders tell them apart in an object column: one that learned ``None``
    takes a NaN as an unknown value."""
    if value is None:
        return "None"
    if value is pd.NA:
        return "NA"
    if value is pd.NaT:
        return "NaT"
    if isinstance(value, (float, np.floating)) and value != value:
        return "nan"
    return None


def is_missing(value: Any) -> bool:
    """Whether a category value is missing: ``None``, NaN, ``pd.NA`` or ``pd.NaT``."""
    return missing_kind(value) is not None


def split_missing(values: Any) -> tuple[list, list[str]]:
    """A model's categories of one column (see ``Converter.categories``): its known values, in order, and the
    kinds of missing value it learned as categories of their own, in :data:`MISSING_KINDS` order."""
    values = list(values.tolist() if isinstance(values, np.ndarray) else values)
    known = [v for v in values if not is_missing(v)]
    kinds = {missing_kind(v) for v in values} - {None}
    return known, [kind for kind in MISSING_KINDS if kind in kinds]


def with_missing(known: Any, kinds: Any) -> np.ndarray:
    """The inverse of :func:`split_missing`: ``known`` then one value of each kind of missing value."""
    values = list(known.tolist() if isinstance(known, np.ndarray) else known)
    if not kinds:
        return np.asarray(values)
    return np.array(values + [_MISSING_VALUES[kind] for kind in kinds], dtype=object)

_DTYPES = {"float64": np.dtype(np.float64), "float32": np.dtype(np.float32)}


def resolve_dtype(dtype: Any) -> np.dtype:
    """``"float64"`` or ``"float32"`` (or the numpy dtypes) as a numpy dtype; anything else is refused."""
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        resolved = None
    if resolved is None or resolved.name not in _DTYPES:
        raise ExportError(f"dtype must be 'float64' or 'float32'. Received: {dtype!r}.")
    return resolved


class GraphBuilder:
    """Nodes, constants, inputs and outputs of the graph being exported.

    Parameters
    ----------
    dtype : {"float64", "float32"}
        The floating type of the graph's inputs and of every float value
        computed inside it.
    name : str
        The graph's name.

    Examples
    --------
    >>> import numpy as np
    >>> g = GraphBuilder("float64", "demo")
    >>> x = g.add_input("X", np.float64, [None, 2])
    >>> y = g.op("Add", [x, g.const(np.array([1.0, 2.0]), "shift")])
    >>> g.add_output(y, "predict", np.float64, [None, 2])
    >>> model = g.to_model()
    >>> [(n.op_type, list(n.output)) for n in model.graph.node]  # the Add writes the output itself
    [('Add', ['predict'])]
    """

    def __init__(self, dtype: Any = "float64", name: str = "wirework") -> None:
        import onnx  # the extra wirework[onnx]; imported here so the core install stays light

        self.onnx = onnx
        self.dtype = resolve_dtype(dtype)
        self.name = name
        self.nodes: list = []
        self.initializers: list = []
        self.inputs: list = []
        self.outputs: list = []
        self.metadata: dict[str, str] = {}
        self.ranks: dict[str, int] = {}  # rank of an untyped output, where shape inference cannot tell it
        self.memo: dict = {}  # converters keep per-graph work here (a sub-model converted once)
        self.exp_build = "onnx"  # how C's exp is computed: ONNX's Exp or a glibc build (to_onnx's exp option)
        self._used: set[str] = set()
        self._consts: dict[tuple, str] = {}

    # -- names and constants -------------------------------------------------

    def fresh(self, hint: str) -> str:
        """A value name not used yet in this graph, built from ``hint``."""
        base = "".join(c if c.isalnum() or c in "_." else "_" for c in hint) or "v"
        name, i = base, 0
        while name in self._used:
            i += 1
            name = f"{base}_{i}"
        self._used.add(name)
        return name

    def const(self, value: Any, hint: str = "const", *, dtype: Any = None) -> str:
        """An initializer holding ``value``; floats take the graph's dtype unless ``dtype`` says otherwise.

        Equal constants (same dtype, shape and bytes) are stored once.
        """
        array = np.asarray(value)
        if dtype is not None:
            array = array.astype(dtype)
        elif array.dtype.kind == "f":
            array = array.astype(self.dtype)
        elif array.dtype.kind in "iub":
            array = array.astype(np.int64)
        key = (array.dtype.str, array.shape, array.tobytes()) if array.dtype.kind != "U" else None
        if key is not None and key in self._consts:
            return self._consts[key]
        name = self.fresh(hint)
        if array.dtype.kind in "UO":
            tensor = self.onnx.helper.make_tensor(
                name, self.onnx.TensorProto.STRING, array.shape, [str(v).encode() for v in array.ravel()]
            )
        else:
            tensor = self.onnx.numpy_helper.from_array(array.copy(order="C"), name)  # keeps 0-d shapes
        self.initializers.append(tensor)
        if key is not None:
            self._consts[key] = name
        return name

    # -- nodes -----------------------------------------------------------------

    def op(
        self,
        op_type: str,
        inputs: Sequence[str],
        *,
        outputs: int | Sequence[str] = 1,
        domain: str = "",
        hint: str | None = None,
        **attributes: Any,
    ) -> Any:
        """Add one node; returns its output name (or the list of names when it has several)."""
        if isinstance(outputs, int):
            names = [self.fresh(hint or op_type.lower()) for _ in range(outputs)]
        else:
            names = list(outputs)
            self._used.update(names)
        node = self.onnx.helper.make_node(
            op_type, list(inputs), names, name=self.fresh(f"n_{hint or op_type}"), domain=domain or None, **attributes
        )
        self.nodes.append(node)
        return names[0] if len(names) == 1 else names

    def cast(self, value: str, to: Any) -> str:
        """``value`` cast to the numpy dtype ``to``."""
        return self.op("Cast", [value], to=self.tensor_type(to), hint="cast")

    def tensor_type(self, dtype: Any) -> int:
        """The ONNX element type of a numpy dtype."""
        return self.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def lookup(self, value: str, keys: Any, values: np.ndarray, hint: str, default: float = np.nan) -> str:
        """Each element of ``value`` mapped by ``keys`` (a tensor) to ``values``, anything else to
        ``default``, as floats of the graph's dtype (``ai.onnx.ml`` ``LabelEncoder``)."""
        tensor = self.onnx.numpy_helper.from_array
        return self.op(
            "LabelEncoder",
            [value],
            domain=ML_DOMAIN,
            hint=hint,
            keys_tensor=keys,
            values_tensor=tensor(np.asarray(values).astype(self.dtype), "values"),
            default_tensor=tensor(np.array([default], dtype=self.dtype), "default"),
        )

    def columns(self, value: str, start: int, stop: int) -> str:
        """Columns ``start:stop`` of a matrix value."""
        return self.op(
            "Slice",
            [value, self.const([start], "start"), self.const([stop], "stop"), self.const([1], "axis")],
            hint="columns",
        )

    def take_columns(self, value: str, positions: Any, hint: str = "columns") -> str:
        """The columns of a matrix value at ``positions`` (integers), in that order."""
        return self.op("Gather", [value, self.const(np.asarray(positions, dtype=np.int64), hint)], axis=1, hint=hint)

    def added(self, values: Sequence[str]) -> str:
        """``values[0] + values[1] + ...`` added left to right, as Python's ``sum`` and a loop of ``+`` do."""
        total = values[0]
        for value in values[1:]:
            total = self.op("Add", [total, value], hint="sum")
        return total

    def row_sum(self, value: str, width: int) -> str:
        """Each row of a ``[N, width]`` value summed, ``[N, 1]``, as NumPy's ``sum(axis=1)`` adds the rows of a
        C-ordered array: 0 plus the row's pairwise sum (``ReduceSum`` may round otherwise).

        NumPy's pairwise sum of ``n`` values: left to right below 8; up to 128, eight running sums over the
        blocks of 8 (``r[j] += x[i + j]``), combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 +
        r7))``, then the values past the last whole block left to right; beyond, the sums of two halves (the
        first a multiple of 8 long). A Fortran-ordered array NumPy adds left to right (the same below 8).
        """
        if width < 1:
            raise ExportError("A row sum needs at least one column.")
        total = self._pairwise(value, 0, width)
        return self.op("Add", [self.const(np.zeros(1), "zero"), total], hint="row_sum")  # -0.0 becomes 0.0

    def _pairwise(self, value: str, start: int, n: int) -> str:
        """NumPy's pairwise sum of columns ``start:start + n`` of each row (see :meth:`row_sum`)."""
        if n < 8:
            return self.added([self.columns(value, j, j + 1) for j in range(start, start + n)])
        if n > 128:
            half = n // 2 - (n // 2) % 8
            first, second = self._pairwise(value, start, half), self._pairwise(value, start + half, n - half)
            return self.op("Add", [first, second], hint="pairwise")
        stop = start + n - n % 8
        running = self.columns(value, start, start + 8)
        for i in range(start + 8, stop, 8):
            running = self.op("Add", [running, self.columns(value, i, i + 8)], hint="running")
        pairs = self.op("Add", [self.take_columns(running, [0, 2, 4, 6]), self.take_columns(running, [1, 3, 5, 7])])
        halves = self.op("Add", [self.take_columns(pairs, [0, 2]), self.take_columns(pairs, [1, 3])])
        return self.added([self.op("Add", [self.columns(halves, 0, 1), self.columns(halves, 1, 2)])] + [
            self.columns(value, j, j + 1) for j in range(stop, start + n)
        ])

    def row_squares(self, value: str, width: int) -> str:
        """Each row's sum of squares, ``[N, 1]``, as NumPy's ``einsum("ij,ij->i", x, x)`` (scikit-learn's
        ``row_norms``) adds a C-ordered row in the two lanes of its baseline SIMD kernel: the even and the odd
        positions apart, each lane block of 8 by block of 8 from its last value of the block to its first
        (``p0 + (p2 + (p4 + (p6 + lane)))``), then the remaining pairs, then the two lanes, then 0.

        A Fortran-ordered or strided array NumPy adds left to right instead: the same up to 2 columns.
        """
        if width < 1:
            raise ExportError("A row sum needs at least one column.")
        squares = self.op("Mul", [value, value], hint="squares")
        if width % 2:  # the odd lane's last value: 0, as the kernel's zero-padded load gives it
            pads = self.const([0, 0, 0, 1], "pads")
            squares = self.op("Pad", [squares, pads, self.const(np.zeros(()), "pad_value")], hint="squares")
        order = [i + j for i in range(0, width - width % 8, 8) for j in (6, 4, 2, 0)]
        order += list(range(width - width % 8, width, 2))
        lanes = None  # each lane starts at 0, and 0 + p is p for a square p
        for i in order:
            pair = self.columns(squares, i, i + 2)
            lanes = pair if lanes is None else self.op("Add", [pair, lanes], hint="lanes")
        total = self.op("Add", [self.columns(lanes, 0, 1), self.columns(lanes, 1, 2)], hint="row_squares")
        return self.op("Add", [self.const(np.zeros(1), "zero"), total], hint="row_squares")

    def hstack(self, parts: Sequence[str], hint: str = "hcat") -> str:
        """Matrix values side by side (one part: itself)."""
        return parts[0] if len(parts) == 1 else self.op("Concat", list(parts), axis=1, hint=hint)

    def as_column(self, value: str) -> str:
        """A 1-D value reshaped to one column."""
        return self.op("Reshape", [value, self.const([-1, 1], "column_shape")], hint="column")

    def as_matrix(self, value: str) -> str:
        """A 1-D value as one column, a matrix unchanged (``[N] -> [N, 1]``, ``[N, k]`` as it is), N = 0 too.

        ``Flatten`` rather than a ``Reshape`` to ``[0, -1]``, whose -1 cannot be inferred from zero values:
        ONNX Runtime stopped on an empty batch there."""
        return self.op("Flatten", [value], axis=1, hint="matrix")

    def as_vector(self, value: str) -> str:
        """A one-column matrix flattened to 1-D."""
        return self.op("Reshape", [value, self.const([-1], "vector_shape")], hint="vector")

    # -- graph boundary --------------------------------------------------------

    def add_input(self, name: str, dtype: Any, shape: Sequence[int | None]) -> str:
        """Declare a graph input (``None`` in ``shape`` is a free dimension)."""
        if name in self._used:
            raise ExportError(f"Two graph inputs would be called {name!r}. Rename one column or source.")
        self._used.add(name)
        elem = self.onnx.TensorProto.STRING if np.dtype(dtype).kind in "UO" else self.tensor_type(dtype)
        self.inputs.append(self.onnx.helper.make_tensor_value_info(name, elem, _dims(shape)))
        return name

    def add_output(self, value: str, name: str, dtype: Any = None, shape: Sequence[int | None] | None = None) -> None:
        """Expose ``value`` as the graph output ``name`` (through an Identity, so names never clash;
        :meth:`to_model` drops it where the node making ``value`` can write ``name`` itself).

        Without ``dtype`` and ``shape`` the output's type is found by ONNX
        shape inference when the model is finished.
        """
        if name in {o.name for o in self.outputs}:
            raise ExportError(f"Two graph outputs would be called {name!r}.")
        if name in self._used and name != value:
            raise ExportError(f"The output name {name!r} is already a value of the graph. Choose another name.")
        if value != name:
            self._used.add(name)
            self.op("Identity", [value], outputs=[name], hint=name)
        if dtype is None:
            info = self.onnx.ValueInfoProto()
            info.name = name
            self.outputs.append(info)
            return
        elem = self.onnx.TensorProto.STRING if np.dtype(dtype).kind in "UO" else self.tensor_type(dtype)
        self.outputs.append(self.onnx.helper.make_tensor_value_info(name, elem, _dims(shape)))

    # -- embedding a model converted elsewhere ---------------------------------

    def embed(self, model: Any, inputs: Mapping[str, str], prefix: str) -> dict[str, str]:
        """Copy the nodes of another ``ModelProto`` into this graph.

        ``inputs`` maps the other graph's input names to values of this graph;
        every other name gets ``prefix``. Returns the other graph's output names
        mapped to their names here.
        """
        graph = model.graph
        rename: dict[str, str] = dict(inputs)

        def renamed(name: str) -> str:
            if not name:
                return name
            if name not in rename:
                rename[name] = self.fresh(f"{prefix}{name}")
            return rename[name]

        for tensor in graph.initializer:
            copy = self.onnx.TensorProto()
            copy.CopyFrom(tensor)
            copy.name = renamed(tensor.name)
            self.initializers.append(copy)
        for node in graph.node:
            copy = self.onnx.NodeProto()
            copy.CopyFrom(node)
            del copy.input[:]
            del copy.output[:]
            copy.input.extend(renamed(n) for n in node.input)
            copy.output.extend(renamed(n) for n in node.output)
            copy.name = self.fresh(f"n_{prefix}{node.name or node.op_type}")
            if copy.domain == "":
                copy.ClearField("domain")
            self.nodes.append(copy)
        return {o.name: renamed(o.name) for o in graph.output}

    # -- result ----------------------------------------------------------------

    def to_model(self) -> Any:
        """The finished, checked ``ModelProto`` (deterministic for the same content)."""
        onnx = self.onnx
        nodes = _fold_output_identities(self.nodes, self.inputs, self.outputs, self.initializers)
        graph = onnx.helper.make_graph(nodes, self.name, self.inputs, self.outputs, self.initializers)
        model = onnx.helper.make_model(
            graph,
            opset_imports=[onnx.helper.make_opsetid("", OPSET), onnx.helper.make_opsetid(ML_DOMAIN, ML_OPSET)],
            producer_name="wirework",
            producer_version=_version(),
        )
        model.ir_version = 10
        if any(not o.HasField("type") for o in self.outputs):
            _infer_output_types(onnx, model, self.ranks)
        for key in sorted(self.metadata):
            entry = model.metadata_props.add()
            entry.key, entry.value = key, self.metadata[key]
        return model


def _fold_output_identities(nodes: list, inputs: list, outputs: list, initializers: list) -> list:
    """``nodes`` without the Identity nodes that only rename a value to an output's name.

    :meth:`GraphBuilder.add_output` names outputs through an Identity; when
    its input is made by a node here, read by nothing else and is no graph
    output itself, a copy of that node writes the output directly (one node
    less to run per call). ``nodes`` themselves are not changed.
    """
    output_names = {o.name for o in outputs}
    outer = {i.name for i in inputs} | {t.name for t in initializers}
    readers: dict[str, int] = {}
    for name in _names_read(nodes):
        readers[name] = readers.get(name, 0) + 1
    renames: dict[str, str] = {}  # a value -> the output name its maker writes instead
    dropped: set[int] = set()
    for node in nodes:
        if node.op_type != "Identity" or node.domain or node.output[0] not in output_names:
            continue
        value = node.input[0]
        if value in outer or value in output_names or readers.get(value) != 1:
            continue
        renames[value] = node.output[0]
        dropped.add(id(node))
    folded = []
    for node in nodes:
        if id(node) in dropped:
            continue
        if any(name in renames for name in node.output):
            copied = type(node)()
            copied.CopyFrom(node)
            copied.ClearField("output")
            copied.output.extend(renames.get(name, name) for name in node.output)
            node = copied
        folded.append(node)
    return folded


def _names_read(nodes: Sequence) -> list[str]:
    """Every value name ``nodes`` read, those read inside subgraphs (``If``, ``Loop``, ``Scan``) included."""
    names: list[str] = []
    for node in nodes:
        names.extend(node.input)
        for attribute in node.attribute:
            for graph in [*([attribute.g] if attribute.HasField("g") else []), *attribute.graphs]:
                names.extend(_names_read(graph.node))
                names.extend(o.name for o in graph.output)
    return names


def _infer_output_types(onnx: Any, model: Any, ranks: Mapping[str, int]) -> None:
    """Fill in the type of each untyped graph output from ONNX shape inference (batch dimension ``N``); an
    output whose shape inference cannot tell gets the rank in ``ranks``, its dimensions free but the first."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception as exc:
        raise ExportError(f"ONNX shape inference failed on the exported graph: {exc}") from exc
    found = {o.name: o for o in inferred.graph.output}
    for output in model.graph.output:
        if output.HasField("type"):
            continue
        typed = found.get(output.name)
        if typed is None or not typed.type.tensor_type.elem_type:
            raise ExportError(
                f"Cannot tell the type of output {output.name!r}: ONNX shape inference does not give it. Export the "
                "network up to the model that computes it, or replace that model."
            )
        output.type.CopyFrom(typed.type)
        if not output.type.tensor_type.HasField("shape"):
            if output.name not in ranks:
                raise ExportError(
                    f"Cannot tell the shape of output {output.name!r}: ONNX shape inference does not give it, and "
                    f"the model's own {output.name} failed on the sample rows. Pass X_sample= with a few real rows."
                )
            for _ in range(ranks[output.name]):
                output.type.tensor_type.shape.dim.add()
        dims = output.type.tensor_type.shape.dim
        if len(dims):
            dims[0].Clear()
            dims[0].dim_param = "N"


def _dims(shape: Sequence[int | None]) -> list:
    return [d if d is not None else "N" for d in shape]


def _version() -> str:
    from wirework import __version__

    return __version__
