"""``ww.onnx``: the public face of the ONNX export (see :mod:`wirework.export`).

Needs the extra ``wirework[onnx]``; importing this module does not import
onnx itself.
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
