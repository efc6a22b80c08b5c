"""torch-mlir's importers, bound to lighthouse's bindings.

`lighthouse.extras.fx_importer` and `lighthouse.extras.onnx_importer`, and the
modules they import (`fx_as_strided`, `fx_decomp_util`), are torch-mlir's own
files, loaded unchanged from the installed torch-mlir package
(`pip install 'lighthouse[torch]'` or `'lighthouse[onnx]'`) and executed as
submodules of this package. Their relative imports (`from ..ir import ...`,
`from ..dialects import func`) therefore reach lighthouse's bindings, and the
IR they build lives in a lighthouse context. Their API is torch-mlir's:
`FxImporter(context=...)`, `import_frozen_program`, `import_program`,
`import_stateless_graph`, `FxImporterHooks`; `onnx_importer.ModelInfo`,
`NodeImporter.define_function`, `import_all`.

lighthouse does not build torch-mlir's `torch` dialect. Importing this package
registers a stand-in for it in every `Context` created afterwards
(`prepare_context` does so for an existing one). The stand-in accepts every
operation, type and attribute of the `torch` namespace without knowing them:
the imported IR prints and parses like torch-mlir's, but nothing verifies or
folds its torch operations, and lighthouse's passes treat them as unknown.
Because no torch operation is registered, the importers emit every ATen call
as `torch.operator {name = "torch.aten..."}`, as torch-mlir does for operators
it has no definition of. `lighthouse.ingress.torch` turns them into named ops
and lowers the IR to upstream dialects with torch-mlir's passes.

torch-mlir's front doors over these importers are lighthouse's own:
`lighthouse.extras.fx` (`export_and_import`), `lighthouse.extras.tools.import_onnx`
(the command), and `lighthouse.dialects.torch` (`register_dialect`, which
registers the stand-in).
"""

import importlib.abc
import importlib.metadata
import importlib.util
import sys
import warnings
from pathlib import Path

from .. import ir
from .._mlir_libs import get_dialect_registry
from .._mlir_libs._lighthouse import register_opaque_torch_dialect
from ..dialects import torch as torch_dialect
from .._version import TORCH_MLIR_VERSION

__all__ = ["TORCH_MLIR_MODULES", "prepare_context"]

# torch-mlir's modules served as lighthouse.extras.<name>.
TORCH_MLIR_MODULES = ("fx_importer", "onnx_importer", "fx_as_strided", "fx_decomp_util")


def prepare_context(context: ir.Context) -> ir.Context:
    """Makes `context`, created before this package was imported, accept torch IR."""
    torch_dialect.register_dialect(context)
    return context


def _torch_mlir_extras_dir(module: str) -> Path:
    spec = importlib.util.find_spec("torch_mlir")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"lighthouse.extras.{module} is torch-mlir's importer, and torch-mlir is "
            f"not installed: pip install 'lighthouse[torch]' (torch models) or "
            f"'lighthouse[onnx]' (ONNX models), which installs torch-mlir=={TORCH_MLIR_VERSION}",
            name=f"{__name__}.{module}",
        )
    try:
        installed = importlib.metadata.version("torch-mlir")
    except importlib.metadata.PackageNotFoundError:
        installed = "of unknown version"
    if installed != TORCH_MLIR_VERSION:
        warnings.warn(
            f"torch-mlir {installed} is installed; lighthouse is tested with "
            f"{TORCH_MLIR_VERSION} (pip install torch-mlir=={TORCH_MLIR_VERSION})",
            stacklevel=3,
        )
    return Path(spec.submodule_search_locations[0]) / "extras"


class _TorchMlirExtrasFinder(importlib.abc.MetaPathFinder):
    """Finds torch-mlir's importer modules in the installed torch-mlir package."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, module = fullname.rpartition(".")
        if package != __name__ or module not in TORCH_MLIR_MODULES:
            return None
        source = _torch_mlir_extras_dir(module) / f"{module}.py"
        if not source.is_file():
            raise ImportError(
                f"the installed torch-mlir has no {source.name}; lighthouse needs "
                f"torch-mlir=={TORCH_MLIR_VERSION}",
                name=fullname,
            )
        return importlib.util.spec_from_file_location(fullname, source)


if not any(isinstance(f, _TorchMlirExtrasFinder) for f in sys.meta_path):
    sys.meta_path.append(_TorchMlirExtrasFinder())

# Every Context created from now on accepts torch IR.
register_opaque_torch_dialect(get_dialect_registry())
