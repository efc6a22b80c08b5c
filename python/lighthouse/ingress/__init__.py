"""Models into lighthouse contexts, through torch-mlir's importers and passes.

- `lighthouse.ingress.torch`: PyTorch modules and `torch.export` programs
  (`pip install 'lighthouse[torch]'`);
- `lighthouse.ingress.onnx`: ONNX files and `ModelProto`s
  (`pip install 'lighthouse[onnx]'`).

Each gives the model as imported (torch-dialect IR) and lowered to linalg on
tensors (upstream dialects only). Importing a submodule without its extra
raises an ImportError that names the extra.
"""

from ..errors import (
    ExchangeError,
    ExportError,
    ImporterError,
    IngressError,
    LoweringCrash,
    LoweringError,
)

__all__ = [
    "ExchangeError",
    "ExportError",
    "ImporterError",
    "IngressError",
    "LoweringCrash",
    "LoweringError",
]
