"""Sources, dynamic nodes and static nodes: the lazy values of a network.

A node computes nothing until it is called:

* ``node()`` returns its value on the training data held by the sources;
* ``node(X_new)`` pushes new data through its one source;
* ``node(X=..., y=...)`` names the sources when there are several.

Nodes are immutable once created, so a network is a DAG by construction.
"""

from __future__ import annotations

import functools
import operator
import sys
import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from wirework.errors import ArgumentError, DataError, LazyNodeError
from wirework.graph._calling import _Calling, _source_label, apply_failure, evaluate
from wirework.graph._node_pickling import _blank, _Pickled
from wirework.graph.data import describe, is_data
from wirework.graph.topology import CLOCK, TrainingGraph, ancestry, upstream_sources

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.cache import FitCache
    from wirework.graph.machines import Machine

__all__ = [
    "Node", "Source", "DynamicNode", "TrainingOutputNode", "FitPredictNode", "StaticNode", "source", "node", "lift",
    "evaluate", "apply_failure",
]
__all__ += ["_blank"]  # moved to _node_pickling: pickles of nodes name wirework.graph.nodes._blank

_MISSING = object()


class Node(_Calling, _Pickled):
    """A lazy value in a learning network (base class; build nodes with
    :func:`source`, :func:`node`, the operations of a machine, or arithmetic).

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> X = ww.source(np.array([1.0, 2.0, 3.0]), name="X")
    >>> total = X + 2 * X                 # a formula: nothing is computed yet
    >>> isinstance(total, ww.Node), total
    (True, (X + (2 * X)))
    >>> total(), total(np.array([10.0]))  # on the training data, on new data
    (array([3., 6., 9.]), array([30.]))
    """

    kind: str = "node"
    __slots__ = ("parents", "_order", "_sources", "_training", "_stamp", "__weakref__")

    def __init__(self, parents: tuple[Node, ...]) -> None:
        self.parents = parents
        self._order: list[Node] | None = None
        self._sources: tuple[Source, ...] | None = None
        self._training: TrainingGraph | None = None
        self._stamp: tuple[object, int, int] | None = None  # (token, states, versions): see topology.stamps

    # -- structure (computed once: nodes are immutable) ----------------------

    def _ancestry(self) -> list[Node]:
        if self._order is None:
            self._order = ancestry([self])
        return self._order

    def _training_graph(self) -> TrainingGraph:
        """The machines this node needs (``training_order([self])``) and who needs whom among them."""
        if self._training is None:
            self._training = TrainingGraph.of(self)
        return self._training

    def _requires(self) -> tuple:
        return self.parents

    def _compute(self, memo: dict, overrides: Mapping | None) -> Any:  # pragma: no cover
        """The node's value from its parents' in ``memo`` (``overrides``: sources' new data; ``None``: training
        data). A dynamic node also takes the ``token`` of the fit pass computing it, if any (see ``stamps``)."""
        raise NotImplementedError

    def sources(self) -> list[Source]:
        """Sources this node's value is computed from (ordinary edges only).

        Sources reached only through training edges (the target a machine was
        trained on, say) are not among them: they are not needed to predict.
        """
        if self._sources is None:
            self._sources = upstream_sources([self])
        return list(self._sources)

    def machines(self) -> list[Machine]:
        """Every machine this node needs, in training (dependency) order."""
        return list(self._training_graph().machines)

    # -- training ----------------------------------------------------------

    def fit(self, *, force: bool = False, cache: FitCache | None = None, **execution: Any) -> Node:
        """Train every machine this node needs, in dependency order.

        Each machine is visited once and follows its retraining rules (see
        :class:`~wirework.graph.machines.Machine`): only what a change
        touches is trained again.

        Parameters
        ----------
        force : bool, default=False
            Train every machine from scratch (condition 2), frozen ones
            excepted, calling each model's ``fit`` even when ``cache`` holds
            an equal training; the new fits replace those entries.
        cache : FitCache, optional
            Reuse fits of equal models on equal data; defaults to the global
            ``cache`` setting (:func:`wirework.set_config`).
        **execution
            ``executor`` (``"sequential"``, ``"threads"``, ``"processes"`` or a
            ``ww.DaskExecutor``), ``n_jobs``, ``on_error`` (``"raise"`` or
            ``"continue"``), ``verbose``, ``progress`` (a callback): see
            :func:`wirework.execution.schedule`.

        Returns
        -------
        Node
            This node, so that ``node.fit()()`` works.
        """
        from wirework.graph.training import fit_pass

        fit_pass([self], force=force, cache=cache, **execution)
        return self

    # -- lazy guards -------------------------------------------------------

    def _refuse(self, question: str) -> LazyNodeError:
        return LazyNodeError(
            f"A node is lazy and has no {question} until it is called. Received a request for the {question} of "
            f"{self!r}. Call the node first: value = node() (training data) or node(X_new)."
        )

    def __bool__(self) -> bool:
        raise self._refuse("truth value")

    def __len__(self) -> int:
        raise self._refuse("length")

    def __iter__(self):
        raise self._refuse("items to iterate over")

    def __array__(self, *args: Any, **kwargs: Any):
        raise self._refuse("array value")

    # -- comparisons: == and != are identity (nodes are dict keys), so <, <=, >, >= build no node either --

    def _unordered(self, symbol: str, name: str, other: Any) -> LazyNodeError:
        from wirework.graph.inspect import formulas

        if isinstance(other, Node):
            left, right = formulas([self, other])
            build = f"ww.node(lambda a, b: a {symbol} b, {left}, {right})"
        else:
            left = repr(self)
            plain = isinstance(other, (int, float, str)) and len(repr(other)) <= 40
            right = repr(other) if plain else describe(other)
            lam = f"ww.node(lambda x: x {symbol} {right}, {left})"
            build = lam if plain else f"ww.node(operator.{name}, {left}, value)"
        return LazyNodeError(
            "Comparisons of nodes build no node, and a lazy node has no value to compare until it is called "
            f"(== and != compare nodes by identity: nodes are dict keys). Received: {left} {symbol} {right}. "
            f"Build the comparison as a static node, {build}, or compare the values of called nodes, node() or "
            "node(X_new)."
        )

    def __lt__(self, other: Any) -> bool:
        raise self._unordered("<", "lt", other)

    def __le__(self, other: Any) -> bool:
        raise self._unordered("<=", "le", other)

    def __gt__(self, other: Any) -> bool:
        raise self._unordered(">", "gt", other)

    def __ge__(self, other: Any) -> bool:
        raise self._unordered(">=", "ge", other)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy's hook for a ufunc given a node: ``array + node`` (``-``, ``*``, ``/``) is the node arithmetic
        builds, ``array == node`` compares by identity and ``array < node`` raises as ``node > array`` does; any
        other ufunc (``np.log(X)``) is a ``LazyNodeError`` saying to build a static node (numpy's own error said only
        that a node "does not support ufuncs")."""
        if method == "__call__" and not kwargs and len(inputs) == 2:
            left, right = inputs
            if ufunc in _ARITHMETIC:
                return _binary(*_ARITHMETIC[ufunc], left, right)
            if ufunc is np.equal or ufunc is np.not_equal:  # as == and != without the hook: identity
                return (left is right) is (ufunc is np.equal)
            if ufunc in _ORDERINGS:
                symbol, name, reflected = _ORDERINGS[ufunc]
                raise self._unordered(symbol, name, right) if left is self else self._unordered(*reflected, left)
        raise _no_ufunc(ufunc, method, inputs)

    # -- arithmetic and selection give static nodes ------------------------

    def __add__(self, other: Any) -> StaticNode:
        return _binary(operator.add, "+", self, other)

    def __radd__(self, other: Any) -> StaticNode:
        return _binary(operator.add, "+", other, self)

    def __sub__(self, other: Any) -> StaticNode:
        return _binary(operator.sub, "-", self, other)

    def __rsub__(self, other: Any) -> StaticNode:
        return _binary(operator.sub, "-", other, self)

    def __mul__(self, other: Any) -> StaticNode:
        return _binary(operator.mul, "*", self, other)

    def __rmul__(self, other: Any) -> StaticNode:
        return _binary(operator.mul, "*", other, self)

    def __truediv__(self, other: Any) -> StaticNode:
        return _binary(operator.truediv, "/", self, other)

    def __rtruediv__(self, other: Any) -> StaticNode:
        return _binary(operator.truediv, "/", other, self)

    def __neg__(self) -> StaticNode:
        return StaticNode(operator.neg, (self,), label="-", template="-{0}")

    def __getitem__(self, key: Any) -> StaticNode:
        return StaticNode(operator.getitem, (self, key), label="[]", template="{0}[{1}]")

    # -- inspection --------------------------------------------------------

    def __repr__(self) -> str:
        from wirework.graph.inspect import formula

        return formula(self)

    def to_dot(self) -> str:
        """The completed graph upstream of this node as Graphviz DOT text."""
        from wirework.graph.inspect import to_dot

        return to_dot(self)

    def to_svg(self) -> str:
        """A drawing of the completed graph as SVG (no Graphviz needed)."""
        from wirework.graph.inspect import to_svg

        return to_svg(self)

    def _repr_html_(self) -> str:
        return f"<div><code>{_html_escape(repr(self))}</code></div>{self.to_svg()}"


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Source(Node):
    """An origin of data: training data now, new data at prediction time.

    Assigning ``source.data`` (or calling :meth:`rebind`) bumps ``version``,
    which machines compare to decide whether their data changed
    (condition 4). Mutating an array in place is not seen: assign it again.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import LinearRegression
    >>> X = ww.source(np.array([[0.0], [1.0], [2.0]]), name="X")
    >>> y = ww.source(np.array([1.0, 3.0, 5.0]), name="y")
    >>> line = ww.machine(LinearRegression(), X, y)
    >>> yhat = line.predict(X).fit()
    >>> y.version
    1
    >>> y.data = np.array([0.0, 2.0, 4.0])   # new training data
    >>> y.version
    2
    >>> yhat.fit()(np.array([[3.0]])).round(6)
    array([6.])
    >>> line.report()["reason"]
    'condition 4: source data changed'
    """

    kind = "source"
    __slots__ = ("name", "_data", "version", "fingerprint")

    def __init__(self, data: Any = None, *, name: str | None = None) -> None:
        super().__init__(())
        if name is not None and not isinstance(name, str):
            raise ArgumentError(f"Expected a source name as a str. Received: {describe(name)}.")
        self.name = name
        self._data = None
        self.version = 0
        self.fingerprint: str | None = None
        self.rebind(data)

    @property
    def data(self) -> Any:
        """The training data this source yields when called without arguments."""
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        self.rebind(value)

    def rebind(self, data: Any, *, fingerprint: str | None = None) -> Source:
        """Give the source new training data; machines depending on it retrain at the next fit.

        Parameters
        ----------
        data : data or None
            The new training data.
        fingerprint : str, optional
            A content token of ``data`` (see :func:`~wirework.graph.fingerprint.tokenize`).
            When it equals the token given with the previous data, the data
            counts as unchanged: ``version`` is not bumped and nothing retrains.
        """
        if data is not None and not is_data(data):
            raise ArgumentError(
                "Expected data (numpy array, pandas DataFrame or Series, sparse matrix, list) or None "
                f"for a source. Received: {describe(data)}."
            )
        self._data = data
        if fingerprint is None or fingerprint != self.fingerprint:
            self.version += 1
            CLOCK[0] += 1
        self.fingerprint = fingerprint
        return self

    def release(self) -> Source:
        """Drop the reference to the training data without counting it as a change.

        Rebinding the same data later (with the same ``fingerprint``) retrains nothing.
        """
        self._data = None
        return self

    def _compute(self, memo: dict, overrides: Mapping | None) -> Any:
        if overrides is not None:
            value = overrides.get(self, _MISSING)
            if value is not _MISSING:
                return value
        if self._data is None:
            raise DataError(
                f"Source {_source_label(self)} holds no data. Give it training data with "
                "source.data = ..., or call the node with new data for this source."
            )
        return self._data


class DynamicNode(Node):
    """Applies one operation of one machine (``predict``, ``transform``…) to one parent.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.preprocessing import StandardScaler
    >>> X = ww.source(np.array([[1.0], [2.0], [3.0]]), name="X")
    >>> scale = ww.machine(StandardScaler(), X)
    >>> Z = scale.transform(X)
    >>> type(Z).__name__, Z.operation, Z.machine is scale
    ('DynamicNode', 'transform', True)
    >>> Z.fit()().ravel().round(3)
    array([-1.225,  0.   ,  1.225])
    >>> scale.inverse_transform(Z)(np.array([[4.0]]))   # another operation of the same machine
    array([[4.]])
    """

    kind = "dynamic"
    __slots__ = ("machine", "operation")

    def __init__(self, machine: Machine, operation: str, parent: Node) -> None:
        super().__init__((parent,))
        self.machine = machine
        self.operation = operation

    def _requires(self) -> tuple:
        return (self.machine, *self.parents)

    def _compute(self, memo: dict, overrides: Mapping | None, token: object = None) -> Any:
        if overrides is None and self.operation == "transform":  # on the training data
            output = self.machine._training_output(self.parents[0], token=token)
            if output is not None:
                return output
        return self.machine._apply(self.operation, memo[self.parents[0]])


class TrainingOutputNode(DynamicNode):
    """``mach.fit_predict(X)`` or ``mach.fit_transform(X)``: what the model's ``fit_predict`` (or
    ``fit_transform``) returned on the machine's training data ``X``.

    The training output of a model that labels (``DBSCAN``,
    ``LocalOutlierFactor``) or transforms (``TSNE``, ``SpectralEmbedding``)
    only the data it trains on: no value on new data. Build it with
    :meth:`Machine.fit_predict <wirework.graph.machines.Machine.fit_predict>`
    or :meth:`Machine.fit_transform <wirework.graph.machines.Machine.fit_transform>`.
    """

    __slots__ = ()

    def _compute(self, memo: dict, overrides: Mapping | None, token: object = None) -> Any:
        return self.machine._kept_output(self.parents[0], self.operation, overrides is not None, token)


#: Its name before it also held ``fit_transform`` outputs (networks pickled then refer to it).
FitPredictNode = TrainingOutputNode


class StaticNode(Node):
    """Applies an ordinary function to the values of its arguments.

    Arguments that are nodes are the node's parents; any other argument is a
    constant passed through unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> X = ww.source(np.array([1.0, 4.0, 9.0]), name="X")
    >>> root = ww.node(np.sqrt, X)
    >>> type(root).__name__, root
    ('StaticNode', sqrt(X))
    >>> root()
    array([1., 2., 3.])
    >>> third = ww.node(np.round, X / 3, 2)   # 2 is a constant
    >>> third, third()
    (round((X / 3), 2), array([0.33, 1.33, 3.  ]))
    """

    kind = "static"
    __slots__ = ("function", "args", "kwargs", "label", "template", "_slots")

    def __init__(
        self,
        function: Callable[..., Any],
        args: tuple,
        kwargs: Mapping[str, Any] | None = None,
        *,
        label: str | None = None,
        template: str | None = None,
    ) -> None:
        if not callable(function):
            raise ArgumentError(f"Expected a callable for a static node. Received: {describe(function)}.")
        kwargs = dict(kwargs or {})
        _refuse_nested(function, args, kwargs)
        parents = tuple(a for a in (*args, *kwargs.values()) if isinstance(a, Node))
        super().__init__(tuple(dict.fromkeys(parents)))
        self.function = function
        self.args = tuple(args)
        self.kwargs = kwargs
        self.label = label or getattr(function, "__name__", type(function).__name__)
        self.template = template
        self._slots = [isinstance(a, Node) for a in self.args]

    def _compute(self, memo: dict, overrides: Mapping | None) -> Any:
        args = [memo[a] if is_node else a for a, is_node in zip(self.args, self._slots)]
        if self.kwargs:
            kwargs = {k: memo[v] if isinstance(v, Node) else v for k, v in self.kwargs.items()}
            return self.function(*args, **kwargs)
        return self.function(*args)


def _refuse_nested(function: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any]) -> None:
    """Refuse nodes inside a list, tuple, set or dict argument: they would be passed on uncomputed."""
    for where, value in [*((f"argument {i + 1}", a) for i, a in enumerate(args)), *kwargs.items()]:
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple, set)) else ()
        held = [item for item in items if isinstance(item, Node)]
        if held:
            name = getattr(function, "__name__", type(function).__name__)
            shown = ", ".join(map(repr, held[:3])) + (", ..." if len(held) > 3 else "")
            raise ArgumentError(
                f"{name}: {where} is a {type(value).__name__} holding nodes ({shown}); a node inside a container "
                "is not computed. Pass each node as its own argument, e.g. ww.hcat(a, b) or "
                "ww.node(lambda *parts: np.column_stack(parts), a, b)."
            )


#: numpy's ufuncs that arithmetic on nodes gives, and the comparisons that raise (with their reflections).
_ARITHMETIC = {np.add: (operator.add, "+"), np.subtract: (operator.sub, "-"), np.multiply: (operator.mul, "*"),
               np.true_divide: (operator.truediv, "/")}
_ORDERINGS = {np.less: ("<", "lt", (">", "gt")), np.less_equal: ("<=", "le", (">=", "ge")),
              np.greater: (">", "gt", ("<", "lt")), np.greater_equal: (">=", "ge", ("<=", "le"))}


def _no_ufunc(ufunc: Any, method: str, inputs: tuple) -> LazyNodeError:
    """The error for numpy's ``ufunc`` (its ``method``) given ``inputs``, a node among them."""
    from wirework.graph.inspect import formulas

    shown = iter(formulas([item for item in inputs if isinstance(item, Node)]))
    received, written = [], []
    for item in inputs:
        plain = isinstance(item, (int, float)) and len(repr(item)) <= 40
        text = next(shown) if isinstance(item, Node) else repr(item) if plain else None
        received.append(text or describe(item))
        written.append(text or "value")
    call = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    return LazyNodeError(
        f"{call} cannot compute on a node: a node is lazy and has no value until it is called. Received: "
        f"{call}({', '.join(received)}). Build a static node that applies it when the network runs, "
        f"ww.node({call}, {', '.join(written)}), or decorate a function of your own with @ww.lift."
    )


def _binary(function: Callable[[Any, Any], Any], symbol: str, left: Any, right: Any) -> StaticNode:
    return StaticNode(function, (left, right), label=symbol, template="({0} " + symbol + " {1})")


def source(data: Any = None, *, name: str | None = None) -> Source:
    """Create a source node, optionally holding training data.

    Parameters
    ----------
    data : array-like, DataFrame, Series, sparse matrix or None
        Training data. ``None`` makes a source that must be given data when
        its nodes are called.
    name : str, optional
        Name used to pass new data by keyword (``node(X=...)``) and in drawings.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> X = ww.source(np.ones((3, 2)), name="X")
    >>> X().shape
    (3, 2)
    """
    return Source(data, name=name)


def node(function: Callable[..., Any], *args: Any, **kwargs: Any) -> StaticNode:
    """Create a static node applying ``function`` to the values of ``args``.

    Arguments that are nodes are evaluated first; other arguments are
    constants bound into the node. ``function`` must not change its
    arguments in place (as Dask's rule for a task's function): it is given
    the values the network keeps and shares with other nodes, not copies
    (see docs/graph.md, "Kept values").

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> X = ww.source(np.array([1.0, 4.0, 9.0]), name="X")
    >>> root = ww.node(np.sqrt, X)
    >>> root()
    array([1., 2., 3.])
    >>> root
    sqrt(X)
    """
    return StaticNode(function, args, kwargs)


def lift(function: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``function`` accept nodes: called with any node among its
    arguments it returns a static node, otherwise it computes at once.

    Examples
    --------
    >>> import wirework as ww
    >>> @ww.lift
    ... def add_one(x):
    ...     return x + 1
    >>> add_one(1)
    2
    >>> add_one(ww.source([1], name="X"))
    add_one(X)
    """

    @functools.wraps(function)
    def lifted(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Node) for a in (*args, *kwargs.values())):
            return StaticNode(function, args, kwargs)
        _refuse_nested(function, args, kwargs)  # computed at once: nodes in a list would meet it uncomputed
        return function(*args, **kwargs)

    _findable_through(lifted, function)
    return lifted


def _findable_through(lifted: Callable[..., Any], function: Callable[..., Any]) -> None:
    """Let pickle find ``function`` (what the nodes of ``lifted`` apply) as ``lifted.__wrapped__``.

    Pickle saves a function by its module and qualified name. Decorated with
    ``@lift``, that name is bound to the wrapper, so a network holding the
    function would not pickle ("not the same object as ..."). Such a
    function (one pickle cannot find under its own name, at module level)
    is given the qualified name ``<name>.__wrapped__``, which leads from the
    wrapper to it. A function found under its own name (``ww.lift(np.column_stack)``),
    a nested function or a lambda (which pickle cannot save anyway) is left as it is.
    """
    if not isinstance(function, types.FunctionType) or "<" in function.__qualname__:
        return
    found = sys.modules.get(function.__module__)
    for part in function.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is not function:
        function.__qualname__ = f"{lifted.__qualname__}.__wrapped__"
