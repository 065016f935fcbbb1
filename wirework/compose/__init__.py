"""The compose layer: networks exported as scikit-learn estimators, and recipes.

Imports only the layers below it (graph, execution, export); ``_export``
registers the ONNX forms of the recipes' own operations.
"""

from wirework.compose import _export  # noqa: F401  (registers lowerings)
from wirework.compose.composite import Composite, WeightedFit
from wirework.compose.ensemble import Average, Bagging
from wirework.compose.pipeline import Pipeline, TransformedTarget
from wirework.compose.signature import Signature
from wirework.compose.stack import Stack

__all__ = ["Composite", "WeightedFit", "Signature", "Pipeline", "TransformedTarget", "Stack", "Bagging", "Average"]
