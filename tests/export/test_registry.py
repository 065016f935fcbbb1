"""Which converter exports which model, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.isotonic import IsotonicRegression
from sklearn.preprocessing import KBinsDiscretizer

import wirework as ww
from wirework.export.builder import GraphBuilder
from wirework.export.registry import converter_for


def test_a_method_the_converter_does_not_list_is_refused_whoever_asks():
    """KBinsDiscretizer's converter writes its transform whatever method it is given; apply refuses the others."""
    X, _ = load_diabetes(return_X_y=True)
    bins = KBinsDiscretizer(n_bins=4, encode="ordinal").fit(X[:, [0, 2]])
    g = GraphBuilder("float64")
    x = g.add_input("X", np.float64, [None, 2])
    with pytest.raises(ww.ExportError, match=r"KBinsDiscretizer\.inverse_transform\(\) cannot be exported; its "
                       r"converter exports transform\."):
        converter_for(bins).apply(bins, "inverse_transform", g, x)


def test_a_fitted_model_without_n_features_in_is_not_said_to_be_unfitted():
    """IsotonicRegression never records n_features_in_: the message asked whether it was fitted."""
    X = np.arange(20.0)
    with pytest.raises(ww.ExportError, match=r"IsotonicRegression records no n_features_in_ \(how many input "
                       r"columns it reads\), which the export needs.*cannot be exported\. Replace it"):
        ww.to_onnx(IsotonicRegression().fit(X, np.sin(X)), X[:5].reshape(-1, 1))
    with pytest.raises(ww.ExportError, match=r"IsotonicRegression is not fitted\. Call fit\(\) before exporting it\."):
        ww.to_onnx(IsotonicRegression(), X[:5].reshape(-1, 1))
