"""The base class of every node: a lazy value (see :mod:`wirework.graph.nodes`).

:class:`Node` holds what all nodes share: the structure it keeps (ancestry,
sources, training graph, stamps), ``fit``, the guards that refuse eager
questions, comparisons, arithmetic and selection (which give static nodes:
:mod:`wirework.graph._static`), and inspection. Calling a node is
:class:`~wirework.graph._calling._Calling`'s, copying and pickling it
:class:`~wirework.graph._node_pickling._Pickled`'s.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from wirework.errors import LazyNodeError
from wirework.graph._calling import _Calling
from wirework.graph._node_pickling import _Pickled
from wirework.graph.data import describe
from wirework.graph.topology import TrainingGraph, ancestry, upstream_sources

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph._sources import Source
    from wirework.graph._static import StaticNode
    from wirework.graph.cache import FitCache
    from wirework.graph.machines import Machine

__all__ = ["Node"]


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
    #: above a DataFrame's (4000): pandas' ``series + node`` gives way to ``node.__radd__`` (a static node), where it
    #: took the node as an array and asked its length (pandas >= 2.1 reads it)
    __pandas_priority__ = 5000
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
        return _static(operator.neg, (self,), "-", "-{0}")

    def __getitem__(self, key: Any) -> StaticNode:
        return _static(operator.getitem, (self, key), "[]", "{0}[{1}]")

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


Node.__module__ = "wirework.graph.nodes"  # pickles name the module where it always was (which re-exports it)


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
    return _static(function, (left, right), symbol, "({0} " + symbol + " {1})")


def _static(function: Callable[..., Any], args: tuple, label: str, template: str) -> StaticNode:
    """The static node arithmetic, ``-node`` and ``node[key]`` give (:class:`StaticNode` is a subclass of
    :class:`Node`, in a module that imports this one: imported when a node is built)."""
    from wirework.graph._static import StaticNode

    return StaticNode(function, args, label=label, template=template)
