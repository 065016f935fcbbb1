"""Pickling and copying a node without recursing through the network.

:class:`_Pickled` is a base class of :class:`~wirework.graph.nodes.Node`:
``copy.copy``, pickling and ``copy.deepcopy`` of a node (``__copy__``,
``__reduce_ex__``, ``__setstate__``). A pickle saves first the prelude of
what a node needs (:class:`_Prelude`), and unpickling makes each node blank
(:func:`_blank`, whose pickles name :mod:`wirework.graph.nodes`, which
re-exports it) before filling its fields (:func:`_fields`).
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from wirework.graph.topology import post_order, requirements_of

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.nodes import Node

__all__: list[str] = []


class _Pickled:
    """Copying and pickling a :class:`~wirework.graph.nodes.Node` (its base)."""

    __slots__ = ()

    def __copy__(self) -> Node:
        """``copy.copy(node)``: a node of the same kind computing the same (same parents, function or machine;
        a source holds the same data), with its own record of its structure, which lists the node itself."""
        kind = type(self)
        copied = kind.__new__(kind)
        for name in _fields(kind):
            setattr(copied, name, getattr(self, name))
        if hasattr(self, "__dict__"):  # a subclass without slots
            copied.__dict__.update(self.__dict__)
        copied._order = copied._sources = copied._training = copied._stamp = None
        return copied

    def __reduce_ex__(self, protocol: int) -> tuple:
        """Pickle and ``copy.deepcopy`` a node without recursing through the network (see :class:`_Prelude`).

        The state is the node's fields, without what it keeps of its structure
        (rebuilt when asked: kept, it would be as large as the network, for
        each node).
        """
        kind = type(self)
        state = {name: getattr(self, name, None) for name in _fields(kind)}
        state["_order"] = state["_sources"] = state["_training"] = state["_stamp"] = None
        if hasattr(self, "__dict__"):  # a subclass without slots
            state.update(self.__dict__)
        prelude = _Prelude.of(self)
        if prelude is not None:
            state = {"_prelude": prelude, **state}
        return _blank, (kind,), state

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple):  # pickled before nodes had __reduce_ex__: (dict or None, slots)
            state = {**(state[0] or {}), **state[1]}
        self._stamp = None  # pickled before nodes kept stamps, or dropped when pickled
        for name, value in state.items():
            if name != "_prelude":
                setattr(self, name, value)


def _blank(kind: type) -> Node:
    """A node of class ``kind`` without fields yet: what unpickling fills (``Node.__setstate__``)."""
    return kind.__new__(kind)


#: Per thread: the first prelude of the pickle or deep copy under way (weakly: it lives as long as that does).
_SAVING = threading.local()


class _Prelude(list):
    """What a pickle (or deep copy) of a node saves before the node's own fields: the nodes and machines it
    needs (through ordinary and training edges), each after those it needs.

    Saving an object saves what it refers to first, recursively: through a
    node's parents and a machine's training arguments, a network a few
    hundred nodes deep exceeded the recursion limit. Saved in this order,
    each finds what it refers to saved already. The first node saved in a
    pickle carries the prelude of everything it needs; the others it covers
    carry none (the pickler's memo holds the prelude, so it lives exactly as
    long as that pickle). Unpickled, the prelude is dropped.
    """

    __slots__ = ("covered", "__weakref__")

    def __reduce_ex__(self, protocol: int) -> tuple:
        return list, (list(self),)  # unpickled as a plain list: only the order of saving matters

    @staticmethod
    def of(node: Node) -> _Prelude | None:
        """The prelude ``node`` carries: what it needs that no node saved before in this pickle covered."""
        reference = getattr(_SAVING, "prelude", None)
        first = reference() if reference is not None else None
        covered: set[int] = first.covered if first is not None else set()
        if id(node) in covered:
            return None
        prelude = _Prelude()
        for item in post_order([node], requirements_of, covered):  # each item after what it requires, skipping the covered
            if item is not node:
                prelude.append(item)
        if first is None:
            prelude.covered = covered
            _SAVING.prelude = weakref.ref(prelude)
        return prelude or None


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    """The slots of a node class that hold its fields (all but ``__weakref__``), kept per class."""
    names = _FIELDS.get(kind)
    if names is None:
        slots = [name for k in reversed(kind.__mro__) for name in k.__dict__.get("__slots__", ())]
        names = _FIELDS[kind] = tuple(name for name in slots if name != "__weakref__")
    return names


# pickles of nodes name the nodes module, where it always was
_blank.__module__ = "wirework.graph.nodes"
