"""Static nodes: an ordinary function of nodes' values, and ``ww.node`` and ``ww.lift``, which build them (see
:mod:`wirework.graph.nodes`, which re-exports them)."""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any

from wirework.errors import ArgumentError
from wirework.graph._lazy import Node
from wirework.graph.data import describe

__all__ = ["StaticNode", "node", "lift"]


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


StaticNode.__module__ = "wirework.graph.nodes"  # pickles name the module where it always was (which re-exports it)


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
