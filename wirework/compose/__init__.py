"""The compose layer: networks exported as scikit-learn estimators, and recipes.

Imports only the layers below it (graph).
"""

from wirework.compose.composite import Composite
from wirework.compose.ensemble import Average, Bagging
from wirework.compose.pipeline import Pipeline, TransformedTarget
from wirework.compose.signature import Signature
from wirework.compose.stack import Stack

__all__ = ["Composite", "Signature", "Pipeline", "TransformedTarget", "Stack", "Bagging", "Average"]
