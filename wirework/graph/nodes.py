"""Sources, dynamic nodes and static nodes: the lazy values of a network.

A node computes nothing until it is called:

* ``node()`` returns its value on the training data held by the sources;
* ``node(X_new)`` pushes new data through its one source;
* ``node(X=..., y=...)`` names the sources when there are several.

Nodes are immutable once created, so a network is a DAG by construction.

The node classes live in one module per concept: the base class
:class:`Node` in :mod:`wirework.graph._lazy`, :class:`Source` in
:mod:`wirework.graph._sources`, :class:`DynamicNode` in
:mod:`wirework.graph._dynamic`, :class:`StaticNode` with :func:`node` and
:func:`lift` in :mod:`wirework.graph._static`. This module names them all,
as it always did: pickles of nodes name ``wirework.graph.nodes`` (the
classes say so), and code imports them from here.
"""

from __future__ import annotations

from wirework.graph._calling import apply_failure, evaluate
from wirework.graph._dynamic import DynamicNode, FitPredictNode, TrainingOutputNode
from wirework.graph._lazy import Node
from wirework.graph._node_pickling import _blank
from wirework.graph._sources import Source, source
from wirework.graph._static import StaticNode, lift, node

__all__ = [
    "Node", "Source", "DynamicNode", "TrainingOutputNode", "FitPredictNode", "StaticNode", "source", "node", "lift",
    "evaluate", "apply_failure",
]
__all__ += ["_blank"]  # moved to _node_pickling: pickles of nodes name wirework.graph.nodes._blank
