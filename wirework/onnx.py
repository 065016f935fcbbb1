"""``ww.onnx``: the public face of the ONNX export (see :mod:`wirework.export`).

Needs the extra ``wirework[onnx]``; importing this module does not import
onnx itself.

``UNKNOWN_CODE`` (``-1.0``) is the code :func:`feed` gives, in the
``"matrix"`` input layout, to a category value the model never saw; each
model treats it as it treats an unknown category natively.

Examples
--------
>>> import numpy as np
>>> import pandas as pd
>>> import wirework as ww
>>> from sklearn.ensemble import HistGradientBoostingRegressor
>>> X = pd.DataFrame({"size": np.arange(40.0), "colour": pd.Categorical(["red", "blue"] * 20)})
>>> y = X["size"] + 10 * (X["colour"] == "red")
>>> model = HistGradientBoostingRegressor(max_iter=3, learning_rate=1.0, min_samples_leaf=2).fit(X, y)
>>> exported = ww.to_onnx(model, X)
>>> ww.onnx.check_parity(model, exported, X).exact
True
>>> inputs = ww.onnx.feed(exported, pd.DataFrame({"size": [1.0, 2.0], "colour": ["red", "green"]}))
>>> inputs["X"][:, 1], ww.onnx.UNKNOWN_CODE   # "green" was never seen
(array([ 1., -1.]), -1.0)
>>> ww.onnx.session(exported).run(None, inputs)[0].round(2)
array([10.,  3.])
"""

from wirework.errors import ExportError
from wirework.export.api import feed, input_signature, save_onnx, to_onnx
from wirework.export.builder import UNKNOWN_CODE
from wirework.export.parity import OutputParity, ParityReport, check_parity, session
from wirework.export.trees import count_entries

__all__ = [
    "to_onnx",
    "save_onnx",
    "check_parity",
    "ParityReport",
    "OutputParity",
    "feed",
    "input_signature",
    "session",
    "count_entries",
    "UNKNOWN_CODE",
    "ExportError",
]
