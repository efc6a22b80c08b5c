"""The `torch_dynamo_backends` entry point `lighthouse`: the TorchDynamo
backend lives in `lighthouse.compiler.dynamo`."""

from .compiler.dynamo import MAX_ROUNDS, Backend, EagerFallbackWarning, GraphReport, backend

__all__ = ["MAX_ROUNDS", "Backend", "EagerFallbackWarning", "GraphReport", "backend"]
