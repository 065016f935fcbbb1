"""The graph layer: sources, nodes, machines, topology and fingerprints.

It imports nothing from the layers above it (execution, persist, export,
intervene, compose, autoensemble, report, cli).
"""

from wirework.graph.library import corestrict, folds, hcat, mean, restrict, vcat
from wirework.graph.machines import OPERATIONS, Machine, machine
from wirework.graph.nodes import DynamicNode, Node, Source, StaticNode, lift, node, source

__all__ = [
    "Node",
    "Source",
    "DynamicNode",
    "StaticNode",
    "Machine",
    "OPERATIONS",
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
]
