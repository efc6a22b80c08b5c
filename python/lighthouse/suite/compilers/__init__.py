"""The compilers lighthouse's test bench comes with: lighthouse's pipelines and
the tools people would pick instead (eager PyTorch, inductor, onnxruntime, IREE)."""
