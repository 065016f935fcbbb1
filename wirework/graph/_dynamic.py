"""Dynamic nodes: one operation of one machine applied to one node (see :mod:`wirework.graph.nodes`, which
re-exports them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wirework.graph._lazy import Node

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine

__all__ = ["DynamicNode", "TrainingOutputNode", "FitPredictNode"]


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

# pickles name the module where they always were (which re-exports them)
DynamicNode.__module__ = TrainingOutputNode.__module__ = "wirework.graph.nodes"
