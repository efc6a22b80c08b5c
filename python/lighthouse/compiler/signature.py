"""The signature compiled code is called with: a `TensorSpec` per argument
and result of the compiled function, and the unsigned element types the
model declares, which torch-mlir's lowering leaves signless."""

import re
from typing import List, Optional, Tuple

from .. import ir
from ..errors import CompileError
from ..execution.abi import TensorSpec

__all__ = ["Declared", "declare_unsigned", "declared_unsigned", "function_specs"]


def function_specs(function) -> tuple:
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)

    def spec(index, t, what):
        if isinstance(t, (ir.IntegerType, ir.FloatType)):
            return TensorSpec.of_scalar_type(str(t))
        if isinstance(t, ir.IndexType):
            return TensorSpec.of_scalar_type("i64")  # As it crosses.
        try:
            return TensorSpec.of_type(ir.RankedTensorType(t))
        except ValueError:
            raise NotImplementedError(
                f"{what} {index} of the compiled function is {t}; lighthouse passes "
                "ranked tensors and scalars only"
            ) from None

    def specs(types, what):
        return [spec(index, t, what) for index, t in enumerate(types)]

    return specs(function_type.inputs, "argument"), specs(function_type.results, "result")


# A value tensor of torch's dialect with an unsigned element type, as the ONNX
# and FX importers declare a model's uint8 ... uint64 (and ONNX's uint4) tensors.
_UNSIGNED_TENSOR = re.compile(r"!torch\.vtensor<(?:\[[^\]]*\]|\*),(ui(?:4|8|16|32|64))>")

Declared = Tuple[List[Optional[str]], List[Optional[str]]]


def declared_unsigned(raw: ir.Module, function_name: str) -> Declared:
    """The unsigned element type ("ui8", ...) that the torch-dialect IR `raw`
    (as imported: the ONNX graph's declared input and output types, or the
    exported program's dtypes) gives each argument and result of
    @`function_name`, None where it gives none. torch-mlir's lowering makes
    them signless (i8): only the model says they are unsigned."""
    for op in raw.body.operations:
        if (
            op.operation.name == "func.func"
            and ir.StringAttr(op.attributes["sym_name"]).value == function_name
        ):
            function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)

            def unsigned(types) -> List[Optional[str]]:
                found = [_UNSIGNED_TENSOR.fullmatch(str(t)) for t in types]
                return [match and match.group(1) for match in found]

            return unsigned(function_type.inputs), unsigned(function_type.results)
    raise ValueError(f"no function @{function_name} in the imported module")


def declare_unsigned(function_name: str, specs: list, declared: list, what: str) -> None:
    """Makes the parameters of `specs` that the model declares unsigned cross so."""
    if len(declared) != len(specs):
        if any(declared):
            raise CompileError(
                f"@{function_name} has {len(specs)} {what}s after lowering, the model "
                f"{len(declared)}: lighthouse cannot tell which are unsigned (a lighthouse bug)"
            )
        return
    for index, (spec, element) in enumerate(zip(specs, declared)):
        if element is not None:
            try:
                spec.as_unsigned(element)
            except ValueError as error:
                raise CompileError(f"{what} {index} of @{function_name}: {error}") from None
