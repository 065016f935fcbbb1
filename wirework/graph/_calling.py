"""Calling a node: its value on the training data or on new data, and the error when a computation raised.

:func:`evaluate` computes a node's value, each missing ancestor once;
:func:`apply_failure` is the error when a static node's function raised.
:class:`_Calling` is a base class of :class:`~wirework.graph.nodes.Node`:
``node()``, ``node(X_new)`` and ``node(X=..., y=...)`` (``__call__``), and how
a call's arguments are mapped to the node's sources (``_bind``). The node
classes are in :mod:`wirework.graph.nodes`, which re-exports these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wirework.errors import ArgumentError, GraphError, NodeApplyError, WireworkError, install_advice, quoted
from wirework.graph.data import describe, is_data
from wirework.graph.kept import copied

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.nodes import Node, Source

__all__ = ["evaluate", "apply_failure"]


def evaluate(target: Node, memo: dict, overrides: Mapping[Node, Any] | None = None) -> Any:
    """Value of ``target``, computing each missing ancestor once into ``memo``.

    ``overrides`` maps sources to the data they yield instead of their own.

    Raises
    ------
    NodeApplyError
        A static node's function raised: the error names that node, chains
        the function's own and is also of its builtin class. Errors of
        wirework's own (a machine's ``MachineApplyError``…) pass unchanged.
    """
    try:
        for item in target._ancestry():
            if item not in memo:
                memo[item] = item._compute(memo, overrides)
    except WireworkError:  # names its machine, source or data already
        raise
    except Exception as error:
        raise apply_failure(target, memo, error, new_data=overrides is not None) from error
    return memo[target]


def apply_failure(
    target: Node, memo: dict, error: Exception, *, new_data: bool, fitting: bool = False
) -> NodeApplyError:
    """The error to raise when computing ``target``'s value into ``memo`` raised ``error`` (not a wirework
    error): at the first node of its ancestry without a value, as :func:`evaluate` and a fit pass compute them
    in that order. ``new_data``: on data given to the call, not the sources' own; ``fitting``: in a fit, after
    which the machines trained stay trained."""
    from wirework.graph.inspect import formulas

    item = next(node for node in target._ancestry() if node not in memo)
    shown = formulas([item, target])  # machines and sources numbered alike in both
    data = "new data" if new_data else "the training data"
    if item is target:
        what = f"On {data}, the node {shown[0]} raised {quoted(error)}"
    else:
        what = f"Computing {shown[1]} on {data}, the node {shown[0]} raised {quoted(error)}"
    inputs = [describe(memo[p]) for p in item.parents if p in memo]
    received = f"; it received {', '.join(inputs)}" if inputs else ""
    advice = install_advice(error) or "fix the node's function or the data that reaches it"
    then = f"The machines trained stay trained; {advice} and fit again" if fitting else (
        f"Nothing was changed; {advice} and call again"
    )
    return NodeApplyError.wrapping(error, f"{what}{received}. {then}.", node=item)


class _Calling:
    """Calling a :class:`~wirework.graph.nodes.Node` (its base): on the training data or on new data."""

    __slots__ = ()

    # -- calling -----------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Value of the node on the training data, or on new data.

        Examples
        --------
        >>> import numpy as np
        >>> import wirework as ww
        >>> X = ww.source(np.array([1.0, 2.0]), name="X")
        >>> double = 2 * X
        >>> double()
        array([2., 4.])
        >>> double(np.array([5.0]))
        array([10.])
        """
        if not args and not kwargs:  # the value may be one the network keeps: the caller gets a copy to change
            value = evaluate(self, {})
            return value if self.kind == "source" else copied(value)
        sources = self._sources if self._sources is not None else self.sources()
        if len(args) == 1 and not kwargs and len(sources) == 1 and is_data(args[0]):
            return evaluate(self, {}, {sources[0]: args[0]})  # the common case, kept short
        return evaluate(self, {}, self._bind(args, kwargs))

    def _bind(self, args: tuple, kwargs: dict) -> dict:
        """Map the call's arguments to this node's sources."""
        sources = self.sources()
        names = ", ".join(_source_label(s) for s in sources) or "none"
        if args and kwargs:
            raise GraphError(
                "Expected either one positional value or values by source name, not both. "
                f"Received {len(args)} positional and {sorted(kwargs)} by name. This node's sources: {names}."
            )
        for value in (*args, *kwargs.values()):
            if not is_data(value):
                raise ArgumentError(
                    "Expected data (numpy array, pandas DataFrame or Series, sparse matrix, list) "
                    f"to push through the network. Received: {describe(value)}."
                )
        if args:
            if len(args) > 1:
                raise GraphError(
                    f"Expected one positional value (the new data for the node's source). "
                    f"Received {len(args)}. Pass several sources by name: node(X=..., y=...)."
                )
            if not sources:
                raise GraphError(
                    "This node has no source, so it takes no data: call it without arguments, node()."
                )
            if len(sources) != 1:
                raise GraphError(
                    f"This node has {len(sources)} sources ({names}), so one positional value is ambiguous. "
                    "Pass each by name, for example node(X=X_new, y=y_new)."
                )
            return {sources[0]: args[0]}
        by_name: dict[str, Source] = {}
        for src in sources:
            if src.name in by_name:
                raise GraphError(
                    f"Two sources of this node are both named {src.name!r}; values by name are ambiguous. "
                    "Give the sources distinct names with ww.source(..., name=...)."
                )
            if src.name is not None:
                by_name[src.name] = src
        unknown = sorted(set(kwargs) - set(by_name))
        if unknown:
            raise GraphError(f"Received values for {unknown}, which are not sources of this node. Its sources: {names}.")
        missing = [_source_label(s) for s in sources if s.name not in kwargs]
        if missing:
            raise GraphError(
                f"Received new data for {sorted(kwargs)} but not for {missing}. "
                f"Pass new data for every source of this node ({names})."
            )
        return {by_name[name]: value for name, value in kwargs.items()}


def _source_label(src: Source) -> str:
    return src.name if src.name is not None else "<unnamed source>"
