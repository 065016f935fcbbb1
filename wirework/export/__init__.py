"""ONNX export: tree ensembles in ``TreeEnsemble`` (ai.onnx.ml opset 5), network lowering, parity.

Needs the extra ``wirework[onnx]`` (onnx, onnxruntime >= 1.30, skl2onnx).
Nothing here imports onnx until a function is called, so ``import
wirework`` stays light. The public names are re-exported as ``ww.to_onnx``,
``ww.save_onnx`` and ``ww.onnx.check_parity``.
"""
