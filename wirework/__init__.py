"""wirework: learning networks for Python.

Machine-learning models composed as lazy DAGs of sources, machines and
nodes, in the design of MLJ's learning networks, on scikit-learn estimators.

Examples
--------
>>> import numpy as np
>>> import wirework as ww
>>> from sklearn.linear_model import LinearRegression
>>> X = ww.source(np.array([[0.0], [1.0], [2.0]]), name="X")
>>> y = ww.source(np.array([1.0, 3.0, 5.0]), name="y")
>>> yhat = ww.machine(LinearRegression(), X, y).predict(X)
>>> yhat.fit()(np.array([[3.0]])).round(6)
array([7.])
"""

from wirework.errors import (
    ArgumentError,
    ClusterError,
    DataError,
    ExportError,
    FitCacheWarning,
    FrozenMachineWarning,
    GraphError,
    LazyNodeError,
    MachineApplyError,
    MachineFitError,
    NodeApplyError,
    NotTrainedError,
    ParameterError,
    PrecisionWarning,
    StorageError,
    UnavailableError,
    UnsetRequestError,
    WireworkError,
    WireworkWarning,
)
from wirework.compose import Average, Bagging, Composite, Pipeline, Signature, Stack, TransformedTarget
from wirework.config import config_context, get_config, set_config
from wirework.execution import DaskExecutor, ProcessExecutor, SequentialExecutor, ThreadExecutor
from wirework.graph import (
    DynamicNode,
    Machine,
    Node,
    Source,
    StaticNode,
    corestrict,
    folds,
    hcat,
    lift,
    machine,
    mean,
    node,
    restrict,
    source,
    vcat,
)
from wirework.graph.cache import FitCache
from wirework.export.api import save_onnx, to_onnx
from wirework import onnx

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Node",
    "Source",
    "DynamicNode",
    "StaticNode",
    "Machine",
    "source",
    "machine",
    "node",
    "lift",
    "hcat",
    "vcat",
    "mean",
    "folds",
    "restrict",
    "corestrict",
    "FitCache",
    "to_onnx",
    "save_onnx",
    "onnx",
    "DaskExecutor",
    "ProcessExecutor",
    "SequentialExecutor",
    "ThreadExecutor",
    "Composite",
    "Signature",
    "Pipeline",
    "TransformedTarget",
    "Stack",
    "Bagging",
    "Average",
    "set_config",
    "get_config",
    "config_context",
    "WireworkError",
    "GraphError",
    "NotTrainedError",
    "DataError",
    "ArgumentError",
    "ParameterError",
    "LazyNodeError",
    "StorageError",
    "ClusterError",
    "UnavailableError",
    "UnsetRequestError",
    "MachineApplyError",
    "MachineFitError",
    "NodeApplyError",
    "ExportError",
    "WireworkWarning",
    "FrozenMachineWarning",
    "FitCacheWarning",
    "PrecisionWarning",
]
