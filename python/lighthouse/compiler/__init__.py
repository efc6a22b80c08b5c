"""The compiler: models in, native CPU callables out.

- `entry_points`: `compile` (PyTorch), `compile_onnx` (ONNX),
  `compile_module` (linalg-on-tensors IR);
- `options`: `CompileOptions`;
- `pipelines`: the pass pipelines by name (`PIPELINES`) and the check of
  what they leave;
- `jit`: the pipeline and lighthouse's JIT, or the compile cache;
- `signature`: what crosses each argument and result of compiled code;
- `dynamo`: the TorchDynamo backend (`torch.compile(backend="lighthouse")`);
- `explain`: errors of parsing, memory and the JIT, explained.

It uses `lighthouse.ingress` (models to linalg on tensors) and
`lighthouse.execution` (the code it returns), which never import it.
"""

from .._mlir_libs._lighthouse import release_buffers
from ..errors import CompileError
from ..execution import CompiledModule, SpecializedModule, load
from .entry_points import compile, compile_module, compile_onnx
from .options import CompileOptions
from .pipelines import PIPELINES

__all__ = [
    "PIPELINES",
    "CompileError",
    "CompileOptions",
    "CompiledModule",
    "SpecializedModule",
    "compile",
    "compile_module",
    "compile_onnx",
    "load",
    "release_buffers",
]
