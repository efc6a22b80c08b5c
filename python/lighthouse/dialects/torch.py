"""torch-mlir's `torch` dialect as lighthouse has it: a stand-in, not the dialect.

torch-mlir's users write

    from torch_mlir.dialects import torch as torch_d
    torch_d.register_dialect(context)

and the same works here. lighthouse does not build torch-mlir's dialect (its
C++ lives in torch-mlir's package, on another MLIR release); `register_dialect`
registers a stand-in that claims the `torch` and `torch_c` namespaces and
accepts any operation, type and attribute in them without knowing them
(`lighthouse.extras` explains what follows). torch IR therefore builds,
prints and parses in a lighthouse context, in the generic op form, but
nothing verifies or folds it, and there are no op classes (`AtenMmOp`,
`ConstantIntOp`, ...): asking for one raises an AttributeError that says so.
torch ops are built with `ir.Operation.create("torch.aten.mm", ...)`.
"""

from .. import ir
from .._mlir_libs._lighthouse import register_opaque_torch_dialect

__all__ = ["register_dialect"]


def register_dialect(context: ir.Context, load: bool = True) -> None:
    """Makes `context` accept torch IR (torch-mlir's signature: with `load`,
    the dialect is loaded too, as torch-mlir's `register_dialect` does)."""
    registry = ir.DialectRegistry()
    register_opaque_torch_dialect(registry)
    context.append_dialect_registry(registry)
    if load:
        context.load_all_available_dialects()


def __getattr__(name: str):
    raise AttributeError(
        f"lighthouse.dialects.torch has no {name!r}: lighthouse does not build torch-mlir's "
        "torch dialect, only a stand-in that accepts its IR without knowing its ops, so it "
        "has no op classes; build torch ops with ir.Operation.create('torch.<op>', ...), or "
        "use torch_mlir.dialects.torch in a torch-mlir context"
    )
