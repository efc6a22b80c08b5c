"""Command-line tools of torch-mlir's importers, over lighthouse: `import_onnx`."""
