"""`python -m lighthouse.extras.tools.import_onnx model.onnx -o model.mlir`:
an ONNX model as torch-onnx IR (`__main__`)."""
